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
#: Input normalisations the decoder knows (see :func:`normalise_windows`).
NORMALISATIONS = ("maxabs", "zscore", "context", "context_maxabs", "context_montage")
#: Normalisations that need the patient's background context (:mod:`rt_eeg.context`).
CONTEXT_NORMALISATIONS = ("context", "context_maxabs", "context_montage")
#: Normalisations whose inputs are ``2 n_features`` wide (two halves of ``n_features``).
DOUBLE_NORMALISATIONS = ("context_maxabs", "context_montage")

_EPS = np.float32(1e-6)


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


def model_width(method: str, n_features: int) -> int:
    """Features per frame the model sees: ``2 n_features`` for the two-half normalisations."""
    return 2 * n_features if method in DOUBLE_NORMALISATIONS else n_features


def n_features_of(method: str, width: int) -> int:
    """Inverse of :func:`model_width`: raw features per frame of a model ``width`` wide."""
    return width // 2 if method in DOUBLE_NORMALISATIONS else width


def departure_width(method: str, n_features: int) -> int:
    """Leading model inputs that are background departures divided by the context feature
    scale (``'context'``: all; ``'context_maxabs'``: the first half; ``'context_montage'``:
    both halves, own and montage mean); 0 for the window normalisations."""
    if method not in CONTEXT_NORMALISATIONS:
        return 0
    return 2 * n_features if method == "context_montage" else n_features


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
) -> np.ndarray:
    """Normalise raw feature windows into model inputs.

    Parameters
    ----------
    windows : ndarray, shape (n, 70, n_features)
        Raw features, time-first; the first ``70 - n_valid[i]`` frames of row ``i`` are
        padding (their values are ignored).
    n_valid : ndarray of int, shape (n,)
        Observed (trailing) frames per window, 1..70.
    method : {'maxabs', 'zscore', 'context', 'context_maxabs', 'context_montage'}
        ``'maxabs'``: each feature divided by its maximum absolute value over the observed
        frames (a feature that is 0 throughout stays 0). ``'zscore'``: each feature minus its
        mean, divided by its standard deviation (+1e-6) over the observed frames.
        ``'context'``: each feature minus the patient's background centre (``centers``, see
        :mod:`rt_eeg.context`), divided by the fixed per-feature ``scale``.
        ``'context_maxabs'``: both ``'context'`` and ``'maxabs'`` inputs, concatenated along
        the feature axis (``2 n_features`` per frame). ``'context_montage'``: the
        ``'context'`` inputs and beside them their mean over the window's channel group
        (:func:`montage_departure`; ``2 n_features`` per frame): waking moves every channel,
        a focal seizure a region.
    centers : ndarray, shape (n, n_features), optional
        Background centre of each window's channel (context methods only).
    scale : ndarray, shape (n_features,), optional
        Per-feature scale of the context inputs (context methods only).
    groups : int or ndarray of int, shape (n_groups,), optional
        ``'context_montage'`` only: the rows come in consecutive groups, each the channels of
        one epoch of one recording; the channels per group (an int: all alike).

    Returns
    -------
    out : ndarray of float32, shape (n, 70, n_features) or (n, 70, 2 n_features)
        Normalised windows; padding frames are exactly 0.
    """
    x = np.array(windows, dtype=np.float32)  # own copy: normalised in place
    if x.ndim != 3 or x.shape[1] != WINDOW_FRAMES:
        raise ValueError(f"windows must have shape (n, {WINDOW_FRAMES}, n_features), got {x.shape}")
    n_valid = np.asarray(n_valid, dtype=np.int64).reshape(-1)
    short = np.flatnonzero(n_valid < WINDOW_FRAMES)  # only windows at a recording's start
    pad = None
    if short.size:
        pad = np.arange(WINDOW_FRAMES)[None, :] < (WINDOW_FRAMES - n_valid[short])[:, None]
        sub = x[short]
        sub[pad] = 0.0
        x[short] = sub
    if method in CONTEXT_NORMALISATIONS:
        if centers is None or scale is None:
            raise ValueError(f"normalisation {method!r} needs centers and scale")
        rel = x - np.asarray(centers, np.float32)[:, None, :]
        rel /= np.asarray(scale, np.float32)[None, None, :]
        if pad is not None:
            sub = rel[short]
            sub[pad] = 0.0
            rel[short] = sub
        if method == "context":
            return rel
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
        if pad is not None:
            sub = x[short]
            sub[pad] = 0.0
            x[short] = sub
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
