"""Ongoing background: the pages on normal rhythms, sleep, slowing and suppression.

Continuous activity is a set of cortical sources, each a coloured-noise or oscillator time
series, projected through its scalp field and scaled by the vigilance state: broadband 1/f
activity, frontal delta of sleep, fronto-central theta of drowsiness, the posterior dominant
rhythm (reactive to eye opening, fragmenting in drowsiness), beta and medication beta, mu.
Sleep transients (vertex waves, K-complexes, spindles, POSTS) are placed as events.
Pathological backgrounds: diffuse encephalopathic slowing, focal polymorphic delta, skull
breach, burst-suppression.
"""

from __future__ import annotations

import numpy as np

from . import geometry as geo
from . import shapes as sh
from .context import CTRL_RATE, Ctx
from .states import env


def _DELTA_GAIN(f):
    return (f + 0.3) ** -0.9 * f / np.sqrt(f**2 + 0.25**2) / (1 + (f / 3.5) ** 6)


def _THETA_GAIN(f):
    return np.exp(-0.5 * (np.log(np.maximum(f, 1e-3) / 5.5) / 0.28) ** 2)


def _BURST_GAIN(f):
    return (f + 0.5) ** -0.8 * f / np.sqrt(f**2 + 0.3**2) / (1 + (f / 12.0) ** 4)


