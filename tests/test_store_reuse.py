"""Building a feature store from another store's rows, and training on a subset of a store."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil

import numpy as np
import pytest

from rt_eeg.features import FeatureConfig
from rt_eeg.io.corpus import find_recordings
from rt_eeg.store import FeatureStore
from rt_eeg.store_build import (
    IDENTITY_FIELDS,
    TIME_FIELDS,
    build_store,
    plan_reuse,
    source_identity,
    subset_view,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]
DATA_FILES = ("features.f32", "labels.u8", "context.f32", "index.npz")


def _pick(items, *patients):
    """The items of these patients, in this order."""
    return [next(it for it in items if it.patient == p) for p in patients]


def _write_tree(root, rng, patients, seconds=(24, 41)):
    """TUSZ v2-like recordings (noise, a 3 Hz left-temporal seizure), mixed rates/lengths.

    ``patients``: (split, patient, kind) with kind 'csv_bi', 'csv' (a per-channel annotation
    beside it too), '256' (256 Hz, resampled) or 'broken' (not an EDF: skipped).
    """
    from edf_factory import TUH_ELECTRODES, write_edf

    from rt_eeg.io.annotations import Event, write_csv, write_csv_bi

    labels = [f"EEG {e}-REF" for e in TUH_ELECTRODES]
    for split, p, kind in patients:
        folder = root / "edf" / split / p / "s001_2020" / "01_tcp_ar"
        folder.mkdir(parents=True)
        stem = f"{p}_s001_t000"
        dur = int(rng.integers(*seconds))
        onset = float(rng.integers(6, dur - 12))
        write_csv_bi(folder / f"{stem}.csv_bi", [Event(onset, onset + 8, "seiz")], float(dur))
        if kind == "broken":
            (folder / f"{stem}.edf").write_bytes(b"not an EDF file")
            continue
        sfreq = 256.0 if kind == "256" else 250.0
        t = np.arange(int(sfreq * dur)) / sfreq
        data = rng.normal(0, 15, (len(labels), t.size))
        sz = (t >= onset) & (t < onset + 8)
        for k, e in enumerate(TUH_ELECTRODES):
            if e in ("F7", "T3", "T5", "FP1", "C3"):
                data[k, sz] += 120 * np.sin(2 * np.pi * 3.0 * t[sz] + k)
        write_edf(folder / f"{stem}.edf", data, labels, sfreq)
        if kind == "csv":
            ev = [Event(0.0, float(dur), "bckg", channel="FP1-F7")]
            ev += [Event(onset, onset + 8, "fnsz", channel=ch) for ch in ("F7-T3", "T3-T5")]
            write_csv(folder / f"{stem}.csv", ev, float(dur))


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    """Two corpus trees under one folder and a store of tree A in another order.

    Returns
    -------
    dict
        ``top`` (common root), ``a`` / ``b`` (the items of each tree), ``big`` (the store of
        tree A, reversed, built with root A, one recording's split flipped).
    """
    top = tmp_path_factory.mktemp("corpora")
    rng = np.random.default_rng(7)
    _write_tree(top / "A", rng, [("train", "aa01", "csv_bi"), ("train", "aa02", "csv"),
                                 ("train", "aa03", "256"), ("train", "aa04", "broken"),
                                 ("dev", "aa05", "csv_bi"), ("dev", "aa06", "256")])  # fmt: skip
    _write_tree(top / "B", rng, [("train", "bb01", "csv_bi"), ("dev", "bb02", "256")])
    a, b = find_recordings(top / "A"), find_recordings(top / "B")
    big_items = [
        dataclasses.replace(it, split="train") if "aa05" in str(it.edf) else it  # was dev
        for it in reversed(a)
    ]
    big = top / "stores" / "big"
    build_store(big_items, top / "A", big, FeatureConfig())
    return {"top": top, "a": a, "b": b, "big": big}


def _index_without_build(path):
    index = json.loads((path / "index.json").read_text())
    return {k: v for k, v in index.items() if not k.startswith("build_")}


def _assert_same_store(x, y):
    for name in DATA_FILES:
        assert (x / name).read_bytes() == (y / name).read_bytes(), name
    assert _index_without_build(x) == _index_without_build(y)


def test_reuse_writes_the_store_a_fresh_build_writes(corpora, tmp_path, monkeypatch):
    """A list that adds tree B (and drops one recording of A) to the stored tree A: every A
    recording is copied, B computed, and the store is byte for byte the one built from
    scratch, with names relative to another root and a split changed since."""
    import rt_eeg.store

    monkeypatch.setattr(rt_eeg.store, "COPY_ROWS", 7)  # several reads per track: streamed
    top, a, b = corpora["top"], corpora["a"], corpora["b"]
    items = [it for it in a if "aa03" not in str(it.edf)] + b
    cfg = FeatureConfig()
    scratch = build_store(items, top, tmp_path / "scratch", cfg)
    lines, calls = [], []
    reused = build_store(
        items,
        top,
        tmp_path / "reused",
        cfg,
        reuse=[FeatureStore(corpora["big"])],
        progress=lambda *a: calls.append(a),
        log=lines.append,
    )
    _assert_same_store(scratch, reused)
    index = json.loads((reused / "index.json").read_text())
    # 4 readable recordings of A copied; B's 2 and the unreadable one computed (skipped again)
    assert (index["build_reused"], index["build_computed"]) == (4, 3)
    assert index["build_reused_from"] == [str(corpora["big"])]
    assert [c[:2] for c in calls] == [(k + 1, len(items)) for k in range(len(items))]
    assert calls[-1][2] == index["recordings"][-1]["name"]
    assert f"reuse store {corpora['big']}: holds 4 of the 7 recordings" in lines
    assert lines[-1].endswith("4 recordings reused, 3 computed")
    assert [s["name"].split("/")[-1] for s in index["skipped"]] == ["aa04_s001_t000.edf"]
    rec = next(r for r in index["recordings"] if "aa02" in r["name"])
    edf = _pick(a, "aa02")[0].edf
    assert rec["edf_bytes"] == edf.stat().st_size
    assert rec["channel_ref_bytes"] == edf.with_suffix(".csv").stat().st_size
    assert index["root"] == str(top.resolve())


def test_reuse_requires_same_files_and_feature_settings(corpora, tmp_path):
    top, a = corpora["top"], corpora["a"]
    names = [str(it.edf.relative_to(top / "A")) for it in a]
    ids = [source_identity(it) for it in a]
    changed = tmp_path / "changed"
    shutil.copytree(corpora["big"], changed)
    index = json.loads((changed / "index.json").read_text())
    entry = next(r for r in index["recordings"] if "aa05" in r["name"])
    entry["ref_bytes"] += 1  # its label file has changed since
    rewritten = next(r for r in index["recordings"] if "aa06" in r["name"])
    rewritten["edf_mtime_ns"] -= 10**9  # rewritten in place since: same sizes, a new time
    (changed / "index.json").write_text(json.dumps(index))
    lines = []
    plan = plan_reuse(
        a, names, top / "A", FeatureConfig(), ids, [FeatureStore(changed)], lines.append
    )
    held = [p is not None for p in plan]
    assert held == [all(p not in n for p in ("aa04", "aa05", "aa06")) for n in names]
    # a store that recorded sizes but no times: matched by sizes, and said so
    for entry in index["recordings"] + index["skipped"]:
        for field in TIME_FIELDS:
            del entry[field]
    (changed / "index.json").write_text(json.dumps(index))
    lines = []
    plan = plan_reuse(
        a, names, top / "A", FeatureConfig(), ids, [FeatureStore(changed)], lines.append
    )
    assert [p is not None for p in plan] == [("aa04" not in n and "aa05" not in n) for n in names]
    assert "4 recordings matched by file sizes or header length only" in lines[-1], lines
    # another feature configuration: the store is not used at all
    other = FeatureConfig(f_max=39.0)
    plan = plan_reuse(a, names, top / "A", other, ids, [FeatureStore(changed)], lines.append)
    assert plan == [None] * len(a)
    assert lines[-1] == f"reuse store {changed}: not used, its feature configuration differs"


def test_reuse_of_an_older_store_matches_name_and_length(corpora, tmp_path):
    """A store written before sizes and root were recorded: names relative to the corpus root,
    identity from the EDF header's length; a length that differs is recomputed. The store is
    rebuilt in its own folder."""
    top, a = corpora["top"], corpora["a"]
    old = tmp_path / "old"
    shutil.copytree(corpora["big"], old)
    index = json.loads((old / "index.json").read_text())
    del index["root"]
    for entry in index["recordings"] + index["skipped"]:
        for field in IDENTITY_FIELDS:
            del entry[field]
    next(r for r in index["recordings"] if "aa01" in r["name"])["n_frames"] += 10
    (old / "index.json").write_text(json.dumps(index))
    cfg = FeatureConfig()
    scratch = build_store(a, top / "A", tmp_path / "scratch", cfg)
    lines = []
    # rebuilt in place: the old store's files are read while their replacements are written
    reused = build_store(a, top / "A", old, cfg, reuse=[FeatureStore(old)], log=lines.append)
    _assert_same_store(scratch, reused)
    assert json.loads((reused / "index.json").read_text())["build_reused"] == 4
    assert any("4 recordings matched by file sizes or header length" in ln for ln in lines), lines


def test_subset_view_equals_a_store_of_the_subset(corpora, tmp_path):
    """The view of the big store numbers rows as the store built for the subset: training
    draws the same rows, windows, centres, labels, onset ranks and minable background."""
    from rt_eeg.hard_negatives import minable_negatives

    top, a = corpora["top"], corpora["a"]
    items = _pick(a, "aa05", "aa02", "aa04", "aa01", "aa06")  # unreadable aa04, another order
    cfg = FeatureConfig()
    small = FeatureStore(build_store(items, top, tmp_path / "small", cfg, meta={"key": "k"}))
    big = FeatureStore(corpora["big"])
    view, n_weak = subset_view(big, items, top, cfg, {"key": "k"})
    assert view is not None and n_weak == 0
    assert view.index["subset_of"]["path"] == str(big.path)
    for field in ("recordings", "skipped", "root", "key", "n_rows", "n_label_rows"):
        assert view.index[field] == small.index[field], field
    for arr in ("track_recording", "track_n_frames", "label_offset"):
        np.testing.assert_array_equal(getattr(view, arr), getattr(small, arr))
    np.testing.assert_array_equal(view.labels, small.labels)
    for split in ("train", "dev"):
        rows = view.rows(split)
        np.testing.assert_array_equal(rows, small.rows(split))
        for got, want in zip(view.windows(rows), small.windows(rows), strict=True):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(view.centers(rows), small.centers(rows))
        pos, neg = rows[small.labels[rows] == 1], rows[small.labels[rows] == 0]
        assert pos.size and neg.size
        np.testing.assert_array_equal(view.onset_rank(pos), small.onset_rank(pos))
        np.testing.assert_array_equal(
            minable_negatives(view, neg, 3), minable_negatives(small, neg, 3)
        )
    # a view of the view is that of the big store's recordings (aa01, aa05)
    names = [r["name"] for r in big.index["recordings"]]
    pick = [names.index(view.index["recordings"][k]["name"].split("A/", 1)[1]) for k in (2, 0)]
    sub, direct = view.subset([2, 0]), big.subset(pick)
    np.testing.assert_array_equal(sub.labels, direct.labels)
    rows = np.arange(sub.labels.size)
    np.testing.assert_array_equal(sub.centers(rows), direct.centers(rows))
    np.testing.assert_array_equal(sub.windows(rows)[0], direct.windows(rows)[0])
    # a recording the store does not hold (tree B): no view
    assert subset_view(big, items + corpora["b"][:1], top, cfg)[0] is None


def test_train_command_reuses_a_store_then_trains_on_a_subset(corpora, tmp_path, capsys):
    """``rt-eeg train --reuse-store`` copies what a store holds; ``--store`` naming a larger
    store that holds every listed recording trains on its view exactly as on a store built
    for the list (same data order, same weights)."""
    from rt_eeg.cli import main

    a, b = corpora["a"], corpora["b"]

    def write_list(name, items):
        (tmp_path / name).write_text("".join(f"{it.edf}\n" for it in items))
        return str(tmp_path / name)

    train_a = write_list("train_a.list", [it for it in a if it.split == "train"])
    train_ab = write_list("train_ab.list", [it for it in a + b if it.split == "train"])
    dev_a = write_list("dev_a.list", [it for it in a if it.split == "dev"])
    opts = ("--seed 2 --epochs 2 --units 8 --samples-per-epoch 128 --batch-size 64 "
            "--max-dev-samples 2000 --workers 1 --device cpu --arch epoch_lstm "
            "--normalisation context --hard-negatives 0.5").split()  # fmt: skip
    s1, s2 = tmp_path / "s1", tmp_path / "s2"

    def train(corpus, out, store, *extra):
        argv = ["train", "--corpus", corpus, "--dev-corpus", dev_a, "--out", str(tmp_path / out),
                "--store", str(store), *extra, *opts]  # fmt: skip
        assert main(argv) == 0
        return json.loads((tmp_path / out / "manifest.json").read_text()), capsys.readouterr().out

    m1, _ = train(train_a, "m1", s1)
    _, log2 = train(train_ab, "m2", s2, "--reuse-store", str(s1))
    assert f"reuse store {s1}: holds 5 of the 7 recordings" in log2
    assert "5 recordings reused, 2 computed" in log2
    index2 = FeatureStore(s2).index
    assert (index2["build_reused"], index2["build_computed"]) == (5, 2)
    m3, log3 = train(train_a, "m3", s2)
    assert f"training on 5 of the 6 recordings of feature store {s2}" in log3
    assert "computing features" not in log3
    assert m3["store"]["key"] == m1["store"]["key"]
    assert m3["store"]["subset_of"] == {"path": str(s2), "key": index2["key"], "n_recordings": 6}
    assert m3["skipped_recordings"] == m1["skipped_recordings"] != []
    np.testing.assert_array_equal(np.load(tmp_path / "m3" / "data_order.npy"),
                                  np.load(tmp_path / "m1" / "data_order.npy"))  # fmt: skip
    assert m3["weights_sha256"] == m1["weights_sha256"]
    assert m3["samples"] == m1["samples"] and m3["dev_scores"] == m1["dev_scores"]
    assert m1["dev_scores"]["n_bckg"] > 0 and m1["dev_scores"]["n_seiz"] > 0
    # mined from the view as from the store (timings aside)
    assert m3["history"][1]["hard_negatives"]["mined"] > 0
    untimed = [
        [{k: v for k, v in h.items() if k != "seconds"} for h in m["history"]] for m in (m1, m3)
    ]
    assert untimed[0] == untimed[1]


def test_the_store_key_knows_each_recordings_split(corpora):
    """The same files with a recording moved between train and dev are another store: a
    store keyed by paths and sizes alone would be reused with the old splits (training on
    the dev set after ``--corpus`` and ``--dev-corpus`` were swapped)."""
    from rt_eeg.store import file_list_hash

    a, root = corpora["a"], corpora["top"] / "A"
    swapped = [dataclasses.replace(it, split="dev" if it.split == "train" else "train") for it in a]
    assert file_list_hash(a, root) != file_list_hash(swapped, root)
    assert file_list_hash(a, root) == file_list_hash(list(reversed(a)), root)  # order-free


def test_the_store_key_sees_a_recording_rewritten_in_place(corpora, tmp_path):
    """Simulating again into the same folder keeps every file's size: the modification time
    makes it another store, so the old features are not trained on."""
    from rt_eeg.store import file_list_hash, file_times_hash, store_key

    src = _pick(corpora["a"], "aa01")[0]
    folder = tmp_path / "c"
    shutil.copytree(src.edf.parent, folder)
    items = [dataclasses.replace(src, edf=folder / src.edf.name, ref=folder / src.ref.name)]
    before = file_list_hash(items, tmp_path), file_times_hash(items)
    ident = source_identity(items[0])
    st = items[0].edf.stat()
    os.utime(items[0].edf, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert items[0].edf.stat().st_size == st.st_size
    after = file_list_hash(items, tmp_path), file_times_hash(items)
    assert after[0] == before[0]  # the corpus's portable name is the same ...
    # ... its store is not
    assert store_key(after[0], "f", after[1]) != store_key(before[0], "f", before[1])
    now = source_identity(items[0])
    assert now["edf_bytes"] == ident["edf_bytes"] and now["edf_mtime_ns"] != ident["edf_mtime_ns"]


def test_a_full_disk_is_one_clear_error_and_leaves_no_partial_store(corpora, tmp_path, monkeypatch):
    """ENOSPC while copying rows (seen on a 16 GB rebuild): an RtEegError naming the store and
    the reason, no half-written store left, the reused store untouched."""
    import rt_eeg.store
    from rt_eeg.errors import RtEegError

    before = {n: (corpora["big"] / n).read_bytes() for n in DATA_FILES}
    calls = []

    def full(src, start, n, out):
        calls.append(n)
        if len(calls) == 2:  # the second recording copied: the disk fills up
            raise OSError(28, "No space left on device")
        out.write(np.ascontiguousarray(src[start : start + n]).tobytes())

    monkeypatch.setattr(rt_eeg.store, "_copy_rows", full)
    out = tmp_path / "store"
    with pytest.raises(RtEegError) as err:
        build_store(corpora["a"], corpora["top"], out, FeatureConfig(),
                    reuse=[FeatureStore(corpora["big"])], log=lambda line: None)  # fmt: skip
    assert str(err.value) == f"{out}: feature store not built: No space left on device"
    assert len(calls) == 2
    assert not (out / "index.json").exists() and not any((out / n).exists() for n in DATA_FILES)
    assert {n: (corpora["big"] / n).read_bytes() for n in DATA_FILES} == before
