"""Reduced montages: recordings of a few electrodes are analysed on 10-20 chain derivations.

An 8-electrode recording (Fp1 Fp2 C3 C4 T3 T4 O1 O2) forms only T3-C3 and C4-T4 in TCP; the
reduced montage adds the derivations between neighbours along the 10-20 chains once the
missing electrodes are left out. Checked here on the matrices, on generated EDFs through
`rt-eeg evaluate` and the process pipeline (online == offline), and through
`tools/degrade_corpus.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from edf_factory import write_edf

from rt_eeg.errors import RtEegError
from rt_eeg.io.channels import normalise_labels
from rt_eeg.montage import TCP_22, bipolar_rereference, check_enough_channels, tcp_montage

pytestmark = pytest.mark.timeout(400)

ROOT = Path(__file__).resolve().parents[1]
EIGHT = ["Fp1", "Fp2", "C3", "C4", "T3", "T4", "O1", "O2"]
EIGHT_CHANNELS = ("T3-C3", "C4-T4", "FP1-T3", "T3-O1", "FP2-T4", "T4-O2",
                  "FP1-C3", "C3-O1", "FP2-C4", "C4-O2", "C3-C4")  # fmt: skip
#: The reduced longitudinal double banana as a bipolar recording: no pair is a TCP pair.
BANANA = ["FP1-C3", "C3-O1", "FP2-C4", "C4-O2", "FP1-T3", "T3-O1", "FP2-T4", "T4-O2"]
CHB = ("FP1-F7 F7-T7 T7-P7 P7-O1 FP1-F3 F3-C3 C3-P3 P3-O1 FP2-F4 F4-C4 C4-P4 P4-O2 FP2-F8 "
       "F8-T8 T8-P8 P8-O2 FZ-CZ CZ-PZ P7-T7 T7-FT9 FT9-FT10 FT10-T8 T8-P8").split()  # fmt: skip


def _potentials(electrodes, n, rng) -> dict[str, np.ndarray]:
    return {e.upper(): rng.normal(0, 30, n).astype(np.float32) for e in electrodes}


def test_eight_electrodes_form_the_reduced_montage_exactly(rng):
    m = tcp_montage(normalise_labels([f"EEG {e}-REF" for e in EIGHT] + ["EEG EKG1-REF"]))
    assert m.name == "reduced" and m.ch_names == EIGHT_CHANNELS
    assert set(m.missing) == set(TCP_22) - {"T3-C3", "C4-T4"}
    v = _potentials(EIGHT, 500, rng)
    signal = np.stack([v[lab.split()[1].split("-")[0].upper()] for lab in m.input_labels], axis=1)
    out = m.apply(signal)
    for j, ch in enumerate(m.ch_names):
        a, b = ch.split("-")
        np.testing.assert_allclose(out[:, j], v[a] - v[b], atol=1e-4)


def test_a_full_set_keeps_tcp_and_a_missing_middle_electrode_is_skipped_once():
    full = tcp_montage(normalise_labels([f"EEG {e}-REF" for e in
                                         "FP1 FP2 F3 F4 C3 C4 P3 P4 O1 O2 F7 F8 T3 T4 T5 T6 FZ CZ PZ A1 A2".split()]))  # fmt: skip
    assert full.name == "01_tcp_ar" and full.ch_names == TCP_22
    # Parasagittal chains only (8 TCP channels): not reduced, nothing added.
    para = tcp_montage(normalise_labels("FP1 F3 C3 P3 O1 FP2 F4 C4 P4 O2".split()))
    assert para.name == "03_tcp_ar_a" and len(para.ch_names) == 8
    # F3 C3 P3 / F4 C4 P4 / Cz Pz: 7 TCP channels, so the midline CZ-PZ is added; FP1-C3 is
    # not (FP1 is absent) and C3-P3 stays a neighbour pair.
    m = tcp_montage(normalise_labels("F3 C3 P3 F4 C4 P4 Cz Pz".split()))
    assert m.name == "reduced"
    assert m.ch_names == ("C3-CZ", "CZ-C4", "F3-C3", "C3-P3", "F4-C4", "C4-P4", "CZ-PZ")
    # Two electrodes missing in a row are never bridged: FP1 and O1 alone form nothing.
    assert tcp_montage(normalise_labels(["Fp1", "O1", "Fp2", "O2"])).ch_names == ()


def test_bipolar_non_tcp_pairs_are_kept_as_a_reduced_montage(rng):
    m = tcp_montage(normalise_labels(BANANA + ["ECG"]))
    assert m.name == "reduced" and len(m.ch_names) == 8
    assert set(m.ch_names) == set(BANANA) and not set(m.ch_names) & set(TCP_22)
    x = rng.normal(0, 30, (100, len(m.input_labels))).astype(np.float32)
    out = m.apply(x)
    for j, ch in enumerate(m.ch_names):  # each channel is its own input, unchanged
        np.testing.assert_array_equal(out[:, j], x[:, m.input_labels.index(ch)])
    # Reversed polarity is read with its sign turned.
    rev = tcp_montage(normalise_labels(["C3-FP1"] + BANANA[1:]))
    assert rev.ch_names == ("FP1-T3", "T3-O1", "FP2-T4", "T4-O2", "FP1-C3", "C3-O1", "FP2-C4", "C4-O2")
    col = rev.ch_names.index("FP1-C3")
    assert rev.matrix[rev.input_labels.index("C3-FP1"), col] == -1.0


def test_too_few_channels_even_when_reduced_is_refused_with_one_line():
    m = tcp_montage(normalise_labels(["Fp1", "C3", "O1"]))
    assert m.ch_names == ("FP1-C3", "C3-O1")
    with pytest.raises(RtEegError) as err:
        check_enough_channels(m.ch_names, "three.edf")
    msg = str(err.value)
    assert msg.startswith("three.edf") and "only 2 channels" in msg and "FP1-C3, C3-O1" in msg
    assert "\n" not in msg


def test_bipolar_recording_rereferenced_to_a_subset_equals_the_subset_recorded(rng):
    """CHB-MIT's 23 bipolar channels reduced to 8 electrodes give what an 8-electrode
    recording gives: every derivation equals the difference of the two potentials."""
    info = normalise_labels(CHB[:-1])  # the repeated T8-P8 dropped, as the montage does
    pairs = [(c.electrode, c.electrode2) for c in info]
    v = _potentials({e for p in pairs for e in p}, 300, rng)
    signal = np.stack([v[a] - v[b] for a, b in pairs], axis=1)
    out, matrix = bipolar_rereference(pairs, {e.upper() for e in EIGHT})
    assert tuple(f"{a}-{b}" for a, b in out) == EIGHT_CHANNELS
    derived = signal @ matrix
    for j, (a, b) in enumerate(out):
        np.testing.assert_allclose(derived[:, j], v[a] - v[b], atol=1e-3)


def test_store_labels_a_reduced_channel_from_the_tcp_channels_it_spans(tmp_path):
    from rt_eeg.store import channel_labels

    edf = tmp_path / "r.edf"
    edf.write_bytes(b"")  # only its name is used
    csv = tmp_path / "r.csv"
    csv.write_text(
        "# version = csv_v1.0.0\n# bname = r\n# duration = 20.0000 secs\n"
        "channel,start_time,stop_time,label,confidence\n"
        "FP1-F3,0.0000,20.0000,bckg,1.0000\nF3-C3,0.0000,5.0000,bckg,1.0000\n"
        "F3-C3,5.0000,10.0000,fnsz,1.0000\nF3-C3,10.0000,20.0000,bckg,1.0000\n"
        "T3-C3,0.0000,20.0000,bckg,1.0000\nC3-P3,0.0000,12.0000,bckg,1.0000\n"
        "C3-P3,12.0000,15.0000,fnsz,1.0000\nC3-P3,15.0000,20.0000,bckg,1.0000\n"
    )
    lab = channel_labels(edf, None, ["T3-C3", "FP1-C3", "FZ-CZ"], 20, csv)
    assert lab[:, 0].sum() == 0  # annotated, background throughout
    assert np.array_equal(np.flatnonzero(lab[:, 1]), np.arange(5, 10))  # FP1-F3 + F3-C3
    assert np.array_equal(np.flatnonzero(lab[:, 2]), np.r_[5:10, 12:15])  # any channel's


# ------------------------------------------------------------------------- end to end


def _seizure_like(n_s: float, sfreq: float, rng) -> dict[str, np.ndarray]:
    """Electrode potentials: noise with a 3 Hz rhythmic discharge over the left side."""
    n = int(n_s * sfreq)
    t = np.arange(n) / sfreq
    v = {e.upper(): rng.normal(0, 15, n) for e in EIGHT}
    burst = (t > 50) & (t < 80)
    for e in ("FP1", "C3", "T3"):
        v[e] = v[e] + burst * 150 * np.sin(2 * np.pi * 3 * t)
    return v


@pytest.fixture(scope="module")
def reduced_edfs(tmp_path_factory):
    """An 8-electrode referential recording and the same as 8 bipolar non-TCP pairs,
    100 s at 100 Hz (the outside testers' rate)."""
    rng = np.random.default_rng(31)
    d = tmp_path_factory.mktemp("reduced")
    v = _seizure_like(100.0, 100.0, rng)
    ref = write_edf(d / "ref8_s001_t000.edf", np.stack([v[e.upper()] for e in EIGHT]),
                    [f"EEG {e}-REF" for e in EIGHT], 100)  # fmt: skip
    pairs = [p.split("-") for p in BANANA]
    bip = write_edf(d / "bip8_s001_t000.edf", np.stack([v[a] - v[b] for a, b in pairs]),
                    BANANA, 100)  # fmt: skip
    return ref, bip


def test_evaluate_and_pipeline_run_reduced_recordings_online_equals_offline(reduced_edfs, tmp_path):
    from rt_eeg.io.annotations import read_csv_bi, read_hyp
    from rt_eeg.io.signalfile import read_signal

    model = ROOT / "models" / "default"
    listing = tmp_path / "list.txt"
    listing.write_text("".join(f"{p}\n" for p in reduced_edfs))
    r = subprocess.run([sys.executable, "-m", "rt_eeg.cli", "evaluate", "--list", str(listing),
                        "--model", str(model), "--out", str(tmp_path / "off"), "--workers", "1",
                        "--quiet"], capture_output=True, text=True, timeout=300, cwd=ROOT)  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads((tmp_path / "off" / "report.json").read_text())
    assert report["montages"] == {"reduced": 2} and not report["failed"]
    rows = {Path(row["edf"]).name: row for row in report["recordings"]}
    assert tuple(rows["ref8_s001_t000.edf"]["ch_names"]) == EIGHT_CHANNELS
    assert sorted(rows["bip8_s001_t000.edf"]["ch_names"]) == sorted(BANANA)
    assert sum("reduced montage: 11 channels (2 TCP, 9 added" in ln for ln in r.stderr.splitlines()) == 1

    for edf in reduced_edfs:
        live = tmp_path / f"live_{edf.stem}"
        r = subprocess.run([sys.executable, "-m", "rt_eeg.cli", "replay", str(edf), "--out", str(live),
                            "--speed", "max", "--no-monitor", "--model", str(model)],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)  # fmt: skip
        assert r.returncode == 0, r.stderr[-2000:]
        assert sum("reduced montage" in ln for ln in r.stderr.splitlines()) == 1
        for suffix in (".hyp", ".csv_bi", ".tse", "_events.tsv"):
            on = (live / f"{edf.stem}{suffix}").read_text()
            assert on == (tmp_path / "off" / f"{edf.stem}{suffix}").read_text(), (edf.name, suffix)
        epochs, duration = read_hyp(live / f"{edf.stem}.hyp")
        assert duration == pytest.approx(100.0) and len(epochs) == 100
        assert {e.label for e in epochs} <= {"seiz", "bckg", "na"}
        read_csv_bi(live / f"{edf.stem}.csv_bi")
        metrics = json.loads((live / "metrics.json").read_text())
        assert metrics["montage"] == "reduced" and metrics["restarts"] == []
        data, sfreq, ch_names = read_signal(live / edf.stem)
        assert sfreq == 250 and data.shape == (100 * 250, len(metrics["ch_names"]))
        assert list(ch_names) == metrics["ch_names"]
    # The viewer draws the 11 non-TCP channel names.
    png = tmp_path / "view.png"
    stem = reduced_edfs[0].stem
    r = subprocess.run([sys.executable, "-m", "rt_eeg.cli", "view", "--signal",
                        str(tmp_path / f"live_{stem}" / stem), "--hyp",
                        str(tmp_path / f"live_{stem}" / f"{stem}.hyp"), "--screenshot", str(png)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT,
                       env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})  # fmt: skip
    assert r.returncode == 0 and png.stat().st_size > 10_000, r.stderr[-2000:]


# ------------------------------------------------------------------------- degrade tool


def _degrade(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / "degrade_corpus.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_degrade_corpus_keeps_a_subset_resamples_and_copies_annotations(tmp_path, rng):
    from rt_eeg.io.edf import open_recording

    src = tmp_path / "src" / "edf" / "eval" / "p1" / "s001" / "01_tcp_ar"
    src.mkdir(parents=True)
    elec = "FP1 FP2 F3 F4 C3 C4 P3 P4 O1 O2 F7 F8 T3 T4 T5 T6 FZ CZ PZ A1 A2".split()
    t = np.arange(40 * 250) / 250
    sig = np.stack([30 * np.sin(2 * np.pi * 7 * t + k) + rng.normal(0, 2, t.size) for k in range(len(elec))])
    write_edf(src / "r_t000.edf", sig, [f"EEG {e}-REF" for e in elec] + [], 250)
    (src / "r_t000.csv_bi").write_text("# version = csv_v1.0.0\nchannel,start_time,stop_time,label,confidence\n"
                                       "TERM,0.0000,40.0000,bckg,1.0000\n")  # fmt: skip
    (src / "r_t000.families.json").write_text(json.dumps({"seizure": [], "present": ["drowsy"],
                                                          "sfreq": 250.0, "montage": "01_tcp_ar", "gain": 1.0}))  # fmt: skip
    out = tmp_path / "out"
    r = _degrade("--src", tmp_path / "src", "--out", out, "--electrodes", "Fp1,Fp2,C3,C4,T7,T8,O1,O2",
                 "--sfreq", 100)  # fmt: skip
    assert r.returncode == 0, r.stderr
    dst = out / src.relative_to(tmp_path / "src")
    assert (dst / "r_t000.csv_bi").read_text() == (src / "r_t000.csv_bi").read_text()
    fam = json.loads((dst / "r_t000.families.json").read_text())
    assert fam["sfreq"] == 100.0 and fam["degraded"]["electrodes"] == sorted(e.upper() for e in EIGHT)
    with open_recording(dst / "r_t000.edf") as rec:
        assert rec.native_rates == [100.0] and rec.montage == "reduced"
        assert tuple(rec.ch_names) == EIGHT_CHANNELS
        x = rec.read()
    # The 7 Hz rhythm survives 250 -> 100 -> 250 Hz: T3-C3 matches the original difference.
    i, j = elec.index("T3"), elec.index("C3")
    want = (sig[i] - sig[j])[1000:9000]
    got = x[1000:9000, 0]
    assert np.corrcoef(want, got)[0, 1] > 0.95
    # A re-run with other settings is refused; with the same, nothing is rewritten.
    before = (dst / "r_t000.edf").stat().st_mtime_ns
    assert _degrade("--src", tmp_path / "src", "--out", out, "--electrodes", "Fp1,Fp2,C3,C4,T7,T8,O1,O2",
                    "--sfreq", 100).returncode == 0  # fmt: skip
    assert (dst / "r_t000.edf").stat().st_mtime_ns == before
    bad = _degrade("--src", tmp_path / "src", "--out", out, "--sfreq", 200)
    assert bad.returncode == 2 and "other settings" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    bad = _degrade("--src", tmp_path / "src", "--out", tmp_path / "o2", "--electrodes", "Fp1,XX9")
    assert bad.returncode == 2 and "XX9" in bad.stderr


def test_degrade_corpus_rereferences_bipolar_input(tmp_path, rng):
    from rt_eeg.io.edf import open_recording

    info = normalise_labels(CHB[:-1])
    pairs = [(c.electrode, c.electrode2) for c in info]
    v = _potentials({e for p in pairs for e in p}, 30 * 256, rng)
    (tmp_path / "src").mkdir()
    write_edf(tmp_path / "src" / "chb.edf", np.stack([v[a] - v[b] for a, b in pairs]), CHB[:-1], 256)
    r = _degrade("--src", tmp_path / "src", "--out", tmp_path / "out", "--electrodes", ",".join(EIGHT))
    assert r.returncode == 0, r.stderr
    _, matrix = bipolar_rereference(pairs, {e.upper() for e in EIGHT})
    terms = dict(zip(EIGHT_CHANNELS, np.abs(matrix).sum(axis=0), strict=True))

    with open_recording(tmp_path / "out" / "chb.edf", sfreq=256) as rec:
        assert rec.montage == "reduced" and tuple(rec.ch_names) == EIGHT_CHANNELS
        x = rec.read()
    for j, ch in enumerate(rec.ch_names):
        a, b = ch.split("-")
        # Input samples are rounded to 0.1 uV steps (edf_factory) and C3-C4 sums 11 of
        # them: the error is that rounding, nothing more.
        err = np.abs(x[:, j] - (v[a] - v[b]))
        assert err.max() < 0.1 * (terms[ch] + 1) and err.mean() < 0.2, ch  # +1: the output step


def test_reduced_montage_keeps_the_share_of_channels_the_score_averages(rng):
    """top 4 of 22 TCP channels ~ top 2 of the 11 reduced ones: a seizure on 2 of 11
    channels fires with top_k_reduced = 2, not with 4; TCP channels keep top_k."""
    from rt_eeg.postprocess import PostprocessConfig, effective_top_k, postprocess_recording

    cfg = PostprocessConfig(top_k=4, threshold_on=0.9, threshold_off=0.5, onset_epochs=2)
    assert effective_top_k(cfg, EIGHT_CHANNELS) == 2 and effective_top_k(cfg, TCP_22) == 4
    assert effective_top_k(cfg.replace(top_k_reduced=4), EIGHT_CHANNELS) == 4
    assert effective_top_k(cfg, [f"C{i}" for i in range(22)]) == 4  # not a reduced montage
    probs = np.clip(rng.normal(0.05, 0.02, (120, 11)), 0, 1)
    probs[40:80, [2, 3]] = 0.99  # FP1-T3 and T3-O1: a left temporal seizure
    for k, fires in ((2, True), (4, False)):
        dec = postprocess_recording(np.arange(120.0), probs, list(EIGHT_CHANNELS), cfg.replace(top_k_reduced=k))
        seiz = [d for d in dec if d.label == "seiz"]
        assert bool(seiz) is fires
        if fires:
            assert 40 <= seiz[0].start <= 43 and set(seiz[0].channels) == {"FP1-T3", "T3-O1"}
