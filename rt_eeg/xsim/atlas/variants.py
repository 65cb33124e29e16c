"""Benign variants and activation procedures: the patterns that look epileptic and are not.

Wicket spikes, small sharp spikes (BSSS), rhythmic mid-temporal theta of drowsiness,
14-and-6 Hz positive bursts, SREDA, 6 Hz phantom spike-and-wave, hypnagogic hypersynchrony,
lambda waves and posterior slow waves of youth; photic stimulation (driving at each flash
frequency, a stepwise "evolving" occipital rhythm) and hyperventilation build-up.
"""

from __future__ import annotations

import numpy as np

from . import geometry as geo
from . import shapes as sh
from .context import CTRL_RATE, Ctx
from .states import env


def _burst_times(ctx: Ctx, per_h: float, state_env: np.ndarray, margin: float = 5.0):
    rate = per_h / 3600.0 * state_env * ctx.free_ctrl(margin)
    return sh.poisson_times(ctx.rng, rate, CTRL_RATE)


def _train(sf, d, f, shape, rng, chirp=0.0):
    """A ``d`` s wave train at ``f`` Hz with waxing-waning envelope; returns float32."""
    m = max(2, int(d * sf))
    tt = np.arange(m) / sf
    ph = 2 * np.pi * (f + chirp * tt) * tt + rng.uniform(0, 6.3)
    return (shape(ph) * np.sin(np.pi * tt / d) ** 0.7).astype(np.float32)


def _wicket(ctx, k):
    rng, sf = ctx.rng, ctx.sfreq
    e = env(ctx, "drowsy") + 0.3 * env(ctx, "sleep")
    for t0 in _burst_times(ctx, 25 * k, e):
        side = "L" if rng.random() < 0.5 else "R"
        fv = geo.source_field(geo.jitter(rng, geo.region_dir("temporal", side), 8), 22)
        d = rng.uniform(0.4, 2.0)
        # Arciform, sharp negative apices, no after-going slow wave.
        sig = _train(sf, d, rng.uniform(6.5, 11), lambda p: -(np.abs(np.sin(p / 2)) ** 0.6 - 0.63),
                     rng)  # fmt: skip
        ctx.add(fv, rng.uniform(50, 130) * sig, ctx.s(t0))
        ctx.event(t0, t0 + d, "wicket")


def _small_sharp_spikes(ctx, k):
    rng, sf = ctx.rng, ctx.sfreq
    e = env(ctx, "drowsy") + 0.6 * env(ctx, "sleep")
    kern = sh.phases(sf, [(0.0, 0.007, 0.01, -1.0), (0.022, 0.01, 0.025, 0.55)])
    for t0 in _burst_times(ctx, 40 * k, e, 2.0):
        side = "L" if rng.random() < 0.5 else "R"
        u = geo.jitter(rng, geo.region_dir("temporal", side), 20)
        # Oblique dipole: broad field, phase reversal shifting, low amplitude.
        fv = geo.source_field(u, 34, 1.3 * geo.tangent(rng, u))
        sh.place(ctx.eeg, fv, kern[0], kern[1], ctx.s(t0), rng.uniform(15, 45))
        ctx.event(t0 - 0.02, t0 + 0.06, "small_sharp_spike")


def _rmtd(ctx, k):
    rng, sf = ctx.rng, ctx.sfreq
    for t0 in _burst_times(ctx, 4 * k, env(ctx, "drowsy") + 0.2 * env(ctx, "wake"), 10.0):
        d = float(np.clip(rng.lognormal(np.log(10), 0.6), 3, 60))
        if ctx.near_seizure(t0, t0 + d, 10):
            continue
        f = rng.uniform(5.0, 6.8)
        notch = rng.uniform(0.2, 0.45)
        sides = ["L", "R"] if rng.random() < 0.3 else [("L" if rng.random() < 0.5 else "R")]
        for side in sides:
            fv = geo.source_field(geo.region_dir("temporal", side), 24)
            # Flat-topped / notched: a third harmonic in phase.
            sig = _train(sf, d, f, lambda p, n=notch: np.sin(p) + n * np.sin(3 * p), rng)
            env_ = sh.ramp_env(sig.size, sf, 1.0, 1.0).astype(np.float32)
            ctx.add(fv, rng.uniform(35, 90) * sig * env_, ctx.s(t0))
        ctx.event(t0, t0 + d, "rmtd")


