"""The ward's artifacts: machines, care, electrodes and mains.

Ventilator (a slow wave per breath on the electrodes the tubing moves, sometimes rhythmic
"rain" from water in the tubing), vibrating beds and chest physiotherapy (constant-frequency
rhythms that never evolve), IV drips (regular single-electrode spikes), patting of small
children, electrode pops and pop trains, sweat sway, line noise and bad channels (flat and
humming, noisy, salt-bridged, drifting).
"""

from __future__ import annotations

import numpy as np

from . import geometry as geo
from . import shapes as sh
from .artifacts import movement, pop
from .context import Ctx

_POSTERIOR = geo.idx(["O1", "O2", "T5", "T6", "P3", "P4", "PZ", "A1", "A2"])


def _cluster(rng, k):
    """``k`` neighbouring electrodes around a random one."""
    return geo.nearest(geo.XYZ[int(rng.integers(geo.N_CH))], k)


def _ventilator(ctx: Ctx, a):
    rng, sf = ctx.rng, ctx.sfreq
    rate = a["resp_per_min"] / 60 * rng.uniform(0.9, 1.1)
    ph = sh.phase_from_freq(np.full(ctx.n, rate), sf, rng.uniform(0, 6.3))
    # Inspiration quicker than expiration: a skewed wave per breath.
    wave = sh.vm_bump(ph, 0.0, 2.5) + 0.4 * sh.vm_bump(ph, 0.9, 6.0)
    chans = _cluster(rng, int(rng.integers(1, 5)))
    for j, ch in enumerate(chans):
        amp = rng.uniform(10, 60) * (1 - 0.15 * j) * rng.choice([-1, 1])
        ctx.eeg[ch] += (amp * wave).astype(np.float32)
    if rng.random() < 0.4:
        # Water in the tubing: a burst of fast ripples with every inspiration.
        f = rng.uniform(5, 14)
        gate = np.clip(sh.vm_bump(ph, 0.3, 12.0), 0, None)
        rip = np.sin(2 * np.pi * f * ctx.t + np.cumsum(rng.normal(0, 0.05, ctx.n)))
        ch2 = _cluster(rng, int(rng.integers(1, 4)))
        for ch in ch2:
            ctx.eeg[ch] += (rng.uniform(8, 35) * gate * rip).astype(np.float32)
        ctx.event(0.0, ctx.duration, "ventilator_rain")
    ctx.event(0.0, ctx.duration, "ventilator")


def _rhythm_episode(ctx, a, b, f, weights, amp, kind, sharp=0.0):
    """A machine rhythm of fixed frequency (with harmonic) on ``weights``."""
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < sf:
        return
    ph = sh.phase_from_freq(np.full(m, f), sf, rng.uniform(0, 6.3))
    ph += np.cumsum(rng.normal(0, 0.02 / np.sqrt(sf), m))
    wave = (1 - sharp) * (np.sin(ph) + 0.3 * np.sin(2 * ph + 1.0)) + sharp * sh.vm_bump(
        ph, 0.0, 8.0
    )
    sig = amp * wave * sh.ramp_env(m, sf, 2.0, 2.0)
    ctx.add(weights, sig.astype(np.float32), i0)
    ctx.event(a, b, kind)


def _iv_drip(ctx: Ctx):
    rng, sf = ctx.rng, ctx.sfreq
    d = min(ctx.duration, rng.uniform(600, 3600))
    a = rng.uniform(0, ctx.duration - d)
    per = rng.uniform(0.6, 5.0)
    ch = _cluster(rng, int(rng.integers(1, 3)))
    kern, z = sh.phases(sf, [(0.0, 0.004, 0.02, 1.0), (0.04, 0.02, 0.05, -0.3)])
    amp = rng.uniform(15, 70) * rng.choice([-1, 1])
    fv = np.zeros(geo.N_CH)
    fv[ch] = [1.0, 0.6][: len(ch)]
    t = a
    while t < a + d:
        sh.place(ctx.eeg, fv, kern, z, ctx.s(t), amp * rng.uniform(0.8, 1.2))
        t += per * rng.uniform(0.97, 1.03)
    ctx.event(a, a + d, "iv_drip")


def _patting(ctx: Ctx, a, b):
    rng, sf = ctx.rng, ctx.sfreq
    ch = _cluster(rng, int(rng.integers(2, 6)))
    fv = np.zeros(geo.N_CH)
    fv[ch] = rng.uniform(0.4, 1.0, ch.size)
    kern, z = sh.phases(sf, [(0.0, 0.01, 0.04, 1.0), (0.09, 0.04, 0.08, -0.45)])
    f = rng.uniform(1.2, 4.0)
    t = a
    while t < b:
        sh.place(ctx.eeg, fv, kern, z, ctx.s(t), rng.uniform(60, 250) * rng.choice([1, 1, 1, -1]))
        t += rng.normal(1.0, 0.08) / f
    ctx.event(a, b, "patting")


def _sweat(ctx: Ctx, a, b):
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    ch = _cluster(rng, int(rng.integers(2, 6)))
    x = sh.spectral_noise(rng, m, sf, sh.band_gain(0.04, 0.35, 0.03), 2)
    env_ = sh.ramp_env(m, sf, 20, 20)
    for j, c in enumerate(ch):
        mix = x[0] + 0.4 * rng.normal() * x[1]
        ctx.eeg[c, i0:i1] += (rng.uniform(40, 200) * (1 - 0.1 * j) * mix * env_).astype(np.float32)
    ctx.event(a, b, "sweat")


