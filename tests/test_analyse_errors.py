"""tools/analyse_errors.py on a real simulated corpus with crafted probabilities: a false alarm
laid on a muscle burst is blamed on EMG, and a seizure's latency decomposition is exact."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
analyse_errors = pytest.importorskip("analyse_errors")

HOURS, PATIENTS, SEED = 0.25, 1, 2  # one 900 s recording holding a seizure and muscle bursts


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from rt_eeg.sim.corpus import simulate_corpus
    from rt_eeg.sim.families import resolve_families

    out = tmp_path_factory.mktemp("sim") / "C"
    simulate_corpus(out, HOURS, PATIENTS, SEED, families=resolve_families(None, None), progress=False)
    return out


def test_false_alarm_cause_and_latency_decomposition(corpus, tmp_path):
    from rt_eeg.features import FeatureConfig
    from rt_eeg.io.annotations import read_csv_bi

    edf = next((corpus / "edf").rglob("*.edf"))
    plan = analyse_errors.plan_corpus_jobs(
        type("A", (), {"hours": HOURS, "patients": PATIENTS, "seed": SEED, "families": None,
                       "exclude_families": None})()  # fmt: skip
    )[edf.stem]
    events = analyse_errors.sim_events(plan)
    seizure = next(e for e in read_csv_bi(edf.with_suffix(".csv_bi")).events if e.label == "seiz")
    # a muscle burst away from the seizure, with nothing longer starting beside it
    burst = next(
        e for e in events
        if e["kind"] == "muscle" and e["stop"] - e["start"] > 3 and e["stop"] + 60 < seizure.start
        and not any(e["start"] - 10 <= o["start"] <= e["stop"] and o["stop"] - o["start"] > e["stop"] - e["start"]
                    and not o["kind"].startswith("state_") for o in events if o is not e)
    )  # fmt: skip
    n = int(plan.duration)
    probs = np.full((n, 22), 0.05, dtype=np.float32)
    fa_at = math.ceil(burst["start"]) + 1
    probs[fa_at : fa_at + 8, :6] = 0.9995
    sz_at = math.ceil(seizure.start) + 2
    probs[sz_at : int(seizure.stop), :6] = 0.9995
    ev = tmp_path / "eval"
    ev.mkdir()
    np.savez(ev / f"{edf.stem}.probs.npz", epoch_starts=np.arange(n, dtype=np.float64), probs=probs,
             ch_names=np.array([f"C{i}" for i in range(22)]), duration=np.float64(n))  # fmt: skip
    post = tmp_path / "post.toml"
    post.write_text("threshold_on = 0.99\nthreshold_off = 0.5\nonset_epochs = 2\ntop_k = 4\n")
    out = tmp_path / "a.json"
    rc = analyse_errors.main(["--eval", str(ev), "--corpus", str(corpus), "--hours", str(HOURS),
                              "--patients", str(PATIENTS), "--seed", str(SEED), "--post", str(post),
                              "--out", str(out)])  # fmt: skip
    assert rc == 0
    doc = json.loads(out.read_text())
    (fa,) = doc["false_alarms"]
    assert fa["cause"] == "emg" and fa["channels_ge_0.9"] == [f"C{i}" for i in range(6)]
    assert fa["start"] == fa_at + 2  # two epochs at >= 0.99; the first is smoothed with background
    (sz,) = doc["seizures"]
    delay = FeatureConfig().delay_s
    # score >= 0.99 from epoch sz_at + 1; the onset rule needs a second epoch there
    assert sz["first_score_0.99_s"] == pytest.approx(sz_at + 2 + delay - seizure.start, abs=1e-3)
    assert sz["fired_s"] == pytest.approx(sz_at + 3 + delay - seizure.start, abs=1e-3)
    assert sz["first_any_channel_0.5_s"] == pytest.approx(sz_at + 1 + delay - seizure.start, abs=1e-3)


def test_a_corpus_that_is_not_the_recipe_is_refused(corpus, tmp_path, capsys):
    edf = next((corpus / "edf").rglob("*.edf"))
    ev = tmp_path / "eval"
    ev.mkdir()
    np.savez(ev / f"{edf.stem}.probs.npz", epoch_starts=np.arange(900.0), probs=np.zeros((900, 22)),
             ch_names=np.array([f"C{i}" for i in range(22)]), duration=np.float64(900))  # fmt: skip
    rc = analyse_errors.main(["--eval", str(ev), "--corpus", str(corpus), "--hours", str(HOURS),
                              "--patients", str(PATIENTS), "--seed", "3", "--out", str(tmp_path / "x.json")])  # fmt: skip
    assert rc == 2 and "analyse_errors:" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_families_the_corpus_never_held_are_refused(corpus, tmp_path, capsys):
    """Re-planning with families the corpus was made without (a simulator that gained
    families since) would blame false alarms on events that are not in the signal."""
    import shutil

    copy = tmp_path / "C"
    shutil.copytree(corpus, copy)
    edf = next((copy / "edf").rglob("*.edf"))
    side = edf.with_suffix(".families.json")
    doc = json.loads(side.read_text())
    assert "emg" in doc["present"]
    doc["present"] = [f for f in doc["present"] if f != "emg"]  # as if made without EMG
    side.write_text(json.dumps(doc))
    ev = tmp_path / "eval"
    ev.mkdir()
    n = 900
    np.savez(ev / f"{edf.stem}.probs.npz", epoch_starts=np.arange(n, dtype=np.float64),
             probs=np.full((n, 22), 0.05, np.float32), ch_names=np.array([f"C{i}" for i in range(22)]),
             duration=np.float64(n))  # fmt: skip
    rc = analyse_errors.main(["--eval", str(ev), "--corpus", str(copy), "--hours", str(HOURS),
                              "--patients", str(PATIENTS), "--seed", str(SEED),
                              "--out", str(tmp_path / "a.json")])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and "holds emg" in err and "--exclude-families" in err
    assert not (tmp_path / "a.json").exists()
