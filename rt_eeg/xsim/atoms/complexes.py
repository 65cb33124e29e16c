"""Composite atoms (spikes, spike-and-wave, triphasic waves) and rhythmic trains of them.

A composite is a fixed little molecule of atoms sharing one field: a spike is a small positive
pre-phase, a steep surface-negative peak (asymmetric transient, rise shorter than fall), a
positive after-phase and often an after-going slow wave. A train places complexes at the
cycles of an instantaneous frequency that may drift, with small timing jitter: the regular,
self-similar atom processes of rhythmic discharges.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.atoms.render import GABOR, TRANS, Scene


def _ids(scene: Scene, topo, n: int) -> np.ndarray:
    """Field ids for ``n`` complexes from a field (21,), fields (n, 21) or ids."""
    topo = np.asarray(topo)
    if np.issubdtype(topo.dtype, np.integer):
        return np.broadcast_to(topo, (n,))
    ids = scene.fields(np.atleast_2d(topo))
    return np.broadcast_to(ids, (n,))


def spikes(
    scene: Scene, t, amp, topo, rng, *, width=1.0, slow=0.5, window=None, brain: bool = True
) -> None:
    """Spikes (``width`` 1: 40-70 ms) or sharp waves (``width`` 2-3: 80-200 ms).

    Parameters
    ----------
    t, amp : array
        Peak times (s) and amplitudes of the surface-negative peak (uV, positive numbers).
    topo : fields (21,) / (n, 21) or ids
    width, slow : float or array
        Duration factor; amplitude of the after-going slow wave relative to the spike.
    """
    t = np.atleast_1d(np.asarray(t, dtype=float))
    n = len(t)
    if n == 0:
        return
    ids = _ids(scene, topo, n)
    amp = np.broadcast_to(np.asarray(amp, dtype=float), (n,))
    width = np.broadcast_to(np.asarray(width, dtype=float), (n,)) * rng.uniform(0.85, 1.2, n)
    r, d = 0.008 * width, 0.016 * width
    kw = dict(window=window, brain=brain)
    scene.add(TRANS, t - 2.6 * r, 0.15 * amp, 1.2 * r, 1.2 * r, topo=ids, **kw)
    scene.add(TRANS, t, -amp, r, d, topo=ids, **kw)
    scene.add(TRANS, t + 2.4 * d, 0.3 * amp, 1.1 * d, 2.0 * d, topo=ids, **kw)
    slow = np.broadcast_to(np.asarray(slow, dtype=float), (n,))
    s = slow > 0.02
    if np.any(s):
        sig = rng.uniform(0.06, 0.1, int(s.sum())) * np.sqrt(width[s])
        scene.add(
            GABOR,
            t[s] + 2.4 * d[s] + 1.6 * sig,
            -slow[s] * amp[s] * 0.6,
            0.0,
            sig,
            topo=ids[s],
            **kw,
        )


def slow_waves(scene: Scene, t, period, amp, topo, *, window=None, brain=True) -> None:
    """The surface-negative dome of a spike-wave complex, centred ~0.55 period after the
    spike: a Gabor atom whose positive side lobes fall between spike and dome and before the
    next spike (zero mean, so trains do not shift the baseline)."""
    period = np.asarray(period, dtype=float)
    ids = _ids(scene, topo, len(np.atleast_1d(t)))
    scene.add(
        GABOR,
        np.asarray(t) + 0.55 * period,
        -np.asarray(amp),
        1.4 / period,
        0.28 * period,
        0.0,
        0.3,
        topo=ids,
        window=window,
        brain=brain,
    )


def spike_waves(
    scene: Scene,
    t,
    period,
    amp,
    topo,
    rng,
    *,
    spike_frac=0.7,
    n_spikes=1,
    spike_width=1.0,
    window=None,
    brain=True,
) -> None:
    """Spike-and-wave (``n_spikes`` 1) or polyspike-and-wave complexes starting at ``t``."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    n = len(t)
    if n == 0:
        return
    ids = _ids(scene, topo, n)
    period = np.broadcast_to(np.asarray(period, dtype=float), (n,))
    amp = np.broadcast_to(np.asarray(amp, dtype=float), (n,))
    ns = np.broadcast_to(np.asarray(n_spikes), (n,))
    for j in range(int(ns.max())):
        m = ns > j
        gap = rng.uniform(0.055, 0.085, int(m.sum()))  # polyspikes at 12-18 Hz
        scale = spike_frac * (1.0 - 0.12 * j)
        spikes(
            scene,
            t[m] + j * gap,
            amp[m] * scale,
            ids[m],
            rng,
            width=spike_width,
            slow=0.0,
            window=window,
            brain=brain,
        )
    shift = 0.07 * (ns - 1)
    slow_waves(scene, t + shift, period, amp, ids, window=window, brain=brain)


