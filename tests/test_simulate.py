"""Tests of the EEG simulator (rt_eeg.sim) and its ``rt-eeg simulate`` command.

Signals are checked with ordinary spectral estimates (Welch PSD, band power), never against
numbers copied from the generator.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyedflib
import pytest
from scipy.signal import welch

from rt_eeg.cli import main
from rt_eeg.io.annotations import read_csv, read_csv_bi
from rt_eeg.sim import SeizureSpec, plan_recording, simulate_recording, write_recording
from rt_eeg.sim.corpus import plan_from_annotations, simulate_corpus, write_jobs, write_sample
from rt_eeg.sim.families import SUBTYPE_FAMILIES
from rt_eeg.sim.layout import tcp_from_referential, tcp_names

ROOT = Path(__file__).resolve().parents[1]
SFREQ = 250.0


def _electrodes(labels):
    return [lab.split()[1].rsplit("-", 1)[0] for lab in labels]


def _psd(x, sfreq=SFREQ, seconds=4.0):
    return welch(x, sfreq, nperseg=int(seconds * sfreq), axis=0)


def _band_power(x, sfreq, lo, hi):
    """Mean power in [lo, hi] Hz of each column of ``x`` (n, k)."""
    f, p = _psd(x, sfreq, seconds=min(2.0, x.shape[0] / sfreq))
    m = (f >= lo) & (f <= hi)
    return p[m].mean(axis=0)


def _loglog_fit(f, p, lo=2.0, hi=30.0, exclude=(7.0, 14.0)):
    m = (f >= lo) & (f <= hi) & ~((f > exclude[0]) & (f < exclude[1]))
    slope, intercept = np.polyfit(np.log(f[m]), np.log(p[m]), 1)
    return slope, intercept


# --------------------------------------------------------------------------------------------
# background


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_awake_posterior_alpha_peak_between_8_and_12_hz(seed):
    data, labels, _ = simulate_recording(90.0, SFREQ, seed=seed, state="awake", artifacts=False)
    el = _electrodes(labels)
    f, p = _psd(data.astype(np.float64))
    peaks = []
    excess = {}
    for name in ("O1", "O2", "F3", "F4"):
        k = el.index(name)
        slope, icpt = _loglog_fit(f, p[:, k])
        resid = np.log(p[:, k]) - (slope * np.log(np.maximum(f, 1e-3)) + icpt)
        band = (f >= 5.0) & (f <= 15.0)
        excess[name] = resid[band].max()
        if name in ("O1", "O2"):
            peaks.append(f[band][np.argmax(resid[band])])
    assert all(8.0 <= pk <= 12.0 for pk in peaks), peaks
    # a real rhythm (well above the 1/f trend), and posterior: stronger at O1/O2 than F3/F4
    assert min(excess["O1"], excess["O2"]) > np.log(3.0)
    assert min(excess["O1"], excess["O2"]) > max(excess["F3"], excess["F4"])


@pytest.mark.parametrize("state", ["awake", "drowsy", "sleep"])
def test_background_is_roughly_one_over_f_with_eeg_amplitudes(state):
    data, labels, _ = simulate_recording(90.0, SFREQ, seed=11, state=state, artifacts=False)
    f, p = _psd(data.astype(np.float64))
    slopes = [_loglog_fit(f, p[:, k])[0] for k in range(data.shape[1])]
    assert -2.5 <= np.median(slopes) <= -0.5, np.median(slopes)
    rms = data.std(axis=0)
    assert 5.0 < np.median(rms) < 80.0  # tens of microvolts
    # spatially correlated: neighbours correlate far more than distant electrodes
    el = _electrodes(labels)
    c = np.corrcoef(data.T)
    near = c[el.index("C3"), el.index("CZ")]
    far = c[el.index("FP1"), el.index("O2")]
    assert near > far + 0.2


def test_sleep_has_more_delta_and_less_alpha_than_awake():
    kw = dict(seed=4, artifacts=False)
    awake, labels, _ = simulate_recording(90.0, SFREQ, state="awake", **kw)
    sleep, _, _ = simulate_recording(90.0, SFREQ, state="sleep", **kw)
    o1 = _electrodes(labels).index("O1")
    delta = [_band_power(x, SFREQ, 0.5, 3.0).mean() for x in (awake, sleep)]
    alpha = [_band_power(x[:, [o1]], SFREQ, 8.0, 12.0)[0] for x in (awake, sleep)]
    assert delta[1] > 1.5 * delta[0]
    assert alpha[0] > 2.0 * alpha[1]


def test_artifacts_add_frontal_blinks_and_muscle():
    clean, labels, _ = simulate_recording(120.0, SFREQ, seed=8, state="awake", artifacts=False)
    dirty, _, _ = simulate_recording(120.0, SFREQ, seed=8, state="awake", artifacts=True)
    el = _electrodes(labels)
    fp = [el.index("FP1"), el.index("FP2")]
    occ = [el.index("O1"), el.index("O2")]
    low = _band_power(dirty, SFREQ, 0.5, 3.0) / _band_power(clean, SFREQ, 0.5, 3.0)
    assert low[fp].mean() > 1.5 * low[occ].mean()  # eye artifacts are frontal
    high = _band_power(dirty, SFREQ, 25.0, 55.0) / _band_power(clean, SFREQ, 25.0, 55.0)
    assert high.max() > 2.0  # muscle / chewing / line noise somewhere


# --------------------------------------------------------------------------------------------
# seizures


def _tcp(data, labels, montage="01_tcp_ar"):
    return tcp_from_referential(data.astype(np.float64), _electrodes(labels), montage)


def test_focal_seizure_evolves_slower_and_larger():
    start, stop = 30.0, 100.0
    spec = SeizureSpec(start, stop, kind="focal", focus="T3", subtle=False, amplitude=150.0)
    data, labels, events = simulate_recording(
        130.0, SFREQ, seed=5, seizures=[spec], artifacts=False
    )
    # the focus electrode itself: bipolar neighbours shrink as recruitment makes them alike
    k = _electrodes(labels).index("T3")
    sf = int(SFREQ)

    def peak_and_power(a, b):
        x = data[int(a * sf) : int(b * sf), k].astype(np.float64)
        f, p = welch(x, SFREQ, nperseg=4 * sf)
        m = (f >= 1.5) & (f <= 12.0)
        return f[m][np.argmax(p[m])], p[m].sum()

    f_early, p_early = peak_and_power(start + 2, start + 14)
    f_late, p_late = peak_and_power(stop - 16, stop - 4)
    assert f_early > f_late + 1.0, (f_early, f_late)
    assert p_late > 1.5 * p_early


def test_low_voltage_fast_onset_is_fast_then_slows():
    spec = SeizureSpec(30.0, 90.0, kind="focal_lvf", focus="C4", subtle=False, amplitude=150.0)
    plan = plan_recording(120.0, SFREQ, seed=6, seizures=[spec], artifacts=False)
    lvf = plan.seizures[0].params["lvf"]
    data, labels, _ = simulate_recording(120.0, SFREQ, seed=6, seizures=[spec], artifacts=False)
    tcp, names = _tcp(data, labels)
    k = names.index("C4-T4")
    sf = int(SFREQ)
    before = _band_power(tcp[int(20 * sf) : int(29 * sf), [k]], SFREQ, 14.0, 28.0)[0]
    onset = _band_power(tcp[int(31 * sf) : int((30 + lvf) * sf), [k]], SFREQ, 14.0, 28.0)[0]
    late = _band_power(tcp[int(70 * sf) : int(88 * sf), [k]], SFREQ, 2.0, 8.0)[0]
    early_slow = _band_power(tcp[int(31 * sf) : int((30 + lvf) * sf), [k]], SFREQ, 2.0, 8.0)[0]
    assert onset > 3.0 * before
    assert late > 3.0 * early_slow


@pytest.mark.parametrize("kind", ["focal", "generalized", "absence", "tonic_clonic"])
def test_annotations_agree_with_the_signal(kind):
    start, stop = 60.0, (75.0 if kind == "absence" else 120.0)
    spec = SeizureSpec(start, stop, kind=kind, focus="F8", subtle=False)
    data, labels, events = simulate_recording(
        180.0, SFREQ, seed=21, seizures=[spec], artifacts=True
    )
    term = [e for e in events if e.channel == "TERM"]
    assert [(e.start, e.stop, e.label) for e in term] == [(start, stop, "seiz")]
    chan = {e.channel: e for e in events if e.channel != "TERM"}
    assert chan and set(chan) <= set(tcp_names("01_tcp_ar"))
    tcp, names = _tcp(data, labels)
    sf = int(SFREQ)
    band = (20.0, 60.0) if kind == "tonic_clonic" else (2.5, 20.0)
    inside_a = max(e.start for e in chan.values())
    inside = _band_power(tcp[int((inside_a + 1) * sf) : int(stop * sf)], SFREQ, *band)
    outside = _band_power(tcp[int(5 * sf) : int((start - 5) * sf)], SFREQ, *band)
    ratio = inside / outside
    involved = [names.index(c) for c in chan]
    assert np.median(ratio[involved]) > 4.0, ratio[involved]
    others = [i for i in range(len(names)) if i not in involved]
    if others:  # channels not listed carry (almost) nothing of the seizure
        assert np.median(ratio[others]) < 2.0, ratio[others]
    # the discharge stops with the annotation (post-ictal slowing is below 3 Hz)
    best = involved[int(np.argmax(ratio[involved]))]
    last = _band_power(tcp[int((stop - 6) * sf) : int((stop - 1) * sf), [best]], SFREQ, *band)[0]
    after = _band_power(tcp[int((stop + 1.5) * sf) : int((stop + 6.5) * sf), [best]], SFREQ, *band)[
        0
    ]
    assert after < 0.3 * last


def test_subtle_seizure_is_confined_to_few_channels():
    spec = SeizureSpec(20.0, 80.0, kind="focal", focus="T5", subtle=True)
    _, _, events = simulate_recording(100.0, SFREQ, seed=2, seizures=[spec], artifacts=False)
    chans = {e.channel for e in events if e.channel != "TERM"}
    assert 1 <= len(chans) <= 8
    assert all("T5" in c or "O1" in c or "T3" in c or "P3" in c for c in chans)


# --------------------------------------------------------------------------------------------
# determinism and files


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_same_seed_same_bytes_other_seed_differs(tmp_path):
    kw = dict(seizures=[(20.0, 45.0, "focal")], montage="02_tcp_le")
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        write_recording(tmp_path / name / "aaaaaaaa_s001_t000.edf", 60.0, 256.0, seed=seed, **kw)
    a, b, c = (_files(tmp_path / n) for n in "abc")
    assert set(a) == {
        "aaaaaaaa_s001_t000.edf",
        "aaaaaaaa_s001_t000.csv_bi",
        "aaaaaaaa_s001_t000.csv",
    }
    assert a == b
    assert a["aaaaaaaa_s001_t000.edf"] != c["aaaaaaaa_s001_t000.edf"]
    x1, _, _ = simulate_recording(30.0, 400.0, seed=9)
    x2, _, _ = simulate_recording(30.0, 400.0, seed=9)
    x3, _, _ = simulate_recording(30.0, 400.0, seed=10)
    assert np.array_equal(x1, x2) and not np.allclose(x1, x3)


def test_corpus_is_deterministic_for_a_seed(tmp_path):
    for name, seed in (("a", 4), ("b", 4), ("c", 5)):
        simulate_corpus(tmp_path / name, hours=0.1, patients=2, seed=seed, progress=False)
    a, b, c = (_files(tmp_path / n) for n in "abc")
    assert a == b
    assert a != c


def test_edf_header_and_annotations_match_the_plan(tmp_path):
    edf = tmp_path / "aaaaaaab_s002_t001.edf"
    plan = write_recording(
        edf, 120.0, 512.0, seed=7, seizures=[(30.0, 70.0)], montage="03_tcp_ar_a"
    )
    with pyedflib.EdfReader(str(edf)) as r:
        labels = r.getSignalLabels()
        assert r.file_duration == 120.0
        eeg = [i for i, lab in enumerate(labels) if lab.startswith("EEG ") and lab.endswith("-REF")]
        assert {labels[i] for i in eeg} >= {"EEG FP1-REF", "EEG CZ-REF", "EEG O2-REF"}
        assert "EEG A1-REF" not in labels and "EEG A2-REF" not in labels
        assert {"EEG EKG1-REF", "BURSTS", "SUPPR"} <= set(labels)
        for i in eeg:
            assert r.getSampleFrequency(i) == 512.0 and r.getPhysicalDimension(i) == "uV"
        stds = [r.readSignal(i).std() for i in eeg]
        assert 3.0 < np.median(stds) < 200.0
    bi = read_csv_bi(edf.with_suffix(".csv_bi"))
    assert bi.duration == 120.0
    assert [(e.start, e.stop, e.label) for e in bi.events] == [(30.0, 70.0, "seiz")]
    per = read_csv(edf.with_suffix(".csv"))
    assert {e.channel for e in per.events} == set(tcp_names("03_tcp_ar_a"))
    sz = [e for e in per.events if e.label != "bckg"]
    assert sz and all(e.label == plan.seizures[0].label for e in sz)
    assert min(e.start for e in sz) == 30.0 and all(e.stop == 70.0 for e in sz)
    for ch in {e.channel for e in per.events}:  # every channel covers the recording
        evs = sorted((e for e in per.events if e.channel == ch), key=lambda e: e.start)
        assert evs[0].start == 0.0 and evs[-1].stop == 120.0
        assert all(abs(a.stop - b.start) < 1e-9 for a, b in zip(evs, evs[1:], strict=False))


_LAYOUT = re.compile(
    r"^edf/(train|dev|eval)/([a-z]{8})/(s(\d{3})_\d{4})/(01_tcp_ar|02_tcp_le|03_tcp_ar_a)/"
    r"\2_s\4_t\d{3}\.edf$"
)


def test_tiny_corpus_has_the_tusz_v2_layout(tmp_path):
    summary = simulate_corpus(tmp_path, hours=0.25, patients=3, seed=5, progress=False)
    edfs = sorted(tmp_path.rglob("*.edf"))
    assert len(edfs) == summary["files"] >= 3
    split_of = {}
    total = 0.0
    for edf in edfs:
        rel = edf.relative_to(tmp_path).as_posix()
        m = _LAYOUT.match(rel)
        assert m, rel
        split, pid, montage = m.group(1), m.group(2), m.group(5)
        assert split_of.setdefault(pid, split) == split  # patient-disjoint splits
        bi, csv = edf.with_suffix(".csv_bi"), edf.with_suffix(".csv")
        assert bi.exists() and csv.exists()
        with pyedflib.EdfReader(str(edf)) as r:
            labels = r.getSignalLabels()
            duration = r.file_duration
            fs = r.getSampleFrequency(0)
        suffix = "-LE" if montage == "02_tcp_le" else "-REF"
        assert labels[0] == f"EEG FP1{suffix}"
        assert (f"EEG A1{suffix}" in labels) == (not montage.endswith("_a"))
        assert fs in (200.0, 250.0, 256.0, 400.0, 500.0, 512.0)
        assert read_csv_bi(bi).duration == duration
        per = read_csv(csv)
        assert {e.channel for e in per.events} == set(tcp_names(montage))
        term = [e for e in read_csv_bi(bi).events if e.label == "seiz"]
        for t in term:  # each TERM seizure starts with its first channel
            starts = [
                e.start
                for e in per.events
                if e.label != "bckg" and e.start < t.stop and e.stop > t.start
            ]
            assert starts and min(starts) == t.start
        total += duration
    assert abs(total / 3600.0 - 0.25) < 1e-6
    assert len(set(split_of.values())) == 3


def test_from_annotations_reproduces_the_shared_tree(shared_dir, tmp_path):
    tree = shared_dir / "data" / "tusz_v2_sample"
    all_files = sorted(tree.rglob("*.csv_bi"))
    assert len(all_files) >= 100
    # a small but varied subset: the linked-ears file, an _a file, short files with seizures
    with_sz = [f for f in all_files if "seiz" in f.read_text()]
    short_sz = sorted(with_sz, key=lambda f: read_csv_bi(f).duration)[:2]
    le = [f for f in all_files if "02_tcp_le" in str(f)][:1]
    ar_a = sorted(
        (f for f in all_files if "03_tcp_ar_a" in str(f)), key=lambda f: read_csv_bi(f).duration
    )[:1]
    chosen = set(short_sz + le + ar_a)
    jobs = plan_from_annotations(tree, seed=1, include=lambda f: f in chosen)
    assert len(jobs) == len(chosen)
    write_jobs(tmp_path, jobs, progress=False)
    for f in chosen:
        rel = f.relative_to(tree)
        out = tmp_path / "edf" / rel.with_suffix(".edf")
        real, sim = read_csv_bi(f), read_csv_bi(out.with_suffix(".csv_bi"))
        assert sim.duration == real.duration
        assert [(e.start, e.stop) for e in sim.events if e.label == "seiz"] == [
            (e.start, e.stop) for e in real.events if e.label == "seiz"
        ]
        with (
            pyedflib.EdfReader(str(f.with_suffix(".edf"))) as r0,
            pyedflib.EdfReader(str(out)) as r1,
        ):
            assert r1.getSignalLabels() == r0.getSignalLabels()
            assert list(r1.getSampleFrequencies()) == list(r0.getSampleFrequencies())
            assert r1.file_duration == real.duration
            assert r1.getStartdatetime() == r0.getStartdatetime()
        assert out.parent.name == f.parent.name  # montage folder
    assert any(j.plan.seizures for j in jobs)


def test_from_annotations_uses_per_channel_csv(tmp_path):
    src = tmp_path / "src"
    simulate_corpus(src, hours=0.3, patients=2, seed=12, progress=False)
    # give every recording a seizure the tree's .csv describes on two channels only
    for bi in src.rglob("*.csv_bi"):
        dur = read_csv_bi(bi).duration
        from rt_eeg.io.annotations import Event, write_csv, write_csv_bi

        write_csv_bi(bi, [Event(10.0, 40.0, "seiz")], dur)
        write_csv(bi.with_suffix(".csv"), [Event(10.0, 40.0, "absz", 1.0, "T3-T5"),
                                           Event(12.5, 40.0, "absz", 1.0, "T5-O1")], dur)  # fmt: skip
        bi.with_suffix(".edf").unlink()  # no EDF: the rate is drawn
    jobs = plan_from_annotations(src, seed=3)
    for j in jobs:
        (sz,) = j.plan.seizures
        assert (sz.start, sz.stop, sz.label) == (10.0, 40.0, "absz")
        # the family is one that can carry the annotated subtype
        assert sz.family in SUBTYPE_FAMILIES["absz"]
        chans = {e.channel: e.start for e in sz.channel_events(j.plan.montage)}
        assert {"T3-T5", "T5-O1"} <= set(chans)
        assert chans["T3-T5"] == 10.0
        assert j.plan.sfreq in (200.0, 250.0, 256.0, 400.0, 500.0, 512.0)


# --------------------------------------------------------------------------------------------
# command line, sample, plotting


def test_cli_writes_a_corpus_and_rejects_bad_input(tmp_path, capsys):
    assert main(["simulate", "--out", str(tmp_path), "--hours", "0.05", "--patients", "1",
                 "--seed", "2", "--no-progress"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "wrote 1 recordings" in out and "x real time" in out
    assert len(list(tmp_path.rglob("*.edf"))) == 1
    assert main(["simulate", "--out", str(tmp_path), "--patients", "0", "--no-progress"]) == 2
    assert main(["simulate", "--out", str(tmp_path), "--hours", "0.01", "--patients", "5"]) == 2
    assert "too little" in capsys.readouterr().err
    missing = tmp_path / "nope"
    assert main(["simulate", "--out", str(tmp_path), "--from-annotations", str(missing)]) == 2


def test_sample_command_reproduces_the_bundled_sample(tmp_path):
    sample = ROOT / "data_samples" / "sample_s001_t000.edf"
    assert sample.exists(), "the bundled sample is part of the repository (make run replays it)"
    assert sum(p.stat().st_size for p in sample.parent.glob("sample_s001_t000.*")) <= 5 * 2**20
    write_sample(tmp_path)
    new = tmp_path / sample.name
    for suffix in (".csv_bi", ".csv"):
        assert new.with_suffix(suffix).read_text() == sample.with_suffix(suffix).read_text()
    with pyedflib.EdfReader(str(sample)) as r0, pyedflib.EdfReader(str(new)) as r1:
        assert r0.getSignalLabels() == r1.getSignalLabels()
        assert r0.getSampleFrequency(0) == 200.0
        for i in range(r0.signals_in_file):
            d0, d1 = r0.readSignal(i, digital=True), r1.readSignal(i, digital=True)
            # bit-identical on the machine that made it; other BLAS builds may round 1 LSB
            assert np.abs(d0.astype(int) - d1.astype(int)).max() <= 1


def test_plot_tool_renders_an_onset(tmp_path):
    import importlib.util

    edf = tmp_path / "aaaaaaaa_s001_t000.edf"
    write_recording(edf, 40.0, 250.0, seed=1, seizures=[(15.0, 35.0, "focal")])
    spec = importlib.util.spec_from_file_location(
        "plot_recording", ROOT / "tools" / "plot_recording.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    png = mod.plot_onset(edf, tmp_path / "onset.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
