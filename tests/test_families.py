"""Tests of the simulator's signal families (rt_eeg.sim.families and what renders them).

Each family is generated on its own in a short recording and checked with ordinary
spectral / autocorrelation estimates against what the family is clinically (its band, its
periodicity, where it is), never against numbers copied from the generator.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.signal import welch

from rt_eeg.cli import main
from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import read_csv, read_csv_bi
from rt_eeg.sim import SeizureSpec
from rt_eeg.sim.corpus import plan_corpus, simulate_corpus
from rt_eeg.sim.families import (
    ALL_FAMILIES,
    FAMILIES,
    GROUP_OF,
    read_families,
    resolve_families,
)
from rt_eeg.sim.layout import EIDX, ELECTRODES
from rt_eeg.sim.recording import RecordingGenerator, plan_recording
from rt_eeg.sim.seizure_families import BANDS
from rt_eeg.sim.variety import PRESENCE

OPTIONAL = frozenset(PRESENCE)  # families a recording holds only sometimes

SF = 256.0


def _generate(duration, seed, families, *, seizures=(), state=None, require=(), sfreq=SF):
    """Plan and render a family-mode recording: (plan, generator, (n, 21) uV)."""
    plan = plan_recording(duration, sfreq, seed=seed, seizures=list(seizures),
                          families=families, state=state, require=require)  # fmt: skip
    gen = RecordingGenerator(plan)
    data = np.concatenate([eeg for _, eeg, _ in gen.blocks()]).astype(np.float64)
    return plan, gen, data


def _seg(x, a, b, sf=SF):
    return x[int(a * sf) : int(b * sf)]


def _peak(x, lo, hi, sf=SF, seconds=4.0):
    """Frequency of the largest Welch PSD value of ``x`` (n,) in [lo, hi] Hz."""
    f, p = welch(x, sf, nperseg=int(seconds * sf))
    m = (f >= lo) & (f <= hi)
    return f[m][np.argmax(p[m])]


def _power(x, lo, hi, sf=SF):
    """Mean PSD in [lo, hi] Hz per column of ``x`` (n, k) or of ``x`` (n,)."""
    f, p = welch(x, sf, nperseg=int(min(2.0, x.shape[0] / sf) * sf), axis=0)
    return p[(f >= lo) & (f <= hi)].mean(axis=0)


def _autocorr_period(x, sf, lo_hz, hi_hz):
    """Lag (s) of the highest autocorrelation peak between 1/hi_hz and 1/lo_hz."""
    x = x - x.mean()
    ac = np.correlate(x, x, "full")[len(x) - 1 :]
    ac /= ac[0]
    a, b = int(sf / hi_hz), int(sf / lo_hz) + 1
    k = a + int(np.argmax(ac[a:b]))
    return k / sf, ac[k]


# --------------------------------------------------------------------------------------------
# the registry


def test_family_registry_is_well_formed():
    assert set(FAMILIES) == {"seizure", "background", "benign", "artifact"}
    names = [f for fams in FAMILIES.values() for f in fams]
    assert len(names) == len(set(names)) == len(ALL_FAMILIES)
    assert all(n.isidentifier() and n == n.lower() for n in names)
    for must in ("rhythmic_delta", "spike_wave", "low_voltage_fast", "muscle_obscured"):
        assert GROUP_OF[must] == "seizure"
    assert {"wicket", "rmtd", "fourteen_six", "sreda"} <= set(FAMILIES["benign"])
    assert {"patting", "line_noise", "sweat"} <= set(FAMILIES["artifact"])
    assert {"awake_alpha", "sleep", "breach"} <= set(FAMILIES["background"])


def test_resolve_families_parses_names_groups_and_rejects_unknown():
    assert resolve_families(None, None) == ALL_FAMILIES
    assert resolve_families("", None) == ALL_FAMILIES
    got = resolve_families("seizure, wicket", "spike_wave")
    assert got == (set(FAMILIES["seizure"]) - {"spike_wave"}) | {"wicket"}
    assert resolve_families(None, "artifact,benign") == set(FAMILIES["seizure"]) | set(
        FAMILIES["background"]
    )
    assert resolve_families("Rhythmic-Theta", None) == {"rhythmic_theta"}
    with pytest.raises(RtEegError, match="--exclude-families: unknown family 'spikewave'"):
        resolve_families(None, "blink,spikewave")
    with pytest.raises(RtEegError, match="--families: unknown family 'seizures'"):
        resolve_families("seizures", None)


def test_cli_rejects_an_unknown_family_in_one_line(tmp_path, capsys):
    rc = main(["simulate", "--out", str(tmp_path), "--families", "rhythmic_gamma", "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert "rhythmic_gamma" in err and "\n" not in err and "Traceback" not in err
    assert not list(tmp_path.rglob("*.edf"))


# --------------------------------------------------------------------------------------------
# seizure families


def _focus_channel(plan):
    w = np.asarray(plan.seizures[0].weights)
    return int(np.argmax(w))


@pytest.mark.parametrize("family", list(BANDS))
@pytest.mark.parametrize("seed", [1, 2])
def test_rhythmic_family_peaks_in_its_band_and_evolves(family, seed):
    lo, hi, _ = BANDS[family]
    start, stop = 20.0, 110.0
    plan, _, x = _generate(
        120.0, seed, {family}, seizures=[SeizureSpec(start, stop, family=family)]
    )
    (sz,) = plan.seizures
    assert sz.family == family and sz.label in ("fnsz", "cpsz", "gnsz", "tnsz")
    k = _focus_channel(plan)
    early = _peak(_seg(x[:, k], start + 8, start + 38), 1.0, 30.0)
    late = _peak(_seg(x[:, k], stop - 30, stop - 2), 1.0, 30.0)
    tol = 0.5 if hi < 13 else 1.5  # Welch bins are 0.25 Hz; fast rhythms wander more
    assert lo - tol <= early <= hi + tol and lo - tol <= late <= hi + tol, (early, late)
    assert abs(early - late) >= 0.5, (early, late)  # the frequency evolves
    # and it is a seizure: far more power in the band than before it on that electrode
    before = _power(_seg(x[:, k], 2, start - 2), lo, hi)
    during = _power(_seg(x[:, k], start + 8, stop - 2), lo, hi)
    assert during > 4.0 * before


def test_spike_wave_repeats_at_2_5_to_4_hz_with_spikes():
    start, stop = 20.0, 50.0
    plan, _, x = _generate(
        70.0, 3, {"spike_wave"}, seizures=[SeizureSpec(start, stop, family="spike_wave")]
    )
    k = _focus_channel(plan)
    seg = _seg(x[:, k], start + 3, stop - 2)
    period, height = _autocorr_period(seg, SF, 1.5, 6.0)
    assert 1 / 4.0 - 0.02 <= period <= 1 / 2.5 + 0.02, period
    assert height > 0.5  # strongly periodic
    # spikes: much more 12-30 Hz power inside than before (a slow sine would add none)
    assert _power(seg, 12, 30) > 3.0 * _power(_seg(x[:, k], 2, start - 2), 12, 30)


def test_polyspike_has_slow_periodicity_and_fast_spike_runs():
    start, stop = 20.0, 45.0
    plan, _, x = _generate(
        60.0, 4, {"polyspike"}, seizures=[SeizureSpec(start, stop, family="polyspike")]
    )
    k = _focus_channel(plan)
    seg = _seg(x[:, k], start + 3, stop - 2)
    # over a few seconds (the cycle slows over the seizure)
    period, height = _autocorr_period(_seg(x[:, k], start + 3, start + 9), SF, 1.2, 4.0)
    assert 1 / 3.6 <= period <= 1 / 1.4 and height > 0.4, (period, height)
    assert _power(seg, 10, 30) > 5.0 * _power(_seg(x[:, k], 2, start - 2), 10, 30)


def test_low_voltage_fast_onset_is_small_and_fast_then_larger_and_slower():
    start, stop = 20.0, 90.0
    for seed in (5, 6):
        plan, _, x = _generate(100.0, seed, {"low_voltage_fast"},
                               seizures=[SeizureSpec(start, stop, family="low_voltage_fast")])  # fmt: skip
        sz = plan.seizures[0]
        lvf = sz.params["lvf"]
        k = _focus_channel(plan)
        onset = _seg(x[:, k], start + 0.5, start + lvf)
        later = _seg(x[:, k], stop - 25, stop - 3)
        assert onset.std() < later.std(), (onset.std(), later.std())
        frac = [_power(s, 15, 30) / _power(s, 1, 30) for s in (onset, later)]
        assert frac[0] > 2.0 * frac[1], frac


def _involved(plan):
    return {ELECTRODES[i] for i, w in enumerate(plan.seizures[0].weights) if w > 0}


def test_fields_focal_spread_hemispheric_generalised_subtle():
    spec = dict(start=20.0, stop=80.0)
    sizes = {}
    for fam in ("subtle_focal", "focal_spread", "hemispheric", "generalised"):
        plan, _, x = _generate(
            90.0, 7, {fam}, seizures=[SeizureSpec(**spec, family=fam, focus="T3")]
        )
        inv = _involved(plan)
        sizes[fam] = len(inv)
        if fam == "hemispheric":  # the left side, not the right temporal chain
            assert {"T3", "C3", "F7"} <= inv and not inv & {"T4", "T6", "F8"}
        if fam == "subtle_focal":
            assert len(inv) <= 5 and "T3" in inv
            k = EIDX["T3"]
            assert _seg(x[:, k], 30, 78).std() < 3.0 * _seg(x[:, k], 2, 18).std()
        if fam == "focal_spread":  # recruits far electrodes only tens of seconds later
            rec = np.asarray(plan.seizures[0].recruit)
            far = [EIDX[e] for e in inv if e in ("T4", "C4", "F8", "P4", "O2", "T6", "F4")]
            assert far and min(rec[far]) > 5.0
    assert sizes["subtle_focal"] < sizes["hemispheric"] <= sizes["generalised"]
    assert sizes["subtle_focal"] < sizes["focal_spread"]


def test_muscle_obscured_adds_heavy_temporal_muscle_over_the_seizure():
    start, stop = 20.0, 70.0
    plan, _, x = _generate(80.0, 8, {"muscle_obscured"},
                           seizures=[SeizureSpec(start, stop, family="muscle_obscured")])  # fmt: skip
    temporal = [EIDX[e] for e in ("T3", "T4", "F7", "F8")]
    inside = _power(_seg(x[:, temporal], start + 6, stop - 2), 25, 80)
    before = _power(_seg(x[:, temporal], 2, start - 2), 25, 80)
    assert np.max(inside / before) > 20.0


def test_family_seizures_stay_tusz_labelled(tmp_path):
    simulate_corpus(tmp_path, hours=0.3, patients=3, seed=2, progress=False,
                    families=resolve_families("seizure,awake_alpha", None))  # fmt: skip
    labels, fams = set(), []
    for csv in tmp_path.rglob("*.csv"):
        labels |= {e.label for e in read_csv(csv).events}
        fams += json.loads(csv.with_suffix(".families.json").read_text())["seizure"]
    assert fams and set(fams) <= set(FAMILIES["seizure"])
    assert labels - {"bckg"} and labels - {"bckg"} <= {"fnsz", "cpsz", "gnsz", "absz", "tnsz",
                                                       "tcsz", "mysz"}  # fmt: skip


# --------------------------------------------------------------------------------------------
# benign variants and patting


def _events_of(gen, kind):
    return [tr for tr in gen.transients if tr.kind == kind]


@pytest.mark.parametrize(
    "family,kind,state,band,sites",
    [
        ("wicket", "wicket", "drowsy", (6.0, 11.0), ("T3", "T4")),
        ("rmtd", "rmtd", "drowsy", (5.0, 7.0), ("T3", "T4")),
        ("fourteen_six", "fourteen_six", "drowsy", (5.0, 15.0), ("T5", "T6")),
        ("sreda", "sreda", "awake", (4.5, 7.5), ("P3", "P4")),
    ],
)
def test_benign_variant_is_rhythmic_where_it_belongs_and_never_annotated(
    family, kind, state, band, sites
):
    for seed in range(1, 30):
        plan, gen, x = _generate(240.0, seed, {family, "drowsy", "awake_alpha"}, state=state,
                                 require={family})  # fmt: skip
        evs = [tr for tr in _events_of(gen, kind) if 5.0 < tr.start and tr.stop < 235.0]
        if evs:
            break
    else:
        pytest.fail(f"no {family} in 30 seeds")
    assert plan.seizures == [] and plan.term_events() == [] and plan.channel_events() == []
    assert family in gen.families_present()
    tr = max(evs, key=lambda e: e.duration)
    a = tr.start + (tr.param if kind == "sreda" else 0.0)  # SREDA: once it is rhythmic
    cols = [EIDX[s] for s in sites]
    lo, hi = (tr.param - 1.0, tr.param + 1.0) if kind != "sreda" else band
    if kind != "sreda":  # the train's own frequency is the variant's
        assert band[0] <= tr.param <= band[1]
    during = _power(_seg(x[:, cols], a, tr.stop), lo, hi).max()
    # baseline: the first 10 s free of any event of this kind
    every = _events_of(gen, kind)
    base_t = next(t for t in np.arange(2.0, 228.0, 1.0)
                  if not any(e.start < t + 10.0 and e.stop > t for e in every))  # fmt: skip
    before = _power(_seg(x[:, cols], base_t, base_t + 10.0), lo, hi).max()
    assert during > 3.0 * before, (during, before)


def test_posts_are_positive_occipital_transients_of_sleep():
    for seed in range(1, 20):
        plan, gen, x = _generate(180.0, seed, {"sleep", "posts_vertex"}, state="sleep",
                                 require={"posts_vertex"})  # fmt: skip
        evs = _events_of(gen, "posts")
        if len(evs) >= 3:
            break
    assert len(evs) >= 3 and plan.term_events() == []
    occ = x[:, [EIDX["O1"], EIDX["O2"]]].mean(axis=1)
    # average of the first 60 ms after each transient's first rise: surface positive
    peaks = []
    for tr in evs:
        i = int((tr.start + 0.05) * SF)
        peaks.append(occ[i : i + int(0.12 * SF)].max() - occ[i - int(0.2 * SF) : i].mean())
    assert np.median(peaks) > 10.0


def test_patting_makes_rhythmic_large_bursts_on_a_few_channels():
    gen, d = _with_and_without("patting", {"awake_alpha"}, state="awake", duration=180.0)
    _, _, without = _generate(180.0, gen.plan.seed, {"awake_alpha"}, state="awake")
    assert gen.plan.term_events() == []  # an artifact, never a seizure
    tr = max((t for t in gen.transients if t.kind == "patting"), key=lambda t: t.duration)
    inside = _seg(without + d, tr.start + 1, tr.stop - 1).std(axis=0)
    ratio = inside / _seg(without, tr.start + 1, tr.stop - 1).std(axis=0)
    big = np.flatnonzero(ratio > 2.0)
    assert 1 <= len(big) <= 5, ratio.round(1)  # large, on a few electrodes only
    k = int(np.argmax(ratio))
    period, height = _autocorr_period(_seg(d[:, k], tr.start + 1, tr.stop - 1), SF, 1.5, 9.0)
    assert abs(1.0 / period - tr.param) < 0.5, (1.0 / period, tr.param)
    assert height > 0.4
    assert 2.0 <= tr.param <= 8.0


# --------------------------------------------------------------------------------------------
# exclusion, sidecar, determinism


def _line_ratio(x, f0, sf):
    f, p = welch(x, sf, nperseg=int(2 * sf), axis=0)
    at = p[np.abs(f - f0) < 0.6].mean(axis=0)
    near = p[(np.abs(f - f0) > 3) & (np.abs(f - f0) < 8)].mean(axis=0)
    return np.median(at / near)


def test_excluded_families_never_appear_in_sidecar_or_signal(tmp_path):
    held_out = "rhythmic_theta,spike_wave,low_voltage_fast,generalised,line_noise,blink,sleep,wicket,patting"
    assert main(["simulate", "--out", str(tmp_path), "--hours", "0.25", "--patients", "3", "--seed",
                 "6", "--exclude-families", held_out, "--no-progress"]) == 0  # fmt: skip
    excluded = set(held_out.split(","))
    edfs = sorted(tmp_path.rglob("*.edf"))
    seen = set()
    import pyedflib

    for edf in edfs:
        side = read_families(edf)
        assert set(side) == {"seizure", "present", "sfreq", "montage", "gain"}
        assert not excluded & set(side["present"]) and not excluded & set(side["seizure"])
        assert set(side["seizure"]) <= set(side["present"])
        term = [e for e in read_csv_bi(edf.with_suffix(".csv_bi")).events if e.label == "seiz"]
        assert len(side["seizure"]) == len(term)
        assert 0.5 <= side["gain"] <= 2.0 and side["montage"] == edf.parent.name
        seen |= set(side["present"])
        with pyedflib.EdfReader(str(edf)) as r:
            assert r.getSampleFrequency(0) == side["sfreq"]
            fs = side["sfreq"]
            eeg = np.stack([r.readSignal(i) for i in range(19)], axis=1)
        for f0 in (50.0, 60.0):  # no mains peak at all
            assert _line_ratio(eeg, f0, fs) < 3.0
    # the rest of the families still appear
    assert {"blink", "sleep", "line_noise"}.isdisjoint(seen) and {"emg", "ecg"} <= seen


def test_line_noise_is_present_exactly_when_the_signal_shows_a_mains_peak():
    seen = set()
    for seed in range(1, 9):
        _, gen, x = _generate(30.0, seed, {"line_noise", "awake_alpha"}, state="awake")
        present = "line_noise" in gen.families_present()
        seen.add(present)
        freq = gen.line.freq if gen.line is not None else 60.0
        assert present == (_line_ratio(x, freq, SF) > 3.0), (seed, present)
    assert seen == {True, False}  # some recordings are notch-filtered at acquisition


def test_no_seizure_family_means_no_seizures_and_same_times_otherwise():
    kw = dict(hours=0.5, patients=3, seed=9)
    every = plan_corpus(**kw)
    none = plan_corpus(**kw, families=resolve_families(None, "seizure"))
    some = plan_corpus(**kw, families=resolve_families(None, "rhythmic_theta,polyspike"))
    assert [j.rel for j in every] == [j.rel for j in none] == [j.rel for j in some]
    assert any(j.plan.seizures for j in every) and not any(j.plan.seizures for j in none)
    for a, b in zip(every, some, strict=True):  # same seizure times whatever is held out
        assert [(s.start, s.stop) for s in a.plan.seizures] == [
            (s.start, s.stop) for s in b.plan.seizures
        ]
        assert all(s.family not in ("rhythmic_theta", "polyspike") for s in b.plan.seizures)


def test_equal_seed_and_families_give_equal_bytes(tmp_path):
    args = ["--hours", "0.1", "--patients", "1", "--seed", "4", "--no-progress",
            "--families", "seizure,background,emg,patting,wicket"]  # fmt: skip
    for name in ("a", "b"):
        assert main(["simulate", "--out", str(tmp_path / name), *args]) == 0
    files = {}
    for name in ("a", "b"):
        root = tmp_path / name
        files[name] = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert files["a"] == files["b"]
    assert any(p.name.endswith(".families.json") for p in files["a"])


def test_from_annotations_respects_families_and_subtypes(tmp_path):
    from rt_eeg.io.annotations import Event, write_csv, write_csv_bi
    from rt_eeg.sim.corpus import plan_from_annotations

    tree = tmp_path / "tree" / "train" / "aaaaaaaa" / "s001_2003" / "01_tcp_ar"
    tree.mkdir(parents=True)
    bi = tree / "aaaaaaaa_s001_t000.csv_bi"
    write_csv_bi(bi, [Event(30.0, 50.0, "seiz"), Event(200.0, 260.0, "seiz")], 300.0)
    write_csv(bi.with_suffix(".csv"), [Event(30.0, 50.0, "absz", 1.0, "FP1-F7"),
                                       Event(200.0, 260.0, "fnsz", 1.0, "T3-T5")], 300.0)  # fmt: skip
    (job,) = plan_from_annotations(
        tmp_path / "tree", 1, families=resolve_families(None, "polyspike")
    )
    absz, fnsz = job.plan.seizures
    assert (absz.start, absz.stop, absz.label) == (30.0, 50.0, "absz")
    assert absz.family in ("spike_wave", "generalised")
    assert fnsz.label == "fnsz" and GROUP_OF[fnsz.family] == "seizure"
    with pytest.raises(RtEegError, match="no seizure family is allowed"):
        plan_from_annotations(tmp_path / "tree", 1, families=resolve_families("background", None))


# --------------------------------------------------------------------------------------------
# artifact and background families: the same seed with and without a family differs by
# exactly that family's signal, so its properties are checked on the difference


def _with_and_without(family, base, duration=120.0, **kw):
    for seed in range(1, 40):
        _, gen_w, xw = _generate(duration, seed, base | {family}, require={family} & OPTIONAL, **kw)
        if family in gen_w.families_present():
            break
    else:
        pytest.fail(f"no {family} in 40 seeds")
    _, gen_o, xo = _generate(duration, seed, base, **kw)
    assert family not in gen_o.families_present()
    return gen_w, xw - xo


def _low_fraction(d, f_cut, sf=SF):
    """Share of the power of ``d`` (n, k) below ``f_cut`` Hz (whole-signal FFT)."""
    p = np.abs(np.fft.rfft(d, axis=0)) ** 2
    f = np.fft.rfftfreq(d.shape[0], 1.0 / sf)
    return p[f < f_cut].sum() / p.sum()


def _rms(d, names):
    return np.array([d[:, EIDX[e]].std() for e in names])


def test_blink_is_frontal_and_slow():
    _, d = _with_and_without("blink", {"awake_alpha"}, state="awake")
    assert _rms(d, ["FP1", "FP2"]).min() > 3.0 * _rms(d, ["O1", "O2"]).max()
    assert _low_fraction(d, 4.0) > 0.8


def test_lateral_eye_movements_are_opposite_at_f7_and_f8():
    _, d = _with_and_without("lateral_eye", {"awake_alpha"}, state="awake")
    assert np.corrcoef(d[:, EIDX["F7"]], d[:, EIDX["F8"]])[0, 1] < -0.5
    assert _low_fraction(d, 4.0) > 0.8


def test_emg_is_fast_and_over_scalp_muscles():
    _, d = _with_and_without("emg", {"awake_alpha"}, state="awake", duration=240.0)
    assert _low_fraction(d, 18.0) < 0.1
    top = ELECTRODES[int(np.argmax(d.std(axis=0)))]
    assert top in ("FP1", "FP2", "F7", "F8", "T3", "T4", "T5", "T6", "A1", "A2")


def test_chewing_is_muscle_in_rhythmic_1_to_2_hz_bursts():
    gen, d = _with_and_without("chewing", {"awake_alpha"}, state="awake", duration=300.0)
    tr = next(t for t in gen.transients if t.kind == "chew")
    x = _seg(d[:, EIDX["T3"]] + d[:, EIDX["T4"]], tr.start + 0.5, tr.stop - 0.5)
    assert _low_fraction(x[:, None], 15.0) < 0.2
    env = np.convolve(np.abs(x), np.ones(int(0.1 * SF)) / int(0.1 * SF), "same")
    period, height = _autocorr_period(env, SF, 0.8, 2.5)
    assert abs(1.0 / period - tr.param) < 0.3 and height > 0.3, (1.0 / period, tr.param, height)


def test_electrode_pop_hits_one_electrode():
    _, d = _with_and_without("electrode_pop", {"awake_alpha"}, state="awake", duration=300.0)
    r = np.sort(d.std(axis=0))[::-1]
    assert r[0] > 3.0 * r[2]  # one (or two, with a fault elsewhere) electrode(s)


@pytest.mark.parametrize("family,cut", [("drift", 1.0), ("sweat", 0.3)])
def test_drift_and_sweat_are_very_slow(family, cut):
    _, d = _with_and_without(family, {"awake_alpha"}, state="awake", duration=300.0)
    assert _low_fraction(d, cut) > 0.85
    assert np.abs(d).max() > 20.0


def test_ecg_is_periodic_at_the_heart_rate_on_ears_and_temporal_leads():
    gen, d = _with_and_without("ecg", {"awake_alpha"}, state="awake", duration=60.0)
    top = int(np.argmax(d.std(axis=0)))
    assert ELECTRODES[top] in ("A1", "A2", "T5", "T6", "T3", "T4")
    period, height = _autocorr_period(d[:, top], SF, 0.5, 2.0)
    # 55-100 beats per minute; heart-rate variability blurs the sharp QRS a little
    assert 0.55 <= period <= 1.15 and height > 0.3, (period, height)


def test_line_noise_is_a_mains_line():
    gen, d = _with_and_without("line_noise", {"awake_alpha"}, state="awake", duration=30.0)
    p = np.abs(np.fft.rfft(d, axis=0)) ** 2
    f = np.fft.rfftfreq(d.shape[0], 1.0 / SF)
    assert p[np.abs(f - gen.line.freq) < 1.0].sum() > 0.95 * p.sum()


def test_movement_is_large_slow_and_broad_with_muscle():
    gen, d = _with_and_without("movement", {"awake_alpha"}, state="awake", duration=300.0)
    tr = max((t for t in gen.transients if t.kind == "movement"), key=lambda t: t.duration)
    x = _seg(d, tr.start, tr.stop)
    rms = x.std(axis=0)
    assert (rms > 0.2 * rms.max()).sum() >= 4 and rms.max() > 30.0
    assert _low_fraction(x, 4.0) > 0.5 and _low_fraction(x, 20.0) < 0.99


def test_awake_alpha_is_posterior_8_to_12_hz():
    # 'awake' without the awake_alpha family is an awake background without alpha
    _, d = _with_and_without("awake_alpha", set(), state="awake")
    occ = d[:, [EIDX["O1"], EIDX["O2"]]].mean(axis=1)
    assert 8.0 <= _peak(occ, 2.0, 20.0) <= 12.0
    assert _rms(d, ["O1", "O2"]).min() > 2.0 * _rms(d, ["F3", "F4"]).max()


def test_drowsy_and_sleep_states_follow_their_families():
    _, _, awake = _generate(120.0, 3, {"awake_alpha"})
    _, _, drowsy = _generate(120.0, 3, {"drowsy"})
    _, gen, sleep = _generate(120.0, 3, {"sleep"})
    o = [EIDX["O1"], EIDX["O2"]]
    assert _power(awake[:, o], 8, 12).mean() > 1.5 * _power(drowsy[:, o], 8, 12).mean()
    assert _power(drowsy, 4, 7).mean() > 1.3 * _power(awake, 4, 7).mean()
    assert _power(sleep, 0.5, 3).mean() > 1.5 * _power(awake, 0.5, 3).mean()
    assert any(t.kind == "spindle" for t in gen.transients)
    assert gen.families_present()[:1] == ["sleep"]


_MIRROR = {"F3": "F4", "C3": "C4", "P3": "P4", "F7": "F8", "T3": "T4", "T5": "T6"}
_MIRROR.update({v: k for k, v in list(_MIRROR.items())})


def test_focal_slowing_and_breach_are_lateralised():
    for fam, band, field in (
        ("slowing", (0.5, 3.0), "slowing"),
        ("breach", (13.0, 25.0), "breach"),
    ):
        for seed in range(1, 40):
            plan, gen, x = _generate(
                120.0, seed, {"awake_alpha", fam}, state="awake", require={fam}
            )
            site = getattr(plan.variety, field)[0]
            if site:  # focal, not diffuse
                break
        assert fam in gen.families_present()
        here, there = (_power(x[:, [EIDX[s]]], *band)[0] for s in (site, _MIRROR[site]))
        assert here > 1.5 * there, (fam, site, here, there)


def test_read_families_rejects_missing_and_malformed_sidecars(tmp_path):
    edf = tmp_path / "x.edf"
    with pytest.raises(RtEegError, match="no families sidecar"):
        read_families(edf)
    side = tmp_path / "x.families.json"
    side.write_text("{not json")
    with pytest.raises(RtEegError, match="unreadable"):
        read_families(edf)
    side.write_text(json.dumps({"seizure": ["rhythmic_gamma"], "present": [], "sfreq": 250.0,
                                "montage": "01_tcp_ar", "gain": 1.0}))  # fmt: skip
    with pytest.raises(RtEegError, match="rhythmic_gamma"):
        read_families(side)


def test_plot_tool_draws_a_family_and_sample_refuses_families(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location(
        "plot_recording", root / "tools" / "plot_recording.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    png = mod.plot_family("rmtd", tmp_path / "rmtd.png", window=6.0)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit, match="unknown family"):
        mod.plot_family("rhythmic_gamma", tmp_path / "x.png")
    assert main(["simulate", "--out", str(tmp_path), "--sample", "--families", "seizure"]) == 2
    assert "--sample" in capsys.readouterr().err
