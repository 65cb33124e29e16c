"""Small signal helpers shared by the background, artifact and seizure modules."""

from __future__ import annotations

import numpy as np
from scipy import fft as sfft


def shaped_noise(rng, rows: int, n: int, sfreq: float, amp_fn, fmax: float = 48.0) -> np.ndarray:
    """Gaussian noise with amplitude spectrum ``amp_fn(f)``, unit variance per row.

    Built in the frequency domain (one inverse FFT per row), with nothing above ``fmax``.

    Returns
    -------
    ndarray of float32, shape (rows, n)
    """
    m = sfft.next_fast_len(n, real=True)
    f = np.fft.rfftfreq(m, 1.0 / sfreq)
    last = int(np.searchsorted(f, min(fmax, sfreq / 2.0)))
    a = np.asarray(amp_fn(f[:last]), np.float32)
    spec = np.zeros((rows, m // 2 + 1), np.complex64)
    re = rng.standard_normal((rows, last), dtype=np.float32)
    im = rng.standard_normal((rows, last), dtype=np.float32)
    spec[:, :last] = (re + 1j * im) * a
    x = sfft.irfft(spec, m, axis=1)[:, :n]
    x /= np.maximum(x.std(axis=1, keepdims=True), 1e-12)
    return x.astype(np.float32, copy=False)


def slow_envelope(rng, n: int, sfreq: float, tau_s: float, sd: float) -> np.ndarray:
    """A positive, slowly varying gain ``exp(sd * AR1)`` with time constant ``tau_s``,
    shape ``(n,)`` float32 (waxing and waning of rhythms)."""
    n_sec = int(np.ceil(n / sfreq)) + 2
    a = np.exp(-1.0 / tau_s)
    e = rng.standard_normal(n_sec) * np.sqrt(1 - a * a)
    v = np.empty(n_sec)
    v[0] = rng.standard_normal()
    for i in range(1, n_sec):
        v[i] = a * v[i - 1] + e[i]
    t = np.arange(n) / sfreq
    return np.exp(sd * np.interp(t, np.arange(n_sec), v)).astype(np.float32)


def poisson_times(rng, rate_per_min: np.ndarray, lo: float = 0.0) -> np.ndarray:
    """Event times (s) of an inhomogeneous Poisson process given per second.

    Parameters
    ----------
    rate_per_min : ndarray, shape (n_seconds,)
        Rate in events per minute during each second.
    """
    k = rng.poisson(np.maximum(rate_per_min, 0.0) / 60.0)
    sec = np.repeat(np.arange(k.size), k)
    t = sec + rng.random(sec.size)
    return np.sort(t[t >= lo])


def add_event(out: np.ndarray, sfreq: float, t0: float, pattern, wave: np.ndarray) -> None:
    """Add ``pattern[:, None] * wave[None, :]`` to ``out`` (21, n) from time ``t0`` (s)."""
    i0 = int(round(t0 * sfreq))
    n = out.shape[1]
    j0, j1 = max(0, i0), min(n, i0 + wave.size)
    if j1 <= j0:
        return
    out[:, j0:j1] += np.outer(pattern, wave[j0 - i0 : j1 - i0]).astype(np.float32)


def hann_burst(sfreq: float, dur: float, freq: float, rng, harm: float = 0.0) -> np.ndarray:
    """A Hann-windowed oscillation of ``dur`` s at ``freq`` Hz (peak 1), optional 2nd harmonic
    ``harm`` (arciform, mu-like shapes)."""
    m = max(2, int(dur * sfreq))
    t = np.arange(m) / sfreq
    ph = rng.uniform(0, 2 * np.pi)
    w = np.sin(2 * np.pi * freq * t + ph) + harm * np.cos(4 * np.pi * freq * t + 2 * ph)
    return (np.hanning(m) * w / (1.0 + abs(harm))).astype(np.float32)


def events_in(times, dur, kind: str, events: list) -> None:
    """Append ``(t, t + dur, kind)`` for every time (dur a scalar or per-time array)."""
    d = np.broadcast_to(np.asarray(dur, float), np.shape(times))
    for t, x in zip(times, d, strict=True):
        events.append((round(float(t), 3), round(float(t + x), 3), kind))
