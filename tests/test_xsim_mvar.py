"""The mvar generator (rt_eeg.xsim.gen_mvar): contract, determinism, seizures where asked
and only there, posterior alpha, mains hum, frontal blinks, MVAR coupling."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.signal import welch

from rt_eeg.xsim import gen_mvar as g
from rt_eeg.xsim.base import ELECTRODES

E = {e: i for i, e in enumerate(ELECTRODES)}


def _patient(seed=1, **over):
    p = g.draw_patient(np.random.default_rng(seed))
    p.update(over)
    return p


def _ll(eeg, fs):
    """1 s line length per channel, shape (21, n_seconds)."""
    fs = int(round(fs))
    k = eeg.shape[1] // fs
    x = eeg[:, : k * fs].astype(np.float64).reshape(21, k, fs)
    return np.abs(np.diff(x, axis=2)).sum(axis=2)


@pytest.mark.parametrize("sfreq", [200.0, 250.0, 256.0, 400.0, 512.0])
def test_contract_at_every_rate(sfreq):
    p = _patient(3)
    json.dumps(p)  # traits are JSON-serialisable
    dur = 75.3
    out = g.render(p, dur, sfreq, [(20.0, 45.0), (50.0, 58.0)], np.random.default_rng(0))
    out.check(dur, sfreq, 2)
    assert out.eeg.shape == (21, int(round(dur * sfreq))) and out.eeg.dtype == np.float32
    assert all(t in g.SEIZURE_TYPES for t in out.seizure_types)
    assert all(0 <= a <= b <= dur + 1e-6 and isinstance(k, str) for a, b, k in out.events)
    assert 2.0 < float(np.std(out.eeg)) < 300.0


def test_deterministic_and_seed_dependent():
    p = _patient(4)
    a = g.render(p, 60.0, 256.0, [(20.0, 40.0)], np.random.default_rng(7))
    b = g.render(p, 60.0, 256.0, [(20.0, 40.0)], np.random.default_rng(7))
    c = g.render(p, 60.0, 256.0, [(20.0, 40.0)], np.random.default_rng(8))
    assert a.eeg.tobytes() == b.eeg.tobytes() and a.events == b.events
    assert a.seizure_types == b.seizure_types
    assert not np.array_equal(a.eeg, c.eeg)
    assert g.draw_patient(np.random.default_rng(5)) == g.draw_patient(np.random.default_rng(5))
    assert g.draw_patient(np.random.default_rng(5)) != g.draw_patient(np.random.default_rng(6))


@pytest.mark.parametrize(
    "kind", ["evolving_focal", "lvfa_evolving", "spike_wave", "rhythmic_delta", "tonic_clonic"]
)
def test_rhythmic_seizure_is_where_asked_and_not_before(kind):
    fs, a, b = 256.0, 120.0, 165.0
    p = _patient(2, seizure_types=[kind], type_loyalty=1.0, artifact_rate=0.0, benign=[],
                 sleepiness=0.0)  # fmt: skip
    out = g.render(p, 200.0, fs, [(a, b)], np.random.default_rng(11))
    assert out.seizure_types == [kind]
    ll = _ll(out.eeg, fs)
    base = np.median(ll[:, 60:115], axis=1)
    ratio = ll[:, int(a) : int(b)].mean(axis=1) / base
    top = int(np.argmax(ratio))
    assert ratio[top] > 2.0
    # the involved channel is at its background before the seizure (10 s means)
    pre = ll[top, :110].reshape(-1, 10).mean(axis=1) / base[top]
    assert pre.max() < 1.6
    # and the seizure is off within a second of its end: it does not spill over the stop
    assert ll[top, int(b) + 1 : int(b) + 6].mean() / base[top] < 0.6 * ratio[top]


def test_no_seizure_requested_no_seizure_drawn():
    fs = 256.0
    p = _patient(2, seizure_types=["spike_wave"], type_loyalty=1.0, artifact_rate=0.0,
                 benign=[], sleepiness=0.0)  # fmt: skip
    out = g.render(p, 180.0, fs, [], np.random.default_rng(11))
    assert out.seizure_types == []
    ll = _ll(out.eeg, fs)
    win = ll.reshape(21, -1, 10).mean(axis=2) / np.median(ll, axis=1)[:, None]
    assert win.max() < 1.8  # compare: the same patient's spike-wave exceeds 2 (test above)


def test_awake_background_has_posterior_alpha():
    fs = 256.0
    p = _patient(6, sleepiness=0.0, artifact_rate=0.0, benign=[])
    out = g.render(p, 120.0, fs, [], np.random.default_rng(1))
    f, pxx = welch(out.eeg.astype(np.float64), fs=fs, nperseg=int(4 * fs), axis=1)
    band = (f >= 7) & (f <= 13)
    occ = pxx[[E["O1"], E["O2"]]].mean(axis=0)
    peak = f[band][np.argmax(occ[band])]
    assert abs(peak - p["freqs"]["alpha"]) < 1.0
    # a peak: above the 4-6 and 15-20 Hz shoulders
    assert occ[band].max() > 3 * occ[(f >= 4) & (f <= 6)].mean()
    assert occ[band].max() > 3 * occ[(f >= 15) & (f <= 20)].mean()
    front = pxx[[E["F3"], E["F4"], E["FP1"], E["FP2"]]].mean(axis=0)
    assert occ[band].sum() > 2 * front[band].sum()


@pytest.mark.parametrize("hz", [50, 60])
def test_mains_hum_at_the_patients_frequency(hz):
    fs = 256.0
    p = _patient(7, mains_hz=hz, mains_uv=3.0)
    out = g.render(p, 60.0, fs, [], np.random.default_rng(2))
    assert (0.0, 60.0, f"mains_{hz}hz") in out.events
    f, pxx = welch(out.eeg.astype(np.float64), fs=fs, nperseg=int(2 * fs), axis=1)
    m = pxx.mean(axis=0)
    at = m[np.argmin(np.abs(f - hz))]
    other = m[np.argmin(np.abs(f - (110 - hz)))]  # 60 for 50 and 50 for 60
    assert at > 20 * other


def test_blinks_are_frontal():
    fs = 256.0
    p = _patient(8, artifact_rate=12.0, artifact_weights=[1.0, 0, 0, 0, 0, 0, 0], sleepiness=0.0)
    out = g.render(p, 120.0, fs, [], np.random.default_rng(3))
    blinks = [(a, b) for a, b, k in out.events if k == "blink"]
    assert len(blinks) >= 5
    x = out.eeg.astype(np.float64)
    x = x - np.median(x, axis=1, keepdims=True)
    peak = np.array([np.abs(x[:, int(a * fs) : int(b * fs) + 1]).max(axis=1) for a, b in blinks])
    fp = peak[:, [E["FP1"], E["FP2"]]].mean()
    occ = peak[:, [E["O1"], E["O2"], E["P3"], E["P4"]]].mean()
    assert fp > 60.0 and fp > 4 * occ


def test_coherence_falls_with_distance():
    from scipy.signal import coherence

    fs = 256.0
    p = _patient(9, sleepiness=0.0, artifact_rate=0.0, benign=[], mains_uv=0.0)
    x = g.render(p, 120.0, fs, [], np.random.default_rng(4)).eeg.astype(np.float64)

    def coh(i, j):
        f, c = coherence(x[E[i]], x[E[j]], fs=fs, nperseg=int(2 * fs))
        return c[(f >= 1) & (f <= 30)].mean()

    assert coh("O1", "P3") > coh("O1", "FP2") + 0.1
    assert coh("C3", "F3") > coh("C3", "T6") + 0.1


@pytest.mark.parametrize("band", [(10.0, 1.0), (2.0, 2.0), (20.0, 6.0)])
def test_mvar_cross_term_sets_the_coherence_and_keeps_the_amplitude(band):
    """A source driven by another's delayed output with weight kappa: its coherence with the
    driver at the resonance is about kappa**2, its amplitude the one asked for."""
    from scipy.signal import coherence

    f0, bw = band
    fs, blk = 256.0, 512
    n = int(120 * fs)
    nb = n // blk + 1
    rng = np.random.default_rng(0)
    full = np.full(nb, 1.0)
    y0 = g._tvar2(rng.standard_normal(n), f0 * full, bw * full, 10 * full, blk, fs)
    drive = np.r_[np.zeros(3), y0[:-3]] / 10.0
    for kappa in (0.0, 0.5, 0.9):
        y1 = g._tvar2(rng.standard_normal(n), f0 * full, bw * full, 10 * full, blk, fs,
                      drive=kappa * drive if kappa else None, kappa=kappa)  # fmt: skip
        f, c = coherence(y0, y1, fs=fs, nperseg=512)
        assert abs(c[np.argmin(np.abs(f - f0))] - kappa**2) < 0.15
        assert 8.5 < np.std(y1) < 11.5
