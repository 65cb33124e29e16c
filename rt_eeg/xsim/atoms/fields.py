"""Spatial topographies over the 21 electrodes: smooth fields on a spherical head.

A field is a vector of 21 weights (one per electrode of :data:`rt_eeg.xsim.base.ELECTRODES`).
Radial sources give a monopolar Gaussian bump in angle around their centre; tangential ones a
dipolar field (a negative and a positive lobe), which produces the phase reversals of bipolar
chains at unusual places.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

XYZ = electrode_xyz()
IDX = {e: i for i, e in enumerate(ELECTRODES)}
N_CH = len(ELECTRODES)

#: Named scalp regions (electrodes whose mean direction is the region's centre).
REGIONS: dict[str, tuple[str, ...]] = {
    "L_temporal": ("T3", "F7", "T5"),
    "R_temporal": ("T4", "F8", "T6"),
    "L_ant_temporal": ("F7", "T3"),
    "R_ant_temporal": ("F8", "T4"),
    "L_frontal": ("F3", "FP1", "F7"),
    "R_frontal": ("F4", "FP2", "F8"),
    "L_central": ("C3",),
    "R_central": ("C4",),
    "L_parietal": ("P3", "T5"),
    "R_parietal": ("P4", "T6"),
    "L_occipital": ("O1",),
    "R_occipital": ("O2",),
    "frontal": ("FZ", "F3", "F4"),
    "frontopolar": ("FP1", "FP2"),
    "vertex": ("CZ",),
    "frontocentral": ("FZ", "CZ"),
    "centroparietal": ("CZ", "PZ"),
    "posterior": ("O1", "O2", "PZ"),
}


def unit(v) -> np.ndarray:
    """``v`` scaled to unit length (float64)."""
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def region_centre(name: str) -> np.ndarray:
    """Unit vector at the mean direction of a named region's electrodes."""
    return unit(XYZ[[IDX[e] for e in REGIONS[name]]].mean(axis=0))


def jitter(centre, deg: float, rng) -> np.ndarray:
    """``centre`` (one or several unit vectors) moved by about ``deg`` degrees at random."""
    c = np.atleast_2d(np.asarray(centre, dtype=np.float64))
    c = unit(c + np.deg2rad(deg) * rng.standard_normal(c.shape))
    return c if np.ndim(centre) > 1 else c[0]


def mirror(centre) -> np.ndarray:
    """The homologous point of the other hemisphere (y is the left-right axis)."""
    c = np.array(centre, dtype=np.float64)
    c[..., 1] *= -1.0
    return c


def random_centres(n: int, rng, min_z: float = -0.25) -> np.ndarray:
    """``n`` unit vectors spread over the scalp that carries electrodes (z above ``min_z``)."""
    out = np.empty((0, 3))
    while len(out) < n:
        v = unit(rng.standard_normal((2 * n + 4, 3)))
        out = np.vstack([out, v[v[:, 2] > min_z]])
    return out[:n]


def gauss(centres, width_deg) -> np.ndarray:
    """Monopolar fields: ``exp(-angle**2 / (2 width**2))`` at each electrode.

    Parameters
    ----------
    centres : array (3,) or (n, 3)
        Unit vectors.
    width_deg : float or array (n,)

    Returns
    -------
    ndarray (21,) or (n, 21), peak 1 near the centre.
    """
    c = np.atleast_2d(np.asarray(centres, dtype=np.float64))
    w = np.deg2rad(np.broadcast_to(np.asarray(width_deg, dtype=np.float64), (len(c),)))
    ang = np.arccos(np.clip(c @ XYZ.T, -1.0, 1.0))
    f = np.exp(-0.5 * (ang / w[:, None]) ** 2)
    return f if np.ndim(centres) > 1 else f[0]


def dipole(centres, directions, width_deg) -> np.ndarray:
    """Tangential-dipole fields: a Gaussian bump times the displacement along ``directions``.

    The result has a negative and a positive lobe either side of the centre (peak magnitude
    1), the scalp picture of a source lying parallel to the skull.
    """
    c = np.atleast_2d(np.asarray(centres, dtype=np.float64))
    d = np.atleast_2d(np.asarray(directions, dtype=np.float64))
    d = unit(d - (d * c).sum(-1, keepdims=True) * c)  # tangential at the centre
    w = np.deg2rad(np.broadcast_to(np.asarray(width_deg, dtype=np.float64), (len(c),)))
    ang = np.arccos(np.clip(c @ XYZ.T, -1.0, 1.0))
    lobe = (XYZ[None, :, :] * d[:, None, :]).sum(-1) / w[:, None]
    f = lobe * np.exp(-0.5 * (ang / w[:, None]) ** 2)
    f /= np.abs(f).max(axis=1, keepdims=True) + 1e-12
    return f if np.ndim(centres) > 1 else f[0]


def local(width_deg: float = 14.0) -> np.ndarray:
    """One narrow field per electrode (its own source: EMG, local noise), shape (21, 21)."""
    return gauss(XYZ, width_deg)


def roughen(fields, amount: float, rng) -> np.ndarray:
    """Fields with independent multiplicative jitter per electrode (real fields are lumpy)."""
    f = np.asarray(fields, dtype=np.float64)
    return f * np.exp(amount * rng.standard_normal(f.shape))
