"""Physiological artifacts from sources outside the brain, and movement.

Eyes: each eye is a corneoretinal dipole (cornea positive) that rotates with the gaze, so
an upward rotation (Bell's phenomenon in a blink, eye closure) makes FP1/FP2 positive and a
look to the left makes F7 positive and F8 negative; the lid sliding over the cornea adds its
own frontal positivity. Muscles: clusters of small dipoles just outside the skull
(frontalis, temporalis, masseter, neck) with independent high-frequency activity, so EMG is
very local and incoherent between electrodes. Tongue: a dipole (tip negative) whose
movements give diffuse slow glossokinetic potentials. Heart: a distant dipole turning through
the P, QRS and T vectors, seen on the head as a smooth field. Movement and rhythmic
mechanical artifacts (tremor, patting) act on the electrodes themselves.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from .head import average_reference, direction
from .recording import Recording
from .signals import (
    CTRL_FS,
    add_at,
    add_outer,
    ctrl_to_samples,
    filtered_noise,
    gauss,
    lognormal_mod,
    poisson_times,
    slow_noise,
    slow_series,
    sos,
    tukey,
)
from .states import WAKE

# Muscle regions: (polar range, |azimuth| range) in degrees, fibre direction ('vertical' or
# 'horizontal'), dipoles per side.
_MUSCLES = {
    "frontalis": ((72, 92), (8, 38), "vertical"),
    "temporalis": ((68, 102), (48, 105), "vertical"),
    "masseter": ((108, 124), (62, 88), "vertical"),
    "neck": ((104, 126), (138, 176), "vertical"),
}
_EYE = np.array([0.78, 0.30, -0.36])
_LID = np.array([0.86, 0.30, -0.24])
_TONGUE = np.array([0.35, 0.0, -0.78])
# The heart's currents reach the head through the neck: its equivalent source for the scalp
# sits at the base of the neck, left of the midline (so the ears and low electrodes see most).
_HEART = np.array([-0.15, 0.3, -1.75])


def _mirror(v):
    return v * np.array([1.0, -1.0, 1.0])


def eye_fields(rec: Recording) -> dict:
    """Unit eye fields: vertical and horizontal rotation of both eyes, and the lids."""
    if "eyes" not in rec.cache:
        h = rec.head
        pos = np.stack([_EYE, _mirror(_EYE)])
        up = h.extracranial(pos, np.array([[0, 0, 1.0]] * 2)).sum(axis=1)
        left = h.extracranial(pos, np.array([[0, 1.0, 0]] * 2)).sum(axis=1)
        lid = h.extracranial(np.stack([_LID, _mirror(_LID)]), np.array([[0, 0, 1.0]] * 2)).sum(
            axis=1
        )
        ar = average_reference
        fp1, f7 = 0, 10
        up, left, lid = ar(up), ar(left), ar(lid)
        rec.cache["eyes"] = {"v": up / up[fp1], "h": left / left[f7], "lid": lid / lid[fp1]}
    return rec.cache["eyes"]


def muscle_fields(rec: Recording) -> dict:
    """Per muscle and side, a (21, D) field matrix; unit noise gives 1 µV rms at the most
    affected electrode (average reference)."""
    if "muscles" not in rec.cache:
        rng = np.random.default_rng([int(rec.patient["anatomy"]["seed"]), 0x3C])
        out = {}
        for name, ((p0, p1), (a0, a1), _fib) in _MUSCLES.items():
            for side, sgn in (("left", 1), ("right", -1)):
                d = 4
                pos = np.stack(
                    [
                        0.95 * direction(rng.uniform(p0, p1), sgn * rng.uniform(a0, a1))
                        for _ in range(d)
                    ]
                )
                # Fibres run roughly vertically along the scalp: the tangent towards the vertex.
                z = np.array([0, 0, 1.0])
                u = pos / np.linalg.norm(pos, axis=1, keepdims=True)
                fib = z - (u @ z)[:, None] * u
                fib /= np.linalg.norm(fib, axis=1, keepdims=True)
                fib += 0.4 * rng.standard_normal(fib.shape)
                fib -= (fib * u).sum(axis=1, keepdims=True) * u
                m = rec.head.extracranial(pos, fib)
                m = average_reference(m)
                out[(name, side)] = m / np.sqrt((m**2).sum(axis=1)).max()
        rec.cache["muscles"] = out
    return rec.cache["muscles"]


def _emg_filter(fs):
    return sos("band", fs, 22.0, min(160.0, 0.42 * fs), order=2)


def emg(
    rec: Recording,
    t0: float,
    t1: float,
    muscles,
    level_uv: float,
    rng,
    env=None,
    kind: str | None = "emg",
) -> None:
    """Muscle activity of ``muscles`` (list of (name, side)) between t0 and t1.

    Parameters
    ----------
    level_uv : float
        RMS at the most affected electrode at full activation.
    env : ndarray, optional
        Activation over the interval (samples from ``t0``); default a burst with soft edges.
    """
    a_raw = rec.idx(t0)
    a, b = max(a_raw, 0), min(rec.idx(t1), rec.n)
    if b - a < 4:
        return
    m = b - a
    if env is not None:
        env = np.asarray(env)[a - a_raw : a - a_raw + m]
        env = np.pad(env, (0, m - len(env)))
    else:
        edge = min(0.15, 0.3 * (t1 - t0))
        tt = np.arange(m) / rec.fs
        env = np.clip(tt / edge, 0, 1) * np.clip((t1 - t0 - tt) / edge, 0, 1)
        env = env * ctrl_to_samples(lognormal_mod(rng, int((t1 - t0) * 8) + 2, 0.3, 0.4), m, rec.fs)
    fields = muscle_fields(rec)
    filt = _emg_filter(rec.fs)
    for mus in muscles:
        f = fields[mus]
        z = filtered_noise(rng, f.shape[1], m, filt, rec.fs, warm_s=0.5)
        z *= (env * level_uv * rng.lognormal(0, 0.25)).astype(np.float32)
        rec.extra[:, a:b] += f.astype(np.float32) @ z
    if kind:
        rec.event(t0, t1, kind)


def _both(name):
    return [(name, "left"), (name, "right")]


def chewing(rec: Recording, t0: float, t1: float, rng, kind: str = "chewing") -> None:
    """Rhythmic jaw-closing bursts (temporalis and masseter) with glossokinetic swings."""
    fs = rec.fs
    t1 = min(t1, rec.duration)
    m = rec.idx(t1) - rec.idx(t0)
    if m < 8:
        return
    f = rng.uniform(0.9, 1.8) * np.exp(slow_series(rng, m, fs, 1.0, 0.08))
    ph = np.cumsum(f) / fs
    frac = ph % 1.0
    env = np.exp(-0.5 * ((frac - 0.5) / 0.09) ** 2) * tukey(m, 0.1)
    level = rng.uniform(25, 90) * rec.patient["habits"]["muscle_tension"] ** 0.3
    emg(rec, t0, t1, _both("temporalis") + _both("masseter"), level, rng, env=env, kind=None)
    glossokinetic(rec, t0, t1, rng, rate_hz=f.mean(), level=rng.uniform(10, 40), kind=None)
    rec.event(t0, t1, kind)


def glossokinetic(rec: Recording, t0, t1, rng, rate_hz=2.0, level=30.0, kind="glossokinetic"):
    """Slow potentials of the moving tongue dipole (tip negative)."""
    if "tongue" not in rec.cache:
        h = rec.head
        back = average_reference(h.extracranial(_TONGUE, np.array([-1.0, 0, 0]))[:, 0])
        up = average_reference(h.extracranial(_TONGUE, np.array([0, 0, 1.0]))[:, 0])
        sc = np.abs(back).max()
        rec.cache["tongue"] = (back / sc, up / sc)
    back, up = rec.cache["tongue"]
    a, b = rec.idx(t0), rec.idx(min(t1, rec.duration))
    if b - a < 8:
        return
    z = filtered_noise(rng, 2, b - a, sos("low", rec.fs, max(rate_hz * 1.5, 1.0)), rec.fs)
    z *= tukey(b - a, 0.2).astype(np.float32) * np.float32(level)
    rec.extra[:, a:b] += np.outer(back, z[0]) + np.outer(up, 0.6 * z[1])
    if kind:
        rec.event(t0, t1, kind)


def movement(rec: Recording, t0: float, t1: float, rng, level=1.0, kind="movement") -> None:
    """Head or body movement: electrodes and leads shift (large slow swings on a group of
    electrodes), neck and jaw muscles contract."""
    a, b = rec.idx(t0), rec.idx(min(t1, rec.duration))
    m = b - a
    if m < 8:
        return
    k = int(rng.integers(3, 12))
    center = rec.head.elec[int(rng.integers(19))]
    near = np.argsort(-(rec.head.elec @ center))[:k]
    z = filtered_noise(rng, k, m, sos("band", rec.fs, 0.3, rng.uniform(2, 6), order=1), rec.fs)
    amp = rng.lognormal(np.log(80), 0.6) * level
    z *= (tukey(m, 0.3) * amp).astype(np.float32)
    z *= rng.uniform(0.3, 1.0, (k, 1)).astype(np.float32)
    rec.extra[near, a:b] += z
    if rng.random() < 0.6:
        mus = [("neck", "left"), ("neck", "right")]
        if rng.random() < 0.5:
            mus += _both("temporalis")
        emg(rec, t0, t1, mus, rng.uniform(5, 40) * level, rng, kind=None)
    if kind:
        rec.event(t0, t1, kind)


# ---- eyes ---------------------------------------------------------------------------------


def eyes(rec: Recording, rng) -> None:
    """Blinks, saccades, eye closure (Bell's phenomenon), lid flutter, slow roving and REM
    eye movements, lambda waves."""
    fs, n, plan = rec.fs, rec.n, rec.plan
    hab = rec.patient["habits"]
    fld = eye_fields(rec)
    per10 = hab["saccade_uv_per_10deg"]
    # Gaze angles (degrees) over the whole recording, then one outer product each.
    horiz = np.zeros(n, dtype=np.float32)
    vert = np.zeros(n, dtype=np.float32)
    # Eyes closed: the globes roll up and stay up; the field at FP1/FP2 steps up and down
    # with every closure and opening.
    bell = rng.uniform(6, 14)
    vert += bell * ctrl_to_samples(plan.member["wake_ec"], n, fs)
    # Saccades and fixations while awake with eyes open.
    t_sac = poisson_times(
        rng, lambda t: plan.rate(t, {"wake_eo": 0.8, "wake_ec": 0.03}), rec.duration, 0.8
    )
    steps_h = np.zeros(n, dtype=np.float32)
    steps_v = np.zeros(n, dtype=np.float32)
    pos_h, pos_v = 0.0, 0.0
    for t in t_sac:
        new_h = float(np.clip(rng.normal(0, 9), -30, 30))
        new_v = float(np.clip(rng.normal(0, 4), -12, 12))
        i = rec.idx(t)
        if i < n:
            steps_h[i] += new_h - pos_h
            steps_v[i] += new_v - pos_v
        pos_h, pos_v = new_h, new_v
    sac = max(3, int(0.04 * fs))
    kern = np.ones(sac, dtype=np.float32) / sac
    # Saccades only show while the eyes are open (closed or asleep they rest centrally).
    eo = ctrl_to_samples(plan.member["wake_eo"], n, fs)
    horiz += np.convolve(np.cumsum(steps_h), kern, mode="same").astype(np.float32) * eo
    vert += np.convolve(np.cumsum(steps_v), kern, mode="same").astype(np.float32) * eo
    for a, b, s in plan.segments:
        if s == "wake_eo":
            rec.event(a, b, "eye_movements")
    # Slow roving eye movements of drowsiness.
    n_ctrl = rec.n_ctrl
    roving = slow_noise(rng, n_ctrl, 2.5, rng.uniform(8, 18)) * plan.member["drowsy"]
    horiz += ctrl_to_samples(roving, n, fs)
    for a, b, s in plan.segments:
        if s == "drowsy" and b - a > 20:
            rec.event(a, b, "slow_eye_movements")
    # Rapid eye movements in REM: bursts of conjugate saccades.
    rem_t = poisson_times(rng, lambda t: plan.rate(t, {"rem": 0.25}), rec.duration, 0.25)
    for t in rem_t:
        k = int(rng.integers(2, 8))
        tt = t + np.cumsum(rng.uniform(0.3, 1.2, k))
        ang = rng.normal(0, 15, k)
        for j in range(k):
            i = rec.idx(tt[j])
            hold = int(rng.uniform(0.2, 0.8) * fs)
            seg = np.full(hold, ang[j], dtype=np.float32)
            seg *= np.minimum(1, np.arange(hold) / (0.05 * fs)).astype(np.float32)
            if i + hold < n:
                horiz[i : i + hold] += seg
        rec.event(t, float(tt[-1]) + 0.8, "rem_eye_movements")
    # Blinks.
    rate = hab["blink_per_min"] * (0.7 + 0.3 * rec.art) / 60.0
    t_bl = poisson_times(
        rng,
        lambda t: plan.rate(t, {"wake_eo": rate, "wake_ec": 0.1 * rate, "drowsy": 0.3 * rate}),
        rec.duration,
        rate,
    )
    tt = np.arange(int(0.6 * fs)) / fs
    for t in t_bl:
        up = rng.uniform(0.07, 0.12)
        w = np.where(tt < up + 0.05, gauss(tt, up + 0.05, up / 2), gauss(tt, up + 0.05, up))
        amp = hab["blink_uv"] * rng.lognormal(0, 0.25)
        topo = 0.45 * fld["v"] + 0.55 * fld["lid"]
        add_at(rec.extra, topo * amp, rec.idx(t), w)
        if rng.random() < 0.12:  # double blink
            add_at(rec.extra, topo * amp * 0.8, rec.idx(t + rng.uniform(0.35, 0.6)), w)
        rec.event(t, t + 0.5, "blink")
    # Lid flutter with the eyes closed (looks like frontal rhythmic activity).
    for a, b, s in plan.segments:
        if s == "wake_ec" and rng.random() < 0.12 * rec.art and b - a > 6:
            t0 = a + rng.uniform(0.5, 3.0)
            dur = rng.uniform(1.0, 5.0)
            f = rng.uniform(3.0, 8.0)
            m = int(dur * fs)
            ts = np.arange(m) / fs
            w = np.sin(2 * np.pi * f * ts) * tukey(m, 0.3)
            add_at(rec.extra, fld["lid"] * rng.uniform(15, 50), rec.idx(t0), w)
            rec.event(t0, t0 + dur, "eyelid_flutter")
    add_outer(rec.extra, fld["h"] * per10 / 10.0, horiz)
    add_outer(rec.extra, fld["v"] * per10 / 10.0, vert)
    if rec.patient["variants"]["lambda"]:
        _lambda_waves(rec, rng, t_sac)


def _lambda_waves(rec: Recording, rng, t_sac) -> None:
    """Occipital positive sharp transients after saccades while scanning."""
    from .transients import named_topo

    topo = named_topo(rec, "occipital_pole", "both", 2.5)
    tt = np.arange(int(0.3 * rec.fs)) / rec.fs
    w = gauss(tt, 0.1, 0.025) - 0.3 * gauss(tt, 0.17, 0.03)
    for t in t_sac:
        if rng.random() < 0.35:
            add_at(rec.brain, topo * rng.uniform(15, 35), rec.idx(t), w)


# ---- muscles, mouth, heart, movement -------------------------------------------------------


def muscles(rec: Recording, rng) -> None:
    """Tonic muscle tone while awake, EMG bursts, chewing, talking, swallowing."""
    hab = rec.patient["habits"]
    art, plan = rec.art, rec.plan
    tension = hab["muscle_tension"] * art
    fields = muscle_fields(rec)
    names = list(fields)
    # Tone: a few muscles tense through wakefulness (frontalis, jaw, neck).
    k = int(np.clip(rng.poisson(0.8 * tension), 0, 4))
    for i in rng.choice(len(names), size=k, replace=False):
        mus = names[int(i)]
        level = rng.lognormal(np.log(4.0), 0.6) * tension**0.5
        env = plan.mix(
            {"wake_eo": 1.0, "wake_ec": 0.7, "drowsy": 0.3, "rem": 0.02, "n2": 0.1, "n3": 0.05}
        ) * lognormal_mod(rng, rec.n_ctrl, 20.0, 0.6)
        # Only where the muscle is tense (sleep leaves long stretches without tone).
        on = np.flatnonzero(np.diff(np.r_[0, (env > 0.03).astype(int), 0]))
        for i0, i1 in zip(on[::2], on[1::2], strict=True):
            t0, t1 = i0 / CTRL_FS, min(i1 / CTRL_FS, rec.duration)
            m = rec.idx(t1) - rec.idx(t0)
            if m < 16:
                continue
            e = np.interp(np.arange(m) / rec.fs + t0, np.arange(len(env)) / CTRL_FS, env)
            emg(rec, t0, t1, [mus], level, rng, env=e[: rec.idx(t1) - rec.idx(t0)], kind=None)
        rec.event(0.0, rec.duration, f"muscle_tone_{mus[0]}_{mus[1]}")
    groups = [
        _both("frontalis"),
        _both("temporalis"),
        [("temporalis", "left")],
        [("temporalis", "right")],
        _both("neck"),
        _both("masseter") + _both("temporalis"),
        [("frontalis", "left"), ("temporalis", "left")],
    ]
    r = 1.2 * tension
    wake = {
        "wake_eo": r,
        "wake_ec": 0.6 * r,
        "drowsy": 0.3 * r,
        "n2": 0.05 * r,
        "n3": 0.02 * r,
        "rem": 0.02 * r,
    }
    for t in poisson_times(rng, lambda x: plan.rate(x, wake) / 60, rec.duration, r / 60):
        dur = float(np.clip(rng.lognormal(np.log(1.5), 0.9), 0.15, 25))
        grp = groups[int(rng.integers(len(groups)))]
        emg(rec, t, t + dur, grp, rng.lognormal(np.log(35), 0.7), rng)
    slow = {"wake_eo": 1.0, "wake_ec": 0.4, "drowsy": 0.1}
    for t in poisson_times(
        rng, lambda x: plan.rate(x, slow) * 2.0 * art / 3600, rec.duration, 2.0 * art / 3600
    ):
        chewing(rec, t, t + rng.lognormal(np.log(20), 0.7), rng)
    for t in poisson_times(
        rng, lambda x: plan.rate(x, slow) * 3.0 * art / 3600, rec.duration, 3.0 * art / 3600
    ):
        _talking(rec, t, t + rng.lognormal(np.log(12), 0.7), rng)
    for t in poisson_times(
        rng, lambda x: plan.rate(x, {**slow, "n2": 0.05}) * 0.4 / 60, rec.duration, 0.4 / 60
    ):
        dur = rng.uniform(0.5, 1.2)
        emg(rec, t, t + dur, _both("masseter") + _both("neck"), rng.uniform(20, 70), rng, kind=None)
        glossokinetic(rec, t, t + dur + 0.5, rng, 1.5, rng.uniform(10, 30), kind=None)
        rec.event(t, t + dur, "swallow")


def _talking(rec: Recording, t0: float, t1: float, rng) -> None:
    fs = rec.fs
    m = rec.idx(t1) - rec.idx(t0)
    if m < 8:
        return
    gate = ctrl_to_samples((slow_noise(rng, int((t1 - t0) * 8) + 2, 0.25) > -0.2) * 1.0, m, fs)
    emg(
        rec,
        t0,
        t1,
        _both("masseter") + _both("frontalis") + _both("temporalis"),
        rng.uniform(15, 60),
        rng,
        env=gate * tukey(m, 0.1),
        kind=None,
    )
    glossokinetic(rec, t0, t1, rng, rate_hz=3.0, level=rng.uniform(15, 50), kind=None)
    rec.event(t0, t1, "talking")


def heart(rec: Recording, rng) -> None:
    """ECG: the heart's P, QRS and T vectors, and a pulse artifact under some electrodes."""
    hab = rec.patient["habits"]
    fs, n = rec.fs, rec.n
    ax = np.deg2rad(hab["ecg_axis_deg"] + rng.normal(0, 5))
    q_dir = np.array([0.25, np.cos(ax), -np.sin(ax)])
    t_dir = np.array([0.3, np.cos(ax + 0.3), -np.sin(ax + 0.3)])
    p_dir = np.array([0.1, np.cos(np.deg2rad(55)), -np.sin(np.deg2rad(55))])
    fields = [
        average_reference(rec.head.extracranial(_HEART, d, sheet=False)[:, 0])
        for d in (p_dir, q_dir, t_dir)
    ]
    sc = np.abs(fields[1]).max()
    amp = hab["ecg_uv"] * rng.lognormal(0, 0.2)
    # Beats: heart rate with respiratory sinus arrhythmia and slow drift.
    hr = hab["heart_rate"] * rng.lognormal(0, 0.05)
    n_ctrl = rec.n_ctrl
    hr_t = (
        hr
        * np.exp(0.06 * slow_noise(rng, n_ctrl, 60.0))
        * (1 - 0.08 * rec.plan.mix({"n2": 1, "n3": 1.3}))
    )
    beats = []
    t = rng.uniform(0, 1)
    while t < rec.duration:
        beats.append(t)
        rr = 60.0 / hr_t[min(int(t * 8), n_ctrl - 1)]
        rr *= 1 + 0.04 * np.sin(2 * np.pi * 0.25 * t)
        if rng.random() < 0.005:
            rr *= 0.65  # a premature beat
        t += rr
    rr0 = 60.0 / hr
    tt = np.arange(-0.3, 0.5, 1 / fs)
    qt = 0.25 * np.sqrt(rr0)
    waves = [
        0.12 * gauss(tt, -0.16, 0.022),
        -0.1 * gauss(tt, -0.025, 0.008) + gauss(tt, 0.0, 0.011) - 0.25 * gauss(tt, 0.028, 0.01),
        0.28 * gauss(tt, qt, 0.045),
    ]
    train = np.zeros(n + len(tt), dtype=np.float32)
    idx = (np.asarray(beats) * fs).astype(int)
    idx = idx[idx < n]
    train[idx] = 1.0
    off = int(0.3 * fs)
    for fld, w in zip(fields, waves, strict=True):
        sig = signal.fftconvolve(train, w.astype(np.float32))[off : off + n]
        add_outer(rec.extra, fld / sc * amp, sig)
    if amp > 4:
        rec.event(0.0, rec.duration, "ecg")
    if hab["pulse_artifact"] or rng.random() < 0.03:
        e = int(rng.choice([0, 1, 10, 11, 12, 13, 16, 17]))
        tp = np.arange(int(0.6 * fs)) / fs
        w = gauss(tp, 0.25, 0.07) - 0.3 * gauss(tp, 0.45, 0.08)
        pulse = signal.fftconvolve(train, w.astype(np.float32))[:n]
        rec.extra[e] += (rng.uniform(15, 70) * pulse).astype(np.float32)
        rec.event(0.0, rec.duration, "pulse_artifact")


def movements(rec: Recording, rng) -> None:
    """Movements, tremor, patting, and arousals from sleep."""
    art, plan = rec.art, rec.plan
    rates = {
        "wake_eo": 4.0 * art,
        "wake_ec": 1.5 * art,
        "drowsy": 1.5 * art,
        "n2": 0.8 * art,
        "n3": 0.3 * art,
        "rem": 0.6 * art,
    }
    mx = max(rates.values())
    for t in poisson_times(rng, lambda x: plan.rate(x, rates) / 3600, rec.duration, mx / 3600):
        dur = float(np.clip(rng.lognormal(np.log(4), 0.8), 0.8, 40))
        movement(rec, t, t + dur, rng, level=rng.lognormal(0, 0.4))
    # Arousals: movement as the patient wakes from sleep.
    segs = plan.segments
    for k in range(1, len(segs)):
        if segs[k][2] in WAKE and segs[k - 1][2] in ("n2", "n3", "rem") and rng.random() < 0.7:
            t = segs[k][0] - rng.uniform(0, 5)
            movement(
                rec,
                t,
                t + rng.uniform(2, 12),
                rng,
                level=rng.lognormal(0, 0.4),
                kind="arousal_movement",
            )
    hab = rec.patient["habits"]
    if hab["tremor_hz"] > 0:
        for t in poisson_times(
            rng, lambda x: plan.rate(x, {"wake_eo": 6, "wake_ec": 6}) / 3600, rec.duration, 6 / 3600
        ):
            _rhythmic(
                rec,
                t,
                t + rng.uniform(10, 120),
                hab["tremor_hz"],
                rng,
                "tremor",
                amp=rng.uniform(8, 40),
                sharp=0.2,
            )
    if hab["patting"]:
        for t in poisson_times(
            rng,
            lambda x: plan.rate(x, {"wake_eo": 3, "wake_ec": 3, "drowsy": 4}) * art / 3600,
            rec.duration,
            4 * art / 3600,
        ):
            _rhythmic(
                rec,
                t,
                t + rng.uniform(8, 90),
                rng.uniform(1.5, 3.5),
                rng,
                "patting",
                amp=rng.uniform(30, 150),
                sharp=0.7,
            )


def _rhythmic(rec: Recording, t0, t1, f0, rng, kind, amp, sharp) -> None:
    """A rhythmic mechanical artifact on a group of neighbouring electrodes."""
    a, b = rec.idx(t0), rec.idx(min(t1, rec.duration))
    m = b - a
    if m < 16:
        return
    k = int(rng.integers(2, 7))
    center = rec.head.elec[int(rng.integers(19))]
    near = np.argsort(-(rec.head.elec @ center))[:k]
    f = f0 * np.exp(slow_series(rng, m, rec.fs, 2.0, 0.05))
    ph = 2 * np.pi * np.cumsum(f) / rec.fs
    w = np.sin(ph) + sharp * np.sin(2 * ph + 0.5) + 0.5 * sharp * np.sin(3 * ph + 1.0)
    gate = ctrl_to_samples(
        1 / (1 + np.exp(-3 * slow_noise(rng, int((t1 - t0) * 8) + 2, 3.0))) + 0.3, m, rec.fs
    )
    w = (w * gate * tukey(m, 0.1)).astype(np.float32)
    gains = rng.uniform(-1, 1, k) * amp
    rec.extra[near, a:b] += np.outer(gains, w).astype(np.float32)
    rec.event(t0, t1, kind)
