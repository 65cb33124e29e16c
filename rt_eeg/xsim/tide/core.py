"""Signal primitives of the tide generator: stochastic resonators, phase oscillators,
aperiodic noise, spatial fields, waveform tables and the chunked mixer.

Everything here is vectorised over samples; the only Python loops run over blocks or
events, never over samples.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from rt_eeg.xsim.base import ELECTRODES, electrode_xyz

#: Electrode unit vectors, shape (21, 3).
XYZ = electrode_xyz()
#: Row index of each electrode name.
IDX = {e: i for i, e in enumerate(ELECTRODES)}
#: Samples per chunk when a source is spread over 21 channels (bounds temporary memory).
CHUNK = 1 << 16


def direction(*names: str, jitter: float = 0.0, rng=None) -> np.ndarray:
    """Unit vector at the mean of some electrodes, optionally jittered.

    Returns
    -------
    ndarray, shape (3,)
    """
    v = XYZ[[IDX[n] for n in names]].mean(axis=0)
    if jitter and rng is not None:
        v = v / np.linalg.norm(v) + jitter * rng.standard_normal(3)
    return v / np.linalg.norm(v)


def vmf(center, kappa: float) -> np.ndarray:
    """Smooth scalp field peaked at ``center`` (von Mises-Fisher profile), scaled so that
    the electrode nearest the peak reads 1 (a patch between electrodes still shows fully).

    Parameters
    ----------
    center : array-like, shape (3,)
    kappa : float
        Concentration: about 1-2 is lobar to diffuse, 8-15 is one or two electrodes.

    Returns
    -------
    ndarray, shape (21,)
    """
    c = np.asarray(center, dtype=float)
    c = c / np.linalg.norm(c)
    f = np.exp(kappa * (XYZ @ c - 1.0))
    return f / f.max()


def dipole(pos, moment) -> np.ndarray:
    """Scalp potentials of a current dipole in an infinite homogeneous medium, scaled so
    that the largest magnitude is 1 (sign kept).

    Parameters
    ----------
    pos : array-like, shape (3,)
        Inside the unit sphere (or outside it, for the eyes and heart).
    moment : array-like, shape (3,)

    Returns
    -------
    ndarray, shape (21,)
    """
    d = XYZ - np.asarray(pos, dtype=float)[None, :]
    v = (d @ np.asarray(moment, dtype=float)) / np.linalg.norm(d, axis=1) ** 3
    return v / np.max(np.abs(v))


def mirror(v) -> np.ndarray:
    """The homologous point of the other hemisphere (y flipped), shape (3,)."""
    v = np.array(v, dtype=float)
    v[1] = -v[1]
    return v


def resonator(freq, bw, n: int, fs: float, rng) -> np.ndarray:
    """A damped stochastic resonator: complex one-pole filter driven by white noise,
    ``z[k] = r[k] exp(i 2 pi f[k] / fs) z[k-1] + u[k]``, with time-varying centre frequency
    and bandwidth. Its real part is a narrow-band Gaussian rhythm (an AR(2)-like process)
    that waxes and wanes by itself; the variance of the real part is about 1.

    The time-varying recursion is solved exactly in blocks (cumulative log-pole inside a
    block, a short loop over blocks for the carry).

    Parameters
    ----------
    freq, bw : float or ndarray, shape (n,)
        Centre frequency and -3 dB bandwidth, Hz.
    n : int
    fs : float
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of complex128, shape (n,)
    """
    if n <= 0:
        return np.zeros(0, dtype=complex)
    scalar = np.ndim(freq) == 0 and np.ndim(bw) == 0
    bw_a = np.maximum(np.asarray(bw, dtype=float), 1e-3)
    loga = -np.pi * bw_a / fs + 2j * np.pi * np.asarray(freq, dtype=float) / fs
    gain = np.sqrt(1.0 - np.exp(2.0 * loga.real))
    u = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * gain
    if scalar:
        a = np.exp(loga)
        zi = np.array([rng.standard_normal() + 1j * rng.standard_normal()]) * a
        return signal.lfilter([1.0], [1.0, -a], u, zi=zi)[0]
    loga = np.broadcast_to(loga, (n,))
    # block length: the decay over one block stays within exp(20) (float64 safe)
    length = int(np.clip(20.0 / max(float(-loga.real.min()), 1e-9), 8, 2048))
    nb = -(-n // length)
    pad = nb * length - n
    la = np.concatenate([loga, np.zeros(pad)]).reshape(nb, length)
    uu = np.concatenate([u, np.zeros(pad)]).reshape(nb, length)
    lp = np.cumsum(la, axis=1)
    p = np.exp(lp)
    z = p * np.cumsum(uu / p, axis=1)
    end_p, end_z = p[:, -1], z[:, -1]
    carry_in = np.empty(nb, dtype=complex)
    prev = complex(rng.standard_normal(), rng.standard_normal())
    for b in range(nb):
        carry_in[b] = prev
        prev = end_z[b] + end_p[b] * prev
    z += carry_in[:, None] * p
    return z.reshape(-1)[:n]


def phase_oscillator(freq, n: int, fs: float, rng, diffusion: float = 0.05) -> np.ndarray:
    """Cycle count of a noisy oscillator: the integral of ``freq`` plus slow phase
    diffusion, monotone as long as ``freq`` stays well above the diffusion.

    Parameters
    ----------
    freq : float or ndarray, shape (n,)
        Instantaneous frequency, Hz.
    diffusion : float
        Phase jitter (cycles) accumulated per second, smoothed below ~1 Hz.

    Returns
    -------
    ndarray, shape (n,)
        Cycles (the fractional part is the phase within the cycle).
    """
    f = np.broadcast_to(np.asarray(freq, dtype=float), (n,))
    jit = smooth_noise(n, fs, 1.0, rng) * diffusion
    return np.cumsum(f) / fs + jit + rng.random()


def smooth_noise(n: int, fs: float, corner_hz: float, rng) -> np.ndarray:
    """Gaussian noise low-passed below ``corner_hz`` (second order), unit variance.

    Returns
    -------
    ndarray, shape (n,)
    """
    if n <= 0:
        return np.zeros(0)
    # generate at a coarse rate and interpolate: cheap for very slow processes
    step = max(1, int(fs / (20.0 * corner_hz)))
    m = n // step + 3
    sos = signal.butter(2, min(0.9, 2.0 * corner_hz * step / fs), output="sos")
    w = signal.sosfilt(sos, rng.standard_normal(m + 200))[200:]
    w /= np.std(w) + 1e-12
    if step == 1:
        return w[:n]
    return np.interp(np.arange(n) / step, np.arange(m), w)


def aperiodic(n: int, fs: float, rng, slope: float = 1.0) -> np.ndarray:
    """Scale-free (1/f^slope-like) noise: a mixture of first-order low-pass processes with
    corners spread over three decades, unit variance.

    Returns
    -------
    ndarray, shape (n,)
    """
    corners = np.array([0.3, 1.2, 5.0, 20.0])
    weights = corners ** (-(slope - 1.0) / 2.0) * np.sqrt(corners)
    out = np.zeros(n)
    for fc, w in zip(corners, weights, strict=True):
        a = np.exp(-2 * np.pi * min(fc, 0.4 * fs) / fs)
        out += w * signal.lfilter([np.sqrt(1 - a * a)], [1.0, -a], rng.standard_normal(n))
    return out / (np.std(out) + 1e-12)


def shaped(cycles: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Read a one-cycle waveform table at the given cycle counts (periodic).

    Parameters
    ----------
    cycles : ndarray, shape (n,)
    table : ndarray, shape (m,)
        One cycle, sampled uniformly on [0, 1).

    Returns
    -------
    ndarray, shape (n,)
    """
    grid = np.arange(table.size) / table.size
    return np.interp(np.mod(cycles, 1.0), grid, table, period=1.0)


