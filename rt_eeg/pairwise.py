"""numpy's float64 summation order, reproduced, so bulk arithmetic equals per-epoch ``np.mean``.

The online postprocessor takes small means one epoch at a time (``np.mean`` of a few scores or
probabilities). Its offline, vectorised twins (:func:`rt_eeg.postprocess.score_series`,
:mod:`rt_eeg.scored_events`) must give the same bits, and numpy's ``add.reduce`` over a float64
vector is not a plain loop: under 8 elements it adds them in order from 0.0; from 8 it keeps
eight partial sums over blocks of 8, combines them as a tree and adds the remainder in order
(``pairwise_sum``; longer than 128 it also splits recursively, which nothing here needs).
Tests compare both helpers with ``np.mean`` on random data.
"""

from __future__ import annotations

import numpy as np

#: Longest vector the helpers reproduce (numpy's pairwise block).
MAX_N = 128


def pairwise_sum(vals: list[float]) -> float:
    """``np.add.reduce`` of a float64 vector of at most :data:`MAX_N` elements, as Python floats
    (no numpy call: the cheap way for one short window)."""
    n = len(vals)
    if n > MAX_N:
        raise ValueError(f"{n} elements: at most {MAX_N}")
    if n < 8:
        acc = 0.0
        for v in vals:
            acc += v
        return acc
    r = list(vals[:8])
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += vals[i + j]
        i += 8
    acc = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for v in vals[i:]:
        acc += v
    return acc


def pairwise_rows(cols: list[np.ndarray]) -> np.ndarray:
    """:func:`pairwise_sum` of many vectors at once, elementwise: ``cols[j]`` holds every
    vector's element ``j`` (equal shapes), so ``out[...] = pairwise_sum([c[...] for c in cols])``.

    Parameters
    ----------
    cols : list of ndarray of float64, each of shape S (1..MAX_N of them)

    Returns
    -------
    sums : ndarray of float64, shape S
    """
    n = len(cols)
    if not 1 <= n <= MAX_N:
        raise ValueError(f"{n} columns: 1..{MAX_N}")
    if n < 8:
        acc = np.zeros_like(cols[0], dtype=np.float64)
        for c in cols:
            acc = acc + c
        return acc
    r = [np.array(cols[j], dtype=np.float64) for j in range(8)]
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] = r[j] + cols[i + j]
        i += 8
    acc = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for c in cols[i:]:
        acc = acc + c
    return acc