def _fourteen_six(ctx, k):
    rng, sf = ctx.rng, ctx.sfreq
    e = env(ctx, "drowsy") + 0.7 * env(ctx, "sleep")
    for t0 in _burst_times(ctx, 15 * k, e, 2.0):
        side = "L" if rng.random() < 0.5 else "R"
        u = geo.region_dir("posterior_temporal", side)
        fv = geo.source_field(u, 34)
        f = 14.0 if rng.random() < 0.6 else 6.0
        d = rng.uniform(0.5, 1.0)
        kap = 6.0 if f == 14.0 else 14.0
        # Positive arciform spikes, rounded negative troughs.
        sig = _train(sf, d, f + rng.uniform(-0.5, 0.5), lambda p, q=kap: sh.vm_bump(p, 0.0, q), rng)
        ctx.add(fv, rng.uniform(25, 65) * sig, ctx.s(t0))
        ctx.event(t0, t0 + d, f"positive_{int(f)}hz")


def _sreda(ctx, k):
    """Subclinical rhythmic electrographic discharge of adults: benign, looks ictal."""
    rng, sf = ctx.rng, ctx.sfreq
    for t0 in _burst_times(ctx, 0.5 * k, env(ctx, "wake"), 60.0):
        d = rng.uniform(30, 100)
        if ctx.near_seizure(t0, t0 + d, 60) or t0 + d > ctx.duration:
            continue
        fv = geo.distributed_field([(70, 140), (70, -140), (94, 124), (94, -124)], [1, 1, 0.8, 0.8])
        m = int(d * sf)
        tt = np.arange(m) / sf
        # A few sharp monophasic waves at growing rate, then sustained 5-7 Hz theta.
        lead = rng.uniform(4, 10)
        f = rng.uniform(5, 7)
        ph = 2 * np.pi * f * tt
        sig = (np.sin(ph) + 0.3 * np.sin(2 * ph + 1)) * np.clip((tt - lead) / 3.0, 0, 1)
        s0 = sh.spike(sf, 0.04, 0.07, 0.4, 0.3, 0.2)
        tk = rng.uniform(0.5, 1.5)
        while tk < lead + 2:
            sh.place(ctx.eeg, fv, s0[0], s0[1], ctx.s(t0 + tk), rng.uniform(40, 80))
            tk += max(0.25, 1.5 - tk / lead)
        ctx.add(fv, (rng.uniform(30, 70) * sig * sh.ramp_env(m, sf, 0.5, 0.3)).astype(np.float32),
                ctx.s(t0))  # fmt: skip
        ctx.event(t0, t0 + d, "sreda")


def _phantom_sw(ctx, k):
    rng, sf = ctx.rng, ctx.sfreq
    for t0 in _burst_times(ctx, 12 * k, env(ctx, "drowsy") + 0.3 * env(ctx, "wake"), 2.0):
        ant = rng.random() < 0.5
        fv = geo.generalised_field(1.0 if ant else 0.4, 0.4 if ant else 1.2)
        f = rng.uniform(5, 7)
        d = rng.uniform(0.6, 1.5)
        sig = _train(sf, d, f, lambda p: 0.5 * sh.vm_bump(p, 0, 60.0) - np.cos(p + 2.0), rng)
        ctx.add(fv, -rng.uniform(20, 40) * sig, ctx.s(t0))
        ctx.event(t0, t0 + d, "phantom_spike_wave")


def _hypnagogic(ctx, k):
    rng, sf = ctx.rng, ctx.sfreq
    fv = geo.generalised_field(1.0, 0.8)
    for t0 in _burst_times(ctx, 12 * k, env(ctx, "drowsy"), 5.0):
        d = rng.uniform(1.5, 8)
        if ctx.near_seizure(t0, t0 + d, 5):
            continue
        sig = _train(sf, d, rng.uniform(3, 5), np.sin, rng)
        ctx.add(fv, rng.uniform(120, 300) * sig, ctx.s(t0))
        ctx.event(t0, t0 + d, "hypnagogic_hypersynchrony")


def _lambda(ctx, k):
    rng, sf = ctx.rng, ctx.sfreq
    fv = geo.distributed_field([(95, 165), (95, -165)], [1, 1], 24)
    kern = sh.phases(sf, [(0.0, 0.04, 0.05, 1.0), (0.12, 0.04, 0.06, -0.25)])
    for t0 in _burst_times(ctx, 300 * k, env(ctx, "saccade"), 1.0):
        sh.place(ctx.eeg, fv, kern[0], kern[1], ctx.s(t0), rng.uniform(15, 45))
    if k > 0:
        ctx.event(0.0, ctx.duration, "lambda_waves")


