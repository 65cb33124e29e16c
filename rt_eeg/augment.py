"""Training-time augmentation of the decoder's background-relative (context) inputs.

Both act only on training batches (dev scores, hard-negative mining and inference see the
inputs as they are), draw from a generator the caller seeds per epoch and batch (so training
stays bit-identical for a seed), and are off by default:

- :func:`jitter_contrast`: how far a seizure stands out from the patient's background differs
  between patients, amplifiers and generators; each sample's context inputs are scaled by its
  own random factor, so a departure's size alone does not make a seizure.
- :func:`stale_centers`: live, a patient who changes state (wakes up after minutes of sleep)
  is read against a context built in the old state until the context catches up, and the
  departure looks like a seizure's. Some background samples are given the centre their
  channel had minutes earlier, so a departure from an out-of-date background, without a
  seizure's pattern, is seen as background in training.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.decoder import departure_width

#: Stale centres come from this many epochs (s) earlier, drawn uniformly: 1-20 minutes.
STALE_MIN_EPOCHS = 60
STALE_MAX_EPOCHS = 1200


def jitter_contrast(
    x: np.ndarray, norm: str, jitter: float, rng: np.random.Generator, n_features: int
) -> np.ndarray:
    """Scale each sample's background-relative inputs by its own random factor, in place.

    Parameters
    ----------
    x : ndarray of float32, shape (n, 70, width)
        Normalised windows; only the departure columns are scaled
        (:func:`rt_eeg.decoder.departure_width`: the window-normalised half of
        ``'context_maxabs'`` is scale-free already).
    norm : str
    jitter : float
        Factors ``exp(u)``, ``u ~ U(-jitter, jitter)``, one per sample.
    rng : numpy.random.Generator
    n_features : int

    Returns
    -------
    x : ndarray, the same array
    """
    factor = np.exp(rng.uniform(-jitter, jitter, size=len(x))).astype(np.float32)
    x[:, :, : departure_width(norm, n_features)] *= factor[:, None, None]  # padding stays 0
    return x


def stale_centers(
    store, rows: np.ndarray, share: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Background centres of ``rows``, some of their background samples' taken from earlier.

    A background sample (label 0) is picked with probability ``share``; its centre becomes
    that of the same channel of the same recording ``d`` epochs earlier, ``d`` drawn from
    ``STALE_MIN_EPOCHS..STALE_MAX_EPOCHS``. A pick whose earlier epoch falls within the first
    ``STALE_MIN_EPOCHS`` of the recording (no settled background yet) keeps its own centre.
    The draws are made for every row, whatever is picked, so a batch's draw is fixed by the
    generator alone.

    Parameters
    ----------
    store : rt_eeg.store.FeatureStore
    rows : ndarray of int, shape (n,)
        Label rows (samples).
    share : float
        Probability that a background sample gets a stale centre.
    rng : numpy.random.Generator

    Returns
    -------
    centers : ndarray of float32, shape (n, n_features)
    stale : ndarray of bool, shape (n,)
        Which samples got a stale centre.
    """
    rows, track, epoch = store.track_epoch(rows)
    centers = store.centers(rows)
    pick = rng.random(len(rows)) < share
    gap = rng.integers(STALE_MIN_EPOCHS, STALE_MAX_EPOCHS + 1, size=len(rows))
    earlier = epoch - gap
    stale = pick & (np.asarray(store.labels[rows]) == 0) & (earlier >= STALE_MIN_EPOCHS)
    if stale.any():
        centers[stale] = store.centers(store.label_offset[track[stale]] + earlier[stale])
    return centers, stale
