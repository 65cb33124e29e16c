"""Tests of the ``atlas`` xsim generator on the signals it renders.

Checked with ordinary estimates (rms, line length, spectra) against what the patterns are
clinically, never against numbers copied from the generator: the contract, determinism,
clinical amplitudes, seizure activity inside the requested intervals (and evolving there),
no seizure events where none were requested, periodic patterns kept out of seizures, and
artifacts present when drawn.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.signal import butter, sosfiltfilt, welch

from rt_eeg.xsim import gen_atlas as gen
from rt_eeg.xsim.base import ELECTRODES

SF = 256.0
FP1 = ELECTRODES.index("FP1")


def _patient(seed: int, **art) -> dict:
    p = gen.draw_patient(np.random.default_rng(seed))
    p["artifacts"].update(art)
    return p


def _bandpass(x, lo=1.0, hi=30.0, sf=SF):
    sos = butter(3, [lo, hi], btype="band", fs=sf, output="sos")
    return sosfiltfilt(sos, np.asarray(x, dtype=float), axis=-1)


def _line_length(x):
    return np.mean(np.abs(np.diff(x, axis=-1)), axis=-1)


def test_contract_and_json_patient():
    p = gen.draw_patient(np.random.default_rng(1))
    json.dumps(p)
    assert gen.NAME == "atlas" and gen.DESCRIPTION
    r = gen.render(p, 120.0, SF, [(40.0, 70.0)], np.random.default_rng(2))
    r.check(120.0, SF, 1)
    assert r.seizure_types[0] in gen.SEIZURE_TYPES
    for a, b, kind in r.events:
        assert 0.0 <= a <= b <= 120.0 and isinstance(kind, str)


@pytest.mark.parametrize("sfreq", [200.0, 250.0, 512.0])
def test_contract_other_rates(sfreq):
    p = gen.draw_patient(np.random.default_rng(7))
    r = gen.render(p, 61.3, sfreq, [(20.0, 35.0)], np.random.default_rng(3))
    r.check(61.3, sfreq, 1)


def test_deterministic():
    p = gen.draw_patient(np.random.default_rng(11))
    assert p == gen.draw_patient(np.random.default_rng(11))
    assert p != gen.draw_patient(np.random.default_rng(12))
    a = gen.render(p, 90.0, SF, [(30.0, 50.0)], np.random.default_rng(5))
    b = gen.render(p, 90.0, SF, [(30.0, 50.0)], np.random.default_rng(5))
    c = gen.render(p, 90.0, SF, [(30.0, 50.0)], np.random.default_rng(6))
    assert a.eeg.tobytes() == b.eeg.tobytes()
    assert a.events == b.events and a.seizure_types == b.seizure_types
    assert a.eeg.tobytes() != c.eeg.tobytes()


def test_background_amplitude_clinical():
    """Median 10-s rms (0.5-70 Hz) per electrode stays within clinical EEG amplitudes."""
    sos = butter(2, [0.5, 70.0], btype="band", fs=SF, output="sos")
    for seed in range(6):
        p = _patient(100 + seed, bad_channel_p=0.0)
        r = gen.render(p, 180.0, SF, [], np.random.default_rng(seed))
        x = sosfiltfilt(sos, r.eeg.astype(float), axis=1)
        win = x[:, : 18 * 2560].reshape(21, 18, 2560)
        rms = np.median(np.sqrt((win**2).mean(axis=2)), axis=1)
        assert np.all(rms > 3.0), (seed, rms.min())
        assert np.all(rms < 150.0), (seed, rms.max())
        assert np.median(rms) > 8.0


def test_every_seizure_type_rises_inside_its_interval():
    """Line length of the most involved channels rises against the minute before onset."""
    ratios = {}
    for k, kind in enumerate(gen.SEIZURE_TYPES):
        p = _patient(500 + k, load=0.3, bad_channel_p=0.0)
        p["seizure"]["types"] = [kind, kind]
        a, b = 65.0, 65.0 + 30.0 + 10 * (k % 4)
        r = gen.render(p, b + 5.0, SF, [(a, b)], np.random.default_rng(k))
        assert r.seizure_types == [kind]
        x = _bandpass(r.eeg)
        pre = _line_length(x[:, int((a - 60) * SF) : int(a * SF)])
        ict = _line_length(x[:, int(a * SF) : int(b * SF)])
        ratios[kind] = float(np.sort(ict / pre)[-3:].mean())
    assert all(v > 1.15 for v in ratios.values()), ratios
    clear = [v > 1.8 for v in ratios.values()]
    assert sum(clear) >= 0.8 * len(clear), ratios


def test_focal_seizure_evolves_in_frequency_and_field():
    """A temporal-lobe seizure slows from its onset to its end and recruits more channels."""
    slowing, spreading = 0, 0
    for seed in range(4):
        p = _patient(700 + seed, load=0.1, bad_channel_p=0.0)
        p["seizure"]["types"] = ["focal_rhythmic_theta"] * 2
        p["region"] = "mesial_temporal"
        a, b = 65.0, 155.0
        r = gen.render(p, 160.0, SF, [(a, b)], np.random.default_rng(seed))
        x = _bandpass(r.eeg, 1.0, 20.0)
        pre = _line_length(x[:, int((a - 60) * SF) : int(a * SF)])
        early = x[:, int((a + 3) * SF) : int((a + 23) * SF)]
        late = x[:, int((b - 25) * SF) : int((b - 5) * SF)]
        ch = int(np.argmax(_line_length(x[:, int(a * SF) : int(b * SF)]) / pre))
        f, pe = welch(early[ch], SF, nperseg=1024)
        _, pl = welch(late[ch], SF, nperseg=1024)
        band = (f > 1.0) & (f < 15.0)
        slowing += f[band][np.argmax(pe[band])] > f[band][np.argmax(pl[band])]
        n_early = np.sum(_line_length(early) / pre > 1.5)
        n_late = np.sum(_line_length(x[:, int((a + 40) * SF) : int((a + 60) * SF)]) / pre > 1.5)
        spreading += n_late >= n_early
    assert slowing >= 3 and spreading >= 3


def test_no_seizure_events_without_seizures():
    for seed in range(5):
        p = gen.draw_patient(np.random.default_rng(900 + seed))
        r = gen.render(p, 200.0, SF, [], np.random.default_rng(seed))
        r.check(200.0, SF, 0)
        kinds = {e[2] for e in r.events}
        assert not kinds & set(gen.SEIZURE_TYPES)
        assert not any("postictal" in k for k in kinds)


def test_periodic_patterns_stay_out_of_seizures():
    p = _patient(31)
    p["periodic"] = {"kind": "lpd", "freq": 1.0, "prevalence": 0.9, "amp_uv": 150.0,
                     "plus": "none", "side": "L", "region": "temporal", "run_min": 5.0}  # fmt: skip
    p["seizure"]["types"] = ["lpd_evolving", "lpd_evolving"]
    sz = [(200.0, 260.0), (500.0, 530.0)]
    r = gen.render(p, 700.0, SF, sz, np.random.default_rng(4))
    lpd = [(a, b) for a, b, k in r.events if k.startswith("lpd")]
    assert lpd
    for a, b in lpd:
        for x, y in sz:
            assert b <= x + 1e-6 or a >= y, (a, b, x, y)
    # The discharges run up to the onset that they accelerate into.
    assert any(abs(b - 200.0) < 1e-3 for _, b in lpd)


def test_blinks_show_at_fp1():
    p = _patient(41, load=1.0, bad_channel_p=0.0)
    p["night_p"], p["sleepiness"] = 0.0, 0.0
    p["background"]["enc"] = 0
    r = gen.render(p, 600.0, SF, [], np.random.default_rng(8))
    blinks = [(a, b) for a, b, k in r.events if k == "blink"]
    assert len(blinks) > 5
    x = _bandpass(r.eeg[FP1], 0.3, 15.0)
    base = np.median(np.abs(x))
    seen = [np.max(np.abs(x[int(a * SF) : int(b * SF)])) > 4 * base for a, b in blinks]
    assert np.mean(seen) > 0.8


def test_drawn_artifacts_are_in_the_signal():
    p = _patient(52, load=3.0, bad_channel_p=0.0, line_uv=5.0, ventilated=True, bed=3.0)
    r = gen.render(p, 900.0, SF, [], np.random.default_rng(9))
    kinds = {e[2] for e in r.events}
    assert {"ventilator", "bed_vibration"} <= kinds
    # Muscle: the high-frequency power of some electrode jumps during each EMG event.
    hf = _bandpass(r.eeg, 30.0, 100.0) ** 2
    floor = np.median(hf, axis=1)
    emg = [(a, b) for a, b, k in r.events if k == "emg" and b - a > 0.5]
    assert emg
    hits = [np.max(hf[:, int(a * SF) : int(b * SF)].mean(axis=1) / floor) > 3 for a, b in emg]
    assert np.mean(hits) > 0.8
    # Electrode pops: a step of tens of microvolts within a few samples on one electrode.
    pops = [a for a, _, k in r.events if k == "electrode_pop"]
    for a in pops[:10]:
        seg = r.eeg[:, int(a * SF) - 3 : int(a * SF) + 4].astype(float)
        assert np.max(np.abs(np.diff(seg, axis=1))) > 30
    # Mains: a spectral peak at the line frequency.
    f, pxx = welch(r.eeg[:, : 60 * 256].astype(float), SF, nperseg=512)
    k = np.argmin(np.abs(f - p["artifacts"]["line_hz"]))
    assert np.median(pxx[:, k] / np.median(pxx[:, k - 8 : k - 3], axis=1)) > 5


def test_heavy_recordings_carry_more_artifacts():
    def count(load):
        p = _patient(61, load=load)
        r = gen.render(p, 900.0, SF, [], np.random.default_rng(10))
        return sum(k in ("emg", "movement", "electrode_pop", "chewing") for _, _, k in r.events)

    assert count(4.0) > 2 * count(0.3)
