"""LFCC features: a streaming extractor with circular buffers and its vectorised batch twin.

Twenty-six features per channel per 0.1 s frame (25 samples at 250 Hz), after the online
TUH/NEDC system (Harati et al. 2015; Shah et al.): 8 absolute features (log energy and 7
linear-frequency cepstral coefficients), 1 differential energy, 9 deltas of those 9 and
8 delta-deltas of the 8 absolute ones. The parameters are fields of :class:`FeatureConfig`,
whose docstring is the one place where each value is stated and justified; this docstring
describes the algorithm that uses them.

Algorithm (defaults in brackets)
--------------------------------
Frame ``i`` covers samples ``[25 i, 25 i + 25)`` and is stamped ``times[i] = i * 0.1`` s (its
first sample); ``n_frames = n_samples // 25`` (a trailing partial frame is ignored).

1. *Analysis window.* The 50 samples ``[25 i - 13, 25 i + 37)``: the frame plus 13 samples
   before and 12 after (centred on the frame to half a sample; the odd sample goes to the
   past, which costs no delay). Streaming keeps the sample history in a per-channel ring
   buffer of 75 samples (0.3 s) (:class:`rt_eeg.buffer.RingBuffer`).
2. *Absolute features.* The window's mean is removed (a DC offset in the recording would
   otherwise dominate both energy and the lowest filter). Energy ``E = log(max(mean(x^2),
   floor))`` on the untapered window (microvolts squared). The window is tapered (Hann),
   zero-padded to 64 points, and its power spectrum ``|X_k|^2 / sum(w^2)`` (a white signal of
   variance s^2 gives s^2 in every bin) is weighted by 8 triangular filters spaced linearly
   between 0.5 and 40 Hz, each normalised to unit weight sum (so each output is a weighted
   mean power in microvolts squared). Then ``log(max(., floor))`` and an orthonormal DCT-II;
   coefficients 1..7 are kept and coefficient 0 is replaced by ``E``:
   ``[E, c1, ..., c7]``.
3. *Differential energy.* ``max(E) - min(E)`` over the 9 frames (0.9 s) ending at the frame
   (trailing, so it adds no lookahead; frames before the first count as the first).
4. *Deltas* of the 9 static features ``S = [E, c1..c7, dE]`` by the HTK regression
   ``d_t = sum_{n=1..N} n (S_{t+n} - S_{t-n}) / (2 sum_{n=1..N} n^2)`` with ``N = 4``
   (9 frames, 0.9 s), and *delta-deltas* of the 8 absolute ones as the same regression of
   their deltas with ``N = 1`` (3 frames, 0.3 s).
5. *Edges.* Signal before the first sample and after the last whole frame is the signal
   reflected about its end samples (``numpy.pad(mode='reflect')``: no step, no
   zero-energy frames); static features before frame 0 / after the last frame are copies of
   the first / last frame (HTK convention), and deltas there come from those copies.
   Batch and :meth:`StreamingFeatures.flush` pad in exactly the same way.

Output layout per channel, see :data:`FEATURE_NAMES`::

    [E, c1..c7, dE,  d(E), d(c1..c7), d(dE),  dd(E), dd(c1..c7)]     8 + 1 + 9 + 8 = 26

Delay
-----
The features of the frame stamped ``t`` use samples up to and including the one at
``t + delay_s``: 36 samples to the window's end, plus 4 frames of delta lookahead plus 1
frame of delta-delta lookahead on top of it (the regressions compound), and nothing for the
trailing differential energy: ``(36 + 5 * 25) / 250 = 0.644 s`` (:data:`FEATURE_DELAY_S`).
That is 0.548 s of signal beyond the frame's own 0.1 s; the original system had 1.1 s. A
frame's features are therefore emitted by :meth:`StreamingFeatures.push` when the frame 6
frames later arrives (:attr:`StreamingFeatures.lag_frames`).

Streaming equals batch
----------------------
Both paths run the same functions on identically laid-out float32 arrays, and every step is
either elementwise, a reduction along a contiguous last axis, or a row-wise FFT
(``scipy.fft.rfft``, verified row-independent), so each frame gets the same arithmetic however
the signal is chunked. The filterbank and DCT are written as sequential multiply-adds rather
than BLAS matrix products for that reason: BLAS results depend on the number of rows.
The result is bit-identical across chunkings (tested), well inside the 1e-4 contract.

Batch: the windows of all channels are strided views of the (reflection-padded) signal
(``sliding_window_view``); they go through the stages above in blocks of 256 frames, one
``rfft`` call per block for every frame and channel in it (a 10 min, 22-channel recording
runs at several thousand times real time on one core; ``tools/bench_features.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from rt_eeg.buffer import RingBuffer
from rt_eeg.errors import RtEegError

WINDOWS = ("hann", "hamming", "boxcar")
_TOML_TABLE = "features"
#: Frames per batch block (one FFT call each, all channels): 256 frames x 22 channels keep
#: every temporary in cache, about 1.5x faster than one call over a whole 10 min recording,
#: and memory stays bounded for recordings of any length.
_BATCH_BLOCK_FRAMES = 256


@dataclass(frozen=True)
class FeatureConfig:
    """Every LFCC parameter. Saved as ``features.toml`` beside each trained model.

    Equality compares all fields; the decoder refuses a model whose saved configuration is not
    equal to the running one.

    Parameters
    ----------
    sfreq : float
        Sampling rate of the input in Hz [250.0].
    frame_samples : int
        Samples per frame [25 = 0.1 s]; one feature vector per frame.
    window_samples : int
        Analysis window [50 = 0.2 s], centred on the frame: ``(window - frame + 1) // 2`` = 13
        samples before the frame and 12 after (the odd sample goes to the past: no delay).
    buffer_samples : int
        Capacity of the per-channel sample ring buffer [75 = 0.3 s = window + frame]: the
        history a frame arrival needs (window of the previous frame plus the new frame).
    window : {'hann', 'hamming', 'boxcar'}
        Taper (periodic form) ['hann']. Hann's sidelobes fall 18 dB/octave, so the steep
        1/f EEG spectrum leaks little low-frequency power into the upper filters (Hamming's
        fall 6 dB/octave). Its main lobe is +-10 Hz wide for a 0.2 s window, which sets the
        true spectral resolution whatever the FFT size.
    n_fft : int
        FFT size [64]: the 50-sample window zero-padded to the next power of two; bins every
        3.9 Hz, which samples the +-10 Hz main lobe finely enough for 8.8 Hz-wide triangles.
        Larger sizes only interpolate the same spectrum (at twice the cost).
    n_filters : int
        Triangular filters [8], spaced linearly (equal centre spacing of 4.4 Hz, each 8.8 Hz
        wide at the base): about the number of independent spectral values a 0.2 s window
        resolves in the band, and enough for cepstra c0..c7.
    f_min, f_max : float
        Lower and upper edge in Hz of the filterbank [0.5, 40.0]. 0.5 Hz is the clinical EEG
        high-pass (below it: drift and electrode offsets; the DC bin gets no weight). 40 Hz
        covers delta to low gamma, where seizure rhythms live, and the beta/low-gamma part of
        muscle artefact; stopping there keeps the whole +-10 Hz main lobe of 50 Hz or 60 Hz
        mains interference out of every filter, which matters because mains level differs
        from site to site (a nuisance a model should not learn).
    n_cepstra : int
        Cepstral coefficients kept after c0 [7]: features ``[E, c1..c7]``. The orthonormal
        DCT-II of the 8 log filter outputs, c0 (their mean) replaced by the log energy.
    remove_mean : bool
        Subtract each analysis window's mean before energy and spectrum [True].
    log_floor : float
        Floor in microvolts squared applied before every log [1e-6, an RMS of 1 nV]: far
        below the quantisation noise of clinical EEG amplifiers (about 1e-3 uV^2) and far
        above float32 rounding residue, so it only bites on flat (disconnected) channels,
        which then give a finite constant instead of -inf.
    diff_energy_frames : int
        Span of the differential energy ``max(E) - min(E)`` in frames [9 = 0.9 s], trailing
        (ending at the frame): a centred span would add 0.4 s of delay for no gain.
    delta_half_width : int
        ``N`` of the delta regression [4]: 2N + 1 = 9 frames = 0.9 s, centred (HTK formula
        ``d_t = sum_n n (c_{t+n} - c_{t-n}) / (2 sum_n n^2)``), lookahead N frames.
    accel_half_width : int
        ``N`` of the delta-delta regression on the deltas of the 8 absolute features [1]:
        3 frames = 0.3 s, lookahead N frames on top of the deltas' lookahead.

    Notes
    -----
    Edge padding (reflected signal, replicated first/last static frame) is fixed; see the
    module docstring. :attr:`delay_s` gives the resulting algorithmic delay (0.644 s).
    """

    sfreq: float = 250.0
    frame_samples: int = 25
    window_samples: int = 50
    buffer_samples: int = 75
    window: str = "hann"
    n_fft: int = 64
    n_filters: int = 8
    f_min: float = 0.5
    f_max: float = 40.0
    n_cepstra: int = 7
    remove_mean: bool = True
    log_floor: float = 1e-6
    diff_energy_frames: int = 9
    delta_half_width: int = 4
    accel_half_width: int = 1

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            want = _FIELD_TYPES[f.name]
            is_bool = isinstance(value, (bool, np.bool_))
            if want is bool and is_bool:
                value = bool(value)
            elif want is float and isinstance(value, (int, float, np.integer, np.floating)):
                value = None if is_bool else float(value)
            elif want is int and isinstance(value, (int, np.integer)):
                value = None if is_bool else int(value)
            elif want is not str or not isinstance(value, str):
                value = None
            if value is None:
                raise RtEegError(
                    f"feature setting {f.name} must be {want.__name__}, got {getattr(self, f.name)!r}"
                )
            object.__setattr__(self, f.name, value)
        problems = []
        if not (self.sfreq > 0 and math.isfinite(self.sfreq)):
            problems.append(f"sfreq must be positive, got {self.sfreq}")
        if self.frame_samples < 1:
            problems.append(f"frame_samples must be >= 1, got {self.frame_samples}")
        if self.window_samples < self.frame_samples:
            problems.append(
                f"window_samples ({self.window_samples}) must be >= frame_samples "
                f"({self.frame_samples})"
            )
        if self.buffer_samples < self.window_samples:
            problems.append(
                f"buffer_samples ({self.buffer_samples}) must be >= window_samples "
                f"({self.window_samples})"
            )
        if self.window not in WINDOWS:
            problems.append(f"window must be one of {WINDOWS}, got {self.window!r}")
        if self.n_fft < self.window_samples:
            problems.append(
                f"n_fft ({self.n_fft}) must be >= window_samples ({self.window_samples})"
            )
        if not 0 <= self.f_min < self.f_max <= self.sfreq / 2:
            problems.append(
                f"need 0 <= f_min < f_max <= sfreq/2, got f_min={self.f_min}, f_max={self.f_max}"
            )
        if not 1 <= self.n_cepstra < self.n_filters:
            problems.append(
                f"need 1 <= n_cepstra < n_filters, got n_cepstra={self.n_cepstra}, "
                f"n_filters={self.n_filters}"
            )
        if not (self.log_floor > 0 and math.isfinite(self.log_floor)):
            problems.append(f"log_floor must be positive, got {self.log_floor}")
        if self.diff_energy_frames < 1:
            problems.append(f"diff_energy_frames must be >= 1, got {self.diff_energy_frames}")
        if self.delta_half_width < 1 or self.accel_half_width < 1:
            problems.append(
                "delta_half_width and accel_half_width must be >= 1, got "
                f"{self.delta_half_width} and {self.accel_half_width}"
            )
        if problems:
            raise RtEegError("invalid feature settings: " + "; ".join(problems))
        _check_filterbank(self)

    # -- derived quantities ----------------------------------------------------------
    @property
    def frame_s(self) -> float:
        """Frame length in seconds (0.1)."""
        return self.frame_samples / self.sfreq

    @property
    def window_before(self) -> int:
        """Samples of the analysis window before the frame (13)."""
        return (self.window_samples - self.frame_samples + 1) // 2

    @property
    def window_after(self) -> int:
        """Samples of the analysis window after the frame (12)."""
        return self.window_samples - self.frame_samples - self.window_before

    @property
    def n_static(self) -> int:
        """Absolute features plus differential energy (9)."""
        return self.n_cepstra + 2

    @property
    def n_features(self) -> int:
        """Features per channel per frame (26)."""
        return 2 * self.n_static + self.n_cepstra + 1

    @property
    def lookahead_frames(self) -> int:
        """Frames of static features after a frame that its dynamic features use (5)."""
        return self.delta_half_width + self.accel_half_width

    @property
    def lookahead_samples(self) -> int:
        """Offset from a frame's first sample to the last sample its features use (161)."""
        return (
            self.frame_samples - 1 + self.window_after + self.frame_samples * self.lookahead_frames
        )

    @property
    def delay_s(self) -> float:
        """Algorithmic delay in seconds (0.644): the features stamped ``t`` use samples up to
        and including the one at ``t + delay_s``."""
        return self.lookahead_samples / self.sfreq

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Names of the features in output order."""
        absolute = ["energy"] + [f"lfcc_{q}" for q in range(1, self.n_cepstra + 1)]
        static = [*absolute, "diff_energy"]
        return tuple(static + [f"d_{n}" for n in static] + [f"dd_{n}" for n in absolute])

    # -- serialisation ---------------------------------------------------------------
    def to_dict(self) -> dict:
        """Field values by name."""
        return dataclasses.asdict(self)

    def to_toml(self) -> str:
        """The configuration as a TOML document with one ``[features]`` table."""
        import tomli_w

        head = (
            "# rt-eeg LFCC feature settings (rt_eeg.features.FeatureConfig).\n"
            f"# Algorithmic delay: {self.delay_s:.3f} s; {self.n_features} features per channel "
            "per frame.\n"
        )
        return head + tomli_w.dumps({_TOML_TABLE: self.to_dict()})

    @classmethod
    def from_toml(cls, text: str, path: str | os.PathLike | None = None) -> FeatureConfig:
        """Parse :meth:`to_toml` output; every field must be present and no other.

        Raises
        ------
        RtEegError
            Malformed TOML, a missing or unknown key, or an invalid value (naming ``path``).
        """
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise RtEegError(f"not valid TOML ({err})", path) from None
        table = doc.get(_TOML_TABLE)
        if not isinstance(table, dict):
            raise RtEegError(f"no [{_TOML_TABLE}] table", path)
        names = [f.name for f in dataclasses.fields(cls)]
        missing = [n for n in names if n not in table]
        unknown = sorted(set(table) - set(names))
        if missing or unknown:
            parts = []
            if missing:
                parts.append("missing keys: " + ", ".join(missing))
            if unknown:
                parts.append("unknown keys: " + ", ".join(unknown))
            raise RtEegError(f"[{_TOML_TABLE}] table: " + "; ".join(parts), path)
        try:
            return cls(**{n: table[n] for n in names})
        except RtEegError as err:
            raise RtEegError(err.problem, path) from None

    def save(self, path: str | os.PathLike) -> None:
        """Write :meth:`to_toml` to ``path`` atomically."""
        from rt_eeg.io.atomic import write_text_atomic

        write_text_atomic(path, self.to_toml())

    @classmethod
    def load(cls, path: str | os.PathLike) -> FeatureConfig:
        """Read a configuration written by :meth:`save`."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RtEegError("file not found", path) from None
        except (OSError, UnicodeDecodeError) as err:
            raise RtEegError(f"cannot read feature settings ({err})", path) from None
        return cls.from_toml(text, path)


