"""Transient cerebral events that are not seizures.

Sleep graphoelements (spindles, K-complexes, vertex waves, POSTS, REM sawtooth waves,
hypnagogic hypersynchrony), interictal epileptiform discharges (focal spikes and sharp waves,
brief generalised spike-wave bursts), benign variants (wicket spikes, small sharp spikes,
14 and 6 Hz positive bursts, rhythmic mid-temporal theta of drowsiness, lambda waves),
periodic patterns of the ICU (lateralised periodic discharges, triphasic waves) and
intermittent rhythmic delta. Each is a specific atom type or molecule with its own rate per
state, field and morphology; every function returns the events it drew.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.atoms import complexes as C
from rt_eeg.xsim.atoms import fields as F
from rt_eeg.xsim.atoms.render import GABOR, TRANS, Scene
from rt_eeg.xsim.atoms.states import Timeline, poisson_times

Events = list[tuple[float, float, str]]
_PM = 1.0 / 60.0  # per minute -> per second


def _fields_near(centre, n: int, deg: float, width, rng, rough: float = 0.08) -> np.ndarray:
    cs = F.jitter(np.tile(np.asarray(centre, float), (n, 1)), deg, rng)
    return F.roughen(F.gauss(cs, width), rough, rng)


def _outside(t: np.ndarray, busy: list[tuple[float, float]], margin: float) -> np.ndarray:
    """``t`` without the times inside ``busy`` intervals (widened by ``margin``)."""
    keep = np.ones(len(t), dtype=bool)
    for a, b in busy:
        keep &= (t < a - margin) | (t > b + margin)
    return t[keep]


def sleep_graphoelements(scene: Scene, tl: Timeline, patient: dict, rng) -> Events:
    """Spindles, K-complexes, vertex waves, POSTS, sawtooth waves, hypersynchrony."""
    ev: Events = []
    child = patient["age"] < 16
    vertex = F.region_centre("vertex")
    # spindles: fusiform 11-15 Hz, 0.5-2 s, central (fast) or frontal (slow)
    t = poisson_times(tl, np.array([0, 0, 0.4, 6.0, 2.0, 0]) * _PM, rng)
    n = len(t)
    frontal = rng.random(n) < 0.3
    f = patient["spindle_freq"] + np.where(frontal, -1.0, 0.6) + 0.3 * rng.standard_normal(n)
    dur = rng.uniform(0.5, 2.0, n)
    cen = np.where(frontal[:, None], F.region_centre("frontocentral"), vertex)
    flds = F.roughen(F.gauss(F.jitter(cen, 10.0, rng), rng.uniform(28.0, 40.0, n)), 0.08, rng)
    amp = rng.uniform(20.0, 50.0, n) * (1.4 if child else 1.0)
    scene.add(GABOR, t, amp, f, dur / 4.5, rng.uniform(0, 6.3, n), 0.2, topo=flds, brain=True)
    ev += [(a, a + d, "spindle") for a, d in zip(t - dur / 2, dur, strict=True)]
    # K-complexes: sharp negative then broad positive, frontocentral, often a spindle after
    t = poisson_times(tl, np.array([0, 0, 0.15, 1.5, 0.6, 0]) * _PM, rng)
    n = len(t)
    if n:
        flds = F.roughen(
            F.gauss(
                F.jitter(np.tile(F.region_centre("frontocentral"), (n, 1)), 8.0, rng),
                rng.uniform(35.0, 50.0, n),
            ),
            0.06,
            rng,
        )
        ids = scene.fields(flds)
        amp = rng.uniform(70.0, 200.0, n) * (1.3 if child else 1.0)
        scene.add(
            TRANS,
            t,
            -amp,
            rng.uniform(0.06, 0.1, n),
            rng.uniform(0.12, 0.2, n),
            topo=ids,
            brain=True,
        )
        scene.add(
            GABOR,
            t + rng.uniform(0.35, 0.5, n),
            amp * rng.uniform(0.45, 0.7, n),
            0.0,
            rng.uniform(0.14, 0.22, n),
            topo=ids,
            brain=True,
        )
        sp = rng.random(n) < 0.4
        scene.add(
            GABOR,
            t[sp] + rng.uniform(0.8, 1.2, int(sp.sum())),
            rng.uniform(10, 30, int(sp.sum())),
            patient["spindle_freq"],
            rng.uniform(0.12, 0.25, int(sp.sum())),
            0.0,
            0.2,
            topo=ids[sp],
            brain=True,
        )
        ev += [(a - 0.2, a + 1.0, "k_complex") for a in t]
    # vertex waves: sharp biphasic transients at CZ, drowsiness and light sleep
    t = poisson_times(tl, np.array([0, 0, 3.0, 1.5, 0, 0]) * _PM, rng)
    n = len(t)
    if n:
        ids = scene.fields(_fields_near(vertex, n, 8.0, rng.uniform(25.0, 35.0, n), rng))
        amp = rng.uniform(40.0, 130.0, n) * (1.6 if child else 1.0)
        scene.add(TRANS, t - 0.09, 0.25 * amp, 0.03, 0.04, topo=ids, brain=True)
        scene.add(
            TRANS,
            t,
            -amp,
            rng.uniform(0.035, 0.05, n),
            rng.uniform(0.05, 0.08, n),
            topo=ids,
            brain=True,
        )
        scene.add(TRANS, t + 0.15, 0.35 * amp, 0.05, 0.09, topo=ids, brain=True)
        ev += [(a - 0.15, a + 0.3, "vertex_wave") for a in t]
    if patient["variants"]["posts"]:
        ev += _posts(scene, tl, rng)
    # REM sawtooth waves: 2-5 Hz sharply contoured trains at the vertex
    t = poisson_times(tl, np.array([0, 0, 0, 0, 0, 1.5]) * _PM, rng)
    for a in t:
        d = rng.uniform(1.5, 5.0)
        fr = rng.uniform(2.0, 4.5)
        tk, _u = C.cycle_times(a, a + d, fr, rng, jitter=0.05)
        fld = F.gauss(F.jitter(F.region_centre("frontocentral"), 8.0, rng), 40.0)
        C.wave_train(
            scene, tk, fr, rng.uniform(25.0, 55.0), fld, k=rng.uniform(1.0, 2.5), ncyc=0.45
        )
        ev.append((a, a + d, "sawtooth_waves"))
    if patient["variants"]["hypersynchrony"]:
        t = poisson_times(tl, np.array([0, 0, 1.2, 0.2, 0, 0]) * _PM, rng)
        for a in t:
            d = rng.uniform(1.0, 5.0)
            fr = rng.uniform(3.0, 5.0)
            tk, u = C.cycle_times(a, a + d, fr, rng, jitter=0.04)
            fld = F.gauss(F.jitter(F.region_centre("centroparietal"), 10.0, rng), 70.0)
            env = np.sin(np.pi * np.clip(u, 0.0, 1.0)) ** 0.5
            C.wave_train(scene, tk, fr, rng.uniform(80.0, 200.0) * env, fld, k=0.3, ncyc=0.5)
            ev.append((a, a + d, "hypnagogic_hypersynchrony"))
    return ev


def _posts(scene: Scene, tl: Timeline, rng) -> Events:
    """Positive occipital sharp transients of sleep: monophasic positive, runs at 4-6 Hz."""
    t = poisson_times(tl, np.array([0, 0, 1.5, 4.0, 1.0, 0]) * _PM, rng)
    ev: Events = []
    occ = np.vstack([F.region_centre("L_occipital"), F.region_centre("R_occipital")])
    fld = F.gauss(occ, 28.0).sum(0) * 0.7
    ids = scene.fields(F.roughen(np.tile(fld, (6, 1)), 0.15, rng))
    for a in t:
        k = int(rng.integers(1, 5))
        tk = a + np.arange(k) / rng.uniform(4.0, 6.0)
        scene.add(
            TRANS,
            tk,
            rng.uniform(20.0, 55.0) * rng.uniform(0.8, 1.2, k),
            0.045,
            0.07,
            topo=ids[rng.integers(0, 6, k)],
            brain=True,
        )
        ev.append((a - 0.1, tk[-1] + 0.2, "posts"))
    return ev


def interictal(
    scene: Scene, tl: Timeline, patient: dict, rng, busy: list[tuple[float, float]]
) -> Events:
    """Focal spikes and sharp waves (singly or in brief runs), more frequent in sleep; brief
    generalised spike-wave and polyspike bursts for generalised epilepsies. None within a few
    seconds of a seizure (``busy``), so that they are never mistaken for its onset."""
    ep = patient["epilepsy"]
    rate = ep["ied_rate"] * rng.uniform(0.5, 1.5)
    ev: Events = []
    if rate <= 0:
        return ev
    per_state = np.array([1.0, 1.0, 1.6, 2.5, 3.0, 0.6]) * rate * _PM
    t = _outside(poisson_times(tl, per_state, rng), busy, 5.0)
    n = len(t)
    if n == 0:
        return ev
    c = np.asarray(ep["centre"])
    if ep["generalised"]:
        # mostly brief generalised spike-wave / polyspike bursts (0.5-2.5 s), some isolated
        burst = rng.random(n) < 0.5
        for a in t[burst]:
            d = rng.uniform(0.5, 2.5)
            fr = rng.uniform(2.8, 4.5)
            tk, _u = C.cycle_times(a, a + d, fr, rng, jitter=0.06)
            fld = F.roughen(F.gauss(F.jitter(c, 6.0, rng), rng.uniform(65.0, 85.0)), 0.05, rng)
            C.spike_waves(
                scene,
                tk,
                1.0 / fr,
                ep["ied_amp"] * rng.uniform(0.8, 1.6),
                fld,
                rng,
                n_spikes=int(rng.integers(1, 4)),
                window=(a - 0.2, a + d + 0.4),
            )
            ev.append((a, a + d + 0.3, "generalised_spike_wave_burst"))
        iso = t[~burst]
        flds = F.roughen(
            F.gauss(
                F.jitter(np.tile(c, (len(iso), 1)), 8.0, rng), rng.uniform(55.0, 80.0, len(iso))
            ),
            0.08,
            rng,
        )
        C.spike_waves(
            scene,
            iso,
            rng.uniform(0.25, 0.35, len(iso)),
            ep["ied_amp"] * rng.uniform(0.6, 1.3, len(iso)),
            flds,
            rng,
            n_spikes=rng.integers(1, 4, len(iso)),
        )
        ev += [(a - 0.05, a + 0.4, "generalised_spike") for a in iso]
        return ev
    # focal: a few foci jitters, some runs of 2-4, occasionally from the other side
    contra = rng.random(n) < 0.12
    cs = np.where(contra[:, None], F.mirror(c), c)
    cs = F.jitter(cs, 6.0, rng)
    wid = ep["width"] * rng.uniform(0.85, 1.2, n)
    if ep["ied_dipolar"]:
        flds = 0.5 * F.gauss(cs, wid) + F.dipole(cs, np.tile(ep["ied_dir"], (n, 1)), wid * 1.3)
    else:
        flds = F.gauss(cs, wid)
    flds = F.roughen(flds, 0.08, rng)
    runs = np.where(rng.random(n) < 0.15, rng.integers(2, 5, n), 1)
    tt = np.concatenate(
        [a + np.arange(r) * rng.uniform(0.25, 0.6) for a, r in zip(t, runs, strict=True)]
    )
    ff = np.repeat(flds, runs, axis=0)
    amps = ep["ied_amp"] * np.exp(0.3 * rng.standard_normal(len(tt)))
    widths = ep["ied_width"] * rng.uniform(0.8, 1.3, len(tt))
    C.spikes(
        scene, tt, amps, ff, rng, width=widths, slow=ep["ied_slow"] * rng.uniform(0.5, 1.5, len(tt))
    )
    kind = "sharp_wave" if ep["ied_width"] > 2 else "spike"
    ends = t + (runs - 1) * 0.6
    ev += [
        (a - 0.05, b + 0.4, kind if r == 1 else f"{kind}_run")
        for a, b, r in zip(t, ends, runs, strict=True)
    ]
    return ev


def benign_variants(scene: Scene, tl: Timeline, patient: dict, rng) -> Events:
    """Wicket spikes, small sharp spikes, 14 and 6 Hz positive bursts, RMTD, lambda waves."""
    v = patient["variants"]
    ev: Events = []
    temporal = [F.region_centre("L_temporal"), F.region_centre("R_temporal")]
    if v["wicket"]:
        for a in poisson_times(tl, np.array([0.3, 0.3, 1.5, 1.0, 0, 0]) * _PM, rng):
            d, fr = rng.uniform(0.5, 2.5), rng.uniform(6.0, 11.0)
            tk, u = C.cycle_times(a, a + d, fr, rng, jitter=0.03)
            fld = F.gauss(F.jitter(temporal[int(rng.integers(2))], 6.0, rng), 24.0)
            env = np.sin(np.pi * u) ** 0.7
            C.wave_train(scene, tk, fr, rng.uniform(40.0, 80.0) * env, fld, k=rng.uniform(2.0, 4.0))
            ev.append((a, a + d, "wicket_spikes"))
    if v["bets"]:
        t = poisson_times(tl, np.array([0, 0, 2.0, 1.5, 0.3, 0]) * _PM, rng)
        n = len(t)
        side = rng.integers(0, 2, n)
        cs = F.jitter(np.array(temporal)[side], 10.0, rng)
        flds = F.gauss(cs, 45.0) - 0.6 * F.gauss(F.mirror(cs), 45.0)  # wide, oblique field
        C.spikes(scene, t, rng.uniform(20.0, 45.0, n), flds, rng, width=0.7, slow=0.15)
        ev += [(a - 0.05, a + 0.1, "small_sharp_spike") for a in t]
    if v["pos14_6"]:
        for a in poisson_times(tl, np.array([0, 0, 1.0, 0.8, 0, 0]) * _PM, rng):
            d, fr = rng.uniform(0.5, 1.0), float(rng.choice([14.0, 6.0], p=[0.7, 0.3]))
            tk, _u = C.cycle_times(a, a + d, fr, rng, jitter=0.02)
            cen = F.region_centre(["L_parietal", "R_parietal"][int(rng.integers(2))])
            fld = F.gauss(F.jitter(cen, 6.0, rng), 28.0)
            C.wave_train(scene, tk, fr, -rng.uniform(25.0, 60.0), fld, k=3.0)  # positive spikes
            ev.append((a, a + d, "14_6_positive_bursts"))
    if v["rmtd"]:
        for a in poisson_times(tl, np.array([0, 0.1, 1.0, 0.2, 0, 0]) * _PM, rng):
            d, fr = rng.uniform(4.0, 12.0), rng.uniform(5.0, 7.0)
            tk, u = C.cycle_times(a, a + d, fr, rng, jitter=0.02)
            fld = F.gauss(F.jitter(temporal[int(rng.integers(2))], 6.0, rng), 26.0)
            env = np.clip(4.0 * np.minimum(u, 1.0 - u), 0.0, 1.0)
            C.wave_train(scene, tk, fr, rng.uniform(35.0, 70.0) * env, fld, k=1.8, ncyc=0.55)
            ev.append((a, a + d, "rmtd"))
    return ev


def periodic_patterns(
    scene: Scene, tl: Timeline, patient: dict, rng, busy: list[tuple[float, float]]
) -> Events:
    """Stretches of lateralised periodic discharges or triphasic waves (ICU patients): a
    steady repetition rate, no evolution, so not seizures; and intermittent rhythmic delta."""
    ev: Events = []
    kind = patient["periodic"]
    ep = patient["epilepsy"]
    if kind != "none" and tl.duration > 30:
        for _ in range(int(rng.integers(1, 4))):
            d = min(tl.duration, float(np.exp(rng.uniform(np.log(60), np.log(900)))))
            a = float(rng.uniform(0.0, max(tl.duration - d, 0.0) + 1e-3))
            fr = rng.uniform(0.6, 1.4) if kind == "lpd" else rng.uniform(1.2, 2.2)
            tk, _u = C.cycle_times(a, a + d, fr, rng, jitter=0.08)
            tk = _outside(tk, busy, 3.0)
            n = len(tk)
            if kind == "lpd":
                c = (
                    np.asarray(ep["centre"])
                    if not ep["generalised"]
                    else F.region_centre("L_temporal")
                )
                flds = _fields_near(c, n, 5.0, rng.uniform(30.0, 40.0), rng)
                C.spikes(
                    scene,
                    tk,
                    rng.uniform(60.0, 150.0) * np.exp(0.2 * rng.standard_normal(n)),
                    flds,
                    rng,
                    width=2.5,
                    slow=0.8,
                )
            else:
                flds = _fields_near(F.region_centre("frontal"), n, 6.0, 65.0, rng)
                C.triphasic(scene, tk, rng.uniform(60.0, 140.0), flds)
            ev.append(
                (
                    a,
                    a + d,
                    "lateralised_periodic_discharges" if kind == "lpd" else "triphasic_waves",
                )
            )
    slow = patient["slowing"]
    if slow["rhythmic"] > 0:
        centre = slow.get("centre", F.region_centre("frontal"))
        for a in _outside(
            poisson_times(
                tl, np.array([0.6, 0.6, 1.5, 0.8, 0.3, 0.5]) * slow["rhythmic"] * _PM, rng
            ),
            busy,
            8.0,
        ):
            d, fr = rng.uniform(2.0, 7.0), rng.uniform(1.5, 3.0)
            tk, u = C.cycle_times(a, a + d, fr, rng, jitter=0.04)
            fld = F.gauss(F.jitter(centre, 6.0, rng), 35.0 if "centre" in slow else 60.0)
            env = np.clip(3.0 * np.minimum(u, 1.0 - u), 0.0, 1.0)
            C.wave_train(
                scene, tk, fr, rng.uniform(50.0, 110.0) * env, fld, k=rng.uniform(0.0, 1.0)
            )
            ev.append((a, a + d, "intermittent_rhythmic_delta"))
    return ev


def lambda_waves(scene: Scene, saccades: np.ndarray, rng) -> Events:
    """Posterior positive sharp transients ~100 ms after saccades (eyes open, scanning)."""
    n = len(saccades)
    if n == 0:
        return []
    occ = np.vstack([F.region_centre("L_occipital"), F.region_centre("R_occipital")])
    fld = F.roughen(np.tile(F.gauss(occ, 30.0).sum(0) * 0.7, (n, 1)), 0.1, rng)
    scene.add(TRANS, saccades + 0.11, rng.uniform(15.0, 40.0, n), 0.04, 0.07, topo=fld, brain=True)
    return [(a, a + 0.25, "lambda_wave") for a in saccades]
