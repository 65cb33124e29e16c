"""Cortical patches on a sphere under the scalp and the smooth lead field to the electrodes.

Patches sit on a sphere of radius :data:`CORTEX_RADIUS` (the scalp is the unit sphere of
:func:`rt_eeg.xsim.base.electrode_xyz`), spread quasi-uniformly (a jittered Fibonacci lattice)
over the part of the sphere above the ear line. Each patch is a radial dipole layer; its
scalp potential falls off with the angle between patch and electrode as a Gaussian whose
width models skull smearing.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

#: Radius of the patch sphere, scalp = 1.
CORTEX_RADIUS = 0.9
#: Region names, in the order of the region index of :func:`patch_regions`.
REGIONS = ("frontal", "central", "temporal", "parietal", "occipital")
_REGION_OF = {
    "FP1": 0, "FP2": 0, "F3": 0, "F4": 0, "F7": 0, "F8": 0, "FZ": 0,
    "C3": 1, "C4": 1, "CZ": 1,
    "T3": 2, "T4": 2, "T5": 2, "T6": 2, "A1": 2, "A2": 2,
    "P3": 3, "P4": 3, "PZ": 3, "O1": 4, "O2": 4,
}  # fmt: skip


def patch_positions(n: int, seed: int) -> np.ndarray:
    """Unit vectors of ``n`` patches, shape ``(n, 3)``, reproducible from ``seed``.

    A Fibonacci lattice restricted to ``z > -0.3`` (above the ear line), each point
    jittered by a few degrees.
    """
    rng = np.random.default_rng([int(seed), 0x1EAD])
    z_min = -0.3
    i = np.arange(n) + 0.5
    z = 1.0 - (1.0 - z_min) * i / n
    phi = np.pi * (3.0 - np.sqrt(5.0)) * i
    r = np.sqrt(1.0 - z**2)
    xyz = np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)
    xyz += rng.normal(0.0, 0.05, xyz.shape)
    return xyz / np.linalg.norm(xyz, axis=1, keepdims=True)


def angles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Great-circle angles (radians) between the rows of ``a`` and of ``b``."""
    return np.arccos(np.clip(a @ b.T, -1.0, 1.0))


def patch_regions(xyz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Region index (into :data:`REGIONS`) and side (+1 left, -1 right, 0 midline) of each
    patch, from its nearest electrode."""
    near = np.argmin(angles(xyz, electrode_xyz()), axis=1)
    region = np.array([_REGION_OF[ELECTRODES[j]] for j in near])
    side = np.where(xyz[:, 1] > 0.12, 1, np.where(xyz[:, 1] < -0.12, -1, 0))
    return region, side


def lead_field(xyz: np.ndarray, sigma: float, gains) -> np.ndarray:
    """Scalp weights of every patch, shape ``(21, n_patches)``.

    Parameters
    ----------
    xyz : ndarray, shape (n_patches, 3)
        Patch unit vectors.
    sigma : float
        Width (radians) of the Gaussian fall-off with patch-electrode angle.
    gains : sequence of 21 float
        Per-electrode skull/impedance gain.
    """
    th = angles(electrode_xyz(), xyz)
    # a radial dipole seen from further away (1 - r cos th) is weaker: mild depth factor
    depth = (1.0 - CORTEX_RADIUS) / (1.0 + CORTEX_RADIUS**2 - 2 * CORTEX_RADIUS * np.cos(th))
    depth = np.sqrt(depth / depth.max())
    w = np.exp(-0.5 * (th / sigma) ** 2) * (0.3 + 0.7 * depth)
    return w * np.asarray(gains, dtype=np.float64)[:, None]


def pattern(lf: np.ndarray, idx, weights=None) -> np.ndarray:
    """Scalp pattern (21,) of patches ``idx`` firing together with ``weights``, peak 1."""
    idx = np.atleast_1d(idx)
    w = np.ones(idx.size) if weights is None else np.asarray(weights, dtype=np.float64)
    p = lf[:, idx] @ w
    return p / np.max(np.abs(p))


def nearest_patches(xyz: np.ndarray, centre, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the patches within ``radius`` radians of ``centre`` (at least the nearest
    one) and their angles, nearest first."""
    c = np.asarray(centre, dtype=np.float64)
    th = angles(xyz, (c / np.linalg.norm(c))[None, :])[:, 0]
    order = np.argsort(th, kind="stable")
    keep = order[th[order] <= radius]
    if keep.size == 0:
        keep = order[:1]
    return keep, th[keep]
