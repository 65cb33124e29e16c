"""Tail averaging of the training weights (Polyak-Ruppert averaging, SWA at a constant rate).

The decoder is trained for a fixed number of epochs and the last weights are kept; where
training stops on the noisy path of a constant learning rate decides much of what a seed
scores. The uniform mean of the weights after every step of the last epochs is a point near
the centre of the region the path wanders in, which tends to be flatter and to generalise
better than any single step (Izmailov et al. 2018, "Averaging weights leads to wider optima
and better generalization"). The decoder has no batch-normalisation statistics, so the mean
weights need no recomputation.
"""

from __future__ import annotations

import numpy as np


class TailAverage:
    """Running uniform mean of a list of weight arrays, accumulated in float64.

    Examples
    --------
    >>> avg = TailAverage()
    >>> avg.add([np.ones(2, np.float32)]); avg.add([np.zeros(2, np.float32)])
    >>> avg.mean()[0]
    array([0.5, 0.5], dtype=float32)
    """

    def __init__(self) -> None:
        self._sum: list[np.ndarray] | None = None
        self._dtypes: list[np.dtype] = []
        self.count = 0

    def add(self, weights: list[np.ndarray]) -> None:
        """Add one snapshot (e.g. ``model.get_weights()``; arrays of any shapes, fixed order)."""
        if self._sum is None:
            self._sum = [np.asarray(w, np.float64).copy() for w in weights]
            self._dtypes = [np.asarray(w).dtype for w in weights]
        else:
            if len(weights) != len(self._sum):
                raise ValueError(f"expected {len(self._sum)} weight arrays, got {len(weights)}")
            for s, w in zip(self._sum, weights, strict=True):
                s += w
        self.count += 1

    def mean(self) -> list[np.ndarray]:
        """The mean of the snapshots added, each array in its original dtype."""
        if self._sum is None:
            raise ValueError("no weights were added")
        return [(s / self.count).astype(d) for s, d in zip(self._sum, self._dtypes, strict=True)]
