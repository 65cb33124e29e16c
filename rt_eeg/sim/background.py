"""Background EEG: coloured noise in blocks, behavioural states, rhythms, sleep transients.

The background is a sum of stationary coloured-noise sources (broadband 1/f, delta, theta,
posterior alpha, beta, scalp muscle tone), each mixed onto the 21 electrodes by a spatial
map and scaled by a slowly varying envelope from the :class:`Timeline` (awake eyes open or
closed, drowsy, asleep). Sources are FIR-filtered white noise computed by overlap-save
FFT convolution, so consecutive blocks join without a seam and memory stays bounded
whatever the recording length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.fft
from scipy.signal import lfilter

from rt_eeg.sim.layout import DIST, EIDX, N_ELECTRODES, distances_to
from rt_eeg.sim.profile import PatientProfile

#: Rate (Hz) of the slow control signals (state weights, envelopes).
CTRL_SFREQ = 10.0
#: Length of the colouring FIR filters (s): resolves the spectrum down to about 0.25 Hz.
FIR_S = 4.0


# --------------------------------------------------------------------------------------------
# coloured noise


def design_fir(amplitude, sfreq: float, n_taps: int) -> np.ndarray:
    """Linear-phase FIR whose magnitude response follows ``amplitude(f)``, unit output power.

    Parameters
    ----------
    amplitude : callable
        ``f (Hz, array) -> |H(f)|`` (array of the same shape).
    sfreq : float
    n_taps : int

    Returns
    -------
    np.ndarray
        ``(n_taps,)`` float64 with ``sum(h**2) == 1`` (white noise in, unit variance out).
    """
    f = np.fft.rfftfreq(n_taps, 1.0 / sfreq)
    h = np.fft.irfft(amplitude(f), n_taps)
    h = np.roll(h, n_taps // 2) * np.blackman(n_taps)
    return h / np.sqrt(np.sum(h**2))


def one_over_f(slope: float, f_knee: float = 0.5, f_high: float = 90.0):
    """Amplitude ``f**(-slope/2)`` (power 1/f^slope), rolled off below ``f_knee`` and above
    ``f_high`` (the amplifier's band)."""

    def amp(f):
        fk = np.maximum(f, 1e-3)
        a = np.maximum(fk, f_knee) ** (-slope / 2.0)
        a = a * (fk / f_knee) ** 2 / (1.0 + (fk / f_knee) ** 2)  # 2nd-order high-pass
        return a / np.sqrt(1.0 + (fk / f_high) ** 8)

    return amp


def gaussian_band(fc: float, bw: float, f_high: float = 1e9):
    """Amplitude of a Gaussian bump centred on ``fc`` with standard deviation ``bw`` (Hz)."""

    def amp(f):
        a = np.exp(-0.5 * ((f - fc) / bw) ** 2)
        return np.where(f < f_high, a, 0.0)

    return amp


def band(lo: float, hi: float, order: int = 4):
    """Smooth band-pass amplitude between ``lo`` and ``hi`` Hz (Butterworth-like edges)."""

    def amp(f):
        fk = np.maximum(f, 1e-3)
        return 1.0 / np.sqrt((1.0 + (lo / fk) ** (2 * order)) * (1.0 + (fk / hi) ** (2 * order)))

    return amp


class BlockNoise:
    """Continuous coloured Gaussian noise, produced block by block.

    Each output column is white noise convolved with one of a few FIR filters; the last
    ``n_taps - 1`` white samples of a block are carried into the next one (overlap-save),
    so the output of any block sequence equals one long convolution.

    Parameters
    ----------
    kernels : np.ndarray
        ``(n_kernels, n_taps)`` FIR filters.
    columns : array-like of int
        Kernel index of each output column (``n_columns``).
    rng : np.random.Generator
    """

    def __init__(self, kernels: np.ndarray, columns, rng: np.random.Generator):
        self.kernels = np.asarray(kernels, dtype=np.float64)
        self.columns = np.asarray(columns, dtype=np.intp)
        self.n_taps = self.kernels.shape[1]
        self.rng = rng
        k = len(self.columns)
        # a warm start: the first block is preceded by noise like every other block
        self._tail = rng.standard_normal((k, self.n_taps - 1), dtype=np.float32)
        self._spectra: dict[int, np.ndarray] = {}

    def _spectrum(self, nfft: int) -> np.ndarray:
        if nfft not in self._spectra:
            spec = scipy.fft.rfft(self.kernels, nfft, axis=1).astype(np.complex64)
            self._spectra[nfft] = spec[self.columns]
        return self._spectra[nfft]

    def next(self, n: int) -> np.ndarray:
        """The next ``n`` samples: ``(n_columns, n)`` float32."""
        white = self.rng.standard_normal((len(self.columns), n), dtype=np.float32)
        x = np.concatenate([self._tail, white], axis=1)
        self._tail = x[:, -(self.n_taps - 1) :]
        nfft = scipy.fft.next_fast_len(x.shape[1], real=True)
        y = scipy.fft.irfft(scipy.fft.rfft(x, nfft, axis=1) * self._spectrum(nfft), nfft, axis=1)
        return y[:, self.n_taps - 1 : self.n_taps - 1 + n]


# --------------------------------------------------------------------------------------------
# slow control signals


def lowpass_noise(rng: np.random.Generator, n: int, tau_s: float) -> np.ndarray:
    """Unit-variance Gaussian AR(1) noise at :data:`CTRL_SFREQ` with time constant ``tau_s``."""
    a = math.exp(-1.0 / (tau_s * CTRL_SFREQ))
    x = rng.standard_normal(n) * math.sqrt(1.0 - a * a)
    y, _ = lfilter([1.0], [1.0, -a], x, zi=[a * rng.standard_normal()])
    return y


def smooth(x: np.ndarray, win: int) -> np.ndarray:
    """Centred moving average over ``win`` samples (edges use the available samples)."""
    if win <= 1:
        return x.astype(np.float64)
    c = np.concatenate([[0.0], np.cumsum(x, dtype=np.float64)])
    n = len(x)
    lo = np.clip(np.arange(n) - win // 2, 0, n)
    hi = np.clip(np.arange(n) + (win - win // 2), 0, n)
    return (c[hi] - c[lo]) / (hi - lo)


STATES = ("awake", "drowsy", "sleep")


@dataclass
class Timeline:
    """Behavioural state and background envelopes of one recording, at :data:`CTRL_SFREQ`.

    Attributes
    ----------
    awake, drowsy, sleep : np.ndarray
        ``(n_ctrl,)`` state weights in [0, 1] summing to 1 (smooth transitions).
    eyes_closed : np.ndarray
        ``(n_ctrl,)`` in [0, 1]; meaningful while awake.
    env : dict of str -> np.ndarray
        ``(n_ctrl,)`` gains of the background components ('bb', 'delta', 'theta', 'alpha',
        'beta', 'emg').
    segments : list of (state, start_s, stop_s)
        The state sequence before smoothing.
    mods : dict of str -> np.ndarray or bool
        The slow modulators the envelopes were made from (``wax``, ``tone``, ``slow``,
        ``awake_alpha``), kept so :meth:`reweight` can remake them.
    arousals : list
        Arousals applied by :func:`rt_eeg.sim.arousals.apply_arousals` (family ``arousal``).
    """

    awake: np.ndarray
    drowsy: np.ndarray
    sleep: np.ndarray
    eyes_closed: np.ndarray
    env: dict
    segments: list
    mods: dict = field(default_factory=dict, repr=False)
    arousals: list = field(default_factory=list)

    @classmethod
    def draw(
        cls,
        duration: float,
        profile: PatientProfile,
        rng: np.random.Generator,
        *,
        state: str | None = None,
        states: tuple[str, ...] | None = None,
        awake_alpha: bool = True,
    ) -> Timeline:
        """Draw a state sequence and envelopes for ``duration`` seconds.

        Parameters
        ----------
        state : str, optional
            Force one state ('awake', 'drowsy', 'sleep') for the whole recording.
        states : tuple of str, optional
            Draw the sequence among these states only (default: all three).
        awake_alpha : bool
            Whether the awake state carries posterior alpha.
        """
        n = int(math.ceil(duration * CTRL_SFREQ)) + 2
        s = profile.sleepiness
        segments = []
        if state is not None:
            if state not in STATES:
                raise ValueError(f"unknown state {state!r} (expected one of {STATES})")
            segments.append((state, 0.0, duration))
        elif states is not None:
            segments = _restricted_segments(duration, s, states, rng)
        else:
            cur = str(rng.choice(STATES, p=[1.0 - 0.6 * s, 0.3 * s, 0.3 * s]))
            t = 0.0
            while t < duration:
                mean = {"awake": 600.0 * (1.5 - s), "drowsy": 150.0, "sleep": 900.0 * (0.4 + s)}
                length = float(rng.gamma(2.0, mean[cur] / 2.0)) + 20.0
                segments.append((cur, t, min(duration, t + length)))
                t += length
                if cur == "awake":
                    cur = "drowsy" if rng.random() < 0.3 + 0.6 * s else "awake"
                elif cur == "drowsy":
                    cur = "sleep" if rng.random() < 0.3 + 0.6 * s else "awake"
                else:
                    cur = "drowsy" if rng.random() < 0.6 else "awake"
        awake, drowsy, sleep = state_weights(segments, n)

        # eyes: alternating open/closed periods while awake
        eyes = np.zeros(n)
        t, closed = 0.0, bool(rng.random() < 0.5)
        while t < duration + 1.0:
            length = float(rng.uniform(5.0, 90.0))
            if closed:
                eyes[int(t * CTRL_SFREQ) : int((t + length) * CTRL_SFREQ) + 1] = 1.0
            t += length
            closed = not closed
        eyes = np.clip(smooth(eyes, int(0.6 * CTRL_SFREQ)), 0.0, 1.0)

        mods = {
            "wax": np.exp(0.45 * lowpass_noise(rng, n, 2.5) - 0.1),
            "tone": np.exp(0.5 * lowpass_noise(rng, n, 30.0)),
            "slow": np.exp(0.2 * lowpass_noise(rng, n, 60.0)),
            "awake_alpha": awake_alpha,
        }
        return cls(awake, drowsy, sleep, eyes, _envelopes(awake, drowsy, sleep, eyes, mods),
                   segments, mods)  # fmt: skip

    def reweight(self, awake, drowsy, sleep, segments: list) -> None:
        """Replace the state weights (``(n_ctrl,)`` each, summing to 1) and the state
        sequence, and remake every envelope from them (before anything attenuates one)."""
        self.awake, self.drowsy, self.sleep = awake, drowsy, sleep
        self.segments = segments
        self.env = _envelopes(awake, drowsy, sleep, self.eyes_closed, self.mods)

    def attenuate(
        self, name: str, start: float, stop: float, depth: float, recover_s: float, onset_s=0.0
    ):
        """Multiply envelope ``name`` by ``1 - depth`` over [start, stop], recovering
        linearly over ``recover_s`` seconds after ``stop`` (e.g. alpha during a seizure);
        ``onset_s`` > 0 fades it out over that many seconds from ``start``."""
        n = len(self.awake)
        t = np.arange(n) / CTRL_SFREQ
        g = np.ones(n)
        inside = (t >= start) & (t <= stop)
        g[inside] = 1.0 - depth
        if onset_s > 0:
            g[inside] = 1.0 - depth * np.clip((t[inside] - start) / onset_s, 0.0, 1.0)
        after = (t > stop) & (t < stop + recover_s)
        g[after] = 1.0 - depth * (1.0 - (t[after] - stop) / max(recover_s, 1e-6))
        self.env[name] = (self.env[name] * g).astype(np.float32)

    def at(self, name: str, t: np.ndarray) -> np.ndarray:
        """Envelope ``name`` at times ``t`` (s), linearly interpolated: ``(n,)`` float32."""
        src = self.env[name] if name in self.env else getattr(self, name)
        return np.interp(t * CTRL_SFREQ, np.arange(len(src)), src).astype(np.float32)

    def state_at(self, t: float) -> str:
        """The dominant state at time ``t`` (s)."""
        i = min(int(t * CTRL_SFREQ), len(self.awake) - 1)
        return STATES[int(np.argmax([self.awake[i], self.drowsy[i], self.sleep[i]]))]


def _envelopes(awake, drowsy, sleep, eyes, mods: dict) -> dict:
    """Background gains from the state weights, eyes and slow modulators: ``(n_ctrl,)`` each."""
    wax, tone, slow = mods["wax"], mods["tone"], mods["slow"]
    env = {
        "bb": slow * (awake + 1.1 * drowsy + 1.35 * sleep),
        "delta": awake * 0.25 + drowsy * 0.55 + sleep * 1.0 * slow,
        "theta": (awake * 0.35 + drowsy * 1.0 + sleep * 0.5) * slow,
        "alpha": (awake * (0.25 + 0.75 * eyes) * float(mods["awake_alpha"]) + drowsy * 0.3) * wax,
        "beta": awake * 1.0 + drowsy * 0.8 + sleep * 0.5,
        "emg": awake * (0.4 + 0.6 * (1.0 - eyes)) * tone + 0.15,
    }
    return {k: v.astype(np.float32) for k, v in env.items()}


def state_onehot(segments: list, n: int) -> np.ndarray:
    """``(3, n)`` indicator of each state at :data:`CTRL_SFREQ` (boundaries overlap by a
    sample or two; samples no segment covers are 'awake')."""
    onehot = np.zeros((3, n))
    for name, a, b in segments:
        onehot[STATES.index(name), int(a * CTRL_SFREQ) : int(math.ceil(b * CTRL_SFREQ)) + 2] = 1
    onehot[0, onehot.sum(axis=0) == 0] = 1.0
    return onehot


def smooth_states(onehot: np.ndarray, smooth_s: float) -> np.ndarray:
    """State weights from an indicator (:func:`state_onehot`, or a slice of one), each
    boundary smoothed over ``smooth_s`` seconds; columns sum to 1. The indicator holds 0 and 1
    only, so its running sums are exact: a slice gives the same values as the whole array
    wherever the smoothing window stays inside the slice."""
    w = np.stack([smooth(row, int(smooth_s * CTRL_SFREQ)) for row in onehot])
    return w / w.sum(axis=0, keepdims=True)


#: Seconds over which the state mixture changes at a state boundary.
STATE_SMOOTH_S = 20.0


def state_weights(segments: list, n: int, smooth_s: float = STATE_SMOOTH_S) -> np.ndarray:
    """``(3, n)`` state weights at :data:`CTRL_SFREQ` from a state sequence, each boundary
    smoothed over ``smooth_s`` seconds (columns sum to 1)."""
    return smooth_states(state_onehot(segments, n), smooth_s)


def _restricted_segments(duration: float, s: float, states, rng) -> list:
    """State sequence as :meth:`Timeline.draw` draws it, among ``states`` only (falls back to
    'awake' when none is given)."""
    allowed = [x for x in STATES if x in states] or ["awake"]
    p0 = np.array([1.0 - 0.6 * s, 0.3 * s, 0.3 * s])[[STATES.index(x) for x in allowed]]
    cur = str(rng.choice(allowed, p=p0 / p0.sum()))
    segments, t = [], 0.0
    mean = {"awake": 600.0 * (1.5 - s), "drowsy": 150.0, "sleep": 900.0 * (0.4 + s)}
    while t < duration:
        length = float(rng.gamma(2.0, mean[cur] / 2.0)) + 20.0
        segments.append((cur, t, min(duration, t + length)))
        t += length
        deeper = rng.random() < (0.3 + 0.6 * s if cur != "sleep" else 0.4)
        order = list(STATES) if deeper else list(reversed(STATES))
        nxt = [x for x in order[order.index(cur) + 1 :] if x in allowed]
        cur = nxt[0] if nxt else cur
    return segments


# --------------------------------------------------------------------------------------------
# spatial maps and the background mixture


def gaussian_map(center: str, sigma: float) -> np.ndarray:
    """``(21,)`` spatial weights exp(-d^2 / 2 sigma^2) around a named site."""
    d = distances_to(center)
    return np.exp(-0.5 * (d / sigma) ** 2)


#: Electrodes over scalp muscles (frontalis, temporalis) that carry muscle tone.
EMG_ELECTRODES = ("FP1", "FP2", "F7", "F8", "T3", "T4", "T5", "T6", "A1", "A2")


class Background:
    """The background mixture of one recording.

    Parameters
    ----------
    profile : PatientProfile
    sfreq : float
    rng : np.random.Generator
        Used once, to seed the noise sources and draw the recording's small variations.
    extra : object, optional
        Adds background families: anything with ``adjust_blocks(blocks) -> blocks`` over
        ``(envelope, kernel, map (k, 21))`` triples (see :class:`rt_eeg.sim.variety.Variety`).
    """

    def __init__(self, profile: PatientProfile, sfreq: float, rng: np.random.Generator,
                 extra=None):  # fmt: skip
        self.sfreq = float(sfreq)
        p = profile
        nyq = sfreq / 2.0
        n_taps = int(round(FIR_S * sfreq)) | 1
        alpha_f = float(np.clip(p.alpha_freq + rng.normal(0.0, 0.2), 8.2, 11.9))
        theta_f = float(rng.uniform(5.0, 7.0))
        kernels = [
            design_fir(one_over_f(p.slope, f_high=min(90.0, 0.8 * nyq)), sfreq, n_taps),
            design_fir(band(0.4, 3.0, order=3), sfreq, n_taps),
            design_fir(gaussian_band(theta_f, 1.0), sfreq, n_taps),
            design_fir(gaussian_band(alpha_f, 0.45), sfreq, n_taps),
            design_fir(gaussian_band(19.0, 4.0), sfreq, n_taps),
            design_fir(band(25.0, min(80.0, 0.8 * nyq), order=3), sfreq, n_taps),
        ]
        gain = np.asarray(p.elec_gain)
        blocks: list[tuple[str, int, np.ndarray]] = []  # (envelope, kernel, map (k, 21))

        # broadband: 21 sources with a smooth (Gaussian) spatial correlation plus a small
        # local part, so neighbouring electrodes correlate about 0.6-0.8 as on the scalp
        corr = 0.9 * np.exp(-0.5 * (DIST / p.corr_len) ** 2) + 0.1 * np.eye(N_ELECTRODES)
        chol = np.linalg.cholesky(corr)
        blocks.append(("bb", 0, chol.T * (p.bg_uv * gain)[None, :]))
        # delta: broad frontal/posterior sources, frontal-dominant
        m = np.stack(
            [
                gaussian_map(c, 0.8) * w
                for c, w in (("F3", 1.0), ("F4", 1.0), ("P3", 0.7), ("P4", 0.7))
            ]
        )
        blocks.append(("delta", 1, m * p.delta_uv * gain / np.sqrt(2.0)))
        m = np.stack([gaussian_map(c, 0.7) for c in ("FZ", "CZ", "T3", "T4")])
        blocks.append(("theta", 2, m * p.theta_uv * gain / np.sqrt(2.0)))
        asym = p.alpha_asym + rng.normal(0.0, 0.03)
        m = np.stack(
            [
                gaussian_map("O1", 0.42) * (1 + asym),
                gaussian_map("O2", 0.42) * (1 - asym),
                gaussian_map("PZ", 0.5) * 0.6,
            ]
        )
        blocks.append(("alpha", 3, m * p.alpha_uv * gain / 1.2))
        m = np.stack([gaussian_map(c, 0.6) for c in ("F3", "F4", "C3", "C4")])
        blocks.append(("beta", 4, m * p.beta_uv * gain / np.sqrt(2.0)))
        emg_idx = [EIDX[e] for e in EMG_ELECTRODES]
        m = np.zeros((len(emg_idx), N_ELECTRODES))
        m[np.arange(len(emg_idx)), emg_idx] = rng.uniform(0.5, 2.0, len(emg_idx))
        blocks.append(("emg", 5, m))
        if extra is not None:
            blocks = extra.adjust_blocks(blocks)

        self.env_names = [b[0] for b in blocks]
        self.sizes = [b[2].shape[0] for b in blocks]
        columns = np.concatenate([[b[1]] * b[2].shape[0] for b in blocks])
        self.mixing = np.concatenate([b[2] for b in blocks]).astype(np.float32)  # (K, 21)
        self.noise = BlockNoise(np.stack(kernels), columns, rng)
        self.alpha_freq = alpha_f

    def render(self, timeline: Timeline, t: np.ndarray) -> np.ndarray:
        """The next block of background potentials.

        Parameters
        ----------
        timeline : Timeline
        t : np.ndarray
            ``(n,)`` sample times (s); blocks must be requested in order without gaps.

        Returns
        -------
        np.ndarray
            ``(n, 21)`` float32 microvolts.
        """
        src = self.noise.next(len(t))  # (K, n)
        row = 0
        for name, k in zip(self.env_names, self.sizes, strict=True):
            src[row : row + k] *= timeline.at(name, t)[None, :]
            row += k
        return src.T @ self.mixing


# --------------------------------------------------------------------------------------------
# sleep graphoelements (rendered as transients)

_SPINDLE_MAP = (gaussian_map("CZ", 0.55) + 0.5 * gaussian_map("FZ", 0.5)).astype(np.float32)
_SPINDLE_MAP /= _SPINDLE_MAP.max()
_VERTEX_MAP = gaussian_map("CZ", 0.6).astype(np.float32)
_KCOMPLEX_MAP = (gaussian_map("FZ", 0.7) + 0.8 * gaussian_map("CZ", 0.7)).astype(np.float32)
_KCOMPLEX_MAP /= _KCOMPLEX_MAP.max()
_ALL = np.arange(N_ELECTRODES)


def render_spindle(tr, sfreq: float):
    """Sleep spindle: ``param`` Hz (12-14) waxing-waning burst, central maximum."""
    n = max(4, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    y = np.sin(2 * np.pi * tr.param * t + (tr.seed % 628) / 100.0) * np.hanning(n)
    return _ALL, (tr.amp * y[:, None] * _SPINDLE_MAP[None, :]).astype(np.float32)


def render_vertex(tr, sfreq: float):
    """Vertex sharp wave of drowsiness: surface-negative, ~200 ms, central."""
    n = max(4, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq - tr.duration / 2
    y = -np.exp(-0.5 * (t / 0.045) ** 2) + 0.35 * np.exp(-0.5 * ((t - 0.1) / 0.06) ** 2)
    return _ALL, (tr.amp * y[:, None] * _VERTEX_MAP[None, :]).astype(np.float32)


def render_kcomplex(tr, sfreq: float):
    """K-complex: sharp negative wave then a slow positive one (~1 s), frontocentral."""
    n = max(4, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    y = -np.exp(-0.5 * ((t - 0.25) / 0.08) ** 2) + 0.6 * np.exp(-0.5 * ((t - 0.6) / 0.15) ** 2)
    return _ALL, (tr.amp * y[:, None] * _KCOMPLEX_MAP[None, :]).astype(np.float32)


SLEEP_RENDERERS = {"spindle": render_spindle, "vertex": render_vertex, "kcomplex": render_kcomplex}


def draw_sleep_transients(duration: float, profile: PatientProfile, timeline: Timeline, rng):
    """Spindles and K-complexes in sleep, vertex waves in drowsiness."""
    from rt_eeg.sim.artifacts import poisson_times
    from rt_eeg.sim.transients import Transient

    out = []
    for t in poisson_times(rng, 6.0 / 60.0 * timeline.sleep, duration):
        out.append(Transient("spindle", float(t), float(rng.uniform(0.6, 1.8)),
                             float(profile.spindle_uv * rng.uniform(0.6, 1.3)), "",
                             int(rng.integers(2**31)), float(profile.spindle_freq + rng.normal(0, 0.3))))  # fmt: skip
    for t in poisson_times(rng, 1.5 / 60.0 * timeline.sleep, duration):
        out.append(Transient("kcomplex", float(t), 1.0, float(rng.uniform(60.0, 150.0))))
    for t in poisson_times(rng, 3.0 / 60.0 * timeline.drowsy, duration):
        out.append(Transient("vertex", float(t), 0.4, float(rng.uniform(40.0, 100.0))))
    return [tr for tr in out if tr.start < duration]
