"""Artifacts as atom types of their own, at realistic rates; some recordings are heavy.

Eye blinks (large slow positive transients at FP1/FP2), eye closures and saccades (plateaus of
opposite sign at F7/F8), slow roving and rapid eye movements; muscle (dense 20-120 Hz atoms on
single electrodes, temporal and frontal), chewing (trains of muscle bursts at 1-2 Hz), body
movement (large irregular slow atoms and muscle), electrode pops (steps with slow decay on one
electrode), drifts and sweat sway, ECG and pulse pick-up (a train of QRS molecules), tremor
and patting (rhythmic trains that mimic seizures), ventilator cycles.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.atoms import complexes as C
from rt_eeg.xsim.atoms import fields as F
from rt_eeg.xsim.atoms.render import BOX, GABOR, POP, TRANS, Scene
from rt_eeg.xsim.atoms.states import EC, EO, Timeline, poisson_times

Events = list[tuple[float, float, str]]
_PM = 1.0 / 60.0

_EYES = F.unit(np.array([[0.94, 0.3, -0.33], [0.94, -0.3, -0.33]]))
BLINK_FIELD = F.gauss(_EYES, 34.0).sum(0) / F.gauss(_EYES, 34.0).sum(0).max()
_LAT = F.unit(np.array([[0.7, 0.6, -0.45], [0.7, -0.6, -0.45]]))
LATERAL_FIELD = F.gauss(_LAT[0], 32.0) - F.gauss(_LAT[1], 32.0)
LATERAL_FIELD /= np.abs(LATERAL_FIELD).max()

#: Muscle regions: field centres and widths (deg) that decide which electrodes a burst hits.
MUSCLE_REGIONS = {
    "temporalis_L": (("T3", "F7"), 30.0), "temporalis_R": (("T4", "F8"), 30.0),
    "temporalis_both": (("T3", "F7", "T4", "F8"), 80.0), "frontalis": (("FP1", "FP2"), 32.0),
    "neck": (("O1", "O2", "T5", "T6"), 45.0), "diffuse": (("CZ",), 120.0),
}  # fmt: skip
_MUSCLE_P = {
    "temporalis_L": 0.22,
    "temporalis_R": 0.22,
    "temporalis_both": 0.2,
    "frontalis": 0.2,
    "neck": 0.08,
    "diffuse": 0.08,
}


def muscle_weights(region: str, rng) -> np.ndarray:
    """Per-electrode involvement (0-1) of a muscle burst over ``region``."""
    if region == "diffuse":  # every scalp muscle: frontal, temporal, neck; not the vertex
        w = 1.0 - 0.85 * F.gauss(F.region_centre("vertex"), 45.0)
        return np.clip(F.roughen(w, 0.35, rng), 0.0, 1.0)
    names, w = MUSCLE_REGIONS[region]
    c = F.unit(F.XYZ[[F.IDX[e] for e in names]].mean(0))
    return np.clip(F.roughen(F.gauss(F.jitter(c, 8.0, rng), w), 0.4, rng), 0.0, 1.0)


class Muscle:
    """Muscle atoms on electrode-local fields (a motor unit is seen by one electrode)."""

    def __init__(self, scene: Scene, rng):
        self.scene = scene
        self.ids = scene.fields(F.roughen(F.local(9.0), 0.1, rng))
        self.fmax = min(120.0, 0.42 * scene.fs)

    def burst(
        self, t0: float, t1: float, weights, amp: float, rng, *, density: float = 120.0, window=None
    ) -> None:
        """A burst from ``t0`` to ``t1``; ``amp`` is roughly the rms (uV) on an electrode of
        weight 1, ``density`` the atoms per second there."""
        d = t1 - t0
        if d <= 0:
            return
        w = np.asarray(weights, float)
        on = np.flatnonzero(w > 0.12)
        counts = rng.poisson(density * w[on] * d)
        ch = np.repeat(on, counts)
        n = len(ch)
        if n == 0:
            return
        t = t0 + rng.random(n) * d
        u = (t - t0) / d
        env = np.clip(np.minimum(u, 1 - u) * d / min(0.25, d / 3), 0.0, 1.0)  # soft edges
        f = rng.uniform(20.0, self.fmax, n)
        ncyc = rng.uniform(0.7, 1.8, n)
        # rms of a dense sum of atoms: amplitude * sqrt(rate * sigma * sqrt(pi))
        norm = 1.0 / np.sqrt(density * np.mean(ncyc / f) * 1.77)
        a = amp * norm * env * np.sqrt(w[ch]) * np.exp(0.5 * rng.standard_normal(n))
        self.scene.add(
            GABOR, t, a, f, ncyc / f, rng.uniform(0, 6.3, n), 0.0, topo=self.ids[ch], window=window
        )


def _regional_fields(n: int, rng, wmin=30.0, wmax=70.0) -> np.ndarray:
    cs = F.random_centres(n, rng, -0.1)
    return F.gauss(cs, rng.uniform(wmin, wmax, n)) * rng.choice([-1.0, 1.0], (n, 1))


def eyes(scene: Scene, tl: Timeline, patient: dict, heavy: float, rng) -> tuple[Events, np.ndarray]:
    """Blinks, eye closure and opening, saccades, slow roving and rapid eye movements.

    Returns the events and the saccade times (lambda waves follow them).
    """
    art = patient["artifacts"]
    ev: Events = []
    br = art["blink_rate"] * min(heavy, 2.0)
    t = poisson_times(tl, np.array([1.0, 0.04, 0.3, 0, 0, 0.05]) * br, rng)
    dbl = rng.random(len(t)) < 0.12
    t = np.sort(np.concatenate([t, t[dbl] + rng.uniform(0.25, 0.45, int(dbl.sum()))]))
    n = len(t)
    if n:
        amp = art["blink_amp"] * np.exp(0.3 * rng.standard_normal(n))
        flds = F.roughen(np.tile(BLINK_FIELD, (n, 1)), 0.08, rng)
        scene.add(TRANS, t, amp, rng.uniform(0.07, 0.11, n), rng.uniform(0.11, 0.19, n), topo=flds)
        ev += [(a - 0.2, a + 0.5, "eye_blink") for a in t]
    # eye closure: the eyes roll up and stay (positive FP plateau for ~0.5-1 s); opening: blink
    for a in tl.transitions(EO, EC):
        scene.add(BOX, a, rng.uniform(60.0, 160.0), 0.06, rng.uniform(0.4, 1.2), topo=BLINK_FIELD)
        ev.append((a, a + 1.2, "eye_closure"))
    for a in tl.transitions(EC, EO):
        scene.add(TRANS, a, rng.uniform(80.0, 200.0), 0.08, 0.15, topo=BLINK_FIELD)
        ev.append((a - 0.2, a + 0.5, "eye_opening"))
    # saccades (look aside and back) with eyes open
    t = poisson_times(tl, np.array([1.0, 0, 0.1, 0, 0, 0]) * art["saccade_rate"], rng)
    n = len(t)
    if n:
        amp = rng.uniform(30.0, 130.0, n) * rng.choice([-1.0, 1.0], n)
        dur = rng.uniform(0.3, 2.0, n)
        scene.add(BOX, t, amp, rng.uniform(0.02, 0.04, n), dur, topo=LATERAL_FIELD)
        ev += [(a, a + d, "lateral_eye_movement") for a, d in zip(t, dur, strict=True)]
    saccades = t
    # slow roving eye movements of drowsiness
    t = poisson_times(tl, np.array([0, 0, 2.0, 0.3, 0, 0]) * _PM, rng)
    n = len(t)
    if n:
        f = rng.uniform(0.15, 0.5, n)
        scene.add(
            GABOR,
            t,
            rng.uniform(40.0, 110.0, n),
            f,
            rng.uniform(0.4, 0.8, n) / f,
            rng.uniform(0, 6.3, n),
            topo=LATERAL_FIELD,
        )
        ev += [(a - 2.0, a + 2.0, "slow_eye_movements") for a in t]
    # rapid eye movements of REM: bursts of saccades
    for a in poisson_times(tl, np.array([0, 0, 0, 0, 0, 3.0]) * _PM, rng):
        k = int(rng.integers(2, 7))
        tk = a + np.cumsum(rng.uniform(0.2, 0.9, k))
        scene.add(
            BOX,
            tk,
            rng.uniform(40.0, 120.0, k) * rng.choice([-1.0, 1.0], k),
            0.025,
            rng.uniform(0.15, 0.6, k),
            topo=LATERAL_FIELD,
        )
        ev.append((a, tk[-1] + 0.6, "rapid_eye_movements"))
    return ev, saccades


def muscle(scene: Scene, tl: Timeline, patient: dict, heavy: float, mus: Muscle, rng) -> Events:
    """Muscle bursts, continuous low-level muscle in tense patients, chewing."""
    art = patient["artifacts"]
    ev: Events = []
    rate = np.array([1.2, 0.8, 0.3, 0.08, 0.03, 0.05]) * art["emg"] * heavy * _PM
    for a in poisson_times(tl, rate, rng):
        d = float(np.clip(np.exp(rng.normal(np.log(2.0), 0.8)), 0.3, 25.0))
        region = list(_MUSCLE_P)[int(rng.choice(len(_MUSCLE_P), p=list(_MUSCLE_P.values())))]
        amp = float(np.exp(rng.normal(np.log(14.0), 0.6)))
        mus.burst(a, a + d, muscle_weights(region, rng), amp, rng)
        ev.append((a, a + d, f"muscle_{region}"))
    # tense patients: long stretches of low-level temporal/frontal muscle while awake
    if rng.random() < min(0.9, 0.2 * art["emg"] * heavy):
        awake = [(a, b) for a, b, s in tl.segments if s in (EO, EC) and b - a > 5]
        w = muscle_weights(str(rng.choice(["temporalis_both", "frontalis"])), rng)
        amp = float(rng.uniform(3.0, 10.0))
        for a, b in awake:
            mus.burst(a, b, w, amp, rng, density=30.0)
            ev.append((a, b, "muscle_tonic_low"))
    for a in poisson_times(tl, np.array([1.0, 0.6, 0, 0, 0, 0]) * art["chew"] * heavy, rng):
        d = float(rng.uniform(3.0, 20.0))
        chewing(scene, mus, a, a + d, rng)
        ev.append((a, a + d, "chewing"))
    return ev


def chewing(scene: Scene, mus: Muscle, t0: float, t1: float, rng, *, amp=None, window=None) -> None:
    """Rhythmic (1-2 Hz) bursts of temporalis muscle with a slow glossokinetic wave."""
    fr = rng.uniform(1.0, 1.9)
    tk, _u = C.cycle_times(t0, t1, fr, rng, jitter=0.06)
    amp = float(rng.uniform(20.0, 70.0)) if amp is None else amp
    w = muscle_weights("temporalis_both", rng)
    for a in tk:
        d = rng.uniform(0.15, 0.3)
        mus.burst(
            a,
            a + d,
            w * rng.uniform(0.7, 1.0),
            amp * rng.uniform(0.7, 1.3),
            rng,
            density=200.0,
            window=window,
        )
    fld = F.gauss(F.region_centre("frontopolar"), 50.0) * 0.6 + 0.4 * F.gauss(_LAT, 40.0).sum(0)
    scene.add(
        GABOR,
        tk + 0.1,
        rng.uniform(10.0, 40.0) * rng.uniform(0.7, 1.3, len(tk)),
        0.0,
        0.12,
        topo=fld,
        window=window,
    )


def movement(scene: Scene, mus: Muscle, t0: float, d: float, rng, *, amp=None, window=None) -> None:
    """Body or head movement: a few large irregular slow atoms on broad fields, and muscle."""
    k = int(rng.integers(3, 10))
    amp = float(np.exp(rng.normal(np.log(180.0), 0.5))) if amp is None else amp
    flds = F.roughen(_regional_fields(k, rng, 35.0, 90.0), 0.25, rng)
    t = t0 + rng.random(k) * d
    f = rng.uniform(0.0, 3.0, k)
    sig = rng.uniform(0.12, 0.6, k)
    scene.add(
        GABOR,
        t,
        amp * rng.uniform(0.4, 1.0, k),
        f,
        sig,
        rng.uniform(0, 6.3, k),
        rng.uniform(0.0, 2.0, k),
        topo=flds,
        window=window,
    )
    region = str(rng.choice(list(MUSCLE_REGIONS)))
    mus.burst(
        t0, t0 + d, muscle_weights(region, rng), float(rng.uniform(10.0, 45.0)), rng, window=window
    )


def body(scene: Scene, tl: Timeline, patient: dict, heavy: float, mus: Muscle, rng) -> Events:
    """Movement, tremor and patting episodes."""
    art = patient["artifacts"]
    ev: Events = []
    rate = np.array([1.0, 0.6, 0.5, 0.15, 0.05, 0.1]) * art["move"] * heavy
    for a in poisson_times(tl, rate, rng):
        d = float(rng.uniform(0.8, 8.0))
        movement(scene, mus, a, d, rng)
        ev.append((a, a + d, "movement"))
    if art["tremor"]:
        for a in poisson_times(tl, np.array([0.4, 0.4, 0.1, 0, 0, 0]) * _PM, rng):
            d, fr = float(rng.uniform(5.0, 60.0)), float(rng.uniform(4.0, 7.0))
            tk, u = C.cycle_times(a, a + d, fr, rng, jitter=0.04, drift=0.05)
            fld = _regional_fields(1, rng, 40.0, 70.0)[0]
            env = np.clip(np.minimum(u, 1 - u) * d / 1.5, 0.0, 1.0)
            C.wave_train(scene, tk, fr, rng.uniform(15.0, 70.0) * env, fld, k=0.4, brain=False)
            ev.append((a, a + d, "tremor"))
    if art["patting"]:
        for a in poisson_times(tl, np.array([0.3, 0.3, 0.4, 0.1, 0, 0]) * _PM, rng):
            d, fr = float(rng.uniform(5.0, 60.0)), float(rng.uniform(1.2, 3.5))
            tk, u = C.cycle_times(a, a + d, fr, rng, jitter=0.06)
            fld = _regional_fields(1, rng, 30.0, 60.0)[0]
            C.wave_train(
                scene,
                tk,
                fr,
                rng.uniform(40.0, 180.0),
                fld,
                k=rng.uniform(2.0, 5.0),
                ncyc=0.35,
                brain=False,
            )
            ev.append((a, a + d, "patting"))
    return ev


def electrode(scene: Scene, tl: Timeline, rec: dict, heavy: float, rng) -> Events:
    """Pops on the recording's flaky electrodes, slow drifts, sweat sway."""
    ev: Events = []
    for e in rec["flaky"]:
        rate = rng.uniform(0.2, 2.0) * min(heavy, 2.0) * _PM  # pops per second
        n_cl = rng.poisson(rate / 2.0 * tl.duration)  # in clusters of ~2
        starts = rng.uniform(0, tl.duration, n_cl)
        sign = rng.choice([-1.0, 1.0])
        fld = np.zeros(F.N_CH)
        fld[e] = 1.0
        for a in starts:
            k = int(rng.integers(1, 4))
            tk = a + np.sort(rng.uniform(0.0, 8.0, k)) * (k > 1)
            amp = sign * rng.uniform(80.0, 700.0, k) * rng.choice([1.0, -0.5], k, p=[0.85, 0.15])
            scene.add(
                POP, tk, amp, rng.uniform(0.003, 0.015, k), rng.uniform(0.12, 1.2, k), topo=fld
            )
            ev += [(b, b + 1.0, "electrode_pop") for b in tk]
    n = rng.poisson(rng.uniform(0.1, 0.6) * heavy * _PM * tl.duration)
    if n:
        t = rng.uniform(0, tl.duration, n)
        flds = F.roughen(_regional_fields(n, rng, 20.0, 60.0), 0.3, rng)
        sig = rng.uniform(1.0, 6.0, n)
        scene.add(GABOR, t, rng.uniform(30.0, 200.0, n), 0.0, sig, topo=flds)
        ev += [(a - 2 * s, a + 2 * s, "slow_drift") for a, s in zip(t, sig, strict=True)]
    if rec["sweat"]:
        a = float(rng.uniform(0, 0.7) * tl.duration)
        d = float(min(tl.duration - a, rng.uniform(120.0, 1200.0)))
        n = rng.poisson(0.6 * d)
        fld = F.roughen(
            F.gauss(
                F.jitter(
                    F.region_centre(str(rng.choice(["frontal", "L_temporal", "R_temporal"]))),
                    10.0,
                    rng,
                ),
                50.0,
            ),
            0.3,
            rng,
        )
        f = rng.uniform(0.15, 0.5, n)
        scene.add(
            GABOR,
            a + rng.random(n) * d,
            rng.uniform(20.0, 80.0, n),
            f,
            rng.uniform(0.6, 1.5, n) / f,
            rng.uniform(0, 6.3, n),
            topo=fld,
        )
        ev.append((a, a + d, "sweat"))
    return ev