def _posw(ctx, k):
    rng, sf = ctx.rng, ctx.sfreq
    kern = sh.phases(sf, [(0.0, 0.09, 0.14, -1.0)])
    for t0 in _burst_times(ctx, 80 * k, env(ctx, "alpha"), 2.0):
        side = 162 if rng.random() < 0.5 else -162
        fv = geo.source_field(geo.direction(96, side), 26)
        sh.place(ctx.eeg, fv, kern[0], kern[1], ctx.s(t0), rng.uniform(35, 90))
        ctx.event(t0 - 0.2, t0 + 0.4, "posterior_slow_wave_youth")


_VARIANTS = {
    "wicket": _wicket, "small_sharp_spikes": _small_sharp_spikes, "rmtd": _rmtd,
    "fourteen_six": _fourteen_six, "sreda": _sreda, "phantom_sw": _phantom_sw,
    "hypnagogic": _hypnagogic, "lambda": _lambda, "posw": _posw,
}  # fmt: skip


def render_variants(ctx: Ctx):
    """Every benign variant the patient has, at its state-dependent rate."""
    for name, k in ctx.patient["variants"].items():
        _VARIANTS[name](ctx, k)


def _photic(ctx: Ctx, t0: float) -> float:
    """Photic stimulation from ``t0``: 10 s trains at rising flash rates; returns end time."""
    rng, sf = ctx.rng, ctx.sfreq
    fv = geo.distributed_field([(96, 162), (96, -162), (70, 180)], [1, 1, 0.5], 26)
    amp = rng.uniform(5, 22)
    t = t0
    for f in (1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 30):
        d = 10.0
        m = int(d * sf)
        tt = np.arange(m) / sf
        # Driving: follows the flash (and harmonics), strongest near the alpha frequency.
        gain = 1.0 + 1.5 * np.exp(-0.5 * ((f - ctx.patient["background"]["pdr_hz"]) / 3) ** 2)
        ph = 2 * np.pi * f * tt
        if f <= 4:
            wave = sh.vm_bump(ph, 0.0, sh.kappa_for(0.03, f)) - 0.6 * sh.vm_bump(ph, 1.2, 3.0)
        else:
            wave = np.sin(ph) + 0.3 * np.sin(2 * ph + 0.5)
        sig = amp * gain / 2.0 * wave * sh.ramp_env(m, sf, 0.3, 0.2)
        ctx.add(fv, sig.astype(np.float32), ctx.s(t))
        ctx.event(t, t + d, f"photic_{f}hz")
        t += d + rng.uniform(4, 9)
    return t


def _hyperventilation(ctx: Ctx, t0: float, d: float):
    """Build-up of high-voltage rhythmic delta over minutes of hyperventilation, resolving."""
    rng, sf = ctx.rng, ctx.sfreq
    child = ctx.patient["age"] < 18
    fv = geo.generalised_field(1.3, 0.5) if not child else geo.generalised_field(0.8, 1.2)
    amp = rng.uniform(25, 70) if child else rng.uniform(5, 25)
    rec = rng.uniform(30, 60)
    m = int((d + rec) * sf)
    src = sh.spectral_noise(rng, m, sf, sh.peak_gain(rng.uniform(2.0, 3.5), 0.5))[0]
    tt = np.arange(m) / sf
    build = np.clip((tt - 0.3 * d) / (0.7 * d), 0, 1) ** 1.5 * np.clip((d + rec - tt) / rec, 0, 1)
    ctx.add(fv, (amp * build * src).astype(np.float32), ctx.s(t0))
    ctx.event(t0, t0 + d, "hyperventilation")


def render_activation(ctx: Ctx):
    """Photic stimulation and hyperventilation in routine (and some EMU) recordings."""
    rng, p = ctx.rng, ctx.patient
    if p["setting"] == "icu" or ctx.duration < 400:
        return
    out = p["setting"] == "outpatient"
    span = min(ctx.duration, 1800.0)
    t = rng.uniform(60, max(61, 0.4 * span))
    if rng.random() < (0.6 if out else 0.08) and t + 230 < ctx.duration:
        if not ctx.near_seizure(t, t + 230, 20):
            t = _photic(ctx, t) + rng.uniform(30, 120)
    if 5 < p["age"] < 60 and rng.random() < (0.5 if out else 0.06):
        d = rng.uniform(150, 240)
        if t + d + 80 < ctx.duration and not ctx.near_seizure(t, t + d + 60, 20):
            _hyperventilation(ctx, t, d)
