"""Head geometry: electrode distances, smooth spatial fields and coherent spatial mixing.

Positions are the unit vectors of :func:`rt_eeg.xsim.base.electrode_xyz`; distances are
chordal (0 for the same site, 2 for opposite sites; 0.3 is roughly 3 cm on an adult head).
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

XYZ = electrode_xyz()
N_CH = len(ELECTRODES)
IDX = {name: i for i, name in enumerate(ELECTRODES)}
DIST = np.linalg.norm(XYZ[:, None, :] - XYZ[None, :, :], axis=-1)
EARS = np.array([IDX["A1"], IDX["A2"]])
LEFT = XYZ[:, 1] > 0.05
RIGHT = XYZ[:, 1] < -0.05


def unit(v) -> np.ndarray:
    """Normalise a 3-vector onto the unit sphere."""
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def site(*names: str) -> np.ndarray:
    """Unit vector at the mean position of the named electrodes."""
    return unit(np.mean([XYZ[IDX[n]] for n in names], axis=0))


def jitter(rng: np.random.Generator, point, sd: float) -> np.ndarray:
    """A point moved by an isotropic random displacement of about ``sd`` (chordal)."""
    return unit(np.asarray(point, dtype=float) + rng.normal(0.0, sd, 3))


def mirror(point) -> np.ndarray:
    """The homologous point over the other hemisphere."""
    p = np.array(point, dtype=float)
    p[1] = -p[1]
    return p


def dist_to(point) -> np.ndarray:
    """Chordal distance of every electrode to ``point``, shape (21,)."""
    return np.linalg.norm(XYZ - np.asarray(point, dtype=float)[None, :], axis=1)


def gauss_field(point, radius: float, ear_factor: float = 0.7) -> np.ndarray:
    """Gaussian spatial field around ``point`` (1 at the point), shape (21,).

    The ear electrodes sit below the temporal chain, over the skull base, and record
    cerebral activity only in part; ``ear_factor`` scales them.
    """
    d = dist_to(point)
    g = np.exp(-0.5 * (d / radius) ** 2)
    g[EARS] *= ear_factor
    return g


def coherence_mixer(length: float, nugget: float) -> np.ndarray:
    """Mixing matrix whose output has coherence ``exp(-d / length)`` between electrodes.

    ``nugget`` is the share of purely local (electrode-specific) variance. The exponential
    kernel of 3-D distance is positive definite, so the Cholesky factor exists; each row has
    unit norm, so unit-variance white inputs give unit-variance outputs.
    """
    r = (1.0 - nugget) * np.exp(-DIST / max(length, 1e-3)) + nugget * np.eye(N_CH)
    return np.linalg.cholesky(r)