_FIELD_TYPES = {
    f.name: {"float": float, "int": int, "str": str, "bool": bool}[f.type]
    for f in dataclasses.fields(FeatureConfig)
}


# ----------------------------------------------------------------------------- constants


def _taper(name: str, n: int) -> np.ndarray:
    k = np.arange(n) / n  # periodic (DFT-even) form
    if name == "hann":
        return 0.5 - 0.5 * np.cos(2 * np.pi * k)
    if name == "hamming":
        return 0.54 - 0.46 * np.cos(2 * np.pi * k)
    return np.ones(n)


def _triangles(cfg: FeatureConfig) -> np.ndarray:
    """Triangular filters, ``(n_fft // 2 + 1, n_filters)`` float64, unit weight sum each."""
    edges = np.linspace(cfg.f_min, cfg.f_max, cfg.n_filters + 2)
    freqs = np.arange(cfg.n_fft // 2 + 1) * cfg.sfreq / cfg.n_fft
    lo, centre, hi = edges[:-2], edges[1:-1], edges[2:]
    rise = (freqs[:, None] - lo) / (centre - lo)
    fall = (hi - freqs[:, None]) / (hi - centre)
    weights = np.clip(np.minimum(rise, fall), 0.0, None)
    return weights


def _check_filterbank(cfg: FeatureConfig) -> None:
    empty = np.flatnonzero(_triangles(cfg).sum(axis=0) == 0)
    if len(empty):
        raise RtEegError(
            f"invalid feature settings: {len(empty)} of the {cfg.n_filters} filters between "
            f"{cfg.f_min} and {cfg.f_max} Hz contain no FFT bin (n_fft={cfg.n_fft}); use fewer "
            "filters or a larger n_fft"
        )


#: Features per channel per frame with the default configuration.
N_FEATURES: int = FeatureConfig().n_features
#: Names of the default features in output order.
FEATURE_NAMES: tuple[str, ...] = FeatureConfig().feature_names
#: Algorithmic delay of the default configuration in seconds (0.644).
FEATURE_DELAY_S: float = FeatureConfig().delay_s


@dataclass(frozen=True)
class _Kernel:
    """Precomputed float32 constants of one configuration."""

    taper: np.ndarray  # (window_samples,)
    bin_lo: int  # first FFT bin with a non-zero filter weight
    n_bins: int  # bins from bin_lo on that some filter uses
    # Tap j of every filter: bin offsets from bin_lo (taps, n_filters) and weights
    # (taps, n_filters, 1); weights include the 1/sum(w^2) power scaling and the unit-sum
    # normalisation; filters with fewer taps are padded with zero weights.
    tap_bins: np.ndarray
    tap_weights: np.ndarray
    dct: np.ndarray  # (n_filters, n_cepstra, 1): orthonormal DCT-II rows 1..n_cepstra
    inv_window: np.float32
    floor: np.float32


@functools.lru_cache(maxsize=8)
def _kernel(cfg: FeatureConfig) -> _Kernel:
    taper = _taper(cfg.window, cfg.window_samples)
    tri = _triangles(cfg)
    tri = tri / tri.sum(axis=0) / np.sum(taper**2)
    used = np.flatnonzero(tri.any(axis=1))
    lo, hi = int(used[0]), int(used[-1]) + 1
    taps = [np.flatnonzero(tri[:, f]) for f in range(cfg.n_filters)]
    n_taps = max(len(t) for t in taps)
    tap_bins = np.zeros((n_taps, cfg.n_filters), np.intp)
    tap_weights = np.zeros((n_taps, cfg.n_filters, 1), np.float32)
    for f, t in enumerate(taps):
        tap_bins[: len(t), f] = t - lo
        tap_weights[: len(t), f, 0] = tri[t, f]
    n_f = cfg.n_filters
    f = np.arange(n_f)[:, None] + 0.5
    q = np.arange(1, cfg.n_cepstra + 1)[None, :]
    dct = np.sqrt(2.0 / n_f) * np.cos(np.pi * q * f / n_f)
    return _Kernel(
        taper=taper.astype(np.float32),
        bin_lo=lo,
        n_bins=hi - lo,
        tap_bins=tap_bins,
        tap_weights=tap_weights,
        dct=np.ascontiguousarray(dct[:, :, None], dtype=np.float32),
        inv_window=np.float32(1.0 / cfg.window_samples),
        floor=np.float32(cfg.log_floor),
    )


# ----------------------------------------------------------------------------- stages


def _absolute(rows: np.ndarray, cfg: FeatureConfig, k: _Kernel) -> np.ndarray:
    """Absolute features of analysis windows, one window per row.

    Every step is a reduction along the contiguous last axis, a row-wise FFT or an
    elementwise operation, so a row's result does not depend on the other rows: this is
    what makes streaming bit-identical to batch. (The filterbank and DCT are sequential
    multiply-adds for that reason: BLAS products change with the number of rows.)

    Parameters
    ----------
    rows : ndarray of float32, shape (n_rows, window_samples), C-contiguous

    Returns
    -------
    absolute : ndarray of float32, shape (n_rows, 1 + n_cepstra)
        ``[E, c1..c_n]`` per window.
    """
    import scipy.fft

    n_rows = rows.shape[0]
    if cfg.remove_mean:
        mean = np.add.reduce(rows, axis=-1)
        mean *= k.inv_window
        x = rows - mean[:, np.newaxis]
    else:
        x = rows.copy()
    energy = np.add.reduce(np.square(x), axis=-1)
    energy *= k.inv_window
    # Taper into a zero-padded buffer: cheaper than letting the FFT pad.
    padded = np.zeros((n_rows, cfg.n_fft), np.float32)
    np.multiply(x, k.taper, out=padded[:, : cfg.window_samples])
    spec = scipy.fft.rfft(padded, axis=-1, workers=1)[:, k.bin_lo : k.bin_lo + k.n_bins]
    # Power, bin-major (n_bins, n_rows) so that each filter is a few vector multiply-adds.
    power = np.empty((k.n_bins, n_rows), np.float32)
    np.square(spec.real.T, out=power)
    tmp = np.empty((k.n_bins, n_rows), np.float32)
    np.square(spec.imag.T, out=tmp)
    power += tmp
    bands = power[k.tap_bins[0]]  # (n_filters, n_rows): one gather + multiply-add per tap
    bands *= k.tap_weights[0]
    for b, weight in zip(k.tap_bins[1:], k.tap_weights[1:], strict=True):
        tmp = power[b]
        tmp *= weight
        bands += tmp
    np.maximum(bands, k.floor, out=bands)
    np.log(bands, out=bands)
    ceps = k.dct[0] * bands[0]  # (n_cepstra, n_rows)
    tmp = np.empty_like(ceps)
    for f in range(1, cfg.n_filters):
        np.multiply(k.dct[f], bands[f], out=tmp)
        ceps += tmp
    out = np.empty((n_rows, 1 + cfg.n_cepstra), np.float32)
    np.maximum(energy, k.floor, out=energy)
    np.log(energy, out=energy)
    out[:, 0] = energy
    out[:, 1:] = ceps.T
    return out


def _frame_windows(src_t: np.ndarray, n_win: int, cfg: FeatureConfig) -> np.ndarray:
    """Analysis windows as rows: ``src_t`` ``(n_ch, n)`` (any strides) -> contiguous
    ``(n_ch * n_win, window_samples)``, channel-major, window ``j`` starting at
    ``j * frame_samples``."""
    n_ch = src_t.shape[0]
    if n_win == 1:  # the streaming common case; a plain slice is cheaper than as_strided
        return np.ascontiguousarray(src_t[:, : cfg.window_samples])
    s_ch, s_t = src_t.strides
    view = np.lib.stride_tricks.as_strided(
        src_t,
        shape=(n_ch, n_win, cfg.window_samples),
        strides=(s_ch, s_t * cfg.frame_samples, s_t),
        writeable=False,
    )
    return np.ascontiguousarray(view).reshape(n_ch * n_win, cfg.window_samples)


def _absolute_frames(src_t: np.ndarray, n_win: int, cfg: FeatureConfig, k: _Kernel) -> np.ndarray:
    """``(n_ch, n)`` signal -> absolute features ``(n_win, n_ch, 1 + n_cepstra)``."""
    rows = _frame_windows(src_t, n_win, cfg)
    out = _absolute(rows, cfg, k).reshape(src_t.shape[0], n_win, -1)
    return out.transpose(1, 0, 2)


def _diff_energy(energy: np.ndarray, span: int) -> np.ndarray:
    """``max - min`` over trailing windows: ``(L, n_ch)`` -> ``(L - span + 1, n_ch)``."""
    n_out = energy.shape[0] - span + 1
    if n_out == 1:
        hi = energy.max(axis=0, keepdims=True)
        hi -= energy.min(axis=0, keepdims=True)
        return hi
    s_t, s_ch = energy.strides
    win = np.lib.stride_tricks.as_strided(
        energy, shape=(n_out, span, energy.shape[1]), strides=(s_t, s_t, s_ch), writeable=False
    )
    hi = win.max(axis=1)
    hi -= win.min(axis=1)
    return hi


def _regression(work: np.ndarray, half: int) -> np.ndarray:
    """HTK regression along axis 0: ``(L, ...)`` -> ``(L - 2 half, ...)`` float32."""
    n_out = work.shape[0] - 2 * half
    acc = work[half + 1 : half + 1 + n_out] - work[half - 1 : half - 1 + n_out]
    for n in range(2, half + 1):
        acc += np.float32(n) * (
            work[half + n : half + n + n_out] - work[half - n : half - n + n_out]
        )
    acc *= np.float32(1.0 / (2 * sum(n * n for n in range(1, half + 1))))
    return acc


def _assemble(work: np.ndarray, cfg: FeatureConfig) -> np.ndarray:
    """Statics with context -> full features.

    Parameters
    ----------
    work : ndarray of float32, shape (L, n_channels, n_static)
        Static features of consecutive frames, including ``lookahead_frames`` frames of
        context on each side.

    Returns
    -------
    features : ndarray of float32, shape (L - 2 * lookahead_frames, n_channels, n_features)
    """
    dw, aw = cfg.delta_half_width, cfg.accel_half_width
    pad = dw + aw
    n_out = work.shape[0] - 2 * pad
    n_abs = cfg.n_cepstra + 1
    ns = cfg.n_static
    out = np.empty((n_out, work.shape[1], cfg.n_features), dtype=np.float32)
    out[..., :ns] = work[pad : pad + n_out]
    delta = _regression(work, dw)  # frames dw .. L - 1 - dw of `work`
    out[..., ns : 2 * ns] = delta[aw : aw + n_out]
    out[..., 2 * ns :] = _regression(delta[..., :n_abs], aw)
    return out


def _as_signal(signal, n_channels: int | None, what: str) -> np.ndarray:
    x = np.asarray(signal)
    if x.ndim != 2:
        raise ValueError(f"{what} must have shape (n_samples, n_channels), got {x.shape}")
    if n_channels is not None and x.shape[1] != n_channels:
        raise ValueError(f"{what} has {x.shape[1]} channels, expected {n_channels}")
    x = np.ascontiguousarray(x, dtype=np.float32)
    if not np.isfinite(x).all():
        s, c = np.argwhere(~np.isfinite(x))[0]
        raise RtEegError(
            f"{what} contains NaN or infinite values (first at sample {s}, column {c})"
        )
    return x


def _empty(n_ch: int, cfg: FeatureConfig) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((0, n_ch, cfg.n_features), np.float32), np.zeros(0, np.float64)


def _times(first: int, count: int, cfg: FeatureConfig) -> np.ndarray:
    return np.arange(first, first + count, dtype=np.float64) * cfg.frame_s


# ----------------------------------------------------------------------------- batch


def compute_features(
    signal: np.ndarray, cfg: FeatureConfig | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """LFCC features of a whole recording (vectorised; equals :class:`StreamingFeatures`).

    Parameters
    ----------
    signal : ndarray, shape (n_samples, n_channels)
        Microvolts at ``cfg.sfreq`` (converted to float32).
    cfg : FeatureConfig, optional
        Defaults to ``FeatureConfig()``.

    Returns
    -------
    features : ndarray of float32, shape (n_frames, n_channels, n_features)
        ``n_frames = n_samples // frame_samples``; feature order :data:`FEATURE_NAMES`.
    times : ndarray of float64, shape (n_frames,)
        ``times[i] = i * frame_s``, the start of frame ``i`` in seconds.
    """
    cfg = FeatureConfig() if cfg is None else cfg
    x = _as_signal(signal, None, "signal")
    n_ch = x.shape[1]
    fs = cfg.frame_samples
    n_frames = x.shape[0] // fs
    if n_frames == 0 or n_ch == 0:
        return _empty(n_ch, cfg)
    k = _kernel(cfg)
    padded = np.pad(x[: n_frames * fs], ((cfg.window_before, cfg.window_after), (0, 0)), "reflect")
    # Channel-major copy so that every analysis window is a contiguous run of samples.
    views = sliding_window_view(np.ascontiguousarray(padded.T), cfg.window_samples, axis=-1)
    views = views[:, ::fs]  # (n_ch, n_frames, window_samples)
    absolute = np.empty((n_frames, n_ch, cfg.n_cepstra + 1), np.float32)
    for a in range(0, n_frames, _BATCH_BLOCK_FRAMES):
        b = min(a + _BATCH_BLOCK_FRAMES, n_frames)
        rows = np.ascontiguousarray(views[:, a:b]).reshape(-1, cfg.window_samples)
        absolute[a:b] = _absolute(rows, cfg, k).reshape(n_ch, b - a, -1).transpose(1, 0, 2)
    energy = absolute[..., 0]
    span = cfg.diff_energy_frames
    e_work = np.concatenate([np.repeat(energy[:1], span - 1, axis=0), energy])
    static = np.empty((n_frames, n_ch, cfg.n_static), np.float32)
    static[..., :-1] = absolute
    static[..., -1] = _diff_energy(e_work, span)
    pad = cfg.lookahead_frames
    work = np.concatenate(
        [np.repeat(static[:1], pad, axis=0), static, np.repeat(static[-1:], pad, axis=0)]
    )
    return _assemble(work, cfg), _times(0, n_frames, cfg)


# ----------------------------------------------------------------------------- streaming


class StreamingFeatures:
    """Causal, stateful LFCC extractor: frames in, feature frames out (6 frames later).

    Vectorised across channels and across the frames of one push. Sample history lives in a
    :class:`~rt_eeg.buffer.RingBuffer` of ``buffer_samples`` (0.3 s) per channel; the trailing
    log energies and the static features the regressions need live in two more ring
    buffers. Any chunking of the input gives the same output as :func:`compute_features`.

    Parameters
    ----------
    n_channels : int
    cfg : FeatureConfig, optional
        Defaults to ``FeatureConfig()``.

    Attributes
    ----------
    delay_s : float
        Algorithmic delay (0.644 s): the features stamped ``t`` use samples up to ``t + delay_s``.
    lag_frames : int
        A frame's features come out of the :meth:`push` that delivers the frame this many
        frames later (6).
    """

    def __init__(self, n_channels: int, cfg: FeatureConfig | None = None):
        self.cfg = FeatureConfig() if cfg is None else cfg
        if int(n_channels) < 1:
            raise ValueError(f"n_channels must be >= 1, got {n_channels}")
        self.n_channels = int(n_channels)
        self.delay_s = self.cfg.delay_s
        self.lag_frames = self.cfg.lookahead_samples // self.cfg.frame_samples
        self._k = _kernel(self.cfg)
        c = self.cfg
        self._samples = RingBuffer(c.buffer_samples, self.n_channels, overflow="overwrite")
        self._energy = RingBuffer(
            max(c.diff_energy_frames - 1, 1), self.n_channels, overflow="overwrite"
        )
        self._statics = RingBuffer(
            2 * c.lookahead_frames, self.n_channels * c.n_static, overflow="overwrite"
        )
        self.reset()

    def reset(self) -> None:
        """Forget the stream: the next :meth:`push` starts a new recording at time 0."""
        self._samples.clear()
        self._energy.clear()
        self._statics.clear()
        self._n_padded = 0  # samples written to the sample buffer, leading reflection included
        self._next_window = 0  # next frame whose analysis window is awaited
        self._next_out = 0  # next frame to emit
        self._finished = False

    def push(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Feed ``frame`` of shape ``(frame_samples * k, n_channels)`` (microvolts).

        Returns
        -------
        features : ndarray of float32, shape (m, n_channels, n_features)
            Every frame whose features became computable (``m`` is ``k``, give or take the
            start-up lag of ``lag_frames``).
        times : ndarray of float64, shape (m,)
            Start times of those frames in seconds.
        """
        if self._finished:
            raise RuntimeError("push() after flush(); call reset() to start a new stream")
        x = _as_signal(frame, self.n_channels, "frame")
        if x.shape[0] % self.cfg.frame_samples:
            raise ValueError(
                f"frame must hold a multiple of {self.cfg.frame_samples} samples, got {x.shape[0]}"
            )
        if x.shape[0] == 0:
            return _empty(self.n_channels, self.cfg)
        if self._n_padded == 0:  # signal before t=0: the start reflected (as numpy 'reflect')
            self._write_samples(x[self.cfg.window_before : 0 : -1])
        return self._process(x, tail=False)

    def flush(self) -> tuple[np.ndarray, np.ndarray]:
        """End of stream: the features of every frame not emitted yet (same end padding as
        :func:`compute_features`). The extractor then refuses :meth:`push` until :meth:`reset`.
        """
        if self._finished:
            return _empty(self.n_channels, self.cfg)
        self._finished = True
        if self._n_padded == 0:
            return _empty(self.n_channels, self.cfg)
        after = self.cfg.window_after
        if after:
            tail = self._samples.latest(after + 1)  # signal after the end, reflected
            pad = np.ascontiguousarray(tail[-2::-1])
        else:
            pad = np.zeros((0, self.n_channels), np.float32)
        return self._process(pad, tail=True)

    # -- internals -------------------------------------------------------------------
    def _write_samples(self, block: np.ndarray) -> None:
        self._samples.write(block)
        self._n_padded += block.shape[0]

    def _process(self, x: np.ndarray, *, tail: bool) -> tuple[np.ndarray, np.ndarray]:
        c = self.cfg
        fs, w = c.frame_samples, c.window_samples
        history = self._n_padded - fs * self._next_window  # samples of the awaited window held
        total = history + x.shape[0]
        n_win = (total - w) // fs + 1 if total >= w else 0
        if total <= self._samples.capacity:  # common case: one frame in, read a view
            self._write_samples(x)
            src = self._samples.latest(total)
        else:
            src = np.concatenate([self._samples.latest(history), x])
            self._write_samples(x)
        if n_win == 0:
            return _empty(self.n_channels, c)
        self._next_window += n_win
        absolute = _absolute_frames(src.T, n_win, c, self._k)
        static = self._static(absolute)
        if tail:  # statics after the last frame are copies of it
            static = np.concatenate([static, np.repeat(static[-1:], c.lookahead_frames, axis=0)])
        return self._dynamic(static)

    def _static(self, absolute: np.ndarray) -> np.ndarray:
        """Absolute ``(k, n_ch, 8)`` -> static ``(k, n_ch, 9)`` with the differential energy."""
        span = self.cfg.diff_energy_frames
        energy = absolute[..., 0]
        ring = self._energy
        if ring.total_written == 0:  # frames before the first count as the first
            ring.write(np.repeat(energy[:1], ring.capacity, axis=0))
        hist = ring.latest(span - 1) if span > 1 else energy[:0]
        work = np.concatenate([hist, energy])
        ring.write(energy)
        static = np.empty((*absolute.shape[:2], self.cfg.n_static), np.float32)
        static[..., :-1] = absolute
        static[..., -1] = _diff_energy(work, span)
        return static

    def _dynamic(self, static: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Append static frames; return the frames whose regressions are now complete."""
        c = self.cfg
        pad = c.lookahead_frames
        n_ch, ns = self.n_channels, c.n_static
        ring = self._statics
        flat = static.reshape(static.shape[0], n_ch * ns)
        if ring.total_written == 0:  # statics before frame 0 are copies of frame 0
            ring.write(np.repeat(flat[:1], pad, axis=0))
        hist = ring.latest(min(ring.count, 2 * pad)).reshape(-1, n_ch, ns)
        work = np.concatenate([hist, static])
        ring.write(flat)
        if work.shape[0] <= 2 * pad:
            return _empty(n_ch, c)
        out = _assemble(work, c)
        times = _times(self._next_out, out.shape[0], c)
        self._next_out += out.shape[0]
        return out, times
