"""Building a feature store from a corpus, reusing what other stores already hold.

:func:`build_store` computes the LFCC features and epoch labels of every corpus item into one
store (:mod:`rt_eeg.store`). With ``reuse``, a recording that another store already holds is
copied from it instead of recomputed: its features, labels and context rows depend only on the
recording's files and the feature configuration, so the store written is byte-identical to one
built from scratch (only index.json's ``build_*`` timing and reuse counts differ).

A stored recording holds the same rows as a corpus item when (:func:`match_recordings`)

- the store's ``feature_config`` TOML text equals the new one exactly;
- it is the same file: the same absolute path (the store's ``root`` joined with the recording
  ``name``); a store written before ``root`` was recorded is matched by the name relative to
  the corpus root;
- its source identity agrees: the byte sizes and modification times (ns) of the EDF and label
  files (``edf_bytes``, ``ref_bytes``, ``channel_ref_bytes``, ``*_mtime_ns``) recorded at build
  time equal the files' now. Sizes alone cannot see a recording simulated again in place (an
  EDF's size follows from its duration and channels, not its content). For an older store,
  weaker matches are used and logged: the sizes, when it recorded no times; the number of
  frames and the channels the EDF header implies (the file is opened, its signal is not read),
  when it recorded no sizes either (that cannot see a changed label file).

The split is not part of the match: features, labels and context do not depend on it, and the
new store's entry takes the new item's split (a recording moved from dev to train is reused).

:func:`subset_view` uses the same match to train on the recordings of a larger store
(:meth:`rt_eeg.store.FeatureStore.subset`) when it holds every recording of a list.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from rt_eeg.decoder import FRAMES_PER_EPOCH
from rt_eeg.errors import RtEegError
from rt_eeg.store import (
    FeatureStore,
    RecordingFeatures,
    StoreWriter,
    channel_labels,
    per_channel_file,
)

#: Per-recording index.json fields: the sizes of the files the rows were computed from ...
SIZE_FIELDS = ("edf_bytes", "ref_bytes", "channel_ref_bytes")
#: ... and their modification times (an in-place rewrite keeps the sizes, not the times).
TIME_FIELDS = ("edf_mtime_ns", "ref_mtime_ns", "channel_ref_mtime_ns")
IDENTITY_FIELDS = SIZE_FIELDS + TIME_FIELDS


# --------------------------------------------------------------------------- source identity


def source_identity(item) -> dict:
    """Byte sizes and modification times of the files a recording's rows come from.

    Returns
    -------
    identity : dict
        :data:`IDENTITY_FIELDS`: ``edf_bytes``, ``ref_bytes``, ``channel_ref_bytes`` and the
        matching ``*_mtime_ns`` (None where the item has no such file); the EDF missing raises
        nothing here (its read reports it).
    """
    files = {
        "edf": item.edf,
        "ref": item.ref,
        "channel_ref": per_channel_file(item.edf, getattr(item, "channel_ref", None)),
    }
    out: dict = {}
    for kind, p in files.items():
        try:
            st = None if p is None else Path(p).stat()
        except OSError:
            st = None
        out[f"{kind}_bytes"] = None if st is None else st.st_size
        out[f"{kind}_mtime_ns"] = None if st is None else st.st_mtime_ns
    return {f: out[f] for f in IDENTITY_FIELDS}


def _header_matches(edf: Path, entry: dict, cfg) -> bool:
    """The EDF header implies the stored recording's frames and channels (signal not read)."""
    from rt_eeg.io.edf import open_recording

    try:
        with open_recording(edf, sfreq=cfg.sfreq) as rec:
            n_frames = rec.n_samples // cfg.frame_samples  # as compute_features frames rec.read()
            ch_names = list(rec.ch_names)
    except RtEegError:
        return False
    return n_frames == entry["n_frames"] and ch_names == entry["ch_names"]


def _path_key(root, name: str) -> str:
    return os.path.normpath(os.path.join(str(root), name))


def _match_some(store, items, names, root, feature_config, identities, which, **kw):
    """:func:`match_recordings` of the items at positions ``which`` only."""
    return match_recordings(store, [items[k] for k in which], [names[k] for k in which], root,
                            feature_config, [identities[k] for k in which], **kw)  # fmt: skip


