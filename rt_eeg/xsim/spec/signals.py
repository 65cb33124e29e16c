"""Signal building blocks: coloured noise, slow random processes, shaped oscillators, events."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import fft as sfft
from scipy import signal as ss
from scipy.special import i0e

#: Time step (s) of the coarse grid on which slow quantities (state weights, gains) live.
DT = 0.125


def child(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator seeded from ``rng`` (keeps stages' random streams apart)."""
    return np.random.default_rng(rng.integers(0, 2**63 - 1, size=2))


def smoothstep(x):
    """Cubic 0->1 ramp for x in [0, 1] (clipped outside)."""
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def ou(rng: np.random.Generator, n: int, dt: float, tau: float) -> np.ndarray:
    """Unit-variance Ornstein-Uhlenbeck process (exact AR(1) discretisation), shape (n,)."""
    a = float(np.exp(-dt / max(tau, 1e-6)))
    e = rng.standard_normal(n)
    e[0] /= np.sqrt(1.0 - a * a)  # start in the stationary distribution
    return ss.lfilter([np.sqrt(1.0 - a * a)], [1.0, -a], e)


def upsample(coarse: np.ndarray, n: int, sfreq: float, i0: int = 0) -> np.ndarray:
    """Linear interpolation of a coarse-grid series (step :data:`DT`) to samples i0..i0+n."""
    t = (np.arange(i0, i0 + n) / sfreq) / DT
    return np.interp(t, np.arange(coarse.shape[-1]), coarse).astype(np.float32)


def spectrum_amp(psd: np.ndarray, n_fft: int) -> np.ndarray:
    """Amplitudes per rfft bin giving a unit-variance real signal with shape ``psd``.

    With complex Gaussian bins of unit mean power and numpy's backward irfft, the variance
    is ``2 * sum(amp**2) / n_fft**2``.
    """
    p = np.asarray(psd, dtype=float).copy()
    p[0] = 0.0
    s = 2.0 * p.sum()
    return np.sqrt(p / s) * n_fft if s > 0 else p


def complex_normal(rng: np.random.Generator, shape) -> np.ndarray:
    """Circular complex Gaussian with unit mean power, complex64."""
    z = rng.standard_normal((2, *shape), dtype=np.float32)
    return (z[0] + 1j * z[1]).astype(np.complex64) * np.float32(np.sqrt(0.5))


def colored(rng, n: int, sfreq: float, psd_fn, n_ch: int = 1, mixer=None) -> np.ndarray:
    """Gaussian noise of ``n`` samples with power spectrum ``psd_fn(f)``, unit variance.

    ``mixer`` (n_ch x n_ch) imposes spatial coherence. Returns float32, shape (n_ch, n).
    Intended for windows of up to several minutes (events, post-ictal activity, EMG).
    """
    n_fft = sfft.next_fast_len(max(n, 16))
    f = np.fft.rfftfreq(n_fft, 1.0 / sfreq)
    amp = spectrum_amp(psd_fn(f), n_fft).astype(np.float32)
    z = complex_normal(rng, (n_ch, f.size)) * amp
    if mixer is not None:
        z = (mixer.astype(np.complex64) @ z).astype(np.complex64)
    return sfft.irfft(z, n_fft, axis=-1)[:, :n].astype(np.float32)


def gauss_peak(f, f0: float, bw: float) -> np.ndarray:
    """Gaussian spectral peak (power) at ``f0`` with standard deviation ``bw`` (Hz)."""
    return np.exp(-0.5 * ((f - f0) / bw) ** 2)


def lowpass_edge(f, fc: float, order: int = 4) -> np.ndarray:
    """Butterworth-like power roll-off above ``fc``."""
    return 1.0 / (1.0 + (f / fc) ** (2 * order))


def vonmises(theta, kappa) -> np.ndarray:
    """Zero-mean periodic bump peaking at theta = 0 with height 1.

    Small ``kappa`` gives a cosine, large ``kappa`` a narrow spike (width ~ 1/sqrt(kappa)
    radians); subtracting the cycle mean (``i0e``) keeps the wave free of a DC shift.
    """
    m = i0e(kappa)
    return (np.exp(kappa * (np.cos(theta) - 1.0)) - m) / (1.0 - m)


