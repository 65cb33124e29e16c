"""Tests of the ``alpha_field`` background family (rt_eeg.sim.alpha_field): alpha extending over
the central and temporal chains, a counter-example to rhythmic alpha-range seizures.

Checked on rendered EEG in the bipolar chains a clinician reads (8-13 Hz share of the power
against the same seed without the family, in eyes-closed wakefulness), on the family's own
random stream (recordings without it keep their bytes: checked against the same recording
with the family excluded), and through ``rt-eeg simulate --require-families``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.signal import welch

from rt_eeg.cli import main
from rt_eeg.sim import alpha_field
from rt_eeg.sim.alpha_field import AlphaField, draw_alpha_field
from rt_eeg.sim.families import ALL_FAMILIES, GROUP_OF, read_families, resolve_families
from rt_eeg.sim.layout import EIDX
from rt_eeg.sim.recording import RecordingGenerator, plan_recording

SF = 256.0
WITHOUT = ALL_FAMILIES - {"alpha_field"}


def _render(seed, families, require=(), duration=200.0, state="awake"):
    plan = plan_recording(duration, SF, seed=seed, families=families, require=require,
                          state=state)  # fmt: skip
    gen = RecordingGenerator(plan)
    return gen, np.concatenate([eeg for _, eeg, _ in gen.blocks()]).astype(np.float64)


def alpha_ratio(x: np.ndarray, sfreq: float) -> float:
    """8-13 Hz power over 1-30 Hz power of ``x`` ``(n,)``."""
    f, p = welch(x, fs=sfreq, nperseg=int(2 * sfreq))
    return float(p[(f >= 8) & (f <= 13)].sum() / max(p[(f >= 1) & (f <= 30)].sum(), 1e-12))


def _holds(seed) -> bool:
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xA1F4]))
    return bool(rng.random() < alpha_field.PRESENCE)


def test_alpha_field_is_a_background_family():
    assert GROUP_OF["alpha_field"] == "background"
    assert "alpha_field" in resolve_families("background", None)
    assert "alpha_field" not in resolve_families(None, "alpha_field")


def test_absent_by_chance_the_recording_is_unchanged():
    """A recording that allows the family but does not draw it has the bytes of the same
    recording with the family excluded: the family draws on no stream but its own."""
    seed = next(s for s in range(100) if not _holds(s))
    gen_a, x_a = _render(seed, ALL_FAMILIES, state=None)
    gen_b, x_b = _render(seed, WITHOUT, state=None)
    assert gen_a.alpha_field is None and "alpha_field" not in gen_a.families_present()
    assert x_a.tobytes() == x_b.tobytes()


@pytest.mark.parametrize("seed", [2, 5])
def test_required_it_adds_alpha_on_its_chains_and_nothing_else(seed):
    gen_w, x_w = _render(seed, ALL_FAMILIES, require=("alpha_field",))
    gen_o, x_o = _render(seed, WITHOUT)
    assert "alpha_field" in gen_w.families_present()
    spec = gen_w.alpha_field.spec
    assert abs(spec.freq - gen_w.background.alpha_freq) < 1.5  # the patient's own rhythm
    # the field's first site and its neighbour: a chain that gains an alpha share
    site = alpha_field.LAYOUTS[spec.layout][0][0]
    other = {"C3": "F3", "C4": "F4", "T5": "T3", "T6": "T4", "P3": "C3", "P4": "C4"}[site]
    r_o = alpha_ratio(x_o[:, EIDX[other]] - x_o[:, EIDX[site]], SF)
    r_w = alpha_ratio(x_w[:, EIDX[other]] - x_w[:, EIDX[site]], SF)
    assert r_w > r_o + 0.1, (spec, r_o, r_w)
    # what it adds is alpha only, in the patient's band
    d = x_w - x_o
    assert alpha_ratio(d[:, EIDX[site]], SF) > 0.9
    # at the scalp it is on its field, small at the frontal poles
    rms = np.sqrt((gen_w.alpha_field.mixing.astype(np.float64) ** 2).sum(axis=0))
    assert rms[EIDX[site]] > 3.0 * rms[[EIDX["FP1"], EIDX["FP2"]]].max()


def test_it_follows_the_posterior_envelope_and_grows_in_drowsiness():
    plan = plan_recording(600.0, SF, seed=4, families=ALL_FAMILIES, require=("alpha_field",))
    gen = RecordingGenerator(plan)
    tl, src = gen.timeline, gen.alpha_field
    ratio = src.env.astype(np.float64) / np.maximum(tl.env["alpha"], 1e-6)
    awake = tl.awake > 0.99
    assert awake.any()
    np.testing.assert_allclose(ratio[awake & (tl.env["alpha"] > 1e-3)], 1.0, rtol=2e-2)
    drowsy = tl.drowsy > 0.99
    if drowsy.any():  # the anterior shift: drowsy_gain against the posterior 0.3
        want = src.spec.drowsy_gain / 0.3
        np.testing.assert_allclose(ratio[drowsy & (tl.env["alpha"] > 1e-3)], want, rtol=2e-2)


def test_it_is_reproducible_and_within_its_ranges():
    specs = [AlphaField.draw(np.random.default_rng(s), 10.0, 30.0) for s in range(200)]
    for s in specs:
        assert 7.5 <= s.freq <= 12.5 and abs(s.freq - 10.0) < 1.5
        assert alpha_field.AMP_UV[0] <= s.uv <= alpha_field.AMP_UV[1]
        assert s.layout in alpha_field.LAYOUTS and abs(s.asym) <= 0.2
        assert alpha_field.DROWSY_GAIN[0] <= s.drowsy_gain <= alpha_field.DROWSY_GAIN[1]
    assert {s.layout for s in specs} == set(alpha_field.LAYOUTS)
    _, x1 = _render(3, ALL_FAMILIES, require=("alpha_field",), duration=120.0)
    _, x2 = _render(3, ALL_FAMILIES, require=("alpha_field",), duration=120.0)
    assert x1.tobytes() == x2.tobytes()


def test_presence_follows_its_chance_and_the_allowed_families():
    plan = plan_recording(60.0, SF, seed=0, families=ALL_FAMILIES)
    tl = RecordingGenerator(plan).timeline
    allow = SimpleNamespace(allows=lambda f: True, require=frozenset())
    held = [draw_alpha_field(s, tl, SF, plan.profile, 10.0, allow) is not None for s in range(400)]
    assert 0.14 <= np.mean(held) <= 0.26
    assert held == [_holds(s) for s in range(400)]
    deny = SimpleNamespace(allows=lambda f: f != "alpha_field", require=frozenset())
    assert all(draw_alpha_field(s, tl, SF, plan.profile, 10.0, deny) is None for s in range(50))


def test_cli_requires_it_in_every_recording(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["simulate", "--out", str(out), "--hours", "0.1", "--patients", "2", "--seed", "3",
                 "--exclude-families", "seizure", "--require-families", "alpha_field",
                 "--no-progress"]) == 0  # fmt: skip
    edfs = sorted(out.rglob("*.edf"))
    assert edfs
    assert all("alpha_field" in read_families(e)["present"] for e in edfs)
    capsys.readouterr()
    assert main(["simulate", "--out", str(tmp_path / "e"), "--hours", "0.1", "--patients", "1",
                 "--require-families", "alpha_field", "--exclude-families", "alpha_field",
                 "--no-progress"]) == 2  # fmt: skip
    assert "alpha_field are excluded" in capsys.readouterr().err
