"""The network-Epileptor generator: contract, determinism, seizures where (and only where)
asked, vigilance states, posterior alpha, mains hum and frontal blinks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

from rt_eeg.xsim import gen_epileptor as gen
from rt_eeg.xsim.base import ELECTRODES
from rt_eeg.xsim.epileptor import seizures
from rt_eeg.xsim.epileptor.seizures import TYPES

E = {e: i for i, e in enumerate(ELECTRODES)}


def _patient(seed: int = 0, **over) -> dict:
    p = gen.draw_patient(np.random.default_rng(seed))
    p.update(over)
    return p


def _quiet(p: dict) -> dict:
    """No artifacts, variants or interictal spikes: only background and seizures."""
    p = dict(p)
    p["artifacts"] = {k: 0.0 for k in p["artifacts"]} | {"hr_bpm": 60.0}
    p["variants"] = {}
    p["ied_per_min"] = 0.0
    return p


def _only(p: dict, kind: str) -> dict:
    p = dict(p)
    p["type_p"] = [1.0 if t == kind else 0.0 for t in TYPES]
    return p


def _line_length(x: np.ndarray, sfreq: float) -> np.ndarray:
    """1 s line length per channel, shape (21, n_seconds)."""
    fs = int(sfreq)
    k = x.shape[1] // fs
    return np.abs(np.diff(x[:, : k * fs].reshape(21, k, fs), axis=2)).sum(2)


@pytest.mark.parametrize("sfreq", [200, 256, 500])
def test_contract(sfreq):
    p = _patient(1)
    dur = 75.3
    r = gen.render(p, dur, sfreq, [(20.0, 50.0)], np.random.default_rng(2))
    r.check(dur, sfreq, 1)
    assert r.eeg.dtype == np.float32 and r.eeg.shape == (21, round(dur * sfreq))
    assert r.seizure_types[0] in TYPES
    for a, b, kind in r.events:
        assert 0.0 <= a <= b and isinstance(kind, str)
    assert 5.0 < np.median(r.eeg.std(axis=1)) < 150.0  # microvolts, scalp-like


def test_patient_json_and_no_seizure_contract():
    import json

    p = _patient(4)
    assert json.loads(json.dumps(p)) == p
    r = gen.render(p, 30.0, 250, [], np.random.default_rng(0))
    r.check(30.0, 250, 0)


def test_deterministic_and_seed_dependent():
    p = _patient(3)
    a = gen.render(p, 60.0, 250, [(10.0, 40.0)], np.random.default_rng(7))
    b = gen.render(p, 60.0, 250, [(10.0, 40.0)], np.random.default_rng(7))
    c = gen.render(p, 60.0, 250, [(10.0, 40.0)], np.random.default_rng(8))
    assert a.eeg.tobytes() == b.eeg.tobytes()
    assert a.events == b.events and a.seizure_types == b.seizure_types
    assert not np.array_equal(a.eeg, c.eeg)
    assert _patient(3) == p and _patient(5) != p


@pytest.mark.parametrize("kind", TYPES)
def test_seizure_inside_interval_only(kind):
    sfreq, a, b = 250, 100.0, 150.0
    p = _only(_quiet(_patient(11)), kind)
    r = gen.render(p, 200.0, sfreq, [(a, b)], np.random.default_rng(1))
    assert r.seizure_types == [kind]
    ll = _line_length(r.eeg, sfreq)
    inside = np.median(ll[:, int(a) + 2 : int(b) - 2], axis=1)
    before = np.median(ll[:, 10 : int(a) - 5], axis=1)
    ch = int(np.argmax(inside - before))  # where the seizure adds most
    assert inside[ch] / before[ch] > (1.5 if kind == "subtle_focal" else 2.0)
    # The seizure's own contribution is confined to [a, b), and is there from start to end.
    geo = gen._geometry(p)
    ictal, types, _ = seizures.render(p, geo, [(a, b)], 200 * sfreq, sfreq,
                                      np.random.default_rng(1), [])  # fmt: skip
    assert types == [kind]
    i0, i1 = int(a * sfreq), int(b * sfreq)
    assert not ictal[:, :i0].any() and not ictal[:, i1:].any()
    ll_i = _line_length(ictal, sfreq).max(axis=0)
    med = np.median(ll_i[int(a) : int(b)])
    assert (ll_i[int(a) + 5 : int(a + 0.7 * (b - a))] > 0.2 * med).all()  # sustained
    assert ll_i[int(b) - 6 : int(b)].max() > 0.05 * med  # still discharging near the end


def test_no_seizure_requested_no_seizure_activity():
    sfreq = 250
    p = _only(_quiet(_patient(12)), "focal_spread")
    with_sz = gen.render(p, 180.0, sfreq, [(60.0, 120.0)], np.random.default_rng(3))
    none = gen.render(p, 180.0, sfreq, [], np.random.default_rng(3))
    ll_s, ll_n = _line_length(with_sz.eeg, sfreq), _line_length(none.eeg, sfreq)
    ch = int(np.argmax(np.median(ll_s[:, 62:118], 1) / np.median(ll_n, 1)))
    seiz_level = np.median(ll_s[ch, 62:118])
    smooth = np.convolve(ll_n[ch], np.ones(5) / 5, mode="valid")
    assert smooth.max() < 0.6 * seiz_level
    # The seizure's rhythm: a 2-8 Hz peak that the seizure-free recording lacks.
    f, ps = signal.welch(with_sz.eeg[ch, 62 * sfreq : 118 * sfreq], sfreq, nperseg=1024)
    _, pn = signal.welch(none.eeg[ch], sfreq, nperseg=1024)
    band = (f >= 2) & (f <= 8)
    assert ps[band].sum() > 4 * pn[band].sum()


def _find_state(p, state, dur, min_len):
    for seed in range(40):
        r = gen.render(p, dur, 250, [], np.random.default_rng(seed))
        segs = [(a, b) for a, b, k in r.events if k == f"state_{state}" and b - a >= min_len]
        if segs:
            return r, segs[0]
    raise AssertionError(f"no {state} segment")


def test_awake_eyes_closed_has_posterior_alpha():
    p = _quiet(_patient(21, sleepiness=0.1, alpha_uv=12.0))
    r, (a, b) = _find_state(p, "awake_ec", 240.0, 40.0)
    x = r.eeg[:, int((a + 8) * 250) : int((b - 3) * 250)]
    x = x - x.mean(0)  # average reference
    f, pxx = signal.welch(x, 250, nperseg=1024, axis=1)
    band = (f >= 3) & (f <= 20)
    peak = f[band][np.argmax(pxx[E["O1"], band] + pxx[E["O2"], band])]
    assert abs(peak - p["alpha_hz"]) < 1.0
    alpha = (f >= 8) & (f <= 12)
    occ = pxx[[E["O1"], E["O2"]]][:, alpha].sum()
    front = pxx[[E["F3"], E["F4"]]][:, alpha].sum()
    assert occ > 2.0 * front


def test_vigilance_states_change_and_cover_recording():
    p = _patient(5, sleepiness=0.9)
    dur = 1800.0
    r = gen.render(p, dur, 200, [], np.random.default_rng(4))
    st = sorted((a, b, k) for a, b, k in r.events if k.startswith("state_"))
    assert len({k for _, _, k in st}) >= 2 and len(st) >= 3
    assert st[0][0] == 0.0 and abs(st[-1][1] - dur) < 1e-6
    for (_, b0, _), (a1, _, _) in zip(st[:-1], st[1:], strict=True):
        assert abs(b0 - a1) < 1e-6


def test_sleep_has_more_delta_than_wake():
    p = _quiet(_patient(6, sleepiness=1.0))
    for seed in range(40):
        r = gen.render(p, 900.0, 200, [], np.random.default_rng(seed))
        st = [(a, b, k) for a, b, k in r.events if k.startswith("state_")]
        deep = [(a, b) for a, b, k in st if k in ("state_n3", "state_n2") and b - a > 60]
        wake = [(a, b) for a, b, k in st if k.startswith("state_awake") and b - a > 60]
        if deep and wake:
            break
    else:
        raise AssertionError("no recording with both sleep and wake")

    def delta(seg):
        a, b = seg
        x = r.eeg[E["FZ"], int((a + 10) * 200) : int((b - 5) * 200)]
        f, pxx = signal.welch(x, 200, nperseg=800)
        return pxx[(f >= 0.5) & (f <= 3)].sum()

    assert delta(deep[0]) > 2.0 * delta(wake[0])


@pytest.mark.parametrize("mains", [50, 60])
def test_mains_hum_at_patient_frequency(mains):
    p = _quiet(_patient(7, mains_hz=mains))
    p["artifacts"] = dict(p["artifacts"], mains_uv=2.0)
    r = gen.render(p, 40.0, 250, [], np.random.default_rng(0))
    f, pxx = signal.welch(r.eeg, 250, nperseg=1000, axis=1)
    other = 110 - mains
    at = pxx[:, np.argmin(abs(f - mains))].sum()
    assert at > 20 * pxx[:, np.argmin(abs(f - other))].sum()
    assert any(k == f"mains_{mains}hz" for _, _, k in r.events)


def test_blinks_are_frontal():
    p = _quiet(_patient(8, sleepiness=0.0))
    p["artifacts"] = dict(p["artifacts"], blink=2.0)
    r, (a, b) = _find_state(p, "awake_eo", 180.0, 30.0)
    blinks = [s for s, _, k in r.events if k == "blink" and a <= s < b - 1]
    assert len(blinks) >= 3
    m = int(0.4 * 250)
    ep = np.stack([r.eeg[:, int(s * 250) : int(s * 250) + m] for s in blinks])
    ep = ep - ep[:, :, :1]  # deflection from the blink's start
    amp = np.abs(ep.mean(0)).max(axis=1)
    assert amp[E["FP1"]] > 50 and amp[E["FP2"]] > 50
    assert amp[E["O1"]] < 0.2 * amp[E["FP1"]] and amp[E["O2"]] < 0.2 * amp[E["FP2"]]
