"""Tests of the ``arousal`` background family (rt_eeg.sim.arousals): abrupt awakenings and
brief arousals from sleep, each with a burst of muscle tone.

Checked on the state weights the simulator mixes its background with, and on the rendered EEG
against the same seed without the family (ordinary band powers); recordings without the family
must be the recordings the simulator made before it existed.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from scipy.signal import welch

from rt_eeg.sim.arousals import BURST_S, RAMP_S, draw_arousals
from rt_eeg.sim.background import CTRL_SFREQ
from rt_eeg.sim.families import ALL_FAMILIES, GROUP_OF, resolve_families
from rt_eeg.sim.layout import EIDX
from rt_eeg.sim.recording import RecordingGenerator, plan_recording

SF = 256.0
WITHOUT = ALL_FAMILIES - {"arousal"}


def _gen(seed, families, duration=1800.0, render=False):
    plan = plan_recording(duration, SF, seed=seed, families=families, seizures=[(600.0, 660.0)])
    gen = RecordingGenerator(plan)
    if not render:
        return gen, None
    return gen, np.concatenate([eeg for _, eeg, _ in gen.blocks()]).astype(np.float64)


def _env_digest(gen) -> str:
    env = [
        (k, np.round(v.astype(np.float64), 4).tolist()) for k, v in sorted(gen.timeline.env.items())
    ]
    segs = [(n, round(a, 4), round(b, 4)) for n, a, b in gen.timeline.segments]
    return hashlib.sha256(repr((env, segs)).encode()).hexdigest()[:16]


def test_arousal_is_a_background_family():
    assert GROUP_OF["arousal"] == "background"
    assert "arousal" not in resolve_families(None, "arousal")
    assert "arousal" in resolve_families("background", None)


@pytest.mark.parametrize("seed,digest", [(0, "d2ed51865f0fb886"), (5, "f1da3b700dd5bd9f")])
def test_without_it_the_background_is_the_simulators_before_it(seed, digest):
    """Digests of the state sequence and every background envelope, computed with the
    simulator before the family existed (commit 8059c77; the rendered samples were also
    byte-identical there). Both seeds sleep, so an arousal drawn without the family, or a
    changed envelope, would show."""
    gen, _ = _gen(seed, WITHOUT)
    assert {n for n, _, _ in gen.timeline.segments} >= {"sleep"}
    assert gen.timeline.arousals == [] and "arousal" not in gen.families_present()
    assert _env_digest(gen) == digest


def _rise_s(awake: np.ndarray, at: float) -> float:
    """Seconds the awake weight takes from 0.1 to 0.9 around time ``at``."""
    i0, i1 = int((at - 40) * CTRL_SFREQ), int((at + 40) * CTRL_SFREQ)
    seg = awake[max(i0, 0) : i1]
    lo = np.flatnonzero(seg >= 0.1)[0]
    hi = np.flatnonzero(seg >= 0.9)[0]
    return (hi - lo) / CTRL_SFREQ


def test_awakenings_become_abrupt():
    gen_w, _ = _gen(5, ALL_FAMILIES)
    gen_o, _ = _gen(5, WITHOUT)
    wakings = [a for a in gen_w.timeline.arousals if a.stop is None]
    assert wakings, "seed 5 wakes from drowsiness once; the draw made it abrupt"
    for a in wakings:
        assert _rise_s(gen_w.timeline.awake, a.start) <= RAMP_S[1] + 0.5
        assert _rise_s(gen_o.timeline.awake, a.start) >= 10.0  # the smooth 20 s transition
    # the weights stay a mixture everywhere
    w = np.stack([gen_w.timeline.awake, gen_w.timeline.drowsy, gen_w.timeline.sleep])
    assert np.all(w >= -1e-12) and np.allclose(w.sum(axis=0), 1.0)


def _band(x: np.ndarray, lo: float, hi: float) -> float:
    f, p = welch(x, fs=SF, nperseg=int(SF), axis=0)
    return float(p[(f >= lo) & (f < hi)].sum(axis=0).mean())


def test_brief_arousals_desynchronise_sleep_and_bring_muscle():
    gen_w, xw = _gen(3, ALL_FAMILIES, render=True)
    gen_o, xo = _gen(3, WITHOUT, render=True)
    brief = [a for a in gen_w.timeline.arousals if a.stop is not None and a.stop - a.start >= 8]
    assert len(brief) >= 3
    # frontal and temporal electrodes (scalp muscle) and a central one
    cols = [EIDX[e] for e in ("F7", "T3", "F8", "T4", "C3")]
    delta_ratio, emg_ratio = [], []
    for a in brief:
        i0, i1 = int((a.start + a.ramp_s) * SF), int(a.stop * SF)
        delta_ratio.append(_band(xw[i0:i1, cols], 0.5, 4.0) / _band(xo[i0:i1, cols], 0.5, 4.0))
        i0, j1 = int(a.start * SF), int((a.start + max(a.burst_s, BURST_S[0])) * SF)
        emg_ratio.append(_band(xw[i0:j1, cols], 30.0, 70.0) / _band(xo[i0:j1, cols], 30.0, 70.0))
        # the same seconds without the family are still asleep
        assert gen_o.timeline.state_at(a.start + 1.0) == "sleep"
        assert gen_w.timeline.state_at(0.5 * (a.start + a.stop)) == "awake"
    # sleep's delta recedes (the simulator's awake background keeps a quarter of it)
    assert np.median(delta_ratio) < 0.85 and max(delta_ratio) < 0.95, delta_ratio
    assert np.median(emg_ratio) > 2.0, emg_ratio
    assert "arousal" in gen_w.families_present()


def test_arousals_are_drawn_reproducibly_and_apart():
    gen_a, _ = _gen(0, ALL_FAMILIES)
    gen_b, _ = _gen(0, ALL_FAMILIES)
    assert gen_a.timeline.arousals == gen_b.timeline.arousals
    starts = [a.start for a in gen_a.timeline.arousals]
    assert starts == sorted(starts)
    ends = [a.stop if a.stop is not None else a.start for a in gen_a.timeline.arousals]
    assert all(e < s for e, s in zip(ends, starts[1:], strict=False))


def test_no_arousal_without_sleep():
    gen, _ = _gen(0, WITHOUT)
    awake_only = type(gen.timeline)(gen.timeline.awake, gen.timeline.drowsy, gen.timeline.sleep,
                                    gen.timeline.eyes_closed, gen.timeline.env,
                                    [("awake", 0.0, 1800.0)], gen.timeline.mods)  # fmt: skip
    assert draw_arousals(awake_only, 1800.0, np.random.default_rng(1)) == []


def test_no_arousal_where_waking_is_not_allowed():
    """A corpus restricted to drowsiness and sleep (awake_alpha excluded) gets no awake
    stretches from arousals."""
    gen, _ = _gen(3, ALL_FAMILIES - {"awake_alpha"})
    assert gen.timeline.arousals == []
    assert {n for n, _, _ in gen.timeline.segments} <= {"drowsy", "sleep"}
    gen_w, _ = _gen(3, ALL_FAMILIES)
    assert gen_w.timeline.arousals  # the same seed wakes when it may
