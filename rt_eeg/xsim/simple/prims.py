"""Geometry, fixed scalp fields and signal primitives of the ``simple`` generator.

Everything the stages share: electrode directions and Gaussian scalp fields, the recording
context :class:`Rec`, coloured noise, a rhythmic-template engine (:func:`rhythm`, reused for
seizures, benign rhythms and rhythmic artifacts), EMG-like noise and the adders that put a
waveform onto electrodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import scipy.fft as sfft
from scipy import signal

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

XYZ = electrode_xyz()
IX = {e: i for i, e in enumerate(ELECTRODES)}
NC = len(ELECTRODES)
DT = 0.25  # control grid step (s): states, envelopes and event rates live on it


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def toward(*names: str) -> np.ndarray:
    """The direction of the mean of some electrodes."""
    return unit(sum(XYZ[IX[e]] for e in names))


def arc(c) -> np.ndarray:
    """Great-circle distance (rad) of every electrode from direction ``c``."""
    return np.arccos(np.clip(XYZ @ np.asarray(c), -1.0, 1.0))


def gauss_field(c, sigma: float) -> np.ndarray:
    """Gaussian scalp field around ``c``: 1 at the centre, ``sigma`` in radians."""
    return np.exp(-0.5 * (arc(c) / sigma) ** 2)


def nudge(rng, c, spread: float) -> np.ndarray:
    return unit(np.asarray(c, dtype=float) + spread * rng.standard_normal(3))


def _norm(w: np.ndarray, ref: str) -> np.ndarray:
    return w / w[IX[ref]]


# Fixed fields. Eyes sit in front of and below FP1/FP2: blinks are positive there, lateral
# gaze is a horizontal dipole (F7 against F8). Temporalis/frontalis set where muscle shows.
BLINK = _norm(
    gauss_field(unit([1, 0.35, -0.5]), 0.55) + gauss_field(unit([1, -0.35, -0.5]), 0.55), "FP1"
)
HEOG = _norm(XYZ[:, 1] * gauss_field(unit([1, 0, -0.5]), 0.65), "F7")
MUSCLE = {
    "L": gauss_field(unit([0.2, 1, -0.35]), 0.55),
    "R": gauss_field(unit([0.2, -1, -0.35]), 0.55),
    "F": gauss_field(unit([1, 0, -0.1]), 0.5),
}
MUSCLE["LR"] = np.maximum(MUSCLE["L"], MUSCLE["R"])
MUSCLE["all"] = 0.4 + 0.6 * np.maximum(MUSCLE["LR"], MUSCLE["F"])
GEN = 0.1 + 0.9 * gauss_field(toward("FZ"), 0.6)  # generalised discharges: frontal maximum
GEN[[IX["A1"], IX["A2"]]] *= 0.6


@dataclass
class Rec:
    """Everything one recording's stages share."""

    fs: float
    n: int
    tc: np.ndarray = field(default_factory=lambda: np.zeros(0))  # control grid times (s)
    depth: np.ndarray = field(default_factory=lambda: np.zeros(0))  # 0 awake .. 3 N3
    eyes: np.ndarray = field(default_factory=lambda: np.zeros(0))  # 1 eyes open
    closures: list = field(default_factory=list)  # eye-closure times (s)
    photic: tuple | None = None  # (start, flash freqs, train s, gap s)
    hv: tuple | None = None  # (start, stop) of hyperventilation
    k: float = 1.0  # recording amplitude scale of brain signals
    events: list = field(default_factory=list)

    @property
    def dur(self) -> float:
        return self.n / self.fs

    def event(self, a: float, b: float, kind: str) -> None:
        """Record a drawn event (clipped to the recording; dropped when outside it)."""
        if a < self.dur:
            self.events.append((round(float(a), 3), round(float(min(b, self.dur)), 3), kind))


@lru_cache(maxsize=4)
def grid(n: int, fs: float) -> tuple[int, np.ndarray]:
    n2 = sfft.next_fast_len(max(n, 2), real=True)
    return n2, np.maximum(np.fft.rfftfreq(n2, 1.0 / fs), 1e-6)


def noise(rng, n: int, fs: float, psd) -> np.ndarray:
    """Unit-rms Gaussian noise of ``n`` samples with power spectrum ``psd(f)``."""
    n2, f = grid(n, fs)
    a = np.sqrt(psd(f)).astype(np.float32)
    a[0] = 0.0
    k = int(np.flatnonzero(a > 1e-4 * a.max())[-1]) + 1  # draw only the bins that matter
    z = rng.standard_normal((2, k), dtype=np.float32) * a[:k]
    spec = np.zeros(f.size, dtype=np.complex64)  # single precision: half the FFT time
    spec.real[:k], spec.imag[:k] = z
    x = sfft.irfft(spec, n2)[:n]
    return x * np.float32(1.0 / (x.std() + 1e-12))


def band(lo: float, hi: float):
    """Smooth band-pass power spectrum (4th-order skirts)."""
    return lambda f: 1.0 / ((1 + (lo / f) ** 4) * (1 + (f / hi) ** 4))


def slow(rng, k: int, tau: float) -> np.ndarray:
    """Unit-variance AR(1) noise on the control grid, correlation time ``tau`` seconds."""
    a = np.exp(-DT / tau)
    warm = int(3 * tau / DT)
    x = signal.lfilter([np.sqrt(1 - a * a)], [1, -a], rng.standard_normal(k + warm))
    return x[warm:]


def poisson_times(rng, rate: np.ndarray) -> np.ndarray:
    """Event times (s) of a Poisson process with ``rate`` (per s) on the control grid."""
    cnt = rng.poisson(np.clip(rate, 0, None) * DT)
    idx = np.repeat(np.arange(rate.size), cnt)
    return np.sort((idx + rng.random(idx.size)) * DT)


