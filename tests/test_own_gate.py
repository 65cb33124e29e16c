"""tools/own_gate.py on a real simulated corpus with crafted hypotheses: the union figures are
the scorer's, and each seizure is credited to its family."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
own_gate = pytest.importorskip("own_gate")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from rt_eeg.sim.corpus import simulate_corpus
    from rt_eeg.sim.families import resolve_families

    out = tmp_path_factory.mktemp("sim") / "C"
    simulate_corpus(out, 0.5, 2, 3, families=resolve_families(None, None), progress=False)
    return out


def _evaluate(corpus: Path, ev: Path, hours: float) -> Counter:
    """Hypotheses that find the first seizure of every recording and raise one false alarm in
    each seizure-free one; report.json scored as rt-eeg evaluate scores it."""
    from rt_eeg.io.annotations import Event, read_csv_bi, write_csv_bi
    from rt_eeg.scoring import score_pairs
    from rt_eeg.sim.families import read_families

    ev.mkdir()
    pairs, found, rows = [], Counter(), []
    for ref_path in sorted(corpus.rglob("*.csv_bi")):
        ref = read_csv_bi(ref_path)
        seiz = sorted((e for e in ref.events if e.label != "bckg"), key=lambda e: e.start)
        if seiz:
            hyp = [Event(seiz[0].start + 1.0, seiz[0].start + 9.0, "seiz")]
            found[read_families(ref_path.with_suffix(".edf"))["seizure"][0]] += 1
        else:
            hyp = [Event(100.0, 110.0, "seiz")]
        write_csv_bi(ev / ref_path.name, hyp, ref.duration, bname=ref_path.stem)
        pairs.append((ref, read_csv_bi(ev / ref_path.name)))
        rows.append({"edf": str(ref_path.with_suffix(".edf")), "csv_bi": str(ev / ref_path.name),
                     "ref": str(ref_path)})  # fmt: skip
    report = {"failed": [], "hours": hours, "scores": score_pairs(pairs), "recordings": rows}
    (ev / "report.json").write_text(json.dumps(report))
    return found


def test_union_and_per_family(corpus, tmp_path):
    from rt_eeg.io.annotations import read_csv_bi
    from rt_eeg.sim.families import read_families

    found = _evaluate(corpus, tmp_path / "ev", 0.5)
    families = Counter(f for p in corpus.rglob("*.edf") for f in read_families(p)["seizure"])
    # seed 3: a recording with two seizures (the second is missed), one with one, one with none
    assert sum(families.values()) == 3 and sum(found.values()) == 2
    out = tmp_path / "gate.json"
    rc = own_gate.main(["--model", f"M={tmp_path / 'ev'}:{corpus},{tmp_path / 'ev'}:{corpus}", "--out", str(out)])
    assert rc == 0
    m = json.loads(out.read_text())["models"]["M"]
    n_free = sum(1 for p in corpus.rglob("*.edf") if not read_families(p)["seizure"])
    # the same corpus twice: every count doubles, the rates do not
    assert m["hits"] == 2 * sum(found.values()) and m["targets"] == 2 * sum(families.values())
    assert m["false_alarms"] == 2 * n_free and m["hours"] == 1.0
    assert m["union_sensitivity"] == round(100 * sum(found.values()) / sum(families.values()), 1)
    assert m["passes"] == (m["union_sensitivity"] >= 95 and m["union_fa_per_24h"] <= 1)
    # hypotheses of 8 s per found seizure and 10 s per seizure-free recording, twice over
    called_s = 2 * (8.0 * sum(found.values()) + 10.0 * n_free)
    ref_s = 2 * sum(e.stop - e.start for p in corpus.rglob("*.csv_bi")
                    for e in read_csv_bi(p).events if e.label != "bckg")  # fmt: skip
    assert m["time_called_h"] == round(called_s / 3600, 2) and m["reference_seizure_h"] == round(ref_s / 3600, 2)
    assert m["flag_ratio"] == round(called_s / ref_s, 2)
    per_family = m["corpora"][0]["per_family"]
    assert {f: v["seizures"] for f, v in per_family.items()} == dict(families)
    assert {f: v["found"] for f, v in per_family.items() if v["found"]} == dict(found)


def test_a_folder_of_another_corpus_is_refused(corpus, tmp_path, capsys):
    _evaluate(corpus, tmp_path / "ev", 0.5)
    report = json.loads((tmp_path / "ev" / "report.json").read_text())
    report["scores"]["ovlp"]["seiz"]["targets"] += 1
    (tmp_path / "ev" / "report.json").write_text(json.dumps(report))
    rc = own_gate.main(["--model", f"M={tmp_path / 'ev'}:{corpus}", "--out", str(tmp_path / "g.json")])
    assert rc == 2 and "differs from the scorer's" in capsys.readouterr().err
    assert not (tmp_path / "g.json").exists()


def test_a_folder_that_decoded_other_recordings_is_refused(corpus, tmp_path, capsys):
    _evaluate(corpus, tmp_path / "ev", 0.5)
    other = tmp_path / "other"
    other.mkdir()
    rc = own_gate.main(["--model", f"M={tmp_path / 'ev'}:{other}", "--out", str(tmp_path / "g.json")])
    assert rc == 2 and f"not a recording of {other}" in capsys.readouterr().err
    # a recording whose hypothesis is gone is left out of the families, and the sums say so
    from rt_eeg.sim.families import read_families

    report = json.loads((tmp_path / "ev" / "report.json").read_text())
    row = next(r for r in report["recordings"] if read_families(Path(r["edf"]))["seizure"])
    Path(row["csv_bi"]).unlink()
    rc = own_gate.main(["--model", f"M={tmp_path / 'ev'}:{corpus}", "--out", str(tmp_path / "g.json")])
    assert rc == 2 and "differs from the scorer's" in capsys.readouterr().err
