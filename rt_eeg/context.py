"""Patient background context: causal, robust, per-channel statistics of the recent EEG.

A neurophysiologist reads a seizure against *this* patient's recent EEG. The 7 s window
normalisation alone (``'maxabs'``) throws that away: every window is scaled to itself, so a
rhythm twice the patient's usual amplitude looks like any other. :class:`BackgroundContext`
keeps, for every channel and LFCC feature, the median of the patient's recent background; the
decoder's ``'context'`` inputs are the window's features *minus* that median (divided by a
fixed per-feature scale learnt in training). LFCC features are logarithmic, so subtracting the
median log energy divides by the patient's usual power and subtracting the median cepstrum
removes the patient's (and the amplifier's, and the simulator's) usual spectral shape: this is
cepstral mean normalisation, the classic cure for channel mismatch in speech recognition.

How the statistic is kept (all per channel and feature, float32 arithmetic in a fixed order,
so the streaming decoder, the batch twin and the training store get identical bits):

- Every decided 1 s epoch contributes its mean feature vector (the mean of its 10 frames) to
  the current *block*, unless the epoch was *called seizure* (the gate: see below). A block of
  ``block_epochs`` (10) accepted epochs is closed into a ring of the last ``n_blocks`` (30)
  blocks: 5 minutes of accepted background.
- The centre for a window is the median over the closed blocks **and** the window's own mean
  (its observed frames). At the start of a recording no block exists yet and the centre is the
  window's own mean (the inputs are then window-relative, like a z-score's location); after a
  few minutes the window is one vote in 31 and the centre is the patient's background. A
  seizure cannot pull the median: it is gated out, and even ungated it would need half of the
  blocks.
- The gate: live, an epoch is *called seizure* when the mean of the top ``k`` (4) channel
  probabilities the decoder just gave it reaches ``gate`` (0.9). In training the labels stand in
  for the decoder's calls (an epoch with any seizure channel is left out).
- The gate is bounded in time (``max_gated_epochs``, a model's ``gate_max_epochs``): after that
  many consecutive called epochs, epochs enter the context again until a call stops. Unbounded,
  a lasting change of background (waking up after five minutes of sleep) that the decoder
  first calls seizure is never learnt, and the calls lock in for as long as the change lasts.
  A true seizure's scores can only move once the median has taken about 150 s of accepted
  epochs after the bound, long after its alarm. Training keeps the labels' gate unbounded.

After a gap in the signal (a lost stream), the context is kept and only the 7 s window starts
afresh: the patient is the same person.
"""

from __future__ import annotations

import numpy as np

#: Accepted epochs per context block.
BLOCK_EPOCHS = 10
#: Blocks kept (30 x 10 s = 5 min of background).
N_BLOCKS = 30
#: An epoch whose top-k mean channel probability reaches this is kept out of the context.
GATE = 0.9
#: Channels averaged for the gate score.
GATE_TOP_K = 4


def gate_score(probs: np.ndarray, k: int = GATE_TOP_K) -> np.ndarray:
    """Mean of the top ``k`` channel probabilities of each epoch.

    Parameters
    ----------
    probs : ndarray, shape (n_epochs, n_channels)

    Returns
    -------
    score : ndarray of float32, shape (n_epochs,)
    """
    p = np.asarray(probs, dtype=np.float32)
    if p.ndim != 2 or p.shape[1] == 0:
        return np.zeros(p.shape[0] if p.ndim else 0, np.float32)
    k = min(k, p.shape[1])
    top = -np.sort(-p, axis=1)[:, :k]
    return top.mean(axis=1, dtype=np.float32)