def _band(ctx: Ctx, fields, gain, target_uv: float, env_ctrl, mod_tau: float | None = None,
          mod_depth: float = 0.35, focal: bool = False):  # fmt: skip
    """Project coloured-noise sources through ``fields`` and add them, scaled by the state.

    ``target_uv`` is the rms at ``env == 1``: the median over electrodes, or for a ``focal``
    pattern the largest.
    """
    if target_uv <= 0 or np.max(env_ctrl) <= 0:
        return
    rng = ctx.rng
    src = sh.spectral_noise(rng, ctx.n, ctx.sfreq, gain, len(fields))
    if mod_tau:
        for i in range(len(fields)):
            m = np.exp(mod_depth * sh.slow_noise(rng, ctx.n_ctrl, CTRL_RATE, mod_tau))
            src[i] *= ctx.to_samples(m / m.mean())
    f = np.stack(fields, axis=1).astype(np.float32)
    x = f @ src
    del src
    rms = np.sqrt(np.mean(x[:, :: max(1, ctx.n // 20000)].astype(np.float64) ** 2, axis=1))
    ref = np.max(rms) if focal else np.median(rms)
    x *= ctx.to_samples(env_ctrl * target_uv / max(ref, 1e-9))[None, :]
    ctx.eeg += x


def _random_fields(rng, k, bias_dir=None, bias=0.0, width=(22, 38), max_polar=110.0):
    """``k`` fields of sources scattered over the cortex, optionally pulled towards a region."""
    out = []
    for _ in range(k):
        u = geo.random_scalp_dir(rng, max_polar)
        if bias_dir is not None and bias > 0:
            u = (1 - bias) * u + bias * geo.jitter(rng, bias_dir, 35)
        tilt = 0.6 * geo.tangent(rng, u / np.linalg.norm(u)) if rng.random() < 0.3 else None
        out.append(geo.source_field(u, rng.uniform(*width), tilt))
    return out


def _pdr(ctx: Ctx):
    """Posterior dominant rhythm: left/right occipital oscillators sharing one pacemaker."""
    rng, bg = ctx.rng, ctx.patient["background"]
    if bg["pdr_uv"] <= 0.5:
        return
    w_drowsy = env(ctx, "drowsy")
    fc = bg["pdr_hz"] + 0.15 * sh.slow_noise(rng, ctx.n_ctrl, CTRL_RATE, 30.0) - 0.8 * w_drowsy
    a_env = env(ctx, "alpha")
    # Drowsy alpha comes and goes.
    gate = 1.0 / (1.0 + np.exp(-3.0 * sh.slow_noise(rng, ctx.n_ctrl, CTRL_RATE, 2.0)))
    a_env = a_env * (1.0 - np.minimum(w_drowsy, 1.0) * (1.0 - gate))
    if np.max(a_env) <= 0:
        return
    freq = ctx.to_samples(fc).astype(np.float64)
    sd = np.sqrt(2 * np.pi * 2 * 0.3 / ctx.sfreq)
    ph = sh.phase_from_freq(freq, ctx.sfreq, rng.uniform(0, 2 * np.pi))
    ph += np.cumsum(rng.normal(0.0, sd, ctx.n))
    h2 = rng.uniform(0.05, 0.2)
    common = sh.slow_noise(rng, ctx.n_ctrl, CTRL_RATE, 0.5)
    fl = geo.source_field(geo.direction(98, 162), 26)
    fr = geo.source_field(geo.direction(98, -162), 26)
    fm = geo.source_field(geo.direction(72, 180), 30)
    asym = bg["pdr_asym"]
    fs = bg.get("focal_slowing")
    lr = [1.0, asym]
    if fs and fs["region"] in ("occipital", "parietal", "posterior_temporal", "temporal"):
        lr[0 if fs["side"] == "L" else 1] *= 0.6
    for k, fv in enumerate((fl, fr)):
        own = sh.slow_noise(rng, ctx.n_ctrl, CTRL_RATE, 0.5)
        am = np.exp(0.5 * (0.75 * common + 0.66 * own))
        am = am / am.mean() * a_env * bg["pdr_uv"] * lr[k]
        lag = rng.uniform(-0.15, 0.15)
        wave = np.sin(ph + lag) + h2 * np.sin(2 * (ph + lag) + 0.6)
        sig = (wave * ctx.to_samples(am)).astype(np.float32)
        ctx.add(fv + 0.4 * fm, sig)


def _mu(ctx: Ctx):
    """Arciform central mu rhythm in bursts, blocked in sleep."""
    rng, bg = ctx.rng, ctx.patient["background"]
    f0 = bg["pdr_hz"] + rng.uniform(-0.6, 0.6)
    e = env(ctx, "mu")
    for side in (1, -1):
        gate = np.clip(1.6 * (sh.slow_noise(rng, ctx.n_ctrl, CTRL_RATE, 1.5) - 0.2), 0, 1)
        ph = 2 * np.pi * f0 * ctx.t + rng.uniform(0, 6.3)
        ph += np.cumsum(rng.normal(0, 0.05, ctx.n))
        # Sharp negative, rounded positive: the "wicket-like" arch of mu.
        wave = np.sin(ph) + 0.35 * np.sin(2 * ph - np.pi / 2)
        amp = rng.uniform(10, 25)
        sig = (wave * ctx.to_samples(gate * e * amp)).astype(np.float32)
        ctx.add(geo.source_field(geo.direction(46, 84 * side), 22), sig)


def _sleep_transients(ctx: Ctx):
    """Vertex waves, K-complexes, spindles and POSTS as events driven by the state."""
    rng, bg, sf = ctx.rng, ctx.patient["background"], ctx.sfreq
    damp = max(0.0, 1.0 - 0.45 * bg["enc"])
    if damp <= 0:
        return
    child = ctx.patient["age"] < 13
    vertex_f = geo.source_field(geo.direction(8, 0), 30)
    kc_f = geo.source_field(geo.direction(30, 0), 42)
    sp_f = 0.7 * geo.source_field(geo.direction(15, 0), 40) + 0.3 * geo.source_field(
        geo.direction(45, 0), 40
    )
    posts_f = geo.distributed_field([(95, 162), (95, -162), (75, 180)], [1.0, 1.0, 0.4], 24)

    def spindle(t0, amp):
        d = rng.uniform(0.5, 1.8)
        f = bg["spindle_hz"] + rng.normal(0, 0.35)
        tt = np.arange(int(d * sf)) / sf
        w = np.sin(np.pi * tt / d) ** 2
        sig = amp * w * np.sin(2 * np.pi * (f - 0.3 * tt / d) * tt + rng.uniform(0, 6.3))
        ctx.add(sp_f, sig.astype(np.float32), ctx.s(t0))

    free = ctx.free_ctrl(3.0)
    for t0 in sh.poisson_times(rng, 4.5 / 60 * damp * env(ctx, "spindle") * free, CTRL_RATE):
        spindle(t0, rng.uniform(10, 35) * (1.3 if child else 1.0))
    kc = sh.phases(sf, [(0.0, 0.07, 0.11, -1.0), (0.36, 0.14, 0.26, 0.55)])
    for t0 in sh.poisson_times(rng, 1.3 / 60 * damp * env(ctx, "kcomplex") * free, CTRL_RATE):
        sh.place(ctx.eeg, kc_f, kc[0], kc[1], ctx.s(t0), rng.uniform(70, 190))
        if rng.random() < 0.5:
            spindle(t0 + rng.uniform(0.5, 0.9), rng.uniform(10, 25))
    vw = sh.phases(sf, [(0.0, 0.035, 0.05, -1.0), (0.12, 0.04, 0.07, 0.35)])
    vamp = (100, 220) if child else (45, 130)
    for t0 in sh.poisson_times(rng, 4.0 / 60 * damp * env(ctx, "vertex") * free, CTRL_RATE):
        for j in range(1 if rng.random() < 0.75 else int(rng.integers(2, 4))):
            at = ctx.s(t0 + j * rng.uniform(0.6, 1.1))
            sh.place(ctx.eeg, vertex_f, vw[0], vw[1], at, rng.uniform(*vamp))
    ps = sh.phases(sf, [(0.0, 0.025, 0.06, 1.0), (0.11, 0.04, 0.05, -0.25)])
    for t0 in sh.poisson_times(rng, 5.0 / 60 * damp * env(ctx, "posts") * free, CTRL_RATE):
        gap = rng.uniform(0.2, 0.28)
        amp = rng.uniform(20, 55)
        for j in range(1 if rng.random() < 0.5 else int(rng.integers(2, 6))):
            sh.place(ctx.eeg, posts_f, ps[0], ps[1], ctx.s(t0 + j * gap), amp * rng.uniform(0.7, 1))


def _focal_slowing(ctx: Ctx, fs: dict):
    """Polymorphic (irregular, arrhythmic) delta over a lesion, more in drowsiness/sleep."""
    rng = ctx.rng
    u = geo.region_dir(fs["region"], fs["side"])
    fields = [geo.source_field(geo.jitter(rng, u, 12), 30) for _ in range(3)]
    c = fs["continuity"]
    gate = 1.0 / (1.0 + np.exp(-3.0 * sh.slow_noise(rng, ctx.n_ctrl, CTRL_RATE, 8.0)))
    e = (c + (1 - c) * gate) * (0.7 + 0.3 * np.minimum(env(ctx, "delta"), 1.5))
    _band(ctx, fields, _DELTA_GAIN, fs["amp_uv"], e, 3.0, 0.5, focal=True)


def _breach(ctx: Ctx, br: dict):
    """Skull defect: higher amplitude and sharply contoured 6-11 Hz and beta over the breach."""
    rng = ctx.rng
    chans = geo.nearest(geo.region_dir(br["region"], br["side"]), 3)
    ctx.brain_gain[chans] *= br["gain"]
    mu = sh.spectral_noise(rng, ctx.n, ctx.sfreq, sh.band_gain(6.0, 11.0), 3)
    beta = sh.spectral_noise(rng, ctx.n, ctx.sfreq, sh.band_gain(14.0, 26.0), 3)
    for j, ch in enumerate(chans):
        x = mu[j] + 0.35 * (mu[j] ** 2 - 1.0)  # the asymmetry makes it "spiky"
        ctx.eeg[ch] += br["fast_uv"] * (0.8 - 0.2 * j) * (x + 0.4 * beta[j])
    ctx.event(0.0, ctx.duration, "breach_rhythm")


def _burst_suppression(ctx: Ctx, bs: dict):
    """Suppress the background except in bursts of high-voltage mixed slow and sharp waves."""
    rng, sf = ctx.rng, ctx.sfreq
    frac = bs["fraction"]
    a = rng.uniform(0, (1 - frac) * ctx.duration)
    b = a + frac * ctx.duration
    mask = np.zeros(ctx.n_ctrl)
    mask[ctx.ctrl_slice(a, b)] = 1.0
    k = max(1, min(int(60 * CTRL_RATE), ctx.n_ctrl))
    mask = np.convolve(mask, np.ones(k) / k, mode="same")
    ctx.bs_mask = mask
    gain = np.ones(ctx.n, dtype=np.float32)
    gen_f = geo.generalised_field(1.0, 0.7)
    t = a
    while t < b:
        t += float(np.clip(rng.lognormal(np.log(bs["supp_s"]), 0.5), 1.0, 40.0))
        d = float(np.clip(rng.lognormal(np.log(bs["burst_s"]), 0.4), 0.4, 6.0))
        if t + d >= b:
            break
        i0, i1 = ctx.s(t), ctx.s(t + d)
        seg = sh.spectral_noise(rng, i1 - i0, sf, _BURST_GAIN, 2)
        w = sh.ramp_env(i1 - i0, sf, 0.05, 0.3)
        burst = bs["burst_uv"] * w * (seg[0] + 0.4 * seg[1])
        ctx.add(gen_f, burst, i0)
        sp = sh.spike(sf, 0.015, 0.03, 0.0)
        sh.place(ctx.eeg, gen_f, sp[0], sp[1], i0 + int(0.05 * sf), bs["burst_uv"] * 0.8)
        gain[i0:i1] = np.maximum(gain[i0:i1], 1.0 / max(bs["supp_gain"], 1e-3) * w)
        ctx.event(t, t + d, "bs_burst")
    m = ctx.to_samples(mask)
    g = (1 - m) + m * bs["supp_gain"] * gain
    # In bursts the gain undoes the suppression, so bursts keep their drawn amplitude.
    ctx.eeg *= g[None, :]
    ctx.event(a, b, "burst_suppression")


def render_background(ctx: Ctx):
    """Add every background page into ``ctx.eeg``."""
    rng, bg = ctx.rng, ctx.patient["background"]
    child = ctx.patient["age"] < 13
    front = geo.direction(50, 0)
    _band(ctx, _random_fields(rng, 12, None, 0.0, (28, 45)), sh.pink_gain(bg["alpha_exp"], 1.0),
          bg["broad_uv"], env(ctx, "broad"), 4.0, 0.25)  # fmt: skip
    # Independent per-electrode activity: decorrelates neighbours as real EEG does.
    for c in range(geo.N_CH):
        x = sh.spectral_noise(rng, ctx.n, ctx.sfreq, sh.pink_gain(2.0, 1.0, 0.5))[0]
        ctx.eeg[c] += np.float32(bg["noise_uv"]) * x
    # Sleep delta is polymorphic: 1/f-shaped within the band, strongest below 2 Hz.
    _band(ctx, _random_fields(rng, 8, front, 0.5, (35, 55)), _DELTA_GAIN, bg["delta_uv"],
          env(ctx, "delta"), 2.0, 0.4)  # fmt: skip
    th = geo.direction(35, 0) if not child else geo.direction(80, 140)
    _band(ctx, _random_fields(rng, 8, th, 0.4, (30, 45)), _THETA_GAIN, bg["theta_uv"],
          env(ctx, "theta"), 1.0, 0.4)  # fmt: skip
    _band(ctx, _random_fields(rng, 6, front, 0.5, (28, 42)), sh.band_gain(14.0, 30.0, 3.0),
          bg["beta_uv"], env(ctx, "beta"), 1.0)  # fmt: skip
    if bg["med_beta_uv"] > 0:
        fc = rng.uniform(16, 23)
        _band(ctx, _random_fields(rng, 5, front, 0.7, (28, 40)), sh.peak_gain(fc, 2.5),
              bg["med_beta_uv"], np.ones(ctx.n_ctrl), 0.6, 0.6)  # fmt: skip
    if bg["enc"] > 0:
        # Diffuse polymorphic delta/theta of encephalopathy, little state dependence.
        _band(ctx, _random_fields(rng, 8, None, 0.0, (35, 55)), _DELTA_GAIN,
              bg["enc_delta_uv"], np.ones(ctx.n_ctrl), 3.0, 0.4)  # fmt: skip
        _band(ctx, _random_fields(rng, 6, None, 0.0, (30, 50)), _THETA_GAIN,
              0.5 * bg["enc_delta_uv"], np.ones(ctx.n_ctrl), 2.0, 0.4)  # fmt: skip
    _pdr(ctx)
    if bg["mu"]:
        _mu(ctx)
    _sleep_transients(ctx)
    if bg.get("focal_slowing"):
        _focal_slowing(ctx, bg["focal_slowing"])
        fs = bg["focal_slowing"]
        ctx.event(0.0, ctx.duration, f"focal_slowing_{fs['side']}_{fs['region']}")
    if bg["enc"] > 0:
        ctx.event(0.0, ctx.duration, f"encephalopathy_{bg['enc']}")
    if bg.get("burst_suppression"):
        _burst_suppression(ctx, bg["burst_suppression"])
    if bg.get("breach"):
        _breach(ctx, bg["breach"])
