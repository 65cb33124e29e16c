"""The three-seed recipe rule (tools/judge_recipes.py): mean, spread margin, veto, median seed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from judge_recipes import judge, main, recipe  # noqa: E402


def _op(path: Path, sens: dict[str, float], fa: float = 2.0, onset: float | None = None) -> Path:
    """An operating_point.py --weigh corpora JSON with the given per-corpus sensitivities (and
    median onsets ``onset`` s, the first corpus's ``onset + 2``; none when None)."""
    chosen = {"pool": {"sensitivity": 0.0, "fa_per_24h": 0.0}}
    for i, (k, v) in enumerate(sens.items()):
        lat = None if onset is None else onset + (2.0 if i == 0 else 0.0)
        chosen[f"tune_{k}"] = {"sensitivity": v, "fa_per_24h": fa, "latency_median_s": lat}
    path.write_text(json.dumps({"figures": {"chosen": chosen, "shipped": chosen}}))
    return path


def _real(path: Path, auc: float) -> Path:
    path.write_text(json.dumps({"chbmit": {"patients": {"chb01": {"patient_context": {"auc": auc}}}}}))
    return path


def _recipe(tmp: Path, name: str, means: list[float], onset: float | None = None) -> list[Path]:
    # per-corpus figures whose unweighted mean is the given seed mean
    return [_op(tmp / f"{name}{i}.json", {"SS": m + 30, "XS": m, "XCC": m - 30}, onset=onset)
            for i, m in enumerate(means)]


def test_mean_spread_and_median_seed(tmp_path):
    r = recipe(_recipe(tmp_path, "a", [50.0, 40.0, 52.0]), None)
    assert r["mean"] == pytest.approx(47.33, abs=0.01)
    assert r["spread"] == pytest.approx(12.0)
    assert r["median_seed"].endswith("a0.json")  # 50 is the median of 40, 50, 52
    assert not r["vetoed"]


def test_margin_is_the_larger_spread_over_sqrt_n_or_five_points(tmp_path):
    ref = recipe(_recipe(tmp_path, "r", [50.0, 40.0, 51.0]), None)  # mean 47, spread 11
    near = recipe(_recipe(tmp_path, "n", [53.0, 53.0, 53.0]), None)  # +6: inside 11/sqrt3 = 6.35
    far = recipe(_recipe(tmp_path, "f", [54.0, 54.0, 54.0]), None)  # +7: outside
    assert judge(ref, near) == {"lead": 6.0, "margin": 6.35, "replaces_reference": False}
    assert judge(ref, far)["replaces_reference"]
    tight = recipe(_recipe(tmp_path, "t", [47.0, 47.0, 47.0]), None)
    up4 = recipe(_recipe(tmp_path, "u", [51.0, 51.0, 51.0]), None)
    assert judge(tight, up4)["margin"] == 5.0 and not judge(tight, up4)["replaces_reference"]


def test_chb01_veto_and_command_line(tmp_path, capsys):
    ref = _recipe(tmp_path, "r", [40.0, 41.0, 42.0])
    cand = _recipe(tmp_path, "c", [60.0, 61.0, 62.0])
    reals = [_real(tmp_path / f"rc{i}.json", auc) for i, auc in enumerate((0.9, 0.45, 0.8))]
    out = tmp_path / "judged.json"
    main(["--reference", "R=" + ",".join(map(str, ref)), "--candidate", "C=" + ",".join(map(str, cand)),
          "--real", "C=" + ",".join(map(str, reals)), "--out", str(out)])
    d = json.loads(out.read_text())
    assert d["candidate"]["C"]["vetoed"] and not d["replaces_reference"]
    assert [s["chb01_auc"] for s in d["candidate"]["C"]["seeds"]] == [0.9, 0.45, 0.8]
    assert "does not replace R" in capsys.readouterr().out
    main(["--reference", "R=" + ",".join(map(str, ref)), "--candidate", "C=" + ",".join(map(str, cand))])
    assert "C leads by +20.0 points (margin 5.0): replaces R" in capsys.readouterr().out


def test_a_missing_or_foreign_file_is_one_clear_error(tmp_path):
    foreign = tmp_path / "other.json"
    foreign.write_text('{"figures": {}}')
    for bad in (tmp_path / "absent.json", foreign):
        with pytest.raises(SystemExit, match="not an operating_point.py result"):
            recipe([bad], None)


def test_latency_clause_is_a_second_way_to_win(tmp_path):
    """Amendment 33: 2 s earlier at <= 5 points lower replaces; 1.9 s earlier, or 2 s earlier but
    5.1 points lower, does not; the veto still holds."""
    ref = recipe(_recipe(tmp_path, "r", [40.0, 42.0, 44.0], onset=14.0), None)  # mean 42
    assert ref["onset_mean_s"] == pytest.approx(14.0 + 2.0 / 3, abs=0.01)  # one voice 2 s later
    fast = recipe(_recipe(tmp_path, "f", [37.0, 37.0, 37.0], onset=12.0), None)  # -5, 2 s
    d = judge(ref, fast, (2.0, 5.0))
    assert d["latency_clause"]["onset_gain_s"] == 2.0 and d["replaces_reference"]
    assert not judge(ref, fast)["replaces_reference"]  # without the clause: -5 points loses
    slow = recipe(_recipe(tmp_path, "s", [42.0, 42.0, 42.0], onset=12.1), None)
    assert not judge(ref, slow, (2.0, 5.0))["replaces_reference"]
    worse = recipe(_recipe(tmp_path, "w", [36.9, 36.9, 36.9], onset=10.0), None)
    assert not judge(ref, worse, (2.0, 5.0))["latency_clause"]["passes"]
    reals = [_real(tmp_path / f"v{i}.json", auc) for i, auc in enumerate((0.9, 0.4, 0.9))]
    vetoed = recipe(_recipe(tmp_path, "x", [37.0, 37.0, 37.0], onset=12.0), reals)
    assert judge(ref, vetoed, (2.0, 5.0))["latency_clause"]["passes"]
    assert not judge(ref, vetoed, (2.0, 5.0))["replaces_reference"]


def test_paired_rule_judges_seed_by_seed(tmp_path, capsys):
    """Amendment 39's rule P: every paired difference positive and a mean >= 5 replaces, though
    the unpaired rule (margin from the spread) would not; one negative pair, or a mean of 4.9,
    does not; 2 s earlier at <= 5 points lower does; the veto holds; the seed counts must match."""
    from judge_recipes import judge_paired

    ref = recipe(_recipe(tmp_path, "r", [30.0, 50.0, 40.0], onset=14.0), None)
    up = recipe(_recipe(tmp_path, "u", [36.0, 55.0, 45.0], onset=14.0), None)  # +6, +5, +5
    d = judge_paired(ref, up, (5.0, 2.0, 5.0))
    assert d["paired"]["differences"] == [6.0, 5.0, 5.0] and d["paired"]["mean_difference"] == 5.33
    assert d["replaces_reference"] and d["paired"]["by_select"]
    assert not judge(ref, up)["replaces_reference"]  # unpaired: +5.3 against a margin of 11.5
    mixed = recipe(_recipe(tmp_path, "m", [45.0, 49.0, 48.0], onset=14.0), None)  # +15, -1, +8
    assert not judge_paired(ref, mixed, (5.0, 2.0, 5.0))["replaces_reference"]
    small = recipe(_recipe(tmp_path, "s", [34.9, 54.9, 44.9], onset=14.0), None)  # +4.9 each
    assert not judge_paired(ref, small, (5.0, 2.0, 5.0))["replaces_reference"]
    fast = recipe(_recipe(tmp_path, "f", [25.0, 45.0, 35.0], onset=12.0), None)  # -5, 2 s
    d = judge_paired(ref, fast, (5.0, 2.0, 5.0))
    assert d["paired"]["mean_onset_difference_s"] == -2.0 and d["paired"]["by_latency"]
    assert d["replaces_reference"]
    reals = [_real(tmp_path / f"p{i}.json", auc) for i, auc in enumerate((0.9, 0.4, 0.9))]
    vetoed = recipe(_recipe(tmp_path, "v", [36.0, 55.0, 45.0], onset=14.0), reals)
    assert not judge_paired(ref, vetoed, (5.0, 2.0, 5.0))["replaces_reference"]
    with pytest.raises(SystemExit, match="as many candidate seeds"):
        judge_paired(ref, recipe(_recipe(tmp_path, "t", [36.0, 55.0]), None), (5.0, 2.0, 5.0))
    files = {n: ",".join(map(str, _recipe(tmp_path, n, m, onset=14.0)))
             for n, m in (("r", [30.0, 50.0, 40.0]), ("u", [36.0, 55.0, 45.0]))}  # fmt: skip
    out = tmp_path / "paired.json"
    main(["--reference", f"R={files['r']}", "--candidate", f"U={files['u']}", "--paired", "5:2:5",
          "--out", str(out)])  # fmt: skip
    assert "U minus R, seed by seed: +6.0, +5.0, +5.0 (mean +5.3 points" in capsys.readouterr().out
    assert json.loads(out.read_text())["replaces_reference"]
    for bad in ("5:2", "a:b:c"):
        with pytest.raises(SystemExit, match="expected MIN_MEAN:GAIN_S:MAX_LOSS"):
            main(["--reference", f"R={files['r']}", "--candidate", f"U={files['u']}", "--paired", bad])


def _op_trials(path: Path, trials: list[dict[str, tuple[float, float]]], onset: float = 10.0) -> Path:
    """An operating_point.py result whose grid trials give each voice (FA/24 h, sensitivity %);
    the chosen point is the first trial (median onset ``onset`` s on every voice)."""
    pool = [{"corpora": {v: {"fa_per_24h": fa, "sensitivity": s} for v, (fa, s) in t.items()}}
            for t in trials]  # fmt: skip
    chosen = {f"tune_{v}": {"sensitivity": s, "fa_per_24h": fa, "latency_median_s": onset}
              for v, (fa, s) in trials[0].items()}  # fmt: skip
    path.write_text(json.dumps({"figures": {"chosen": chosen}, "trials_pool": pool}))
    return path


def test_det_mean_reads_each_voice_frontier_at_each_rate():
    from judge_recipes import det_mean

    trials = [
        {"corpora": {"A": {"fa_per_24h": 0.0, "sensitivity": 40.0},
                     "B": {"fa_per_24h": 30.0, "sensitivity": 90.0}}},
        {"corpora": {"A": {"fa_per_24h": 4.0, "sensitivity": 60.0},
                     "B": {"fa_per_24h": 8.0, "sensitivity": 50.0}}},
    ]  # fmt: skip
    # A: 40 within 1 and 2, 60 within 5, 10, 20 -> 52; B: nothing within 1, 2, 5; 50 within
    # 10 and 20 -> 20; each voice its own threshold, unlike the one shared point
    assert det_mean(trials, ["A", "B"]) == pytest.approx((52.0 + 20.0) / 2)


def test_det_mean_under_the_flag_limit_drops_alarms_that_do_not_end(tmp_path, capsys):
    """Amendment 53: under --det-max-flag-ratio a voice's frontier reads only trials whose
    alarms there cover at most R x the reference's seizure time; a file tuned without the
    limit (no flag_ratio) is one clear error."""
    from judge_recipes import det_mean

    def trial(fa_a, s_a, r_a, fa_b, s_b, r_b):
        return {"corpora": {"A": {"fa_per_24h": fa_a, "sensitivity": s_a, "flag_ratio": r_a},
                            "B": {"fa_per_24h": fa_b, "sensitivity": s_b, "flag_ratio": r_b}}}  # fmt: skip

    # the second trial's A sensitivity is an alarm held for 10x the seizure time
    trials = [trial(0.0, 40.0, 0.9, 0.0, 30.0, 1.0), trial(0.0, 90.0, 10.0, 4.0, 50.0, 1.5)]
    assert det_mean(trials, ["A", "B"]) == pytest.approx((90.0 + (30 + 30 + 50 + 50 + 50) / 5) / 2)
    assert det_mean(trials, ["A", "B"], max_flag_ratio=2) == pytest.approx((40.0 + 42.0) / 2)
    # a voice with no trial under the limit scores 0 there
    assert det_mean(trials, ["A"], max_flag_ratio=0.5) == 0.0
    # no reference seizure on the voice: under any limit only if nothing is called seizure
    none = [trial(0.0, 40.0, None, 0.0, 30.0, 1.0)]
    assert det_mean(none, ["A"], max_flag_ratio=2) == pytest.approx(40.0)
    none[0]["corpora"]["A"]["seiz_flagged_s"] = 5.0
    assert det_mean(none, ["A"], max_flag_ratio=2) == 0.0
    # through the command line: the verdict's DET means and the limit it was read under
    files = []
    for i in range(3):
        f = tmp_path / f"s{i}.json"
        f.write_text(json.dumps({"figures": {"chosen": {"tune_A": trials[0]["corpora"]["A"],
                                                        "tune_B": trials[0]["corpora"]["B"]}},
                                 "trials_pool": trials}))  # fmt: skip
        files.append(str(f))
    out = tmp_path / "v.json"
    seeds = ",".join(files)
    assert main(["--reference", f"R={seeds}", "--candidate", f"C={seeds}", "--paired-means",
                 "3.7:0:1:2:5:-2", "--det-max-flag-ratio", "2", "--out", str(out)]) == 0  # fmt: skip
    v = json.loads(out.read_text())
    assert v["det_max_flag_ratio"] == 2 and v["reference"]["R"]["det_mean"] == pytest.approx(41.0)
    assert "DET mean 41.0" in capsys.readouterr().out
    old = _op_trials(tmp_path / "old.json", [{"A": (0.0, 30.0)}])
    with pytest.raises(SystemExit, match=r"old.json: voice A: a trial without flag_ratio"):
        main(["--reference", f"R={old}", "--candidate", f"C={old}", "--det-max-flag-ratio", "2",
              "--statistic", "det"])  # fmt: skip
    with pytest.raises(SystemExit, match="must be > 0"):
        main(["--reference", f"R={old}", "--candidate", f"C={old}", "--det-max-flag-ratio", "nan"])


def test_single_model_against_the_seeds_mean(tmp_path, capsys):
    """Amendments 32 / 54: an ensemble replaces when it leads the seeds' mean by more than the
    margin at a DET mean not below theirs; more than one candidate file is refused."""
    def one(name, chosen, second):
        return str(_op_trials(tmp_path / f"{name}.json",
                              [{"A": (0.0, chosen), "B": (0.0, chosen)}, {"A": (4.0, second), "B": (9.0, second)}]))  # fmt: skip

    ref = ",".join(one(f"r{i}", 30.0 + 2 * i, 40.0) for i in range(3))  # seeds 30, 32, 34: mean 32

    def verdict(chosen, second):
        out = tmp_path / "v.json"
        main(["--reference", f"R={ref}", "--candidate", f"E={one('e', chosen, second)}",
              "--single-margin", "5", "--out", str(out)])  # fmt: skip
        return json.loads(out.read_text())

    v = verdict(37.5, 40.0)
    assert v["lead"] == 5.5 and v["replaces_reference"] and v["det_difference"] >= 0
    assert "E leads by +5.5 points (margin 5)" in capsys.readouterr().out
    assert not verdict(37.0, 40.0)["replaces_reference"]  # 5.0 is not more than the margin
    # its point at 4-9 FA/24 h, nothing but 10 % below that: the frontier lower at 1-2 FA/24 h
    low = str(_op_trials(tmp_path / "low.json", [{"A": (4.0, 37.5), "B": (9.0, 37.5)},
                                                 {"A": (0.0, 10.0), "B": (0.0, 10.0)}]))  # fmt: skip
    out = tmp_path / "low_v.json"
    main(["--reference", f"R={ref}", "--candidate", f"E={low}", "--single-margin", "5", "--out", str(out)])
    v = json.loads(out.read_text())
    assert v["by_select"] and v["det_difference"] < 0 and not v["replaces_reference"]
    with pytest.raises(SystemExit, match="judges one model"):
        main(["--reference", f"R={ref}", "--candidate", f"E={ref}", "--single-margin", "5"])
    with pytest.raises(SystemExit, match="rule of its own"):
        main(["--reference", f"R={ref}", "--candidate", f"E={ref}", "--single-margin", "5",
              "--paired", "5:2:5"])  # fmt: skip


def test_statistic_det_judges_by_the_det_mean(tmp_path, capsys):
    def seeds(name, gains):
        return ",".join(
            str(_op_trials(tmp_path / f"{name}{i}.json",
                           [{"A": (0.0, 30.0), "B": (0.0, 30.0)}, {"A": (4.0, 40.0 + g), "B": (9.0, 50.0 + g)}]))
            for i, g in enumerate(gains))  # fmt: skip

    ref, cand = seeds("r", [0, 0, 0]), seeds("c", [8, 9, 10])
    out = tmp_path / "v.json"
    assert main(["--reference", f"R={ref}", "--candidate", f"C={cand}", "--paired", "5:2:5",
                 "--statistic", "det", "--out", str(out)]) == 0  # fmt: skip
    v = json.loads(out.read_text())
    # R: A (30, 30, 40, 40, 40) -> 36, B (30, 30, 30, 50, 50) -> 38: 37 per seed
    assert v["reference"]["R"]["mean"] == pytest.approx(37.0)
    assert v["reference"]["R"]["statistic"] == "det_mean"
    # the candidate gains g at 3 of 5 rates on A and 2 of 5 on B: (0.6 g + 0.4 g) / 2 = g / 2
    assert v["paired"]["differences"] == [4.0, 4.5, 5.0] and v["replaces_reference"] is False
    # the same seeds by the SELECT mean (the chosen point is the first trial): no difference
    assert main(["--reference", f"R={ref}", "--candidate", f"C={cand}", "--paired", "5:2:5"]) == 0
    assert "+0.0, +0.0, +0.0" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no trials_pool"):
        main(["--reference", f"R={','.join(map(str, _recipe(tmp_path, 'x', [1.0, 2.0, 3.0])))}",
              "--candidate", f"C={cand}", "--statistic", "det"])  # fmt: skip


def test_det_clause_is_a_third_way_to_win_paired(tmp_path, capsys):
    """Amendment 45: every paired DET-mean difference positive, their mean >= MIN_DET, the SELECT
    mean not lower and the onset not later than allowed replaces; one DET pair at 0, or a mean
    under the margin, or a SELECT loss, does not."""
    def seeds(name, gains, chosen_gain=0.0):
        return ",".join(
            str(_op_trials(tmp_path / f"{name}{i}.json",
                           [{"A": (0.0, 30.0 + chosen_gain), "B": (0.0, 30.0 + chosen_gain)},
                            {"A": (4.0, 40.0 + g), "B": (9.0, 50.0 + g)}]))
            for i, g in enumerate(gains))  # fmt: skip

    ref = seeds("r", [0, 0, 0])

    def verdict(name, gains, chosen_gain=0.0, clause="3:0:1"):
        out = tmp_path / f"{name}.json"
        main(["--reference", f"R={ref}", "--candidate", f"C={seeds(name, gains, chosen_gain)}",
              "--paired", "5:2:5", "--det-clause", clause, "--out", str(out)])  # fmt: skip
        return json.loads(out.read_text())

    v = verdict("c", [8, 6, 10])  # DET +4, +3, +5: mean 4; SELECT +0
    assert v["paired"]["det_differences"] == [4.0, 3.0, 5.0] and v["paired"]["by_det"]
    assert v["replaces_reference"] and not v["paired"]["by_select"]
    assert "DET mean +4.0, +3.0, +5.0, mean +4.0): replaces R" in capsys.readouterr().out
    assert not verdict("z", [8, 0, 16])["replaces_reference"]  # one DET pair 0, mean still 4
    assert not verdict("m", [4, 6, 6])["replaces_reference"]  # mean 2.67 < 3
    assert not verdict("l", [8, 6, 10], chosen_gain=-0.1)["replaces_reference"]  # SELECT lower
    assert verdict("l2", [8, 6, 10], chosen_gain=-0.1, clause="3:-1:1")["replaces_reference"]
    files = f"R={ref}", f"C={seeds('c', [8, 6, 10])}"
    for bad, msg in ((["--det-clause", "3:0"], "expected MIN_DET"),
                     (["--det-clause", "3:0:1"], "goes with --paired")):  # fmt: skip
        with pytest.raises(SystemExit, match=msg):
            main(["--reference", files[0], "--candidate", files[1], *bad])


def test_paired_means_judges_six_seeds_by_their_mean_differences_only(tmp_path, capsys):
    """Amendment 48: the mean paired DET difference >= MIN_DET at no SELECT loss and no later
    onset replaces even with a pair negative (rule P and the DET clause would not); so do
    earlier onsets within the SELECT and DET floors; a vetoed candidate never does."""
    def seeds(name, gains, chosen_gain=0.0, onset=10.0):
        # the second trial: A within 5 FA/24 h, B within 10 -> DET difference gain / 2
        return ",".join(
            str(_op_trials(tmp_path / f"{name}{i}.json",
                           [{"A": (0.0, 30.0 + chosen_gain), "B": (0.0, 30.0 + chosen_gain)},
                            {"A": (4.0, 40.0 + g), "B": (9.0, 50.0 + g)}], onset))
            for i, g in enumerate(gains))  # fmt: skip

    ref = seeds("r", [0] * 6)

    def verdict(name, gains, chosen_gain=0.0, onset=10.0, extra=()):
        out = tmp_path / f"{name}.json"
        main(["--reference", f"R={ref}", "--candidate", f"C={seeds(name, gains, chosen_gain, onset)}",
              "--paired-means", "3.7:0:1:2:5:-2", *extra, "--out", str(out)])  # fmt: skip
        return json.loads(out.read_text())

    v = verdict("c", [10, 10, -2, 10, 10, 8])  # DET +5, +5, -1, +5, +5, +4: mean 3.83
    assert v["paired"]["det_differences"] == [5.0, 5.0, -1.0, 5.0, 5.0, 4.0]
    assert v["paired"]["by_det"] and v["replaces_reference"]
    assert "mean +3.8): replaces R" in capsys.readouterr().out
    assert not verdict("m", [10, 10, -2, 10, 8, 8])["replaces_reference"]  # mean 3.67 < 3.7
    assert not verdict("l", [10, 10, -2, 10, 10, 8], chosen_gain=-0.1)["replaces_reference"]
    assert not verdict("t", [10, 10, -2, 10, 10, 8], onset=11.5)["replaces_reference"]  # later
    # (b) 3 s earlier at a SELECT loss of 3 and a DET difference of -1.5 (the chosen point's
    # loss read at the low rates): replaces; with the second trial 6 lower (DET -4.5) it does not
    e = verdict("e", [0] * 6, chosen_gain=-3.0, onset=7.0)
    assert e["paired"]["mean_det_difference"] == -1.5
    assert e["paired"]["by_latency"] and not e["paired"]["by_det"] and e["replaces_reference"]
    assert not verdict("e2", [-6] * 6, chosen_gain=-3.0, onset=7.0)["replaces_reference"]
    real = tmp_path / "veto.json"
    real.write_text(json.dumps({"chbmit": {"patients": {"chb01": {"patient_context": {"auc": 0.4}}}}}))
    vetoed = verdict("v", [10, 10, -2, 10, 10, 8], extra=["--real", "C=" + ",".join([str(real)] * 6)])
    assert vetoed["paired"]["by_det"] and not vetoed["replaces_reference"]
    with pytest.raises(SystemExit, match="rule of its own"):
        verdict("x", [0] * 6, extra=["--paired", "5:2:5"])
    with pytest.raises(SystemExit, match="expected MIN_DET"):
        verdict("y", [0] * 6, extra=["--paired-means", "3.7:0:1"])
