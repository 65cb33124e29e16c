"""Consolidated, memory-mapped feature store for training.

Features of a whole corpus are computed once (batch mode) and written into ONE store folder,
not thousands of small files:

``features.f32``
    Raw little-endian float32, shape ``(n_rows, n_features)``. One *track* per (recording,
    channel): the track's frames are contiguous rows, so the 70 x 26 window of any epoch is a
    contiguous slice.
``labels.u8``
    Raw uint8, shape ``(n_label_rows,)``: 1 = seizure, 0 = background, one row per complete
    1 s epoch of every track (``n_frames // 10`` per track).
``context.f32``
    Raw little-endian float32, shape ``(n_label_rows, n_features)``: the patient background
    centre (:mod:`rt_eeg.context`) of each label row's window, computed causally per recording
    with the labels standing in for the decoder's seizure calls (an epoch with any seizure
    channel stays out of the context). Used by the ``'context'`` normalisations.
``index.npz``
    Per track: ``track_recording`` (int32), ``track_channel`` (int16, index into the channel
    list), ``track_offset`` (int64, first row in features.f32), ``track_n_frames`` (int64),
    ``label_offset`` (int64, first row in labels.u8).
``index.json``
    Format version, the feature configuration (TOML text), the store key, the corpus root,
    recordings (path relative to the root, split, patient, channels, frames, and the byte sizes
    of the EDF and label files the features and labels came from), splits, counts, skipped
    files. Written last: a store without it is incomplete and is rebuilt.

A training *sample* is a label row: its window is gathered from the memmap with numpy fancy
indexing (:meth:`FeatureStore.windows`), so random access over the whole corpus costs one
gather per batch.

Building a store (:func:`rt_eeg.store_build.build_store`) can copy the rows of recordings
another store already holds instead of recomputing them, and :meth:`FeatureStore.subset` views
some recordings of a store as if they were a store of their own.

Epoch labels come from :mod:`rt_eeg.store_labels` (re-exported here).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rt_eeg.context import recording_centers
from rt_eeg.decoder import (
    FRAMES_PER_EPOCH,
    HISTORY_EPOCHS,
    WINDOW_FRAMES,
    epoch_means,
    n_history_epochs,
    n_valid_frames,
)
from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import atomic_path, save_npz_atomic, write_json_atomic
from rt_eeg.store_labels import (  # noqa: F401  (re-exported: the store's labels)
    SEIZURE_FRACTION,
    channel_labels,
    epoch_labels_from_intervals,
    per_channel_file,
)

STORE_VERSION = 2
SPLITS = ("train", "dev", "eval")
#: Rows copied per read when a recording is copied from another store (bounded memory).
COPY_ROWS = 1 << 16


# --------------------------------------------------------------------------- corpus identity


def _item_files(it) -> list[Path]:
    """The files a corpus item's rows are computed from: its EDF and reference file(s)."""
    return [Path(p) for p in (it.edf, it.ref, getattr(it, "channel_ref", None)) if p is not None]


def file_list_hash(items: Sequence, root: Path) -> str:
    """sha256 of the sorted relative paths and sizes of every EDF and reference file, and of
    each recording's split (the same files with train and dev swapped are another store)."""
    rows = []
    for it in items:
        rows += [f"{os.path.relpath(p, root)}\t{p.stat().st_size}" for p in _item_files(it)]
        rows.append(f"{os.path.relpath(it.edf, root)}\tsplit\t{getattr(it, 'split', '')}")
    return hashlib.sha256("\n".join(sorted(rows)).encode("utf-8")).hexdigest()


def file_times_hash(items: Sequence) -> str:
    """sha256 of the modification times (ns) of every EDF and reference file, in item order.

    Not part of :func:`file_list_hash`, which names a corpus portably (the same files copied
    elsewhere hash the same); a cached store's key needs it: a corpus simulated again into the
    same folder keeps every file's size, and only the times tell its old features apart.
    """
    rows = [str(p.stat().st_mtime_ns) for it in items for p in _item_files(it)]
    return hashlib.sha256("\n".join(rows).encode("utf-8")).hexdigest()


