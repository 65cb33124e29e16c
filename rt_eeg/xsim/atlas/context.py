"""The rendering context shared by every page of the atlas: signal buffer, clocks, events."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .geometry import N_CH

#: Rate (Hz) of the control grid on which slow envelopes (states, rates) are drawn.
CTRL_RATE = 4.0


@dataclass
class Ctx:
    """One recording being rendered.

    Attributes
    ----------
    eeg : ndarray of float32, shape (21, n)
        Accumulated potentials (uV); every page adds into it.
    weights : ndarray, shape (n_states, n_ctrl)
        Vigilance-state weights on the control grid (set by :mod:`.states`).
    events : list of (start_s, stop_s, kind)
        Non-seizure events drawn so far.
    """

    patient: dict
    rng: np.random.Generator
    duration: float
    sfreq: float
    seizures: list[tuple[float, float]]
    eeg: np.ndarray = field(init=False)
    n: int = field(init=False)
    n_ctrl: int = field(init=False)
    t_ctrl: np.ndarray = field(init=False)
    weights: np.ndarray | None = None
    events: list[tuple[float, float, str]] = field(default_factory=list)
    seizure_types: list[str] = field(default_factory=list)
    _t: np.ndarray | None = None
    #: Per-electrode gain applied to brain activity only (skull breach, impedance, patient).
    brain_gain: np.ndarray = field(init=False)
    #: 1 on the control grid where the background is burst-suppression.
    bs_mask: np.ndarray = field(init=False)

    def __post_init__(self):
        self.n = int(round(self.duration * self.sfreq))
        self.eeg = np.zeros((N_CH, self.n), dtype=np.float32)
        self.brain_gain = np.ones(N_CH)
        self.n_ctrl = int(np.ceil(self.duration * CTRL_RATE)) + 2
        self.t_ctrl = np.arange(self.n_ctrl) / CTRL_RATE
        self.bs_mask = np.zeros(self.n_ctrl)

    @property
    def t(self) -> np.ndarray:
        """Sample times (s), computed once."""
        if self._t is None:
            self._t = np.arange(self.n) / self.sfreq
        return self._t

    def to_samples(self, ctrl: np.ndarray) -> np.ndarray:
        """A control-grid series interpolated to every sample (float32)."""
        return np.interp(self.t, self.t_ctrl, ctrl).astype(np.float32)

    def ctrl_slice(self, a: float, b: float) -> slice:
        """Control-grid slice covering ``[a, b)`` seconds."""
        return slice(max(0, int(a * CTRL_RATE)), min(self.n_ctrl, int(np.ceil(b * CTRL_RATE))))

    def s(self, t: float) -> int:
        """Sample index of time ``t`` s (clipped into the recording)."""
        return int(min(max(round(t * self.sfreq), 0), self.n))

    def near_seizure(self, a: float, b: float, margin: float = 5.0) -> bool:
        """Whether ``[a, b]`` comes within ``margin`` s of a seizure."""
        return any(a < y + margin and b > x - margin for x, y in self.seizures)

    def free_ctrl(self, margin: float = 5.0, post: float = 0.0) -> np.ndarray:
        """1 on the control grid away from seizures (and ``post`` s after them), else 0."""
        m = np.ones(self.n_ctrl)
        for a, b in self.seizures:
            m[self.ctrl_slice(a - margin, b + margin + post)] = 0.0
        return m

    def event(self, a: float, b: float, kind: str):
        """Record a non-seizure event (clipped into the recording)."""
        a, b = max(0.0, float(a)), min(self.duration, float(b))
        if b > a:
            self.events.append((round(a, 3), round(b, 3), kind))

    def add(self, fieldv: np.ndarray, sig: np.ndarray, start: int = 0):
        """Add ``field x sig`` at sample ``start`` (clipped)."""
        a, b = start, start + sig.size
        if b <= 0 or a >= self.n:
            return
        ka, kb = max(0, -a), sig.size - max(0, b - self.n)
        fv = np.asarray(fieldv, dtype=np.float32)
        s = sig[ka:kb].astype(np.float32, copy=False)
        a, b = max(a, 0), min(b, self.n)
        if s.size > 50_000:
            # Long signals: channel by channel, without a (21, n) temporary.
            for c in np.flatnonzero(np.abs(fv) > 1e-5):
                self.eeg[c, a:b] += fv[c] * s
        else:
            self.eeg[:, a:b] += fv[:, None] * s[None, :]
