"""Tests of the ``simple`` generator (:mod:`rt_eeg.xsim.gen_simple`) on generated signals."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import signal

from rt_eeg.xsim import gen_simple as gen
from rt_eeg.xsim.base import ELECTRODES

FS = 256.0
IX = {e: i for i, e in enumerate(ELECTRODES)}


def _patient(seed: int, **traits) -> dict:
    p = gen.draw_patient(np.random.default_rng(seed))
    p.update(traits)
    return p


def _render(p: dict, dur: float, seizures, seed: int, fs: float = FS):
    return gen.render(p, dur, fs, list(seizures), np.random.default_rng(seed))


def _bad(r) -> set[int]:
    """Electrodes the recording declares bad (flat, noisy, bridged, popping)."""
    return {IX[k.rsplit("_", 1)[1]] for _a, _b, k in r.events if k.startswith("bad_channel")}


def _window_power(x: np.ndarray, a: float, b: float, fs: float = FS, win: float = 2.0):
    """Per channel median over ``win``-second windows of the variance in ``[a, b]``."""
    seg = x[:, int(a * fs) : int(b * fs)]
    w = int(win * fs)
    nw = seg.shape[1] // w
    return np.median(seg[:, : nw * w].reshape(seg.shape[0], nw, w).var(axis=2), axis=1)


def test_contract_at_several_rates():
    assert gen.NAME == "simple" and gen.DESCRIPTION
    for i, fs in enumerate((250.0, 256.0, 400.0, 512.0, 1000.0)):
        p = _patient(i)
        json.dumps(p)  # traits must be JSON-serialisable
        dur = 95.5 + i
        r = _render(p, dur, [(20.0, 50.0), (70.0, 80.0)], seed=i, fs=fs)
        r.check(dur, fs, 2)
        assert set(r.seizure_types) <= set(gen.SEIZURE_TYPES)
        for a, b, kind in r.events:
            assert 0.0 <= a <= b <= dur and isinstance(kind, str) and kind
        assert np.abs(r.eeg).max() < 5000.0


def test_deterministic_and_seed_dependent():
    assert gen.draw_patient(np.random.default_rng(7)) == gen.draw_patient(np.random.default_rng(7))
    assert gen.draw_patient(np.random.default_rng(7)) != gen.draw_patient(np.random.default_rng(8))
    p = _patient(7)
    a = _render(p, 60.0, [(20.0, 35.0)], seed=3)
    b = _render(p, 60.0, [(20.0, 35.0)], seed=3)
    c = _render(p, 60.0, [(20.0, 35.0)], seed=4)
    assert a.eeg.tobytes() == b.eeg.tobytes()
    assert a.events == b.events and a.seizure_types == b.seizure_types
    assert a.eeg.tobytes() != c.eeg.tobytes()


def test_background_amplitude_is_clinical():
    sos = signal.butter(2, [0.5, 70], "bandpass", fs=FS, output="sos")
    medians = []
    for seed in range(8):
        r = _render(_patient(100 + seed), 120.0, [], seed)
        x = signal.sosfiltfilt(sos, r.eeg.astype(float), axis=1)
        rms = np.sqrt(_window_power(x, 10, 120))
        good = [c for c in range(len(ELECTRODES)) if c not in _bad(r)]
        assert np.all((rms[good] > 3.0) & (rms[good] < 200.0)), rms.round(1)
        medians.append(np.median(rms[good]))
    assert 5.0 < np.median(medians) < 150.0
    assert max(medians) / min(medians) > 1.3  # patients differ


def test_seizure_changes_nothing_before_onset_and_a_lot_inside():
    for seed, t in enumerate(gen.SEIZURE_TYPES):
        p = _patient(200 + seed, sz_types=[t, t], p_secondary=0.0)
        with_sz = _render(p, 100.0, [(50.0, 80.0)], seed)
        without = _render(p, 100.0, [], seed)
        assert with_sz.seizure_types == [t] and without.seizure_types == []
        d = with_sz.eeg.astype(float) - without.eeg
        assert np.all(d[:, : int(50 * FS)] == 0.0), t
        inside = d[:, int(50 * FS) : int(80 * FS)].std(axis=1).max()
        assert inside > 5.0, (t, inside)


@pytest.mark.parametrize("kind", gen.SEIZURE_TYPES)
def test_seizure_power_rises_over_the_preceding_minute(kind):
    """Band power (1-30 Hz, median of 2-s windows) of the most involved electrode, seizure
    against the 60 s before onset, over several patients and seizure lengths."""
    sos = signal.butter(4, [1, 30], "bandpass", fs=FS, output="sos")
    ratios = []
    for seed in range(6):
        p = _patient(300 + seed, sz_types=[kind, kind], p_secondary=0.0)
        dur = (12.0, 30.0, 60.0)[seed % 3]
        r = _render(p, 70.0 + dur, [(64.0, 64.0 + dur)], seed)
        x = signal.sosfiltfilt(sos, r.eeg.astype(float), axis=1)
        ratios.append((_window_power(x, 64, 64 + dur) / _window_power(x, 4, 64)).max())
    ratios = np.array(ratios)
    if kind == "subtle_focal":  # small on purpose, but there
        assert np.mean(ratios > 1.2) >= 0.5, ratios.round(2)
    else:
        assert np.mean(ratios > 2.0) >= 0.8, ratios.round(2)


def test_seizure_related_events_stay_with_seizures():
    for seed in range(4):
        p = _patient(400 + seed)
        none = _render(p, 200.0, [], seed)
        assert none.seizure_types == []
        assert not [k for _a, _b, k in none.events if k.startswith(("ictal", "postictal"))]
        sz = [(20.0, 80.0), (150.0, 180.0)]
        some = _render(p, 200.0, sz, seed)
        for a, b, k in some.events:
            if k.startswith("ictal"):
                assert any(s - 1e-3 <= a and b <= e + 1e-3 for s, e in sz), (a, b, k)
            if k.startswith("postictal"):
                assert any(abs(a - e) < 1e-3 for _s, e in sz), (a, b, k)


def _events(kind: str, seeds, dur: float = 300.0, **traits):
    """(recording, its events of ``kind``) over artifact-prone patients."""
    for seed in seeds:
        r = _render(_patient(seed, **{"art_prone": 3.0, **traits}), dur, [], seed)
        yield r, [(a, b) for a, b, k in r.events if k == kind and a > 12 and b < dur - 2]


def test_blinks_are_frontal():
    """Blink-locked average: a large frontopolar deflection, next to nothing occipital."""
    avgs = []
    for r, ev in _events("blink", range(500, 503), dur=240.0, setting="routine"):
        x = r.eeg.astype(float)
        for a, _b in ev:
            seg = x[:, int((a - 0.3) * FS) : int((a + 0.7) * FS)]
            avgs.append(seg - seg[:, : int(0.2 * FS)].mean(axis=1, keepdims=True))
    assert len(avgs) > 20
    avg = np.mean(avgs, axis=0)
    fp = np.abs(avg[[IX["FP1"], IX["FP2"]]]).max()
    occ = np.abs(avg[[IX["O1"], IX["O2"]]]).max()
    assert fp > 40.0 and fp > 5 * occ, (fp, occ)


def test_muscle_bursts_raise_high_frequency_power():
    sos = signal.butter(4, 30, "highpass", fs=FS, output="sos")
    ratios = []
    for r, ev in _events("emg", range(510, 513)):
        x = signal.sosfiltfilt(sos, r.eeg.astype(float), axis=1)
        for a, b in ev[:10]:
            if b - a < 0.5:
                continue
            during = x[:, int(a * FS) : int(b * FS)].var(axis=1)
            before = x[:, int((a - 10) * FS) : int((a - 0.5) * FS)].var(axis=1)
            ratios.append((during / (before + 1e-9)).max())
    assert len(ratios) > 10
    assert np.median(ratios) > 3.0


def test_electrode_pops_are_single_channel_steps():
    steps, alone = [], []
    for r, ev in _events("electrode_pop", range(520, 524), art_prone=12.0):
        x = r.eeg.astype(float)
        for a, _b in ev:
            i = int(a * FS)
            jump = np.abs(x[:, i + int(0.03 * FS)] - x[:, i - int(0.05 * FS)])
            top = int(np.argmax(jump))
            steps.append(jump[top])
            alone.append(jump[top] > 3 * np.median(np.delete(jump, top)))
    assert len(steps) >= 5
    assert np.median(steps) > 40.0
    assert np.mean(alone) > 0.7  # one electrode, not a field


def test_some_recordings_are_artifact_heavy_and_some_have_bad_channels():
    kinds = set()
    for seed in range(20):
        r = _render(_patient(600 + seed), 60.0, [], seed)
        kinds |= {k.split("_channel")[0] for _a, _b, k in r.events}
    assert "artifact_heavy_recording" in kinds and "bad" in kinds