def match_recordings(
    store: FeatureStore,
    items: Sequence,
    names: Sequence[str],
    root: str | os.PathLike,
    feature_config,
    identities: Sequence[dict],
    *,
    skipped: bool = False,
) -> tuple[list[int | None], int]:
    """Which stored recording holds each item's rows.

    Parameters
    ----------
    store : FeatureStore
    items : sequence of CorpusItem, shape (n,)
    names : sequence of str, shape (n,)
        The items' paths relative to ``root``.
    root : path-like
        Corpus root of the new store.
    feature_config : FeatureConfig
    identities : sequence of dict, shape (n,)
        :func:`source_identity` of each item.
    skipped : bool
        Match against the store's ``skipped`` entries instead of its recordings (sizes
        recorded only: an unreadable file has no header to check).

    Returns
    -------
    matches : list of (int or None), shape (n,)
        Index into ``store.index["recordings"]`` (or ``["skipped"]``), None when not held.
    n_weak : int
        How many matched an older store by a weaker identity: by sizes (no times recorded) or
        by name and header length (no sizes either).
    """
    if store.index.get("feature_config") != feature_config.to_toml():
        return [None] * len(items), 0
    entries = store.index["skipped" if skipped else "recordings"]
    stored_root = store.index.get("root")
    if stored_root is not None:
        by_key = {_path_key(stored_root, e["name"]): i for i, e in enumerate(entries)}
        keys = [_path_key(Path(root).resolve(), n) for n in names]
    else:  # an older store: names relative to its corpus root, which it did not record
        by_key = {e["name"]: i for i, e in enumerate(entries)}
        keys = list(names)
    matches: list[int | None] = []
    n_weak = 0
    for item, key, ident in zip(items, keys, identities, strict=True):
        i = by_key.get(key)
        if i is not None:
            entry = entries[i]
            if TIME_FIELDS[0] in entry:
                ok = all(entry.get(f) == ident[f] for f in IDENTITY_FIELDS)
            elif SIZE_FIELDS[0] in entry:
                ok = all(entry.get(f) == ident[f] for f in SIZE_FIELDS)
                n_weak += ok
            elif skipped:
                ok = False
            else:
                ok = _header_matches(Path(item.edf), entry, feature_config)
                n_weak += ok
            i = i if ok else None
        matches.append(i)
    return matches, n_weak


def weak_match_note(what: str, n: int) -> str:
    """The log line for ``n`` recordings of an older store matched by a weaker identity."""
    return (
        f"{what} predates recorded file times: {n} recordings matched by file sizes or header "
        "length only (a recording rewritten in place is not detected; rebuild to be sure)"
    )


def plan_reuse(
    items: Sequence,
    names: Sequence[str],
    root: str | os.PathLike,
    feature_config,
    identities: Sequence[dict],
    stores: Sequence[FeatureStore],
    log: Callable[[str], None],
) -> list[tuple[FeatureStore, int] | None]:
    """Per item, the (store, recording index) to copy its rows from, or None to compute them.

    The first store (in the given order) that holds a recording wins. Each store's use is
    logged: how many recordings it gives, or why it gives none.
    """
    plan: list[tuple[FeatureStore, int] | None] = [None] * len(items)
    cfg_toml = feature_config.to_toml()
    for store in stores:
        if store._context_offset is not None:
            raise RtEegError("cannot reuse a subset view; name the store folder", store.path)
        if store.index.get("feature_config") != cfg_toml:
            log(f"reuse store {store.path}: not used, its feature configuration differs")
            continue
        todo = [k for k, p in enumerate(plan) if p is None]
        found, n_weak = _match_some(store, items, names, root, feature_config, identities,
                                    todo)  # fmt: skip
        n = 0
        for k, i in zip(todo, found, strict=True):
            if i is not None:
                plan[k] = (store, i)
                n += 1
        log(f"reuse store {store.path}: holds {n} of the {len(items)} recordings")
        if n_weak:
            log(weak_match_note(f"reuse store {store.path}", n_weak))
    return plan


# --------------------------------------------------------------------------- building


