"""Physiological transients, benign variants, interictal discharges, photic stimulation and
hyperventilation of the ``simple`` generator."""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.simple.prims import (
    GEN,
    MUSCLE,
    Rec,
    add,
    band,
    bump,
    emg,
    flat_env,
    gauss_field,
    noise,
    nudge,
    poisson_times,
    rhythm,
    slow,
    sstep,
    toward,
)


def brain_events(out, rng, P: dict, S: Rec, seizures=()) -> None:
    """Sleep graphoelements, benign variants, interictal discharges, photic and HV.

    Events drawn to start inside a seizure are dropped (after drawing them, so that the
    stream, and everything outside the seizures, does not depend on the seizures)."""
    fs, d, k = S.fs, S.depth, S.k
    u = rng.uniform
    nc = S.tc.size
    focus = np.array(P["focus_xyz"])

    def per_min(xp, fp):
        return np.interp(d, xp, fp) / 60.0

    def spindle(r, dur=None):
        dur = dur or r.uniform(0.5, 2.0)
        tt = np.arange(int(dur * fs)) / fs
        f = P["spindle_hz"] + r.uniform(-0.7, 0.7)
        x = np.sin(2 * np.pi * (f - 0.3 * tt) * tt) * np.sin(np.pi * tt / dur) ** 2
        return (
            x * P["spindle_amp"] * k * r.uniform(0.6, 1.4),
            gauss_field(nudge(r, toward("CZ", "FZ"), 0.15), 0.55),
            dur,
        )

    def transient(shape, dur, amp, fld):
        def make(r):
            tt = np.arange(int(dur * fs)) / fs
            return shape(r, tt) * amp(r) * k, fld(r), dur

        return make

    def kcomplex(r):
        x, w, dur = transient(
            lambda r, tt: -bump(tt, 0.3, 0.08, 0.15) + 0.55 * bump(tt, 0.75, 0.15, 0.25),
            1.4,
            lambda r: r.uniform(100, 300),
            lambda r: gauss_field(nudge(r, toward("FZ", "CZ"), 0.1), 0.55),
        )(r)
        if r.random() < 0.5:
            s, _, _ = spindle(r, 0.8)
            x[int(0.6 * fs) : int(0.6 * fs) + s.size] += s[: x.size - int(0.6 * fs)]
        return x, w, dur

    def ied(r):
        wsp = r.uniform(0.012, 0.022) if r.random() > P["ied_sharp"] else r.uniform(0.03, 0.06)
        tt = np.arange(int((0.5 + 4 * wsp) * fs)) / fs
        c = 0.06
        x = (
            -bump(tt, c, 0.7 * wsp, wsp)
            + 0.3 * bump(tt, c + 2.5 * wsp, 1.5 * wsp)
            - r.uniform(0.2, 0.6) * bump(tt, c + 2.5 * wsp + 0.13, 0.06)
        )
        fld = gauss_field(nudge(r, focus, 0.1), r.uniform(0.3, 0.5))
        return x * r.uniform(50, 220) * k, fld, tt[-1]

    def rhythmic(frange, drange, arange_, fld, **kw):
        def make(r):
            dur = r.uniform(*drange)
            m = int(dur * fs)
            f = r.uniform(*frange)
            x = rhythm(r, m, fs, f, f * r.uniform(0.92, 1.05), **kw) * flat_env(m, fs, 0.3 * dur)
            return x * r.uniform(*arange_) * k, fld(r), dur

        return make

    def side(name_l, name_r, sig):
        return lambda r: gauss_field(toward(name_l if r.random() < 0.5 else name_r), sig)

    cluster = np.exp(1.0 * slow(rng, nc, 300.0) - 0.5)  # interictal discharges cluster
    ied_rate = P["ied_rate"] / 3600 * np.interp(d, [0, 1, 2, 3], [1, 1.5, 2.5, 3]) * cluster
    ben = P["benign"]
    table = [
        ("spindle", per_min([1.2, 2, 3], [0, 6, 2]), spindle),
        (
            "vertex_wave",
            per_min([0.5, 1, 2, 3], [0, 4, 3, 0.5]),
            transient(
                lambda r, tt: -bump(tt, 0.12, 0.035, 0.05) + 0.35 * bump(tt, 0.26, 0.06),
                0.45,
                lambda r: r.uniform(40, 150),
                lambda r: gauss_field(nudge(r, toward("CZ"), 0.1), 0.45),
            ),
        ),
        ("k_complex", per_min([1.5, 2, 3], [0, 1.5, 1]), kcomplex),
        (
            "posts",
            per_min([1.5, 2, 3], [0, 4, 2]) * ("posts" in ben),
            transient(
                lambda r, tt: bump(tt, 0.1, 0.03, 0.07),
                0.3,
                lambda r: r.uniform(20, 50),
                lambda r: gauss_field(toward("O1", "O2"), 0.5),
            ),
        ),
        (
            "lambda",
            per_min([0, 0.5], [6, 0]) * S.eyes * ("lambda" in ben),
            transient(
                lambda r, tt: bump(tt, 0.1, 0.03, 0.06),
                0.3,
                lambda r: r.uniform(15, 40),
                lambda r: gauss_field(toward("O1", "O2"), 0.5),
            ),
        ),
        ("interictal_spike", ied_rate, ied),
        (
            "gsw_burst",
            P["gsw_rate"] / 3600 * np.interp(d, [0, 2], [1, 2]),
            rhythmic((2.8, 4.5), (0.6, 2.8), (120, 300), lambda r: GEN, sw=1, jitter=0.15),
        ),
        (
            "rmtd",
            per_min([0.5, 1, 2], [0, 0.4, 0]) * ("rmtd" in ben),
            rhythmic((5, 7), (3, 15), (30, 70), side("T3", "T4", 0.45), sharp=(0.35, 0.35)),
        ),
        (
            "wicket",
            per_min([0.5, 1, 2.5], [0, 0.6, 0]) * ("wicket" in ben),
            rhythmic((6, 11), (0.5, 2.5), (30, 60), side("T3", "T4", 0.4), sharp=(0.4, 0.4)),
        ),
        (
            "hypnagogic_hypersynchrony",
            per_min([0.5, 1, 1.8], [0, 0.5, 0]) * ("hypnagogic" in ben),
            rhythmic((3, 5), (2, 8), (80, 200), lambda r: GEN, jitter=0.3),
        ),
        (
            "firda",
            4 / 3600 * np.ones(nc) * ("firda" in ben),
            rhythmic(
                (1.5, 2.5),
                (2, 8),
                (50, 150),
                lambda r: gauss_field(toward("FZ"), 0.8),
                sharp=(0.2, 0.2),
            ),
        ),
        (
            "tirda",
            per_min([0, 1, 3], [0.03, 0.1, 0.1]) * P["tirda"],
            rhythmic(
                (1, 3), (3, 12), (40, 100), lambda r: gauss_field(focus, 0.45), sharp=(0.3, 0.3)
            ),
        ),
        (
            "six_fourteen",
            per_min([0.5, 1, 2.5], [0, 0.3, 0]) * ("six_fourteen" in ben),
            rhythmic((6, 14), (0.5, 1.0), (-50, -20), side("T5", "T6", 0.45), sharp=(0.5, 0.5)),
        ),
        (
            "triphasic_run",
            3 / 3600 * np.ones(nc) * ("triphasic" in ben),
            rhythmic((1.3, 2.2), (5, 60), (60, 150), lambda r: GEN, sw=1, spike_s=0.06),
        ),
    ]
    for kind, rate, make in table:
        for t0 in poisson_times(rng, rate):
            x, w, dur = make(rng)
            if any(a <= t0 <= b for a, b in seizures):
                continue
            add(out, int(t0 * fs), x, w)
            S.event(t0, t0 + dur, kind)
    if S.photic:
        a, freqs, train, gap = S.photic
        occ = gauss_field(toward("O1", "O2"), 0.5)
        m = int(train * fs)
        tt = np.arange(m) / fs
        for j, f in enumerate(freqs):
            i0 = int((a + j * (train + gap)) * fs)
            g = P["photic_amp"] * k * (0.3 + np.exp(-0.5 * ((f - P["pdr_hz"]) / 2.5) ** 2))
            if f >= 4:  # driving at the flash rate (and a weaker harmonic)
                x = np.sin(2 * np.pi * f * tt) + 0.3 * np.sin(4 * np.pi * f * tt + 1)
            else:  # separate visual evoked potentials
                x = sum(
                    bump(tt, q / f + 0.1, 0.03) - 0.5 * bump(tt, q / f + 0.18, 0.04)
                    for q in range(int(train * f))
                )
            add(out, i0, x * g * flat_env(m, fs, 0.3), occ)
            if P["photomyogenic"] and f >= 8:
                gate = np.clip(np.cos(2 * np.pi * f * (tt - 0.05)), 0, None) ** 8
                ch = np.flatnonzero(MUSCLE["F"] > 0.3)
                add(out, i0, emg(rng, ch.size, m, fs) * gate * u(20, 60), ch)
        S.event(a, a + len(freqs) * (train + gap), "photic_stimulation")
    if S.hv:  # hyperventilation: diffuse delta building up, then recovery over ~1 min
        a, b = S.hv
        m = int((b - a + 60) * fs)
        tt = np.arange(m) / fs
        env = sstep(tt / (b - a)) ** 2 * np.exp(-np.clip(tt - (b - a), 0, None) / 20)
        x = noise(rng, m, fs, band(0.8, 3.5)) * env * P["hv_amp"] * k
        add(out, int(a * fs), x, 0.5 * GEN + 0.5 * gauss_field(toward("FZ"), 1.0))
        S.event(a, b, "hyperventilation")
