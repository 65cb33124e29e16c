"""The LFCC maths: the algorithm, its per-row stages, and ``compute_features`` (batch).

The stages here are shared with :class:`~rt_eeg.features.streaming.StreamingFeatures`.

Twenty-six features per channel per 0.1 s frame (25 samples at 250 Hz), after the online
TUH/NEDC system (Harati et al. 2015; Shah et al.): 8 absolute features (log energy and 7
linear-frequency cepstral coefficients), 1 differential energy, 9 deltas of those 9 and
8 delta-deltas of the 8 absolute ones. The parameters are fields of :class:`FeatureConfig`,
whose docstring (:mod:`rt_eeg.features.config`) is the one place where each value is stated
and justified; this docstring describes the algorithm that uses them.

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

import functools
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from rt_eeg.errors import RtEegError
from rt_eeg.features.config import FeatureConfig, _taper, _triangles, dct_rows

#: Frames per batch block (one FFT call each, all channels): 256 frames x 22 channels keep
#: every temporary in cache, about 1.5x faster than one call over a whole 10 min recording,
#: and memory stays bounded for recordings of any length.
_BATCH_BLOCK_FRAMES = 256


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
    dct = dct_rows(cfg)
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