def _compute_one(args: tuple) -> RecordingFeatures | tuple[str, str]:
    """Worker: read one EDF, compute features and labels (a (name, problem) on bad input)."""
    edf, ref, channel_ref, split, patient, name, cfg_toml = args
    from rt_eeg.features import FeatureConfig, compute_features
    from rt_eeg.io.edf import open_recording

    cfg = FeatureConfig.from_toml(cfg_toml)
    try:
        with open_recording(edf, sfreq=cfg.sfreq) as rec:
            signal = rec.read()
            ch_names = list(rec.ch_names)
        if not ch_names:
            return name, "no TCP channel can be formed"
        feats, _ = compute_features(signal, cfg)
        n_ep = feats.shape[0] // FRAMES_PER_EPOCH
        labels = channel_labels(
            Path(edf),
            None if ref is None else Path(ref),
            ch_names,
            n_ep,
            None if channel_ref is None else Path(channel_ref),
        )
    except RtEegError as err:
        return name, str(err)
    return RecordingFeatures(name, split, patient, ch_names, feats.astype(np.float32), labels)


def build_store(
    items: Sequence,
    root: str | os.PathLike,
    path: str | os.PathLike,
    feature_config,
    *,
    workers: int = 1,
    meta: dict | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    reuse: Sequence[FeatureStore] | None = None,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Compute features of every corpus item once and write them into one store.

    Parameters
    ----------
    items : sequence of rt_eeg.io.corpus.CorpusItem
        ``edf``, ``ref``, ``split``, ``patient``; written in the given order (deterministic).
    root : path-like
        Corpus root (recording names are stored relative to it).
    path : path-like
        Store folder. It may be the folder of one of the ``reuse`` stores (rebuilt in place:
        the reuse store's files stay readable until the new ones replace them).
    feature_config : rt_eeg.features.FeatureConfig
    workers : int
        Processes computing features in parallel (1 = in this process). Results are written
        in item order whatever the completion order. Workers are spawned, so a script that
        calls this with ``workers > 1`` needs an ``if __name__ == "__main__":`` guard.
    meta : dict, optional
        Extra index.json entries.
    progress : callable(done, total, name), optional
        Called after each item, copied or computed.
    reuse : sequence of FeatureStore, optional
        Complete stores whose recordings are copied instead of recomputed when they hold the
        same rows (see the module docstring). index.json then also records ``build_reused``,
        ``build_computed`` and ``build_reused_from``.
    log : callable(str), optional
        Progress lines about reuse (default: standard error).

    Returns
    -------
    path : Path
        The store folder; unreadable recordings are listed under ``skipped`` in index.json.
    """
    if log is None:

        def log(line: str) -> None:
            print(f"rt-eeg: {line}", file=sys.stderr)

    root = Path(root)
    cfg_toml = feature_config.to_toml()
    names = [os.path.relpath(it.edf, root) for it in items]
    identities = [source_identity(it) for it in items]
    plan = (
        plan_reuse(items, names, root, feature_config, identities, reuse, log)
        if reuse
        else [None] * len(items)
    )
    jobs = [
        (
            str(it.edf),
            None if it.ref is None else str(it.ref),
            None if getattr(it, "channel_ref", None) is None else str(it.channel_ref),
            it.split,
            it.patient,
            name,
            cfg_toml,
        )
        for it, name, src in zip(items, names, plan, strict=True)
        if src is None
    ]
    meta = {"feature_config": cfg_toml, "root": str(root.resolve()), **(meta or {})}
    t0 = time.perf_counter()
    n_frames = 0
    try:
        with (
            StoreWriter(path, feature_config.n_features, meta) as writer,
            contextlib.closing(_map(jobs, workers)) as computed,
        ):
            for k, (it, name, src) in enumerate(zip(items, names, plan, strict=True)):
                if src is not None:
                    writer.add_copy(src[0], src[1], name, it.split, it.patient, identities[k])
                else:
                    res = next(computed)
                    if isinstance(res, tuple):
                        writer.skip(*res, source=identities[k])
                        print(f"rt-eeg: skipped {res[0]}: {res[1]}", file=sys.stderr)
                    else:
                        writer.add(res, source=identities[k])
                        n_frames += res.features.shape[0]
                if progress is not None:
                    progress(k + 1, len(items), name)
            elapsed = time.perf_counter() - t0
            writer.meta["build_seconds"] = round(elapsed, 3)
            # frames computed (not copied) per second of the whole build
            writer.meta["build_frames_per_second"] = round(n_frames / max(elapsed, 1e-9), 1)
            if reuse is not None:
                n_reused = sum(src is not None for src in plan)
                writer.meta["build_reused"] = n_reused
                writer.meta["build_computed"] = len(items) - n_reused
                writer.meta["build_reused_from"] = [str(s.path) for s in reuse]
                log(f"feature store {path}: {n_reused} recordings reused, {len(jobs)} computed")
    except OSError as err:  # a full disk, a vanished folder: the writer removed what it wrote
        where = f" ({err.filename})" if err.filename else ""
        raise RtEegError(f"feature store not built: {err.strerror or err}{where}", path) from err
    return Path(path)


def _map(jobs: list[tuple], workers: int) -> Iterator:
    if workers <= 1 or len(jobs) <= 1:
        yield from map(_compute_one, jobs)
        return
    import multiprocessing as mp
    from collections import deque

    from rt_eeg.lifetime import die_with_parent

    # spawn: safe even when TensorFlow is already loaded in this process. At most 2 * workers
    # jobs in flight, collected in submission order, so memory stays bounded. Workers die with
    # this process: a killed `rt-eeg train` must not leave them computing for nobody.
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                             initializer=die_with_parent, initargs=(os.getpid(),)) as ex:  # fmt: skip
        pending: deque = deque()
        for job in jobs:
            pending.append(ex.submit(_compute_one, job))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


# --------------------------------------------------------------------------- training on a subset


def subset_view(
    store: FeatureStore,
    items: Sequence,
    root: str | os.PathLike,
    feature_config,
    index: dict | None = None,
) -> tuple[FeatureStore | None, int]:
    """The view of ``store`` that equals a store built from ``items``, if it holds them all.

    Parameters
    ----------
    store : FeatureStore
        A complete store, e.g. one built for a superset of the items, in any order.
    items : sequence of CorpusItem
    root : path-like
        Corpus root of the items (their names in the view are relative to it).
    feature_config : FeatureConfig
    index : dict, optional
        Entries for the view's index (key, file-list hash, corpus...).

    Returns
    -------
    view : FeatureStore or None
        :meth:`FeatureStore.subset` of the matching recordings, in item order, whose index
        has the entries (name, split, patient, sizes) and ``skipped`` list a fresh build
        would write, and ``subset_of`` naming the store; None when some item is not held (or
        was skipped there with other file sizes).
    n_weak : int
        Recordings matched by a weaker identity in an older store (see the module docstring).
    """
    names = [os.path.relpath(it.edf, root) for it in items]
    identities = [source_identity(it) for it in items]
    held, n_weak = match_recordings(store, items, names, root, feature_config, identities)
    todo = [k for k, i in enumerate(held) if i is None]
    skipped, _ = _match_some(store, items, names, root, feature_config, identities, todo,
                             skipped=True)  # fmt: skip
    if any(s is None for s in skipped):
        return None, n_weak
    problems = dict(zip(todo, skipped, strict=True))
    entries, recs, skips = store.index["recordings"], [], []
    new_entries = []
    for k, (it, name, i) in enumerate(zip(items, names, held, strict=True)):
        if i is None:
            problem = store.index["skipped"][problems[k]]["problem"]
            skips.append({"name": name, "problem": problem, **identities[k]})
            continue
        e = entries[i]
        recs.append(i)
        new_entries.append(
            {
                "name": name,
                "split": it.split,
                "patient": it.patient,
                "ch_names": e["ch_names"],
                "n_frames": e["n_frames"],
                "n_seiz_epochs": e["n_seiz_epochs"],
                **identities[k],
            }
        )
    meta = {
        "recordings": new_entries,
        "skipped": skips,
        "root": str(Path(root).resolve()),
        **(index or {}),
        "subset_of": {
            "path": str(store.path),
            "key": store.index.get("key"),
            "n_recordings": len(entries),
        },
    }
    return store.subset(recs, meta), n_weak
