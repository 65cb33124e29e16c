"""Streaming state of the decoder: :class:`DecoderStream` (one recording's last 7 s, pending
epoch and, for history models, last 70 epoch means) and :class:`FrameFeed` (live frames cut
into it, across gaps and resets)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rt_eeg.context import BackgroundContext
from rt_eeg.decoder.windows import (
    FRAMES_PER_EPOCH,
    HISTORY_EPOCHS,
    WINDOW_FRAMES,
    epoch_means,
    n_history_epochs,
    n_valid_frames,
)

if TYPE_CHECKING:
    from rt_eeg.decoder.stage import Decoder


class DecoderStream:
    """Streaming state of one recording: the last 7 s of features, the pending epoch, (for
    context models) the patient's background context and (for ``'context_history'`` models)
    the last 70 epoch means.

    Created by :meth:`Decoder.open_stream`; fed through :meth:`Decoder.push` (default
    stream) or :meth:`Decoder.predict_many` (several streams in one model call).
    """

    def __init__(
        self,
        n_channels: int,
        n_features: int,
        *,
        context: bool = False,
        max_gated_epochs: int = 0,
        history: bool = False,
    ):
        self.n_channels = int(n_channels)
        self.n_features = int(n_features)
        self.keeps_history = bool(history)
        self.context = (
            BackgroundContext(self.n_channels, self.n_features, max_gated_epochs=max_gated_epochs)
            if context
            else None
        )
        self.reset_window()

    def reset_window(self) -> None:
        """Start the 7 s window (and the 70 s history) afresh: a new recording, or after a gap
        in the signal, so neither bridges time that was not analysed.

        The background context is kept: the patient is the same.
        """
        # The last 70 frames at the latest epoch boundary, channel-first for cheap windows.
        self._window = np.zeros((self.n_channels, WINDOW_FRAMES, self.n_features), np.float32)
        self._history = (
            np.zeros((self.n_channels, HISTORY_EPOCHS, self.n_features), np.float32)
            if self.keeps_history
            else None
        )
        self._pending = np.zeros((self.n_channels, FRAMES_PER_EPOCH, self.n_features), np.float32)
        self._n_pending = 0
        self._pending_t0 = 0.0
        self.n_epochs = 0  # completed epochs since the window started

    def _advance(self, features: np.ndarray, times: np.ndarray) -> list[tuple]:
        """Consume frames; return one ``(window, n_valid, t0, epoch_mean, history, n_history)``
        per new epoch.

        ``window`` is ``(n_channels, 70, F)`` (a copy), ``epoch_mean`` ``(n_channels, F)``
        (context models; else None), ``history`` ``(n_channels, 70, F)`` (a copy; history
        models, else None) and ``n_history`` its observed epoch means.
        """
        done = []
        k = features.shape[0]
        i = 0
        while i < k:
            take = min(FRAMES_PER_EPOCH - self._n_pending, k - i)
            if self._n_pending == 0:
                self._pending_t0 = float(times[i])
            self._pending[:, self._n_pending : self._n_pending + take] = features[
                i : i + take
            ].transpose(1, 0, 2)
            self._n_pending += take
            i += take
            if self._n_pending == FRAMES_PER_EPOCH:
                # Shift once per epoch (not per frame): drop the oldest 10 frames.
                self._window[:, :-FRAMES_PER_EPOCH] = self._window[:, FRAMES_PER_EPOCH:]
                self._window[:, -FRAMES_PER_EPOCH:] = self._pending
                emean = hist = None
                if self.context is not None or self._history is not None:
                    emean = epoch_means(self._pending)[:, 0]  # (n_channels, F)
                if self._history is not None:
                    self._history[:, :-1] = self._history[:, 1:]
                    self._history[:, -1] = emean
                    hist = self._history.copy()
                done.append(
                    (
                        self._window.copy(),
                        int(n_valid_frames(self.n_epochs)[0]),
                        self._pending_t0,
                        emean,
                        hist,
                        int(n_history_epochs(self.n_epochs)[0]),
                    )
                )
                self.n_epochs += 1
                self._n_pending = 0
        return done


class FrameFeed:
    """Feature frames of one live stream into a :class:`DecoderStream`, as they arrive.

    A window never bridges a gap: a ``reset`` frame, a jump in ``t0`` or a new channel count
    starts the 7 s window afresh (keeping the patient's background context when the channels
    are the same), and frames are taken from the next whole epoch on. Shared by the
    pipeline's decoder stage and the ward's batched decoder, so both cut streams alike.

    Parameters
    ----------
    decoder : Decoder
        Opens the stream.
    """

    def __init__(self, decoder: Decoder):
        self.decoder = decoder
        self.stream: DecoderStream | None = None
        self.next_t: float | None = None  # signal time the next frame should start at
        self.aligned = False

    def take(
        self, features: np.ndarray, t0: float, reset: bool = False
    ) -> tuple[np.ndarray, np.ndarray, bool, bool]:
        """Accept one block of frames.

        Parameters
        ----------
        features : ndarray, shape (n_frames, n_channels, n_features)
        t0 : float
            Signal time of the first frame (frames are 0.1 s apart).
        reset : bool
            The sender restarted or its stream had a gap.

        Returns
        -------
        features, times : ndarray, shapes (k, n_channels, n_features) and (k,)
            The frames to decode (``k = 0`` until the first whole epoch).
        fresh : bool
            A fresh window was started by this block.
        interrupted : bool
            ``fresh`` after earlier frames: the time in between was not analysed.
        """
        times = t0 + 0.1 * np.arange(len(features))
        gap = self.next_t is not None and abs(t0 - self.next_t) > 1e-3
        fresh = self.stream is None or reset or gap
        interrupted = fresh and self.next_t is not None
        if fresh:
            if self.stream is not None and self.stream.n_channels == features.shape[1]:
                self.stream.reset_window()
            else:
                self.stream = self.decoder.open_stream(features.shape[1])
            self.aligned = False
        self.next_t = float(times[-1]) + 0.1
        if not self.aligned:
            keep = np.flatnonzero(np.abs(times - np.round(times)) < 1e-3)
            if len(keep) == 0:
                return features[:0], times[:0], fresh, interrupted
            features, times = features[keep[0] :], times[keep[0] :]
            self.aligned = True
        return features, times, fresh, interrupted
