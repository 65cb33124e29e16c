"""Fresh families: four benign variants and a photic artifact (family mode only).

Five families that no corpus held before they were added (a fresh held-out set, for an
honest measurement of a detector on EEG it has never seen). None is a seizure and none is
ever annotated:

- ``hypnagogic`` (benign): hypnagogic hypersynchrony; paroxysmal bursts of high-amplitude
  (100-350 uV) sinusoidal 3-5 Hz waves, diffuse with a fronto-central maximum, 1-10 s, steady
  in frequency, several per drowsy period, in drowsiness only;
- ``mu`` (benign): mu rhythm; arciform 7-11 Hz trains (a fundamental and its second
  harmonic in fixed phase: sharp negative, rounded positive) over C3 and/or C4 with Cz and
  a field to the neighbours, 20-60 uV, 1-20 s, waxing and waning, often one-sided or
  asymmetric (the two sides asynchronous), awake;
- ``lambda`` (benign): lambda waves of visual scanning; surface-positive triangular
  biphasic transients of 150-250 ms at O1/O2, 20-60 uV, in irregular trains (0.2-0.5 s
  apart) of 2-8 s, awake with eyes open;
- ``phantom_sw`` (benign): 6 Hz phantom spike-and-wave; 1-2 s bursts of 5-7 Hz spike-and-
  wave with a small spike (< 30 uV) and a 30-50 uV wave, diffuse, anterior or posterior
  maximum (per recording), awake or drowsy;
- ``photic`` (artifact): photic stimulation; one or two runs of 10 s flash trains stepped
  through 1-30 Hz with about 10 s rest between trains, an occipital driving response at the
  flash frequency (sometimes harmonics; slow flashes evoke one response each) of 10-40 uV
  on O1/O2 and less on P3/P4/T5/T6/Pz, in some recordings a frontal photomyogenic
  (muscle) or photoelectric component locked to the flashes; awake only.

Each renderer is a :data:`rt_eeg.sim.transients.Renderer`: ``(transient, sfreq)`` ->
``(cols, wave)``, the electrode columns ``(k,)`` (indices into
:data:`rt_eeg.sim.layout.ELECTRODES`) and the waveform ``(n, k)`` float32 microvolts,
``n = int(duration * sfreq)``, a pure function of the transient's fields.

They are drawn by :func:`draw_fresh_families` from a random stream of their own
(``SeedSequence([seed, 0xFA7])``), after everything else (the clinical artifacts included),
and whether a recording holds each is drawn on that stream too (:data:`FRESH_PRESENCE`),
not in :class:`rt_eeg.sim.variety.Variety`: a recording whose allowed families exclude them
is bit-identical to what the simulator wrote before they existed.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.sim.artifacts import _band_noise, _ramp, poisson_times
from rt_eeg.sim.background import CTRL_SFREQ
from rt_eeg.sim.layout import EIDX, XYZ, position
from rt_eeg.sim.transients import Transient

#: Chance that a recording holds each fresh family (when allowed).
FRESH_PRESENCE: dict[str, float] = {
    "hypnagogic": 0.2, "mu": 0.3, "lambda": 0.3, "phantom_sw": 0.2, "photic": 0.25,
}  # fmt: skip
#: Flash frequencies (Hz) of a photic stimulation protocol; a run takes a stretch of them.
PHOTIC_LADDER = (1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 25, 30)
#: Seconds of one photic train.
PHOTIC_TRAIN_S = 10.0

_MU = {"C3": 1.0, "CZ": 0.45, "F3": 0.3, "P3": 0.35, "T3": 0.25}  # left; right mirrors it
_MIRROR = {"C3": "C4", "CZ": "CZ", "F3": "F4", "P3": "P4", "T3": "T4"}
_OCCIPITAL = {"O1": 1.0, "O2": 1.0, "P3": 0.4, "P4": 0.4, "T5": 0.35, "T6": 0.35, "PZ": 0.3}
_LAMBDA = {"O1": 1.0, "O2": 1.0, "P3": 0.35, "P4": 0.35, "T5": 0.3, "T6": 0.3, "PZ": 0.3}
_FRONTAL = {"FP1": 1.0, "FP2": 1.0, "F7": 0.6, "F8": 0.6, "F3": 0.35, "F4": 0.35, "FZ": 0.3}
_LEFT = XYZ[:, 1] > 1e-6  # (21,) electrodes of the left hemisphere
_RIGHT = XYZ[:, 1] < -1e-6


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _diffuse(rng, centre: np.ndarray, lo: float, hi: float):
    """Columns ``(k,)`` and weights ``(k,)`` (max 1) of a broad Gaussian field around the
    unit vector ``centre`` ``(3,)`` (sigma in [lo, hi] chord units; neighbours are about 0.6
    apart), with up to 15 % asymmetry between the hemispheres."""
    d = np.linalg.norm(XYZ - centre[None, :], axis=1)
    w = np.exp(-0.5 * (d / rng.uniform(lo, hi)) ** 2)
    a = rng.uniform(-0.15, 0.15)
    w = w * np.where(_LEFT, 1.0 + a, np.where(_RIGHT, 1.0 - a, 1.0))
    w /= w.max()
    cols = np.flatnonzero(w > 0.05)
    return cols, w[cols]


def _named(rng, weights: dict, jitter: float = 0.15):
    """Columns ``(k,)`` and weights ``(k,)`` of a named field (electrode -> weight), each
    weight jittered by up to ``jitter``."""
    cols = np.array([EIDX[e] for e in weights])
    w = np.array(list(weights.values())) * rng.uniform(1.0 - jitter, 1.0 + jitter, len(weights))
    return cols, w


def _edges(t: np.ndarray, duration: float, on: float, off: float) -> np.ndarray:
    """``(n,)`` raised-cosine onset over ``on`` s and offset over ``off`` s."""
    x = np.clip(np.minimum(t / on, (duration - t) / off), 0.0, 1.0)
    return 0.5 - 0.5 * np.cos(np.pi * x)


def render_hypnagogic(tr: Transient, sfreq: float):
    """Hypnagogic hypersynchrony: a burst of near-sinusoidal ``param`` Hz waves (3-5, steady)
    that appears and leaves within a fraction of a second, diffuse with its maximum near
    ``site`` (FZ or CZ). ``amp`` is the peak of the largest electrode."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    f = tr.param * (1.0 + 0.01 * rng.standard_normal())  # steady: no evolution
    phi = 2 * np.pi * f * t + rng.uniform(0, 2 * np.pi)
    y = np.sin(phi) + rng.uniform(0.0, 0.12) * np.sin(2 * phi + rng.uniform(0, 2 * np.pi))
    wax = 1.0 + 0.15 * np.sin(2 * np.pi * rng.uniform(0.1, 0.4) * t + rng.uniform(0, 2 * np.pi))
    y *= wax * _edges(t, tr.duration, rng.uniform(0.15, 0.4), rng.uniform(0.2, 0.5))
    y /= max(np.abs(y).max(), 1e-9)
    # the maximum lies between the site and its fronto-central neighbour: generalised,
    # falling off towards the ears and the occiput
    other = "CZ" if tr.site == "FZ" else "FZ"
    centre = _unit(position(tr.site) + rng.uniform(0.0, 0.5) * position(other))
    cols, w = _diffuse(rng, centre, 0.8, 1.1)
    return cols, (tr.amp * y[:, None] * w[None, :]).astype(np.float32)


