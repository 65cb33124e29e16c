"""Cortical nodes on the head sphere, their lead field onto the 21 electrodes and the
distance-dependent connectome that couples them.

Coordinates follow :func:`rt_eeg.xsim.base.electrode_xyz`: x towards the nose, y towards the
left ear, z up, unit head radius.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

#: Electrode index by name.
EIDX = {e: i for i, e in enumerate(ELECTRODES)}


def node_positions(rng: np.random.Generator, n: int) -> np.ndarray:
    """Unit vectors of ``n`` cortical nodes covering the upper head, shape ``(n, 3)``.

    A Fibonacci lattice over the cap above polar angle 112 deg (down to the temporal
    lobes), jittered so that every patient's layout differs.
    """
    k = np.arange(n) + 0.5
    cmin = np.cos(np.deg2rad(112.0))
    cos_th = 1.0 - (1.0 - cmin) * k / n  # equal-area bands of the cap
    phi = np.pi * (3.0 - np.sqrt(5.0)) * k + rng.uniform(0, 2 * np.pi)
    th = np.arccos(np.clip(cos_th, -1, 1)) + rng.normal(0, 0.06, n)
    phi = phi + rng.normal(0, 0.1, n)
    th = np.clip(th, 0.05, np.deg2rad(115.0))
    return np.stack([np.sin(th) * np.cos(phi), np.sin(th) * np.sin(phi), np.cos(th)], 1)


def lead_field(nodes: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Scalp potentials of a unit radial dipole at each node, shape ``(21, n_nodes)``.

    A radial dipole at radius ``depth`` in a homogeneous sphere seen from the surface,
    ``(p . (e - r p)) / |e - r p|^3``; the skull's blurring is folded into the choice of
    ``depth`` (0.6-0.8 gives the several-centimetre spread of scalp EEG; deeper is broader).
    Each column is scaled to peak at 1 (amplitudes are set per source).

    Parameters
    ----------
    nodes : ndarray, shape (n_nodes, 3)
    depth : ndarray, shape (n_nodes,)
    """
    e = electrode_xyz()  # (21, 3)
    src = nodes * depth[:, None]  # (n, 3)
    d = e[:, None, :] - src[None, :, :]  # (21, n, 3)
    dist = np.linalg.norm(d, axis=2)
    v = np.einsum("enk,nk->en", d, nodes) / dist**3
    return v / np.abs(v).max(axis=0, keepdims=True)


def connectome(nodes: np.ndarray, rng: np.random.Generator, length: float) -> np.ndarray:
    """Row-normalised coupling weights, shape ``(n, n)``, zero diagonal.

    Exponential decay with great-circle distance (``length`` in radians), lognormal spread
    of strengths, and homotopic (mirror across the midline) links that let seizures cross
    to the other hemisphere.
    """
    ang = np.arccos(np.clip(nodes @ nodes.T, -1, 1))
    w = np.exp(-ang / length) * rng.lognormal(0.0, 0.4, ang.shape)
    mirror = nodes * np.array([1.0, -1.0, 1.0])
    homo = np.arccos(np.clip(nodes @ mirror.T, -1, 1))
    w += 0.5 * np.exp(-homo / 0.15)
    w = 0.5 * (w + w.T)
    np.fill_diagonal(w, 0.0)
    return w / w.sum(1, keepdims=True)


def graph_distance(w: np.ndarray) -> np.ndarray:
    """All-pairs shortest path lengths with edge cost ``1/w`` (Floyd-Warshall), ``(n, n)``."""
    with np.errstate(divide="ignore"):
        d = np.where(w > 0, 1.0 / w, np.inf)
    np.fill_diagonal(d, 0.0)
    for k in range(d.shape[0]):
        d = np.minimum(d, d[:, k : k + 1] + d[k : k + 1, :])
    return d


def _bump(nodes: np.ndarray, centre, width: float) -> np.ndarray:
    c = np.asarray(centre, float)
    c = c / np.linalg.norm(c)
    ang = np.arccos(np.clip(nodes @ c, -1, 1))
    return np.exp(-0.5 * (ang / width) ** 2)


def region_weights(nodes: np.ndarray) -> dict[str, np.ndarray]:
    """Smooth spatial weights of the cortical regions rhythms live in, each ``(n_nodes,)``.

    Keys: ``occipital`` (alpha), ``central`` (mu, spindles), ``vertex`` (vertex waves,
    K-complexes), ``frontal`` (beta, frontal delta), ``temporal_l``/``temporal_r``
    (mid-temporal theta, wicket spikes), ``parietal`` (SREDA).
    """
    e = electrode_xyz()
    p = {k: e[EIDX[k]] for k in ("O1", "O2", "C3", "C4", "CZ", "FZ", "T3", "T4", "PZ")}
    occ = _bump(nodes, p["O1"] + p["O2"], 0.5)
    cen = np.maximum(_bump(nodes, p["C3"], 0.35), _bump(nodes, p["C4"], 0.35))
    return {
        "occipital": occ,
        "central": cen,
        "vertex": _bump(nodes, p["CZ"], 0.45),
        "frontal": _bump(nodes, p["FZ"] + 0.3 * np.array([1.0, 0, 0]), 0.55),
        "temporal_l": _bump(nodes, p["T3"], 0.35),
        "temporal_r": _bump(nodes, p["T4"], 0.35),
        "parietal": _bump(nodes, p["PZ"], 0.5),
    }


def electrode_weights(centre: str, width: float) -> np.ndarray:
    """Gaussian weights of the 21 electrodes around one of them (for artifacts), ``(21,)``."""
    e = electrode_xyz()
    ang = np.arccos(np.clip(e @ e[EIDX[centre]], -1, 1))
    return np.exp(-0.5 * (ang / width) ** 2)
