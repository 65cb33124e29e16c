"""Tests of the neural-mass generator (rt_eeg.xsim.gen_nmm) on generated signals."""

from __future__ import annotations

import numpy as np
import pytest

from rt_eeg.xsim import gen_nmm
from rt_eeg.xsim.base import ELECTRODES
from rt_eeg.xsim.nmm import mass, seizures

FS = 256.0
_E = {e: i for i, e in enumerate(ELECTRODES)}
TCP = [
    ("FP1", "F7"), ("F7", "T3"), ("T3", "T5"), ("T5", "O1"), ("FP2", "F8"), ("F8", "T4"),
    ("T4", "T6"), ("T6", "O2"), ("A1", "T3"), ("T3", "C3"), ("C3", "CZ"), ("CZ", "C4"),
    ("C4", "T4"), ("T4", "A2"), ("FP1", "F3"), ("F3", "C3"), ("C3", "P3"), ("P3", "O1"),
    ("FP2", "F4"), ("F4", "C4"), ("C4", "P4"), ("P4", "O2"),
]  # fmt: skip
SEIZURE_LABELS = set(seizures.FOCAL_TYPES) | set(seizures.GENERALISED_TYPES)
SEIZURE_LABELS |= {"focal_to_bilateral"}


def _bipolar(eeg: np.ndarray) -> np.ndarray:
    return np.stack([eeg[_E[a]] - eeg[_E[b]] for a, b in TCP])


def _render(seed: int, duration: float, szs: list, patient_edit=None):
    rng = np.random.default_rng(seed)
    patient = gen_nmm.draw_patient(rng)
    if patient_edit is not None:
        patient_edit(patient)
    return patient, gen_nmm.render(patient, duration, FS, szs, rng)


@pytest.fixture(scope="module")
def with_seizure():
    return _render(7, 150.0, [(70.0, 100.0)])


def test_contract(with_seizure):
    patient, rec = with_seizure
    rec.check(150.0, FS, 1)
    assert rec.seizure_types[0] in SEIZURE_LABELS
    assert gen_nmm.NAME == "nmm" and gen_nmm.DESCRIPTION
    for t0, t1, kind in rec.events:
        assert 0.0 <= t0 <= t1 <= 150.0 + 1e-6 and isinstance(kind, str)
    # The patient's traits survive a JSON round trip (the planner stores them).
    import json

    assert json.loads(json.dumps(patient)) == patient


@pytest.mark.parametrize("sfreq", [250.0, 200.0])
def test_other_sampling_rates(sfreq):
    rng = np.random.default_rng(3)
    rec = gen_nmm.render(gen_nmm.draw_patient(rng), 40.0, sfreq, [(15.0, 25.0)], rng)
    rec.check(40.0, sfreq, 1)


def test_deterministic_and_seed_dependent():
    a = _render(11, 30.0, [(10.0, 20.0)])[1]
    b = _render(11, 30.0, [(10.0, 20.0)])[1]
    c = _render(12, 30.0, [(10.0, 20.0)])[1]
    assert a.eeg.tobytes() == b.eeg.tobytes()
    assert a.events == b.events and a.seizure_types == b.seizure_types
    assert a.eeg.tobytes() != c.eeg.tobytes()


def test_background_amplitude_clinical():
    for seed in (21, 22, 23):
        rec = _render(seed, 60.0, [])[1]
        ref = rec.eeg - rec.eeg.mean(axis=0, keepdims=True)
        # Robust rms (MAD), so that brief artifacts do not dominate.
        med = np.median(ref, axis=1, keepdims=True)
        rms = 1.4826 * np.median(np.abs(ref - med), axis=1)
        live = rms > 1.0  # a flat (disconnected) electrode may be drawn
        assert live.sum() >= 19
        assert np.all((rms[live] > 3.0) & (rms[live] < 150.0)), np.round(rms, 1)
        assert 5.0 < np.median(rms) < 80.0


def _line_length(x: np.ndarray) -> np.ndarray:
    return np.abs(np.diff(x, axis=1)).mean(axis=1)


def test_seizures_inside_requested_intervals():
    """Over seizures of every morphology, the involved channels change clearly at onset."""
    kinds = [
        "focal_evolving",
        "lvfa_onset",
        "rhythmic_theta",
        "spike_wave",
        "gtc",
        "polyspike_wave",
    ]
    raised = 0
    for n, kind in enumerate(kinds):

        def force(p, kind=kind):
            ep = p["epilepsy"]
            ep["main_type"], ep["other_types"] = kind, [kind]
            ep["generalised"] = kind in seizures.GENERALISED_TYPES

        szs = [(50.0, 85.0)]
        _, rec = _render(100 + n, 100.0, szs, force)
        bip = _bipolar(rec.eeg)
        a, b = int(szs[0][0] * FS), int(szs[0][1] * FS)
        pre = bip[:, a - int(45 * FS) : a]
        ictal = bip[:, a:b]
        # Line length and power of the most-changed channels (the involved ones).
        ll_ratio = np.sort(_line_length(ictal) / _line_length(pre))[-4:].mean()
        pw_ratio = np.sort(ictal.var(axis=1) / pre.var(axis=1))[-4:].mean()
        raised += bool(ll_ratio > 1.3 or pw_ratio > 2.0)
    assert raised >= len(kinds) - 1


def test_no_seizure_events_without_seizures():
    rec = _render(31, 90.0, [])[1]
    assert rec.seizure_types == []
    assert not any(kind in SEIZURE_LABELS for _, _, kind in rec.events)


def test_artifacts_present_and_visible():
    found: set[str] = set()
    locked = []
    for seed in (41, 42, 43):

        def awake(p):
            p["background"]["sleepiness"] = 0.0

        _, rec = _render(seed, 120.0, [], awake)
        found |= {k.split("_")[0] for _, _, k in rec.events}
        fp = rec.eeg[_E["FP1"]] - rec.eeg[_E["O1"]]
        for t0, _, k in rec.events:
            i = int(t0 * FS)
            if k == "eye_blink" and i > FS and i + FS < fp.size:
                locked.append(fp[i : i + int(0.4 * FS)] - fp[i - int(0.2 * FS) : i].mean())
    assert {"eye", "muscle", "ecg"} <= found or len(found) >= 5
    # Blink-locked average: a clear frontopolar positive deflection of tens of microvolts.
    assert len(locked) >= 5
    assert np.mean(locked, axis=0).max() > 40.0


def test_segments_join_seamlessly():
    """Overlapping parallel segments agree where they are cross-faded (background)."""
    lay = mass.make_layout(FS, int(60 * FS))
    n_p = 3
    ctrl = np.zeros((len(mass.PARAMS), n_p, lay.n_ctrl()), dtype=np.float32)
    ctrl[:] = np.array(
        [[3.45, 30, 10, 1, 90, 30], [3.4, 14, 6, 1, 90, 30], [3.3, 12, 8, 2, 90, 30]]
    ).T[:, :, None]
    drive = np.zeros((n_p, lay.n_drive()), dtype=np.float32)
    starts = np.array([0, 20])
    out = mass.integrate(lay, starts, 20, ctrl, drive, np.zeros((n_p, n_p)), 4, 5)
    opc = lay.out_per_chunk
    tail = out[0, :, 20 * opc :]
    head_ = out[1, :, : tail.shape[1]]
    assert np.max(np.abs(tail - head_)) < 0.05 * out.std()
