"""Decoder windows (numpy only): the window geometry, the causal window of each epoch and
its normalisation into model inputs.

Both the batch path (:func:`recording_windows`) and the streaming path
(:class:`~rt_eeg.decoder.stream.DecoderStream`) hand :func:`normalise_windows` the same
windows and valid-frame counts, so they agree.
"""

from __future__ import annotations

import numpy as np

#: Frames of 0.1 s per 1 s decision epoch.
FRAMES_PER_EPOCH = 10
#: Epochs per causal window (the decided epoch and the 6 before it).
WINDOW_EPOCHS = 7
#: Frames per window.
WINDOW_FRAMES = FRAMES_PER_EPOCH * WINDOW_EPOCHS
#: Epoch length in seconds.
EPOCH_S = 1.0
#: One-second epoch means in the history of a ``'context_history'`` window (the decided epoch
#: and the 69 before it): one per LSTM step, so the last step is "now" at both resolutions.
HISTORY_EPOCHS = WINDOW_FRAMES
#: Input normalisations the decoder knows (see :func:`normalise_windows`).
NORMALISATIONS = (
    "maxabs",
    "zscore",
    "context",
    "context_maxabs",
    "context_montage",
    "context_history",
)
#: Normalisations that need the patient's background context (:mod:`rt_eeg.context`).
CONTEXT_NORMALISATIONS = ("context", "context_maxabs", "context_montage", "context_history")
#: Normalisations whose inputs are ``2 n_features`` wide (two halves of ``n_features``).
DOUBLE_NORMALISATIONS = ("context_maxabs", "context_montage", "context_history")
#: Normalisations that need the channel's last 70 epoch means (:func:`recording_history`).
HISTORY_NORMALISATIONS = ("context_history",)

_EPS = np.float32(1e-6)


def _zero_leading(x: np.ndarray, n_obs: np.ndarray) -> None:
    """Set, in place, the first ``70 - n_obs[i]`` rows of each ``x[i]`` (its padding) to 0.

    Parameters
    ----------
    x : ndarray, shape (n, 70, ...)
    n_obs : ndarray of int64, shape (n,)
        Observed (trailing) rows per item, 1..70.
    """
    short = np.flatnonzero(n_obs < x.shape[1])  # only items at a recording's start
    if short.size:
        pad = np.arange(x.shape[1])[None, :] < (x.shape[1] - n_obs[short])[:, None]
        sub = x[short]
        sub[pad] = 0.0
        x[short] = sub


def n_valid_frames(epochs: np.ndarray | int) -> np.ndarray:
    """Observed frames in the window of each epoch index: ``min(10 (e + 1), 70)``.

    Parameters
    ----------
    epochs : int or array of int, shape (n,)
        Epoch indices counted from the start of the recording (0 = first epoch).

    Returns
    -------
    n_valid : ndarray of int64, shape (n,)
    """
    e = np.atleast_1d(np.asarray(epochs, dtype=np.int64))
    return np.minimum(FRAMES_PER_EPOCH * (e + 1), WINDOW_FRAMES)


def n_history_epochs(epochs: np.ndarray | int) -> np.ndarray:
    """Observed epoch means in the history of each epoch index: ``min(e + 1, 70)``.

    Parameters
    ----------
    epochs : int or array of int, shape (n,)
        Epoch indices counted from the start of the recording (or the stream's last gap).

    Returns
    -------
    n_history : ndarray of int64, shape (n,)
    """
    e = np.atleast_1d(np.asarray(epochs, dtype=np.int64))
    return np.minimum(e + 1, HISTORY_EPOCHS)


