"""Tests of the fresh families (rt_eeg.sim.fresh_families): hypnagogic hypersynchrony, mu,
lambda, 6 Hz phantom spike-and-wave (benign) and photic stimulation (artifact).

As in tests/test_clinical_artifacts.py, a family is checked on the difference between a
recording with it and the same seed without it (exactly the family's signal, after
referencing and the recording's gains), with ordinary spectral and spatial estimates of
what the pattern is clinically; and recordings without them must be the recordings the
simulator made before they existed.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import find_peaks, periodogram

from rt_eeg.cli import main
from rt_eeg.sim import families as fam_mod
from rt_eeg.sim.benign import BENIGN_STREAMS
from rt_eeg.sim.clinical_artifacts import CLINICAL_PRESENCE
from rt_eeg.sim.families import ALL_FAMILIES, FAMILIES, GROUP_OF, read_families, resolve_families
from rt_eeg.sim.fresh_families import FRESH_PRESENCE, FRESH_RENDERERS, PHOTIC_LADDER
from rt_eeg.sim.layout import EIDX, ELECTRODES
from rt_eeg.sim.recording import RecordingGenerator, plan_recording
from rt_eeg.sim.variety import KIND_FAMILY, PRESENCE

SF = 256.0
NEW = frozenset(FRESH_PRESENCE)
NEW_BENIGN = NEW - {"photic"}
CTRL = 10.0  # rt_eeg.sim.background.CTRL_SFREQ


def _generate(duration, seed, families, *, state=None, require=(), montage="01_tcp_ar",
              artifacts=True, seizures=()):  # fmt: skip
    plan = plan_recording(duration, SF, seed=seed, families=families, state=state,
                          require=require, montage=montage, artifacts=artifacts,
                          seizures=list(seizures))  # fmt: skip
    gen = RecordingGenerator(plan)
    return gen, np.concatenate([eeg for _, eeg, _ in gen.blocks()]).astype(np.float64)


def _difference(family, seed, duration, state, base, montage="01_tcp_ar"):
    """(generator with the family, its signal in uV before the recording's gains)."""
    gen, xw = _generate(duration, seed, {base, family}, state=state, require={family},
                        montage=montage)  # fmt: skip
    _, xo = _generate(duration, seed, {base}, state=state, montage=montage)
    v = gen.plan.variety
    return gen, (xw - xo) / (v.gain * np.asarray(v.elec_gain))[None, :]


def _events(gen, kind):
    return [tr for tr in gen.transients if tr.kind == kind]


def _seg(x, tr, pad=0.0):
    return x[int((tr.start + pad) * SF) : int((tr.stop - pad) * SF)]


def _peak_freq(x, lo, hi):
    """Frequency of the largest periodogram value of ``x`` (n,) in [lo, hi] Hz (8x padded)."""
    f, p = periodogram(x - x.mean(), SF, window="hann", nfft=max(8 * len(x), int(8 * SF)))
    m = (f >= lo) & (f <= hi)
    return f[m][np.argmax(p[m])], p[m].max() / p.max()


def _names(cols):
    return {ELECTRODES[int(i)] for i in cols}


# --------------------------------------------------------------------------------------------
# registry, and the recordings without them


def test_fresh_families_are_registered_in_their_groups():
    assert NEW == {"hypnagogic", "mu", "lambda", "phantom_sw", "photic"}
    assert NEW_BENIGN <= set(FAMILIES["benign"]) and GROUP_OF["photic"] == "artifact"
    assert NEW <= ALL_FAMILIES and NEW <= set(KIND_FAMILY.values()) and set(FRESH_RENDERERS) == NEW
    # presence drawn on their own stream, not with the older families
    assert NEW.isdisjoint(PRESENCE) and NEW.isdisjoint(CLINICAL_PRESENCE)
    assert NEW_BENIGN <= resolve_families("benign", None)
    assert "photic" in resolve_families("artifact", None)
    assert NEW.isdisjoint(resolve_families(None, "hypnagogic,mu,lambda,phantom-sw,photic"))
    # the older benign families seed one stream each from a fixed list, not from FAMILIES
    assert BENIGN_STREAMS == ("wicket", "rmtd", "fourteen_six", "sreda", "posts_vertex")


_OLD = {"seed": 11, "duration": 240.0, "seizures": [(60.0, 100.0)],
        "require": {"wicket", "rmtd", "fourteen_six", "sreda", "posts_vertex", "patting",
                    "percussion", "glossokinetic"}}  # fmt: skip


@pytest.mark.parametrize("montage,artifacts", [("01_tcp_ar", True), ("02_tcp_le", False)])
def test_excluding_them_is_allowing_them_with_none_present(monkeypatch, montage, artifacts):
    """The allowed set itself draws nothing: with the five allowed but none present, the
    samples, transients and sidecar list are those of a recording that excludes them."""
    req = _OLD["require"] if artifacts else {"wicket", "rmtd", "sreda"}
    kw = dict(seizures=_OLD["seizures"], montage=montage, artifacts=artifacts, require=req)
    gen_o, xo = _generate(_OLD["duration"], _OLD["seed"], ALL_FAMILIES - NEW, **kw)
    for f in NEW:
        monkeypatch.setitem(FRESH_PRESENCE, f, 0.0)
    gen_z, xz = _generate(_OLD["duration"], _OLD["seed"], ALL_FAMILIES, **kw)
    assert gen_z.transients == gen_o.transients and np.array_equal(xz, xo)
    assert gen_z.families_present() == gen_o.families_present()


def test_the_registry_without_them_gives_the_same_recording(monkeypatch):
    """A registry as it was before the five (patched back) gives the very samples the
    current one gives with the five excluded: no draw depends on the registry's size."""
    kw = dict(seizures=_OLD["seizures"], require=_OLD["require"])
    gen_n, xn = _generate(_OLD["duration"], _OLD["seed"], ALL_FAMILIES - NEW, **kw)
    for group in ("benign", "artifact"):
        monkeypatch.setitem(FAMILIES, group, tuple(f for f in FAMILIES[group] if f not in NEW))
    for f in NEW:
        monkeypatch.delitem(GROUP_OF, f)
    monkeypatch.setattr(fam_mod, "ALL_FAMILIES", ALL_FAMILIES - NEW)
    assert fam_mod.resolve_families(None, None) == ALL_FAMILIES - NEW
    gen_p, xp = _generate(
        _OLD["duration"], _OLD["seed"], fam_mod.resolve_families(None, None), **kw
    )
    assert gen_p.transients == gen_n.transients and np.array_equal(xp, xn)
    assert gen_p.families_present() == gen_n.families_present()


def _plan_digest(gen) -> str:
    """sha256 (16 hex) of everything drawn for a recording but its samples: transients,
    faults, seizures, state segments, the variety's gains and optional families (rounded:
    the digest does not depend on the platform's floating-point maths)."""
    import hashlib

    p, v = gen.plan, gen.plan.variety

    def r(x):
        return round(float(x), 4)

    rows = [(t.kind, r(t.start), r(t.duration), r(t.amp), t.site, t.seed, r(t.param))
            for t in gen.transients]  # fmt: skip
    rows += [(f.electrode, r(f.start), r(f.stop), f.mode, r(f.level)) for f in gen.faults]
    rows += [(s.start, s.stop, s.family, s.label, s.focus) for s in p.seizures]
    rows += [(n, r(a), r(b)) for n, a, b in gen.timeline.segments]
    rows += [
        (r(v.gain), v.line_freq, sorted(v.present), r(v.activity), [r(g) for g in v.elec_gain])
    ]
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


@pytest.mark.parametrize("seed,digest", [(3, "eb5f51b12fddebf1"), (11, "418a18ca7494c9af")])
def test_what_is_drawn_without_them_is_what_the_simulator_drew_before_them(seed, digest):
    """Digests computed with the simulator before the five existed (commit 3ee3991, the
    same code on ``ALL_FAMILIES``): catches a draw added to an existing stream whatever is
    allowed, which the tests above (two runs of today's code) cannot. Update only with a
    change meant to alter existing recordings."""
    req = {"wicket", "rmtd", "fourteen_six", "sreda", "posts_vertex", "patting", "percussion",
           "glossokinetic", "slowing", "breach", "movement"}  # fmt: skip
    # arousal (rt_eeg.sim.arousals) came later still: out too, as in every older corpus
    plan = plan_recording(900.0, SF, seed=seed, families=ALL_FAMILIES - NEW - {"arousal"},
                          require=req, seizures=[(300.0, 360.0)])  # fmt: skip
    assert _plan_digest(RecordingGenerator(plan)) == digest


def test_allowing_them_changes_only_the_samples_of_their_events():
    kw = dict(seizures=[(200.0, 240.0)], montage="02_tcp_le")
    gen_w, xw = _generate(600.0, 4, ALL_FAMILIES, require=NEW, **kw)
    gen_o, xo = _generate(600.0, 4, ALL_FAMILIES - NEW, **kw)
    new = [tr for tr in gen_w.transients if tr.kind in NEW]
    assert {tr.kind for tr in new} >= {"mu", "lambda", "photic"}
    assert [tr for tr in gen_w.transients if tr.kind not in NEW] == gen_o.transients
    inside = np.zeros(len(xw), dtype=bool)
    for tr in new:
        a = int(np.floor(tr.start * SF))
        inside[a : a + int(tr.duration * SF) + 1] = True
    assert 0.05 < (~inside).mean() and np.array_equal(xw[~inside], xo[~inside])
    assert not np.array_equal(xw[inside], xo[inside])
    present = gen_w.families_present()
    assert [f for f in present if f not in NEW] == gen_o.families_present()
    assert {tr.kind for tr in new} <= set(present) and NEW.isdisjoint(gen_o.families_present())
    assert gen_w.plan.term_events() == gen_o.plan.term_events()  # never annotated


def test_cli_families_exclusion_sidecar_and_same_bytes(tmp_path):
    base = ["--hours", "0.5", "--patients", "3", "--seed", "1", "--sfreq", "100", "--no-progress"]
    five = "hypnagogic,mu,lambda,phantom_sw,photic"
    assert main(["simulate", "--out", str(tmp_path / "all"), *base]) == 0
    assert main(["simulate", "--out", str(tmp_path / "without"), *base,
                 "--exclude-families", five]) == 0  # fmt: skip
    assert main(["simulate", "--out", str(tmp_path / "only"), "--hours", "0.1", "--patients",
                 "1", "--seed", "1", "--no-progress", "--families", f"{five},background"]) == 0  # fmt: skip
    seen = {}
    for name in ("all", "without", "only"):
        root = tmp_path / name
        seen[name] = {e.relative_to(root): read_families(e)["present"] for e in root.rglob("*.edf")}
    assert all(NEW.isdisjoint(p) for p in seen["without"].values())
    only = set().union(*seen["only"].values())
    assert only & NEW and only <= NEW | set(FAMILIES["background"])
    same = 0
    for rel, present in seen["all"].items():  # the files without them are the same bytes
        a, b = (tmp_path / "all" / rel).read_bytes(), (tmp_path / "without" / rel).read_bytes()
        assert (a == b) == NEW.isdisjoint(present), rel
        same += a == b
    assert 0 < same < len(seen["all"])


def test_same_seed_same_bytes(tmp_path):
    from rt_eeg.sim.writer import write_plan

    files = []
    for name in ("a", "b"):
        plan = plan_recording(200.0, SF, seed=1, families=ALL_FAMILIES, require=NEW)
        edf = write_plan(tmp_path / name / "x_s001_t000.edf", plan)
        files.append({p.name: p.read_bytes() for p in edf.parent.iterdir()})
    assert files[0] == files[1] and "x_s001_t000.families.json" in files[0]
    present = set(read_families(tmp_path / "a" / "x_s001_t000.edf")["present"])
    assert {"mu", "lambda", "phantom_sw", "photic"} <= present


# --------------------------------------------------------------------------------------------
# what each family is


def test_hypnagogic_is_diffuse_high_voltage_3_to_5_hz_in_drowsiness_only():
    n = 0
    for seed in (1, 2):
        gen, d = _difference("hypnagogic", seed, 240.0, "drowsy", "drowsy", "02_tcp_le")
        for tr in _events(gen, "hypnagogic"):
            x = _seg(d, tr)
            rms = x.std(axis=0)
            k = int(np.argmax(rms))
            assert ELECTRODES[k] in ("FZ", "CZ", "F3", "F4", "C3", "C4"), rms.round(0)
            pk, _ = _peak_freq(x[:, k], 1.0, 30.0)
            assert 2.8 <= pk <= 5.2 and abs(pk - tr.param) < 0.35, (pk, tr.param)
            assert 100.0 <= tr.amp <= 350.0 and 1.0 <= tr.duration <= 10.0
            assert np.abs(x[:, k]).max() > 0.5 * tr.amp  # high voltage
            assert (rms > 0.3 * rms[k]).sum() >= 8  # diffuse
            front = rms[[EIDX[e] for e in ("FZ", "CZ")]].mean()
            assert front > 1.5 * rms[[EIDX["O1"], EIDX["O2"]]].mean()
            n += 1
    assert n >= 4
    # drowsiness only: none awake or asleep, and in a mixed recording only where drowsy
    for state, base in (("awake", "awake_alpha"), ("sleep", "sleep")):
        gen, _ = _generate(240.0, 1, {base, "hypnagogic"}, state=state, require={"hypnagogic"})
        assert not _events(gen, "hypnagogic")
    starts = []
    for seed in range(1, 6):
        plan = plan_recording(1800.0, SF, seed=seed, families={"awake_alpha", "drowsy", "sleep",
                              "hypnagogic"}, require={"hypnagogic"})  # fmt: skip
        gen = RecordingGenerator(plan)  # no samples needed
        tl = gen.timeline
        for tr in _events(gen, "hypnagogic"):
            starts.append(tl.drowsy[int(tr.start * CTRL)])
    assert starts and min(starts) > 0.0


def test_mu_is_arciform_7_to_11_hz_over_the_central_electrodes_awake():
    sides = set()
    for seed in (1, 2, 3):
        gen, d = _difference("mu", seed, 240.0, "awake", "awake_alpha")
        for tr in _events(gen, "mu"):
            if tr.duration < 2.0:
                continue
            x = _seg(d, tr, 0.4)
            rms = x.std(axis=0)
            k = int(np.argmax(rms))
            assert ELECTRODES[k] in ("C3", "C4"), rms.round(1)
            pk, _ = _peak_freq(x[:, k], 1.0, 40.0)
            assert 7.0 <= tr.param <= 11.0 and abs(pk - tr.param) < 0.3, (pk, tr.param)
            # arciform: sharp negative, rounded positive phase (the 2nd harmonic's fixed phase)
            assert -x[:, k].min() > 1.4 * x[:, k].max()
            c3, c4 = rms[EIDX["C3"]], rms[EIDX["C4"]]
            if tr.site == "left":
                assert c3 > 3.0 * c4
            elif tr.site == "right":
                assert c4 > 3.0 * c3
            else:
                assert min(c3, c4) > 0.2 * max(c3, c4)
            assert rms[EIDX["CZ"]] > 0.2 * rms[k] and rms[EIDX["O1"]] < 0.2 * rms[k]
            assert np.abs(x[:, k]).max() < 70.0
            sides.add(tr.site)
    assert len(sides) >= 2
    gen, _ = _generate(240.0, 1, {"sleep", "mu"}, state="sleep", require={"mu"})
    assert not _events(gen, "mu")


def test_lambda_is_positive_occipital_sharp_transients_in_irregular_trains():
    gaps, n = [], 0
    for seed in (1, 2, 3):
        gen, d = _difference("lambda", seed, 240.0, "awake", "awake_alpha")
        tl = gen.timeline
        for tr in _events(gen, "lambda"):
            assert tl.eyes_closed[int(tr.start * CTRL)] < 1.0  # scanning: eyes open
            x = _seg(d, tr)
            rms = x.std(axis=0)
            assert {ELECTRODES[i] for i in np.argsort(-rms)[:2]} == {"O1", "O2"}
            occ = x[:, [EIDX["O1"], EIDX["O2"]]].mean(axis=1)
            assert occ.max() > 2.5 * -occ.min()  # surface positive
            assert 10.0 < occ.max() < 80.0
            peaks, props = find_peaks(occ, height=0.3 * occ.max(), distance=int(0.15 * SF),
                                      width=1, rel_height=0.5)  # fmt: skip
            assert len(peaks) >= 3
            fwhm = props["widths"] / SF  # half the 150-250 ms transient, roughly
            assert 0.03 < np.median(fwhm) < 0.12, fwhm
            gaps += list(np.diff(peaks) / SF)
            n += 1
    assert n >= 3
    assert 0.2 <= np.median(gaps) <= 0.5 and np.std(gaps) > 0.04  # irregular


def test_phantom_spike_wave_is_5_to_7_hz_brief_and_anterior_or_posterior():
    where = {}
    for seed in range(1, 9):
        gen, d = _difference("phantom_sw", seed, 200.0, "drowsy", "drowsy", "02_tcp_le")
        for tr in _events(gen, "phantom_sw"):
            x = _seg(d, tr)
            rms = x.std(axis=0)
            k = int(np.argmax(rms))
            zone = ("FP1", "FP2", "F3", "F4", "FZ", "F7", "F8")
            if tr.site == "posterior":
                zone = ("P3", "P4", "PZ", "O1", "O2", "T5", "T6")
            assert ELECTRODES[k] in zone, (tr.site, rms.round(1))
            pk, _ = _peak_freq(x[:, k], 1.0, 40.0)
            assert 5.0 <= tr.param <= 7.0 and abs(pk - tr.param) < 0.5, (pk, tr.param)
            assert 1.0 <= tr.duration <= 2.0
            assert (rms > 0.3 * rms[k]).sum() >= 6  # diffuse
            assert 15.0 < np.ptp(x[:, k]) < 110.0  # a small spike, a 30-50 uV wave
            where[seed] = tr.site
        if len(set(where.values())) == 2 and len(where) >= 3:
            break
    assert set(where.values()) == {"anterior", "posterior"}
    gen, _ = _generate(300.0, 1, {"sleep", "phantom_sw"}, state="sleep", require={"phantom_sw"})
    assert not _events(gen, "phantom_sw")


def test_phantom_spike_is_smaller_than_its_wave():
    from rt_eeg.sim.transients import Transient

    for seed in range(5):
        tr = Transient("phantom_sw", 0.0, 1.5, 40.0, "anterior", seed, 6.0)
        cols, w = FRESH_RENDERERS["phantom_sw"](tr, SF)
        y = w[:, int(np.argmax(w.std(axis=0)))].astype(np.float64)
        fast = y - np.convolve(y, np.ones(9) / 9, "same")  # the spike stands out of a 35 ms mean
        assert 2.0 < np.abs(fast[20:-20]).max() < 30.0 and np.ptp(y) > 35.0


def test_photic_drives_the_occipital_leads_at_stepped_flash_frequencies():
    runs = 0
    for seed in (1, 3):
        gen, d = _difference("photic", seed, 600.0, "awake", "awake_alpha")
        trains = _events(gen, "photic")
        assert trains and gen.plan.term_events() == []
        # runs: consecutive trains 18-22 s apart, stepping through the ladder one way
        run = [trains[0]]
        for tr in [*trains[1:], None]:
            if tr is not None and tr.start - run[-1].start < 22.5:
                assert tr.start - run[-1].start >= 18.0
                run.append(tr)
                continue
            idx = [PHOTIC_LADDER.index(int(t.param)) for t in run]
            assert np.all(np.diff(idx) == 1) or np.all(np.diff(idx) == -1), idx
            runs += len(run) >= 5
            run = [tr]
        for tr in trains:
            assert tr.duration == 10.0 and tr.param in PHOTIC_LADDER
            x = _seg(d, tr, 0.5)
            occ = x[:, [EIDX["O1"], EIDX["O2"]]].mean(axis=1)
            f, p = periodogram(occ, SF, nfft=int(20 * SF))
            harm = np.abs(f / tr.param - np.round(f / tr.param)) * tr.param < 0.15
            harm &= f > 0.5
            assert p[harm].sum() > 0.8 * p[f > 0.5].sum()  # periodic at the flash rate
            if tr.param >= 6:
                assert abs(f[np.argmax(p)] - tr.param) < 0.15  # driving at the flash frequency
            rms = x.std(axis=0)
            post = rms[[EIDX[e] for e in ("O1", "O2")]].min()
            assert post > rms[[EIDX[e] for e in ("P3", "P4", "T5", "T6", "C3", "C4", "CZ")]].max()
            assert 4.0 < np.abs(occ).max() < 50.0
            if not tr.site:  # no frontal component: the front only carries the reference
                assert rms[[EIDX["FP1"], EIDX["FP2"]]].max() < 0.5 * post
    assert runs >= 3
    for kw in ({"state": "sleep"}, {"state": "awake", "artifacts": False}):
        base = "sleep" if kw["state"] == "sleep" else "awake_alpha"
        gen, _ = _generate(300.0, 1, {base, "photic"}, require={"photic"}, **kw)
        assert not _events(gen, "photic")


def test_photic_frontal_component_is_locked_to_the_flashes():
    from rt_eeg.sim.transients import Transient

    for site in ("myo", "electric"):
        tr = Transient("photic", 0.0, 10.0, 30.0, site, 3, 12.0)
        cols, w = FRESH_RENDERERS["photic"](tr, SF)
        names = [ELECTRODES[int(c)] for c in cols]
        fp = w[:, names.index("FP1")].astype(np.float64)[int(3 * SF) :]
        env = np.abs(fp) if site == "electric" else fp**2
        f, p = periodogram(env - env.mean(), SF, nfft=int(20 * SF))
        # the frontal component repeats at the flash rate (its envelope peaks at 12 Hz or 24)
        pk = f[np.argmax(p[f > 5.0]) + np.count_nonzero(f <= 5.0)]
        assert min(abs(pk - 12.0), abs(pk - 24.0)) < 0.2, pk
        assert {"O1", "O2", "FP1", "FP2"} <= set(names)
