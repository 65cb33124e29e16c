"""The shared planner and writer of the independent generators (rt_eeg.xsim.corpus) and
``rt-eeg simulate --generator``: layout, seizure times, montages, determinism, bad arguments.

Each generator's own signal is tested in its own file (tests/test_xsim_<name>.py).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rt_eeg.cli import main
from rt_eeg.io.annotations import read_csv_bi
from rt_eeg.io.edf import open_recording
from rt_eeg.xsim.base import ELECTRODES
from rt_eeg.xsim.corpus import (
    GENERATORS,
    draw_seizure_times,
    eeg_signals,
    plan_xcorpus,
    plan_xfrom_annotations,
    render_job,
    write_xjobs,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def _seizures(csv_bi: Path) -> list[tuple[float, float]]:
    return [(e.start, e.stop) for e in read_csv_bi(csv_bi).events if e.label != "bckg"]


def test_seizure_times_are_disjoint_inside_and_apart():
    rng = np.random.default_rng(3)
    for _ in range(300):
        dur = int(rng.integers(60, 7200))
        sz = draw_seizure_times(dur, 2.0, rng)
        for a, b in sz:
            assert 5.0 <= a < b <= dur - 5.0 + 1e-6
            assert b - a >= 6.0 - 1e-6 or dur < 30
        for (_a0, b0), (a1, _b1) in zip(sz, sz[1:], strict=False):
            assert a1 > b0 + 60.0


def test_plan_is_the_same_for_every_generator_and_seeded():
    """The planner draws nothing from the generator: equal recordings and seizure times."""
    a = plan_xcorpus("nmm", 3.0, 4, seed=5)
    b = plan_xcorpus("atlas", 3.0, 4, seed=5)
    c = plan_xcorpus("nmm", 3.0, 4, seed=6)
    strip = [(j.rel, j.duration, j.sfreq, j.montage, j.seizures, j.seed) for j in a]
    assert strip == [(j.rel, j.duration, j.sfreq, j.montage, j.seizures, j.seed) for j in b]
    assert strip != [(j.rel, j.duration, j.sfreq, j.montage, j.seizures, j.seed) for j in c]
    assert sum(j.duration for j in a) == 3 * 3600
    # one patient, one key: recordings of a patient share the patient's traits
    keys: dict[str, set] = {}
    for j in a:
        keys.setdefault(j.rel.parts[1], set()).add(j.patient_key)
    assert all(len(v) == 1 for v in keys.values()) and len(keys) == 4


def test_linked_ear_and_no_ear_montages():
    rng = np.random.default_rng(0)
    eeg = rng.standard_normal((21, 100))
    labels, x = eeg_signals(eeg, "01_tcp_ar")
    assert labels[0] == "EEG FP1-REF" and len(labels) == 21 and np.array_equal(x, eeg)
    labels, x = eeg_signals(eeg, "03_tcp_ar_a")
    assert len(labels) == 19 and not any(" A1-" in s or " A2-" in s for s in labels)
    labels, x = eeg_signals(eeg, "02_tcp_le")
    assert all(s.endswith("-LE") for s in labels)
    ears = 0.5 * (eeg[ELECTRODES.index("A1")] + eeg[ELECTRODES.index("A2")])
    assert np.allclose(x[0], eeg[0] - ears)
    # bipolar differences do not depend on the reference
    assert np.allclose(x[0] - x[2], eeg[0] - eeg[2])


@pytest.mark.parametrize("generator", GENERATORS)
def test_written_corpus_reads_as_tusz(tmp_path, generator):
    """A small corpus of each generator: EDF readable as TCP at 250 Hz, csv_bi seizures equal to
    the plan, sidecar with the generator's seizure types; the same seed gives the same bytes."""
    jobs = [j for j in plan_xcorpus(generator, 0.5, 3, seed=11) if j.duration <= 900][:2]
    jobs += [j for j in plan_xcorpus(generator, 1.0, 2, seed=2) if j.seizures][:1]
    assert jobs
    jobs = [replace(j, duration=min(j.duration, 240),
                    seizures=tuple((a, b) for a, b in j.seizures if b < 235))
            for j in jobs]  # fmt: skip
    summary = write_xjobs(tmp_path / "a", jobs, progress=False)
    assert summary["files"] == len(jobs) and summary["generator"] == generator
    for j in jobs:
        edf = tmp_path / "a" / "edf" / j.rel
        rec = open_recording(edf)
        assert rec.native_sfreq == j.sfreq
        assert abs(rec.duration - j.duration) < 1e-6
        assert len(rec.ch_names) == (20 if j.montage.endswith("_a") else 22)
        x = rec.read()
        assert np.all(np.isfinite(x)) and 1.0 < float(np.std(x)) < 500.0
        got = _seizures(edf.with_suffix(".csv_bi"))
        assert np.allclose(np.ravel(got), np.ravel(j.seizures), atol=1e-3) and len(got) == len(
            j.seizures
        )
        side = json.loads(edf.with_suffix(".xsim.json").read_text())
        assert side["generator"] == generator and len(side["seizures"]) == len(j.seizures)
    write_xjobs(tmp_path / "b", jobs[:1], progress=False)
    rel = jobs[0].rel
    assert (tmp_path / "a" / "edf" / rel).read_bytes() == (
        tmp_path / "b" / "edf" / rel
    ).read_bytes()


