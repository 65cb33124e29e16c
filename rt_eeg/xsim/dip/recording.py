"""What the parts of one rendering share: timing, head, vigilance plan, output buffers, events."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .head import Head
from .signals import CTRL_FS
from .states import StatePlan


@dataclass
class Recording:
    """One recording being rendered.

    Attributes
    ----------
    fs, n, duration : sampling rate, samples, seconds
    patient : dict
        The patient's traits.
    head : Head
    plan : StatePlan
    art : float
        This recording's artifact load (1 typical; above ~2.5 artifact-heavy).
    bg : ndarray, shape (21, n), float32
        Ongoing cortical activity (what a seizure or post-ictal state suppresses).
    brain : ndarray, shape (21, n), float32
        Other cortical activity (transients, discharges, seizures).
    extra : ndarray, shape (21, n), float32
        Extracranial physiological sources (eyes, muscles, tongue, heart).
    events : list of (start, stop, kind)
    busy : list of (start, stop)
        Seizure intervals widened by their post-ictal time: no optional events are put there.
    """

    fs: float
    n: int
    duration: float
    patient: dict
    head: Head
    plan: StatePlan
    art: float
    bg: np.ndarray = field(repr=False)
    brain: np.ndarray = field(repr=False)
    extra: np.ndarray = field(repr=False)
    events: list = field(default_factory=list)
    seizures: list = field(default_factory=list)
    busy: list = field(default_factory=list)
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_ctrl(self) -> int:
        return len(self.plan.member["wake_ec"])

    def event(self, t0: float, t1: float, kind: str) -> None:
        """Log an event, clipped to the recording (dropped when wholly outside it)."""
        t0, t1 = max(float(t0), 0.0), min(float(t1), self.duration)
        if t0 < self.duration and t1 >= t0:
            self.events.append((t0, t1, kind))

    def idx(self, t: float) -> int:
        return int(round(t * self.fs))

    def free(self, t0: float, t1: float, margin: float = 0.0) -> bool:
        """No seizure (or its post-ictal period) overlaps [t0 - margin, t1 + margin]."""
        return all(t1 + margin <= a or t0 - margin >= b for a, b in self.busy)

    def free_mask(self, t: np.ndarray, margin: float = 0.0) -> np.ndarray:
        ok = np.ones(len(t), dtype=bool)
        for a, b in self.busy:
            ok &= (t < a - margin) | (t > b + margin)
        return ok

    def ctrl_t(self) -> np.ndarray:
        return np.arange(self.n_ctrl) / CTRL_FS