def epoch_means(frames: np.ndarray) -> np.ndarray:
    """Mean of each run of 10 frames (float64 sums, float32 result).

    The one implementation the stream, the batch twin and the training store share: the
    reduced axis is always the second-last, the features innermost, so numpy sums the 10
    frames in the same order and every path gets the same bits.

    Parameters
    ----------
    frames : ndarray, shape (..., 10 k, n_features)

    Returns
    -------
    means : ndarray of float32, shape (..., k, n_features)
    """
    f = np.asarray(frames, dtype=np.float32)
    *lead, n, n_feat = f.shape
    blocks = f.reshape(*lead, n // FRAMES_PER_EPOCH, FRAMES_PER_EPOCH, n_feat)
    return blocks.mean(axis=-2, dtype=np.float64).astype(np.float32)


def model_width(method: str, n_features: int) -> int:
    """Features per frame the model sees: ``2 n_features`` for the two-half normalisations."""
    return 2 * n_features if method in DOUBLE_NORMALISATIONS else n_features


def n_features_of(method: str, width: int) -> int:
    """Inverse of :func:`model_width`: raw features per frame of a model ``width`` wide."""
    return width // 2 if method in DOUBLE_NORMALISATIONS else width


def departure_width(method: str, n_features: int) -> int:
    """Leading model inputs that are background departures divided by the context feature
    scale (``'context'``: all; ``'context_maxabs'``: the first half; ``'context_montage'``:
    both halves, own and montage mean; ``'context_history'``: both halves, frames and epoch
    means); 0 for the window normalisations."""
    if method not in CONTEXT_NORMALISATIONS:
        return 0
    return 2 * n_features if method in ("context_montage", "context_history") else n_features


def group_sizes(groups, n: int) -> np.ndarray:
    """Sizes of the consecutive row groups of ``n`` rows (``groups``: an int size for all, or
    the sizes); a clear ValueError when they do not tile the rows."""
    if groups is None:
        raise ValueError("normalisation 'context_montage' needs the windows' channel groups")
    sizes = np.asarray(groups, dtype=np.int64).reshape(-1)
    if sizes.size == 1 and sizes[0] > 0 and n % int(sizes[0]) == 0:  # n = 0: no groups
        sizes = np.full(n // int(sizes[0]), int(sizes[0]), np.int64)
    if (sizes <= 0).any() or int(sizes.sum()) != n:
        raise ValueError(f"channel groups {sizes.tolist()[:8]} do not tile {n} windows")
    return sizes


def montage_departure(rel: np.ndarray, groups) -> np.ndarray:
    """Mean background-relative departure over each group of channels, one row per group.

    Parameters
    ----------
    rel : ndarray of float32, shape (n, 70, n_features)
        ``'context'`` inputs (padding frames 0); consecutive rows form the groups: the
        channels of one epoch of one recording.
    groups : int or ndarray of int, shape (n_groups,)
        Channels per group (an int: all groups alike).

    Returns
    -------
    mean : ndarray of float32, shape (n_groups, 70, n_features)
    """
    sizes = group_sizes(groups, rel.shape[0])
    if sizes.size == 0:
        return np.zeros((0, *rel.shape[1:]), np.float32)
    # One sequential sum per group, whatever else shares the batch: a recording's inputs do
    # not depend on how its epochs were batched (streaming == batch, training == live).
    total = np.add.reduceat(rel, np.cumsum(sizes) - sizes, axis=0)
    return (total / sizes.astype(np.float32)[:, None, None]).astype(np.float32, copy=False)


def normalise_windows(
    windows: np.ndarray,
    n_valid: np.ndarray,
    method: str = "maxabs",
    centers: np.ndarray | None = None,
    scale: np.ndarray | None = None,
    groups=None,
    history: np.ndarray | None = None,
    n_history: np.ndarray | None = None,
) -> np.ndarray:
    """Normalise raw feature windows into model inputs.

    Parameters
    ----------
    windows : ndarray, shape (n, 70, n_features)
        Raw features, time-first; the first ``70 - n_valid[i]`` frames of row ``i`` are
        padding (their values are ignored).
    n_valid : ndarray of int, shape (n,)
        Observed (trailing) frames per window, 1..70.
    method : {'maxabs', 'zscore', 'context', 'context_maxabs', 'context_montage', \
'context_history'}
        ``'maxabs'``: each feature divided by its maximum absolute value over the observed
        frames (a feature that is 0 throughout stays 0). ``'zscore'``: each feature minus its
        mean, divided by its standard deviation (+1e-6) over the observed frames.
        ``'context'``: each feature minus the patient's background centre (``centers``, see
        :mod:`rt_eeg.context`), divided by the fixed per-feature ``scale``.
        ``'context_maxabs'``: both ``'context'`` and ``'maxabs'`` inputs, concatenated along
        the feature axis (``2 n_features`` per frame). ``'context_montage'``: the
        ``'context'`` inputs and beside them their mean over the window's channel group
        (:func:`montage_departure`; ``2 n_features`` per frame): waking moves every channel,
        a focal seizure a region. ``'context_history'``: the ``'context'`` inputs and beside
        them, step for step, the channel's last 70 one-second epoch means (``history``) minus
        the same centre over the same scale (``2 n_features`` per frame): 7 s at 0.1 s and
        70 s at 1 s, so the decoder sees a rhythm evolve, or not, over a minute.
    centers : ndarray, shape (n, n_features), optional
        Background centre of each window's channel (context methods only).
    scale : ndarray, shape (n_features,), optional
        Per-feature scale of the context inputs (context methods only).
    groups : int or ndarray of int, shape (n_groups,), optional
        ``'context_montage'`` only: the rows come in consecutive groups, each the channels of
        one epoch of one recording; the channels per group (an int: all alike).
    history : ndarray, shape (n, 70, n_features), optional
        ``'context_history'`` only: each window's epoch means, oldest first, the last one the
        decided epoch's (:func:`recording_history`); the first ``70 - n_history[i]`` rows of
        row ``i`` are padding (ignored; their inputs are exactly 0).
    n_history : ndarray of int, shape (n,), optional
        Observed (trailing) epoch means per history, 1..70.

    Returns
    -------
    out : ndarray of float32, shape (n, 70, n_features) or (n, 70, 2 n_features)
        Normalised windows; padding frames are exactly 0.
    """
    x = np.array(windows, dtype=np.float32)  # own copy: normalised in place
    if x.ndim != 3 or x.shape[1] != WINDOW_FRAMES:
        raise ValueError(f"windows must have shape (n, {WINDOW_FRAMES}, n_features), got {x.shape}")
    n_valid = np.asarray(n_valid, dtype=np.int64).reshape(-1)
    _zero_leading(x, n_valid)
    if method in CONTEXT_NORMALISATIONS:
        if centers is None or scale is None:
            raise ValueError(f"normalisation {method!r} needs centers and scale")
        rel = x - np.asarray(centers, np.float32)[:, None, :]
        rel /= np.asarray(scale, np.float32)[None, None, :]
        _zero_leading(rel, n_valid)
        if method == "context":
            return rel
        if method == "context_history":
            if history is None or n_history is None:
                raise ValueError("normalisation 'context_history' needs history and n_history")
            hist = np.array(history, dtype=np.float32)
            if hist.shape != x.shape:
                raise ValueError(f"history must have shape {x.shape}, got {hist.shape}")
            hist -= np.asarray(centers, np.float32)[:, None, :]
            hist /= np.asarray(scale, np.float32)[None, None, :]
            _zero_leading(hist, np.asarray(n_history, dtype=np.int64).reshape(-1))
            return np.concatenate([rel, hist], axis=2)
        if method == "context_montage":
            sizes = group_sizes(groups, rel.shape[0])
            mean = np.repeat(montage_departure(rel, sizes), sizes, axis=0)
            return np.concatenate([rel, mean], axis=2)
        return np.concatenate([rel, normalise_windows(x, n_valid, "maxabs")], axis=2)
    if method == "maxabs":
        scale = np.abs(x).max(axis=1, keepdims=True)
        np.maximum(scale, _EPS, out=scale)
        x /= scale
        return x
    if method == "zscore":
        count = n_valid.astype(np.float32)[:, None, None]
        mean = x.sum(axis=1, keepdims=True) / count
        x -= mean
        _zero_leading(x, n_valid)
        std = np.sqrt(np.square(x).sum(axis=1, keepdims=True) / count)
        x /= std + _EPS
        return x
    raise ValueError(f"unknown normalisation {method!r}; expected one of {NORMALISATIONS}")


def recording_windows(features: np.ndarray, epochs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Raw windows of the given epochs of one recording, all channels.

    Parameters
    ----------
    features : ndarray, shape (n_frames, n_channels, n_features)
    epochs : ndarray of int, shape (m,)
        Complete epochs (``10 e + 10 <= n_frames``).

    Returns
    -------
    windows : ndarray of float32, shape (m * n_channels, 70, n_features)
        Epoch-major, channel-minor rows; padding frames are 0.
    n_valid : ndarray of int64, shape (m * n_channels,)
    """
    n_frames, n_ch, n_feat = features.shape
    epochs = np.asarray(epochs, dtype=np.int64)
    # Frame index of every window position; negative = before the first frame (padding).
    idx = (FRAMES_PER_EPOCH * (epochs + 1) - WINDOW_FRAMES)[:, None] + np.arange(WINDOW_FRAMES)
    win = features[np.maximum(idx, 0)]  # (m, 70, n_ch, n_feat)
    win[idx < 0] = 0.0
    win = win.transpose(0, 2, 1, 3).reshape(-1, WINDOW_FRAMES, n_feat)
    return np.ascontiguousarray(win, dtype=np.float32), np.repeat(n_valid_frames(epochs), n_ch)


def recording_epoch_means(features: np.ndarray) -> np.ndarray:
    """Mean of every complete epoch of a recording (:func:`epoch_means`), channel by channel.

    Parameters
    ----------
    features : ndarray, shape (n_frames, n_channels, n_features)

    Returns
    -------
    means : ndarray of float32, shape (n_frames // 10, n_channels, n_features)
    """
    n_ep = features.shape[0] // FRAMES_PER_EPOCH
    chan_first = np.ascontiguousarray(
        np.asarray(features[: FRAMES_PER_EPOCH * n_ep], np.float32).transpose(1, 0, 2)
    )
    return np.ascontiguousarray(epoch_means(chan_first).transpose(1, 0, 2))


def recording_history(means: np.ndarray, epochs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Epoch-mean histories of the given epochs of one recording, all channels.

    Parameters
    ----------
    means : ndarray, shape (n_epochs, n_channels, n_features)
        The recording's epoch means (:func:`recording_epoch_means`).
    epochs : ndarray of int, shape (m,)
        Epochs to give histories of (``e < n_epochs``).

    Returns
    -------
    history : ndarray of float32, shape (m * n_channels, 70, n_features)
        Epoch-major, channel-minor rows, as :func:`recording_windows`; row ``j`` of a history
        is epoch ``e - 69 + j``'s mean; padding rows (before the recording) are 0.
    n_history : ndarray of int64, shape (m * n_channels,)
    """
    _, n_ch, n_feat = means.shape
    epochs = np.asarray(epochs, dtype=np.int64)
    idx = (epochs - HISTORY_EPOCHS + 1)[:, None] + np.arange(HISTORY_EPOCHS)  # (m, 70)
    hist = means[np.maximum(idx, 0)]  # (m, 70, n_ch, F)
    hist[idx < 0] = 0.0
    hist = hist.transpose(0, 2, 1, 3).reshape(-1, HISTORY_EPOCHS, n_feat)
    return np.ascontiguousarray(hist, dtype=np.float32), np.repeat(n_history_epochs(epochs), n_ch)
