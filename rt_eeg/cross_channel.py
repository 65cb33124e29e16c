"""The learned cross-channel scorer: a tiny MLP over the channels' recent history (numpy only).

The default postprocessor scores an epoch by the mean of its ``top_k`` smoothed channels. An
artifact (EMG, chewing, patting) often drives many channels to 0.999 at once, in the very first
epoch; a seizure climbs over seconds from a few channels. A score that looks at the *shape* of
the last ``epochs`` seconds across channels can tell them apart; a threshold on one epoch
cannot. This module owns that score:

- **Inputs** (causal, montage-agnostic): for each of the last ``epochs`` epochs, from the
  postprocessor's smoothed channel probabilities, the ``top_m`` highest as logits (descending),
  the fraction of channels at or above 0.5, and the logit of the channel mean. Probabilities are
  clipped to ``[PROB_CLIP, 1 - PROB_CLIP]`` first, so 0.998 and 0.9999 stay apart (logits 6.2 and
  9.2). Epochs before the recording start or a gap reset are a fixed pad: the features of an
  all-zero probability vector. The window is flattened oldest epoch first.
- **Model**: ``sigmoid(relu(x @ w1 + b1) @ w2 + b2)``, weights in float32, computed in float64.
  Its output replaces the top-k mean in the hysteresis (:mod:`rt_eeg.postprocess`).

The weights live in the model folder's ``postprocess.toml`` as a ``[cross_channel]`` table
(written by ``tools/train_cross_channel.py``), parsed into :class:`CrossChannelConfig`, the
``cross_channel`` field of :class:`~rt_eeg.postprocess.PostprocessConfig`. The same object runs
online and offline, and no TensorFlow is imported at inference.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

#: Probabilities are clipped to [PROB_CLIP, 1 - PROB_CLIP] before the logit (|logit| <= 13.8).
PROB_CLIP = 1e-6
#: Features per epoch besides the top-m logits: fraction of channels >= 0.5, logit of the mean.
EXTRA_FEATURES = 2
#: Largest accepted window and hidden layer (keeps the scorer tiny and the TOML readable).
MAX_EPOCHS, MAX_TOP_M, MAX_HIDDEN = 64, 32, 256

_KEYS = ("epochs", "top_m", "hidden", "w1", "b1", "w2", "b2", "trained_on")


def logit(p: np.ndarray) -> np.ndarray:
    """Logit of probabilities, clipped to ``[PROB_CLIP, 1 - PROB_CLIP]`` so 0 and 1 stay finite."""
    p = np.clip(p, PROB_CLIP, 1.0 - PROB_CLIP)
    return np.log(p) - np.log1p(-p)


def epoch_features(smoothed: np.ndarray, top_m: int) -> np.ndarray:
    """One epoch's inputs from its smoothed channel probabilities.

    Parameters
    ----------
    smoothed : np.ndarray
        ``(n_channels,)`` smoothed P(seizure) per channel.
    top_m : int
        Channels kept, highest first (fewer channels than ``top_m``: padded with the clip floor).

    Returns
    -------
    np.ndarray
        ``(top_m + 2,)`` float64: top-m logits (descending), fraction >= 0.5, logit of the mean.
    """
    p = np.asarray(smoothed, np.float64)
    top = np.sort(p)[::-1][:top_m]
    if len(top) < top_m:
        top = np.r_[top, np.zeros(top_m - len(top))]
    frac = float(np.count_nonzero(p >= 0.5)) / max(len(p), 1)
    mean = float(np.mean(p)) if len(p) else 0.0
    return np.r_[logit(top), frac, logit(np.array([mean]))]


def _floats(value, key: str, shape: tuple[int, ...]) -> tuple:
    """A nested list of numbers of exactly ``shape`` as nested tuples of float32-exact floats."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"cross_channel.{key} must be numbers of shape {shape}") from None
    if arr.dtype == object or arr.shape != shape:
        raise ValueError(f"cross_channel.{key} must have shape {shape}, got {np.shape(value)}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"cross_channel.{key} holds a non-finite value (NaN or inf)")
    arr32 = arr.astype(np.float32)
    if not np.all(np.isfinite(arr32)):
        raise ValueError(f"cross_channel.{key} holds a value beyond float32 range")
    out = arr32.astype(np.float64).tolist()
    return tuple(tuple(r) for r in out) if arr.ndim == 2 else (tuple(out) if arr.ndim == 1 else out)


@dataclass(frozen=True)
class CrossChannelConfig:
    """Shape and weights of the cross-channel MLP (``[cross_channel]`` in postprocess.toml).

    Attributes
    ----------
    epochs : int
        Epochs of history in the input window (T, at most the postprocessor's buffer_epochs).
    top_m : int
        Channels per epoch, highest first.
    hidden : int
        Hidden units.
    w1 : tuple of tuple of float
        ``(epochs * (top_m + 2), hidden)`` first-layer weights.
    b1 : tuple of float
        ``(hidden,)``.
    w2 : tuple of float
        ``(hidden,)`` output weights.
    b2 : float
        Output bias.
    trained_on : str
        Provenance: what the weights were trained on and how.
    """

    epochs: int
    top_m: int
    hidden: int
    w1: tuple
    b1: tuple
    w2: tuple
    b2: float
    trained_on: str = ""

    @property
    def n_inputs(self) -> int:
        return self.epochs * (self.top_m + EXTRA_FEATURES)

    @classmethod
    def from_dict(cls, d: dict) -> CrossChannelConfig:
        """Validate a ``[cross_channel]`` table (``ValueError`` naming the key)."""
        if not isinstance(d, dict):
            raise ValueError(f"cross_channel must be a table, got {d!r}")
        unknown = sorted(set(d) - set(_KEYS))
        if unknown:
            raise ValueError(f"unknown key cross_channel.{unknown[0]} (known: {', '.join(_KEYS)})")
        missing = [k for k in _KEYS[:-1] if k not in d]
        if missing:
            raise ValueError(f"cross_channel.{missing[0]} is missing")
        sizes = {}
        for key, hi in (("epochs", MAX_EPOCHS), ("top_m", MAX_TOP_M), ("hidden", MAX_HIDDEN)):
            v = d[key]
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= hi:
                raise ValueError(f"cross_channel.{key} must be an integer in 1..{hi}, got {v!r}")
            sizes[key] = v
        n_in = sizes["epochs"] * (sizes["top_m"] + EXTRA_FEATURES)
        h = sizes["hidden"]
        b2 = d["b2"]
        if not isinstance(b2, (int, float)) or isinstance(b2, bool) or not math.isfinite(b2):
            raise ValueError(f"cross_channel.b2 must be a finite number, got {b2!r}")
        trained_on = d.get("trained_on", "")
        if not isinstance(trained_on, str):
            raise ValueError(f"cross_channel.trained_on must be a string, got {trained_on!r}")
        return cls(
            **sizes,
            w1=_floats(d["w1"], "w1", (n_in, h)),
            b1=_floats(d["b1"], "b1", (h,)),
            w2=_floats(d["w2"], "w2", (h,)),
            b2=float(np.float32(b2)),
            trained_on=trained_on,
        )

    def to_dict(self) -> dict:
        """Plain lists and floats (TOML/JSON); ``from_dict(to_dict())`` is exact."""
        return {"epochs": self.epochs, "top_m": self.top_m, "hidden": self.hidden,
                "w1": [list(r) for r in self.w1], "b1": list(self.b1), "w2": list(self.w2),
                "b2": self.b2, "trained_on": self.trained_on}  # fmt: skip

    @classmethod
    def from_arrays(cls, w1, b1, w2, b2, *, epochs: int, top_m: int, trained_on: str = ""):
        """From numpy weights (rounded to float32): ``w1 (n_inputs, hidden)``, ``b1 (hidden,)``,
        ``w2 (hidden,)`` or ``(hidden, 1)``, ``b2`` scalar or ``(1,)``."""
        w1 = np.asarray(w1, np.float32)
        return cls.from_dict({
            "epochs": epochs, "top_m": top_m, "hidden": int(w1.shape[1]), "w1": w1.tolist(),
            "b1": np.asarray(b1, np.float32).tolist(),
            "w2": np.asarray(w2, np.float32).reshape(-1).tolist(),
            "b2": float(np.asarray(b2, np.float32).reshape(-1)[0]), "trained_on": trained_on,
        })  # fmt: skip


class CrossChannelScorer:
    """Causal scorer: push one epoch's smoothed probabilities, get its score.

    Parameters
    ----------
    cfg : CrossChannelConfig
    """

    def __init__(self, cfg: CrossChannelConfig):
        self.cfg = cfg
        self.w1 = np.array(cfg.w1, np.float64)
        self.b1 = np.array(cfg.b1, np.float64)
        self.w2 = np.array(cfg.w2, np.float64)
        self.b2 = float(cfg.b2)
        self.pad = epoch_features(np.zeros(1), cfg.top_m)
        self.reset()

    def reset(self) -> None:
        """Forget the history (recording start, gap, restart): the window is all pad."""
        self._window: deque[np.ndarray] = deque([self.pad] * self.cfg.epochs, maxlen=self.cfg.epochs)
        self.last_inputs: np.ndarray | None = None

    def push(self, smoothed: np.ndarray) -> float:
        """Score the newest epoch from ``(n_channels,)`` smoothed probabilities."""
        self._window.append(epoch_features(smoothed, self.cfg.top_m))
        self.last_inputs = np.concatenate(self._window)
        return float(self.forward(self.last_inputs[None, :])[0])

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The MLP on ``(n, n_inputs)`` inputs; returns ``(n,)`` scores in [0, 1]."""
        h = np.maximum(np.asarray(x, np.float64) @ self.w1 + self.b1, 0.0)
        z = h @ self.w2 + self.b2
        return 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic function, without exp overflow