def cardiac(scene: Scene, tl: Timeline, patient: dict, rng) -> Events:
    """ECG pick-up (QRS-T molecule per beat, heart-rate variability) and pulse artifact."""
    art = patient["artifacts"]
    amp = art["ecg_amp"] * rng.uniform(0.6, 1.4)
    hr = art["heart_rate"] * rng.uniform(0.9, 1.1)
    n = int(tl.duration * hr / 60.0 * 1.2) + 4
    rr = (
        60.0
        / hr
        * (
            1.0
            + 0.04 * np.sin(2 * np.pi * np.arange(n) * 60.0 / hr / rng.uniform(3.5, 6.0))
            + 0.02 * rng.standard_normal(n)
        )
    )
    t = rng.uniform(0, 1) + np.cumsum(rr)
    t = t[t < tl.duration + 1]
    v = F.unit(np.array([-0.2, 0.8, -0.6]) + 0.25 * rng.standard_normal(3))
    fld = F.XYZ @ v
    fld = F.roughen(fld / np.abs(fld).max(), 0.05, rng)
    ids = scene.fields(fld)
    scene.add(TRANS, t - 0.03, -0.12 * amp, 0.01, 0.01, topo=ids)
    scene.add(TRANS, t, amp, 0.011, 0.013, topo=ids)
    scene.add(TRANS, t + 0.032, -0.3 * amp, 0.01, 0.018, topo=ids)
    scene.add(GABOR, t + 0.26, 0.25 * amp, 0.0, 0.05, topo=ids)
    ev: Events = [(0.0, tl.duration, "ecg")] if amp > 3.0 else []
    if art["pulse"]:
        e = np.zeros(F.N_CH)
        e[int(rng.integers(0, 19))] = 1.0
        scene.add(GABOR, t + 0.22, rng.uniform(20.0, 60.0), 0.0, 0.1, topo=e)
        ev.append((0.0, tl.duration, "pulse"))
    return ev


