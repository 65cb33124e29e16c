"""Waveform primitives: coloured noise, oscillators and transient templates.

Transients are sums of asymmetric Gaussian phases (a spike is a steep negative phase, a
small positive overshoot and an after-going slow wave; a triphasic wave is three phases of
alternating sign), so every page of the atlas is written as an explicit shape in seconds and
works at any sampling rate.
"""

from __future__ import annotations

import numpy as np
from scipy import fft as sfft
from scipy.special import i0e


def spectral_noise(rng: np.random.Generator, n: int, sfreq: float, gain, k: int = 1):
    """``k`` unit-rms noise series of length ``n`` with amplitude spectrum ``gain(f)``.

    Drawn directly in the frequency domain (complex Gaussian coefficients), so one inverse
    FFT per series.

    Returns
    -------
    ndarray of float32, shape (k, n)
    """
    m = sfft.next_fast_len(max(n, 2), real=True)
    f = sfft.rfftfreq(m, 1.0 / sfreq)
    g = np.asarray(gain(f), dtype=float)
    g[0] = 0.0
    out = np.empty((k, n), dtype=np.float32)
    for i in range(k):
        spec = (rng.standard_normal(f.size) + 1j * rng.standard_normal(f.size)) * g
        x = sfft.irfft(spec, m)[:n]
        out[i] = x / (x.std() + 1e-12)
    return out


def pink_gain(alpha: float, f_knee: float = 0.7, f_hp: float = 0.25):
    """Amplitude gain of 1/f**alpha power with a knee and a gentle high-pass."""

    def g(f):
        return (f + f_knee) ** (-alpha / 2.0) * f / np.sqrt(f**2 + f_hp**2)

    return g


def band_gain(lo: float, hi: float, edge: float | None = None):
    """Flat amplitude gain between ``lo`` and ``hi`` Hz with raised-cosine edges."""
    e = edge if edge is not None else max(0.3, 0.2 * lo)

    def g(f):
        up = np.clip((f - (lo - e)) / (2 * e), 0, 1)
        dn = np.clip(((hi + e) - f) / (2 * e), 0, 1)
        return np.sin(0.5 * np.pi * up) ** 2 * np.sin(0.5 * np.pi * dn) ** 2

    return g


def peak_gain(fc: float, bw: float):
    """Gaussian amplitude gain around ``fc`` Hz (half-width ``bw``)."""

    def g(f):
        return np.exp(-0.5 * ((f - fc) / bw) ** 2)

    return g


def slow_noise(rng: np.random.Generator, n: int, rate: float, tau: float) -> np.ndarray:
    """Smooth unit-variance noise with correlation time ``tau`` seconds (float64)."""
    return spectral_noise(rng, n, rate, lambda f: np.exp(-((f * tau * 2.0) ** 2)))[0].astype(
        np.float64
    )


def phase_from_freq(freq: np.ndarray, sfreq: float, phase0: float = 0.0) -> np.ndarray:
    """Instantaneous phase (radians) of an oscillator following ``freq`` (Hz per sample)."""
    return phase0 + 2.0 * np.pi * np.cumsum(freq) / sfreq


def vm_bump(phase: np.ndarray, centre: float, kappa) -> np.ndarray:
    """Zero-mean periodic von Mises bump: a peak of unit height once per cycle."""
    k = np.asarray(kappa, dtype=float)
    m = i0e(k)  # the mean of exp(k (cos - 1)) over a cycle
    return (np.exp(k * (np.cos(phase - centre) - 1.0)) - m) / (1.0 - m)


def kappa_for(width_s, freq) -> np.ndarray:
    """Von Mises concentration giving a bump of ``width_s`` (sd, seconds) at ``freq`` Hz."""
    sd_phase = 2.0 * np.pi * np.asarray(freq, dtype=float) * width_s
    return 1.0 / np.maximum(sd_phase, 0.05) ** 2


def phases(sfreq: float, comps) -> tuple[np.ndarray, int]:
    """A transient from asymmetric Gaussian phases.

    Parameters
    ----------
    comps : iterable of (t_s, sd_left_s, sd_right_s, amplitude)

    Returns
    -------
    kernel : ndarray (float64)
    zero : int
        Index of t = 0 in ``kernel``.
    """
    comps = list(comps)
    t0 = min(c[0] - 4 * c[1] for c in comps)
    t1 = max(c[0] + 4 * c[2] for c in comps)
    zero = int(np.ceil(-t0 * sfreq))
    t = (np.arange(int(np.ceil((t1 - t0) * sfreq)) + 1) - zero) / sfreq
    k = np.zeros_like(t)
    for c, sl, sr, a in comps:
        sd = np.where(t < c, sl, sr)
        k += a * np.exp(-0.5 * ((t - c) / sd) ** 2)
    # Taper the ends so that sums of tails do not leave steps.
    k *= np.clip(np.minimum(np.arange(t.size), np.arange(t.size)[::-1]) / 3.0, 0, 1)
    return k, zero