def store_key(list_hash: str, feature_toml: str, times_hash: str) -> str:
    """Identity of a store: corpus file list + the files' times (:func:`file_times_hash`) +
    exact feature configuration + format version."""
    text = f"v{STORE_VERSION}\n{list_hash}\n{feature_toml}\n{times_hash}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def default_store_dir(key: str) -> Path:
    """``$XDG_CACHE_HOME/rt_eeg/stores/<key[:16]>`` (``~/.cache`` when unset)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "rt_eeg" / "stores" / key[:16]


# --------------------------------------------------------------------------- writer


@dataclass
class RecordingFeatures:
    """Features and labels of one recording, ready to be appended to a store."""

    name: str  # path relative to the corpus root
    split: str
    patient: str
    ch_names: list[str]
    features: np.ndarray  # (n_frames, n_channels, n_features) float32
    labels: np.ndarray  # (n_frames // 10, n_channels) uint8


class StoreWriter:
    """Append recordings to a new store folder; :meth:`close` writes the index (last).

    Parameters
    ----------
    path : path-like
        Store folder (created). An existing index is removed first, so an interrupted build
        is never mistaken for a complete store.
    n_features : int
    meta : dict
        Extra entries for index.json (feature configuration, key, corpus hash...).
    """

    def __init__(self, path: str | os.PathLike, n_features: int, meta: dict | None = None):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "index.json").unlink(missing_ok=True)
        self.n_features = int(n_features)
        self.meta = dict(meta or {})
        self._ctx = [
            atomic_path(self.path / "features.f32"),
            atomic_path(self.path / "labels.u8"),
            atomic_path(self.path / "context.f32"),
        ]
        ftmp, ltmp, ctmp = (c.__enter__() for c in self._ctx)
        self._f = open(ftmp, "wb")  # noqa: SIM115 - closed in close()/abort()
        self._l = open(ltmp, "wb")  # noqa: SIM115
        self._c = open(ctmp, "wb")  # noqa: SIM115
        self._rows = 0
        self._label_rows = 0
        self._tracks: dict[str, list[int]] = {k: [] for k in ("rec", "ch", "off", "nf", "loff")}
        self._recordings: list[dict] = []
        self._channels: list[str] = []
        self._skipped: list[dict] = []

    def add(self, rec: RecordingFeatures, source: dict | None = None) -> None:
        """Append one recording (channel-major rows: each channel's frames contiguous).

        ``source`` (the byte sizes of the files it was computed from, see
        :func:`rt_eeg.store_build.source_identity`) is recorded with it.
        """
        feats = np.asarray(rec.features, dtype=np.float32)
        n_frames, n_ch, n_feat = feats.shape
        n_ep = n_frames // FRAMES_PER_EPOCH
        if n_feat != self.n_features or rec.labels.shape != (n_ep, n_ch):
            raise ValueError(
                f"{rec.name}: features {feats.shape} / labels {rec.labels.shape} do not match"
            )
        self._f.write(np.ascontiguousarray(feats.transpose(1, 0, 2)).astype("<f4").tobytes())
        self._l.write(np.ascontiguousarray(rec.labels.T, dtype=np.uint8).tobytes())
        centers = recording_centers(feats, ~np.asarray(rec.labels, bool).any(axis=1))
        self._c.write(np.ascontiguousarray(centers.transpose(1, 0, 2)).astype("<f4").tobytes())
        self._register(
            rec.name, rec.split, rec.patient, rec.ch_names, n_frames, int(rec.labels.sum()), source
        )

    def add_copy(
        self,
        src: FeatureStore,
        r: int,
        name: str,
        split: str,
        patient: str,
        source: dict | None = None,
    ) -> None:
        """Append recording ``r`` of another store by copying its rows, track by track.

        Features, labels and context rows are all per recording (the context is computed
        causally from that recording's own labels), so the copy is byte-identical to
        recomputing them from the same files. Reads at most :data:`COPY_ROWS` rows at a time.

        Parameters
        ----------
        src : FeatureStore
            A full store (not a :meth:`FeatureStore.subset` view) with this store's features.
        r : int
            Index of the recording in ``src.index["recordings"]``.
        name, split, patient : str
            The recording's entry in this store (its name relative to this store's root).
        source : dict, optional
            Byte sizes of its files (recorded as in :meth:`add`).
        """
        entry = src.index["recordings"][r]
        tracks = np.flatnonzero(src.track_recording == r)
        n_frames = int(entry["n_frames"])
        n_ep = n_frames // FRAMES_PER_EPOCH
        if (
            src.n_features != self.n_features
            or src._context_offset is not None
            or len(tracks) != len(entry["ch_names"])
            or np.any(src.track_n_frames[tracks] != n_frames)
        ):
            raise RtEegError(
                f"cannot copy {entry['name']}: its tracks do not match its entry", src.path
            )
        for t in tracks:
            _copy_rows(src.features, int(src.track_offset[t]), n_frames, self._f)
            _copy_rows(src.labels, int(src.label_offset[t]), n_ep, self._l)
            _copy_rows(src.context, int(src.label_offset[t]), n_ep, self._c)
        self._register(
            name, split, patient, entry["ch_names"], n_frames, int(entry["n_seiz_epochs"]), source
        )

    def _register(self, name, split, patient, ch_names, n_frames, n_seiz, source) -> None:
        """Index the tracks of the recording just written and its index.json entry."""
        n_ep = n_frames // FRAMES_PER_EPOCH
        r = len(self._recordings)
        for j, ch in enumerate(ch_names):
            if ch not in self._channels:
                self._channels.append(ch)
            self._tracks["rec"].append(r)
            self._tracks["ch"].append(self._channels.index(ch))
            self._tracks["off"].append(self._rows + j * n_frames)
            self._tracks["nf"].append(n_frames)
            self._tracks["loff"].append(self._label_rows + j * n_ep)
        self._rows += len(ch_names) * n_frames
        self._label_rows += len(ch_names) * n_ep
        self._recordings.append(
            {
                "name": name,
                "split": split,
                "patient": patient,
                "ch_names": list(ch_names),
                "n_frames": int(n_frames),
                "n_seiz_epochs": int(n_seiz),
                **(source or {}),
            }
        )

    def skip(self, name: str, problem: str, source: dict | None = None) -> None:
        """Record a recording that could not be read (with its files' sizes, when given)."""
        self._skipped.append({"name": name, "problem": problem, **(source or {})})

    def close(self) -> Path:
        """Finish the data files, then write index.npz and index.json; return the folder."""
        self._f.close()
        self._l.close()
        self._c.close()
        for c in reversed(self._ctx):
            c.__exit__(None, None, None)
        save_npz_atomic(
            self.path / "index.npz",
            track_recording=np.asarray(self._tracks["rec"], np.int32),
            track_channel=np.asarray(self._tracks["ch"], np.int16),
            track_offset=np.asarray(self._tracks["off"], np.int64),
            track_n_frames=np.asarray(self._tracks["nf"], np.int64),
            label_offset=np.asarray(self._tracks["loff"], np.int64),
        )
        index = {
            "version": STORE_VERSION,
            "n_features": self.n_features,
            "n_rows": self._rows,
            "n_label_rows": self._label_rows,
            "channels": self._channels,
            "recordings": self._recordings,
            "skipped": self._skipped,
            **self.meta,
        }
        write_json_atomic(self.path / "index.json", index)
        return self.path

    def abort(self) -> None:
        """Discard the partial data files."""
        self._f.close()
        self._l.close()
        self._c.close()
        for c in reversed(self._ctx):
            try:
                c.__exit__(RuntimeError, RuntimeError("aborted"), None)
            except RuntimeError:
                pass

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def _copy_rows(src: np.ndarray, start: int, n: int, out) -> None:
    """Write rows ``[start, start + n)`` of a memmap to ``out``, a bounded chunk at a time."""
    for a in range(start, start + n, COPY_ROWS):
        out.write(np.ascontiguousarray(src[a : min(a + COPY_ROWS, start + n)]).tobytes())


# --------------------------------------------------------------------------- reader


class FeatureStore:
    """Read-only view of a store folder (memory-mapped).

    Attributes
    ----------
    features : np.memmap, shape (n_rows, n_features) float32
    labels : np.memmap, shape (n_label_rows,) uint8
    index : dict
        Parsed index.json.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            self.index = json.loads((self.path / "index.json").read_text("utf-8"))
            npz = np.load(self.path / "index.npz", allow_pickle=False)
            self.track_recording = npz["track_recording"]
            self.track_channel = npz["track_channel"]
            self.track_offset = npz["track_offset"]
            self.track_n_frames = npz["track_n_frames"]
            self.label_offset = npz["label_offset"]
        except (OSError, ValueError, KeyError) as err:
            raise RtEegError(f"not a complete feature store ({err})", self.path) from err
        if np.any(np.diff(self.track_recording.astype(np.int64)) < 0):
            # montage_rows and the writer's numbering rely on each recording's tracks in a run
            raise RtEegError("index.npz: tracks are not in recording order (rebuild the store)",
                             self.path)  # fmt: skip
        if self.index.get("version") != STORE_VERSION:
            raise RtEegError(
                f"store version {self.index.get('version')} != {STORE_VERSION}", self.path
            )
        self.n_features = int(self.index["n_features"])
        n_rows, n_lab = int(self.index["n_rows"]), int(self.index["n_label_rows"])
        fpath, lpath = self.path / "features.f32", self.path / "labels.u8"
        if not fpath.is_file() or fpath.stat().st_size != 4 * n_rows * self.n_features:
            raise RtEegError("features.f32 is missing or has the wrong size", fpath)
        if not lpath.is_file() or lpath.stat().st_size != n_lab:
            raise RtEegError("labels.u8 is missing or has the wrong size", lpath)
        cpath = self.path / "context.f32"
        if not cpath.is_file() or cpath.stat().st_size != 4 * n_lab * self.n_features:
            raise RtEegError("context.f32 is missing or has the wrong size", cpath)
        self.context = (
            np.memmap(cpath, dtype="<f4", mode="r", shape=(n_lab, self.n_features))
            if n_lab
            else np.zeros((0, self.n_features), np.float32)
        )
        # np.memmap refuses zero-length files; an empty store keeps empty arrays.
        self.features = (
            np.memmap(fpath, dtype="<f4", mode="r", shape=(n_rows, self.n_features))
            if n_rows
            else np.zeros((0, self.n_features), np.float32)
        )
        self.labels = np.memmap(lpath, dtype=np.uint8, mode="r") if n_lab else np.zeros(0, np.uint8)
        self.track_n_epochs = self.track_n_frames // FRAMES_PER_EPOCH
        self._runs: tuple[np.ndarray, np.ndarray] | None = None
        # A subset view's label rows are renumbered; its tracks' first rows in context.f32
        # (None: the label rows themselves).
        self._context_offset: np.ndarray | None = None
        splits = [r["split"] for r in self.index["recordings"]]
        self.track_split = np.asarray([splits[r] for r in self.track_recording], dtype=object)

    def rows(self, split: str) -> np.ndarray:
        """All label rows (samples) of a split, ascending; int64 shape (n,)."""
        tracks = np.flatnonzero(self.track_split == split)
        if tracks.size == 0:
            return np.zeros(0, np.int64)
        return np.concatenate(
            [
                np.arange(self.label_offset[t], self.label_offset[t] + self.track_n_epochs[t])
                for t in tracks
            ]
        ).astype(np.int64)

    def track_epoch(self, rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Label rows as int64, and the track and epoch within it of each: int64 ``(n,)`` x 3."""
        rows = np.asarray(rows, dtype=np.int64)
        track = np.searchsorted(self.label_offset, rows, side="right") - 1
        return rows, track, rows - self.label_offset[track]

    def windows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Raw windows of the given samples, gathered from the memmap.

        Parameters
        ----------
        rows : ndarray of int, shape (n,)
            Label rows (samples).

        Returns
        -------
        windows : ndarray of float32, shape (n, 70, n_features)
            Padding frames (before the start of a recording) are 0.
        n_valid : ndarray of int64, shape (n,)
        labels : ndarray of float32, shape (n,)
        """
        rows, track, epoch = self.track_epoch(rows)
        win, before = self._frames_to(track, epoch, WINDOW_FRAMES)
        win[before] = 0.0
        return win, n_valid_frames(epoch), np.asarray(self.labels[rows], np.float32)

    def _frames_to(self, track, epoch, span: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``span`` frames up to the end of each sample's epoch, gathered from the memmap:
        float32 ``(n, span, n_features)`` and where they fall before the recording, bool
        ``(n, span)`` (those rows hold the first frame's values)."""
        first = FRAMES_PER_EPOCH * (epoch + 1) - span  # local frame of the span's start
        local = first[:, None] + np.arange(span)  # (n, span)
        idx = self.track_offset[track][:, None] + np.maximum(local, 0)
        frames = np.asarray(self.features[idx.ravel()]).reshape(len(epoch), span, -1)
        return frames, local < 0

    def history(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Epoch-mean histories of the given samples (``'context_history'`` models), computed
        from the frames as the streaming decoder does (:func:`rt_eeg.decoder.epoch_means`).

        Parameters
        ----------
        rows : ndarray of int, shape (n,)
            Label rows (samples).

        Returns
        -------
        history : ndarray of float32, shape (n, 70, n_features)
            Row ``j``: the mean of epoch ``e - 69 + j``; rows before the recording are 0.
        n_history : ndarray of int64, shape (n,)
        """
        _, track, epoch = self.track_epoch(rows)
        frames, before = self._frames_to(track, epoch, FRAMES_PER_EPOCH * HISTORY_EPOCHS)
        hist = epoch_means(frames)  # (n, 70, F)
        hist[before[:, ::FRAMES_PER_EPOCH]] = 0.0
        return hist, n_history_epochs(epoch)

    def montage_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Label rows of every channel of each sample's recording at the sample's epoch.

        Parameters
        ----------
        rows : ndarray of int, shape (n,)
            Label rows (samples).

        Returns
        -------
        group_rows : ndarray of int64, shape (sum(sizes),)
            Consecutive groups, one per sample, each the recording's tracks in store order.
        sizes : ndarray of int64, shape (n,)
            Channels in each group.
        own : ndarray of int64, shape (n,)
            Position of each sample's own row in ``group_rows``.
        """
        _, track, epoch = self.track_epoch(rows)
        # A recording's tracks are consecutive (the writer and subset views add them so, and
        # opening a store checks it).
        rec = self.track_recording.astype(np.int64)
        first = np.searchsorted(rec, rec, side="left")
        count = np.searchsorted(rec, rec, side="right") - first
        sizes = count[track]
        starts = np.cumsum(sizes) - sizes
        within = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(starts, sizes)
        group_tracks = np.repeat(first[track], sizes) + within
        group_rows = self.label_offset[group_tracks] + np.repeat(epoch, sizes)
        return group_rows, sizes.astype(np.int64), starts + (track - first[track])

    def centers(self, rows: np.ndarray) -> np.ndarray:
        """Background centres of the given samples' windows: float32 ``(n, n_features)``."""
        rows = np.asarray(rows, dtype=np.int64)
        if self._context_offset is not None:
            _, track, epoch = self.track_epoch(rows)
            rows = self._context_offset[track] + epoch
        return np.asarray(self.context[rows], np.float32)

    def subset(self, recordings: Sequence[int], index: dict | None = None) -> FeatureStore:
        """View some recordings as a store of their own, without copying features.

        The view numbers tracks and label rows exactly as a store built from just these
        recordings, in this order, would: :meth:`rows`, :meth:`windows`, :meth:`centers`,
        :meth:`onset_rank`, ``labels`` and the track arrays are those of that store (only
        ``track_offset``, used by :meth:`windows`, and ``track_channel``, an index into this
        store's ``channels``, still point into this store). So training on the view follows the
        same data order, row for row, as training on that store.

        Parameters
        ----------
        recordings : sequence of int
            Indices into ``index["recordings"]``, in the order of the view.
        index : dict, optional
            Entries replacing those of this store's index in the view's (its recordings' names
            and splits, key...); ``recordings`` defaults to the selected entries.

        Returns
        -------
        view : FeatureStore
            ``labels`` is an in-memory copy (one byte per label row of the view).
        """
        recs = [int(r) for r in recordings]
        by_rec = [np.flatnonzero(self.track_recording == r) for r in recs]
        tracks = np.concatenate(by_rec).astype(np.int64) if recs else np.zeros(0, np.int64)
        view = copy.copy(self)
        view.index = {**self.index, "recordings": [self.index["recordings"][r] for r in recs]}
        view.index.update(index or {})
        view.track_recording = np.repeat(
            np.arange(len(recs), dtype=np.int32), [len(t) for t in by_rec]
        )
        view.track_channel = self.track_channel[tracks]
        view.track_offset = self.track_offset[tracks]
        view.track_n_frames = self.track_n_frames[tracks]
        view.track_n_epochs = self.track_n_epochs[tracks]
        n_ep = view.track_n_epochs
        view.label_offset = (np.cumsum(n_ep) - n_ep).astype(np.int64)
        ctx = self.label_offset if self._context_offset is None else self._context_offset
        view._context_offset = ctx[tracks]
        starts = self.label_offset[tracks]
        view.labels = (
            np.concatenate([self.labels[a : a + n] for a, n in zip(starts, n_ep, strict=True)])
            if tracks.size
            else np.zeros(0, np.uint8)
        ).astype(np.uint8)
        splits = [r["split"] for r in view.index["recordings"]]
        view.track_split = np.asarray([splits[r] for r in view.track_recording], dtype=object)
        view.index["n_label_rows"] = int(view.labels.size)
        view.index["n_rows"] = int(view.track_n_frames.sum())
        view._runs = None
        return view

    def onset_rank(self, rows: np.ndarray) -> np.ndarray:
        """Epochs since the seizure began on that channel, for seizure samples.

        Parameters
        ----------
        rows : ndarray of int, shape (n,)
            Label rows with label 1.

        Returns
        -------
        rank : ndarray of int64, shape (n,)
            0 for the first seizure epoch of a run of seizure epochs on that channel, 1 for
            the next, ...
        """
        return self._seizure_runs()[0][np.asarray(rows, dtype=np.int64)]

    def run_length(self, rows: np.ndarray) -> np.ndarray:
        """For seizure rows as :meth:`onset_rank` takes them: the length in epochs (int64,
        shape ``(n,)``) of the run of seizure epochs on that channel each row is in."""
        return self._seizure_runs()[1][np.asarray(rows, dtype=np.int64)]

    def _seizure_runs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every label row's onset rank and run length (both 0 off a seizure), computed once."""
        if self._runs is None:
            n = self.labels.shape[0]
            is1 = np.asarray(self.labels, dtype=bool)
            first = np.zeros(n, bool)
            first[self.label_offset[self.label_offset < n]] = True  # a track's first epoch
            prev1 = np.concatenate([[False], is1[:-1]])
            new_run = is1 & (first | ~prev1)
            idx = np.arange(n, dtype=np.int64)
            rank = idx - np.maximum.accumulate(np.where(new_run, idx, 0))
            run = np.cumsum(new_run) - 1  # the run a seizure row is in
            length = np.where(is1, np.bincount(run[is1], minlength=run.max(initial=0) + 1)[run], 0)
            self._runs = (np.where(is1, rank, 0), length.astype(np.int64))
        return self._runs


# --------------------------------------------------------------------------- building


def __getattr__(name: str):
    # Building a store from a corpus moved to rt_eeg.store_build (imported lazily: it imports
    # this module); the old names still resolve here.
    if name in ("build_store", "_compute_one", "_map"):
        from rt_eeg import store_build

        return getattr(store_build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
