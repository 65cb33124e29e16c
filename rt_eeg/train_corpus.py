"""Corpus -> trained model folder: the ``rt-eeg train`` driver and variant comparison.

:func:`train_corpus` discovers the recordings, builds (or reuses) the feature store and trains
one model (:func:`rt_eeg.train.train_from_store`) or several variants with the same seed, keeping
the one with the lowest dev loss and recording the comparison in the manifest.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path

import numpy as np

from rt_eeg.decoder import (
    ARCHITECTURES,
    BASE_ARCHITECTURES,
    FEATURES_FILE,
    FRAMES_PER_EPOCH,
    MANIFEST_FILE,
    MODEL_FILE,
    NORMALISATIONS,
    resolve_device,
)
from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import atomic_path, write_json_atomic
from rt_eeg.runtime import LITE_FILE
from rt_eeg.store import FeatureStore
from rt_eeg.train import DATA_ORDER_FILE, train_from_store
from rt_eeg.train_config import TrainConfig


def select_items(items: list, max_files: int | None) -> tuple[list, list, str]:
    """Train and dev items; dev falls back to held-out train patients when the corpus has none.

    With ``max_files``, each split keeps its first ``max_files`` recordings (sorted by path).
    """
    usable = [it for it in items if it.ref is not None or getattr(it, "channel_ref", None)]
    train = [it for it in usable if it.split == "train"]
    dev = [it for it in usable if it.split == "dev"]
    source = "dev split"
    if not train and not dev:
        train = [it for it in usable if it.split == ""]
    if not dev:
        patients = sorted({it.patient for it in train})
        if len(patients) < 2:
            raise RtEegError("no dev split and fewer than 2 patients to hold one out")
        # Deterministic hold-out: every 5th patient (at least one) in sorted order.
        held = set(patients[::5]) if len(patients) >= 5 else {patients[-1]}
        dev = [it for it in train if it.patient in held]
        train = [it for it in train if it.patient not in held]
        source = f"held-out train patients: {sorted(held)}"
    if max_files:
        train, dev = train[:max_files], dev[:max_files]
    if not train:
        raise RtEegError("no training recordings with a reference annotation")
    return train, dev, source


def train_corpus(
    corpus: str | os.PathLike,
    out_dir: str | os.PathLike,
    cfg: TrainConfig,
    *,
    device: str = "auto",
    max_files: int | None = None,
    store_dir: str | os.PathLike | None = None,
    workers: int | None = None,
    compare: tuple[str, ...] = (),
    feature_config=None,
    command_line: str | None = None,
    dev_corpus: str | os.PathLike | None = None,
    keep_variants: bool = False,
    reuse_stores: tuple[str | os.PathLike, ...] = (),
    log=print,
) -> dict:
    """``rt-eeg train``: corpus -> feature store -> trained model folder.

    Parameters
    ----------
    corpus : path-like
        Corpus root or list file (see :func:`rt_eeg.io.corpus.find_recordings`).
    out_dir : path-like
        Model folder to write.
    cfg : TrainConfig
    device : {'auto', 'cpu', 'gpu'}
    max_files : int, optional
        At most this many recordings per split.
    store_dir : path-like, optional
        Feature store folder (default: a cache folder named by the store key).
    workers : int, optional
        Feature processes (default: all cores).
    compare : tuple of (arch, normalisation, onset_weight, hard_negatives, seed or None)
        Variants to compare: each is trained with the same seed and data order, the one with
        the lowest dev balanced BCE is kept and the comparison goes in the manifest.
    feature_config : FeatureConfig, optional
    command_line : str, optional
        Recorded in the manifest.
    dev_corpus : path-like, optional
        A separate corpus (root or list) whose every recording is the dev (selection) set:
        early stopping and the choice between variants then measure transfer to signals the
        training corpus does not contain (e.g. held-out simulator families). Every recording
        of the training corpus then trains.
    keep_variants : bool
        With ``compare``, keep every variant's model folder under ``out_dir/variants``.
    reuse_stores : tuple of path-like
        Complete feature stores whose recordings are copied into a store that has to be built
        instead of recomputed (:func:`rt_eeg.store_build.build_store`). Independently, a
        ``store_dir`` that holds a complete store of another key but every listed recording
        is trained on as is (:func:`rt_eeg.store_build.subset_view`) rather than rebuilt.

    Returns
    -------
    manifest : dict
    """
    from rt_eeg.features import FeatureConfig
    from rt_eeg.io.corpus import find_recordings
    from rt_eeg.store import default_store_dir, file_list_hash, file_times_hash, store_key
    from rt_eeg.store_build import build_store

    resolve_device(device)  # refuse --device gpu without a GPU before the long feature pass
    corpus = Path(corpus)
    fcfg = feature_config if feature_config is not None else FeatureConfig()
    root = corpus if corpus.is_dir() else corpus.parent
    if dev_corpus is not None:
        # every recording of the training corpus trains (its own dev/eval splits included)
        train = [
            dataclasses.replace(it, split="train")
            for it in find_recordings(corpus)
            if it.ref is not None or getattr(it, "channel_ref", None)
        ][: max_files or None]
        if not train:
            raise RtEegError("no training recordings with a reference annotation", corpus)
        dev = [
            it
            for it in find_recordings(dev_corpus)
            if it.ref is not None or getattr(it, "channel_ref", None)
        ][: max_files or None]
        if not dev:
            raise RtEegError("dev corpus has no recording with a reference annotation", dev_corpus)
        dev_source = f"dev corpus {Path(dev_corpus).resolve()}"
        root = Path(os.path.commonpath([str(Path(it.edf).resolve().parent) for it in train + dev]))
        train = [dataclasses.replace(it, edf=Path(it.edf).resolve()) for it in train]
        dev = [dataclasses.replace(it, edf=Path(it.edf).resolve()) for it in dev]
    else:
        train, dev, dev_source = select_items(find_recordings(corpus), max_files)
    # Store split labels follow the selection (held-out patients become 'dev').
    items = [dataclasses.replace(it, split="train") for it in train] + [
        dataclasses.replace(it, split="dev") for it in dev
    ]
    list_hash = file_list_hash(items, root)
    key = store_key(list_hash, fcfg.to_toml(), file_times_hash(items))
    store_path = Path(store_dir) if store_dir else default_store_dir(key)
    meta = {"key": key, "file_list_sha256": list_hash, "corpus": str(corpus.resolve())}
    # open every reuse store first: a bad folder is refused before any work
    reuse = [FeatureStore(p) for p in reuse_stores]
    store = _open_store_if_current(store_path, key)
    if store is None and store_dir:
        store = _open_subset(store_path, items, root, fcfg, meta, log)
    if store is None:
        log(f"computing features of {len(items)} recordings into {store_path}")
        build_store(
            items,
            root,
            store_path,
            fcfg,
            workers=workers or os.cpu_count() or 1,
            meta=meta,
            reuse=reuse or None,
            log=log,
        )
        store = FeatureStore(store_path)
        log(
            f"feature store: {store.index['n_rows']} frames, "
            f"{store.index['build_frames_per_second']:.0f} frames/s, "
            f"{len(store.index['skipped'])} recordings skipped"
        )
    elif "subset_of" not in store.index:
        log(f"reusing feature store {store_path}")
    extra = {
        "corpus": str(corpus.resolve()),
        "file_list_sha256": list_hash,
        "n_recordings": {"train": len(train), "dev": len(dev)},
        "dev_source": dev_source,
        "skipped_recordings": store.index.get("skipped", []),
        "command_line": command_line or " ".join(sys.argv),
    }
    if not compare:
        return train_from_store(
            store, out_dir, cfg, feature_config=fcfg, device=device, manifest_extra=extra, log=log
        )
    return _compare(store, Path(out_dir), cfg, compare, fcfg, device, extra, log, keep_variants)


def parse_variants(
    spec: str, default_norm: str = "maxabs", default_onset: float = 1.0, default_hard: float = 0.0
) -> tuple[tuple, ...]:
    """``'epoch_lstm,frame_lstm:context:3:0.5@1'`` -> ``(('epoch_lstm', 'maxabs', 1.0, 0.0,
    None), ('frame_lstm', 'context', 3.0, 0.5, 1))``:
    ``ARCH[:NORM[:ONSET_WEIGHT[:HARD_NEGATIVES]]][@SEED]``.

    ``'compare'`` means both architectures trained from scratch; missing parts take the
    defaults; a variant without ``@SEED`` uses the run's ``--seed``.
    """
    if spec == "compare":
        spec = ",".join(BASE_ARCHITECTURES)
    out = []
    for part in spec.split(","):
        body, at, seed_s = part.strip().partition("@")
        fields = body.split(":")
        extra = fields[4:]
        arch, norm, onset, hard = (fields + ["", "", ""])[:4]
        norm = norm or default_norm
        try:
            weight = float(onset) if onset else float(default_onset)
            frac = float(hard) if hard else float(default_hard)
            seed = int(seed_s) if at else None
        except ValueError:
            weight = frac = float("nan")
            seed = None
        if (
            extra
            or arch not in ARCHITECTURES
            or norm not in NORMALISATIONS
            or not weight >= 1.0
            or not 0.0 <= frac <= 1.0
            or (seed is not None and seed < 0)
        ):
            raise RtEegError(
                f"bad variant {part!r}: expected ARCH[:NORM[:ONSET_WEIGHT[:HARD_NEGATIVES]]][@SEED], "
                f"ARCH in {ARCHITECTURES}, NORM in {NORMALISATIONS}, ONSET_WEIGHT >= 1, "
                "HARD_NEGATIVES in [0, 1], SEED >= 0"
            )
        out.append((arch, norm, weight, frac, seed))
    return tuple(out)


def _compare(store, out_dir: Path, cfg, variants, fcfg, device, extra, log, keep=False) -> dict:
    """Train each variant in a sub-folder, keep the best by dev balanced BCE."""
    import shutil

    from rt_eeg.decoder import Decoder

    rows = []
    runs = {}
    for arch, norm, onset, hard, seed in variants:
        name = (
            f"{arch}-{norm}"
            + (f"-onset{onset:g}" if onset != 1.0 else "")
            + (f"-hn{hard:g}" if hard > 0 else "")
            + (f"-seed{seed}" if seed is not None else "")
        )
        sub = out_dir / "variants" / name
        log(f"--- variant {name}")
        m = train_from_store(
            store,
            sub,
            dataclasses.replace(
                cfg,
                arch=arch,
                normalisation=norm,
                onset_weight=onset,
                hard_negatives=hard,
                seed=cfg.seed if seed is None else seed,
            ),
            feature_config=fcfg,
            device=device,
            manifest_extra=extra,
            log=log,
        )
        lat = _latency_ms(Decoder(sub, device="cpu", feature_config=fcfg))
        rows.append(
            {
                "variant": name,
                "arch": arch,
                "normalisation": norm,
                "onset_weight": onset,
                "hard_negatives": hard,
                "seed": cfg.seed if seed is None else seed,
                "n_params": m["architecture"]["n_params"],
                "dev_scores": m["dev_scores"],
                "epochs_run": m["epochs_run"],
                "seconds_per_epoch": m["throughput"]["seconds_per_epoch"],
                "cpu_latency_22ch_ms_p50": lat,
            }
        )
        runs[name] = m
    best = min(rows, key=lambda r: r["dev_scores"]["balanced_bce"])["variant"]
    for name in (MODEL_FILE, LITE_FILE, FEATURES_FILE, DATA_ORDER_FILE):
        with atomic_path(out_dir / name, suffix=Path(name).suffix) as tmp:
            shutil.copyfile(out_dir / "variants" / best / name, tmp)
    manifest = dict(runs[best])
    manifest["comparison"] = {
        "criterion": "lowest dev balanced_bce",
        "chosen": best,
        "variants": rows,
    }
    write_json_atomic(out_dir / MANIFEST_FILE, manifest)
    # The losing variants' weights are not kept: the comparison lives in the manifest, and a
    # model folder should hold one model.
    if not keep:
        shutil.rmtree(out_dir / "variants", ignore_errors=True)
    log(f"chosen: {best}")
    return manifest


def _latency_ms(decoder, n_ch: int = 22, n: int = 50) -> float:
    """Median wall time (ms) of one 22-channel epoch push on the decoder's device."""
    rng = np.random.default_rng(0)
    feats = rng.standard_normal((FRAMES_PER_EPOCH * (n + 7), n_ch, decoder.n_features)).astype(
        np.float32
    )
    times = []
    for i in range(n + 7):
        t = time.perf_counter()
        decoder.push(feats[i * FRAMES_PER_EPOCH : (i + 1) * FRAMES_PER_EPOCH])
        times.append(time.perf_counter() - t)
    return round(float(np.median(times[7:]) * 1e3), 3)


def _open_complete(path: Path) -> FeatureStore | None:
    """The complete store at ``path``, or None (absent, or an interrupted build)."""
    if not (path / "index.json").is_file():
        return None
    try:
        return FeatureStore(path)
    except RtEegError:
        return None


def _open_store_if_current(path: Path, key: str) -> FeatureStore | None:
    store = _open_complete(path)
    return store if store is not None and store.index.get("key") == key else None


def _open_subset(path: Path, items, root, fcfg, meta: dict, log) -> FeatureStore | None:
    """The view of the complete store at ``path`` (another key) holding every item, or None."""
    from rt_eeg.store_build import subset_view, weak_match_note

    store = _open_complete(path)
    if store is None:
        return None
    view, n_weak = subset_view(store, items, root, fcfg, meta)
    if view is None:
        return None
    log(
        f"training on {len(view.index['recordings'])} of the {len(store.index['recordings'])} "
        f"recordings of feature store {path} (it holds every listed recording)"
    )
    if n_weak:
        log(weak_match_note(f"feature store {path}", n_weak))
    return view
