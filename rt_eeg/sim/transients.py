"""Short events added on top of the background: artifacts and sleep graphoelements.

A :class:`Transient` is a frozen description (kind, start, duration, amplitude, site, seed);
its waveform is rendered on demand from those fields alone, so a transient that straddles
two blocks renders identically in both. :class:`TransientTrack` finds the transients that
overlap a block and adds their slices.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Transient:
    """One short event.

    Attributes
    ----------
    kind : str
        Key of the renderer ('blink', 'muscle', 'spindle', ...).
    start, duration : float
        Seconds.
    amp : float
        Microvolts (meaning depends on the kind: peak or rms).
    site : str
        Electrode or region the event is centred on ('' when not applicable).
    seed : int
        Seeds any randomness of the waveform.
    param : float
        One kind-specific parameter (e.g. frequency in Hz).
    """

    kind: str
    start: float
    duration: float
    amp: float
    site: str = ""
    seed: int = 0
    param: float = 0.0

    @property
    def stop(self) -> float:
        return self.start + self.duration


#: A renderer: (transient, sfreq) -> (electrode columns (k,), waveform (n, k) float32 uV).
Renderer = Callable[[Transient, float], tuple[np.ndarray, np.ndarray]]


class TransientTrack:
    """Transients of one recording, queried block by block.

    Parameters
    ----------
    transients : list of Transient
    renderers : dict of str -> Renderer
    sfreq : float
    """

    def __init__(self, transients: list[Transient], renderers: dict[str, Renderer], sfreq: float):
        self.items = sorted(transients, key=lambda tr: (tr.start, tr.kind))
        self.starts = np.array([tr.start for tr in self.items], dtype=np.float64)
        self.max_dur = max((tr.duration for tr in self.items), default=0.0)
        self.renderers = renderers
        self.sfreq = float(sfreq)

    def add_to(self, out: np.ndarray, s0: int) -> None:
        """Add every transient overlapping samples ``[s0, s0 + len(out))`` into ``out``.

        Parameters
        ----------
        out : np.ndarray
            ``(n, 21)`` float32 potentials, modified in place.
        s0 : int
            Index of the first sample of ``out`` in the recording.
        """
        n = out.shape[0]
        t0, t1 = s0 / self.sfreq, (s0 + n) / self.sfreq
        lo = np.searchsorted(self.starts, t0 - self.max_dur - 1.0, side="left")
        hi = np.searchsorted(self.starts, t1, side="left")
        for tr in self.items[lo:hi]:
            if tr.stop < t0:
                continue
            a = int(math.floor(tr.start * self.sfreq))
            cols, wave = self.renderers[tr.kind](tr, self.sfreq)
            i0, i1 = max(a, s0), min(a + wave.shape[0], s0 + n)
            if i1 <= i0:
                continue
            out[i0 - s0 : i1 - s0, cols] += wave[i0 - a : i1 - a]