class BackgroundContext:
    """Causal running background statistic of one stream (all channels).

    Parameters
    ----------
    n_channels, n_features : int
    block_epochs : int
        Accepted epochs averaged into one block.
    n_blocks : int
        Blocks kept in the ring.
    max_gated_epochs : int
        Consecutive called epochs after which epochs are accepted again (0: never).
    """

    def __init__(
        self,
        n_channels: int,
        n_features: int,
        *,
        block_epochs: int = BLOCK_EPOCHS,
        n_blocks: int = N_BLOCKS,
        max_gated_epochs: int = 0,
    ):
        self.n_channels = int(n_channels)
        self.n_features = int(n_features)
        self.block_epochs = int(block_epochs)
        self.n_blocks = int(n_blocks)
        self.max_gated_epochs = int(max_gated_epochs)
        self._gated_run = 0  # consecutive epochs called seizure
        self._blocks = np.zeros((self.n_blocks, self.n_channels, self.n_features), np.float32)
        self._n_closed = 0  # blocks ever closed (ring position = n_closed % n_blocks)
        self._sorted = self._blocks[:0]  # the filled blocks sorted per channel and feature
        self._blocks_nan = False
        self._acc = np.zeros((self.n_channels, self.n_features), np.float64)
        self._n_acc = 0
        self.n_accepted = 0
        self.n_rejected = 0

    @property
    def n_blocks_filled(self) -> int:
        """Closed blocks currently in the ring (0..n_blocks)."""
        return min(self._n_closed, self.n_blocks)

    def center(self, window_mean: np.ndarray) -> np.ndarray:
        """Median over the closed blocks and this window's own mean.

        Parameters
        ----------
        window_mean : ndarray, shape (n_channels, n_features)
            Mean of the window's observed frames.

        Returns
        -------
        center : ndarray of float32, shape (n_channels, n_features)
        """
        m = self.n_blocks_filled
        w = np.asarray(window_mean, dtype=np.float32)
        if m == 0:
            return w.copy()
        b = self._sorted
        if self._blocks_nan or np.isnan(w).any():  # np.median's NaN rule, kept exactly
            pool = np.concatenate([self._blocks[:m], w[None]], axis=0)
            return np.median(pool, axis=0).astype(np.float32)
        # The median of the sorted blocks with one value w inserted: the k-th of the merged
        # m + 1 values is min(b[k], max(w, b[k-1])), so no sort per epoch (the blocks change
        # once per 10 accepted epochs). np.median's float32 arithmetic: the odd case is one
        # element; the even case (lo + hi) / 2 in float32, as its mean of two.
        k = m // 2
        if m % 2 == 0:  # m + 1 values, odd: the k-th
            return np.minimum(b[k], np.maximum(w, b[k - 1]))
        lo = np.minimum(b[k], w) if k == 0 else np.minimum(b[k], np.maximum(w, b[k - 1]))
        hi = np.maximum(w, b[k]) if k + 1 == m else np.minimum(b[k + 1], np.maximum(w, b[k]))
        return (lo + hi) / np.float32(2)

    def update(self, epoch_mean: np.ndarray, accept: bool) -> None:
        """Add one decided epoch's mean features (if ``accept``); close a full block.

        Parameters
        ----------
        epoch_mean : ndarray, shape (n_channels, n_features)
            Mean of the epoch's 10 frames.
        accept : bool
            False when the epoch was called seizure (it is left out, unless the calls have
            run for ``max_gated_epochs`` already).
        """
        if accept:
            self._gated_run = 0
        else:
            self._gated_run += 1
            if not 0 < self.max_gated_epochs < self._gated_run:
                self.n_rejected += 1
                return
        self.n_accepted += 1
        self._acc += np.asarray(epoch_mean, np.float64)
        self._n_acc += 1
        if self._n_acc == self.block_epochs:
            self._blocks[self._n_closed % self.n_blocks] = (self._acc / self._n_acc).astype(
                np.float32
            )
            self._n_closed += 1
            self._sorted = np.sort(self._blocks[: self.n_blocks_filled], axis=0)
            self._blocks_nan = bool(np.isnan(self._sorted[-1]).any())  # NaN sorts last
            self._acc[:] = 0.0
            self._n_acc = 0


def window_mean(window: np.ndarray, n_valid: int) -> np.ndarray:
    """Mean of the observed (trailing ``n_valid``) frames of channel-first windows.

    Parameters
    ----------
    window : ndarray, shape (n_channels, 70, n_features)
    n_valid : int

    Returns
    -------
    mean : ndarray of float32, shape (n_channels, n_features)
    """
    return window[:, window.shape[1] - int(n_valid) :].mean(axis=1, dtype=np.float64).astype(
        np.float32
    )


def recording_centers(
    features: np.ndarray, accept: np.ndarray, *, frames_per_epoch: int = 10, window_frames: int = 70
) -> np.ndarray:
    """Context centre of every complete epoch of a recording, gated by ``accept``.

    The training store's twin of the decoder's streaming context (same arithmetic, same
    order), with labels standing in for the decoder's seizure calls.

    Parameters
    ----------
    features : ndarray, shape (n_frames, n_channels, n_features)
    accept : ndarray of bool, shape (n_epochs,)
        Whether each epoch enters the context once decided.

    Returns
    -------
    centers : ndarray of float32, shape (n_epochs, n_channels, n_features)
        ``n_epochs = n_frames // frames_per_epoch``.
    """
    n_frames, n_ch, n_feat = features.shape
    n_ep = n_frames // frames_per_epoch
    ctx = BackgroundContext(n_ch, n_feat)
    out = np.zeros((n_ep, n_ch, n_feat), np.float32)
    chan_first = np.ascontiguousarray(features[: n_ep * frames_per_epoch].transpose(1, 0, 2))
    for e in range(n_ep):
        stop = frames_per_epoch * (e + 1)
        start = max(0, stop - window_frames)
        win = chan_first[:, start:stop]
        out[e] = ctx.center(window_mean(win, stop - start))
        ctx.update(
            chan_first[:, stop - frames_per_epoch : stop].mean(axis=1, dtype=np.float64).astype(
                np.float32
            ),
            bool(accept[e]),
        )
    return out