def render_mu(tr: Transient, sfreq: float):
    """Mu rhythm: an arciform ``param`` Hz train (fundamental plus a 2nd harmonic in fixed
    phase: sharp negative, rounded positive phase) over C3 (``site`` 'left'), C4 ('right')
    or both ('both': independent phase and waxing per side, one side 0.3-0.9 of the other),
    with Cz and the neighbours. ``amp`` is the negative peak at the stronger central."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    h = rng.uniform(0.25, 0.45)  # harmonic ratio: how arciform (shared by both sides)
    sides = ["left", "right"] if tr.site == "both" else [tr.site]
    gains = [1.0, rng.uniform(0.3, 0.9)] if tr.site == "both" else [1.0]
    if rng.random() < 0.5:
        gains = gains[::-1]
    ys, ws = [], []
    for side, g in zip(sides, gains, strict=True):
        f = tr.param * (1.0 + 0.015 * rng.standard_normal())
        phi = 2 * np.pi * f * t + rng.uniform(0, 2 * np.pi)
        y = -(np.cos(phi) + h * np.cos(2 * phi)) / (1.0 + h)  # min -1 at phi = 0
        fm = rng.uniform(0.2, 0.7)
        wax = 0.8 + 0.2 * np.sin(2 * np.pi * fm * t + rng.uniform(0, 2 * np.pi))
        ys.append(y * wax * _edges(t, tr.duration, 0.4, 0.4))
        names = _MU if side == "left" else {_MIRROR[e]: v for e, v in _MU.items()}
        w = np.zeros(len(EIDX))
        for e, v in names.items():
            w[EIDX[e]] = g * v * rng.uniform(0.85, 1.15)
        ws.append(w)
    W = np.stack(ws, axis=1)  # (21, sides)
    cols = np.flatnonzero(W.any(axis=1))
    return cols, (tr.amp * np.stack(ys, axis=1) @ W[cols].T).astype(np.float32)


def render_lambda(tr: Transient, sfreq: float):
    """Lambda waves: a train of surface-positive triangular transients (150-250 ms: a sharp
    positive phase, a small negative one) 0.2-0.5 s apart, bilateral occipital. ``amp``
    is the largest peak at O1/O2."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    y = np.zeros(n)
    t0 = rng.uniform(0.02, 0.2)
    while t0 + 0.26 < tr.duration:
        d = rng.uniform(0.15, 0.25)
        p = d * rng.uniform(0.6, 0.75)  # positive phase, then the negative one
        r = p * rng.uniform(0.35, 0.5)  # rise time of the positive phase
        u = t - t0
        pos = np.where(u < r, u / r, (p - u) / (p - r)) * ((u >= 0) & (u < p))
        neg = np.sin(np.pi * (u - p) / (d - p)) * ((u >= p) & (u < d))
        y += rng.uniform(0.7, 1.0) * (pos - rng.uniform(0.15, 0.35) * neg)
        t0 += rng.uniform(0.2, 0.5)
    y /= max(y.max(), 1e-9)
    cols, w = _named(rng, _LAMBDA)
    return cols, (tr.amp * y[:, None] * w[None, :]).astype(np.float32)


