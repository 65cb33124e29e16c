"""The ``hawkes`` generator: contract, seizure placement and types, states, sample rates,
artifacts and the corpus writer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rt_eeg.xsim import corpus
from rt_eeg.xsim.base import ELECTRODES
from rt_eeg.xsim.hawkes.patient import SEIZURE_TYPES

E = {e: i for i, e in enumerate(ELECTRODES)}
TCP = [("FP1", "F7"), ("F7", "T3"), ("T3", "T5"), ("T5", "O1"), ("FP2", "F8"), ("F8", "T4"),
       ("T4", "T6"), ("T6", "O2"), ("A1", "T3"), ("T3", "C3"), ("C3", "CZ"), ("CZ", "C4"),
       ("C4", "T4"), ("T4", "A2"), ("FP1", "F3"), ("F3", "C3"), ("C3", "P3"), ("P3", "O1"),
       ("FP2", "F4"), ("F4", "C4"), ("C4", "P4"), ("P4", "O2")]  # fmt: skip


@pytest.fixture(scope="module")
def gen():
    return corpus.load_generator("hawkes")


def _patient(gen, seed, **over):
    pt = gen.draw_patient(np.random.default_rng(seed))
    pt.update(over)
    return pt


def _tcp_ll(eeg, sfreq):
    """Line length per 1 s epoch of the TCP channels, shape (22, n_epochs)."""
    fs = int(sfreq)
    x = np.stack([eeg[E[a]].astype(float) - eeg[E[b]] for a, b in TCP])
    n = x.shape[1] // fs
    return np.abs(np.diff(x[:, : n * fs].reshape(22, n, fs), axis=2)).sum(axis=2)


def test_registry_and_contract(gen):
    assert "hawkes" in corpus.GENERATORS and gen.NAME == "hawkes" and gen.DESCRIPTION
    pt = gen.draw_patient(np.random.default_rng(0))
    assert json.loads(json.dumps(pt)) == pt
    a = gen.render(pt, 60.0, 250.0, [(20.0, 35.0)], np.random.default_rng(7))
    a.check(60.0, 250.0, 1)
    b = gen.render(pt, 60.0, 250.0, [(20.0, 35.0)], np.random.default_rng(7))
    c = gen.render(pt, 60.0, 250.0, [(20.0, 35.0)], np.random.default_rng(8))
    assert np.array_equal(a.eeg, b.eeg) and a.events == b.events
    assert not np.allclose(a.eeg, c.eeg)
    rms = np.sqrt(np.mean(a.eeg[:, :4000].astype(float) ** 2, axis=1))  # before the seizure
    assert 3.0 < np.median(rms) < 150.0  # microvolts, EEG-like


def test_seizures_where_asked_and_only_there(gen):
    """The same recording with and without a seizure: identical until shortly before the
    seizure, a clear line-length rise on the best TCP channel inside it, and no rise after
    it (postictal slowing/suppression only)."""
    for seed in range(5):
        pt = _patient(gen, seed, artifact_scale=0.5)
        a = gen.render(pt, 160.0, 250.0, [(80.0, 120.0)], np.random.default_rng(seed + 50))
        b = gen.render(pt, 160.0, 250.0, [], np.random.default_rng(seed + 50))
        assert np.array_equal(a.eeg[:, : 60 * 250], b.eeg[:, : 60 * 250])
        ratio = _tcp_ll(a.eeg, 250.0) / _tcp_ll(b.eeg, 250.0)
        inside = ratio[:, 80:120].mean(axis=1)
        assert inside.max() > 1.3, (seed, a.seizure_types, inside.max())
        assert ratio[:, 121:160].mean(axis=1).max() < 1.15, (seed, a.seizure_types)


def test_seizure_types_drawn_from_the_documented_set(gen):
    seen = set()
    for seed in range(6):
        pt = _patient(gen, seed + 10, artifact_scale=0.3)
        r = gen.render(pt, 120.0, 200.0, [(10.0, 25.0), (50.0, 60.0), (90.0, 110.0)],
                       np.random.default_rng(seed))  # fmt: skip
        r.check(120.0, 200.0, 3)
        assert set(r.seizure_types) <= set(pt["seizure_types"]) <= set(SEIZURE_TYPES)
        seen |= set(r.seizure_types)
        for (_a, b), kind in zip([(10.0, 25.0), (50.0, 60.0), (90.0, 110.0)], r.seizure_types,
                                 strict=True):  # fmt: skip
            post = [e for e in r.events if e[2] == "postictal" and abs(e[0] - b) < 1e-6]
            assert bool(post) == (kind != "spike_wave")
    assert len(seen) >= 3


def test_states_change_and_sleep_is_slower(gen):
    """A sleepy patient passes through several listed states, and its deep-sleep epochs carry
    more delta than its wake epochs."""
    for seed in range(12):
        pt = _patient(gen, seed, sleep_drive=1.0, artifact_scale=0.0)
        r = gen.render(pt, 300.0, 128.0, [], np.random.default_rng(seed))
        segs = [(a, b, k[6:]) for a, b, k in r.events if k.startswith("state_")]
        kinds = {k for _a, _b, k in segs}
        if len(kinds) >= 2 and kinds & {"n2", "n3"} and kinds & {"awake_eo", "awake_ec"}:
            break
    else:
        pytest.fail("no recording with both wake and N2/N3")
    x = r.eeg[E["FZ"]].astype(float) - r.eeg[E["CZ"]] + r.eeg[E["F3"]] - r.eeg[E["C3"]]
    spec = np.abs(np.fft.rfft(x[: 300 * 128].reshape(300, 128), axis=1)) ** 2
    delta = spec[:, 1:4].sum(axis=1) / spec[:, 1:30].sum(axis=1)  # 1-3 Hz share per second

    def share(names):
        idx = [t for a, b, k in segs if k in names for t in range(int(a) + 8, int(b) - 8)]
        return np.mean(delta[idx]) if idx else np.nan

    assert share({"n2", "n3"}) > share({"awake_eo", "awake_ec"}) + 0.1


def test_sample_rates(gen):
    """256 and 512 Hz render the same EEG band content (not a resampled artefact)."""
    pt = _patient(gen, 3, artifact_scale=0.0)
    powers = []
    for sf in (256.0, 512.0):
        r = gen.render(pt, 60.0, sf, [(20.0, 40.0)], np.random.default_rng(1))
        r.check(60.0, sf, 1)
        x = r.eeg[:, : int(60 * sf)].astype(float)
        f = np.fft.rfftfreq(x.shape[1], 1.0 / sf)
        p = np.abs(np.fft.rfft(x - x.mean(axis=1, keepdims=True), axis=1)) ** 2 / x.shape[1]
        powers.append(p[:, (f > 1) & (f < 30)].sum(axis=1) / sf)
    ratio = powers[1] / powers[0]
    assert 0.5 < np.median(ratio) < 2.0


def test_artifacts_listed_and_visible(gen):
    """Eye blinks are listed and are large frontal (FP1/FP2) deflections, bigger than at O1."""
    pt = _patient(gen, 4, artifact_scale=1.5, sleep_drive=0.0)
    r = gen.render(pt, 240.0, 250.0, [], np.random.default_rng(3))
    kinds = {k for _a, _b, k in r.events}
    assert "eye_blink" in kinds and len(kinds - {k for k in kinds if k.startswith("state")}) >= 3
    blinks = [(a, b) for a, b, k in r.events if k == "eye_blink"]
    fp = r.eeg[E["FP1"]] + r.eeg[E["FP2"]] - r.eeg[E["O1"]] - r.eeg[E["O2"]]
    peaks = [fp[int(a * 250) : int(b * 250)].max() - np.median(fp) for a, b in blinks]
    assert np.median(peaks) > 60.0


def test_corpus_writer(gen, tmp_path):
    jobs = corpus.plan_xcorpus("hawkes", 0.04, 2, seed=3, sfreq=250)[:2]
    assert jobs and all(j.generator == "hawkes" for j in jobs)
    corpus.write_xjobs(tmp_path, jobs, progress=False)
    for j in jobs:
        edf = tmp_path / "edf" / j.rel
        assert edf.exists() and edf.with_suffix(".csv_bi").exists()
        assert edf.with_suffix(".csv").exists()
        doc = json.loads(edf.with_suffix(".xsim.json").read_text())
        assert doc["generator"] == "hawkes" and len(doc["seizures"]) == len(j.seizures)
        assert all(t in SEIZURE_TYPES for _a, _b, t in doc["seizures"])
