"""Tests of the ``spec`` generator (statistical/spectral signal model) on generated signals."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from scipy import signal as ss

from rt_eeg.xsim import gen_spec
from rt_eeg.xsim.base import ELECTRODES
from rt_eeg.xsim.spec import seizures
from rt_eeg.xsim.spec.seizures import ALL_TYPES

SF = 256.0
IDX = {e: i for i, e in enumerate(ELECTRODES)}


def _patient(seed: int, **changes) -> dict:
    p = gen_spec.draw_patient(np.random.default_rng(seed))
    for path, value in changes.items():
        d = p
        keys = path.split("__")
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value
    return p


def _render(p, dur, seizures=(), seed=0, sfreq=SF):
    return gen_spec.render(p, dur, sfreq, list(seizures), np.random.default_rng(seed))


def _band(x, lo, hi, sfreq=SF):
    sos = ss.butter(4, [lo, hi], btype="bandpass", fs=sfreq, output="sos")
    return ss.sosfiltfilt(sos, x, axis=-1)


def _bad(r) -> set[int]:
    return {IDX[k.split(":")[1]] for _, _, k in r.events if k.startswith("bad_channel:")}


def test_contract_json_and_determinism():
    p = gen_spec.draw_patient(np.random.default_rng(7))
    assert json.loads(json.dumps(p)) == p
    assert gen_spec.NAME == "spec" and gen_spec.DESCRIPTION
    a = _render(p, 90.0, [(30.0, 55.0)], seed=3)
    a.check(90.0, SF, 1)
    b = _render(p, 90.0, [(30.0, 55.0)], seed=3)
    assert a.eeg.tobytes() == b.eeg.tobytes()
    assert a.seizure_types == b.seizure_types and a.events == b.events
    c = _render(p, 90.0, [(30.0, 55.0)], seed=4)
    assert a.eeg.tobytes() != c.eeg.tobytes()
    assert gen_spec.draw_patient(np.random.default_rng(8)) != p


@pytest.mark.parametrize("sfreq", [200.0, 250.0, 512.0])
def test_other_sampling_rates(sfreq):
    p = gen_spec.draw_patient(np.random.default_rng(11))
    r = _render(p, 30.0, [(10.0, 20.0)], seed=1, sfreq=sfreq)
    r.check(30.0, sfreq, 1)


def test_background_amplitude_in_clinical_range():
    for seed in range(6):
        p = gen_spec.draw_patient(np.random.default_rng(100 + seed))
        r = _render(p, 60.0, seed=seed)
        x = _band(r.eeg.astype(float), 0.5, 45.0)
        # Median of 2 s window rms: the background, not the occasional artifact.
        w = x[:, : 30 * 512].reshape(21, 30, 512)
        rms = np.median(np.sqrt(np.mean(w**2, axis=-1)), axis=1)
        good = [c for c in range(21) if c not in _bad(r)]
        assert np.all(rms[good] > 2.0) and np.all(rms[good] < 150.0), (seed, rms)
        assert 5.0 < np.median(rms[good]) < 100.0, (seed, rms)


def _line_length(x):
    return np.mean(np.abs(np.diff(x, axis=-1)), axis=-1)


def test_seizures_lie_inside_their_intervals():
    """Over every seizure type, the most involved channels' line length rises clearly
    during the interval relative to the minute before onset."""
    risen = {}
    for k, t in enumerate(ALL_TYPES):
        fam = "generalized" if t in ALL_TYPES[7:] else "focal"
        p = _patient(
            200 + k,
            seizure__primary=t,
            seizure__p_secondary=0.0,
            seizure__family=fam,
            artifacts__agitation=0.5,
        )
        r = _render(p, 110.0, [(70.0, 100.0)], seed=k)
        assert r.seizure_types == [t]
        x = _band(r.eeg.astype(float), 1.0, 30.0)
        pre = _line_length(x[:, int(10 * SF) : int(70 * SF)])
        ict = _line_length(x[:, int(72 * SF) : int(100 * SF)])
        risen[t] = float(np.sort(ict / pre)[-3:].mean())
    strong = [t for t, v in risen.items() if v > 1.5]
    assert len(strong) >= len(ALL_TYPES) - 2, risen
    assert min(risen.values()) > 1.1, risen


@pytest.mark.parametrize("t", ALL_TYPES)
def test_ictal_activity_starts_at_onset_and_motor_signs_stay_inside(t):
    """Rendered alone onto silence, a seizure leaves nothing before its onset; its muscle and
    movement requests lie inside the interval (only post-ictal change follows it)."""
    prof = _patient(300, seizure__primary=t, seizure__p_secondary=0.0)["seizure"]
    out = np.zeros((21, int(90 * SF)), np.float32)
    res = seizures.render(np.random.default_rng(1), prof, t, 30.0, 60.0, SF, out, 90.0)
    assert res["type"] == t
    assert not np.any(out[:, : int(30 * SF)])
    assert np.abs(out[:, int(30 * SF) : int(60 * SF)]).max() > 5.0
    for a in res["arts"]:
        assert 30.0 <= a.get("t0", 30.0) and a.get("t1", 60.0) <= 60.0
        assert all(30.0 < x < 60.0 for x in a.get("times", []))
    assert all(a >= 60.0 for a, _, _ in res["events"])


def test_no_seizure_no_seizure_events():
    p = gen_spec.draw_patient(np.random.default_rng(5))
    r = _render(p, 120.0, [], seed=2)
    assert r.seizure_types == []
    kinds = {k for _, _, k in r.events}
    assert not kinds & set(ALL_TYPES)
    assert "postictal" not in kinds


def test_states_change_the_spectrum():
    """Awake eyes-closed alpha dominates O1-O2 area; N3 brings high delta."""
    base = {
        "state__eyes_open_frac": 0.01,
        "artifacts__agitation": 0.3,
        "background__alpha_uv": 25.0,
    }
    awake = _patient(21, state__start=[1, 0, 0, 0, 0], state__dwell_s=[1e5] * 5, **base)
    deep = _patient(21, state__start=[0, 0, 0, 1, 0], state__dwell_s=[1e5] * 5, **base)
    deep["state"]["arousal_per_h"] = awake["state"]["arousal_per_h"] = 0.0
    a = _render(awake, 120.0, seed=1).eeg.astype(float)
    d = _render(deep, 120.0, seed=1).eeg.astype(float)
    o1 = IDX["O1"]
    assert np.std(_band(a[o1], 8, 13)) > 2 * np.std(_band(d[o1], 8, 13))
    fz = IDX["F3"]
    assert np.std(_band(d[fz], 0.5, 2.5)) > 2 * np.std(_band(a[fz], 0.5, 2.5))


def test_sleep_graphoelements_present_in_n2():
    p = _patient(31, state__start=[0, 0, 1, 0, 0], state__dwell_s=[1e5] * 5)
    p["state"]["arousal_per_h"] = 0.0
    r = _render(p, 180.0, seed=2)
    kinds = [k for _, _, k in r.events]
    assert kinds.count("spindle") >= 2
    assert "state_N2" in kinds


def test_artifacts_present_and_visible():
    p = _patient(
        41,
        artifacts__agitation=4.0,
        artifacts__blink_per_min=25.0,
        state__start=[1, 0, 0, 0, 0],
        state__eyes_open_frac=0.95,
    )
    r = _render(p, 180.0, seed=5)
    x = r.eeg.astype(float)
    kinds = [k for _, _, k in r.events]
    blinks = [a for a, _, k in r.events if k == "eye_blink"]
    emg = [(a, b) for a, b, k in r.events if k.startswith("emg_") and b - a > 0.5]
    assert len(blinks) >= 5 and emg and any(k.startswith("movement") for k in kinds)
    # Blinks: a positive frontal-polar deflection relative to the occiput.
    ref = next(IDX[e] for e in ("O2", "P4", "O1", "P3") if IDX[e] not in _bad(r))
    fp = _band(x[IDX["FP1"]] - x[ref], 0.3, 10.0)
    peak = [fp[int((t + 0.1) * SF) : int((t + 0.4) * SF)].max() for t in blinks if t < 178]
    assert np.median(peak) > 3 * np.median(np.abs(fp))
    # Muscle: high-frequency power rises in the burst.
    hf = _band(x, 30.0, 100.0) ** 2
    quiet = np.median(hf, axis=1)
    ratios = [np.max(hf[:, int(a * SF) : int(b * SF)].mean(axis=1) / quiet) for a, b in emg]
    assert np.median(ratios) > 3


def test_artifact_heavy_recording():
    calm = _patient(51, artifacts__agitation=0.3, state__start=[1, 0, 0, 0, 0])
    heavy = copy.deepcopy(calm)
    heavy["artifacts"]["agitation"] = 9.0
    hc = _band(_render(calm, 120.0, seed=6).eeg.astype(float), 30.0, 100.0)
    r = _render(heavy, 120.0, seed=6)
    hh = _band(r.eeg.astype(float), 30.0, 100.0)
    assert any(k == "artifact_heavy" for _, _, k in r.events)
    assert np.sqrt(np.mean(hh**2)) > 2 * np.sqrt(np.mean(hc**2))