def resonator_wave(z: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Non-sinusoidal rhythm from a resonator: its amplitude times ``table`` at its phase.

    Parameters
    ----------
    z : ndarray of complex, shape (n,)
    table : ndarray, shape (m,)

    Returns
    -------
    ndarray, shape (n,)
    """
    return np.abs(z) * shaped(np.angle(z) / (2 * np.pi), table)


def _unit(w: np.ndarray) -> np.ndarray:
    w = w - w.mean()
    return w / np.max(np.abs(w))


def _bumps(g: np.ndarray, spec) -> np.ndarray:
    return sum(a * np.exp(-0.5 * ((g - c) / s) ** 2) for a, c, s in spec)


_G = np.arange(512) / 512.0

#: One-cycle waveform tables (true polarity: surface-negative deflections are negative).
TABLES: dict[str, np.ndarray] = {
    "sine": np.sin(2 * np.pi * _G),
    # mu / wicket: sharp negative cusps, rounded positive arches
    "arch": _unit(np.abs(np.cos(np.pi * _G))),
    # 14-and-6 and POSTS-like: sharp positive cusps
    "posarch": -_unit(np.abs(np.cos(np.pi * _G))),
    # rhythmic mid-temporal theta: flat-topped, notched
    "notched": _unit(np.sin(2 * np.pi * _G) + 0.33 * np.sin(6 * np.pi * _G)),
    # ictal sharp waves: steep negative rise, slower return
    "sharp": _unit(
        np.where(_G < 0.2, -np.exp(-0.5 * ((_G - 0.2) / 0.05) ** 2),
                 -np.exp(-0.5 * ((_G - 0.2) / 0.16) ** 2))
    ),  # fmt: skip
    "spike_wave": _unit(
        _bumps(_G, [(-1.0, 0.08, 0.022), (0.35, 0.16, 0.035), (-0.55, 0.5, 0.13)])
    ),
    "polyspike_wave": _unit(
        _bumps(_G, [(-0.9, 0.05, 0.013), (-1.0, 0.11, 0.013), (-0.85, 0.17, 0.013),
                    (0.3, 0.23, 0.03), (-0.5, 0.55, 0.13)])
    ),  # fmt: skip
}


def blend(cycles: np.ndarray, name: str, sharp) -> np.ndarray:
    """A sine that morphs into table ``name`` as ``sharp`` goes from 0 to 1.

    Parameters
    ----------
    cycles : ndarray, shape (n,)
    name : str
        Key of :data:`TABLES`.
    sharp : float or ndarray, shape (n,)

    Returns
    -------
    ndarray, shape (n,)
    """
    s = np.clip(sharp, 0.0, 1.0)
    return (1.0 - s) * np.sin(2 * np.pi * cycles) + s * shaped(cycles, TABLES[name])


def add(out: np.ndarray, field: np.ndarray, src: np.ndarray, start: int = 0) -> None:
    """``out[:, start:start+len(src)] += field[:, None] * src``, in chunks, clipped to
    ``out``.

    Parameters
    ----------
    out : ndarray of float32, shape (21, n)
    field : ndarray, shape (21,)
    src : ndarray, shape (m,)
    start : int
        May be negative (the part before 0 is dropped).
    """
    if start < 0:
        src, start = src[-start:], 0
    m = min(src.size, out.shape[1] - start)
    if m <= 0:
        return
    f = np.asarray(field, dtype=np.float32)[:, None]
    for a in range(0, m, CHUNK):
        b = min(m, a + CHUNK)
        out[:, start + a : start + b] += f * src[a:b].astype(np.float32)


def envelope(n: int, fs: float, on_s: float, off_s: float, rise_s: float,
             fall_s: float) -> np.ndarray:  # fmt: skip
    """A raised-cosine gate: 0 outside ``[on_s, off_s]``, 1 inside after the ramps.

    Returns
    -------
    ndarray, shape (n,)
    """
    t = np.arange(n) / fs
    up = np.clip((t - on_s) / max(rise_s, 1e-3), 0.0, 1.0)
    down = np.clip((off_s - t) / max(fall_s, 1e-3), 0.0, 1.0)
    return np.sin(0.5 * np.pi * np.minimum(up, down)) ** 2


def hann_burst(n_samp: int) -> np.ndarray:
    """A waxing-waning window (Hann), shape (n_samp,)."""
    return np.hanning(max(n_samp, 3))[:n_samp] if n_samp > 0 else np.zeros(0)


def poisson_times(rate, dt: float, rng, t0: float = 0.0) -> np.ndarray:
    """Event times of an inhomogeneous Poisson process given per-tick rates (events/s).

    Parameters
    ----------
    rate : ndarray, shape (m,)
        Rate in each tick of length ``dt`` seconds.

    Returns
    -------
    ndarray
        Sorted event times, seconds.
    """
    rate = np.asarray(rate, dtype=float)
    # counts and offsets from private streams: the caller's stream advances by a fixed
    # amount, and early events do not depend on the rates after them
    r_count, r_off = fork(rng, 2)
    k = r_count.poisson(np.clip(rate, 0.0, None) * dt)
    ticks = np.repeat(np.arange(rate.size), k)
    return np.sort(t0 + (ticks + r_off.random(ticks.size)) * dt)


def place(train: np.ndarray, t_s: float, fs: float, wave: np.ndarray) -> None:
    """Add ``wave`` into the 1-D ``train`` starting at time ``t_s`` (clipped)."""
    a = int(round(t_s * fs))
    b = min(train.size, a + wave.size)
    if b <= max(a, 0):
        return
    lo = max(0, -a)
    train[max(a, 0) : b] += wave[lo : b - a]


def muscle_noise(n: int, fs: float, rng) -> np.ndarray:
    """Surface EMG: band-limited noise (about 20 Hz to 150 Hz or 0.45 ``fs``), heavy-tailed
    (overlapping motor-unit potentials of varying size), unit variance.

    Returns
    -------
    ndarray, shape (n,)
    """
    if n <= 0:
        return np.zeros(0)
    hi = min(150.0, 0.45 * fs)
    lo = min(20.0, 0.5 * hi)
    sos = signal.butter(2, [lo, hi], btype="bandpass", fs=fs, output="sos")
    w = signal.sosfilt(sos, rng.standard_normal(n) * (0.6 + np.abs(rng.standard_normal(n))))
    return w / (np.std(w) + 1e-12)


def fork(rng, k: int) -> list:
    """``k`` independent generators drawn from ``rng``: one per feature or per event, so
    that what one draws (its event count depends on the state path) never shifts another's
    draws, and a seizure changes nothing before itself."""
    return [np.random.default_rng(int(s)) for s in rng.integers(0, 2**63 - 1, size=k)]
