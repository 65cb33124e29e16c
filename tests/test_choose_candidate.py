"""The cross-generator rule (tools/choose_candidate.py): veto, common false-alarm rate, margin."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from choose_candidate import best_within, choose  # noqa: E402


def _trial(sens: float, fa: float, lat: float = 5.0, th: float = 0.99) -> dict:
    return {
        "sensitivity": sens,
        "fa_per_24h": fa,
        "latency_median_s": lat,
        "config": {"threshold_on": th, "onset_epochs": 2, "top_k": 2, "rise_delta": 0.0},
    }


def test_best_within_prefers_sensitivity_then_fewer_false_alarms_then_onset():
    trials = [_trial(80, 6.0), _trial(70, 2.0, 9.0), _trial(70, 2.0, 4.0), _trial(70, 1.0, 8.0)]
    assert best_within(trials, 5.0) is trials[3]
    assert best_within(trials, 0.5) is None


def test_target_reached_by_all_compares_at_target_and_applies_margin():
    cands = {
        "K0": {"trials": [_trial(60, 4.0), _trial(90, 20.0)], "chb01_auc": 0.6},
        "K1": {"trials": [_trial(63, 3.0), _trial(99, 30.0)], "chb01_auc": 0.7},
        "K2": {"trials": [_trial(70, 4.5)], "chb01_auc": 0.9},
    }
    out = choose(cands, "K0", 5.0)
    assert out["compared_at_fa_per_24h"] == 5.0
    assert out["ranking"] == ["K2", "K1", "K0"]
    assert out["winner"] == "K2" and out["replaces_reference"]
    assert out["margin_pp"] == pytest.approx(10.0)
    cands["K2"]["trials"] = [_trial(63, 4.5)]  # +3 pp, even with fewer false alarms: noise
    assert not choose(cands, "K0", 5.0)["replaces_reference"]
    cands["K1"]["trials"] = [_trial(60, 1.0)]  # equal sensitivity, fewer false alarms
    cands["K2"]["trials"] = [_trial(50, 1.0)]
    out = choose(cands, "K0", 5.0)
    assert out["winner"] == "K1" and out["replaces_reference"]


def test_unreachable_target_compares_at_the_common_floor_and_veto_removes():
    cands = {
        "K0": {"trials": [_trial(50, 12.0), _trial(70, 20.0)], "chb01_auc": 0.55},
        "K1": {"trials": [_trial(40, 8.0), _trial(80, 30.0)], "chb01_auc": 0.7},
        "K3": {"trials": [_trial(99, 0.0)], "chb01_auc": 0.3},  # vetoed: ignored for F too
    }
    out = choose(cands, "K0", 5.0)
    assert out["vetoed"] == ["K3"]
    assert out["compared_at_fa_per_24h"] == 12.0
    assert out["winner"] == "K0" and not out["replaces_reference"]
