"""Tests of the Stuart-Landau network generator (:mod:`rt_eeg.xsim.gen_hopf`)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import signal

from rt_eeg.xsim import corpus, gen_hopf
from rt_eeg.xsim.base import ELECTRODES

IDX = {e: i for i, e in enumerate(ELECTRODES)}


def patient(seed=0, **over):
    p = gen_hopf.draw_patient(np.random.default_rng(seed))
    p.update(over)
    return p


def render(p, dur, sfreq, sz, seed):
    r = gen_hopf.render(p, dur, sfreq, sz, np.random.default_rng(seed))
    r.check(dur, sfreq, len(sz))
    return r


def line_length(x, sfreq, a, b):
    """Mean 1 s line length per channel over [a, b), shape (21,)."""
    seg = x[:, int(a * sfreq):int(b * sfreq)].astype(float)
    return np.abs(np.diff(seg, axis=1)).sum(axis=1) / (b - a)


def states_of(r):
    return [e for e in r.events if e[2].startswith("state_")]


def find(pred, p, dur, sfreq=250, tries=40):
    """First rng seed whose recording satisfies ``pred`` (the generator is deterministic)."""
    for s in range(tries):
        r = render(p, dur, sfreq, [], s)
        if pred(r):
            return r
    raise AssertionError("no seed gave the wanted recording")


def test_registered_and_patient_is_json():
    assert "hopf" in corpus.GENERATORS
    mod = corpus.load_generator("hopf")
    assert mod.NAME == "hopf" and isinstance(mod.DESCRIPTION, str)
    for s in range(5):
        json.loads(json.dumps(gen_hopf.draw_patient(np.random.default_rng(s))))


@pytest.mark.parametrize("sfreq", [200, 256, 400, 512])
def test_contract(sfreq):
    r = render(patient(1), 47.3, sfreq, [(10.0, 30.0)], 2)
    assert r.eeg.shape == (21, round(47.3 * sfreq)) and r.eeg.dtype == np.float32
    assert len(r.seizure_types) == 1 and r.seizure_types[0]
    for a, b, k in r.events:
        assert isinstance(k, str) and 0 <= a <= b <= 47.3 + 1e-6
    sd = r.eeg.std(axis=1)
    assert np.all(sd > 3) and np.all(sd < 500)  # microvolts, scalp-like


def test_deterministic_and_seed_dependent():
    p = patient(3)
    a = render(p, 30, 250, [(5, 20)], 7)
    b = render(p, 30, 250, [(5, 20)], 7)
    c = render(p, 30, 250, [(5, 20)], 8)
    assert a.eeg.tobytes() == b.eeg.tobytes() and a.events == b.events
    assert not np.array_equal(a.eeg, c.eeg)


@pytest.mark.parametrize("kind", ["focal_evolving", "rhythmic_theta", "spike_wave",
                                  "hemispheric"])
def test_seizure_only_where_asked(kind):
    p = patient(0, seizure_kinds=[kind, kind])
    sz = [(100.0, 150.0)]
    with_sz = render(p, 220, 250, sz, 1)
    without = render(p, 220, 250, [], 1)
    assert with_sz.seizure_types == [kind] and without.seizure_types == []
    # Identical streams: nothing differs before the seizure (up to one envelope step).
    d = np.abs(with_sz.eeg - without.eeg)
    assert d[:, : int(99.9 * 250)].max() == 0.0
    # The seizure raises the line length of its channels over the minute before it.
    base = line_length(with_sz.eeg, 250, 40, 100)
    ratio = line_length(with_sz.eeg, 250, 100, 150) / base
    ratio0 = line_length(without.eeg, 250, 100, 150) / line_length(without.eeg, 250, 40, 100)
    assert ratio.max() > 1.6
    assert ratio0.max() < 1.35 < ratio.max()
    # And it is over at the requested stop: the ictal difference is gone 1 s after.
    ictal = d[:, int(100 * 250):int(150 * 250)].std(axis=1)
    assert ictal.max() > 15.0


def test_background_awake_posterior_alpha():
    p = patient(2, sleepiness=0.0)

    def eyes_closed_start(r):
        st = states_of(r)
        return st[0][2] == "state_awake" and not any(
            k == "eyes_open" and a < 40 for a, b, k in r.events)

    r = find(eyes_closed_start, p, 40)
    f, pxx = signal.welch(r.eeg[:, :40 * 250], fs=250, nperseg=1000, axis=1)
    band = (f >= 3) & (f <= 20)
    for e in ("O1", "O2"):
        peak = f[band][np.argmax(pxx[IDX[e], band])]
        assert 7.5 <= peak <= 12.5
    alpha = (f >= 8) & (f <= 12)
    assert pxx[IDX["O1"], alpha].sum() > 2.5 * pxx[IDX["FP1"], alpha].sum()


def test_states_change_and_are_reported():
    p = patient(4, sleepiness=1.0)
    r = render(p, 2400, 200, [], 0)
    st = states_of(r)
    assert len({k for _, _, k in st}) >= 2
    assert st[0][0] == 0.0 and abs(st[-1][1] - 2400) < 1e-6
    for (_, b0, _), (a1, _, _) in zip(st, st[1:], strict=False):
        assert abs(b0 - a1) < 1e-6  # contiguous


def test_spindles_in_n2_are_central_sigma_bursts():
    p = patient(5, sleepiness=1.0)
    r = find(lambda r: states_of(r)[0][2] == "state_n2" and states_of(r)[0][1] >= 120,
             p, 120)
    sp = [(a, b) for a, b, k in r.events if k == "spindle"]
    assert len(sp) >= 4
    sos = signal.butter(4, [11, 15], btype="band", fs=250, output="sos")
    cz = signal.sosfiltfilt(sos, r.eeg[IDX["CZ"]].astype(float))
    mask = np.zeros(cz.size, bool)
    for a, b in sp:
        mask[int((a + 0.25 * (b - a)) * 250):int((b - 0.25 * (b - a)) * 250)] = True
    near = np.zeros(cz.size, bool)
    for a, b in sp:
        near[max(0, int((a - 1) * 250)):int((b + 1) * 250)] = True
    assert np.sqrt(np.mean(cz[mask] ** 2)) > 1.8 * np.sqrt(np.mean(cz[~near] ** 2))
    # Central more than occipital.
    o1 = signal.sosfiltfilt(sos, r.eeg[IDX["O1"]].astype(float))
    assert np.mean(cz[mask] ** 2) > 1.5 * np.mean(o1[mask] ** 2)


@pytest.mark.parametrize("mains", [50.0, 60.0])
def test_mains_hum_at_patient_frequency(mains):
    p = patient(6, mains_hz=mains, mains_uv=2.0)
    r = render(p, 30, 250, [], 3)
    f, pxx = signal.welch(r.eeg, fs=250, nperseg=1000, axis=1)
    m = pxx.mean(axis=0)
    at = m[np.argmin(np.abs(f - mains))]
    other = 110.0 - mains  # the other mains frequency
    assert at > 20 * np.median(m[(f > mains - 6) & (f < mains - 2)])
    assert at > 20 * m[np.argmin(np.abs(f - other))]


def test_blinks_are_frontal():
    p = patient(7, sleepiness=0.0, artifact_level=1.5)
    r = find(lambda r: sum(k == "blink" for _, _, k in r.events) >= 5, p, 120)
    bl = [(a, b) for a, b, k in r.events if k == "blink"]
    x = r.eeg.astype(float)
    amp = np.zeros(21)
    for a, b in bl:
        seg = x[:, int(a * 250):int(b * 250)]
        amp += np.abs(seg - np.median(x[:, max(0, int((a - 1) * 250)):int(a * 250)],
                                      axis=1, keepdims=True)).max(axis=1)
    for front in ("FP1", "FP2"):
        for back in ("O1", "O2", "P3", "P4"):
            assert amp[IDX[front]] > 3 * amp[IDX[back]]
