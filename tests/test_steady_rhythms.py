"""Tests of the steady-rhythm family (rt_eeg.sim.steady_rhythms): rhythmic theta / delta runs
that never evolve and are never annotated, present only where a corpus requires them.

As in tests/test_fresh_families.py, the family is checked on the difference between a
recording with it and the same seed without it (exactly its signal); recordings that do not
require it must be the recordings the simulator made before it existed.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import periodogram

from rt_eeg.sim.corpus import optional_families
from rt_eeg.sim.families import ALL_FAMILIES, GROUP_OF, read_families
from rt_eeg.sim.layout import ELECTRODES
from rt_eeg.sim.recording import RecordingGenerator, plan_recording
from rt_eeg.sim.steady_rhythms import FAMILY, KINDS, STEADY_RENDERERS
from rt_eeg.sim.variety import KIND_FAMILY

SF = 250.0


def _generate(duration, seed, families, *, state=None, require=(), seizures=()):
    plan = plan_recording(duration, SF, seed=seed, families=families, state=state,
                          require=require, montage="01_tcp_ar", seizures=list(seizures))  # fmt: skip
    gen = RecordingGenerator(plan)
    return gen, np.concatenate([eeg for _, eeg, _ in gen.blocks()]).astype(np.float64)


def _peak(x, lo, hi):
    f, p = periodogram(x - x.mean(), SF, window="hann", nfft=max(8 * len(x), int(8 * SF)))
    m = (f >= lo) & (f <= hi)
    return f[m][np.argmax(p[m])]


def test_registered_as_an_opt_in_benign_family():
    assert GROUP_OF[FAMILY] == "benign" and FAMILY in optional_families()
    assert all(KIND_FAMILY[k] == FAMILY for k in KINDS) and set(STEADY_RENDERERS) == set(KINDS)


def test_allowed_but_not_required_draws_nothing_and_keeps_every_sample():
    """Opt-in: a corpus that allows every family but does not require this one is the corpus
    the simulator wrote before it existed, sample for sample."""
    kw = dict(seizures=[(200.0, 240.0)])
    gen_a, xa = _generate(600.0, 4, ALL_FAMILIES, **kw)
    gen_o, xo = _generate(600.0, 4, ALL_FAMILIES - {FAMILY}, **kw)
    assert not [tr for tr in gen_a.transients if tr.kind in KINDS]
    assert np.array_equal(xa, xo) and gen_a.families_present() == gen_o.families_present()


def test_required_changes_only_the_samples_of_its_runs_and_is_never_annotated():
    kw = dict(seizures=[(200.0, 240.0)])
    gen_w, xw = _generate(900.0, 7, ALL_FAMILIES, require={FAMILY}, **kw)
    gen_o, xo = _generate(900.0, 7, ALL_FAMILIES, **kw)
    runs = [tr for tr in gen_w.transients if tr.kind in KINDS]
    assert len(runs) >= 3
    assert [tr for tr in gen_w.transients if tr.kind not in KINDS] == gen_o.transients
    inside = np.zeros(len(xw), dtype=bool)
    for tr in runs:
        a = int(np.floor(tr.start * SF))
        inside[a : a + int(tr.duration * SF) + 1] = True
    assert np.array_equal(xw[~inside], xo[~inside]) and not np.array_equal(xw[inside], xo[inside])
    assert FAMILY in gen_w.families_present() and FAMILY not in gen_o.families_present()
    assert gen_w.plan.term_events() == gen_o.plan.term_events()


def _difference(seed, state, base):
    gen, xw = _generate(1200.0, seed, {base, FAMILY}, state=state, require={FAMILY})
    _, xo = _generate(1200.0, seed, {base}, state=state)
    v = gen.plan.variety
    return gen, (xw - xo) / (v.gain * np.asarray(v.elec_gain))[None, :]


@pytest.mark.parametrize("kind,lo,hi,where", [
    ("temporal_theta", 4.0, 7.5, {"T3", "T4", "A1", "A2", "F7", "F8", "T5", "T6"}),
    ("midline_theta", 5.0, 7.0, {"FZ", "CZ"}),
    ("irda", 1.5, 3.0, {"FP1", "FP2", "T3", "T4", "A1", "A2"}),
])  # fmt: skip
def test_each_run_holds_its_frequency_and_field_from_start_to_end(kind, lo, hi, where):
    """What makes them benign: the frequency of a run's first half is its last half's (a
    seizure's evolves), at the run's own frequency, with the maximum where the kind lives."""
    n = 0
    for seed in (1, 2, 3, 4):
        gen, d = _difference(seed, "drowsy", "drowsy")
        runs = [tr for tr in gen.transients if tr.kind in KINDS]
        for tr in runs:
            alone = not any(o is not tr and o.start < tr.stop and tr.start < o.stop for o in runs)
            if tr.kind != kind or tr.duration < 8.0 or tr.stop > 1190.0 or not alone:
                continue
            x = d[int((tr.start + 1.0) * SF) : int((tr.stop - 1.0) * SF)]
            k = int(np.argmax(x.std(axis=0)))
            assert ELECTRODES[k] in where, (kind, ELECTRODES[k])
            half = len(x) // 2
            f1, f2 = _peak(x[:half, k], 0.8 * lo, 1.2 * hi), _peak(x[half:, k], 0.8 * lo, 1.2 * hi)
            assert abs(f1 - tr.param) < 0.3 and abs(f2 - f1) < 0.3, (kind, tr.param, f1, f2)
            assert lo <= tr.param <= hi
            n += 1
    assert n >= 2, kind


def test_cli_requires_it_and_writes_it_in_the_sidecar(tmp_path):
    from rt_eeg.cli import main

    base = ["--hours", "0.3", "--patients", "2", "--seed", "2", "--no-progress"]
    assert main(["simulate", "--out", str(tmp_path / "r"), *base, "--require-families", FAMILY]) == 0
    assert main(["simulate", "--out", str(tmp_path / "n"), *base]) == 0
    req = [read_families(e)["present"] for e in (tmp_path / "r").rglob("*.edf")]
    plain = [read_families(e)["present"] for e in (tmp_path / "n").rglob("*.edf")]
    assert req and all(FAMILY in p for p in req) and not any(FAMILY in p for p in plain)
