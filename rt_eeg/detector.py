"""The complete detector chained in-process: the live pipeline's stage objects, no ZeroMQ.

``Detector`` pushes 250 Hz TCP samples through :class:`~rt_eeg.features.StreamingFeatures`,
the :class:`~rt_eeg.decoder.Decoder` and the :class:`~rt_eeg.postprocess.Postprocessor`,
exactly as the live stages do (same objects, same frame boundaries, trailing partial frame
and trailing incomplete epoch dropped likewise), so batch evaluation produces the same
decisions as ``rt-eeg replay``.

Exactness, not just closeness: the features are bit-identical whatever the chunking, so
they are computed in large blocks; TensorFlow's results differ in the last bit with the batch
shape, so the decoder is called once per completed epoch, as the live decoder stage is.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rt_eeg.postprocess import Decision, PostprocessConfig, Postprocessor

FRAME = 25


@dataclass
class DetectionResult:
    """What the detector made of one recording.

    Attributes
    ----------
    decisions : list of Decision
        One per analysed epoch, in time order.
    epoch_starts : np.ndarray
        ``(n_epochs,)`` start times of the decoded epochs.
    probs : np.ndarray
        ``(n_epochs, n_channels)`` P(seizure) per channel (kept for threshold sweeps).
    ch_names : list of str
    duration : float
        Recording duration in seconds (what the outputs must cover).
    montage : str
    """

    decisions: list[Decision]
    epoch_starts: np.ndarray
    probs: np.ndarray
    ch_names: list[str]
    duration: float
    montage: str


class Detector:
    """Features -> decoder -> postprocessor for one stream.

    Parameters
    ----------
    ch_names : list of str
        TCP channels of the stream.
    decoder : rt_eeg.decoder.Decoder
        A loaded decoder (shared between recordings; each Detector opens its own stream).
    post_config : PostprocessConfig, optional
    keep_features : bool
        Keep every push's features in ``feature_chunks`` (what a feature cache stores).
    """

    def __init__(self, ch_names: list[str], decoder, post_config: PostprocessConfig | None = None,
                 *, keep_features: bool = False):  # fmt: skip
        from rt_eeg.features import StreamingFeatures

        self.ch_names = list(ch_names)
        self.decoder = decoder
        # the decoder's settings: the defaults, or a model's own (``feature_config='model'``)
        self.features = StreamingFeatures(len(ch_names), decoder.feature_config)
        self.stream = decoder.open_stream(len(ch_names))
        self.post = Postprocessor(ch_names, post_config)
        self._pending = np.zeros((0, len(ch_names)), np.float32)
        self.epoch_starts: list[np.ndarray] = []
        self.probs: list[np.ndarray] = []
        self.feature_chunks: list[tuple[np.ndarray, np.ndarray]] | None = [] if keep_features else None

    def push(self, block: np.ndarray) -> list[Decision]:
        """Push ``(n, n_channels)`` samples (any n); return the decisions they complete."""
        self._pending = (
            np.concatenate([self._pending, block])
            if len(self._pending)
            else np.asarray(block, np.float32)
        )
        n = len(self._pending) // FRAME * FRAME
        if n == 0:
            return []
        frames, self._pending = self._pending[:n], self._pending[n:]
        return self.push_features(*self.features.push(frames))  # bit-identical to frame pushes

    def flush(self) -> list[Decision]:
        """End of stream (a trailing partial frame is not analysed, as live)."""
        return self.flush_features(*self.features.flush())

    def push_features(self, f: np.ndarray, t: np.ndarray) -> list[Decision]:
        """Decode features ``(m, n_channels, n_features)`` stamped ``t`` ``(m,)`` (m may be 0).

        What :meth:`push` does after the feature stage; a cached recording is replayed
        through it push by push, so the decoder sees the very same blocks.
        """
        if self.feature_chunks is not None:
            self.feature_chunks.append((f, t))
        return self._decode([f] if len(f) else [], [t] if len(t) else [])

    def flush_features(self, f: np.ndarray, t: np.ndarray) -> list[Decision]:
        """The end-of-stream push: decode the feature stage's last frames, then flush."""
        return self.push_features(f, t) + self.post.flush()

    def _decode(self, feats: list[np.ndarray], times: list[np.ndarray]) -> list[Decision]:
        if not feats:
            return []
        starts, probs = self.decoder.predict_many(
            [(self.stream, np.concatenate(feats), np.concatenate(times))]
        )[0]
        out: list[Decision] = []
        for s, p in zip(starts, probs, strict=True):
            out += self.post.push(float(s), p)
        self.epoch_starts.append(starts)
        self.probs.append(probs)
        return out


def detect_recording(edf: str | os.PathLike, decoder, post_config: PostprocessConfig | None = None,
                     *, chunk_s: float = 60.0, feature_cache=None) -> DetectionResult:  # fmt: skip
    """Run the detector over one EDF file, reading it in chunks (never loaded whole).

    With a :class:`~rt_eeg.feature_cache.FeatureCache`, a recording featurised before is not
    read again: its stored feature pushes are replayed (the same results, byte for byte), and
    one that is not yet cached is stored after it ran.
    """
    from rt_eeg.io.edf import ANALYSIS_SFREQ, open_recording
    from rt_eeg.montage import check_enough_channels, reduced_note

    chunk = int(chunk_s * ANALYSIS_SFREQ)
    entry = None  # the cache entry's path, keyed to the file as it was when the run began
    if feature_cache is not None:
        try:
            entry = feature_cache.path_for(edf, chunk, decoder.feature_config)
        except OSError:  # unreadable: reported below exactly as without a cache
            pass
    if entry is not None and (hit := feature_cache.load(edf, chunk, path=entry)) is not None:
        det = Detector(hit.ch_names, decoder, post_config)
        decisions: list[Decision] = []
        for f, t in hit.chunks[:-1]:
            decisions += det.push_features(f, t)
        decisions += det.flush_features(*hit.chunks[-1])
        if hit.note:
            logging.getLogger("rt_eeg.montage").warning(hit.note)
        return _result(det, decisions, hit.ch_names, hit.duration, hit.montage)
    with open_recording(Path(edf)) as rec:
        check_enough_channels(rec.ch_names, edf)
        note = reduced_note(rec.montage, rec.ch_names, edf)
        if note:
            logging.getLogger("rt_eeg.montage").warning(note)
        keep = entry is not None and feature_cache.fits(rec.duration, len(rec.ch_names),
                                                        decoder.feature_config)
        det = Detector(rec.ch_names, decoder, post_config, keep_features=keep)
        decisions = []
        for _, block in rec.chunks(chunk):
            decisions += det.push(block)
        decisions += det.flush()
        result = _result(det, decisions, rec.ch_names, rec.duration, rec.montage)
    if keep:  # every push was kept, the flush's last
        from rt_eeg.feature_cache import CachedFeatures

        feature_cache.save(edf, chunk, CachedFeatures(det.feature_chunks, list(rec.ch_names), rec.duration,
                                                      rec.montage, note or ""), path=entry)  # fmt: skip
    return result


def _result(det: Detector, decisions: list[Decision], ch_names, duration: float, montage: str) -> DetectionResult:
    n_ch = len(ch_names)
    starts = np.concatenate(det.epoch_starts) if det.epoch_starts else np.zeros(0)
    probs = np.concatenate(det.probs) if det.probs else np.zeros((0, n_ch), np.float32)
    return DetectionResult(decisions, starts, probs, ch_names, duration, montage)