def sstep(x):
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3 - 2 * x)


def bump(t, c, w1, w2=None):
    """Gaussian bump at ``c``; rising width ``w1``, falling width ``w2`` (asymmetric)."""
    w = w1 if w2 is None else np.where(t < c, w1, w2)
    return np.exp(-0.5 * ((t - c) / w) ** 2)


def _cyc(fr, c, w):
    """Gaussian on the cycle fraction ``fr`` (wrapped), centre ``c``, width ``w``."""
    d = (fr - c + 0.5) % 1.0 - 0.5
    return np.exp(-0.5 * (d / w) ** 2)


def rhythm(
    rng,
    m,
    fs,
    f0,
    f1,
    *,
    p=1.0,
    sharp=(0.0, 0.0),
    sw=0,
    spike_s=0.02,
    jitter=0.15,
    fm=0.0,
    cj=0.05,
    irr=0.0,
) -> np.ndarray:
    """Rhythmic waveform of ``m`` samples, negative peaks about -1.

    Frequency glides from ``f0`` to ``f1`` (shape ``u**p``), with slow random frequency
    modulation ``fm`` (1 s scale), cycle-length jitter ``cj``, cycle-to-cycle amplitude
    ``jitter`` and an irregular band-limited admixture ``irr`` (relative rms). ``sw`` = 0: a
    harmonic series whose sharpness goes from ``sharp[0]`` (sine) to ``sharp[1]`` (sharp
    surface-negative waves); ``sw`` >= 1: spike(s)-and-wave with ``sw`` spikes per cycle.
    """
    tt = np.arange(m) / fs
    u = tt / max(tt[-1], 1e-9) if m > 1 else tt
    f = f0 + (f1 - f0) * u**p
    for step, sd in ((1.0, fm), (1.0 / max(f0, f1), cj)):
        if sd:
            kn = np.arange(int(tt[-1] / step) + 2) * step
            f = f * np.interp(tt, kn, np.exp(sd * rng.standard_normal(kn.size)))
    c = np.cumsum(f) / fs + rng.random()
    fr = c % 1.0
    ncyc = np.arange(int(c[-1]) + 2)
    if sw:
        sp, gap = spike_s * f, 0.045 * f
        spikes = np.zeros(m)
        for j in range(sw):
            spikes -= (1 - 0.12 * j) * _cyc(fr, 0.08 + j * gap, sp)
        last = 0.08 + (sw - 1) * gap
        x = spikes * np.interp(
            c, ncyc, np.clip(1 + 0.3 * rng.standard_normal(ncyc.size), 0.3, None)
        )
        x += 0.3 * _cyc(fr, last + 0.12, 0.05)
        x -= 0.8 * _cyc(fr, 0.5 * (last + 1.12), 0.18 * (1 - last))
        x /= np.abs(x).max() + 1e-12
    else:
        s = sharp[0] + (sharp[1] - sharp[0]) * u
        if max(sharp) > 0:  # morphology varies from cycle to cycle
            s = np.clip(s * np.interp(c, ncyc, 1 + 0.3 * rng.standard_normal(ncyc.size)), 0, 0.85)
        acc, norm, sk = np.zeros(m), np.zeros(m), np.ones(m)
        for h in range(1, 6):
            acc += sk * np.cos(2 * np.pi * h * fr)
            norm += sk
            sk = sk * s
        x = -acc / norm
    if irr:
        lo, hi = 0.6 * min(f0, f1), 2.0 * max(f0, f1)
        x = x + irr * x.std() * noise(rng, m, fs, band(lo, min(hi, 0.45 * fs)))
    jit = np.clip(1 + jitter * rng.standard_normal(ncyc.size), 0.2, None)
    return x * np.interp(c, ncyc, jit)


def flat_env(m: int, fs: float, edge: float) -> np.ndarray:
    """Flat envelope with smooth ``edge``-second onset and offset."""
    tt = np.arange(m) / fs
    e = max(min(edge, 0.5 * m / fs), 1e-3)
    return sstep(tt / e) * sstep((m / fs - tt) / e)


@lru_cache(maxsize=8)
def _emg_sos(fs: float):
    return signal.butter(4, min(25.0, 0.2 * fs), "highpass", fs=fs, output="sos")


def emg(rng, k: int, m: int, fs: float) -> np.ndarray:
    """``k`` independent unit-rms EMG-like rows: heavy-tailed noise high-passed at 25 Hz."""
    x = signal.sosfilt(_emg_sos(fs), rng.laplace(size=(k, m)), axis=-1)
    return x / (x.std() + 1e-12)


def add(out, i0: int, x: np.ndarray, w) -> None:
    """Add waveform ``x`` starting at sample ``i0``: shared (1-D ``x``, weights ``w`` per
    electrode) or one row per electrode (2-D ``x``, ``w`` the electrode indices)."""
    m = x.shape[-1]
    a, b = max(i0, 0), min(i0 + m, out.shape[1])
    if b <= a:
        return
    if x.ndim == 1:
        seg = x[a - i0 : b - i0]
        for c in np.flatnonzero(np.abs(w) > 1e-3):
            out[c, a:b] += w[c] * seg
    else:
        for r, c in enumerate(w):
            out[c, a:b] += x[r, a - i0 : b - i0]


def mixin(out, w: np.ndarray, x: np.ndarray) -> None:
    """Add a whole-recording source ``x`` with electrode weights ``w``."""
    x32 = x.astype(np.float32)
    for c in np.flatnonzero(np.abs(w) > 0.01):
        out[c] += np.float32(w[c]) * x32
