"""Tests of the ``drug_beta`` background family (rt_eeg.sim.drug_beta): the diffuse fast
activity of sedative medication, a counter-example to low-voltage fast seizure onsets.

Checked on rendered EEG in the bipolar chains a clinician reads (13-30 Hz share of the power
against the same seed without the family), on the family's own random stream (recordings
without it are the recordings made before it existed: their bytes match, checked below
against the same recording with the family excluded), and through ``rt-eeg simulate
--require-families``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.signal import welch

from rt_eeg.cli import main
from rt_eeg.sim import drug_beta
from rt_eeg.sim.drug_beta import DrugBeta, draw_drug_beta
from rt_eeg.sim.families import (
    ALL_FAMILIES,
    FAMILIES,
    GROUP_OF,
    read_families,
    resolve_families,
)
from rt_eeg.sim.layout import EIDX
from rt_eeg.sim.recording import RecordingGenerator, plan_recording

SF = 256.0
WITHOUT = ALL_FAMILIES - {"drug_beta"}


def _render(seed, families, require=(), duration=300.0):
    plan = plan_recording(duration, SF, seed=seed, families=families, require=require,
                          seizures=[(150.0, 200.0)])  # fmt: skip
    gen = RecordingGenerator(plan)
    return gen, np.concatenate([eeg for _, eeg, _ in gen.blocks()]).astype(np.float64)


def beta_ratio(x: np.ndarray, sfreq: float) -> float:
    """13-30 Hz power over 1-30 Hz power of ``x`` ``(n,)``."""
    f, p = welch(x, fs=sfreq, nperseg=int(2 * sfreq))
    return float(p[(f >= 13) & (f <= 30)].sum() / max(p[(f >= 1) & (f <= 30)].sum(), 1e-12))


def _bipolar(x, a, b, stop_s=140.0):
    """A bipolar derivation before the seizure: ``(n,)``."""
    n = int(stop_s * SF)
    return x[:n, EIDX[a]] - x[:n, EIDX[b]]


def test_drug_beta_is_a_background_family():
    assert GROUP_OF["drug_beta"] == "background"
    assert "drug_beta" in resolve_families("background", None)
    assert "drug_beta" not in resolve_families(None, "drug_beta")


def test_absent_by_chance_the_recording_is_unchanged():
    """A recording that allows the family but does not draw it has the bytes of the same
    recording with the family excluded: the family draws on no stream but its own."""
    seed = next(s for s in range(100) if not _holds(s))
    gen_a, x_a = _render(seed, ALL_FAMILIES)
    gen_b, x_b = _render(seed, WITHOUT)
    assert gen_a.drug_beta is None and "drug_beta" not in gen_a.families_present()
    assert x_a.tobytes() == x_b.tobytes()
    assert gen_a.families_present() == gen_b.families_present()


def _holds(seed) -> bool:
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xDB7A]))
    return bool(rng.random() < drug_beta.PRESENCE)


@pytest.mark.parametrize("seed", [1, 3])
def test_required_it_adds_frontocentral_beta_and_nothing_else(seed):
    gen_w, x_w = _render(seed, ALL_FAMILIES, require=("drug_beta",))
    gen_o, x_o = _render(seed, WITHOUT)
    assert "drug_beta" in gen_w.families_present()
    spec = gen_w.drug_beta.spec
    assert drug_beta.FREQ_HZ[0] <= spec.freq <= drug_beta.FREQ_HZ[1]
    # the frontocentral chains gain a clear beta share; the difference is beta only
    for a, b in (("F3", "C3"), ("F4", "C4")):
        r_o, r_w = beta_ratio(_bipolar(x_o, a, b), SF), beta_ratio(_bipolar(x_w, a, b), SF)
        assert r_w > r_o + 0.05 and r_w > 1.8 * r_o, (a, b, r_o, r_w)
    d = _bipolar(x_w, "F3", "C3") - _bipolar(x_o, "F3", "C3")
    assert beta_ratio(d, SF) > 0.8
    # at the scalp (before the reference) it is frontocentral, small at the occiput
    rms = np.sqrt((gen_w.drug_beta.mixing.astype(np.float64) ** 2).sum(axis=0))
    assert (
        rms[[EIDX["F3"], EIDX["F4"], EIDX["FZ"]]].min() > 2.0 * rms[[EIDX["O1"], EIDX["O2"]]].max()
    )


def test_it_is_reproducible_and_within_its_ranges():
    specs = [DrugBeta.draw(np.random.default_rng(s)) for s in range(200)]
    for s in specs:
        assert drug_beta.FREQ_HZ[0] <= s.freq <= drug_beta.FREQ_HZ[1]
        assert drug_beta.AMP_UV[0] <= s.uv <= drug_beta.AMP_UV[1]
        assert s.layout in drug_beta.LAYOUTS and abs(s.asym) <= 0.25
    assert {s.layout for s in specs} == set(drug_beta.LAYOUTS)
    _, x1 = _render(3, ALL_FAMILIES, require=("drug_beta",), duration=250.0)
    _, x2 = _render(3, ALL_FAMILIES, require=("drug_beta",), duration=250.0)
    assert x1.tobytes() == x2.tobytes()


def test_presence_follows_its_chance_and_the_allowed_families():
    plan = plan_recording(60.0, SF, seed=0, families=ALL_FAMILIES)
    tl = RecordingGenerator(plan).timeline
    allow = SimpleNamespace(allows=lambda f: True, require=frozenset())
    held = [
        draw_drug_beta(s, tl, SF, plan.profile.elec_gain, allow) is not None for s in range(400)
    ]
    assert 0.09 <= np.mean(held) <= 0.21
    assert held == [_holds(s) for s in range(400)]
    deny = SimpleNamespace(allows=lambda f: f != "drug_beta", require=frozenset())
    assert all(draw_drug_beta(s, tl, SF, plan.profile.elec_gain, deny) is None for s in range(50))


def test_an_electrodecrement_suppresses_it_with_the_background():
    """Added before the seizure reshapes the background: a low-voltage fast onset flattens the
    medication beta on its electrodes as it flattens the rest (the same recording rendered
    with the beta muted gives the beta alone)."""
    fams = (ALL_FAMILIES - set(FAMILIES["seizure"])) | {"low_voltage_fast"}
    plan = plan_recording(300.0, SF, seed=7, families=fams, require=("drug_beta",),
                          seizures=[(150.0, 200.0)])  # fmt: skip
    sz = plan.seizures[0]
    assert sz.family == "low_voltage_fast"
    full = np.concatenate([e for _, e, _ in RecordingGenerator(plan).blocks()])
    gen = RecordingGenerator(plan)
    gen.drug_beta.mixing[:] = 0.0  # same streams, no beta
    muted = np.concatenate([e for _, e, _ in gen.blocks()])
    added = (full - muted).astype(np.float64)
    idx = [EIDX[e] for e in sz.electrodes]
    before = added[int(100 * SF) : int(145 * SF), idx].std(axis=0)
    during = added[int(151 * SF) : int(160 * SF), idx].std(axis=0)
    assert before.min() > 1.0
    assert np.median(during / before) < 0.8 and (during / before).min() < 0.5


def test_cli_requires_it_in_every_recording(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["simulate", "--out", str(out), "--hours", "0.1", "--patients", "2", "--seed", "3",
                 "--exclude-families", "seizure", "--require-families", "drug_beta",
                 "--no-progress"]) == 0  # fmt: skip
    edfs = sorted(out.rglob("*.edf"))
    assert edfs
    assert all("drug_beta" in read_families(e)["present"] for e in edfs)
    capsys.readouterr()
    assert main(["simulate", "--out", str(tmp_path / "d"), "--hours", "0.1", "--patients", "1",
                 "--require-families", "sleep", "--no-progress"]) == 2  # fmt: skip
    assert "cannot require sleep" in capsys.readouterr().err
    assert main(["simulate", "--out", str(tmp_path / "e"), "--hours", "0.1", "--patients", "1",
                 "--require-families", "drug_beta", "--exclude-families", "drug_beta",
                 "--no-progress"]) == 2  # fmt: skip
    assert "drug_beta are excluded" in capsys.readouterr().err
    assert main(["simulate", "--out", str(tmp_path / "f"), "--require-families", "nonsense",
                 "--no-progress"]) == 2  # fmt: skip
    assert "--require-families: unknown family 'nonsense'" in capsys.readouterr().err
