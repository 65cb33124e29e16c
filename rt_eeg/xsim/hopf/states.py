"""Vigilance states as operating points of the oscillator network, and brief rhythmic bursts.

A state is a table of bifurcation parameter ``a`` and noise level ``s`` per band and node,
plus a coupling per band: awake with eyes closed puts the occipital alpha oscillators close to
the bifurcation (a sharp, large posterior peak); opening the eyes pushes them down (alpha
blocks); drowsiness drops alpha and brings vertex theta up; N3 moves the frontal delta
oscillators to the edge of oscillation. States follow a semi-Markov sleep-wake process and
cross-fade into each other. Spindles, sawtooth waves and the benign variants (mu, wicket,
RMTD, SREDA, 14-and-6) are brief excursions of ``a`` above zero in a few nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rt_eeg.xsim.hopf.geometry import Geometry, electrode_point
from rt_eeg.xsim.hopf.network import BI, ChunkParams

STATES: tuple[str, ...] = ("awake_ec", "awake_eo", "n1", "n2", "n3", "rem")
SI = {s: i for i, s in enumerate(STATES)}
A_OFF = -40.0

#: Median dwell time of a state, seconds (lognormal, sigma 0.6).
DWELL = {"awake": 420.0, "n1": 120.0, "n2": 600.0, "n3": 600.0, "rem": 480.0}
#: Next-state probabilities.
NEXT = {
    "awake": {"n1": 1.0},
    "n1": {"n2": 0.7, "awake": 0.3},
    "n2": {"n3": 0.35, "rem": 0.2, "n1": 0.2, "awake": 0.25},
    "n3": {"n2": 0.8, "awake": 0.2},
    "rem": {"n2": 0.4, "n1": 0.3, "awake": 0.3},
}


@dataclass
class Burst:
    """A transient excursion of one band above the bifurcation in a few nodes."""

    t0: float
    dur: float
    band: int
    a_peak: float
    centre: tuple[float, float, float]
    width: float
    f: float  # carrier, Hz (used by the variant band only)
    h2: float  # harmonic sharpening (variant band only)
    kind: str


def tables(patient: dict, geo: Geometry):
    """State tables.

    Returns
    -------
    a, s : ndarray, shape (n_states, B, N)
    k : ndarray, shape (n_states, B)
    ap : ndarray, shape (n_states, N)
        Aperiodic amplitude, microvolts.
    """
    n, nb = geo.n, len(BI)
    occ, post = geo.region("occipital", 0.38), geo.region("posterior")
    fro, ver = geo.region("frontal"), geo.region("vertex", 0.4)
    cen = geo.region("central")
    fb = float(patient["frontal_beta"])
    a = np.full((len(STATES), nb, n), A_OFF)
    s = np.zeros((len(STATES), nb, n))
    k = np.zeros((len(STATES), nb))
    d, t, al, sg, be = BI["delta"], BI["theta"], BI["alpha"], BI["sigma"], BI["beta"]
    beta_s = 0.22 + 0.45 * fro * fb

    def put(st, band, av, sv, kv):
        a[SI[st], band], s[SI[st], band], k[SI[st], band] = av, sv, kv

    put("awake_ec", d, -12.0, 0.3 + 0.1 * fro, 3.0)
    put("awake_ec", t, -9.0, 0.3 + 0.1 * ver, 3.0)
    put("awake_ec", al, -1.0 - 8.0 * (1 - np.maximum(occ, 0.8 * post)), 0.15 + 0.95 * post, 6.0)
    put("awake_ec", sg, -12.0, 0.1, 2.0)
    put("awake_ec", be, -10.0, beta_s, 2.0)
    put("awake_eo", d, -12.0, 0.3 + 0.1 * fro, 3.0)
    put("awake_eo", t, -9.0, 0.3, 3.0)
    put("awake_eo", al, -8.0, 0.12 + 0.3 * post, 4.0)
    put("awake_eo", sg, -12.0, 0.1, 2.0)
    put("awake_eo", be, -10.0, beta_s + 0.05, 2.0)
    put("n1", d, -8.0, 0.45 + 0.1 * fro, 3.0)
    put("n1", t, -3.5, 0.45 + 0.35 * ver, 4.0)
    put("n1", al, -6.0 - 4.0 * (1 - fro), 0.12 + 0.2 * fro, 3.0)
    put("n1", sg, -12.0, 0.1, 2.0)
    put("n1", be, -10.0, 0.8 * beta_s, 2.0)
    put("n2", d, -4.0, 0.7 + 0.35 * fro, 4.0)
    put("n2", t, -5.0, 0.5 + 0.1 * ver, 3.0)
    put("n2", al, -10.0, 0.1, 2.0)
    put("n2", sg, -8.0, 0.1 + 0.1 * cen, 1.5)
    put("n2", be, -10.0, 0.6 * beta_s, 2.0)
    put("n3", d, -1.0, 1.1 + 0.5 * fro, 6.0)
    put("n3", t, -5.0, 0.55, 3.0)
    put("n3", al, -12.0, 0.08, 2.0)
    put("n3", sg, -8.0, 0.1, 1.5)
    put("n3", be, -10.0, 0.5 * beta_s, 2.0)
    put("rem", d, -8.0, 0.4, 3.0)
    put("rem", t, -4.0, 0.5 + 0.2 * ver, 3.0)
    put("rem", al, -6.0, 0.15 + 0.2 * post, 3.0)
    put("rem", sg, -12.0, 0.1, 2.0)
    put("rem", be, -10.0, 0.9 * beta_s, 2.0)
    ap_level = {"awake_ec": 1.0, "awake_eo": 1.0, "n1": 1.1, "n2": 1.3, "n3": 1.6, "rem": 1.0}
    ap = np.stack([np.full(n, patient["aperiodic_uv"] * ap_level[st]) for st in STATES])
    return a, s, k, ap


def draw_timeline(duration: float, patient: dict, rng: np.random.Generator):
    """Semi-Markov vigilance timeline.

    Returns
    -------
    list of (t0, state_index, fade_s)
        Segments in time order; a segment cross-fades from the previous one over ``fade_s``.
    """
    sl = float(patient["sleepiness"])
    u = rng.random()
    if u < 0.75 - 0.45 * sl:
        cur = "awake"
    else:
        cur = str(rng.choice(["n1", "n2", "n3", "rem"], p=[0.2, 0.55, 0.15, 0.1]))
    segs: list[tuple[float, int, float]] = []
    t = -rng.random() * 0.5 * DWELL[cur]  # the recording starts mid-dwell
    fade = 1.0
    while t < duration:
        med = DWELL[cur] * ((1.6 - sl) if cur == "awake" else 1.0)
        dwell = float(med * np.exp(0.6 * rng.standard_normal()))
        if cur == "awake":
            tt, closed = t, bool(rng.random() < 0.6)
            first = True
            while tt < t + dwell:
                st = "awake_ec" if closed else "awake_eo"
                segs.append((tt, SI[st], fade if first else float(rng.uniform(0.3, 0.8))))
                tt += float(rng.uniform(20, 180) if closed else rng.uniform(10, 90))
                closed, first = not closed, False
            t = tt
        else:
            segs.append((t, SI[cur], fade))
            t += dwell
        p = NEXT[cur]
        nxt = str(rng.choice(list(p), p=np.array(list(p.values())) / sum(p.values())))
        if nxt == "awake":
            fade = float(rng.uniform(1.0, 4.0))  # arousals are abrupt
        elif cur == "awake":
            fade = float(rng.uniform(5.0, 15.0))
        else:
            fade = float(rng.uniform(15.0, 45.0))
        cur = nxt
    # Drop segments that end before 0 (keep the one running at 0).
    starts = np.array([sg[0] for sg in segs])
    first = max(0, int(np.searchsorted(starts, 0.0, side="right")) - 1)
    return [(max(0.0, sg[0]) if i == first else sg[0], sg[1], sg[2])
            for i, sg in enumerate(segs[first:], start=first)]


def state_events(segs, duration: float) -> list[tuple[float, float, str]]:
    """``state_*`` events (awake merges eyes open and closed) and ``eyes_open`` events."""
    states: list[tuple[float, float, str]] = []
    eyes: list[tuple[float, float, str]] = []
    bounds = [sg[0] for sg in segs[1:]] + [duration]
    for (t0, st, _), t1 in zip(segs, bounds, strict=True):
        t1 = min(t1, duration)
        if t1 <= t0:
            continue
        name = STATES[st]
        if name == "awake_eo":
            eyes.append((t0, t1, "eyes_open"))
        label = "state_awake" if name.startswith("awake") else f"state_{name}"
        if states and states[-1][2] == label:
            states[-1] = (states[-1][0], t1, label)
        else:
            states.append((t0, t1, label))
    return sorted(states + eyes)


#: Benign variants on the variant band: states, frequency range, electrode centres, width,
#: duration range, a_peak, harmonic sharpening, rate per minute in an allowed state.
VARIANTS = {
    "mu": (("awake_eo", "awake_ec"), (8.5, 11.0), ("C3", "C4"), 0.3, (2, 10), 3.0, 0.45, 0.6),
    "wicket": (("n1", "awake_ec"), (6.0, 11.0), ("T3", "T4"), 0.28, (0.6, 3), 5.0, 0.5, 0.4),
    "rmtd": (("n1",), (5.0, 7.0), ("T3", "T4"), 0.3, (4, 15), 4.0, 0.35, 0.5),
    "sreda": (("awake_ec", "awake_eo"), (4.0, 7.0), ("PZ",), 0.5, (20, 60), 6.0, 0.5, 0.04),
    "14_6": (("n1", "n2"), (6.0, 14.0), ("T5", "T6"), 0.3, (0.5, 1.0), 5.0, 0.6, 0.3),
    "sawtooth": (("rem",), (2.0, 3.5), ("CZ", "FZ"), 0.45, (1, 4), 3.0, 0.6, 1.5),
}
#: Spindle-band bursts: state -> rate per minute.
SPINDLE_RATE = {"n2": 5.0, "n3": 1.5}


def draw_bursts(segs, duration: float, patient: dict, rng: np.random.Generator) -> list[Burst]:
    """Spindles and benign-variant runs over the timeline, time-sorted, variant runs disjoint."""
    bounds = [sg[0] for sg in segs[1:]] + [duration]
    have = set(patient["variants"]) | {"sawtooth"}
    out: list[Burst] = []
    for (t0, st, _), t1 in zip(segs, bounds, strict=True):
        t0, t1 = max(t0, 0.0), min(t1, duration)
        if t1 <= t0:
            continue
        name, span = STATES[st], (t1 - t0) / 60.0
        rate = SPINDLE_RATE.get(name, 0.0)
        for tb in np.sort(rng.uniform(t0, t1, rng.poisson(rate * span))):
            c = electrode_point(str(rng.choice(["CZ", "C3", "C4", "FZ"], p=[0.5, 0.2, 0.2, 0.1])))
            out.append(Burst(float(tb), float(rng.uniform(0.5, 1.8)), BI["sigma"],
                             float(rng.uniform(8.0, 16.0)), tuple(c), 0.42, 0.0, 0.0, "spindle"))
        for kind, (states, fr, cents, width, dr, ap, h2, rt) in VARIANTS.items():
            if kind not in have or name not in states:
                continue
            for tb in rng.uniform(t0, t1, rng.poisson(rt * span)):
                c = electrode_point(str(rng.choice(list(cents))))
                out.append(Burst(float(tb), float(rng.uniform(*dr)), BI["variant"],
                                 float(ap * rng.uniform(1.0, 2.0)), tuple(c), width,
                                 float(rng.uniform(*fr)), h2, kind))
    out.sort(key=lambda b: b.t0)
    keep, end = [], -1.0
    for b in out:  # the variant band carries one run at a time
        if b.band == BI["variant"]:
            if b.t0 < end + 1.0 or b.t0 + b.dur > duration:
                continue
            end = b.t0 + b.dur
        keep.append(b)
    return keep


def window(t: np.ndarray, t0: float, dur: float) -> np.ndarray:
    """Trapezoid in [t0, t0 + dur] with ramps of a third of the duration (at most 2 s)."""
    ramp = min(dur / 3.0, 2.0)
    return np.clip(np.minimum(t - t0, t0 + dur - t) / ramp, 0.0, 1.0)


class Background:
    """Chunk parameters of the background (states and bursts; the ictal band off)."""

    def __init__(self, patient: dict, geo: Geometry, segs, bursts: list[Burst]):
        self.geo = geo
        self.a, self.s, self.k, self.ap = tables(patient, geo)
        self.seg_t0 = np.array([sg[0] for sg in segs])
        self.seg_st = np.array([sg[1] for sg in segs])
        self.seg_fade = np.array([sg[2] for sg in segs])
        self.bursts = bursts
        self.burst_t0 = np.array([b.t0 for b in bursts])
        self.weights = [geo.near(b.centre, b.width) for b in bursts]
        self.f0 = np.array([patient["delta_hz"], patient["theta_hz"], patient["pdr_hz"],
                            patient["spindle_hz"], patient["beta_hz"], 10.0, 10.0])
        g = patient["gain_uv"]
        self.gain = np.array([g["delta"], g["theta"], g["alpha"], g["sigma"], g["beta"],
                              g["variant"], 0.0])

    def params(self, t: np.ndarray) -> ChunkParams:
        """Parameters at envelope times ``t`` (seconds), shape (M,)."""
        idx = np.searchsorted(self.seg_t0, t, side="right") - 1
        idx = np.clip(idx, 0, len(self.seg_t0) - 1)
        cur, prev = self.seg_st[idx], self.seg_st[np.maximum(idx - 1, 0)]
        mix = np.clip((t - self.seg_t0[idx]) / self.seg_fade[idx], 0.0, 1.0)
        mix[idx == 0] = 1.0
        m3 = mix[:, None, None]
        a = self.a[prev] * (1 - m3) + self.a[cur] * m3
        s = self.s[prev] * (1 - m3) + self.s[cur] * m3
        k = self.k[prev] * (1 - mix[:, None]) + self.k[cur] * mix[:, None]
        ap = self.ap[prev] * (1 - mix[:, None]) + self.ap[cur] * mix[:, None]
        f = np.repeat(self.f0[None, :], t.size, axis=0)
        h2 = np.zeros((t.size, 2))
        lo = np.searchsorted(self.burst_t0, t[0] - 61.0)
        hi = np.searchsorted(self.burst_t0, t[-1])
        var = BI["variant"]
        for i in range(lo, hi):
            b = self.bursts[i]
            if b.t0 + b.dur < t[0]:
                continue
            win = window(t, b.t0, b.dur)
            on = win > 0
            if not on.any():
                continue
            wb = win[on, None] * self.weights[i][None, :]
            a[on, b.band] += wb * (b.a_peak - a[on, b.band])
            if b.band == var:
                s[on, var] = np.maximum(s[on, var], 0.3 * self.weights[i][None, :])
                f[on, var] = b.f
                h2[on, 0] = b.h2
        amp = np.repeat(self.gain[None, :, None], t.size, axis=0) * np.ones((1, 1, self.geo.n))
        return ChunkParams(a=a, s=s, k=k, f=f, amp=amp, h2=h2, sw=np.zeros((t.size, 2)), ap=ap)
