"""The tide generator (rt_eeg.xsim.gen_tide): contract, seizures where asked and stronger
than the background around them, an awake posterior alpha peak, and a tiny corpus."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from scipy import signal

from rt_eeg.xsim import gen_tide
from rt_eeg.xsim.base import ELECTRODES
from rt_eeg.xsim.corpus import GENERATORS, load_generator, plan_xcorpus, write_xjobs
from rt_eeg.xsim.tide.core import XYZ
from rt_eeg.xsim.tide.ictal import TYPES, draw_seizure_traits

FS = 256.0
IDX = {e: i for i, e in enumerate(ELECTRODES)}
#: The TCP bipolar chains a detector reads.
TCP = [("FP1", "F7"), ("F7", "T3"), ("T3", "T5"), ("T5", "O1"), ("FP2", "F8"), ("F8", "T4"),
       ("T4", "T6"), ("T6", "O2"), ("A1", "T3"), ("T3", "C3"), ("C3", "CZ"), ("CZ", "C4"),
       ("C4", "T4"), ("T4", "A2"), ("FP1", "F3"), ("F3", "C3"), ("C3", "P3"), ("P3", "O1"),
       ("FP2", "F4"), ("F4", "C4"), ("C4", "P4"), ("P4", "O2")]  # fmt: skip


def _patient(seed: int, kind: str | None = None, sleepiness: float | None = None) -> dict:
    p = gen_tide.draw_patient(np.random.default_rng(seed))
    if kind is not None:
        p["seizure"] = draw_seizure_traits(np.random.default_rng([seed, 1]), p["group"], kind)
    if sleepiness is not None:
        p["sleepiness"] = sleepiness
    return p


def _tcp_band(eeg: np.ndarray, lo: float = 1.0, hi: float = 20.0) -> np.ndarray:
    x = np.array([eeg[IDX[a]] - eeg[IDX[b]] for a, b in TCP], dtype=np.float64)
    sos = signal.butter(4, [lo, hi], btype="bandpass", fs=FS, output="sos")
    return signal.sosfiltfilt(sos, x, axis=1)


def test_registered_and_contract():
    assert "tide" in GENERATORS and load_generator("tide") is gen_tide
    assert gen_tide.NAME == "tide" and gen_tide.DESCRIPTION
    p = _patient(1)
    dur, sz = 97.3, [(20.0, 45.0), (70.0, 80.0)]
    out = gen_tide.render(p, dur, 250.0, sz, np.random.default_rng(4))
    out.check(dur, 250.0, 2)
    assert out.eeg.shape == (21, round(dur * 250.0)) and out.eeg.dtype == np.float32
    assert np.all(np.isfinite(out.eeg))
    # microvolt scale: tens of microvolts, not volts and not flat
    assert 2.0 < float(np.median(np.std(out.eeg, axis=1))) < 200.0
    again = gen_tide.render(p, dur, 250.0, sz, np.random.default_rng(4))
    assert np.array_equal(out.eeg, again.eeg) and out.events == again.events
    other = gen_tide.render(p, dur, 250.0, sz, np.random.default_rng(5))
    assert not np.array_equal(out.eeg, other.eeg)
    for a, b, kind in out.events:
        assert 0.0 <= a <= b <= dur and isinstance(kind, str)


def test_patients_are_json_and_seizure_types_one_per_seizure():
    for seed in range(40):
        p = gen_tide.draw_patient(np.random.default_rng(seed))
        assert json.loads(json.dumps(p)) == p
    p = _patient(3)
    sz = [(10.0, 20.0), (90.0, 130.0), (200.0, 206.0)]
    out = gen_tide.render(p, 240.0, FS, sz, np.random.default_rng(0))
    assert len(out.seizure_types) == 3 and set(out.seizure_types) <= set(TYPES)
    assert gen_tide.render(p, 60.0, FS, [], np.random.default_rng(0)).seizure_types == []


@pytest.mark.parametrize("seed", [11, 12])
def test_seizures_stand_out_from_the_background_around_them(seed):
    """Every seizure type, one patient each: 1-20 Hz power of the most affected TCP channel
    during the seizure against the minute before it."""
    ratios, near = {}, {}
    for i, kind in enumerate(TYPES):
        p = _patient(seed * 100 + i, kind, sleepiness=0.3)
        out = gen_tide.render(p, 200.0, FS, [(120.0, 180.0)], np.random.default_rng(seed + i))
        x = _tcp_band(out.eeg)
        sd = lambda a, b, x=x: x[:, int(a * FS) : int(b * FS)].std(axis=1)  # noqa: E731
        r = sd(120, 180) / sd(50, 110)
        ratios[kind] = float(r.max())
        # the most affected channel lies near the focus
        a, b = TCP[int(np.argmax(r))]
        focus = np.asarray(p["seizure"]["focus"])
        near[kind] = max(float(XYZ[IDX[a]] @ focus), float(XYZ[IDX[b]] @ focus))
    # 'subtle_focal' is low-amplitude by design: it must show, not stand out
    assert ratios.pop("subtle_focal") > 1.05, ratios
    assert min(ratios.values()) > 1.2, ratios
    assert float(np.median(list(ratios.values()))) > 2.0, ratios
    for kind in ("focal_temporal", "focal_frontal", "lvfa"):
        assert near[kind] > 0.5, (kind, near[kind])  # within 60 degrees


def test_nothing_ictal_outside_the_interval():
    """The same recording with and without its seizure: identical until the onset."""
    p = _patient(21, "focal_temporal")
    with_sz = gen_tide.render(p, 150.0, FS, [(60.0, 100.0)], np.random.default_rng(9))
    without = gen_tide.render(p, 150.0, FS, [], np.random.default_rng(9))
    i0 = int(60.0 * FS)
    assert np.array_equal(with_sz.eeg[:, :i0], without.eeg[:, :i0])
    assert not np.array_equal(with_sz.eeg[:, i0 : i0 + int(40 * FS)],
                              without.eeg[:, i0 : i0 + int(40 * FS)])  # fmt: skip


def test_awake_background_has_a_posterior_alpha_peak():
    for seed in range(30, 60):
        p = _patient(seed, sleepiness=0.0)
        if p["enceph"] == 0.0 and p["group"] == "adult":
            break
    out = gen_tide.render(p, 300.0, FS, [], np.random.default_rng(2))
    ec = [(a, b) for a, b, k in out.events if k == "state_awake_ec" and b - a > 4]
    assert sum(b - a for a, b in ec) > 20.0, out.events[:20]
    x = out.eeg.astype(np.float64)
    occ = x[IDX["O1"]] - x[IDX["CZ"]]
    spec = 0.0
    for a, b in ec:
        seg = occ[int(a * FS) + 256 : int(b * FS)]
        f, pxx = signal.welch(seg, FS, nperseg=512)
        spec = spec + pxx * seg.size
    band = (f >= 4) & (f <= 20)
    peak = f[band][np.argmax(spec[band])]
    assert abs(peak - p["alpha_f"]) < 1.5, (peak, p["alpha_f"])


def test_a_tiny_corpus_is_written(tmp_path):
    jobs = plan_xcorpus("tide", 0.2, 2, seed=3)
    jobs = [replace(j, duration=min(j.duration, 90),
                    seizures=tuple((a, b) for a, b in j.seizures if b < 85)) for j in jobs[:2]]  # fmt: skip
    summary = write_xjobs(tmp_path, jobs, progress=False)
    assert summary["files"] == 2 and summary["generator"] == "tide"
    for j in jobs:
        edf = tmp_path / "edf" / j.rel
        assert edf.exists() and edf.with_suffix(".csv_bi").exists()
        side = json.loads(edf.with_suffix(".xsim.json").read_text())
        assert side["generator"] == "tide" and len(side["seizures"]) == len(j.seizures)
