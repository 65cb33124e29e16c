"""Training-time augmentation of the decoder's background-relative (context) inputs.

All act only on training batches (dev scores, hard-negative mining and inference see the
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
- :func:`warp_frequency`: where a rhythm sits (a seizure's, alpha, spindles) differs between
  patients and generators; each sample's spectrum is moved along frequency by its own factor
  (vocal-tract-length perturbation, as speech recognition does across speakers), so a rhythm's
  exact cepstral signature does not make a seizure.
- :func:`mix_seizures`: each generator's seizures are a morphology of their own (a decoder's
  summary names the source of a seizure window far more often than of a background one,
  ``tools/source_probe.py``), and an unseen generator's seizures lie between them. Some seizure
  samples are replaced by a convex mix of themselves and another seizure sample of the batch
  (intra-class mixup), so the decoder sees the morphologies between the ones it was given.
  Judged as K52 (pilot 92): it lowered the unseen generators' DET curves (-8.5) and did not
  make the decoder's seizure summary less generator-specific.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.decoder import departure_width
from rt_eeg.features import FeatureConfig
from rt_eeg.features.config import dct_rows, filter_edges

#: Stale centres come from this many epochs (s) earlier, drawn uniformly: 1-20 minutes.
STALE_MIN_EPOCHS = 60
STALE_MAX_EPOCHS = 1200

# Which training samples the frequency warp moves (by their label).
WARP_ON = ("all", "background", "seizure")


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


def cepstral_warp(alpha: float, cfg: FeatureConfig) -> np.ndarray:
    """The linear map of cepstra c1..cN under a warp of the frequency axis by ``alpha``.

    The log filter outputs ``L = D c + c0 / sqrt(n_filters)`` (``D`` the orthonormal DCT-II
    rows 1..N; with N = n_filters - 1, the default, nothing is truncated) are moved along
    frequency, ``L'(f) = L(f / alpha)`` (a rhythm at ``f`` goes to
    ``alpha f``), by linear interpolation between the filter centres, held at the end filters,
    and turned back into cepstra. The interpolation keeps constants and the DCT rows 1..N are
    orthogonal to a constant, so c0 (not an input: the energy replaces it) does not enter and the
    map is exact: ``c' = D^T A D c``. ``alpha = 1`` is the identity.

    Parameters
    ----------
    alpha : float
        Warp factor (> 0).
    cfg : FeatureConfig
        The filterbank (linear filter centres between ``f_min`` and ``f_max``).

    Returns
    -------
    m : ndarray of float64, shape (n_cepstra, n_cepstra)
        ``c' = m @ c``.
    """
    n_f = cfg.n_filters
    edges = filter_edges(cfg)
    centres, spacing = edges[1:-1], edges[1] - edges[0]
    pos = np.clip((centres / alpha - centres[0]) / spacing, 0.0, n_f - 1)
    lo = np.minimum(np.floor(pos).astype(int), n_f - 2)
    frac = pos - lo
    a = np.zeros((n_f, n_f))
    a[np.arange(n_f), lo] = 1.0 - frac
    a[np.arange(n_f), lo + 1] += frac
    d = dct_rows(cfg)
    return d.T @ a @ d


def cepstral_columns(cfg: FeatureConfig) -> np.ndarray:
    """Columns of c1..cN, their deltas and accelerations in a feature vector.

    Returns
    -------
    cols : ndarray of int, shape (3, n_cepstra)
    """
    names = cfg.feature_names
    q = range(1, cfg.n_cepstra + 1)
    return np.array([[names.index(f"{p}lfcc_{k}") for k in q] for p in ("", "d_", "dd_")])


def warp_frequency(
    x: np.ndarray,
    norm: str,
    scale: np.ndarray,
    warp: float,
    rng: np.random.Generator,
    cfg: FeatureConfig,
    only: np.ndarray | None = None,
) -> np.ndarray:
    """Move each sample's spectrum along frequency by its own random factor, in place.

    Each sample gets ``alpha = exp(u)``, ``u ~ U(-warp, warp)``; :func:`cepstral_warp` is applied
    to the cepstra, their deltas and their accelerations (all linear in the cepstra) of every
    frame of the sample's background-relative columns. Those are departures divided by the
    per-feature context scale ``s``, so the map applied is ``S^-1 W S``: the frames and the
    patient's centre warped alike. Energy, differential energy and their derivatives are left
    alone; padding (zeros) stays zero.

    Parameters
    ----------
    x : ndarray of float32, shape (n, 70, width)
        Normalised windows; every ``n_features``-wide block of the departure columns
        (:func:`rt_eeg.decoder.departure_width`) is warped.
    norm : str
    scale : ndarray of float32, shape (n_features,)
        The context scale the departures were divided by.
    warp : float
    rng : numpy.random.Generator
    cfg : FeatureConfig
        The features' configuration (``n_features`` columns per block).
    only : ndarray of bool, shape (n,), optional
        Warp only these samples (e.g. the background ones). Every sample still draws its
        factor, so a sample selected is warped exactly as it would be with ``only=None``.

    Returns
    -------
    x : ndarray, the same array
    """
    alphas = np.exp(rng.uniform(-warp, warp, size=len(x)))
    if only is not None:
        rows = np.flatnonzero(np.asarray(only, bool))
        if len(rows):
            sub = np.ascontiguousarray(x[rows])
            x[rows] = _warp_rows(sub, alphas[rows], norm, scale, cfg)
        return x
    return _warp_rows(x, alphas, norm, scale, cfg)


def _warp_rows(x: np.ndarray, alphas: np.ndarray, norm: str, scale, cfg: FeatureConfig) -> np.ndarray:
    maps = np.stack([cepstral_warp(a, cfg) for a in alphas])  # (n, N, N)
    n_feat = cfg.n_features
    for block in range(departure_width(norm, n_feat) // n_feat):
        for cols in cepstral_columns(cfg) + block * n_feat:
            s = np.asarray(scale, np.float64)[cols % n_feat]
            raw = x[:, :, cols] * s  # (n, 70, N) departures in feature units
            x[:, :, cols] = (np.einsum("ntc,nkc->ntk", raw, maps) / s).astype(np.float32)
    return x


#: A mixed seizure sample keeps a share of itself drawn from U(MIX_LOW, 1 - MIX_LOW).
MIX_LOW = 0.25


def mix_seizures(x: np.ndarray, y: np.ndarray, share: float, rng: np.random.Generator) -> int:
    """Replace about ``share`` of the seizure samples by a convex mix with another seizure
    sample of the same batch, in place; background samples are never touched.

    Each picked sample ``i`` becomes ``a * x[i] + (1 - a) * x[j]``, ``j`` a seizure sample of
    the batch drawn at random (itself allowed: then it is unchanged) and ``a ~ U(MIX_LOW,
    1 - MIX_LOW)``; partners are read from the batch as it was before any mixing. Labels stay
    seizure.

    Parameters
    ----------
    x : ndarray of float32, shape (n, 70, width)
        Normalised windows (any normalisation: every column is mixed).
    y : ndarray, shape (n,) or (n, 1)
        Labels; >= 0.5 is seizure.
    share : float
        Probability that a seizure sample is mixed.
    rng : numpy.random.Generator

    Returns
    -------
    n_mixed : int
        Samples replaced.
    """
    seiz = np.flatnonzero(np.asarray(y).reshape(len(x), -1)[:, 0] >= 0.5)
    if seiz.size < 2 or share <= 0:
        return 0
    picked = seiz[rng.random(seiz.size) < share]
    partner = rng.choice(seiz, picked.size)
    a = rng.uniform(MIX_LOW, 1.0 - MIX_LOW, picked.size).astype(np.float32)[:, None, None]
    x[picked] = a * x[picked] + (1.0 - a) * x[partner]  # the right side is read before writing
    return int(picked.size)