def kappa_for(width_s, f) -> np.ndarray:
    """Von Mises concentration giving a bump of about ``width_s`` (s, sd) at frequency f."""
    w = 2.0 * np.pi * np.asarray(f) * width_s
    return 1.0 / np.maximum(w, 1e-3) ** 2


def phase(freq: np.ndarray, sfreq: float, phi0: float = 0.0) -> np.ndarray:
    """Instantaneous phase (rad) of an oscillator with per-sample frequency ``freq`` (Hz)."""
    return phi0 + 2.0 * np.pi * np.cumsum(freq) / sfreq


def knots(tau: np.ndarray, points) -> np.ndarray:
    """Piecewise-linear trajectory through ``points`` = [(tau_k, value_k), ...]."""
    xs, ys = zip(*points, strict=True)
    return np.interp(tau, xs, ys)


def shaped_wave(theta, kappa, skew=0.0) -> np.ndarray:
    """Non-sinusoidal oscillation: negative von Mises peak, asymmetric by phase distortion.

    ``skew`` in (-1, 1) makes rise and fall unequal (sharp/arciform shapes).
    """
    th = theta + skew * np.sin(theta)
    return -vonmises(th, kappa)


def burst_envelope(n: int, rise: float = 0.3, kind: str = "hann") -> np.ndarray:
    """Waxing-waning envelope over n samples (peak 1)."""
    u = np.linspace(0.0, 1.0, n)
    if kind == "hann":
        return np.sin(np.pi * u) ** 2
    up = smoothstep(u / max(rise, 1e-3))
    down = smoothstep((1.0 - u) / max(rise, 1e-3))
    return up * down


def add_event(out: np.ndarray, sfreq: float, t0: float, wave: np.ndarray, topo) -> None:
    """Add ``topo (21,) x wave (n,)`` to ``out`` starting at time t0, clipped to the record."""
    i0 = int(round(t0 * sfreq))
    n_out = out.shape[1]
    a, b = max(i0, 0), min(i0 + wave.size, n_out)
    if b <= a:
        return
    out[:, a:b] += np.asarray(topo, np.float32)[:, None] * wave[a - i0 : b - i0][None, :]


def poisson_times(rng, rate_per_s: np.ndarray, min_gap: float = 0.0, cap=None) -> np.ndarray:
    """Event times (s) of an inhomogeneous Poisson process with coarse-grid rate (step DT).

    Integrates the rate and inverts the cumulative intensity; events closer than
    ``min_gap`` to the previous kept one are dropped (refractoriness).
    """
    lam = np.concatenate([[0.0], np.cumsum(np.maximum(rate_per_s, 0.0)) * DT])
    total = lam[-1]
    if total <= 0:
        return np.zeros(0)
    k = rng.poisson(total)
    if cap is not None:
        k = min(k, cap)
    u = np.sort(rng.uniform(0.0, total, k))
    t = np.interp(u, lam, np.arange(lam.size) * DT)
    if min_gap > 0 and t.size > 1:
        keep, last = [], -np.inf
        for x in t:
            if x - last >= min_gap:
                keep.append(x)
                last = x
        t = np.asarray(keep)
    return t


def outside(times: np.ndarray, windows, pad_before=0.0, pad_after=0.0) -> np.ndarray:
    """Mask of ``times`` lying outside every (start, stop) window (with padding)."""
    ok = np.ones(times.shape, bool)
    for a, b in windows:
        ok &= ~((times >= a - pad_before) & (times <= b + pad_after))
    return ok


@lru_cache(maxsize=16)
def emg_sos(sfreq: float) -> np.ndarray:
    """Band-pass for surface EMG: ~20 Hz to just below Nyquist."""
    hi = min(0.45 * sfreq, 150.0)
    return ss.butter(3, [20.0, hi], btype="bandpass", fs=sfreq, output="sos")


def emg_noise(rng, n_ch: int, n: int, sfreq: float, df: float = 4.0) -> np.ndarray:
    """Spiky broadband muscle noise (unit rms): heavy-tailed samples, band-passed.

    Student-t draws (``df`` small) give the irregular motor-unit spikes that make real EMG
    look 'spiky' rather than like smooth Gaussian hiss.
    """
    x = rng.standard_t(df, size=(n_ch, n)).astype(np.float32)
    y = ss.sosfilt(emg_sos(sfreq), x, axis=-1).astype(np.float32)
    return y / max(float(np.std(y)), 1e-6)
