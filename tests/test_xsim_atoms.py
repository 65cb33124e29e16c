"""The ``atoms`` generator (rt_eeg.xsim.gen_atoms): contract, determinism, amplitudes,
seizures inside their intervals, artifacts present when drawn (render speed: tools/bench_xsim.py).

Everything is measured on generated signals; nothing is compared with stored results.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from rt_eeg.xsim import gen_atoms as G
from rt_eeg.xsim.atoms import fields as F
from rt_eeg.xsim.atoms.artifacts import Muscle
from rt_eeg.xsim.atoms.render import GABOR, TRANS, Scene, waveform
from rt_eeg.xsim.atoms.seizures import TYPES, render_seizure
from rt_eeg.xsim.base import ELECTRODES

FS = 256.0
I = {e: i for i, e in enumerate(ELECTRODES)}  # noqa: E741
BANANA = [
    ("FP1", "F7"),
    ("F7", "T3"),
    ("T3", "T5"),
    ("T5", "O1"),
    ("FP2", "F8"),
    ("F8", "T4"),
    ("T4", "T6"),
    ("T6", "O2"),
    ("T3", "C3"),
    ("C3", "CZ"),
    ("CZ", "C4"),
    ("C4", "T4"),
    ("FP1", "F3"),
    ("F3", "C3"),
    ("C3", "P3"),
    ("P3", "O1"),
    ("FP2", "F4"),
    ("F4", "C4"),
    ("C4", "P4"),
    ("P4", "O2"),
    ("FZ", "CZ"),
    ("CZ", "PZ"),
]
GENERALISED = {
    "absence_spike_wave",
    "atypical_spike_wave",
    "tonic_clonic",
    "electrodecremental",
    "polyspike_wave",
}


def _bipolar(x: np.ndarray) -> np.ndarray:
    return np.stack([x[I[a]] - x[I[b]] for a, b in BANANA])


def _patient(seed: int, stype: str | None = None, quiet: bool = False) -> dict:
    """A drawn patient; optionally forced to one seizure type, or with few artifacts."""
    p = G.draw_patient(np.random.default_rng(seed))
    if stype is not None:
        ep = p["epilepsy"]
        ep["primary"], ep["p_primary"] = stype, 1.0
        if stype in GENERALISED and not ep["generalised"]:
            ep["generalised"], ep["focus_region"] = True, "generalised"
            ep["centre"] = [float(v) for v in F.region_centre("frontal")]
    if quiet:
        a = p["artifacts"]
        a.update(emg=0.2, move=1e-4, chew=1e-5, tremor=False, patting=False, sweat=False)
    return p


def test_contract_determinism_and_purity():
    p = G.draw_patient(np.random.default_rng(11))
    assert json.loads(json.dumps(p)) == p  # JSON-serialisable, nothing lost
    assert G.draw_patient(np.random.default_rng(11)) == p
    assert G.draw_patient(np.random.default_rng(12)) != p
    assert G.NAME == "atoms" and isinstance(G.DESCRIPTION, str) and G.DESCRIPTION
    sz = [(30.0, 55.0), (120.0, 131.5)]
    np.random.seed(1)  # noqa: NPY002 (global state must not matter)
    a = G.render(p, 180.0, FS, sz, np.random.default_rng(5))
    np.random.seed(2)  # noqa: NPY002
    b = G.render(p, 180.0, FS, sz, np.random.default_rng(5))
    c = G.render(p, 180.0, FS, sz, np.random.default_rng(6))
    a.check(180.0, FS, 2)
    assert a.eeg.tobytes() == b.eeg.tobytes()
    assert a.seizure_types == b.seizure_types and a.events == b.events
    assert a.eeg.tobytes() != c.eeg.tobytes()
    assert all(t in TYPES for t in a.seizure_types)
    for s, e, k in a.events:
        assert isinstance(k, str) and s <= e


@pytest.mark.parametrize("sfreq", [250.0, 400.0, 512.0])
def test_other_sample_rates(sfreq):
    p = G.draw_patient(np.random.default_rng(3))
    r = G.render(p, 47.3, sfreq, [(10.0, 30.0)], np.random.default_rng(1))
    r.check(47.3, sfreq, 1)


def test_renderer_matches_analytic_atoms():
    """The multirate renderer reproduces atoms drawn directly at the full rate."""
    sc = Scene(20.0, FS)
    topo = np.zeros(21)
    topo[5] = 1.0
    atoms = [
        (GABOR, 4.0, 1.0, 10.3, 0.3, 0.5, 0.0),
        (GABOR, 9.0, 1.0, 1.5, 0.5, 0.0, 2.0),
        (TRANS, 14.0, 1.0, 0.01, 0.02, 0.0, 0.0),
        (TRANS, 17.0, 1.0, 0.1, 0.2, 0.0, 0.0),
    ]
    for kind, t, amp, a, b, c, k in atoms:
        sc.add(kind, t, amp, a, b, c, k, topo=topo)
    x = sc.render()
    tt = np.arange(sc.n) / FS
    ref = np.zeros(sc.n)
    for kind, t, amp, a, b, c, k in atoms:
        p = {
            n: np.array([[v]])
            for n, v in zip("a b c k ch sk".split(), (a, b, c, k, 0.0, 0.0), strict=True)
        }
        ref += amp * waveform(kind, (tt - t)[None], p)[0]
    assert np.max(np.abs(x[5] - ref)) < 0.02
    assert np.all(x[np.arange(21) != 5] == 0)


def test_background_amplitudes_are_clinical():
    rms = []
    for seed in range(8):
        p = G.draw_patient(np.random.default_rng(100 + seed))
        x = G.render(p, 60.0, FS, [], np.random.default_rng(seed)).eeg.astype(float)
        x -= x.mean(1, keepdims=True)
        r = x.std(1)
        rms.append(r)
        assert 5.0 < np.median(r) < 150.0
        assert np.mean((r > 3.0) & (r < 300.0)) > 0.85  # the odd bad or flat channel aside
    rms = np.array(rms)
    # amplitudes differ between patients and between electrodes
    assert np.std(np.log(np.median(rms, axis=1))) > 0.05
    assert np.median(np.std(np.log(rms), axis=1)) > 0.1


def test_no_seizure_no_seizure_events():
    for seed in range(3):
        p = G.draw_patient(np.random.default_rng(40 + seed))
        r = G.render(p, 120.0, FS, [], np.random.default_rng(seed))
        assert r.seizure_types == []
        kinds = {k for _a, _b, k in r.events}
        assert not any("ictal" in k or k in TYPES for k in kinds)


@pytest.mark.parametrize("stype", TYPES)
def test_seizure_atoms_stay_inside_the_interval(stype):
    """Rendered alone, a seizure is silent before its onset and clearly present inside."""
    p = _patient(7, stype)
    p["epilepsy"].update(p_muscle=0.0, p_automatism=0.0)
    sc = Scene(90.0, FS)
    render_seizure(
        sc, Muscle(sc, np.random.default_rng(1)), p, 20.0, 50.0, stype, np.random.default_rng(2)
    )
    x = sc.render()
    assert np.max(np.abs(x[:, : int(20.0 * FS) - 1])) < 1e-3
    inside = _bipolar(x[:, int(21 * FS) : int(49 * FS)].astype(float))
    assert np.max(inside.std(1)) > 8.0


def test_seizures_rise_above_the_minute_before():
    """Over the bipolar channels, seizure line length (or power) rises clearly relative to
    the 60 s before onset, for most morphologies."""
    clear = []
    for i, stype in enumerate(TYPES):
        p = _patient(20 + i, stype, quiet=True)
        start, stop = 65.0, 65.0 + 20.0 + 3.0 * i
        r = G.render(p, stop + 10.0, FS, [(start, stop)], np.random.default_rng(i))
        assert r.seizure_types == [stype]
        y = _bipolar(r.eeg.astype(float))
        a, b, c = int((start - 60) * FS), int(start * FS), int(stop * FS)
        ll = np.abs(np.diff(y, axis=1))
        ratio_ll = ll[:, b:c].mean(1) / ll[:, a:b].mean(1)
        ratio_pw = y[:, b:c].var(1) / y[:, a:b].var(1)
        clear.append(max(np.max(ratio_ll), np.max(ratio_pw)) > 1.8)
    assert np.mean(clear) >= 0.8, dict(zip(TYPES, clear, strict=True))


def test_artifacts_are_present_when_drawn():
    p = G.draw_patient(np.random.default_rng(9))
    a = p["artifacts"]
    a.update(blink_rate=0.5, emg=6.0)
    p["setting"] = "routine"
    r = G.render(p, 240.0, FS, [], np.random.default_rng(4))
    blinks = [s for s, _e, k in r.events if k == "eye_blink"]
    assert len(blinks) > 10
    x = r.eeg.astype(float)
    # blinks: large positive deflection at FP1/FP2, not at O1/O2
    fp = 0.5 * (x[I["FP1"]] + x[I["FP2"]]) - 0.5 * (x[I["O1"]] + x[I["O2"]])
    peaks = [
        fp[int(t * FS) : int((t + 0.3) * FS)].max() - fp[int((t - 0.5) * FS) : int(t * FS)].mean()
        for t in blinks
        if 1.0 < t < 239.0
    ]
    assert np.median(peaks) > 40.0
    # muscle: high-frequency power inside muscle events well above that outside them
    from scipy.signal import butter, sosfiltfilt

    hf = sosfiltfilt(butter(4, 30.0, "highpass", fs=FS, output="sos"), _bipolar(x), axis=1)
    mask = np.zeros(x.shape[1], dtype=bool)
    for s, e, k in r.events:
        if k.startswith("muscle"):
            mask[int(max(s, 0) * FS) : int(min(e, 240.0) * FS)] = True
    assert 0.02 < mask.mean() < 0.98
    assert np.max(hf[:, mask].std(1) / hf[:, ~mask].std(1)) > 2.0


def test_electrode_pops_are_steps_on_one_electrode(monkeypatch):
    """A flaky electrode's pops: a sudden jump on that electrode alone, decaying."""
    draw = G._draw_recording

    def flaky_c3(patient, rng):
        rec = draw(patient, rng)
        rec["flaky"], rec["heavy"] = [I["C3"]], 2.0
        return rec

    monkeypatch.setattr(G, "_draw_recording", flaky_c3)
    p = G.draw_patient(np.random.default_rng(5))
    r = G.render(p, 300.0, FS, [], np.random.default_rng(3))
    pops = [s for s, _e, k in r.events if k == "electrode_pop" and 1.0 < s < 299.0]
    assert pops
    x = r.eeg.astype(float)
    others = [I[e] for e in ("F3", "P3", "T3", "CZ")]
    jumps, elsewhere = [], []
    for t in pops:
        a, b = int((t - 0.05) * FS), int((t + 0.05) * FS)
        jumps.append(abs(x[I["C3"], b] - x[I["C3"], a]))
        elsewhere.append(max(abs(x[c, b] - x[c, a]) for c in others))
    assert np.median(jumps) > 60.0
    assert np.median(jumps) > 3.0 * np.median(elsewhere)


def test_heavy_recordings_exist_and_events_vary():
    """Some recordings are artifact-heavy: their count of muscle, movement, electrode and
    drift artifacts is several times that of a typical recording."""
    counts = []
    kinds: set[str] = set()
    for seed in range(16):
        p = G.draw_patient(np.random.default_rng(300 + seed))
        r = G.render(p, 75.0, FS, [], np.random.default_rng(seed))
        kinds |= {k.split("_")[0] for _s, _e, k in r.events}
        heavy = ("muscle", "movement", "electrode", "slow_drift", "chewing")
        counts.append(sum(k.startswith(heavy) for _s, _e, k in r.events))
    assert max(counts) > 4 * max(1.0, float(np.median(counts)))
    assert {"eye", "muscle", "state"} <= kinds
