"""Cortical nodes on the scalp sphere, their connectome and the lead field to the electrodes.

The head is the unit sphere of :func:`rt_eeg.xsim.base.electrode_xyz` (x to the nose, y to the
left ear, z up). Nodes are a near-uniform (Fibonacci) sampling of the upper part of the
sphere, jittered per patient, so that every electrode, the ear electrodes included, sees a
few nodes beneath it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

#: Nodes with z below this are dropped (the lowest electrodes, A1/A2, sit at z = -0.47).
Z_MIN = -0.45
#: Points of the full Fibonacci sphere; about 70 % of them are kept (~40 nodes).
N_SPHERE = 58

EIDX = {e: i for i, e in enumerate(ELECTRODES)}

#: Named regions, as the electrodes they lie under.
REGIONS: dict[str, tuple[str, ...]] = {
    "occipital": ("O1", "O2"),
    "posterior": ("O1", "O2", "P3", "P4", "PZ", "T5", "T6"),
    "central": ("C3", "C4", "CZ"),
    "vertex": ("CZ", "FZ", "PZ"),
    "frontal": ("FP1", "FP2", "F3", "F4", "FZ"),
    "temporal": ("T3", "T4", "F7", "F8", "T5", "T6"),
    "midtemporal": ("T3", "T4"),
}


@dataclass
class Geometry:
    """Nodes, coupling and projection of one patient.

    Attributes
    ----------
    xyz : ndarray, shape (n_nodes, 3)
        Node positions (unit vectors).
    conn : ndarray, shape (n_nodes, n_nodes)
        Row-normalised structural coupling (zero diagonal, rows sum to 1).
    lead : ndarray, shape (21, n_nodes)
        Lead field: electrode potential per unit node activity (rows sum to 1).
    """

    xyz: np.ndarray
    conn: np.ndarray
    lead: np.ndarray

    @property
    def n(self) -> int:
        return self.xyz.shape[0]

    def near(self, centre: np.ndarray, width: float) -> np.ndarray:
        """Gaussian weight of every node around a point, shape (n_nodes,), max 1."""
        d2 = np.sum((self.xyz - np.asarray(centre)[None, :]) ** 2, axis=1)
        return np.exp(-d2 / (2 * width**2))

    def region(self, name: str, width: float = 0.32) -> np.ndarray:
        """Weight of every node in a named region, shape (n_nodes,), in [0, 1]."""
        exyz = electrode_xyz()
        w = [self.near(exyz[EIDX[e]], width) for e in REGIONS[name]]
        return np.max(np.stack(w), axis=0)


def fibonacci_nodes(jitter: float, rng: np.random.Generator) -> np.ndarray:
    """Node positions, shape (n_nodes, 3): upper sphere, jittered by ``jitter`` (radians-ish)."""
    i = np.arange(N_SPHERE) + 0.5
    z = 1 - 2 * i / N_SPHERE
    phi = np.pi * (1 + 5**0.5) * i
    r = np.sqrt(1 - z**2)
    p = np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)
    p = p[p[:, 2] > Z_MIN]
    p = p + jitter * rng.standard_normal(p.shape)
    return p / np.linalg.norm(p, axis=1, keepdims=True)


def build(seed: int, lead_width: float) -> Geometry:
    """A patient's geometry, a pure function of its seed and lead-field width.

    Parameters
    ----------
    seed : int
        The patient's geometry seed.
    lead_width : float
        Standard deviation of the Gaussian lead-field kernel (chord distance on the unit
        sphere; ~0.3 = smooth volume conduction through skull and scalp).
    """
    rng = np.random.default_rng(seed)
    xyz = fibonacci_nodes(0.04, rng)
    d = np.linalg.norm(xyz[:, None, :] - xyz[None, :, :], axis=2)
    conn = np.exp(-d / 0.35)
    # Homotopic (callosal) links: the mirror node across the midline.
    mirror = xyz * np.array([1.0, -1.0, 1.0])
    dm = np.linalg.norm(xyz[:, None, :] - mirror[None, :, :], axis=2)
    conn += 0.6 * np.exp(-((dm / 0.15) ** 2))
    np.fill_diagonal(conn, 0.0)
    conn /= conn.sum(axis=1, keepdims=True)
    exyz = electrode_xyz()
    de = np.linalg.norm(exyz[:, None, :] - xyz[None, :, :], axis=2)
    lead = np.exp(-(de**2) / (2 * lead_width**2))
    lead /= lead.sum(axis=1, keepdims=True)
    return Geometry(xyz=xyz, conn=conn, lead=lead)


def topography(centre: np.ndarray, width: float) -> np.ndarray:
    """Scalp pattern of a source near a point (for transients), shape (21,), max 1."""
    exyz = electrode_xyz()
    d2 = np.sum((exyz - np.asarray(centre)[None, :]) ** 2, axis=1)
    w = np.exp(-d2 / (2 * width**2))
    return w / w.max()


def electrode_point(name: str) -> np.ndarray:
    """Unit vector of one electrode, shape (3,)."""
    return electrode_xyz()[EIDX[name]]