@pytest.mark.skipif(not (SHARED / "tusz_v2_sample").is_dir(), reason="../shared/data absent")
def test_mirror_of_a_real_annotation_tree_keeps_times_and_rates():
    jobs = plan_xfrom_annotations("spec", SHARED / "tusz_v2_sample", seed=1)
    assert len(jobs) == len(list((SHARED / "tusz_v2_sample").rglob("*.csv_bi")))
    assert {j.sfreq for j in jobs} >= {250, 256}
    assert sum(len(j.seizures) for j in jobs) > 100
    j = next(j for j in jobs if j.seizures and j.duration < 1200)
    out = render_job(j)
    assert out.eeg.shape == (21, j.duration * j.sfreq)


def test_cli_generator_errors_are_one_line(tmp_path, capsys):
    assert main(["simulate", "--out", str(tmp_path), "--generator", "nope"]) == 2
    assert "unknown generator 'nope'" in capsys.readouterr().err
    assert main(["simulate", "--out", str(tmp_path), "--generator", "nmm",
                 "--exclude-families", "mu"]) == 2  # fmt: skip
    assert "--exclude-families applies to the rt_eeg generator only" in capsys.readouterr().err
    assert not (tmp_path / "edf").exists()


def test_cli_writes_a_corpus_with_workers(tmp_path, capsys):
    out = tmp_path / "c"
    rc = main(["simulate", "--out", str(out), "--generator", "spec", "--hours", "0.2",
               "--patients", "2", "--seed", "4", "--workers", "2", "--no-progress"])  # fmt: skip
    assert rc == 0
    text = capsys.readouterr().out
    assert "with generator spec: 0.20 h" in text
    edfs = sorted(out.rglob("*.edf"))
    assert edfs and all(e.with_suffix(".csv_bi").exists() for e in edfs)


# --------------------------------------------------------------------------------------------
# per-channel labels read off the signal (rt_eeg.xsim.labels)


def _tcp_with_seizure(seed=0, fs=250, dur=300, a=150.0, b=200.0, chans=(3, 4, 5), late=(6, 5.0),
                      gain=4.0):  # fmt: skip
    from scipy.signal import lfilter

    rng = np.random.default_rng(seed)
    # EEG-like (red) background: most of its line length is slow, as in real EEG
    x = lfilter([1.0], [1.0, -0.97], rng.standard_normal((dur * fs, 22)), axis=0) * 3.0
    t = np.arange(dur * fs) / fs
    sz = np.sin(2 * np.pi * 5.0 * t) * 10.0 * gain
    for j in chans:
        m = (t >= a) & (t < b)
        x[m, j] += sz[m]
    j, lag = late
    m = (t >= a + lag) & (t < b)
    x[m, j] += sz[m]
    return x


def test_channel_labels_find_the_involved_channels_and_their_spread():
    from rt_eeg.montage import TCP_22
    from rt_eeg.xsim.labels import channel_events

    x = _tcp_with_seizure()
    evs = channel_events(x, 250.0, list(TCP_22), [(150.0, 200.0)], 300.0)
    seiz = {e.channel: (e.start, e.stop) for e in evs if e.label == "seiz"}
    assert set(seiz) == {TCP_22[j] for j in (3, 4, 5, 6)}
    first = [seiz[TCP_22[j]][0] for j in (3, 4, 5)]
    assert min(first) == 150.0 and max(first) <= 152.0
    assert 154.0 <= seiz[TCP_22[6]][0] <= 157.0  # spread 5 s later
    assert all(s[1] == 200.0 for s in seiz.values())
    # every channel covered exactly once from 0 to the end
    for ch in TCP_22:
        mine = sorted((e.start, e.stop) for e in evs if e.channel == ch)
        assert mine[0][0] == 0.0 and mine[-1][1] == 300.0
        assert all(p[1] == q[0] for p, q in zip(mine, mine[1:], strict=False))


def test_a_subtle_seizure_still_lands_on_its_strongest_channels():
    from rt_eeg.montage import TCP_22
    from rt_eeg.xsim.labels import MIN_CHANNELS, channel_events

    x = _tcp_with_seizure(gain=2.0, chans=(10, 11), late=(12, 1.0))  # ratio about 1.2
    evs = channel_events(x, 250.0, list(TCP_22), [(150.0, 200.0)], 300.0)
    seiz = {e.channel for e in evs if e.label == "seiz"}
    assert len(seiz) == MIN_CHANNELS and seiz <= {TCP_22[j] for j in (10, 11, 12)}


def test_written_recordings_carry_per_channel_labels_the_store_reads(tmp_path):
    from rt_eeg.store import channel_labels

    job = next(j for j in plan_xcorpus("dip", 2.0, 2, seed=3) if j.seizures)
    a, b = job.seizures[0]
    job = replace(job, duration=int(b) + 60, seizures=((a, b),))
    write_xjobs(tmp_path, [job], progress=False)
    edf = tmp_path / "edf" / job.rel
    rec = open_recording(edf)
    lab = channel_labels(edf, edf.with_suffix(".csv_bi"), rec.ch_names, int(rec.duration))
    per_epoch = lab.sum(axis=1)
    assert per_epoch[: int(a) - 1].max() == 0 and per_epoch[int(b) + 1 :].max() == 0
    inside = per_epoch[int(a) + 1 : int(b) - 1]
    assert inside.min() >= 1  # every seizure epoch is on some channel
