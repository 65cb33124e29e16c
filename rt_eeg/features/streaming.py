"""``StreamingFeatures``: the causal LFCC extractor with ring buffers (live feature stage).

It runs the per-row stages of :mod:`rt_eeg.features.lfcc` on what its buffers hold, so any
chunking gives the same output as :func:`~rt_eeg.features.lfcc.compute_features`.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.buffer import RingBuffer
from rt_eeg.features.config import FeatureConfig
from rt_eeg.features.lfcc import (
    _absolute_frames,
    _as_signal,
    _assemble,
    _diff_energy,
    _empty,
    _kernel,
    _times,
    compute_features,
)


class StreamingFeatures:
    """Causal, stateful LFCC extractor: frames in, feature frames out (6 frames later).

    Vectorised across channels and across the frames of one push. Sample history lives in a
    :class:`~rt_eeg.buffer.RingBuffer` of ``buffer_samples`` (0.3 s) per channel; the trailing
    log energies and the static features the regressions need live in two more ring
    buffers. Any chunking of the input gives the same output as :func:`compute_features`.

    Parameters
    ----------
    n_channels : int
    cfg : FeatureConfig, optional
        Defaults to ``FeatureConfig()``.

    Attributes
    ----------
    delay_s : float
        Algorithmic delay (0.644 s): the features stamped ``t`` use samples up to ``t + delay_s``.
    lag_frames : int
        A frame's features come out of the :meth:`push` that delivers the frame this many
        frames later (6).
    """

    def __init__(self, n_channels: int, cfg: FeatureConfig | None = None):
        self.cfg = FeatureConfig() if cfg is None else cfg
        if int(n_channels) < 1:
            raise ValueError(f"n_channels must be >= 1, got {n_channels}")
        self.n_channels = int(n_channels)
        self.delay_s = self.cfg.delay_s
        self.lag_frames = self.cfg.lookahead_samples // self.cfg.frame_samples
        self._k = _kernel(self.cfg)
        c = self.cfg
        self._samples = RingBuffer(c.buffer_samples, self.n_channels, overflow="overwrite")
        self._energy = RingBuffer(
            max(c.diff_energy_frames - 1, 1), self.n_channels, overflow="overwrite"
        )
        self._statics = RingBuffer(
            2 * c.lookahead_frames, self.n_channels * c.n_static, overflow="overwrite"
        )
        self.reset()

    def reset(self) -> None:
        """Forget the stream: the next :meth:`push` starts a new recording at time 0."""
        self._samples.clear()
        self._energy.clear()
        self._statics.clear()
        self._n_padded = 0  # samples written to the sample buffer, leading reflection included
        self._next_window = 0  # next frame whose analysis window is awaited
        self._next_out = 0  # next frame to emit
        self._finished = False
        self._pending: np.ndarray | None = None  # a start too short to reflect yet

    def push(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Feed ``frame`` of shape ``(frame_samples * k, n_channels)`` (microvolts).

        Returns
        -------
        features : ndarray of float32, shape (m, n_channels, n_features)
            Every frame whose features became computable (``m`` is ``k``, give or take the
            start-up lag of ``lag_frames``).
        times : ndarray of float64, shape (m,)
            Start times of those frames in seconds.
        """
        if self._finished:
            raise RuntimeError("push() after flush(); call reset() to start a new stream")
        x = _as_signal(frame, self.n_channels, "frame")
        if x.shape[0] % self.cfg.frame_samples:
            raise ValueError(
                f"frame must hold a multiple of {self.cfg.frame_samples} samples, got {x.shape[0]}"
            )
        if x.shape[0] == 0:
            return _empty(self.n_channels, self.cfg)
        if self._n_padded == 0:  # signal before t=0: the start reflected (as numpy 'reflect')
            before = self.cfg.window_before
            if self._pending is not None or x.shape[0] <= before:
                # A window longer than a push (1 s windows, 0.1 s pushes) reflects more of the
                # start than one push holds: hold it. No delay: frame 0 awaits those samples.
                x = x if self._pending is None else np.concatenate([self._pending, x])
                if x.shape[0] <= before:
                    self._pending = x
                    return _empty(self.n_channels, self.cfg)
                self._pending = None
            self._write_samples(x[before:0:-1])
        return self._process(x, tail=False)

    def flush(self) -> tuple[np.ndarray, np.ndarray]:
        """End of stream: the features of every frame not emitted yet (same end padding as
        :func:`compute_features`). The extractor then refuses :meth:`push` until :meth:`reset`.
        """
        if self._finished:
            return _empty(self.n_channels, self.cfg)
        self._finished = True
        if self._n_padded == 0:  # nothing, or a stream shorter than the start's reflection
            if self._pending is None:
                return _empty(self.n_channels, self.cfg)
            return compute_features(self._pending, self.cfg)  # numpy's reflection of it
        after = self.cfg.window_after
        if after:
            tail = self._samples.latest(after + 1)  # signal after the end, reflected
            pad = np.ascontiguousarray(tail[-2::-1])
        else:
            pad = np.zeros((0, self.n_channels), np.float32)
        return self._process(pad, tail=True)

    # -- internals -------------------------------------------------------------------
    def _write_samples(self, block: np.ndarray) -> None:
        self._samples.write(block)
        self._n_padded += block.shape[0]

    def _process(self, x: np.ndarray, *, tail: bool) -> tuple[np.ndarray, np.ndarray]:
        c = self.cfg
        fs, w = c.frame_samples, c.window_samples
        history = self._n_padded - fs * self._next_window  # samples of the awaited window held
        total = history + x.shape[0]
        n_win = (total - w) // fs + 1 if total >= w else 0
        if total <= self._samples.capacity:  # common case: one frame in, read a view
            self._write_samples(x)
            src = self._samples.latest(total)
        else:
            src = np.concatenate([self._samples.latest(history), x])
            self._write_samples(x)
        if n_win == 0:
            return _empty(self.n_channels, c)
        self._next_window += n_win
        absolute = _absolute_frames(src.T, n_win, c, self._k)
        static = self._static(absolute)
        if tail:  # statics after the last frame are copies of it
            static = np.concatenate([static, np.repeat(static[-1:], c.lookahead_frames, axis=0)])
        return self._dynamic(static)

    def _static(self, absolute: np.ndarray) -> np.ndarray:
        """Absolute ``(k, n_ch, 8)`` -> static ``(k, n_ch, 9)`` with the differential energy."""
        span = self.cfg.diff_energy_frames
        energy = absolute[..., 0]
        ring = self._energy
        if ring.total_written == 0:  # frames before the first count as the first
            ring.write(np.repeat(energy[:1], ring.capacity, axis=0))
        hist = ring.latest(span - 1) if span > 1 else energy[:0]
        work = np.concatenate([hist, energy])
        ring.write(energy)
        static = np.empty((*absolute.shape[:2], self.cfg.n_static), np.float32)
        static[..., :-1] = absolute
        static[..., -1] = _diff_energy(work, span)
        return static

    def _dynamic(self, static: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Append static frames; return the frames whose regressions are now complete."""
        c = self.cfg
        pad = c.lookahead_frames
        n_ch, ns = self.n_channels, c.n_static
        ring = self._statics
        flat = static.reshape(static.shape[0], n_ch * ns)
        if ring.total_written == 0:  # statics before frame 0 are copies of frame 0
            ring.write(np.repeat(flat[:1], pad, axis=0))
        hist = ring.latest(min(ring.count, 2 * pad)).reshape(-1, n_ch, ns)
        work = np.concatenate([hist, static])
        ring.write(flat)
        if work.shape[0] <= 2 * pad:
            return _empty(n_ch, c)
        out = _assemble(work, c)
        times = _times(self._next_out, out.shape[0], c)
        self._next_out += out.shape[0]
        return out, times
