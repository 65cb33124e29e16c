"""Cortical patches, their coupling, and the lead field that projects them to the scalp.

Twenty-four patches cover the convexity under the 10-20 electrodes plus the two mesial
temporal lobes. Each patch is a radial dipole layer whose scalp field is a smooth bump
(skull smearing) with a weak broad negative surround, so that focal activity reverses phase
in bipolar chains around its maximum. The mesial temporal patches are deep: a broad, weak
field centred below the anterior temporal electrodes and the ear.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import electrode_xyz

#: name -> (polar angle from vertex, azimuth towards the left ear, degrees; depth factor;
#: field width, radians; role). Left side has positive azimuth as in base.py.
_PATCHES: dict[str, tuple[float, float, float, float, str]] = {
    "L_prefrontal": (82, 20, 1.0, 0.55, "frontal"),
    "R_prefrontal": (82, -20, 1.0, 0.55, "frontal"),
    "L_frontal": (60, 40, 1.0, 0.55, "frontal"),
    "R_frontal": (60, -40, 1.0, 0.55, "frontal"),
    "L_inf_frontal": (86, 54, 1.0, 0.55, "frontal"),
    "R_inf_frontal": (86, -54, 1.0, 0.55, "frontal"),
    "L_ant_temporal": (98, 72, 0.9, 0.55, "temporal"),
    "R_ant_temporal": (98, -72, 0.9, 0.55, "temporal"),
    "L_mid_temporal": (94, 92, 1.0, 0.55, "temporal"),
    "R_mid_temporal": (94, -92, 1.0, 0.55, "temporal"),
    "L_post_temporal": (94, 124, 1.0, 0.55, "posterior"),
    "R_post_temporal": (94, -124, 1.0, 0.55, "posterior"),
    "L_central": (44, 88, 1.0, 0.55, "rolandic"),
    "R_central": (44, -88, 1.0, 0.55, "rolandic"),
    "L_parietal": (60, 138, 1.0, 0.55, "posterior"),
    "R_parietal": (60, -138, 1.0, 0.55, "posterior"),
    "L_occipital": (86, 160, 1.0, 0.55, "posterior"),
    "R_occipital": (86, -160, 1.0, 0.55, "posterior"),
    "L_mesial_temporal": (112, 78, 0.35, 0.85, "mesial"),
    "R_mesial_temporal": (112, -78, 0.35, 0.85, "mesial"),
    "M_frontal": (40, 0, 1.0, 0.55, "frontal"),
    "M_vertex": (4, 0, 1.0, 0.55, "rolandic"),
    "M_parietal": (44, 180, 1.0, 0.55, "posterior"),
    "M_occipital": (82, 180, 1.0, 0.55, "posterior"),
}

PATCH_NAMES: tuple[str, ...] = tuple(_PATCHES)
N_PATCH = len(PATCH_NAMES)
ROLES: tuple[str, ...] = tuple(v[4] for v in _PATCHES.values())


def patch_index(name: str) -> int:
    """Row of patch ``name``."""
    return PATCH_NAMES.index(name)


def side(name: str) -> str:
    """'L', 'R' or 'M' (midline)."""
    return name[0]


def homologue(name: str) -> str:
    """The mirror patch of the other hemisphere (midline patches are their own)."""
    if name[0] == "L":
        return "R" + name[1:]
    if name[0] == "R":
        return "L" + name[1:]
    return name


def _unit(polar: float, azimuth: float) -> np.ndarray:
    th, ph = np.deg2rad(polar), np.deg2rad(azimuth)
    return np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])


def patch_xyz(jitter: np.ndarray | None = None) -> np.ndarray:
    """Patch centres as unit vectors; ``jitter`` (n_patch, 2) shifts them in degrees."""
    out = []
    for i, (pol, az, *_rest) in enumerate(_PATCHES.values()):
        dp, da = (0.0, 0.0) if jitter is None else jitter[i]
        out.append(_unit(pol + dp, az + da))
    return np.asarray(out)


def lead_field(jitter: list | None, width_scale: list | None, gains: list | None) -> np.ndarray:
    """Scalp potential per unit source, shape (21, n_patch).

    Parameters
    ----------
    jitter : list of [d_polar, d_azimuth] per patch (degrees) or None
    width_scale : list of float per patch (multiplies the field width) or None
    gains : list of float per patch or None
    """
    jit = None if jitter is None else np.asarray(jitter, dtype=float)
    centres = patch_xyz(jit)
    elec = electrode_xyz()
    ang = np.arccos(np.clip(elec @ centres.T, -1.0, 1.0))  # (21, n_patch)
    depth = np.array([v[2] for v in _PATCHES.values()])
    width = np.array([v[3] for v in _PATCHES.values()])
    if width_scale is not None:
        width = width * np.asarray(width_scale)
    bump = np.exp(-0.5 * (ang / width) ** 2)
    # The volume-conducted return currents: a weak, broad negative surround.
    surround = 0.25 * np.exp(-0.5 * (ang / (2.2 * width)) ** 2)
    lf = (bump - surround) * depth
    if gains is not None:
        lf = lf * np.asarray(gains)
    return lf


def coupling_matrix(strength: float, callosal: float) -> np.ndarray:
    """Excitatory coupling between patches: neighbours on the cortex and homologous areas.

    ``coupling[i, j]`` is the input to patch i per unit (zero-mean) firing of patch j.
    """
    c = patch_xyz()
    ang = np.arccos(np.clip(c @ c.T, -1.0, 1.0))
    w = np.exp(-0.5 * (ang / 0.55) ** 2)
    np.fill_diagonal(w, 0.0)
    w[w < 0.05] = 0.0
    for i, n in enumerate(PATCH_NAMES):
        h = homologue(n)
        if h != n:
            w[i, patch_index(h)] += callosal
    # Normalise by in-degree so every patch receives comparable total input.
    w /= w.sum(axis=1, keepdims=True)
    return strength * w
