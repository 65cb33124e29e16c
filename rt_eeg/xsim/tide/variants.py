"""Benign EEG variants and seizure mimics of cerebral origin (never labelled seizure):
wicket spikes, rhythmic mid-temporal theta of drowsiness, 14-and-6 positive spikes,
small sharp spikes, SREDA, hypnagogic hypersynchrony and hyperventilation build-up.

Each is kept at least :data:`MARGIN_S` away from every seizure, so that a detector's
alarm on one is a false alarm, not a late or early detection.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.tide import core
from rt_eeg.xsim.tide.core import add, direction, mirror, poisson_times, vmf
from rt_eeg.xsim.tide.vigilance import DT, Vigilance

MARGIN_S = 20.0


class _Sched:
    """Accepts event windows that keep clear of the seizures and of the recording ends."""

    def __init__(self, seizures, duration: float):
        self.seizures = list(seizures)
        self.duration = duration

    def ok(self, a: float, b: float) -> bool:
        if a < 1.0 or b > self.duration - 1.0:
            return False
        return all(b < s - MARGIN_S or a > e + MARGIN_S for s, e in self.seizures)


def _burst(out, t: float, d: float, fs: float, field, wave_fn, amp: float) -> None:
    """Add a train of duration ``d`` at ``t``: ``wave_fn(cycles_len)`` times a taper."""
    m = int(d * fs)
    if m < 4:
        return
    w = wave_fn(m) * core.envelope(m, fs, 0.0, d, min(0.3, d / 4), min(0.3, d / 4))
    add(out, field, w * amp, int(round(t * fs)))


def _rhythm(f: float, fs: float, rng, table: str, jitter: float = 0.01):
    def fn(m):
        return core.shaped(core.phase_oscillator(f, m, fs, rng, diffusion=jitter),
                           core.TABLES[table])  # fmt: skip

    return fn


def render(out: np.ndarray, pt: dict, amp: float, vig: Vigilance, fs: float, seizures,
           rng) -> list:  # fmt: skip
    """Add the patient's benign variants to ``out``.

    Parameters
    ----------
    out : ndarray of float32, shape (21, n)
    pt : dict
    amp : float
        Recording amplitude scale.
    vig : Vigilance
    fs : float
    seizures : list of (float, float)
    rng : numpy.random.Generator

    Returns
    -------
    list of (float, float, str)
    """
    n = out.shape[1]
    sched = _Sched(seizures, n / fs)
    var = pt["variants"]
    drowsy = vig.tick("drowsy")
    awake = vig.state <= 1  # eyes open or closed
    events: list[tuple[float, float, str]] = []
    pref_left = rng.random() < 0.5
    r_w, r_r, r_6, r_b, r_h, r_s, r_hv = core.fork(rng, 7)

    def side_field(names, kappa, g):
        v = direction(*names)
        left = g.random() < (0.7 if pref_left else 0.3)
        return vmf(v if left else mirror(v), kappa)

    def each(rate, stream):
        """Event times with a private generator each (a rejected event shifts nothing)."""
        times = poisson_times(rate, DT, stream)
        return zip(times, core.fork(stream, times.size), strict=True)

    if var["wicket"]:
        for t, g in each(0.012 * (drowsy + 0.3), r_w):
            d = float(g.uniform(0.5, 3.0))
            if sched.ok(t, t + d):
                _burst(out, t, d, fs, side_field(("T3", "F7"), 5.0, g),
                       _rhythm(g.uniform(6.0, 11.0), fs, g, "arch"),
                       g.uniform(40, 100) / 2 * amp)  # fmt: skip
                events.append((t, t + d, "wicket"))
    if var["rmtd"]:
        for t, g in each(0.002 * drowsy, r_r):
            d = float(g.uniform(5.0, 30.0))
            if sched.ok(t, t + d):
                f = g.uniform(5.0, 7.0)
                fields = [side_field(("T3",), 4.0, g)]
                if g.random() < 0.4:  # bilateral, independent trains
                    fields = [vmf(direction("T3"), 4.0), vmf(mirror(direction("T3")), 4.0)]
                for fld in fields:
                    _burst(out, t, d, fs, fld, _rhythm(f, fs, g, "notched"),
                           g.uniform(30, 80) / 2 * amp)  # fmt: skip
                events.append((t, t + d, "rmtd"))
    if var["six14"]:
        for t, g in each(0.008 * np.clip(drowsy, 0, 1), r_6):
            d = float(g.uniform(0.5, 1.0))
            if sched.ok(t, t + d):
                f = g.uniform(13.0, 15.0) if g.random() < 0.6 else g.uniform(5.5, 7.0)
                fld = side_field(("T5", "O1"), 4.0, g)
                if g.random() < 0.3:
                    fld = vmf(direction("T5"), 4.0) + vmf(direction("T6"), 4.0)
                _burst(out, t, d, fs, fld, _rhythm(f, fs, g, "posarch"),
                       g.uniform(20, 60) / 2 * amp)  # fmt: skip
                events.append((t, t + d, "six14_positive_spikes"))
    if var["bsss"]:
        train = np.zeros(n)
        w_t = np.arange(int(0.08 * fs)) / fs
        w = (-np.exp(-0.5 * ((w_t - 0.02) / 0.008) ** 2)
             + 0.5 * np.exp(-0.5 * ((w_t - 0.045) / 0.012) ** 2))  # fmt: skip
        times = []
        for t, g in each(0.01 * drowsy, r_b):
            a = g.uniform(20, 50) * (1 if g.random() < 0.5 else -1)
            if sched.ok(t, t + 0.1):
                core.place(train, t, fs, w * a)
                times.append(t)
        add(out, vmf(direction("T3", "T5"), 1.5) + vmf(direction("T4", "T6"), 1.5), train * amp)
        events += [(t, t + 0.1, "small_sharp_spike") for t in times]
    if var["hh"]:
        for t, g in each(0.004 * drowsy, r_h):
            d = float(g.uniform(2.0, 10.0))
            if sched.ok(t, t + d):
                z = core.resonator(g.uniform(3.0, 5.0), 0.7, int(d * fs), fs, g).real
                _burst(out, t, d, fs, vmf(direction("FZ", "CZ"), 0.8), lambda m, z=z: z[:m],
                       g.uniform(100, 250) / 3 * amp)  # fmt: skip
                events.append((t, t + d, "hypnagogic_hypersynchrony"))
    dur = n / fs

    def awake_at(t):
        return bool(awake[min(awake.size - 1, int(t / DT))])

    rng = r_s
    if var["sreda"] and rng.random() < 0.6:
        t = float(rng.uniform(0, dur))
        d = float(rng.uniform(40.0, 120.0))
        if awake_at(t) and sched.ok(t, t + d):
            m = int(d * fs)
            tau = np.arange(m) / m
            f = np.where(tau < 0.2, 1.5, 1.5 + (rng.uniform(5, 6.5) - 1.5) * np.clip(
                (tau - 0.2) / 0.15, 0, 1))  # fmt: skip
            cyc = core.phase_oscillator(f, m, fs, rng, diffusion=0.05)
            w = core.blend(cyc, "sharp", 0.7)
            a = rng.uniform(40, 100) / 2 * amp
            for side in ("P3", "P4"):
                _burst(out, t, d, fs, vmf(direction(side, "T5" if side == "P3" else "T6"), 3.0),
                       lambda mm, w=w: w[:mm], a)  # fmt: skip
            events.append((t, t + d, "sreda"))
    rng = r_hv
    if var["hv"] and rng.random() < 0.5:
        t = float(rng.uniform(0, dur))
        d = float(rng.uniform(120.0, 240.0))
        tail = float(rng.uniform(30.0, 60.0))
        if awake_at(t) and sched.ok(t, t + d + tail):
            m = int((d + tail) * fs)
            tt = np.arange(m) / fs
            grow = np.clip(tt / d, 0, 1) ** 2 * np.exp(-np.clip(tt - d, 0, None) / (tail / 3))
            z = core.resonator(rng.uniform(2.0, 3.5), 0.8, m, fs, rng).real
            add(out, vmf(direction("FZ", "CZ"), 0.9),
                z * grow * rng.uniform(50, 200) / 3 * amp * (1.5 if pt["group"] == "child" else 1),
                int(t * fs))  # fmt: skip
            events.append((t, t + d + tail, "hyperventilation_slowing"))
    return events
