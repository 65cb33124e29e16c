"""Hard-negative mining: train the decoder on the background it gets wrong.

A balanced epoch draws its background half uniformly from millions of background samples, so
the rare background that looks like a seizure to the model (an EMG burst, chewing, a run of
rhythmic movement artifact) is almost never shown to it: on held-out signal families those are
exactly the false alarms (``tools/analyse_errors.py``). Mining replaces a fraction of each
epoch's background half with the highest-scoring samples of a larger random candidate pool,
scored by the model as it stands after the previous epoch (online hard example mining).

Background samples close to a seizure of the same recording are never mined: a window whose
label is background but which ends a few seconds before an onset or after an offset (or on a
channel the annotation does not list) is where reference labels are least certain, and mining
would teach the model to call the seizure's own edges background.

The candidate draw uses the training rng and scoring is deterministic on the CPU, so a mined
training run stays bit-identical for a given seed (the saved data order records what was
drawn).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rt_eeg.store import FeatureStore
from rt_eeg.train_data import equal_shares


def minable_negatives(store: FeatureStore, neg: np.ndarray, margin_epochs: int) -> np.ndarray:
    """Background rows at least ``margin_epochs`` epochs from any seizure epoch of their
    recording (on any channel).

    Parameters
    ----------
    store : FeatureStore
    neg : ndarray of int64, shape (n,)
        Background label rows (ascending or not).
    margin_epochs : int
        Exclusion margin on both sides of every seizure epoch.

    Returns
    -------
    rows : ndarray of int64, shape (m,), m <= n
        The rows of ``neg`` that may be mined, in their original order.
    """
    labels = np.asarray(store.labels, dtype=bool)
    far = np.ones(labels.shape[0], dtype=bool)
    kernel = np.ones(2 * margin_epochs + 1)
    order = np.argsort(store.track_recording, kind="stable")
    _, starts = np.unique(store.track_recording[order], return_index=True)
    bounds = list(starts[1:]) + [len(order)]
    for lo_i, hi_i in zip(starts, bounds, strict=True):
        tracks = order[lo_i:hi_i]
        n_ep = int(store.track_n_epochs[tracks].min())
        if n_ep == 0:
            continue
        seiz = np.zeros(n_ep, dtype=bool)
        for t in tracks:
            off = int(store.label_offset[t])
            seiz |= labels[off : off + n_ep]
        if not seiz.any():
            continue
        near = np.convolve(seiz.astype(np.float64), kernel, mode="same") > 0.5
        for t in tracks:
            off = int(store.label_offset[t])
            far[off : off + n_ep] &= ~near
            far[off + n_ep : off + int(store.track_n_epochs[t])] = False  # ragged tail: unsure
    neg = np.asarray(neg, dtype=np.int64)
    return neg[far[neg]]


def mine_order(
    order: np.ndarray,
    labels: np.ndarray,
    rng: np.random.Generator,
    minable: np.ndarray,
    fraction: float,
    pool: int,
    score: Callable[[np.ndarray], np.ndarray],
    minable_source: np.ndarray | None = None,
) -> tuple[np.ndarray, dict]:
    """Replace ``fraction`` of an epoch's background rows with the hardest of a random pool.

    Parameters
    ----------
    order : ndarray of int64, shape (n,)
        One epoch of sample rows (:func:`rt_eeg.train_data.balanced_order`).
    labels : ndarray, shape (n,)
        Their labels (1 seizure, 0 background).
    rng : np.random.Generator
        The training rng (candidate draw and the final shuffle).
    minable : ndarray of int64
        Rows that may be mined (:func:`minable_negatives`).
    fraction : float
        Share of the epoch's background rows replaced, in (0, 1].
    pool : int
        Candidates scored per mined row (the hardest ``1 / pool`` of the candidates are kept).
    score : callable
        ``rows -> P(seizure)`` of the current model, shape ``(len(rows),)``.
    minable_source : ndarray of int, shape (len(minable),), optional
        Training source of each minable row: the candidate pool is then split equally between
        the sources (:func:`balanced_candidates`), so one large source's background does not
        make up most of what can be mined. The hardest are still kept over the whole pool.

    Returns
    -------
    order : ndarray of int64, shape (n,)
        The new epoch, shuffled.
    info : dict
        ``mined`` rows, ``candidates`` scored, ``score_median`` / ``score_min`` of the mined
        rows (how hard they were); with ``minable_source``, ``mined_per_source`` (counts by
        source index).
    """
    bg_pos = np.flatnonzero(np.asarray(labels) < 0.5)
    n_hard = min(int(round(fraction * bg_pos.size)), minable.size // max(pool, 1))
    if minable_source is not None:  # every source must fill its share of the pool
        n_src = np.unique(minable_source).size
        n_hard = min(n_hard, _balanced_capacity(minable_source) // max(pool, 1))
    if n_hard < 1:
        return order, {"mined": 0, "candidates": 0}
    if minable_source is None:
        cand = rng.choice(minable, n_hard * pool, replace=False)
    else:
        cand, cand_src = balanced_candidates(rng, minable, minable_source, n_hard * pool)
    p = np.asarray(score(cand), dtype=np.float64).reshape(-1)
    keep = np.argsort(-p, kind="stable")[:n_hard]
    out = np.array(order, dtype=np.int64, copy=True)
    out[bg_pos[:n_hard]] = cand[keep]
    info = {
        "mined": int(n_hard),
        "candidates": int(cand.size),
        "score_median": round(float(np.median(p[keep])), 6),
        "score_min": round(float(p[keep].min()), 6),
    }
    if minable_source is not None:
        info["mined_per_source"] = np.bincount(cand_src[keep], minlength=n_src).tolist()
    return rng.permutation(out), info


#: Background rows the frozen 7 s decoder scores to find its calls (``--veto-called``).
CALL_POOL = 1_000_000


def called_rows(
    rng: np.random.Generator,
    pos: np.ndarray,
    minable: np.ndarray,
    score: Callable[[np.ndarray], np.ndarray],
    threshold: float,
    pool: int = CALL_POOL,
    minable_source: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict]:
    """What a veto trains on (amendment 46): the rows a frozen decoder calls seizure.

    The decoder is frozen, so its calls are fixed before training: it scores every seizure
    row and a random pool of minable background rows (split equally between sources when
    ``minable_source`` is given), and the rows at or above ``threshold`` are kept.

    Parameters
    ----------
    rng : np.random.Generator
        Draws the background pool.
    pos : ndarray of int64, shape (n_pos,)
        Seizure rows.
    minable : ndarray of int64, shape (n,)
        Background rows away from seizures (:func:`minable_negatives`).
    score : callable
        ``rows -> P(seizure)`` of the frozen decoder, shape ``(len(rows),)``.
    threshold : float
    pool : int
        Background rows scored (all of ``minable`` when it has fewer).
    minable_source : ndarray of int, shape (n,), optional
        Training source of each minable row.

    Returns
    -------
    pos_called : ndarray of bool, shape (n_pos,)
        Which seizure rows the decoder calls.
    neg : ndarray of int64, shape (m,)
        The background rows of the pool it calls.
    neg_source : ndarray of int64, shape (m,), or None
        Their source indices (``0 .. n_sources - 1`` over the sources present).
    info : dict
        Counts, for the manifest.

    Raises
    ------
    RtEegError
        The decoder calls no seizure row or no background row of the pool.
    """
    from rt_eeg.errors import RtEegError

    p_pos = np.asarray(score(pos), np.float64).reshape(-1)
    pos_called = p_pos >= threshold
    n_pool = min(int(pool), minable.size)
    if minable_source is None:
        cand, cand_src = rng.choice(minable, n_pool, replace=False), None
    else:  # every source present must fill its share
        n_pool = min(n_pool, _balanced_capacity(minable_source))
        cand, cand_src = balanced_candidates(rng, minable, minable_source, n_pool)
    p = np.asarray(score(cand), np.float64).reshape(-1)
    called = p >= threshold
    info = {
        "threshold": float(threshold),
        "seizure_called": int(pos_called.sum()),
        "seizure_total": int(pos.size),
        "background_scored": int(cand.size),
        "background_called": int(called.sum()),
    }
    if cand_src is not None:
        info["background_called_per_source"] = np.bincount(
            cand_src[called], minlength=np.unique(minable_source).size
        ).tolist()
    if not pos_called.any() or not called.any():
        raise RtEegError(
            f"the 7 s decoder calls {info['seizure_called']} seizure and "
            f"{info['background_called']} background rows at {threshold}: nothing for a veto "
            "to learn from"
        )
    return pos_called, cand[called], None if cand_src is None else cand_src[called], info


def _balanced_capacity(source: np.ndarray) -> int:
    """The most rows :func:`balanced_candidates` can draw: the smallest source's count times
    the number of sources present."""
    present = np.unique(source)
    return int(np.bincount(source)[present].min()) * present.size


def balanced_candidates(
    rng: np.random.Generator, minable: np.ndarray, source: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """``k`` distinct rows of ``minable`` split as equally as possible between its sources.

    Parameters
    ----------
    rng : np.random.Generator
    minable : ndarray of int64, shape (n,)
    source : ndarray of int, shape (n,)
        Source index of each row; every source present needs at least its share of rows.
    k : int

    Returns
    -------
    rows : ndarray of int64, shape (k,)
        Sources in ascending order, the first ``k % n_sources`` one row more.
    row_source : ndarray of int64, shape (k,)
        The source index of each drawn row (``0 .. n_sources - 1`` over the sources present).
    """
    present = np.unique(source)
    share = equal_shares(k, present.size)
    rows, srcs = [], []
    for i, (s, n) in enumerate(zip(present, share, strict=True)):
        rows.append(rng.choice(minable[source == s], int(n), replace=False))
        srcs.append(np.full(int(n), i, np.int64))
    return np.concatenate(rows).astype(np.int64), np.concatenate(srcs)