def _line_noise(ctx: Ctx, a):
    rng, sf = ctx.rng, ctx.sfreq
    f = a["line_hz"]
    if f >= 0.5 * sf:
        return
    per = a["line_uv"] * rng.lognormal(0, 0.7, geo.N_CH)
    wob = np.exp(0.3 * ctx.to_samples(sh.slow_noise(rng, ctx.n_ctrl, 4.0, 60.0)))
    base = np.sin(2 * np.pi * f * ctx.t + rng.uniform(0, 6.3)) * wob
    if 2 * f < 0.5 * sf:
        base = base + 0.15 * np.sin(4 * np.pi * f * ctx.t + rng.uniform(0, 6.3))
    base = base.astype(np.float32)
    for c in range(geo.N_CH):
        ctx.eeg[c] += np.float32(per[c]) * base


def _bad_channels(ctx: Ctx, a):
    rng, sf = ctx.rng, ctx.sfreq
    if rng.random() >= a["bad_channel_p"]:
        return
    for _ in range(1 if rng.random() < 0.7 else 2):
        ch = int(rng.integers(geo.N_CH))
        t0 = 0.0 if rng.random() < 0.6 else rng.uniform(0, 0.8 * ctx.duration)
        i0 = ctx.s(t0)
        m = ctx.n - i0
        kind = str(rng.choice(["flat", "noisy", "bridged", "popping", "drift"]))
        name = geo.ELECTRODES[ch]
        if kind == "flat":
            hum = np.sin(2 * np.pi * a["line_hz"] * ctx.t[i0:] + rng.uniform(0, 6))
            if a["line_hz"] >= 0.5 * sf:
                hum = hum * 0.0
            ctx.eeg[ch, i0:] = (rng.uniform(0.3, 2) * rng.normal(size=m)
                                + rng.uniform(10, 150) * hum).astype(np.float32)  # fmt: skip
        elif kind == "noisy":
            x = sh.spectral_noise(rng, m, sf, sh.pink_gain(0.6, 5.0, 0.5))[0]
            ctx.eeg[ch, i0:] += (rng.uniform(15, 60) * x).astype(np.float32)
            if a["line_hz"] < 0.5 * sf:
                ctx.eeg[ch, i0:] += (rng.uniform(5, 60) * np.sin(
                    2 * np.pi * a["line_hz"] * ctx.t[i0:])).astype(np.float32)  # fmt: skip
        elif kind == "bridged":
            nb = int(geo.nearest(geo.XYZ[ch], 2)[1])
            mean = 0.5 * (ctx.eeg[ch, i0:] + ctx.eeg[nb, i0:])
            ctx.eeg[ch, i0:] = mean
            ctx.eeg[nb, i0:] = mean
            name = f"{name}_{geo.ELECTRODES[nb]}"
        elif kind == "popping":
            t = t0 + rng.uniform(0, 5)
            while t < ctx.duration:
                pop(ctx, t, ch, rng.uniform(80, 600), log=False)
                t += rng.lognormal(np.log(3.0), 0.9)
        else:
            x = sh.spectral_noise(rng, m, sf, sh.band_gain(0.02, 0.2, 0.02))[0]
            ctx.eeg[ch, i0:] += (rng.uniform(100, 400) * x).astype(np.float32)
        ctx.event(t0, ctx.duration, f"bad_channel_{kind}_{name}")


def render_ward(ctx: Ctx):
    """Machines, care, electrodes, mains and bad channels (in that order, bad channels last)."""
    rng, a = ctx.rng, ctx.patient["artifacts"]
    load, dur_h = a["load"], ctx.duration / 3600.0
    if a["ventilated"]:
        _ventilator(ctx, a)
    post = np.zeros(geo.N_CH)
    post[_POSTERIOR] = rng.uniform(0.4, 1.0, len(_POSTERIOR))
    for s, e in sh.intervals(rng, ctx.duration, a["bed"], 180, 1.0, 30, 1200):
        # Beds oscillate at a fixed rate: a rhythm that never evolves.
        _rhythm_episode(ctx, s, e, rng.uniform(1.0, 8.0), post, rng.uniform(5, 40), "bed_vibration")
    for s, e in sh.intervals(rng, ctx.duration, a["physio"], 120, 0.6, 30, 600):
        # Percussion shakes the whole head, unevenly: electrodes move by different amounts.
        w = rng.uniform(-0.3, 1.0, geo.N_CH) ** 2
        _rhythm_episode(ctx, s, e, rng.uniform(2.5, 6.5), w, rng.uniform(40, 150),
                        "chest_physiotherapy", sharp=0.6)  # fmt: skip
    if a["iv_drip"]:
        _iv_drip(ctx)
    for s, e in sh.intervals(rng, ctx.duration, a["patting"], 30, 0.7, 8, 180):
        _patting(ctx, s, e)
        if rng.random() < 0.5:
            movement(ctx, s, min(e, s + rng.uniform(2, 8)), rng.uniform(40, 150))
    for s, e in sh.intervals(rng, ctx.duration, a["sweat"] * (1 + load) / 2, 240, 0.7, 40, 1500):
        _sweat(ctx, s, e)
    for t in np.sort(rng.uniform(0, ctx.duration, rng.poisson(12 * load * dur_h))):
        pop(ctx, t, int(rng.integers(geo.N_CH)), rng.lognormal(np.log(150), 0.6))
    for s, e in sh.intervals(rng, ctx.duration, 0.8 * load, 40, 0.9, 5, 600):
        ch = int(rng.integers(geo.N_CH))
        t = s
        while t < e:
            pop(ctx, t, ch, rng.uniform(60, 500), log=False)
            t += rng.lognormal(np.log(1.5), 0.7)
        ctx.event(s, e, f"pop_train_{geo.ELECTRODES[ch]}")
    _line_noise(ctx, a)
    _bad_channels(ctx, a)
