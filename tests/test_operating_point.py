"""tools/operating_point.py: tuned on pooled corpora of crafted probabilities, it picks the
strict point that keeps a near-seizure artifact out, scores report corpora and fixed
configurations without choosing on them, and refuses a malformed corpus spec in one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
operating_point = pytest.importorskip("operating_point")

N = 600  # epochs (s) per recording


def _recording(
    folder: Path, name: str, seizure: tuple[int, int] | None, artifact: tuple[int, int] | None
):
    """A csv_bi reference and stored probabilities: background 0.05, a seizure at 0.99995 on 6 of
    22 channels, an artifact at 0.9992 on 6 channels (seizure-like, but below 0.9995)."""
    from rt_eeg.io.annotations.model import Event
    from rt_eeg.io.annotations.tusz_csv import write_csv_bi

    probs = np.full((N, 22), 0.05, dtype=np.float32)
    events = []
    if seizure:
        probs[seizure[0] + 1 : seizure[1], :6] = 0.99995
        events.append(Event(float(seizure[0]), float(seizure[1]), "seiz"))
    if artifact:
        probs[artifact[0] : artifact[1], :6] = 0.9992
    edf = folder / f"{name}.edf"
    write_csv_bi(edf.with_suffix(".csv_bi"), events, float(N))
    ev = folder / "eval"
    ev.mkdir(exist_ok=True)
    np.savez(ev / f"{name}.probs.npz", epoch_starts=np.arange(N, dtype=np.float64), probs=probs,
             ch_names=np.array([f"C{i}" for i in range(22)]), duration=np.float64(N))  # fmt: skip
    return str(edf)


def _corpus(tmp_path: Path, name: str, recs) -> str:
    folder = tmp_path / name
    folder.mkdir()
    edfs = [_recording(folder, f"{name}_{i}", *r) for i, r in enumerate(recs)]
    (folder / "list").write_text("\n".join(edfs) + "\n")
    return f"{name}={folder / 'list'}:{folder / 'eval'}"


def test_strict_point_chosen_on_pool_and_reports_scored(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text(
        "threshold_on = 0.998\nthreshold_off = 0.499\nonset_epochs = 2\ntop_k = 2\n"
    )
    a = _corpus(tmp_path, "A", [((100, 160), (400, 420)), (None, (200, 215))])
    b = _corpus(tmp_path, "B", [((300, 340), None), (None, None)])
    r = _corpus(tmp_path, "R", [((50, 90), (300, 330)), ((200, 260), None)])
    out, toml = tmp_path / "op.json", tmp_path / "op.toml"
    rc = operating_point.main(["--model", str(model), "--target-fa", "1", "--workers", "2", "--quiet", "--tune", a, "--tune", b, "--report", r,
                               "--fixed", f"today={model / 'postprocess.toml'}", "--out", str(out),
                               "--toml", str(toml)])  # fmt: skip
    assert rc == 0
    doc = json.loads(out.read_text())
    chosen = doc["configs"]["chosen"]
    # only a threshold above the artifact's 0.9992 keeps the pool within 1 FA/24 h
    assert chosen["threshold_on"] >= 0.9995
    figs = doc["figures"]
    assert figs["chosen"]["pool"]["false_alarms"] == 0 and figs["chosen"]["pool"]["hits"] == 2
    assert figs["today"]["pool"]["false_alarms"] == 2 and figs["today"]["pool"]["hits"] == 2
    # the report corpus is scored for both, separately; its artifact fires only today's point
    assert (
        figs["chosen"]["report_R"]["false_alarms"] == 0 and figs["chosen"]["report_R"]["hits"] == 2
    )
    assert figs["today"]["report_R"]["false_alarms"] == 1
    assert set(figs["chosen"]) == {"pool", "tune_A", "tune_B", "report_R"}
    # the trials live beside the JSON, compressed; load_result reads the two as one
    assert "trials_pool" not in doc and doc["trials_pool_file"] == "op.trials.json.gz"
    full = operating_point.load_result(out)
    assert doc["n_trials"] == len(full["trials_pool"]) == len(operating_point.strict_grid(
        operating_point.load_postprocess_config(model)))  # fmt: skip
    # the TOML is a postprocess file the detector reads
    assert operating_point.read_postprocess_toml(str(toml)).threshold_on == chosen["threshold_on"]
    # --score-only: the fixed configurations alone, the same figures, no grid, no TOML
    out2 = tmp_path / "score.json"
    rc = operating_point.main(["--model", str(model), "--score-only", "--tune", a, "--tune", b, "--report", r,
                               "--fixed", f"chosen={toml}", "--fixed", f"today={model / 'postprocess.toml'}",
                               "--out", str(out2)])  # fmt: skip
    doc2 = json.loads(out2.read_text())
    assert rc == 0 and doc2["n_trials"] == 0 and doc2["figures"] == figs


def test_malformed_spec_is_one_line_error(tmp_path, capsys):
    rc = operating_point.main(["--tune", "no-equals-sign", "--out", str(tmp_path / "o.json"),
                               "--toml", str(tmp_path / "o.toml")])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0 and "NAME=LIST:EVAL_DIR" in err
    assert not (tmp_path / "o.json").exists()


def test_adapt_grid_searches_the_patient_relative_gate(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    a = _corpus(tmp_path, "A", [((100, 160), None), ((300, 340), None)])
    out, toml = tmp_path / "op.json", tmp_path / "op.toml"
    rc = operating_point.main(["--model", str(model), "--grid", "adapt", "--workers", "1", "--quiet",
                               "--tune", a, "--out", str(out), "--toml", str(toml)])  # fmt: skip
    assert rc == 0
    doc = json.loads(out.read_text())
    grid = operating_point.adapt_grid(operating_point.load_postprocess_config(model))
    assert doc["n_trials"] == len(grid) == 4 * 3 * 2 * 4
    assert {c.adapt_epochs for c in grid} == {300}
    cfg = operating_point.read_postprocess_toml(str(toml))
    assert cfg.adapt_epochs == 300 and cfg.to_dict() == doc["configs"]["chosen"]
    assert doc["figures"]["chosen"]["pool"]["hits"] == 2


def test_weigh_corpora_gives_a_small_corpus_its_own_voice(tmp_path):
    """A large corpus (8 strong seizures, one near-seizure artifact) and a small one (2 weak
    seizures at 0.9985): pooled, the artifact's false alarm counts over 6000 s and only a
    threshold above it qualifies, missing the small corpus; weighed by corpus, the mean rate
    qualifies at 0.998 and the small corpus's seizures are found."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    big = _corpus(tmp_path, "BIG", [((100, 160), (400, 420))] + [((100, 160), None)] * 7)
    small = _corpus(tmp_path, "SMALL", [((200, 260), None)] * 2)
    for npz in (tmp_path / "SMALL" / "eval").glob("*.probs.npz"):
        with np.load(npz) as z:
            d = dict(z)
        d["probs"][d["probs"] > 0.9] = 0.9985
        np.savez(npz, **d)
    common = ["--model", str(model), "--target-fa", "10", "--workers", "1", "--quiet",
              "--tune", big, "--tune", small]  # fmt: skip
    docs = {}
    for weigh in ("seizures", "corpora"):
        out, toml = tmp_path / f"{weigh}.json", tmp_path / f"{weigh}.toml"
        assert operating_point.main(common + ["--weigh", weigh, "--out", str(out), "--toml", str(toml)]) == 0
        docs[weigh] = operating_point.load_result(out)
    pooled, macro = docs["seizures"], docs["corpora"]
    assert pooled["configs"]["chosen"]["threshold_on"] >= 0.9995
    assert pooled["figures"]["chosen"]["tune_SMALL"]["hits"] == 0
    assert macro["configs"]["chosen"]["threshold_on"] <= 0.998
    assert macro["figures"]["chosen"]["tune_SMALL"]["hits"] == 2
    # the chosen trial's figures are the means of the per-corpus ones
    t = max((t for t in macro["trials_pool"] if t["fa_per_24h"] <= 10), key=lambda t: t["sensitivity"])
    per = t["corpora"]
    assert t["sensitivity"] == (per["BIG"]["sensitivity"] + per["SMALL"]["sensitivity"]) / 2 == 100.0
    assert t["fa_per_24h"] == (per["BIG"]["fa_per_24h"] + per["SMALL"]["fa_per_24h"]) / 2


