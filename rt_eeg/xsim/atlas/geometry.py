"""Electrode geometry and scalp fields of cortical sources.

A cortical source's scalp potential is modelled as what the skull makes of it: a Gaussian
bump over the geodesic angle from the source (radial part, 20-50 degrees wide, so a focal
source involves 3-5 electrodes) plus an optional tangential part, the derivative of that
bump along a direction on the scalp, which gives the phase reversals of rolandic or
obliquely oriented temporal dipoles. Fields are normalised so that the strongest electrode
reads +1.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

XYZ = electrode_xyz()
IDX = {e: i for i, e in enumerate(ELECTRODES)}
N_CH = len(ELECTRODES)

#: Focus regions of the left hemisphere: (polar, azimuth) and field width, degrees.
#: Right-sided regions are their mirror images (azimuth negated).
REGIONS: dict[str, tuple[tuple[float, float], float]] = {
    "mesial_temporal": ((106.0, 70.0), 30.0),
    "temporal": ((97.0, 92.0), 26.0),
    "posterior_temporal": ((95.0, 124.0), 26.0),
    "frontal": ((58.0, 36.0), 26.0),
    "frontopolar": ((84.0, 22.0), 26.0),
    "central": ((46.0, 82.0), 26.0),
    "parietal": ((62.0, 136.0), 26.0),
    "occipital": ((93.0, 160.0), 26.0),
}

#: Where a focal seizure or discharge spreads to, nearest first (same hemisphere).
NEIGHBOURS: dict[str, tuple[str, ...]] = {
    "mesial_temporal": ("temporal", "frontopolar", "posterior_temporal", "frontal"),
    "temporal": ("mesial_temporal", "posterior_temporal", "central", "frontal"),
    "posterior_temporal": ("temporal", "occipital", "parietal", "central"),
    "frontal": ("frontopolar", "central", "temporal", "parietal"),
    "frontopolar": ("frontal", "mesial_temporal", "temporal", "central"),
    "central": ("frontal", "parietal", "temporal", "posterior_temporal"),
    "parietal": ("central", "posterior_temporal", "occipital", "frontal"),
    "occipital": ("posterior_temporal", "parietal", "temporal", "central"),
}


def idx(names) -> list[int]:
    """Row indices of electrode names."""
    return [IDX[n] for n in names]


def direction(polar: float, azimuth: float) -> np.ndarray:
    """Unit vector from polar angle (from the vertex) and azimuth (from the nose), degrees."""
    th, ph = np.deg2rad(polar), np.deg2rad(azimuth)
    return np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def jitter(rng: np.random.Generator, u: np.ndarray, sd_deg: float) -> np.ndarray:
    """A direction scattered around ``u`` by about ``sd_deg`` degrees."""
    return _unit(u + rng.normal(0.0, np.deg2rad(sd_deg), 3))


def tangent(rng: np.random.Generator, u: np.ndarray) -> np.ndarray:
    """A random unit vector orthogonal to ``u``."""
    v = rng.normal(size=3)
    return _unit(v - v.dot(u) * u)


def source_field(pos: np.ndarray, width: float = 26.0, tilt: np.ndarray | None = None):
    """Scalp field of one source, shape (21,), strongest electrode = +1.

    Parameters
    ----------
    pos : ndarray, shape (3,)
        Direction of the source from the head centre.
    width : float
        Standard deviation of the radial bump, degrees (larger = deeper / broader).
    tilt : ndarray, optional
        Tangential component (a vector orthogonal to ``pos``; its length, 0-2, is how
        tangential the source is): adds a bipolar lobe pair along it.
    """
    pos = _unit(np.asarray(pos, dtype=float))
    sig = np.deg2rad(width)
    bump = np.exp(-(np.arccos(np.clip(XYZ @ pos, -1.0, 1.0)) ** 2) / (2 * sig**2))
    v = bump
    if tilt is not None:
        v = bump * (1.0 + (XYZ @ np.asarray(tilt, dtype=float)) / sig)
    return v / v[int(np.argmax(np.abs(v)))]


def region_dir(region: str, side: str) -> np.ndarray:
    """Direction of a named focus region on side ``'L'`` or ``'R'``."""
    (pol, az), _ = REGIONS[region]
    return direction(pol, az if side == "L" else -az)


def region_field(region: str, side: str, rng=None, sd_deg: float = 0.0, tilt: float = 0.0,
                 widen: float = 1.0):  # fmt: skip
    """Field of a source in a focus region, optionally scattered, tilted off radial, widened."""
    u = region_dir(region, side)
    width = REGIONS[region][1] * widen
    if rng is not None and sd_deg > 0:
        u = jitter(rng, u, sd_deg)
    t = None
    if rng is not None and tilt > 0:
        t = tilt * tangent(rng, u)
    return source_field(u, width, t)


def distributed_field(points, weights, width: float = 30.0) -> np.ndarray:
    """Weighted sum of radial fields (broad, same-polarity fields), max = +1."""
    v = sum(w * source_field(direction(*p), width) for p, w in zip(points, weights, strict=True))
    return v / np.max(np.abs(v))


def generalised_field(frontal: float = 1.0, posterior: float = 0.5) -> np.ndarray:
    """A bilateral, bisynchronous field, frontally predominant unless told otherwise.

    Built from narrow-ish bumps so that it keeps the antero-posterior gradient that makes
    generalised discharges visible in bipolar montages.
    """
    pts, w = [(40.0, 0.0), (85.0, 0.0), (8.0, 0.0)], [frontal, 0.6 * frontal, 0.7]
    for s in (1.0, -1.0):
        pts += [(60.0, 40 * s), (85.0, 22 * s), (46.0, 85 * s), (95.0, 92 * s), (90.0, 54 * s)]
        w += [frontal, 0.8 * frontal, 0.6, 0.35, 0.6 * frontal]
        pts += [(62.0, 138 * s), (92.0, 160 * s), (94.0, 124 * s)]
        w += [posterior, 0.7 * posterior, 0.5 * posterior]
    return distributed_field(pts, w, 24.0)


def hemispheric_field(side: str, centre: str = "temporal") -> np.ndarray:
    """A broad field over one hemisphere, strongest around ``centre``."""
    pts, w = [], []
    for reg, wt in (("frontal", 0.6), ("temporal", 0.8), ("central", 0.7), ("parietal", 0.6),
                    ("frontopolar", 0.5), ("posterior_temporal", 0.6), ("occipital", 0.4)):  # fmt: skip
        (pol, az), _ = REGIONS[reg]
        pts.append((pol, az if side == "L" else -az))
        w.append(wt + (0.6 if reg == centre else 0.0))
    return distributed_field(pts, w, 30.0)


def nearest(u: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` electrodes nearest direction ``u``."""
    return np.argsort(-(XYZ @ _unit(u)))[:k]


def random_scalp_dir(rng: np.random.Generator, max_polar: float = 110.0) -> np.ndarray:
    """A random direction over the upper head (where cortex lies under electrodes)."""
    while True:
        u = _unit(rng.normal(size=3))
        if np.degrees(np.arccos(np.clip(u[2], -1, 1))) <= max_polar:
            return u