def render_phantom_sw(tr: Transient, sfreq: float):
    """6 Hz phantom spike-and-wave: a 1-2 s burst of ``param`` Hz (5-7) cycles of a small
    surface-negative spike (< 30 uV, 20-35 ms) and a larger surface-negative wave, diffuse
    with an anterior (``site`` 'anterior', near FZ) or posterior ('posterior', near PZ/OZ)
    maximum. ``amp`` is the wave's peak at the largest electrode."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    f = tr.param * (1.0 + 0.01 * rng.standard_normal())
    spike_uv = min(rng.uniform(10.0, 28.0), 0.8 * tr.amp)
    # one cycle on a fine grid of its phase: the small negative spike, a brief positivity,
    # then the larger surface-negative slow wave (as the 3 Hz complex, but small and fast)
    u = np.arange(1024) / 1024 * 2 * np.pi
    sigma = rng.uniform(0.004, 0.007) * 2 * np.pi * f  # 4-7 ms: the spike is 20-35 ms wide

    def bump(mu, width):
        return np.exp(-0.5 * (np.angle(np.exp(1j * (u - mu))) / width) ** 2)

    cycle = -spike_uv * bump(0.0, sigma) + 0.3 * tr.amp * bump(0.9, 0.4)
    cycle -= tr.amp * bump(np.pi + rng.uniform(0.2, 0.6), rng.uniform(0.8, 1.0))
    cycle -= cycle.mean()
    ph = (2 * np.pi * (f * t + rng.uniform(0.0, 1.0))) % (2 * np.pi)
    y = np.interp(ph, u, cycle) * _edges(t, tr.duration, 0.15, 0.15)
    site = position("FZ") if tr.site == "anterior" else position("PZ") + position("OZ")
    cols, w = _diffuse(rng, _unit(site), 0.6, 0.85)
    return cols, (y[:, None] * w[None, :]).astype(np.float32)


def render_photic(tr: Transient, sfreq: float):
    """One photic train at ``param`` Hz flashes: the occipital driving response of peak
    ``amp`` (a sinusoid at the flash frequency, sometimes with harmonics up to 40 Hz; below
    5 Hz one evoked response per flash), and with ``site`` 'myo' a frontal photomyogenic
    muscle burst after every flash, with 'electric' a sharp photoelectric deflection at every
    flash on FP1/FP2."""
    rng = np.random.default_rng(tr.seed)
    n = max(8, int(tr.duration * sfreq))
    t = np.arange(n) / sfreq
    f = tr.param
    flashes = np.arange(0.0, tr.duration - 1e-9, 1.0 / f)
    lat = rng.uniform(0.08, 0.11)  # visual latency
    if f < 5.0:  # one evoked response per flash (a positive then a negative phase)
        y = np.zeros(n)
        w2 = rng.uniform(0.5, 0.8)
        for tj in flashes:
            u = t - tj - lat
            y += np.exp(-0.5 * (u / 0.022) ** 2) - w2 * np.exp(-0.5 * ((u - 0.07) / 0.03) ** 2)
    else:  # steady-state driving: the flash frequency and, sometimes, its harmonics
        y = np.sin(2 * np.pi * f * (t - lat))
        for k in (2, 3):
            if k * f <= min(40.0, 0.4 * sfreq) and rng.random() < 0.5:
                h = rng.uniform(0.15, 0.6) / (k - 1)
                y += h * np.sin(2 * np.pi * k * f * t + rng.uniform(0, 2 * np.pi))
    y *= np.clip((t - lat) / rng.uniform(0.2, 0.6), 0.0, 1.0)  # builds up after the first flash
    y *= np.clip((tr.duration - t) / 0.1, 0.0, 1.0)
    y /= max(np.abs(y).max(), 1e-9)
    cols, w = _named(rng, _OCCIPITAL)
    out = tr.amp * y[:, None] * w[None, :]
    if tr.site in ("myo", "electric"):
        fcols, fw = _named(rng, _FRONTAL, 0.25)
        if tr.site == "myo":  # muscle locked to the flashes, strongest at 8-20 Hz, growing
            amp = rng.uniform(20.0, 80.0) * np.exp(-0.5 * ((f - 14.0) / 7.0) ** 2)
            gate = np.zeros(n)
            width = rng.uniform(0.012, 0.02)
            for tj in flashes:
                gate += np.exp(-0.5 * ((t - tj - 0.05) / width) ** 2)
            gate = np.minimum(gate, 1.0) * np.clip(t / rng.uniform(1.0, 3.0), 0.0, 1.0)
            y_f = _band_noise(rng, n, len(fcols), 20.0, 70.0, sfreq) * gate[:, None]
            fw = fw * amp / 3.0  # peak about 3 rms of the band noise
        else:  # the light on the electrode itself: fast decaying deflection at each flash
            tau, amp = rng.uniform(0.005, 0.015), rng.uniform(10.0, 50.0) * rng.choice([-1, 1])
            k = np.searchsorted(flashes, t, side="right") - 1
            y1 = np.exp(-(t - flashes[k]) / tau) * _ramp(n, int(0.05 * sfreq))
            y_f = np.repeat(y1[:, None], len(fcols), axis=1)
            fw = np.where(np.isin(fcols, [EIDX["FP1"], EIDX["FP2"]]), fw, 0.2 * fw) * amp
        full = np.zeros((n, len(EIDX)))
        full[:, cols] += out
        full[:, fcols] += y_f * fw[None, :]
        cols = np.union1d(cols, fcols)
        out = full[:, cols]
    return cols, out.astype(np.float32)


FRESH_RENDERERS = {
    "hypnagogic": render_hypnagogic,
    "mu": render_mu,
    "lambda": render_lambda,
    "phantom_sw": render_phantom_sw,
    "photic": render_photic,
}


def photic_ladder(rng: np.random.Generator) -> list[int]:
    """Flash frequencies of one run: from 1, 2 or 4 Hz up to 18-30 Hz (a third step down)."""
    lo = int(rng.integers(0, 3))
    hi = int(rng.integers(PHOTIC_LADDER.index(18), len(PHOTIC_LADDER)))
    steps = list(PHOTIC_LADDER[lo : hi + 1])
    return steps[::-1] if rng.random() < 0.3 else steps


def _awake_start(awake: np.ndarray, lo: float, hi: float, length: float, rng) -> float:
    """A start in [lo, hi] (1 s grid) whose next ``length`` s are awake, at random among
    those awake for at least 90 % of it (else the most awake one)."""
    grid = np.arange(lo, max(lo, hi) + 1e-9, 1.0)
    c = np.concatenate([[0.0], np.cumsum(awake)])
    i0 = np.minimum((grid * CTRL_SFREQ).astype(int), len(awake))
    i1 = np.minimum(((grid + length) * CTRL_SFREQ).astype(int), len(awake))
    frac = (c[i1] - c[i0]) / np.maximum(i1 - i0, 1)
    good = np.flatnonzero(frac >= 0.9)
    return float(grid[rng.choice(good)] if len(good) else grid[int(np.argmax(frac))])


def _apart(events: list[Transient], gap: float = 1.0) -> list[Transient]:
    """The events (of one or more kinds) without those that start less than ``gap`` s after
    the end of the last kept one of their kind: trains and bursts follow one another, a
    Poisson draw would pile long ones on top of each other."""
    last: dict[str, float] = {}
    out = []
    for tr in sorted(events, key=lambda e: (e.kind, e.start)):
        if tr.start >= last.get(tr.kind, -np.inf) + gap:
            out.append(tr)
            last[tr.kind] = tr.stop
    return out


def draw_fresh_families(
    duration: float, profile, timeline, variety, rng: np.random.Generator, *, artifacts: bool = True
) -> list[Transient]:
    """The fresh-family transients of a family-mode recording.

    Each family decides whether the recording holds it (:data:`FRESH_PRESENCE`, or always
    when in ``variety.require``) and draws its events from its own generator, seeded up
    front from ``rng``: one family never shifts another, and a family that is not allowed
    draws nothing.

    Parameters
    ----------
    duration : float
        Seconds.
    profile : PatientProfile
        Photic driving is strongest near the patient's alpha frequency.
    timeline : Timeline
        Rates follow the behavioural state (its ``(n_ctrl,)`` weights): hypnagogic
        hypersynchrony drowsy only; mu and photic awake; lambda awake with eyes open;
        phantom spike-and-wave awake or drowsy.
    variety : Variety
        Allowed and required families, activity.
    rng : np.random.Generator
        A stream used by nothing else.
    artifacts : bool
        Whether the recording has artifacts (``photic`` is one).

    Returns
    -------
    list of Transient
        Kinds ``hypnagogic``, ``mu``, ``lambda``, ``phantom_sw``, ``photic``.
    """
    from rt_eeg.sim.variety import own_stream_presence

    tl, act = timeline, variety.activity
    rngs, has = own_stream_presence(rng, FRESH_PRESENCE, variety)
    if not artifacts:
        has.discard("photic")
    out: list[Transient] = []

    def seed(r):
        return int(r.integers(2**31))

    r = rngs["hypnagogic"]
    if "hypnagogic" in has:
        f0, site = r.uniform(3.0, 5.0), str(r.choice(["FZ", "CZ"]))
        rate = r.uniform(1.0, 3.0) / 60.0 * act * tl.drowsy  # several per drowsy period
        for t in poisson_times(r, rate, duration):
            out.append(Transient("hypnagogic", float(t), float(r.uniform(1.0, 10.0)),
                                 float(r.uniform(100.0, 350.0)), site, seed(r),
                                 float(np.clip(f0 + r.normal(0.0, 0.3), 3.0, 5.0))))  # fmt: skip
    r = rngs["mu"]
    if "mu" in has:
        f0 = r.uniform(7.0, 11.0)
        side = str(r.choice(["left", "right", "both"], p=[0.3, 0.3, 0.4]))
        rate = r.uniform(0.5, 2.0) / 60.0 * act * tl.awake
        for t in poisson_times(r, rate, duration):
            s = side if r.random() < 0.75 else str(r.choice(["left", "right", "both"]))
            out.append(Transient("mu", float(t), float(r.uniform(1.0, 20.0)),
                                 float(r.uniform(20.0, 60.0)), s, seed(r),
                                 float(np.clip(f0 + r.normal(0.0, 0.3), 7.0, 11.0))))  # fmt: skip
    r = rngs["lambda"]
    if "lambda" in has:
        rate = r.uniform(1.0, 4.0) / 60.0 * act * tl.awake * (1.0 - tl.eyes_closed)
        for t in poisson_times(r, rate, duration):
            out.append(Transient("lambda", float(t), float(r.uniform(2.0, 8.0)),
                                 float(r.uniform(20.0, 60.0)), "", seed(r)))  # fmt: skip
    r = rngs["phantom_sw"]
    if "phantom_sw" in has:
        f0, site = r.uniform(5.0, 7.0), str(r.choice(["anterior", "posterior"]))
        rate = r.uniform(0.5, 2.0) / 60.0 * act * (tl.drowsy + 0.5 * tl.awake)
        for t in poisson_times(r, rate, duration):
            out.append(Transient("phantom_sw", float(t), float(r.uniform(1.0, 2.0)),
                                 float(r.uniform(30.0, 50.0)), site, seed(r),
                                 float(np.clip(f0 + r.normal(0.0, 0.2), 5.0, 7.0))))  # fmt: skip
    out = _apart(out)
    r = rngs["photic"]
    if "photic" in has:
        front = str(r.choice(["", "myo", "electric"], p=[0.6, 0.25, 0.15]))
        f_res, base = profile.alpha_freq * r.uniform(0.85, 1.15), r.uniform(22.0, 40.0)
        k, free = 1 + int(r.random() < 0.3), 0.0
        slot = duration / k  # one run per slot, each after the one before
        for i in range(k):
            steps = photic_ladder(r)
            rests = r.uniform(8.0, 12.0, len(steps))
            length = len(steps) * PHOTIC_TRAIN_S + rests[:-1].sum()
            lo = max(i * slot, free)
            t = _awake_start(tl.awake, lo, (i + 1) * slot - length, length, r)
            free = t + length + 30.0
            for f, rest in zip(steps, rests, strict=True):
                # driving is largest near the alpha frequency, 10-40 uV
                g = 0.35 + 0.65 * np.exp(-0.5 * ((f - f_res) / 4.0) ** 2)
                amp = float(np.clip(base * g * r.uniform(0.85, 1.15), 10.0, 40.0))
                a, b, s = int(t * CTRL_SFREQ), int((t + PHOTIC_TRAIN_S) * CTRL_SFREQ), seed(r)
                if t + PHOTIC_TRAIN_S <= duration and tl.awake[a:b].mean() >= 0.5:
                    out.append(Transient("photic", float(t), PHOTIC_TRAIN_S, amp, front, s,
                                         float(f)))  # fmt: skip
                t += PHOTIC_TRAIN_S + rest
    return [tr for tr in out if tr.start < duration]