def test_dual_grid_adds_only_faster_early_paths(tmp_path):
    """Amendment 31's grid: 340 points, none in the strict grid, each early path faster than its
    base (fewer epochs) and either above its threshold or a rise; strict_dual is the union."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    base = operating_point.load_postprocess_config(model)
    dual, strict = operating_point.dual_grid(base), operating_point.strict_grid(base)
    assert len(dual) == len(set(dual)) == 340 and not set(dual) & set(strict)
    for c in dual:
        assert c.early_epochs < c.onset_epochs and c.rise_delta == 0.0
        assert (c.early_threshold > c.threshold_on and c.early_rise == 0.0) or (
            c.early_threshold == 0.99 < c.threshold_on and c.early_rise == 0.2)
    assert operating_point.GRIDS["strict_dual"](base) == strict + dual


def test_sens_slack_chooses_the_earliest_near_best_point(tmp_path):
    """Two seizures: one at 0.99995 from its second epoch, one that reaches only 0.9993. The
    most sensitive points (threshold <= 0.999) wait for the slow rise; with a slack that admits
    the one-seizure points, the rule takes the earliest onset among them."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    a = _corpus(tmp_path, "A", [((100, 160), None), ((300, 360), None)])
    npz = tmp_path / "A" / "eval" / "A_1.probs.npz"
    with np.load(npz) as z:
        d = dict(z)
    d["probs"][300:360, :6] = np.linspace(0.05, 0.9993, 60)[:, None]  # slow, never 0.9995
    np.savez(npz, **d)
    docs = {}
    for slack in ("0", "60"):
        out, toml = tmp_path / f"s{slack}.json", tmp_path / f"s{slack}.toml"
        assert operating_point.main(["--model", str(model), "--target-fa", "5", "--workers", "1", "--quiet",
                                     "--tune", a, "--sens-slack", slack, "--out", str(out),
                                     "--toml", str(toml)]) == 0  # fmt: skip
        docs[slack] = json.loads(out.read_text())
        assert docs[slack]["sens_slack"] == float(slack)
    r0, r1 = (docs[s]["figures"]["chosen"]["pool"] for s in ("0", "60"))
    assert r0["hits"] == 2 and r1["hits"] == 1
    assert r1["latency_median_s"] < r0["latency_median_s"]
    assert "earliest onset within 60.0 points" in (tmp_path / "s60.toml").read_text()


