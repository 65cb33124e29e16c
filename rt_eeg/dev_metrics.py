"""Per-channel-epoch scores of a decoder on labelled samples: ROC AUC and class-balanced BCE.

Used on the dev split every training epoch (:mod:`rt_eeg.train`) and by the tools that rank
channel-epochs of whole corpora (``tools/real_checks.py``, ``tools/recipe_report.py``).
"""

from __future__ import annotations

import numpy as np


def roc_auc(y: np.ndarray, p: np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney, ties counted half); NaN with one class."""
    from scipy.stats import rankdata

    y = np.asarray(y) > 0.5
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(np.asarray(p, np.float64))
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def dev_scores(y: np.ndarray, p: np.ndarray) -> dict:
    """Class-balanced BCE, ROC AUC, sensitivity and specificity at 0.5 (per-epoch, per-channel)."""
    y = np.asarray(y) > 0.5
    p = np.clip(np.asarray(p, np.float64), 1e-7, 1 - 1e-7)
    bce = -(np.where(y, np.log(p), np.log1p(-p)))
    parts = [bce[y].mean() if y.any() else np.nan, bce[~y].mean() if (~y).any() else np.nan]
    return {
        "balanced_bce": float(np.nanmean(parts)),
        "auc": roc_auc(y, p),
        "sensitivity": float((p[y] >= 0.5).mean()) if y.any() else float("nan"),
        "specificity": float((p[~y] < 0.5).mean()) if (~y).any() else float("nan"),
        "n_seiz": int(y.sum()),
        "n_bckg": int((~y).sum()),
    }
