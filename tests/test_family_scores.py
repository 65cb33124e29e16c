"""tools/family_scores.py: per seizure type, the peak cross-channel score and its latency."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
family_scores = pytest.importorskip("family_scores")

from rt_eeg.montage import REDUCED_DERIVATIONS, TCP_22  # noqa: E402


def _recording(folder: Path, ev: Path, name: str, probs: np.ndarray, sidecar: dict | None,
               families: list[str] | None = None, seizures=(), ch_names=None) -> Path:  # fmt: skip
    edf = folder / f"{name}.edf"
    edf.write_bytes(b"")  # only the name and the files beside it are read
    if sidecar is not None:
        edf.with_suffix(".xsim.json").write_text(json.dumps(sidecar))
    else:
        edf.with_suffix(".families.json").write_text(json.dumps({"seizure": families}))
        rows = "".join(f"TERM,{a:.4f},{b:.4f},seiz,1.0000\n" for a, b in seizures)
        edf.with_suffix(".csv_bi").write_text(
            "# version = csv_v1.0.0\nchannel,start_time,stop_time,label,confidence\n" + rows)
    if ch_names is None:
        ch_names = TCP_22[: probs.shape[1]]
    np.savez(ev / f"{name}.probs.npz", probs=probs.astype(np.float32),
             epoch_starts=np.arange(len(probs), dtype=float), ch_names=np.array(ch_names))  # fmt: skip
    return edf


def test_peaks_latencies_and_background_per_generator_and_type(tmp_path, capsys):
    ev = tmp_path / "eval"
    ev.mkdir()
    n, ch = 400, 6
    # recording 1 (an independent generator): an LVF seizure at 100-120 s that peaks at 0.98
    # on four channels, climbing from 0.9; a tonic-clonic at 250-290 s reaching 0.999 at 255 s
    p1 = np.full((n, ch), 0.1)
    p1[100:120, :4] = np.linspace(0.9, 0.98, 20)[:, None]
    p1[250:290, :4] = 0.999
    p1[250:255, :4] = 0.9
    p1[20, :] = 0.97  # one background epoch high on every channel
    sc1 = {"generator": "mvar", "seizures": [[100.0, 120.0, "lvfa"], [250.0, 290.0, "tonic_clonic"]]}
    r1 = _recording(tmp_path, ev, "r1", p1, sc1)
    # recording 2 (our simulator): a hemispheric seizure 50-80 s, top-4 at 0.996 from 60 s, and
    # a subtle focal one 300-330 s that stays at 0.5 (the .csv_bi lists the later one first)
    p2 = np.full((n, ch), 0.2)
    p2[60:80, :4] = 0.996
    p2[300:330, :4] = 0.5
    r2 = _recording(tmp_path, ev, "r2", p2, None, ["hemispheric", "subtle_focal"],
                    [(300.0, 330.0), (50.0, 80.0)])
    lst = tmp_path / "all.list"
    lst.write_text(f"{r1}\n{r2}\n")
    doc = family_scores.family_scores({"C": (lst, ev)}, top_k=4)
    lvf, tc, hemi = doc["types"]["mvar/lvfa"], doc["types"]["mvar/tonic_clonic"], doc["types"]["ours/hemispheric"]
    assert lvf["seizures"] == 1 and lvf["peak_median"] == pytest.approx(0.98, abs=1e-4)
    assert lvf["reach_0.99"] == 0.0 and lvf["latency_median_s_0.99"] is None
    assert tc["reach_0.998"] == 1.0 and tc["latency_median_s_0.998"] == 6.0  # epoch 255 ends at 256
    assert hemi["reach_0.995"] == 1.0 and hemi["reach_0.998"] == 0.0
    assert hemi["latency_median_s_0.995"] == 11.0  # epoch 60 ends 11 s after the 50 s onset
    assert doc["types"]["ours/subtle_focal"]["peak_median"] == 0.5
    # background: epochs 30 s before to 60 s after any seizure are left out; the 0.97 epoch stays
    bg = doc["generators"]["mvar"]
    assert bg["background_epochs"] == n - (180 - 70) - (350 - 220)
    assert bg["q0.9999"] > 0.9 and bg["q0.99"] == pytest.approx(0.1, abs=1e-6)
    # the command line: figures printed and written; a missing decode is one clear error
    out = tmp_path / "fs.json"
    assert family_scores.main(["--corpus", f"C={lst}:{ev}", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["types"] == doc["types"]
    assert "mvar/lvfa" in capsys.readouterr().out
    # a sidecar that disagrees with the annotation is refused, naming the recording
    r2.with_suffix(".families.json").write_text(json.dumps({"seizure": ["hemispheric"]}))
    with pytest.raises(SystemExit, match="r2.edf: 2 seizures in the .csv_bi, 1 families"):
        family_scores.main(["--corpus", f"C={lst}:{ev}"])
    (ev / "r2.probs.npz").unlink()
    with pytest.raises(SystemExit, match="r2.probs.npz: no decoder output"):
        family_scores.main(["--corpus", f"C={lst}:{ev}"])
    with pytest.raises(SystemExit, match="expected NAME=an existing list"):
        family_scores.main(["--corpus", f"C={tmp_path / 'absent.list'}:{ev}"])
    with pytest.raises(SystemExit, match="--corpus 'C-no-colon': expected NAME=LIST:EVAL_DIR"):
        family_scores.main(["--corpus", "C-no-colon"])


def test_reduced_montage_uses_the_postprocessors_own_k(tmp_path):
    """On a reduced montage the score is the top ``top_k_reduced`` mean, as the postprocessor
    computes it: two channels at 0.999 and the rest low peak at 0.999, not at their top-4 mean."""
    ev = tmp_path / "eval"
    ev.mkdir()
    names = [f"{a}-{b}" for a, b in REDUCED_DERIVATIONS]
    p = np.full((200, len(names)), 0.1)
    p[100:130, :2] = 0.999
    sc = {"generator": "mvar", "seizures": [[100.0, 130.0, "lvfa"]]}
    r = _recording(tmp_path, ev, "red", p, sc, ch_names=names)
    lst = tmp_path / "red.list"
    lst.write_text(f"{r}\n")
    lvf = family_scores.family_scores({"C": (lst, ev)}, top_k=4)["types"]["mvar/lvfa"]
    assert lvf["peak_median"] == pytest.approx(0.999, abs=1e-4) and lvf["reach_0.998"] == 1.0


def test_background_at_the_top_is_attributed_to_the_generators_events(tmp_path, capsys):
    """Background epochs at or above the top level are counted against the independent
    generator's timed events: their share of the top epochs beside their share of all
    background epochs (our simulator's recordings, with no timed events, are left out)."""
    ev = tmp_path / "eval"
    ev.mkdir()
    n = 300
    p = np.full((n, 4), 0.2)
    p[40:46, :] = 0.999  # six background epochs at the top, all inside a 'muscle' event
    p[150:170, :] = 0.999  # the seizure: not background
    events = [[0.0, 300.0, "ecg"], [38.0, 50.0, "muscle"], [250.0, 270.0, "muscle"], [5.0, 9.0, "blink"]]
    sc = {"generator": "nmm", "seizures": [[150.0, 170.0, "spike_wave"]], "events": events}
    r = _recording(tmp_path, ev, "r", p, sc)
    ours = _recording(tmp_path, ev, "o", np.full((n, 4), 0.999), None, [], [])
    lst = tmp_path / "l.list"
    lst.write_text(f"{r}\n{ours}\n")
    doc = family_scores.family_scores({"C": (lst, ev)}, top_k=4, top_level=0.995)
    g = doc["generators"]["nmm"]
    bg = n - (230 - 120)  # epochs 120-229 end after 120 s or start before 230 s: near it
    assert g["background_epochs"] == bg and g["epochs_at_top"] == 6
    at = g["events_at_top"]
    assert at["muscle"] == {"share_top": 1.0, "share_all": round(32 / bg, 3)}  # 12 + 20 epochs
    assert at["blink"] == {"share_top": 0.0, "share_all": round(4 / bg, 3)}
    assert at["ecg"]["share_top"] == 1.0 and at["ecg"]["share_all"] == 1.0
    assert list(at)[:2] in (["ecg", "muscle"], ["muscle", "ecg"])  # ordered by epochs at the top
    assert "events_at_top" not in doc["generators"]["ours"]  # no timed events to attribute to
    family_scores.main(["--corpus", f"C={lst}:{ev}", "--top-level", "0.995"])
    assert "muscle 1.0" in capsys.readouterr().out