def test_flag_limit_refuses_alarms_that_do_not_end(tmp_path):
    """Amendment 52: after each seizure six channels stay at 0.7 to the end of the recording. At
    the hysteresis ratio 0.5 (threshold_off ~0.5) the alarm never ends: OVLP scores it as a
    perfect hit with no false alarm, and without a limit that point is chosen. Under a limit of
    2x the reference's seizure time only a point whose alarm ends (off ratio >= 0.8) is
    eligible; it finds the same seizures and calls little more than their time."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    a = _corpus(tmp_path, "A", [((100, 160), None), ((300, 340), None)])
    for npz in (tmp_path / "A" / "eval").glob("*.probs.npz"):
        with np.load(npz) as z:
            d = dict(z)
        stop = 160 if npz.name == "A_0.probs.npz" else 340
        d["probs"][stop:, :6] = 0.7
        np.savez(npz, **d)
    docs = {}
    for limit in (None, "2"):
        out, toml = tmp_path / f"l{limit}.json", tmp_path / f"l{limit}.toml"
        extra = ["--max-flag-ratio", limit] if limit else []
        assert operating_point.main(["--model", str(model), "--target-fa", "5", "--workers", "1", "--quiet",
                                     "--grid", "strict_off", "--tune", a, "--out", str(out), "--toml", str(toml),
                                     *extra]) == 0  # fmt: skip
        docs[limit] = json.loads(out.read_text())
    free, limited = (docs[k]["figures"]["chosen"]["pool"] for k in (None, "2"))
    assert free["hits"] == limited["hits"] == 2 and free["false_alarms"] == limited["false_alarms"] == 0
    assert free["flag_ratio"] > 4 and docs[None]["configs"]["chosen"]["threshold_off"] < 0.6
    assert limited["flag_ratio"] <= 2 and docs["2"]["configs"]["chosen"]["threshold_off"] > 0.7
    assert docs["2"]["max_flag_ratio"] == 2.0 and "2x the reference" in toml.read_text()
    # seizure time is what the references hold: 60 s + 40 s
    assert limited["seiz_ref_s"] == 100.0
    assert len(operating_point.strict_off_grid(operating_point.load_postprocess_config(model))) == 420


def test_compact_moves_inline_trials_and_load_result_reads_both_layouts(tmp_path, capsys):
    """A result written before the split (trials inline) loads as it is; ``--compact`` moves
    its trials to the compressed file beside it, byte-identical on a second write, and the
    loaded result is unchanged; a missing trials file is an error naming it."""
    trials = [{"sensitivity": 50.0 + i, "fa_per_24h": 1.0 * i, "corpora": {"A": {"hits": i}}}
              for i in range(40)]  # fmt: skip
    doc = {"weigh": "corpora", "figures": {"chosen": {}}, "n_trials": 40, "trials_pool": trials}
    old = tmp_path / "operating_point_m_sel5f.json"
    old.write_text(json.dumps(doc, indent=2))
    assert operating_point.load_result(old) == doc
    assert operating_point.main(["--compact", str(old)]) == 0
    gz = tmp_path / "operating_point_m_sel5f.trials.json.gz"
    assert "trials moved to operating_point_m_sel5f.trials.json.gz" in capsys.readouterr().out
    split = json.loads(old.read_text())
    assert "trials_pool" not in split and split["trials_pool_file"] == gz.name
    loaded = operating_point.load_result(old)
    assert loaded == doc | {"trials_pool_file": gz.name, "trials_sha256": split["trials_sha256"]}
    first = gz.read_bytes()
    operating_point.write_result(old, operating_point.load_result(old))
    assert gz.read_bytes() == first  # no timestamp in the gzip header
    # a second --compact finds nothing to move and leaves the files alone
    assert operating_point.main(["--compact", str(old)]) == 0
    assert "no inline trials" in capsys.readouterr().out and gz.read_bytes() == first
    # trials from another run beside this JSON (a stop between the two writes) are refused
    other = tmp_path / "other.json"
    operating_point.write_result(other, doc | {"trials_pool": trials[:3]})
    gz.write_bytes((tmp_path / "other.trials.json.gz").read_bytes())
    with pytest.raises(SystemExit, match="SHA-256 is not the one the JSON records"):
        operating_point.load_result(old)
    gz.unlink()
    with pytest.raises(SystemExit, match="operating_point_m_sel5f.trials.json.gz: cannot read the trials"):
        operating_point.load_result(old)


def _strict_off_then(tmp_path, model, tune, grid):
    """A strict_off result for ``model`` on the ``--tune`` spec ``tune``, then the same extended
    by ``grid``: (the common arguments, the first result's path, both results loaded)."""
    common = ["--model", str(model), "--target-fa", "5", "--workers", "1", "--quiet", "--tune", tune,
              "--max-flag-ratio", "2"]  # fmt: skip
    first, ext = tmp_path / "first.json", tmp_path / "ext.json"
    assert operating_point.main([*common, "--grid", "strict_off", "--out", str(first),
                                 "--toml", str(tmp_path / "first.toml")]) == 0  # fmt: skip
    assert operating_point.main([*common, "--grid", grid, "--extend", str(first),
                                 "--out", str(ext), "--toml", str(tmp_path / "ext.toml")]) == 0  # fmt: skip
    return common, first, operating_point.load_result(first), operating_point.load_result(ext)


def test_extend_adds_the_ceiling_band_to_a_stored_result(tmp_path, capsys):
    """Pilot 65: a seizure whose channels plateau at 0.9978 (under the strict grid's 0.998) and
    artifacts at 0.9972 (over its 0.995). The strict_off point must pass one of the two; the
    result extended with the ceiling band keeps its 420 trials, runs only the 240 new ones,
    finds both seizures at 0.9975 with no false alarm, and holds exactly the trials a fresh run
    of both grids gives. Extending by a grid the result holds, or on other corpora, is refused."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    a = _corpus(tmp_path, "A", [((100, 160), (400, 420)), ((300, 360), (100, 120))])
    for name, art in (("A_0", (400, 420)), ("A_1", (100, 120))):
        npz = tmp_path / "A" / "eval" / f"{name}.probs.npz"
        with np.load(npz) as z:
            d = dict(z)
        d["probs"][art[0]:art[1], :6] = 0.9972
        if name == "A_1":
            d["probs"][301:360, :6] = 0.9978
        np.savez(npz, **d)
    common, first, d1, d2 = _strict_off_then(tmp_path, model, a, "ceiling_off")
    capsys.readouterr()
    p1, p2 = d1["figures"]["chosen"]["pool"], d2["figures"]["chosen"]["pool"]
    assert p1["hits"] == 1 and d1["configs"]["chosen"]["threshold_on"] >= 0.998
    assert p2["hits"] == 2 and p2["false_alarms"] == 0
    assert d2["configs"]["chosen"]["threshold_on"] == 0.9975
    assert d2["grid"] == "strict_off+ceiling_off" and d2["n_trials"] == 660
    assert d2["extends"] == str(first) and d2["trials_pool"][:420] == d1["trials_pool"]
    base = operating_point.load_postprocess_config(model)
    _, refs, stored = operating_point.load_corpus(str(tmp_path / "A" / "list"), str(tmp_path / "A" / "eval"))
    fresh = operating_point.run_trials(operating_point.grid_of("strict_off+ceiling_off", base), refs, stored,
                                       workers=1, progress=False)  # fmt: skip
    assert json.loads(json.dumps(fresh)) == d2["trials_pool"]
    assert "grid strict_off+ceiling_off" in (tmp_path / "ext.toml").read_text()
    # refused, in one line naming the earlier result
    again = [*common, "--out", str(tmp_path / "x.json"), "--toml", str(tmp_path / "x.toml")]
    assert operating_point.main([*again, "--grid", "strict_off", "--extend", str(first)]) == 2
    assert "already holds 'strict_off'" in capsys.readouterr().err
    b = _corpus(tmp_path, "B", [((100, 160), None)])
    for spec in (b, "A=" + b.partition("=")[2]):  # another corpus, or another under A's name
        other = [x if x != a else spec for x in again]
        assert operating_point.main([*other, "--grid", "ceiling_off", "--extend", str(first)]) == 2
        err = capsys.readouterr().err
        assert str(first) in err and f"tuned on [{a!r}]" in err and not (tmp_path / "x.json").exists()


def test_extend_adds_the_band_under_the_floor():
    """Pilot 67: the floor band sits wholly under the strict grid (every strict_off threshold
    is above every floor_off one), with strict_off's confirmations, top-k, rises and off
    ratios at each of its thresholds; strict_off + floor_off holds both grids' configurations
    in that order, so a result extended with it keeps its own trials first."""
    from rt_eeg.postprocess import PostprocessConfig

    base = PostprocessConfig()
    strict, floor = operating_point.strict_off_grid(base), operating_point.floor_off_grid(base)
    assert len(floor) == 180 and len(strict) == 420
    assert max(c.threshold_on for c in floor) < min(c.threshold_on for c in strict)
    per = len(strict) // len(operating_point.STRICT_THRESHOLDS)
    key = lambda c: (c.onset_epochs, c.top_k, c.rise_delta, round(c.threshold_off / c.threshold_on, 2))  # noqa: E731
    assert sorted(map(key, floor[:per])) == sorted(map(key, strict[:per]))
    assert operating_point.grid_of("strict_off+floor_off", base) == strict + floor


def test_the_mid_band_fills_the_strict_grids_gaps_under_the_cap():
    """Pilot 102: mid_off's thresholds lie strictly between strict_off's lowest three (0.98,
    0.99, 0.995) and are none of the strict grid's, with its confirmations, top-k, rises and off
    ratios at each."""
    from rt_eeg.postprocess import PostprocessConfig

    base = PostprocessConfig()
    strict, mid = operating_point.strict_off_grid(base), operating_point.mid_off_grid(base)
    assert len(mid) == 120
    assert {c.threshold_on for c in mid} == {0.985, 0.9925}
    assert not {c.threshold_on for c in mid} & set(operating_point.STRICT_THRESHOLDS)
    per = len(strict) // len(operating_point.STRICT_THRESHOLDS)
    key = lambda c: (c.onset_epochs, c.top_k, c.rise_delta, round(c.threshold_off / c.threshold_on, 2))  # noqa: E731
    assert sorted(map(key, mid[:per])) == sorted(map(key, strict[:per]))
    assert operating_point.grid_of("strict_off+mid_off", base) == strict + mid


def test_rechoose_with_a_voice_bound_keeps_our_background_quiet(tmp_path, capsys):
    """Amendment 70: OWN holds a seizure at 0.99995 and an artifact at 0.9992; UNSEEN holds a
    seizure that reaches only 0.9993. Weighed by corpora with room in the mean budget, the
    most sensitive point (<= 0.999) finds both seizures and pays OWN a false alarm. Re-chosen
    from the stored trials (none run) under ``--max-voice-fa OWN=0``, the point sits above the
    artifact: OWN quiet, the unseen seizure lost. Re-chosen without a bound, the first choice
    comes back. Malformed bounds, a corpus not tuned and pooled trials are one-line errors."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    own = _corpus(tmp_path, "OWN", [((100, 160), (400, 420))])
    unseen = _corpus(tmp_path, "UNSEEN", [((300, 360), None)])
    npz = tmp_path / "UNSEEN" / "eval" / "UNSEEN_0.probs.npz"
    with np.load(npz) as z:
        d = dict(z)
    d["probs"][301:360, :6] = 0.9993
    np.savez(npz, **d)
    common = ["--model", str(model), "--target-fa", "100", "--workers", "1", "--quiet",
              "--weigh", "corpora", "--tune", own, "--tune", unseen]  # fmt: skip
    out = {n: (tmp_path / f"{n}.json", tmp_path / f"{n}.toml") for n in ("first", "bound", "same")}
    assert operating_point.main([*common, "--out", str(out["first"][0]), "--toml", str(out["first"][1])]) == 0
    first = str(out["first"][0])
    assert operating_point.main([*common, "--rechoose", first, "--max-voice-fa", "OWN=0",
                                 "--out", str(out["bound"][0]), "--toml", str(out["bound"][1])]) == 0  # fmt: skip
    assert operating_point.main([*common, "--rechoose", first,
                                 "--out", str(out["same"][0]), "--toml", str(out["same"][1])]) == 0  # fmt: skip
    capsys.readouterr()
    d1, db, ds = (operating_point.load_result(out[n][0]) for n in ("first", "bound", "same"))
    f1, fb = d1["figures"]["chosen"], db["figures"]["chosen"]
    assert f1["tune_OWN"]["false_alarms"] == 1 and f1["tune_UNSEEN"]["hits"] == 1
    assert d1["configs"]["chosen"]["threshold_on"] <= 0.999
    assert fb["tune_OWN"]["false_alarms"] == 0 and fb["tune_OWN"]["hits"] == 1
    assert fb["tune_UNSEEN"]["hits"] == 0 and db["configs"]["chosen"]["threshold_on"] >= 0.9995
    assert db["trials_pool"] == d1["trials_pool"] and db["n_trials"] == d1["n_trials"] == 140
    assert db["rechooses"] == first and db["max_voice_fa"] == {"OWN": 0.0} and db["grid"] == "strict"
    assert "OWN at <= 0 FA/24 h" in out["bound"][1].read_text()
    assert ds["configs"]["chosen"] == d1["configs"]["chosen"] and ds["max_voice_fa"] == {}
    x = ["--out", str(tmp_path / "x.json"), "--toml", str(tmp_path / "x.toml")]
    for bad, says in ((["--max-voice-fa", "OWN=a"], "expected NAME=VALUE"),
                      (["--max-voice-fa", "OWN=-1"], "expected NAME=VALUE"),
                      (["--min-voice-sens", "SS=90"], "'SS' is not a tuned or bound corpus (OWN, UNSEEN)")):  # fmt: skip
        assert operating_point.main([*common, "--rechoose", first, *bad, *x]) == 2
        assert says in capsys.readouterr().err
    pooled = [a for a in common if a not in ("--weigh", "corpora")]
    assert operating_point.main([*pooled, "--max-voice-fa", "OWN=1", *x]) == 2
    assert "needs --weigh corpora" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        operating_point.main([*common, "--rechoose", first, "--extend", first, *x])
    assert not (tmp_path / "x.json").exists()


def test_voice_bound_removes_trials_before_the_rule_and_its_fallback():
    """choose_trial with ``max_voice_fa``: the most sensitive trial within the mean budget that
    keeps OWN's bound; when none is within the budget, the fewest mean false alarms among those
    keeping it; when none keeps it, the fewest false alarms on OWN."""
    from rt_eeg.tuning import choose_trial

    def trial(sens, fa, own_fa):
        return {"sensitivity": sens, "fa_per_24h": fa, "latency_median_s": 5.0,
                "corpora": {"OWN": {"fa_per_24h": own_fa}, "U": {"fa_per_24h": 2 * fa - own_fa}}}  # fmt: skip

    trials = [trial(90, 4, 3), trial(80, 3, 1), trial(70, 1, 0), trial(60, 9, 0.5)]
    assert choose_trial(trials, 5) == 0
    assert choose_trial(trials, 5, max_voice_fa={"OWN": 1}) == 1
    assert choose_trial(trials, 5, max_voice_fa={"OWN": 0}) == 2
    assert choose_trial(trials, 0.5, max_voice_fa={"OWN": 0.5}) == 2  # fallback among the kept
    assert choose_trial(trials[:2], 5, max_voice_fa={"OWN": 0.5}) == 1  # none kept: fewest on OWN


def test_bound_corpus_puts_our_own_seizures_first(tmp_path, capsys):
    """Amendment 72: UNSEEN (tuned) holds a seizure at 0.99995 on six channels, one at 0.9993
    and a long artifact rising slowly to 0.99995 on two channels; OWN (bound, outside the mean)
    holds a seizure rising as slowly on two channels only. The rule alone takes a top-4 point (both unseen seizures, no
    false alarm) that misses OWN's seizure; with ``--min-voice-sens OWN=95`` only the top-2
    points that find it stay, and the rule chooses among them (the artifact's false alarm
    paid). OWN's figures are reported, never in the mean; a level no point reaches falls back
    to the best share."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    unseen = _corpus(tmp_path, "UNSEEN", [((100, 160), None), ((300, 360), None)])
    own = _corpus(tmp_path, "OWN", [((200, 260), None)])
    ramp = np.linspace(0.05, 0.99995, 30)[:, None]  # too slow for a rising-score onset

    def edit(name, rows, cols, value):
        npz = tmp_path / name.split("_")[0] / "eval" / f"{name}.probs.npz"
        with np.load(npz) as z:
            d = dict(z)
        d["probs"][rows, cols] = value
        np.savez(npz, **d)

    edit("UNSEEN_1", slice(301, 360), slice(0, 6), 0.9993)
    edit("UNSEEN_0", slice(400, 430), slice(10, 12), ramp)
    edit("UNSEEN_0", slice(430, 480), slice(10, 12), 0.99995)
    edit("OWN_0", slice(201, 260), slice(2, 6), 0.05)
    edit("OWN_0", slice(201, 231), slice(0, 2), ramp)
    common = ["--model", str(model), "--target-fa", "100", "--workers", "1", "--quiet",
              "--weigh", "corpora", "--tune", unseen, "--bound", own]  # fmt: skip
    docs = {}
    for name, extra in (("free", []), ("own", ["--min-voice-sens", "OWN=95"]),
                        ("both", ["--min-voice-sens", "OWN=95", "--max-voice-fa", "UNSEEN=0"])):  # fmt: skip
        out, toml = tmp_path / f"{name}.json", tmp_path / f"{name}.toml"
        assert operating_point.main([*common, *extra, "--out", str(out), "--toml", str(toml)]) == 0
        docs[name] = operating_point.load_result(out)
    capsys.readouterr()
    free, own_first, both = (docs[n]["figures"]["chosen"] for n in ("free", "own", "both"))
    assert free["tune_UNSEEN"]["hits"] == 2 and free["tune_UNSEEN"]["false_alarms"] == 0
    assert free["bound_OWN"]["hits"] == 0 and docs["free"]["configs"]["chosen"]["top_k"] == 4
    assert own_first["bound_OWN"]["hits"] == 1 and docs["own"]["configs"]["chosen"]["top_k"] == 2
    assert own_first["tune_UNSEEN"]["hits"] == 2 and own_first["tune_UNSEEN"]["false_alarms"] == 1
    # the mean holds UNSEEN alone; OWN sits beside each trial
    t = docs["own"]["trials_pool"][0]
    assert list(t["corpora"]) == ["UNSEEN"] and list(t["bounds"]) == ["OWN"]
    assert t["fa_per_24h"] == t["corpora"]["UNSEEN"]["fa_per_24h"]
    assert docs["own"]["min_voice_sens"] == {"OWN": 95.0} and docs["own"]["bound"] == ["OWN"]
    assert "OWN finding >= 95 % (or its best)" in (tmp_path / "own.toml").read_text()
    # no point keeps UNSEEN quiet and finds OWN's seizure: the best share (none) and no alarm
    assert both["bound_OWN"]["hits"] == 0 and both["tune_UNSEEN"]["false_alarms"] == 0
    pooled = [a for a in common if a not in ("--weigh", "corpora")]
    x = ["--out", str(tmp_path / "x.json"), "--toml", str(tmp_path / "x.toml")]
    assert operating_point.main([*pooled, *x]) == 2
    assert "--bound needs --weigh corpora" in capsys.readouterr().err


def test_the_cusum_grid_extends_a_stored_result(tmp_path, capsys):
    """Pilot 105: cusum_off is 168 evidence-accumulating configurations (its thresholds x h x
    top-k x off ratios, no rise), written with their cusum_h; a strict_off result extended with
    it keeps its 420 trials first and holds what a fresh run of both grids gives."""
    from rt_eeg.postprocess import PostprocessConfig

    base = PostprocessConfig()
    cusum = operating_point.cusum_off_grid(base)
    assert len(cusum) == 168 and {c.cusum_h for c in cusum} == set(operating_point.CUSUM_HS)
    assert {c.threshold_on for c in cusum} == set(operating_point.CUSUM_THRESHOLDS)
    assert all(c.rise_delta == 0 and c.to_dict()["cusum_h"] > 0 for c in cusum)
    assert all("cusum_h" not in c.to_dict() for c in operating_point.strict_off_grid(base))
    model = tmp_path / "model"
    model.mkdir()
    (model / "postprocess.toml").write_text("threshold_on = 0.998\nthreshold_off = 0.499\n")
    a = _corpus(tmp_path, "A", [((100, 160), (400, 420)), ((300, 360), None)])
    _, _, d1, d2 = _strict_off_then(tmp_path, model, a, "cusum_off")
    capsys.readouterr()
    assert d2["grid"] == "strict_off+cusum_off" and d2["n_trials"] == 588
    assert d2["trials_pool"][:420] == d1["trials_pool"]
    assert all(t["config"]["cusum_h"] > 0 for t in d2["trials_pool"][420:])
    _, refs, stored = operating_point.load_corpus(str(tmp_path / "A" / "list"), str(tmp_path / "A" / "eval"))
    fresh = operating_point.run_trials(operating_point.grid_of("strict_off+cusum_off", base), refs, stored,
                                       workers=1, progress=False)  # fmt: skip
    assert json.loads(json.dumps(fresh)) == d2["trials_pool"]


def test_the_topk_grid_is_strict_off_at_the_other_top_ks():
    """Pilot 106: topk_off is strict_off's configurations at top-k 1 and 3 (none of strict_off's
    2 and 4), the same thresholds, confirmations, rises and off ratios."""
    from rt_eeg.postprocess import PostprocessConfig

    base = PostprocessConfig()
    strict, other = operating_point.strict_off_grid(base), operating_point.topk_off_grid(base)
    assert len(other) == 420 and {c.top_k for c in other} == {1, 3}
    key = lambda c: (c.threshold_on, c.threshold_off, c.onset_epochs, c.rise_delta)  # noqa: E731
    assert sorted(map(key, other)) == sorted(map(key, strict))
    assert operating_point.grid_of("strict_off+topk_off", base) == strict + other