def triphasic(scene: Scene, t, amp, topo, *, window=None, brain=True) -> None:
    """Triphasic waves: small negative, dominant positive, slower negative phase."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    ids = _ids(scene, topo, len(t))
    kw = dict(window=window, brain=brain)
    scene.add(TRANS, t, -0.35 * amp, 0.03, 0.04, topo=ids, **kw)
    scene.add(TRANS, t + 0.09, amp, 0.045, 0.08, topo=ids, **kw)
    scene.add(GABOR, t + 0.28, -0.55 * amp, 0.0, 0.09, topo=ids, **kw)


def cycle_times(
    t0: float, t1: float, freq, rng, *, jitter: float = 0.03, drift: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Times of the cycles of a rhythm from ``t0`` to ``t1``.

    Parameters
    ----------
    freq : callable or float
        Instantaneous frequency (Hz) as a function of the fraction ``u`` in [0, 1] of the
        interval elapsed (vectorised), or a constant.
    jitter : float
        Relative standard deviation of each cycle's length (irregularity).
    drift : float
        Relative amplitude of a slow random wander of the frequency.

    Returns
    -------
    times : array
    u : array
        The fraction of the interval elapsed at each cycle.
    """
    dur = t1 - t0
    if dur <= 0:
        return np.empty(0), np.empty(0)
    grid = np.linspace(0.0, 1.0, max(int(dur * 50), 8))
    f = freq(grid) if callable(freq) else np.full_like(grid, float(freq))
    if drift > 0:
        walk = np.cumsum(rng.standard_normal(len(grid)))
        walk = np.convolve(walk - walk.mean(), np.ones(25) / 25, mode="same")
        f = f * np.exp(drift * walk / (np.abs(walk).max() + 1e-9))
    phase = np.concatenate([[0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) * np.diff(grid) * dur)])
    phase += rng.uniform(0.85, 1.0)  # the first cycle falls within 0.15 cycle of t0
    k = np.arange(np.ceil(phase[0]), np.floor(phase[-1]) + 1)
    u = np.interp(k, phase, grid)
    fk = np.interp(u, grid, f)
    times = t0 + u * dur + jitter * rng.standard_normal(len(u)) / fk
    order = np.argsort(times)
    return times[order], u[order]


def wave_train(
    scene: Scene, t, freq, amp, topo, *, k=0.0, skew=0.0, ncyc=0.5, window=None, brain=True
) -> None:
    """One Gabor atom per cycle, peak (surface negative when ``amp`` > 0) at ``t``: trains of
    them sum to a continuous rhythm whose sharpness follows ``k`` and asymmetry ``skew``."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    ids = _ids(scene, topo, len(t))
    freq = np.asarray(freq, dtype=float)
    scene.add(
        GABOR,
        t,
        -np.asarray(amp),
        freq,
        np.asarray(ncyc) / freq,
        0.0,
        k,
        topo=ids,
        sk=skew,
        window=window,
        brain=brain,
    )
