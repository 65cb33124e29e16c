"""Tests of the clinical artifact families (rt_eeg.sim.clinical_artifacts): percussion,
pulse and glossokinetic.

As in tests/test_families.py, a family is checked on the difference between a recording
with it and the same seed without it (exactly the family's signal, after referencing), with
ordinary spectral, autocorrelation and spatial estimates of what the artifact is clinically.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import welch

from rt_eeg.cli import main
from rt_eeg.sim.clinical_artifacts import CLINICAL_PRESENCE
from rt_eeg.sim.families import ALL_FAMILIES, FAMILIES, read_families
from rt_eeg.sim.layout import DIST, EIDX, ELECTRODES
from rt_eeg.sim.recording import RecordingGenerator, plan_recording

SF = 256.0
NEW = frozenset(CLINICAL_PRESENCE)


def _generate(
    duration, seed, families, *, state=None, require=(), seizures=(), montage="01_tcp_ar"
):
    plan = plan_recording(duration, SF, seed=seed, families=families, state=state,
                          require=require, seizures=list(seizures), montage=montage)  # fmt: skip
    gen = RecordingGenerator(plan)
    return gen, np.concatenate([eeg for _, eeg, _ in gen.blocks()]).astype(np.float64)


def _difference(family, seed, duration, state="awake"):
    """(generator with the family, its signal: with minus without) for one seed."""
    gen, xw = _generate(duration, seed, {"awake_alpha", family}, state=state, require={family})
    _, xo = _generate(duration, seed, {"awake_alpha"}, state=state)
    return gen, xw - xo


def _events(gen, kind):
    return [tr for tr in gen.transients if tr.kind == kind]


def _gains(x, k):
    """Least-squares gain of every column of ``x`` (n, 21) relative to column ``k``."""
    return x.T @ x[:, k] / (x[:, k] @ x[:, k])


def _field_correlation(x):
    """Correlation, over the electrodes carrying at least a quarter of the largest one's rms
    (the largest itself left out), between each electrode's gain relative to the largest and
    its distance from it: strongly negative for a field that falls off from a source, near
    zero for leads that each shake on their own."""
    rms = x.std(axis=0)
    k = int(np.argmax(rms))
    on = rms > 0.25 * rms.max()
    on[k] = False
    return float(np.corrcoef(_gains(x, k)[on], DIST[k][on])[0, 1]), int(on.sum()) + 1


def _peak_share(x, sf=SF):
    """Peak frequency of each column of ``x`` (n, k), and the share of its power within
    0.3 Hz of the peak or of its second harmonic."""
    f, p = welch(x, sf, nperseg=min(int(8 * sf), len(x)), axis=0)
    pk = f[np.argmax(p, axis=0)]
    near = (np.abs(f[:, None] - pk[None, :]) < 0.3) | (np.abs(f[:, None] - 2 * pk[None, :]) < 0.3)
    return pk, (p * near).sum(axis=0) / p.sum(axis=0)


# --------------------------------------------------------------------------------------------
# registry and the unchanged corpora


def test_clinical_families_are_artifacts_and_separate_from_the_report_ones():
    assert NEW <= set(FAMILIES["artifact"]) and NEW <= ALL_FAMILIES
    from rt_eeg.sim.variety import KIND_FAMILY, PRESENCE

    assert NEW <= set(KIND_FAMILY.values())
    assert not NEW & set(PRESENCE)  # their presence is drawn on a stream of their own


@pytest.mark.parametrize(
    "seed,montage,require", [(3, "01_tcp_ar", {"percussion"}), (11, "02_tcp_le", NEW)]
)
def test_without_the_new_families_every_sample_outside_their_events_is_unchanged(
    seed, montage, require
):
    """Allowing the new families changes the samples of their own events and nothing else
    (the recording without them is bit-identical to what the simulator wrote before they
    existed: verified against the base commit when they were added)."""
    kw = dict(seizures=[(60.0, 110.0)], montage=montage)
    gen_w, xw = _generate(400.0, seed, ALL_FAMILIES, require=require, **kw)
    gen_o, xo = _generate(400.0, seed, ALL_FAMILIES - NEW, **kw)
    new = [tr for tr in gen_w.transients if tr.kind in NEW]
    assert {tr.kind for tr in new} >= require - {"glossokinetic"}  # awake, a few per hour
    assert [tr for tr in gen_w.transients if tr.kind not in NEW] == gen_o.transients
    inside = np.zeros(len(xw), dtype=bool)
    for tr in new:
        a = int(np.floor(tr.start * SF))
        inside[a : a + int(tr.duration * SF) + 1] = True
    assert not inside.all()
    assert np.array_equal(xw[~inside], xo[~inside])
    assert not np.array_equal(xw[inside], xo[inside])
    assert [f for f in gen_w.families_present() if f not in NEW] == gen_o.families_present()
    assert NEW.isdisjoint(gen_o.families_present())


def test_cli_families_and_exclude_families_and_the_sidecar(tmp_path):
    base = ["--hours", "0.5", "--patients", "3", "--seed", "1", "--no-progress"]
    assert main(["simulate", "--out", str(tmp_path / "all"), *base]) == 0
    assert main(["simulate", "--out", str(tmp_path / "without"), *base,
                 "--exclude-families", "percussion,pulse,glossokinetic"]) == 0  # fmt: skip
    assert main(["simulate", "--out", str(tmp_path / "only"), *base,
                 "--families", "percussion,pulse,background"]) == 0  # fmt: skip
    seen = {}
    for name in ("all", "without", "only"):
        root = tmp_path / name
        edfs = sorted(root.rglob("*.edf"))
        assert edfs
        seen[name] = {e.relative_to(root): read_families(e)["present"] for e in edfs}
    assert any("percussion" in p for p in seen["all"].values())
    assert any("pulse" in p for p in seen["all"].values())
    assert any("glossokinetic" in p for p in seen["all"].values())
    assert all(NEW.isdisjoint(p) for p in seen["without"].values())
    only = set().union(*seen["only"].values())
    assert (
        "percussion" in only
        and "pulse" in only
        and only <= {"percussion", "pulse"} | set(FAMILIES["background"])
    )
    # a recording that holds none of them is the same file whether they are allowed or not
    same = 0
    for rel, present in seen["all"].items():
        a, b = (tmp_path / "all" / rel).read_bytes(), (tmp_path / "without" / rel).read_bytes()
        assert (a == b) == NEW.isdisjoint(present), rel
        same += a == b
    assert 0 < same < len(seen["all"])


# --------------------------------------------------------------------------------------------
# what each artifact is


def test_percussion_is_one_stable_frequency_on_many_leads_with_no_field():
    corr = []
    for seed in (1, 2, 4):
        gen, d = _difference("percussion", seed, 150.0)
        assert gen.plan.term_events() == []  # an artifact, never a seizure
        evs = _events(gen, "percussion")
        assert evs and "percussion" in gen.families_present()
        for tr in evs:
            x = d[int((tr.start + 0.5) * SF) : int((tr.stop - 0.5) * SF)]
            rms = x.std(axis=0)
            on = rms > 0.25 * rms.max()
            assert on.sum() >= 8, rms.round(1)  # many electrodes at once
            pk, share = _peak_share(x[:, on])
            assert np.all(np.abs(pk - tr.param) < 0.2) and 3.0 <= tr.param <= 8.0
            assert share.min() > 0.9, share.round(2)  # narrow: one stable frequency
            g = _gains(x, int(np.argmax(rms)))
            assert (g < -0.2).sum() >= 2 and (g > 0.2).sum() >= 2  # both polarities
            c, _ = _field_correlation(x)
            corr.append(c)
            # switched on and off, not faded in: full size within 0.3 s of either end
            a, b = int(tr.start * SF), int(tr.stop * SF)
            k = int(np.argmax(rms))
            for edge in (d[a + int(0.3 * SF) : a + int(1.3 * SF), k],
                         d[b - int(1.3 * SF) : b - int(0.3 * SF), k]):  # fmt: skip
                assert np.abs(edge).max() > 0.7 * np.abs(x[:, k]).max()
    assert abs(np.mean(corr)) < 0.3, np.round(corr, 2)


def test_pulse_is_a_slow_sawtooth_at_the_heart_rate_on_one_electrode():
    for seed in (1, 2, 3):
        gen, d = _difference("pulse", seed, 120.0)
        (tr,) = _events(gen, "pulse")
        assert gen.plan.term_events() == [] and "pulse" in gen.families_present()
        rms = np.sort(d.std(axis=0))[::-1]
        top = int(np.argmax(d.std(axis=0)))
        assert ELECTRODES[top] == tr.site
        assert rms[0] > 5.0 * rms[2] and rms[1] < 0.7 * rms[0]  # one (and a neighbour at half)
        x = d[int((tr.start + 2) * SF) : int((tr.stop - 2) * SF), top]
        spec = np.abs(np.fft.rfft(x - x.mean(), 2 * len(x))) ** 2
        ac = np.fft.irfft(spec)[: len(x)]
        ac /= ac[0]
        lo, hi = int(SF / 2.0), int(SF / 0.6)
        lag = lo + int(np.argmax(ac[lo:hi]))
        assert abs(SF / lag - tr.param) < 0.08 and ac[lag] > 0.6, (SF / lag, tr.param, ac[lag])
        assert 0.8 <= tr.param <= 1.6
        assert abs(tr.param * 60.0 - gen.plan.profile.heart_bpm) < 0.05 * gen.plan.profile.heart_bpm
        # sawtooth: a fast stroke one way, a slow return (smoothed slope mostly of one sign)
        slope = np.diff(np.convolve(x, np.ones(8) / 8, "valid"))
        rising = float(np.mean(slope > 0))
        assert min(rising, 1.0 - rising) < 0.35, rising
        f, p = welch(x, SF, nperseg=int(8 * SF))
        assert p[f < 8.0].sum() > 0.97 * p.sum()  # slow


def test_glossokinetic_is_irregular_1_to_3_hz_frontal_and_awake_only():
    ratios, corr, found = [], [], 0
    for seed in range(1, 12):
        gen, d = _difference("glossokinetic", seed, 600.0)
        for tr in _events(gen, "glossokinetic"):
            found += 1
            x = d[int(tr.start * SF) : int(tr.stop * SF)]
            f, p = welch(x, SF, nperseg=min(int(4 * SF), len(x)), axis=0)
            band = p[(f >= 1.0) & (f <= 3.0)].sum(axis=0)
            front = band[[EIDX[e] for e in ("FP1", "FP2", "F7", "F8")]].mean()
            back = band[[EIDX[e] for e in ("P3", "P4", "O1", "O2")]].mean()
            ratios.append(front / back)
            k = int(np.argmax(band))
            assert ELECTRODES[k] in ("FP1", "FP2", "F7", "F8", "F3", "F4", "FZ")
            assert band[k] > 0.8 * p[:, k].sum()
            _, share = _peak_share(x[:, [k]])
            assert share[0] < 0.7  # not one sine
            corr.append(_field_correlation(x)[0])
        if found >= 5:
            break
    assert found >= 5
    assert min(ratios) > 2.0, np.round(ratios, 1)
    assert np.mean(corr) < -0.4, np.round(corr, 2)  # a field, unlike percussion
    for seed in (1, 5):  # asked for in sleep: none
        gen, _ = _generate(300.0, seed, {"sleep", "glossokinetic"}, state="sleep",
                           require={"glossokinetic"})  # fmt: skip
        assert not _events(gen, "glossokinetic")
