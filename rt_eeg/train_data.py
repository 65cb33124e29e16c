"""What the training loop is fed: balanced sample orders, the context scale and the batches.

Samples are label rows of a :class:`rt_eeg.store.FeatureStore`; a batch gathers their windows
from the memmap, applies the training augmentations (:mod:`rt_eeg.augment`) and normalises
them exactly as the decoder does live (:func:`rt_eeg.decoder.normalise_windows`).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import PurePosixPath

import numpy as np

from rt_eeg.augment import WARP_ON, jitter_contrast, mix_seizures, stale_centers, warp_frequency
from rt_eeg.decoder import (
    CONTEXT_NORMALISATIONS,
    HISTORY_NORMALISATIONS,
    WINDOW_FRAMES,
    montage_departure,
    normalise_windows,
)
from rt_eeg.errors import RtEegError
from rt_eeg.store import FeatureStore
from rt_eeg.train_config import TrainConfig


def seizure_weights(store: FeatureStore, pos: np.ndarray, cfg: TrainConfig) -> np.ndarray | None:
    """Relative draw weights of the seizure rows (onset weighting, seizure balance).

    Parameters
    ----------
    store : FeatureStore
    pos : ndarray of int64, shape (n,)
        Seizure label rows.
    cfg : TrainConfig
        ``onset_weight`` / ``onset_epochs`` and ``seizure_balance``.

    Returns
    -------
    weight : ndarray of float64, shape (n,), or None
        ``onset_weight`` on a run's first ``onset_epochs`` epochs (else 1), times
        ``L ** -seizure_balance`` with ``L`` the run's length; None when neither applies
        (the seizure half is then drawn uniformly, without replacement).
    """
    weight = None
    if cfg.onset_weight > 1.0:
        weight = np.where(store.onset_rank(pos) < cfg.onset_epochs, cfg.onset_weight, 1.0)
    if cfg.seizure_balance > 0.0:
        per_run = store.run_length(pos).astype(np.float64) ** -cfg.seizure_balance
        weight = per_run if weight is None else weight * per_run
    return weight


def balanced_order(
    rng: np.random.Generator,
    pos: np.ndarray,
    neg: np.ndarray,
    samples_per_epoch: int,
    pos_weight: np.ndarray | None = None,
    sources: tuple[np.ndarray, np.ndarray] | None = None,
    shares: np.ndarray | None = None,
) -> np.ndarray:
    """One epoch of sample rows: equal seizure and background counts, shuffled.

    Parameters
    ----------
    rng : np.random.Generator
    pos, neg : ndarray of int64
        Seizure / background sample rows.
    samples_per_epoch : int
    pos_weight : ndarray of float, shape (len(pos),), optional
        Relative draw probability of each seizure row (onset weighting); when given, the
        seizure half is drawn with replacement in proportion to it.
    sources : (ndarray of int, shape (len(pos),), ndarray of int or None), optional
        Source (training domain) of each seizure and background row (shape ``(len(neg),)``):
        each half is then split equally between the sources that have such rows
        (:func:`source_balanced_half`); None for the background: that half is drawn in
        proportion, as without sources.
    shares : ndarray of float, shape (n_sources,), optional
        With ``sources``: each source's fraction of a half (group DRO, :func:`dro_shares`)
        instead of equal fractions.

    Returns
    -------
    order : ndarray of int64, shape (2 * half,)
        ``half = min(samples_per_epoch // 2, len(neg))``; seizure rows are drawn without
        replacement when there are enough, else every one repeated plus a random remainder.
    """
    half = max(1, min(samples_per_epoch // 2, len(neg)))
    if sources is not None:
        poss = source_balanced_half(rng, pos, sources[0], half, pos_weight, shares)
        if sources[1] is None:
            negs = rng.choice(neg, half, replace=False)
        else:
            negs = source_balanced_half(rng, neg, sources[1], half, shares=shares)
        return rng.permutation(np.concatenate([poss, negs])).astype(np.int64)
    negs = rng.choice(neg, half, replace=False)
    poss = _draw(rng, pos, half, pos_weight)
    return rng.permutation(np.concatenate([poss, negs])).astype(np.int64)


def _draw(rng: np.random.Generator, rows: np.ndarray, k: int, weight=None) -> np.ndarray:
    """``k`` of ``rows``: in proportion to ``weight`` (with replacement) when given, else
    without replacement, every row repeated first when there are fewer than ``k``."""
    if weight is not None:
        return rng.choice(rows, k, replace=True, p=weight / weight.sum())
    reps, rem = divmod(k, len(rows))
    return np.concatenate([np.tile(rows, reps), rng.choice(rows, rem, replace=False)])


def source_balanced_half(
    rng: np.random.Generator,
    rows: np.ndarray,
    source: np.ndarray,
    k: int,
    weight: np.ndarray | None = None,
    shares: np.ndarray | None = None,
) -> np.ndarray:
    """``k`` rows split as equally as possible between the sources present in ``rows`` (or in
    proportion to ``shares``).

    Parameters
    ----------
    rng : np.random.Generator
    rows : ndarray of int64, shape (n,)
    source : ndarray of int, shape (n,)
        Source index of each row.
    k : int
    weight : ndarray of float, shape (n,), optional
        Relative draw probability within a source (onset weighting).
    shares : ndarray of float, shape (n_sources,), optional
        Fraction of ``k`` for each source index (renormalised over the sources present; split
        by :func:`weighted_shares`); None: equal.

    Returns
    -------
    ndarray of int64, shape (k,)
        Sources in ascending order, the first ``k % n_sources`` one row more; within a source
        as :func:`balanced_order` draws (a source with fewer rows than its share repeats them).
    """
    present = np.unique(source)
    if shares is None:
        share = equal_shares(k, present.size)
    else:
        share = weighted_shares(k, np.asarray(shares, np.float64)[present])
    parts = []
    for s, n in zip(present, share, strict=True):
        sel = source == s
        parts.append(_draw(rng, rows[sel], int(n), None if weight is None else weight[sel]))
    return np.concatenate(parts).astype(np.int64)


def equal_shares(k: int, n: int) -> np.ndarray:
    """``k`` split into ``n`` integer shares as equal as possible, the first ``k % n`` one
    more; int64 shape (n,)."""
    share = np.full(n, k // n, dtype=np.int64)
    share[: k % n] += 1
    return share


def weighted_shares(k: int, fractions: np.ndarray) -> np.ndarray:
    """``k`` split in proportion to ``fractions`` (largest remainders, ties to the first);
    int64 shape (n,), summing to ``k``."""
    exact = k * fractions / fractions.sum()
    share = np.floor(exact).astype(np.int64)
    share[np.argsort(-(exact - share), kind="stable")[: k - share.sum()]] += 1
    return share


def dro_shares(shares: np.ndarray, losses: np.ndarray, eta: float) -> np.ndarray:
    """One online group-DRO step: ``shares * exp(eta * losses)``, renormalised, with no share
    below half of an equal one.

    Parameters
    ----------
    shares : ndarray of float, shape (n_sources,)
        The current fractions (sum 1).
    losses : ndarray of float, shape (n_sources,)
        Each source's loss under the current model (balanced cross-entropy on its probe).
    eta : float
        Step size (``TrainConfig.source_dro``); 0 leaves the shares as they are.

    Returns
    -------
    ndarray of float64, shape (n_sources,), summing to 1
    """
    # subtracting the largest loss keeps exp() in range and changes nothing after renormalising
    q = np.asarray(shares, np.float64) * np.exp(eta * (losses - np.max(losses)))
    q /= q.sum()
    floor = 0.5 / q.size
    held = np.zeros(q.size, bool)
    for _ in range(q.size):  # hold the sources below the floor at it, rescale the others
        held |= q < floor
        q[held] = floor
        q[~held] *= (1.0 - floor * held.sum()) / q[~held].sum()
        if not (q[~held] < floor).any():
            break
    return q


def dro_probe(
    rng: np.random.Generator, rows: np.ndarray, source: np.ndarray, n_sources: int, k: int
) -> list[np.ndarray]:
    """Up to ``k`` of ``rows`` for each source index (sorted; fixed for a whole training, so the
    shares move with the model, not with the probe). List of int64 arrays, one a source."""
    out = []
    for s in range(n_sources):
        own = rows[source == s]
        out.append(np.sort(rng.choice(own, min(k, own.size), replace=False)).astype(np.int64))
    return out


def parse_sources(text: str) -> tuple[str, ...]:
    """``'A+A3+B,XT1,XT2'`` -> ``('A+A3+B', 'XT1', 'XT2')``: sources, each a ``+``-joined group
    of top-level corpus folders (``'folders'``: every top-level folder its own source)."""
    groups = tuple(g.strip() for g in text.split(",") if g.strip())
    if not groups:
        raise RtEegError(f"--balance-sources {text!r}: no source given")
    return groups


def row_sources(store: FeatureStore, rows: np.ndarray, groups: tuple[str, ...]) -> tuple:
    """Source index of each row: the group holding its recording's top-level folder.

    Parameters
    ----------
    store : FeatureStore
    rows : ndarray of int, shape (n,)
    groups : tuple of str
        ``+``-joined folder names (``('folders',)``: each folder of ``rows``' recordings).

    Returns
    -------
    source : ndarray of int64, shape (n,)
    names : tuple of str
        The sources, in index order.
    """
    recs = store.index["recordings"]
    top = np.asarray([PurePosixPath(r["name"]).parts[0] for r in recs], dtype=object)
    _, track, _ = store.track_epoch(rows)
    row_top = top[store.track_recording[track]]
    if groups == ("folders",):
        groups = tuple(sorted(set(row_top.tolist())))
    folder_of: dict[str, int] = {}
    for i, g in enumerate(groups):
        for f in g.split("+"):
            if not f or f in folder_of:
                raise RtEegError(f"--balance-sources: folder {f!r} is empty or in two sources")
            folder_of[f] = i
    missing = sorted(set(row_top.tolist()) - set(folder_of))
    if missing:
        raise RtEegError(
            f"--balance-sources: training recordings under {missing} are in no source "
            f"(sources: {', '.join(groups)})",
            store.path,
        )
    source = np.asarray([folder_of[t] for t in row_top], np.int64)
    empty = [groups[i] for i in range(len(groups)) if not (source == i).any()]
    if empty:
        raise RtEegError(f"--balance-sources: no training recordings in {empty}", store.path)
    return source, groups


def context_scale(store: FeatureStore, rows: np.ndarray) -> np.ndarray:
    """Per-feature scale of the context inputs: 1.4826 x the median absolute deviation of
    ``frame - centre`` over the (observed frames of the) given samples' windows.

    Returns
    -------
    scale : ndarray of float32, shape (n_features,)
    """
    w, nv, _ = store.windows(rows)
    rel = w - store.centers(rows)[:, None, :]
    obs = np.arange(WINDOW_FRAMES)[None, :] >= (WINDOW_FRAMES - nv)[:, None]
    vals = rel[obs]  # (n_observed_frames, F)
    med = np.median(vals, axis=0)
    mad = np.median(np.abs(vals - med), axis=0)
    return np.maximum(1.4826 * mad, 1e-3).astype(np.float32)


#: Samples per gather of ``'context_montage'`` inputs (each gathers its recording's channels).
MONTAGE_CHUNK = 1024


def model_inputs(store: FeatureStore, rows: np.ndarray, norm: str, scale, centers=None) -> tuple:
    """Model inputs and labels of the given samples (``centers``: instead of the store's).

    For ``'context_montage'`` every channel of each sample's recording is gathered at the
    sample's epoch (the store's centres for the others), normalised as the decoder does live,
    and the sample's own row kept beside its group's mean.
    """
    if norm == "context_montage":
        rows = np.asarray(rows, dtype=np.int64)
        x = np.empty((len(rows), WINDOW_FRAMES, 2 * store.n_features), np.float32)
        for a in range(0, len(rows), MONTAGE_CHUNK):  # ~22 windows a sample: bounded memory
            group_rows, sizes, own = store.montage_rows(rows[a : a + MONTAGE_CHUNK])
            w, nv, _ = store.windows(group_rows)
            c = store.centers(group_rows)
            if centers is not None:
                c[own] = centers[a : a + MONTAGE_CHUNK]
            rel = normalise_windows(w, nv, "context", c, scale)
            x[a : a + len(own), :, : store.n_features] = rel[own]
            x[a : a + len(own), :, store.n_features :] = montage_departure(rel, sizes)
        return x, np.asarray(store.labels[rows], np.float32)
    w, nv, y = store.windows(rows)
    if centers is None and norm in CONTEXT_NORMALISATIONS:
        centers = store.centers(rows)
    hist = n_hist = None
    if norm in HISTORY_NORMALISATIONS:
        hist, n_hist = store.history(rows)
    return normalise_windows(w, nv, norm, centers, scale, history=hist, n_history=n_hist), y


def batches(
    store: FeatureStore,
    order: np.ndarray,
    batch_size: int,
    norm: str,
    scale=None,
    jitter: float = 0.0,
    stale: float = 0.0,
    seed: tuple = (),
    warp: float = 0.0,
    feature_config=None,
    warp_on: str = "all",
    mix: float = 0.0,
):
    """Yield (x, y, seconds spent, augmented counts) for consecutive batches, one prepared
    ahead in a thread (counts: ``{'stale': samples given stale centres, 'mixed': seizure
    samples mixed}``).

    The augmentations of :mod:`rt_eeg.augment` (``stale`` > 0: stale centres; ``jitter`` > 0:
    contrast jitter; ``mix`` > 0: seizure samples mixed within the batch; ``warp`` > 0:
    frequency warp of the store's features, described by
    ``feature_config``, of the ``warp_on`` samples: 'all', 'background' or 'seizure') draw from
    generators seeded from ``seed`` and the batch's index, so the draw does not depend on the
    prefetch thread's timing.
    """

    if warp > 0 and (feature_config is None or feature_config.n_features != store.n_features):
        raise ValueError("a frequency warp needs the FeatureConfig the store's features were made with")
    if warp_on not in WARP_ON:
        raise ValueError(f"warp_on must be one of {WARP_ON}, got {warp_on!r}")

    def make(rows: np.ndarray, b: int):
        t = time.perf_counter()
        centers, n_stale = None, 0
        if stale > 0:
            centers, picked = stale_centers(store, rows, stale, np.random.default_rng([*seed, b, 1]))
            n_stale = int(picked.sum())
        x, y = model_inputs(store, rows, norm, scale, centers)
        if jitter > 0:
            jitter_contrast(x, norm, jitter, np.random.default_rng([*seed, b]), store.n_features)
        if warp > 0:
            only = None
            if warp_on != "all":
                seizure = np.asarray(y).reshape(len(y), -1)[:, 0] >= 0.5
                only = seizure if warp_on == "seizure" else ~seizure
            warp_frequency(x, norm, scale, warp, np.random.default_rng([*seed, b, 2]), feature_config, only)
        n_mixed = mix_seizures(x, y, mix, np.random.default_rng([*seed, b, 3])) if mix > 0 else 0
        return x, y, time.perf_counter() - t, {"stale": n_stale, "mixed": n_mixed}

    n = len(order)
    n_batches = max(1, n // batch_size)  # drop a ragged tail: fixed shapes, no retracing
    size = min(batch_size, n)
    with ThreadPoolExecutor(max_workers=1) as ex:
        fut = ex.submit(make, order[:size], 0)
        for b in range(n_batches):
            nxt = None
            if b + 1 < n_batches:
                nxt = ex.submit(make, order[(b + 1) * size : (b + 2) * size], b + 1)
            yield fut.result()
            fut = nxt
