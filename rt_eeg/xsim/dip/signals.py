"""Time-course helpers: coloured noise by recursive filters, slow random modulators,
envelopes and transient waveforms, and adding a source's scalp field into a recording."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import signal

#: Rate (Hz) of the slow control signals (state memberships, amplitude modulators).
CTRL_FS = 8.0
#: Samples filtered at once (bounds the memory of long, fast-sampled recordings).
CHUNK = 1 << 18


@lru_cache(maxsize=256)
def _sos_cached(kind: str, fs: float, a: float, b: float, order: int):
    nyq = 0.5 * fs
    if kind == "band":
        lo, hi = max(a, 0.05), min(b, 0.95 * nyq)
        sos = signal.butter(order, [lo, hi], "bandpass", fs=fs, output="sos")
    elif kind == "low":
        sos = signal.butter(order, min(a, 0.95 * nyq), "lowpass", fs=fs, output="sos")
    elif kind == "high":
        sos = signal.butter(order, a, "highpass", fs=fs, output="sos")
    elif kind == "power":
        sos = _power_law_sos(fs, a, b)
    else:
        raise ValueError(kind)
    _, h = signal.sosfreqz(sos, worN=1 << 15, fs=fs)
    gain = float(np.sqrt(np.mean(np.abs(h) ** 2)))
    return sos.astype(np.float32), gain


def _power_law_sos(fs: float, beta: float, knee: float) -> np.ndarray:
    """Power spectrum ~ f^-beta above ``knee`` (flat below), steeper above 30 Hz.

    Real poles a fixed ratio apart with zeros a fraction ``beta / 2`` of the way to the next
    pole: each octave then alternates -6 dB and 0 dB per octave stretches, averaging
    ``-3 beta`` dB per octave (the classic pole-zero ladder for 1/f noise).
    """
    top = 0.4 * fs
    n_poles = max(2, int(np.ceil(np.log10(top / knee) * 2)))
    poles = knee * (top / knee) ** (np.arange(n_poles) / n_poles)
    ratio = (top / knee) ** (1 / n_poles)
    frac = np.clip(beta / 2.0, 0.0, 1.0)
    zeros = poles * ratio**frac
    z, p, k = signal.bilinear_zpk(-2 * np.pi * zeros, -2 * np.pi * poles, 1.0, fs)
    ladder = signal.zpk2sos(z, p, k)
    # Cortical spectra steepen above ~30 Hz (what is left there is mostly muscle).
    steep = signal.butter(1, min(30.0, 0.4 * fs), "lowpass", fs=fs, output="sos")
    return np.concatenate([ladder, steep])


def sos(kind: str, fs: float, a: float, b: float = 0.0, order: int = 2):
    """A float32 filter (``kind``: ``'band'`` a-b Hz, ``'low'``/``'high'`` at a Hz,
    ``'power'`` with exponent a and knee b) and its noise gain (output rms for unit white
    input)."""
    return _sos_cached(kind, float(fs), round(float(a), 4), round(float(b), 4), int(order))


def filtered_noise(rng, rows: int, n: int, filt, fs: float, warm_s: float = 20.0) -> np.ndarray:
    """Unit-variance coloured Gaussian noise, shape (rows, n), float32.

    Starts from a filter state warmed up on ``warm_s`` of discarded noise, so it is
    stationary from the first sample.
    """
    sos_, gain = filt
    warm = int(min(warm_s * fs, 4 * n + 64))
    zi = np.zeros((sos_.shape[0], rows, 2), dtype=np.float32)
    _, zi = signal.sosfilt(sos_, rng.standard_normal((rows, warm), dtype=np.float32), axis=1, zi=zi)
    out = np.empty((rows, n), dtype=np.float32)
    for a in range(0, n, CHUNK):
        b = min(n, a + CHUNK)
        z = rng.standard_normal((rows, b - a), dtype=np.float32)
        out[:, a:b], zi = signal.sosfilt(sos_, z, axis=1, zi=zi)
    out *= np.float32(1.0 / gain)
    return out


def add_mixed_noise(out, mix, filt, env, rng, fs: float, shaper=None) -> None:
    """``out += mix @ (noise * env)`` chunk by chunk (a spatially mixed rhythm).

    Parameters
    ----------
    out : ndarray, shape (E, n), float32
    mix : ndarray, shape (E, r)
    filt : (sos, gain) from :func:`sos`
    env : ndarray, shape (n,)
        Amplitude envelope.
    shaper : callable, optional
        Applied to each chunk of unit noise (a waveform nonlinearity, e.g. arcs of mu).
    """
    sos_, gain = filt
    rows, n = mix.shape[1], out.shape[1]
    mix32 = (mix / gain).astype(np.float32)
    warm = int(min(20.0 * fs, 4 * n + 64))
    zi = np.zeros((sos_.shape[0], rows, 2), dtype=np.float32)
    _, zi = signal.sosfilt(sos_, rng.standard_normal((rows, warm), dtype=np.float32), axis=1, zi=zi)
    for a in range(0, n, CHUNK):
        b = min(n, a + CHUNK)
        z = rng.standard_normal((rows, b - a), dtype=np.float32)
        z, zi = signal.sosfilt(sos_, z, axis=1, zi=zi)
        if shaper is not None:
            z = shaper(z * np.float32(1.0 / gain)) * np.float32(gain)
        z *= env[a:b]
        out[:, a:b] += mix32 @ z


def slow_noise(rng, n_ctrl: int, tau_s: float, sd: float = 1.0) -> np.ndarray:
    """A smooth Gaussian process at :data:`CTRL_FS` with correlation time ``tau_s``
    (two passes of a first-order low-pass over white noise), scaled to ``sd``."""
    a = float(np.exp(-1.0 / (tau_s * CTRL_FS)))
    w = rng.standard_normal(n_ctrl + int(5 * tau_s * CTRL_FS) + 1)
    y = signal.lfilter([1 - a], [1.0, -a], signal.lfilter([1 - a], [1.0, -a], w))[-n_ctrl:]
    # Stationary sd of the two-pass filter, so short stretches are not renormalised.
    h = signal.lfilter(
        [1 - a], [1.0, -a], signal.lfilter([1 - a], [1.0, -a], np.r_[1.0, np.zeros(4000)])
    )
    return sd * y / np.sqrt(np.sum(h**2))


def slow_series(rng, m: int, fs: float, tau_s: float, sd: float) -> np.ndarray:
    """A smooth Gaussian process of ``m`` samples (correlation time ``tau_s``)."""
    n_c = int(m / fs * CTRL_FS) + 3
    x = slow_noise(rng, n_c, tau_s, sd)
    return np.interp(np.arange(m) / fs, np.arange(n_c) / CTRL_FS, x)


def lognormal_mod(rng, n_ctrl: int, tau_s: float, sd: float) -> np.ndarray:
    """A positive modulator with mean ~1 (waxing and waning)."""
    return np.exp(slow_noise(rng, n_ctrl, tau_s, sd) - 0.5 * sd * sd)


def ctrl_to_samples(x: np.ndarray, n: int, fs: float) -> np.ndarray:
    """Linear interpolation of a :data:`CTRL_FS` control signal onto ``n`` samples (float32)."""
    t = np.arange(n, dtype=np.float64) / fs
    tc = np.arange(len(x)) / CTRL_FS
    return np.interp(t, tc, x).astype(np.float32)


def ramp(t: np.ndarray, t0: float, width: float) -> np.ndarray:
    """0 before ``t0``, rising as a raised cosine to 1 at ``t0 + width``."""
    u = np.clip((t - t0) / max(width, 1e-6), 0.0, 1.0)
    return 0.5 - 0.5 * np.cos(np.pi * u)


def gauss(t: np.ndarray, mu: float, sd: float) -> np.ndarray:
    return np.exp(-0.5 * ((t - mu) / sd) ** 2)


def tukey(m: int, frac: float = 0.3) -> np.ndarray:
    return signal.windows.tukey(max(m, 1), frac) if m > 1 else np.ones(max(m, 1))


def add_at(out: np.ndarray, topo: np.ndarray, start: int, wave: np.ndarray) -> None:
    """``out[:, start:start+len(wave)] += topo * wave``, clipped at the recording's edges."""
    n = out.shape[1]
    a, b = max(start, 0), min(start + len(wave), n)
    if b <= a:
        return
    w = wave[a - start : b - start].astype(np.float32, copy=False)
    out[:, a:b] += np.outer(topo.astype(np.float32), w)


def add_outer(out: np.ndarray, topo: np.ndarray, wave: np.ndarray) -> None:
    """``out += topo[:, None] * wave[None, :]`` in float32, chunk by chunk (no full-size
    temporaries for recording-long waves)."""
    t32 = np.asarray(topo, dtype=np.float32)[:, None]
    for a in range(0, out.shape[1], CHUNK):
        b = min(out.shape[1], a + CHUNK)
        out[:, a:b] += t32 * np.asarray(wave[a:b], dtype=np.float32)[None, :]


def poisson_times(rng, rate_fn, duration: float, max_rate: float) -> np.ndarray:
    """Event times of an inhomogeneous Poisson process by thinning.

    ``rate_fn(t)`` gives the rate (events/s) at times ``t`` (array), at most ``max_rate``.
    """
    if max_rate <= 0 or duration <= 0:
        return np.zeros(0)
    k = rng.poisson(max_rate * duration)
    t = np.sort(rng.uniform(0, duration, k))
    keep = rng.random(k) * max_rate < rate_fn(t)
    return t[keep]
