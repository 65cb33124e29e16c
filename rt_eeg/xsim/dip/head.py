"""The volume conductor: a concentric four-shell sphere, its cortical dipoles and lead fields.

Positions are in units of the head radius (the scalp surface is the unit sphere; x towards
the nose, y towards the left ear, z up, as in :func:`rt_eeg.xsim.base.electrode_xyz`).
Potentials are in microvolts per nanoampere-metre of dipole moment.

Intracranial dipoles use the exact series solution of the multi-shell sphere (brain, CSF,
skull, scalp): each Legendre degree ``n`` of the infinite-medium dipole field is carried
through the shells by the continuity of potential and normal current, which is where the
skull's low conductivity blurs and attenuates the scalp field. Extracranial sources (eyes,
muscles, tongue, heart) sit outside the skull, so they use the field of a dipole in a
homogeneous half-space instead (very local for muscles, smooth for the distant heart).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

#: Conductivities (S/m) of brain, CSF, skull and scalp; the skull's is set per patient.
SIGMA_BRAIN, SIGMA_CSF, SIGMA_SCALP = 0.33, 1.79, 0.43
#: Degrees of the Legendre series (the shallowest dipoles sit at 0.81 of the head radius).
N_MAX = 110
#: Radius (head units) of the cortical dipole layer.
CORTEX_R = 0.80


def direction(polar_deg: float, azimuth_deg: float) -> np.ndarray:
    """Unit vector from the polar angle from the vertex and the azimuth from the nose."""
    th, ph = np.deg2rad(polar_deg), np.deg2rad(azimuth_deg)
    return np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])


#: Cortical landmarks, (polar, azimuth) of the left hemisphere in degrees; the right
#: hemisphere is the mirror image (azimuth negated). Used as centres of regions and foci.
LANDMARKS: dict[str, tuple[float, float]] = {
    "frontopolar": (88, 22),
    "orbitofrontal": (98, 28),
    "dorsolateral_frontal": (58, 38),
    "mesial_frontal": (22, 20),
    "inferior_frontal": (84, 50),
    "anterior_temporal": (106, 62),
    "mid_temporal": (102, 92),
    "posterior_temporal": (100, 122),
    "central": (44, 88),
    "parietal": (62, 138),
    "occipital": (98, 160),
    "occipital_pole": (100, 172),
    "vertex": (8, 90),
    "frontal_midline": (40, 10),
    "parietal_midline": (42, 165),
}


def landmark(name: str, side: str = "left") -> np.ndarray:
    """Unit vector of a landmark on the ``side`` hemisphere (``'left'``/``'right'``)."""
    pol, az = LANDMARKS[name]
    return direction(pol, az if side == "left" else -az)


def _legendre_sums(cosg: np.ndarray, r0: np.ndarray, gains: np.ndarray):
    """Radial and tangential series sums for every (electrode, source) pair.

    ``R = sum_n g_n r0^(n-1) n P_n(c)`` multiplies the radial moment and
    ``T = sum_n g_n r0^(n-1) P_n'(c)`` the tangential one (see :func:`sphere_lead_field`).
    """
    p_prev, p_cur = np.ones_like(cosg), cosg.copy()
    d_prev, d_cur = np.zeros_like(cosg), np.ones_like(cosg)
    rad = np.zeros_like(cosg)
    tan = np.zeros_like(cosg)
    rpow = np.ones_like(r0)  # r0^(n-1)
    for n in range(1, len(gains)):
        a = gains[n] * rpow
        rad += a * n * p_cur
        tan += a * d_cur
        # P_{n+1} and P'_{n+1} by the three-term recurrences (stable for |c| <= 1).
        p_next = ((2 * n + 1) * cosg * p_cur - n * p_prev) / (n + 1)
        d_next = d_prev + (2 * n + 1) * p_cur
        p_prev, p_cur, d_prev, d_cur = p_cur, p_next, d_cur, d_next
        rpow = rpow * r0
    return rad, tan


def shell_gains(radii, sigmas, n_max: int = N_MAX) -> np.ndarray:
    """Surface potential per unit source coefficient for each Legendre degree.

    Parameters
    ----------
    radii : sequence of float
        Outer radii of the shells, innermost first, the last 1.0 (the scalp surface).
    sigmas : sequence of float
        Their conductivities (S/m).

    Returns
    -------
    ndarray, shape (n_max + 1,)
        ``g[n]``: the degree-``n`` surface potential divided by the coefficient of the
        source's ``r^-(n+1)`` term inside the innermost shell; ``(2n+1)/n`` for a
        homogeneous sphere.
    """
    g = np.zeros(n_max + 1)
    for n in range(1, n_max + 1):
        # Outermost shell: no current leaves the scalp, so B = n/(n+1) A at r = 1.
        a, b = 1.0, n / (n + 1.0)
        for k in range(len(radii) - 2, -1, -1):
            r, s_in, s_out = radii[k], sigmas[k], sigmas[k + 1]
            v = a * r**n + b * r ** (-(n + 1))
            j = s_out * (n * a * r ** (n - 1) - (n + 1) * b * r ** (-(n + 2)))
            b = r ** (n + 2) * (n * v / r - j / s_in) / (2 * n + 1)
            a = (v - b * r ** (-(n + 1))) / r**n
        g[n] = ((2 * n + 1) / (n + 1.0)) / b
    return g


def sphere_lead_field(elec, src, radii, sigmas, head_radius_m: float) -> np.ndarray:
    """Scalp potentials of unit dipoles inside the innermost shell.

    Parameters
    ----------
    elec : ndarray, shape (E, 3)
        Electrode directions (unit vectors).
    src : ndarray, shape (S, 3)
        Dipole positions in head units (norm below ``radii[0]``).
    radii, sigmas : sequences of float
        Shells as for :func:`shell_gains`.
    head_radius_m : float

    Returns
    -------
    ndarray, shape (E, S, 3)
        Microvolts per nAm for dipoles along x, y and z.
    """
    r0 = np.linalg.norm(src, axis=1)
    u0 = src / r0[:, None]
    cosg = np.clip(elec @ u0.T, -1.0, 1.0)
    rad, tan = _legendre_sums(cosg, r0[None, :], shell_gains(radii, sigmas))
    k = 1e-3 / (4 * np.pi * sigmas[0] * head_radius_m**2)
    # p.(tangential unit towards the electrode) = p.e - (p.u0) cos g.
    out = rad[:, :, None] * u0[None, :, :] + tan[:, :, None] * (
        elec[:, None, :] - cosg[:, :, None] * u0[None, :, :]
    )
    return k * out


def halfspace_field(elec, pos, moments, head_radius_m: float, sheet: bool = False) -> np.ndarray:
    """Scalp potentials of dipoles outside the skull (eyes, muscles, tongue, heart).

    A distant dipole (the heart) sees roughly a half-space, whose surface potential is twice
    the infinite-medium one (falling as 1/r^2). A dipole in the scalp layer itself (muscles,
    the orbits) drives its current through a thin conducting sheet above the resistive
    skull: the field is then two-dimensional and falls as 1/r (``sheet=True``).

    Parameters
    ----------
    elec : ndarray, shape (E, 3)
    pos : ndarray, shape (S, 3)
        Dipole positions, head units.
    moments : ndarray, shape (S, 3)
        Dipole moments, nAm.

    Returns
    -------
    ndarray, shape (E, S)
        Microvolts.
    """
    d = elec[:, None, :] - pos[None, :, :]
    r = np.maximum(np.linalg.norm(d, axis=2), 0.03)
    k = 2e-3 / (4 * np.pi * SIGMA_SCALP * head_radius_m**2)
    return k * np.einsum("esk,sk->es", d, moments) / r ** (2 if sheet else 3)


def _coverage_polar_max(az_deg: np.ndarray) -> np.ndarray:
    """Lowest cortex (largest polar angle) by azimuth: orbits in front, temporal lobes at the
    sides reaching below the ears, occipital lobes above the tentorium behind."""
    return np.interp(
        np.abs(az_deg), [0, 30, 60, 90, 130, 150, 180], [97, 100, 121, 128, 121, 110, 106]
    )


@lru_cache(maxsize=4)
def _grid(n_fib: int = 1500) -> tuple[np.ndarray, np.ndarray]:
    """A left-right symmetric grid of cortical directions: left half first, then its mirror.

    Returns
    -------
    dirs : ndarray, shape (S, 3)
    coverage : float
        Fraction of the sphere the grid covers (for the area each dipole stands for).
    """
    i = np.arange(n_fib) + 0.5
    z = 1 - 2 * i / n_fib
    phi = np.pi * (1 + 5**0.5) * i
    rho = np.sqrt(1 - z**2)
    pts = np.stack([rho * np.cos(phi), rho * np.sin(phi), z], axis=1)
    polar = np.rad2deg(np.arccos(np.clip(pts[:, 2], -1, 1)))
    az = np.rad2deg(np.arctan2(pts[:, 1], pts[:, 0]))
    keep = (pts[:, 1] > 0.03) & (polar <= _coverage_polar_max(az))
    left = pts[keep]
    right = left * np.array([1.0, -1.0, 1.0])
    return np.concatenate([left, right]), 2 * keep.sum() / n_fib


@dataclass(frozen=True)
class Head:
    """One patient's head in one recording.

    Attributes
    ----------
    radius_cm : float
    src : ndarray, shape (S, 3)
        Cortical dipole directions (unit vectors); positions are ``CORTEX_R * src``.
    ori : ndarray, shape (S, 3)
        Each dipole's orientation (the local cortical normal, outward = surface positive).
    area_mm2 : float
        Cortex each dipole stands for.
    dist : ndarray, shape (S, S)
        Distances along the cortex, cm.
    mirror : ndarray of int, shape (S,)
        Each dipole's homologue in the other hemisphere.
    elec : ndarray, shape (21, 3)
        Electrode positions in this recording.
    lead3 : ndarray, shape (21, S, 3)
        µV per nAm for x, y, z dipoles.
    lead : ndarray, shape (21, S)
        µV per nAm along ``ori``.
    """

    radius_cm: float
    src: np.ndarray
    ori: np.ndarray
    area_mm2: float
    dist: np.ndarray
    mirror: np.ndarray
    elec: np.ndarray
    lead3: np.ndarray
    lead: np.ndarray

    @property
    def n_src(self) -> int:
        return len(self.src)

    def patch(self, center: np.ndarray, radius_cm: float) -> np.ndarray:
        """Gaussian patch weights (mm^2 of cortex per dipole) around ``center``."""
        ang = np.arccos(np.clip(self.src @ (center / np.linalg.norm(center)), -1, 1))
        d = ang * CORTEX_R * self.radius_cm
        return self.area_mm2 * np.exp(-0.5 * (d / radius_cm) ** 2)

    def topo(self, weights: np.ndarray, orientation: np.ndarray | None = None) -> np.ndarray:
        """Scalp potential (µV) of dipoles of ``weights`` nAm along their own normals, or all
        along one ``orientation`` (a tangential generator such as a rolandic spike's)."""
        if orientation is None:
            return self.lead @ weights
        return np.einsum("esk,s,k->e", self.lead3, weights, orientation)

    def extracranial(self, pos, moments, sheet: bool = True) -> np.ndarray:
        """Scalp potentials (µV) of dipoles outside the skull, shape (21, S) (see
        :func:`halfspace_field`; relative units for sheet sources)."""
        return halfspace_field(
            self.elec, np.atleast_2d(pos), np.atleast_2d(moments), self.radius_cm / 100.0, sheet
        )


def _shells(radius_cm: float, skull_ratio: float, skull_frac: float, scalp_frac: float):
    """Radii and conductivities of brain, CSF, skull and scalp."""
    r_skull_out = 1.0 - scalp_frac
    r_csf_out = r_skull_out - skull_frac
    r_brain = r_csf_out - 0.025
    return (
        (r_brain, r_csf_out, r_skull_out, 1.0),
        (SIGMA_BRAIN, SIGMA_CSF, SIGMA_BRAIN / skull_ratio, SIGMA_SCALP),
    )


def _tilted_normals(dirs: np.ndarray, rng: np.random.Generator, tilt_sd: float) -> np.ndarray:
    """Outward normals tilted at random, as the folded cortex's walls are."""
    t = rng.standard_normal(dirs.shape)
    t -= (t * dirs).sum(axis=1, keepdims=True) * dirs
    ori = dirs + tilt_sd * t
    return ori / np.linalg.norm(ori, axis=1, keepdims=True)


@lru_cache(maxsize=8)
def _anatomy(seed: int, radius_cm: float, tilt_sd: float, local_sd: float):
    """A patient's fixed cortex: orientations, distances, homologues, local skull gains."""
    dirs, cover = _grid()
    rng = np.random.default_rng([seed, 0xD1B])
    ori = _tilted_normals(dirs, rng, tilt_sd)
    r_cm = CORTEX_R * radius_cm
    area = cover * 4 * np.pi * r_cm**2 * 100.0 / len(dirs)
    dist = np.arccos(np.clip(dirs @ dirs.T, -1, 1)) * r_cm
    half = len(dirs) // 2
    mirror = np.concatenate([np.arange(half) + half, np.arange(half)])
    # Skull thickness and bone density vary under each electrode: a fixed local gain.
    local = np.exp(local_sd * rng.standard_normal(len(ELECTRODES)))
    return ori, area, dist, mirror, local


def build_head(anat: dict, jitter_rng: np.random.Generator | None = None) -> Head:
    """The head of a patient (``anat`` from the patient's traits) for one recording.

    Parameters
    ----------
    anat : dict
        ``seed``, ``radius_cm``, ``skull_ratio``, ``skull_frac``, ``scalp_frac``, ``tilt_sd``,
        ``local_sd``.
    jitter_rng : numpy.random.Generator, optional
        Displaces each electrode by about 5 mm (placement differs between recordings).
    """
    dirs, _ = _grid()
    ori, area, dist, mirror, local = _anatomy(
        int(anat["seed"]), float(anat["radius_cm"]), float(anat["tilt_sd"]), float(anat["local_sd"])
    )
    elec = electrode_xyz()
    if jitter_rng is not None:
        elec = elec + jitter_rng.normal(0.0, 5.0 / (10 * anat["radius_cm"]), elec.shape)
        elec /= np.linalg.norm(elec, axis=1, keepdims=True)
    radii, sigmas = _shells(
        anat["radius_cm"], anat["skull_ratio"], anat["skull_frac"], anat["scalp_frac"]
    )
    lead3 = sphere_lead_field(elec, CORTEX_R * dirs, radii, sigmas, anat["radius_cm"] / 100.0)
    lead3 *= local[:, None, None]
    lead = np.einsum("esk,sk->es", lead3, ori)
    return Head(float(anat["radius_cm"]), dirs, ori, area, dist, mirror, elec, lead3, lead)


#: The reference adult head that the background amplitudes are specified on.
STANDARD_ANATOMY = {
    "seed": 0,
    "radius_cm": 9.0,
    "skull_ratio": 40.0,
    "skull_frac": 0.07,
    "scalp_frac": 0.07,
    "tilt_sd": 0.0,
    "local_sd": 0.0,
}


@lru_cache(maxsize=1)
def standard_head() -> Head:
    """The reference head (radial dipoles, average skull): amplitudes given for it carry over
    to each patient through the ratio of their lead fields."""
    return build_head(STANDARD_ANATOMY)


def average_reference(x: np.ndarray) -> np.ndarray:
    """Rows minus their mean over electrodes (axis 0)."""
    return x - x.mean(axis=0, keepdims=True)
