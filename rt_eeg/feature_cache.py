"""A per-recording cache of LFCC features, so a corpus is read and featurised once per model round.

Judging a model means decoding the same corpora again for every candidate; reading the EDF,
resampling, forming the montage and computing the LFCC features is about half of that time
and does not depend on the model. :class:`FeatureCache` keeps what the detector's feature
stage produced for one recording, push by push, so replaying it feeds the decoder exactly the
blocks it would have seen: the probabilities and decisions are byte-identical to a run
without the cache (the decoder's results depend on its batch shapes, so the chunking is kept,
not just the frames).

An entry is keyed by the recording's absolute path, size and modification time, the chunk
length, the feature configuration and a digest of the source files that make the features
(EDF reading, resampling, montage, LFCC) and of numpy/scipy's versions: a changed file or a
changed feature code is a miss, never a stale hit. A damaged entry is a miss too (it is
recomputed and rewritten). Entries are written atomically.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from rt_eeg.io.atomic import save_npz_atomic

log = logging.getLogger("rt_eeg.feature_cache")

CACHE_VERSION = 2
# Recordings whose features would exceed this are not cached (they are held in memory while
# the recording runs: a day-long file would hold several GB).
MAX_ENTRY_BYTES = 1 << 30
# The code that turns an EDF file into feature frames; any change to it invalidates every entry.
_FEATURE_SOURCES = (
    "features/config.py", "features/lfcc.py", "features/streaming.py", "features/__init__.py",
    "io/edf.py", "io/edf_header.py", "io/channels.py", "io/signalfile.py", "resample.py",
    "montage.py", "buffer.py", "detector.py", "sources/conditioning.py",
)  # fmt: skip


@dataclass
class CachedFeatures:
    """What the feature stage made of one recording, push by push.

    Attributes
    ----------
    chunks : list of (ndarray, ndarray)
        Each push's ``(features, times)``: features ``(m, n_channels, n_features)`` float32,
        times ``(m,)`` float64 (m may be 0); the last pair is the end-of-stream flush's.
    ch_names : list of str
    duration : float
        Recording duration in seconds.
    montage : str
    note : str
        The reduced-montage warning the recording gave ('' for none), logged again on replay.
    """

    chunks: list[tuple[np.ndarray, np.ndarray]]
    ch_names: list[str]
    duration: float
    montage: str
    note: str = ""


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of the feature-making source files and numpy / scipy versions (hex)."""
    import scipy

    root = Path(__file__).resolve().parent
    h = hashlib.sha256(f"{np.__version__} {scipy.__version__}".encode())
    for rel in _FEATURE_SOURCES:
        path = root / rel
        h.update(rel.encode() + (path.read_bytes() if path.is_file() else b"<absent>"))
    return h.hexdigest()


class FeatureCache:
    """A folder of cached feature entries (``<recording stem>-<key>.npz``).

    Parameters
    ----------
    root : str or os.PathLike
        The cache folder (created on the first write). Safe to share between worker
        processes and between runs of different models; delete it to reclaim the space.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path_for(self, edf: str | os.PathLike, chunk_samples: int, cfg=None) -> Path:
        """The entry's path for ``edf`` read in blocks of ``chunk_samples`` samples with the
        feature settings ``cfg`` (default ``FeatureConfig()``; part of the key, so models trained
        on other settings share a cache folder without reading each other's entries)."""
        from rt_eeg.features import FeatureConfig

        cfg = FeatureConfig() if cfg is None else cfg
        edf = Path(edf).resolve()
        st = edf.stat()
        key = {"version": CACHE_VERSION, "edf": str(edf), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
               "chunk_samples": int(chunk_samples), "features": dataclasses.asdict(cfg),
               "code": code_digest()}  # fmt: skip
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]
        return self.root / f"{edf.stem}-{digest}.npz"

    def fits(self, duration_s: float, n_channels: int, cfg=None) -> bool:
        """Whether a recording this long would be cached: decided before it runs, since its
        features are held in memory while it does (at most ``MAX_ENTRY_BYTES``); ``cfg`` as
        in :meth:`path_for`."""
        from rt_eeg.features import FeatureConfig

        cfg = FeatureConfig() if cfg is None else cfg
        n_frames = duration_s * cfg.sfreq / cfg.frame_samples + 1
        return n_frames * n_channels * cfg.n_features * 4 <= MAX_ENTRY_BYTES

    def load(self, edf: str | os.PathLike, chunk_samples: int, path: Path | None = None) -> CachedFeatures | None:
        """The entry for ``edf``, or None (absent, or damaged: then it is logged and ignored;
        or ``edf`` unreadable: the detector then reports it as it would without a cache).
        ``path``: the entry's :meth:`path_for`, when the caller already has it."""
        if path is None:
            try:
                path = self.path_for(edf, chunk_samples)
            except OSError:
                return None
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                feats, times, lengths = z["features"], z["times"], z["lengths"]
                ch_names = [str(c) for c in z["ch_names"]]
                duration, montage, note = float(z["duration"]), str(z["montage"]), str(z["note"])
            if lengths.sum() != len(feats) or len(times) != len(feats) or len(lengths) < 1:
                raise ValueError("inconsistent lengths")
        except (OSError, KeyError, ValueError) as err:
            log.warning("%s: damaged feature-cache entry ignored (%s)", path, err)
            return None
        edges = np.concatenate([[0], np.cumsum(lengths)])
        chunks = [(feats[a:b], times[a:b]) for a, b in zip(edges[:-1], edges[1:], strict=True)]
        return CachedFeatures(chunks, ch_names, duration, montage, note)

    def save(self, edf: str | os.PathLike, chunk_samples: int, entry: CachedFeatures,
             path: Path | None = None) -> Path | None:  # fmt: skip
        """Write ``entry`` atomically (to ``path``, the entry's :meth:`path_for`, when given);
        returns its path (None when over ``MAX_ENTRY_BYTES``)."""
        n_bytes = sum(f.nbytes for f, _ in entry.chunks)
        if n_bytes > MAX_ENTRY_BYTES:
            log.info("%s: features not cached (%.1f GB)", edf, n_bytes / 1e9)
            return None
        path = path if path is not None else self.path_for(edf, chunk_samples)
        path.parent.mkdir(parents=True, exist_ok=True)
        n_ch = len(entry.ch_names)
        feats = [f for f, _ in entry.chunks if len(f)]
        save_npz_atomic(
            path,
            features=np.concatenate(feats) if feats else np.zeros((0, n_ch, 0), np.float32),
            times=np.concatenate([t for _, t in entry.chunks]).astype(np.float64),
            lengths=np.array([len(f) for f, _ in entry.chunks], np.int64),
            ch_names=np.array(entry.ch_names),
            duration=np.float64(entry.duration),
            montage=np.array(entry.montage),
            note=np.array(entry.note),
        )
        return path