def spike(sfreq, rise=0.012, fall=0.02, slow=0.6, slow_dur=0.22, over=0.25, sign=-1.0):
    """Spike (or sharp wave) with after-going slow wave; negative peak of unit height."""
    comps = [(0.0, rise, fall, 1.0), (2.4 * fall, 0.6 * fall, 1.2 * fall, -over)]
    if slow > 0:
        c = 2.6 * fall + 0.55 * slow_dur
        comps.append((c, 0.3 * slow_dur, 0.42 * slow_dur, slow))
    k, z = phases(sfreq, comps)
    return sign * k, z


def polyspike(sfreq, n: int, gap: float = 0.06, slow: float = 0.7, slow_dur: float = 0.25):
    """Polyspike (``n`` spikes ``gap`` s apart) with after-going slow wave, negative."""
    comps = []
    for i in range(n):
        a = 1.0 - 0.15 * abs(i - (n - 1) / 2)
        comps += [(i * gap, 0.008, 0.012, a), (i * gap + 0.03, 0.01, 0.012, -0.35 * a)]
    if slow > 0:
        comps.append(((n - 1) * gap + 0.05 + 0.5 * slow_dur, 0.3 * slow_dur, 0.42 * slow_dur, slow))
    k, z = phases(sfreq, comps)
    return -k, z


def place(eeg: np.ndarray, field: np.ndarray, kernel: np.ndarray, zero: int, at: int, scale=1.0):
    """Add ``scale * field x kernel`` into ``eeg`` with kernel index ``zero`` at sample ``at``."""
    n = eeg.shape[1]
    a = at - zero
    b = a + kernel.size
    if b <= 0 or a >= n or at >= n:  # at == n: a time clipped at the recording's end
        return
    ka, kb = max(0, -a), kernel.size - max(0, b - n)
    seg = (np.asarray(field, dtype=np.float32) * np.float32(scale))[:, None] * kernel[
        None, ka:kb
    ].astype(np.float32)
    eeg[:, max(a, 0) : min(b, n)] += seg


def place_matrix(eeg: np.ndarray, mat: np.ndarray, zero: int, at: int, scale=1.0):
    """Add a (21, L) event matrix (per-channel waveforms, e.g. with lags) at sample ``at``."""
    n = eeg.shape[1]
    a = at - zero
    b = a + mat.shape[1]
    if b <= 0 or a >= n or at >= n:
        return
    ka, kb = max(0, -a), mat.shape[1] - max(0, b - n)
    eeg[:, max(a, 0) : min(b, n)] += np.float32(scale) * mat[:, ka:kb]


def lagged_matrix(kernel: np.ndarray, zero: int, field: np.ndarray, lags_s, sfreq: float):
    """(21, L) matrix of ``kernel`` scaled by ``field`` and delayed per channel by ``lags_s``."""
    lags = np.asarray(lags_s) * sfreq
    pad = int(np.ceil(np.max(np.abs(lags)))) + 1
    k = np.concatenate([np.zeros(pad), kernel, np.zeros(pad)])
    x = np.arange(k.size, dtype=float)
    mat = np.stack([np.interp(x - lg, x, k) for lg in lags]) * np.asarray(field)[:, None]
    return mat.astype(np.float32), zero + pad


def ramp_env(n: int, sfreq: float, rise_s: float, fall_s: float) -> np.ndarray:
    """Envelope rising over ``rise_s`` and falling over ``fall_s`` (raised cosines)."""
    w = np.ones(n)
    r = min(n, max(1, int(rise_s * sfreq)))
    f = min(n, max(1, int(fall_s * sfreq)))
    w[:r] *= 0.5 * (1 - np.cos(np.pi * np.arange(r) / r))
    w[n - f :] *= 0.5 * (1 + np.cos(np.pi * np.arange(f) / f))
    return w


def poisson_times(rng: np.random.Generator, rate: np.ndarray, ctrl_rate: float) -> np.ndarray:
    """Event times (s) of an inhomogeneous Poisson process, ``rate`` per s at ``ctrl_rate`` Hz."""
    cum = np.concatenate([[0.0], np.cumsum(np.maximum(rate, 0.0)) / ctrl_rate])
    total = cum[-1]
    if total <= 0:
        return np.zeros(0)
    k = rng.poisson(total)
    u = np.sort(rng.uniform(0, total, k))
    return np.interp(u, cum, np.arange(cum.size) / ctrl_rate)


def intervals(rng, duration, n_per_h, dur_median, dur_sigma, dur_min, dur_max, allowed=None):
    """Random non-overlapping episodes: ``[(start_s, stop_s), ...]`` sorted.

    ``allowed(a, b)`` may veto an episode (e.g. one touching a seizure).
    """
    k = rng.poisson(n_per_h * duration / 3600.0)
    out: list[tuple[float, float]] = []
    for _ in range(k):
        d = float(np.clip(rng.lognormal(np.log(dur_median), dur_sigma), dur_min, dur_max))
        if d >= duration - 1:
            continue
        a = float(rng.uniform(0, duration - d))
        b = a + d
        if any(a < y + 2 and b > x - 2 for x, y in out):
            continue
        if allowed is not None and not allowed(a, b):
            continue
        out.append((a, b))
    return sorted(out)
