"""The 6-D Epileptor (Jirsa et al. 2014) on a network, integrated by Euler-Maruyama.

Per node::

    x1' = y1 - f1(x1, x2, z) - z + I1
    y1' = y0 - 5 x1^2 - y1
    z'  : prescribed (see below)
    x2' = -y2 + x2 - x2^3 + I2 + 2 g - 0.3 (z - 3.5) + noise
    y2' = (-y2 + f2(x2)) / tau2 + noise
    g'  = -0.01 (g - 0.1 x1)

with f1 = x1^3 - 3 x1^2 (x1 < 0) or (x2 - 0.6 (z - 4)^2) x1, f2 = 6 (x2 + 0.25)_+ and the
seizure-like field potential ``x2 - x1``.

The slow permittivity variable is where the planner's times enter: instead of letting ``z``
drift with ``r (4 (x1 - x0) - z)`` (whose seizure times would be unpredictable), each node
follows a scheduled trajectory ``z_sched(t)``, the path the slow variable takes for a node
with a given ``x0`` (below the saddle-node at 2.85 -> seizure; sweeping back up to the
homoclinic offset near 3.85 -> termination with slowing discharges). Coupling acts as in the
Epileptor network (Proix et al. 2014): a seizing neighbour lowers a node's permittivity,
``z = z_sched - K_z sum_j w_ij (x1_j - x1_i)``, and a fast term drives the spike-wave
subsystem, so that recruited nodes lock to the focus.
"""

from __future__ import annotations

import numpy as np

#: Model parameters (Jirsa et al. 2014, Table 1).
I1, I2, Y0, TAU2 = 3.1, 0.45, 1.0, 10.0
#: Internal step, model time units (with the x1 stiffness handled semi-implicitly).
DT = 0.1
#: z thresholds of this parameter set: seizure onset below, offset above (measured).
Z_ONSET, Z_OFFSET = 2.85, 3.85
#: Permittivity where nodes rest between seizures (inside the bistable range).
Z_REST = 3.6


def resting_state(shape: tuple[int, ...]) -> np.ndarray:
    """The interictal fixed point at :data:`Z_REST`, shape ``(5, *shape)`` (x1, y1, x2, y2, g).

    Found by integrating one node long enough for the transients to decay.
    """
    s = np.array([-1.6, -12.0, -0.9, 0.0, -0.16])
    x1, y1, x2, y2, g = s
    z = Z_REST
    for _ in range(6000):
        f1 = x1 * x1 * (x1 - 3.0)
        dx1 = (y1 - f1 - z + I1) / (1.0 + DT * x1 * (3.0 * x1 - 6.0))
        dy1 = Y0 - 5.0 * x1 * x1 - y1
        dx2 = -y2 + x2 - x2**3 + I2 + 2.0 * g - 0.3 * (z - 3.5)
        dy2 = (6.0 * max(x2 + 0.25, 0.0) - y2) / TAU2
        dg = -0.01 * (g - 0.1 * x1)
        x1, y1, x2, y2, g = (x1 + DT * dx1, y1 + DT * dy1, x2 + DT * dx2, y2 + DT * dy2,
                             g + DT * dg)  # fmt: skip
    out = np.empty((5, *shape))
    for i, v in enumerate((x1, y1, x2, y2, g)):
        out[i] = v
    return out


def integrate(
    z_sched,
    n_steps: int,
    w: np.ndarray,
    k_z: float,
    k_2: float,
    noise_sd: float,
    rng: np.random.Generator,
    decim: int,
) -> np.ndarray:
    """Integrate a batch of independent networks.

    Parameters
    ----------
    z_sched : callable
        ``z_sched(k0, k1) -> ndarray (k1 - k0, B, N)``: the scheduled permittivity for steps
        ``k0 .. k1-1`` (called chunk by chunk so that long seizures need little memory).
    n_steps : int
        Number of :data:`DT` steps.
    w : ndarray, shape (N, N)
        Row-normalised coupling weights.
    k_z, k_2 : float
        Slow (permittivity) and fast (spike-wave subsystem) coupling strengths.
    noise_sd : float
        Standard deviation of the additive noise on x2 and y2 per unit time.
    rng : numpy.random.Generator
    decim : int
        Keep every ``decim``-th step.

    Returns
    -------
    ndarray of float32, shape (n_steps // decim, B, N)
        The field potential ``x2 - x1`` at the kept steps.
    """
    probe = z_sched(0, 1)
    shape = probe.shape[1:]
    x1, y1, x2, y2, g = resting_state(shape)
    wt = np.ascontiguousarray(w.T)
    out = np.empty((n_steps // decim, *shape), np.float32)
    sq = noise_sd * np.sqrt(DT)
    chunk = 4096 - 4096 % decim
    for k0 in range(0, n_steps, chunk):
        k1 = min(n_steps, k0 + chunk)
        zs = z_sched(k0, k1)
        nz = rng.standard_normal((k1 - k0, 2, *shape)) * sq
        for j in range(k1 - k0):
            c = x1 @ wt - x1  # sum_j w_ij x1_j - x1_i (rows of w sum to 1)
            z = zs[j] - k_z * c
            zz = z - 4.0
            neg = x1 < 0.0
            f1 = np.where(neg, x1 * x1 * (x1 - 3.0), (x2 - 0.6 * zz * zz) * x1)
            # d f1 / d x1 on the lower branch, treated implicitly: the resting point's
            # eigenvalue reaches -25 at high z, beyond explicit Euler's reach at DT.
            jac = np.where(neg, x1 * (3.0 * x1 - 6.0), 0.0)
            dx1 = (y1 - f1 - z + I1) / (1.0 + DT * jac)
            dy1 = Y0 - 5.0 * x1 * x1 - y1
            dx2 = x2 - y2 - x2 * x2 * x2 + (I2 + 1.05) + 2.0 * g - 0.3 * z + k_2 * c
            dy2 = (6.0 * np.maximum(x2 + 0.25, 0.0) - y2) * (1.0 / TAU2)
            g = g + DT * (-0.01 * (g - 0.1 * x1))
            x1 = x1 + DT * dx1
            y1 = y1 + DT * dy1
            x2 = x2 + DT * dx2 + nz[j, 0]
            y2 = y2 + DT * dy2 + nz[j, 1]
            k = k0 + j
            if k % decim == 0 and k // decim < out.shape[0]:
                out[k // decim] = x2 - x1
    return out
