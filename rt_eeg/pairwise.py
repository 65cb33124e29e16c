"""numpy's float64 summation order, reproduced, so bulk arithmetic equals per-epoch ``np.mean``.

The online postprocessor takes small means one epoch at a time (``np.mean`` of a few scores or
probabilities). Its offline, vectorised twins (:func:`rt_eeg.postprocess.score_series`,
:mod:`rt_eeg.scored_events`) must give the same bits, and numpy's ``add.reduce`` over a float64
vector is not a plain loop: under 8 elements it adds them in order from 0.0; from 8 it keeps
eight partial sums over blocks of 8, combines them as a tree and adds the remainder in order
(``pairwise_sum``; longer than 128 it also splits recursively, which nothing here needs).
Under 8 elements that order is ``np.cumsum``'s, which the vectorised twins use for the short
windows at a recording's start. Tests compare the helpers with numpy on random data.
"""

from __future__ import annotations

import numpy as np

#: Longest vector the helpers reproduce (numpy's pairwise block).
MAX_N = 128


def pairwise_sum(vals) -> float:
    """``np.add.reduce`` of one float64 vector of at most :data:`MAX_N` elements
    (:func:`pairwise_rows` of one row)."""
    if len(vals) > MAX_N:
        raise ValueError(f"{len(vals)} elements: at most {MAX_N}")
    return float(pairwise_rows([np.float64(v) for v in vals]))


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
