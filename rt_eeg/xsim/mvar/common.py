"""Shared pieces of the ``mvar`` generator: electrode geometry, lead fields, the
time-varying AR(2) resonance, phase shaping of narrow-band rhythms, windows and bumps."""

from __future__ import annotations

import numpy as np
from scipy.signal import hilbert, lfilter

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

XYZ = electrode_xyz()
E = {e: i for i, e in enumerate(ELECTRODES)}  # electrode name -> row


def unit(polar: float, azimuth: float) -> np.ndarray:
    th, ph = np.deg2rad([polar, azimuth])
    return np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])


def lead_field(pos: np.ndarray, width: float) -> np.ndarray:
    """Smooth lead field of a source at unit vector ``pos``, shape (21,), max 1."""
    d = np.linalg.norm(XYZ - pos[None, :], axis=1)
    g = np.exp(-((d / width) ** 2)) + 0.04  # 0.04: volume conduction reaching everywhere
    return g / g.max()


def _self_gain(f: float, bw: float, fs: float) -> float:
    """Variance gain of an AR(2) resonance for an input of its own (unit-variance) shape,
    relative to unit white noise: the MVAR cross-terms are scaled by it so that a coupling
    weight means a share of power, not a resonant blow-up."""
    r = np.exp(-np.pi * bw / fs)
    a = [1.0, -2 * r * np.cos(2 * np.pi * min(f, 0.45 * fs) / fs), r**2]
    k = int(min(20 * fs, np.log(1e-4) / np.log(r) + 8))
    h = lfilter([1.0], a, np.r_[1.0, np.zeros(k)])
    return float(np.sum(np.convolve(h, h) ** 2) / np.sum(h**2) ** 2)


def tvar2(e, f, bw, amp, blk, fs, drive=None, kappa=0.0):
    """Time-varying AR(2): a damped resonance whose poles change at block boundaries.

    Parameters
    ----------
    e : ndarray, shape (n,)
        Unit white innovations.
    f, bw, amp : ndarray, shape (n_blocks,)
        Pole frequency (Hz), bandwidth (Hz) and stationary output std per block.
    blk : int
        Block length, samples.
    drive : ndarray, shape (n,), optional
        Cross-term input (delayed outputs of other sources, unit std): the MVAR coupling.
    kappa : float
        Weight of ``drive`` (innovations get ``sqrt(1 - kappa**2)``).

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    n = e.size
    r = np.exp(-np.pi * np.asarray(bw) / fs)
    a1, a2 = -2 * r * np.cos(2 * np.pi * np.minimum(f, 0.45 * fs) / fs), r**2
    var = (1 + a2) / ((1 - a2) * ((1 + a2) ** 2 - a1**2))
    b0 = np.asarray(amp) / np.sqrt(var)
    if drive is None:
        u = e
    else:  # a drive shaped like this resonance gains more through it than white noise does
        u = np.sqrt(1 - kappa**2) * e + drive / np.sqrt(_self_gain(np.median(f), np.median(bw), fs))
    y = np.empty(n)
    # stationary start (two innovations from the far end stand in for a burn-in)
    rho = -a1[0] / (1 + a2[0])
    y2 = amp[0] * e[-1]
    y1 = rho * y2 + amp[0] * np.sqrt(max(0.0, 1 - rho**2)) * e[-2]
    for j in range(int(np.ceil(n / blk))):
        i0, i1 = j * blk, min(n, (j + 1) * blk)
        zi = [-a1[j] * y1 - a2[j] * y2, -a2[j] * y1]
        y[i0:i1] = lfilter([b0[j]], [1.0, a1[j], a2[j]], u[i0:i1], zi=zi)[0]
        y1, y2 = y[i1 - 1], (y[i1 - 2] if i1 >= 2 else y1)
    return y


def shape_wave(y, sharp: float, kind: str):
    """Nonlinear shaping of a narrow-band rhythm through its phase, keeping its envelope.

    ``kind``: 'sharp' (sharp waves of one polarity), 'spike_wave' (negative spike then slow
    wave per cycle) or 'clonic' (a spike per cycle on a slow wave).
    """
    an = hilbert(y)
    env, ph = np.abs(an), np.angle(an)
    c = np.cos(ph)
    if kind == "spike_wave":
        wrap = np.angle(np.exp(1j * (ph - 2.3)))
        g = -(1.8 * np.maximum(c, 0) ** 9 + np.exp(-0.5 * (wrap / 0.7) ** 2)) + 0.55
    elif kind == "clonic":
        g = -(2.0 * np.maximum(c, 0) ** 12) + 0.5 * np.cos(ph - 2.0) + 0.25
    else:
        g = c - sharp * (np.maximum(c, 0) ** 6 - 0.23) * 1.5
    return env * g * (np.std(y) / (np.std(env * g) + 1e-9))


def window(n: int, a: int, b: int, ramp: int) -> np.ndarray:
    """1 inside [a, b) with raised-cosine edges inside the interval, 0 outside, shape (n,)."""
    w = np.zeros(n)
    b = min(b, n)
    w[a:b] = 1.0
    r = min(ramp, (b - a) // 3)
    if r > 0:
        edge = 0.5 - 0.5 * np.cos(np.pi * np.arange(r) / r)
        w[a : a + r] = edge
        w[b - r : b] = edge[::-1]
    return w


def bump(fs: float, dur: float, centre: float, sd: float) -> np.ndarray:
    t = np.arange(int(dur * fs)) / fs
    return np.exp(-0.5 * ((t - centre) / sd) ** 2)
