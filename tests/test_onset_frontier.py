"""tools/onset_frontier.py: which operating points the protocol could choose, the best one, and
the earliest within a few SELECT v2 points of it (on a trials file of the shape
tools/operating_point.py writes)."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import onset_frontier  # noqa: E402

VOICES = onset_frontier.VOICES


def _trial(sens, lat, fa=1.0, flag=1.0, od_fa=0.0, top_k=2, thr=0.995, confirm=4, cusum=None):
    cfg = {"top_k": top_k, "threshold_on": thr, "onset_epochs": confirm}
    if cusum is not None:
        cfg["cusum_h"] = cusum
    corpora = {v: {"config": cfg, "sensitivity": sens, "fa_per_24h": fa, "flag_ratio": flag,
                   "latency_median_s": lat} for v in VOICES}  # fmt: skip
    pool = {"sensitivity": sens, "fa_per_24h": fa, "latency_median_s": lat}  # the voices' means
    return pool | {"corpora": corpora, "bounds": {"OD": {"fa_per_24h": od_fa, "hits": 40}}}


def _write(tmp_path, name, trials, suffix="_sel5o"):
    path = tmp_path / f"operating_point_{name}{suffix}.trials.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"trials_pool": trials}).encode()))


def test_earliest_point_within_the_margin_and_the_limits(tmp_path, capsys):
    trials = [
        _trial(46.0, 12.0),  # the best
        _trial(44.0, 9.0, confirm=1),  # 2 points lower, 3 s earlier: the earliest within 3
        _trial(42.0, 5.0, confirm=1),  # earlier still, but 4 points lower
        _trial(60.0, 4.0, fa=6.0),  # over the false-alarm mean
        _trial(60.0, 4.0, flag=2.5),  # calls too much seizure time
        _trial(60.0, 4.0, od_fa=2.0),  # over OD's bound
        _trial(60.0, None),  # a voice that found nothing has no latency
    ]
    _write(tmp_path, "m", trials)
    out = tmp_path / "front.json"
    assert onset_frontier.main(["m", "--results", str(tmp_path), "--out", str(out)]) == 0
    f = json.loads(out.read_text())["models"]["m"]
    assert f["best"]["select_v2"] == 46.0 and f["best"]["latency_s"] == 12.0
    assert f["earliest_within"]["select_v2"] == 44.0 and f["latency_gain_s"] == 3.0
    assert f["earliest_within"]["point"] == "top-2 >= 0.995 x1"
    assert onset_frontier.main(["m", "--results", str(tmp_path), "--within", "5"]) == 0
    assert "earliest within 5: 42.0 % at 5.0 s" in capsys.readouterr().out


def test_a_missing_or_empty_trials_file_is_one_line_naming_it(tmp_path, capsys):
    assert onset_frontier.main(["absent", "--results", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "operating_point_absent_sel5o.trials.json.gz" in err
    _write(tmp_path, "none", [_trial(50.0, 3.0, fa=9.0)])
    assert onset_frontier.main(["none", "--results", str(tmp_path)]) == 2
    assert "no eligible point" in capsys.readouterr().err


def test_another_suffix_and_a_cusum_point(tmp_path):
    """--suffix reads another result's trials (pilot 105's _sel5ko); a CUSUM point is named by
    its h, not by confirmations it does not use."""
    _write(tmp_path, "m", [_trial(46.0, 12.0), _trial(45.0, 8.0, thr=0.98, cusum=4.0)], "_sel5ko")
    out = tmp_path / "front.json"
    assert onset_frontier.main(["m", "--results", str(tmp_path), "--suffix", "_sel5ko", "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["suffix"] == "_sel5ko"
    assert d["models"]["m"]["earliest_within"]["point"] == "top-2 >= 0.98 cusum 4"
    assert d["models"]["m"]["latency_gain_s"] == 4.0
    assert onset_frontier.main(["m", "--results", str(tmp_path)]) == 2  # no _sel5o file there


def test_matched_onsets_compare_at_the_lower_best(tmp_path, capsys):
    """--matched (pilot 116): the reference finds more (50 %) than the candidate (44 %); both are
    read at >= 44 %, where the reference's earliest point (45 % at 10 s) is 1 s behind the
    candidate's (44 % at 9 s), not at their best points (12 s against 9 s)."""
    _write(tmp_path, "ref", [_trial(50.0, 12.0), _trial(45.0, 10.0, confirm=1),
                             _trial(43.0, 6.0, confirm=1), _trial(60.0, 3.0, fa=7.0)])  # fmt: skip
    _write(tmp_path, "cand", [_trial(44.0, 9.0), _trial(40.0, 5.0, confirm=1)])
    out = tmp_path / "matched.json"
    argv = ["--results", str(tmp_path), "--out", str(out), "--matched", "ref:cand"]
    assert onset_frontier.main(argv) == 0
    m = json.loads(out.read_text())["pairs"]["ref:cand"]
    assert m["floor"] == 44.0
    assert (m["reference"]["select_v2"], m["reference"]["latency_s"]) == (45.0, 10.0)
    assert (m["candidate"]["select_v2"], m["candidate"]["latency_s"]) == (44.0, 9.0)
    assert m["onset_difference_s"] == -1.0
    assert json.loads(out.read_text())["mean_onset_difference_s"] == -1.0
    assert "(-1.00 s)" in capsys.readouterr().out


def test_matched_pairs_that_cannot_be_read_are_one_line(tmp_path, capsys):
    _write(tmp_path, "ref", [_trial(50.0, 12.0)])
    assert onset_frontier.main(["--results", str(tmp_path), "--matched", "ref"]) == 2
    assert "expected REF:CAND" in capsys.readouterr().err
    assert onset_frontier.main(["--results", str(tmp_path), "--matched", "ref:absent"]) == 2
    assert "operating_point_absent_sel5o.trials.json.gz" in capsys.readouterr().err
    _write(tmp_path, "none", [_trial(50.0, 3.0, fa=9.0)])
    assert onset_frontier.main(["--results", str(tmp_path), "--matched", "ref:none"]) == 2
    assert "ref:none: no eligible point" in capsys.readouterr().err


def test_a_matched_pair_without_an_eligible_point_is_left_out_of_the_mean(tmp_path, capsys):
    """Pilot 125: one seed's reference with no eligible point (a voice found nothing at every point
    within the limits) is recorded as null and named; the mean is over the pairs read."""
    _write(tmp_path, "ref", [_trial(50.0, 12.0)])
    _write(tmp_path, "cand", [_trial(50.0, 9.0)])
    _write(tmp_path, "none", [_trial(50.0, 3.0, fa=9.0)])
    out = tmp_path / "matched.json"
    argv = ["--results", str(tmp_path), "--out", str(out), "--matched", "ref:cand", "none:cand"]
    assert onset_frontier.main(argv) == 0
    d = json.loads(out.read_text())
    assert d["pairs"]["none:cand"] is None and d["pairs"]["ref:cand"]["onset_difference_s"] == -3.0
    assert d["mean_onset_difference_s"] == -3.0 and d["pairs_read"] == 1
    captured = capsys.readouterr()
    assert "none:cand: no eligible point" in captured.err and "(1 of 2 pairs): -3.00 s" in captured.out