def ventilator(scene: Scene, tl: Timeline, rng) -> Events:
    """Mechanical ventilation: a slow wave with every breath (12-25 per minute)."""
    fr = rng.uniform(12.0, 25.0) / 60.0
    tk, _u = C.cycle_times(0.0, tl.duration, fr, rng, jitter=0.01)
    fld = _regional_fields(1, rng, 30.0, 60.0)[0]
    scene.add(GABOR, tk, rng.uniform(10.0, 40.0), 0.0, rng.uniform(0.4, 0.9), topo=fld)
    return [(0.0, tl.duration, "ventilator")]


def add_artifacts(
    scene: Scene, tl: Timeline, patient: dict, rec: dict, mus: Muscle, rng
) -> tuple[Events, np.ndarray]:
    """Every artifact process; returns events and the saccade times (for lambda waves)."""
    heavy = rec["heavy"]
    ev, saccades = eyes(scene, tl, patient, heavy, rng)
    ev += muscle(scene, tl, patient, heavy, mus, rng)
    ev += body(scene, tl, patient, heavy, mus, rng)
    ev += electrode(scene, tl, rec, heavy, rng)
    ev += cardiac(scene, tl, patient, rng)
    if rec["ventilator"]:
        ev += ventilator(scene, tl, rng)
    return ev, saccades
