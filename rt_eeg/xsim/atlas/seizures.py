"""Ictal pages: seizures that evolve in frequency, morphology and location.

Every morphology is driven by one ictal oscillator whose frequency, sharpness (sinusoid ->
sharp wave -> spike), after-going slow wave and amplitude follow knots over the seizure's
normalised time, and a set of recruited generators (focus, neighbours, contralateral
homologue, whole hemisphere or both) that join at their own delays with their own lags.
That evolution is what makes an electrographic seizure, and it happens only between the
requested onset and offset; afterwards come post-ictal attenuation and slowing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import artifacts as art
from . import geometry as geo
from . import shapes as sh
from .context import Ctx
from .discharges import GEN_BOOST, asym
from .patient import SEIZURE_TYPES

GENERALISED = frozenset(
    {"absence_spike_wave", "atypical_spike_wave", "polyspike_wave", "gpd_evolving", "tonic_fast"}
)
#: Probability that clinical movement/muscle artifact obscures the seizure (times the
#: patient's own tendency, 0-1, plus a floor).
_MUSCLE = {
    "focal_rhythmic_theta": 0.45, "low_voltage_fast": 0.5, "focal_spike_train": 0.55,
    "subtle_focal": 0.1, "rhythmic_delta_evolving": 0.2, "lpd_evolving": 0.1,
    "gpd_evolving": 0.05, "hypermotor": 1.0, "absence_spike_wave": 0.15,
    "atypical_spike_wave": 0.2, "polyspike_wave": 0.7, "tonic_clonic": 1.0, "tonic_fast": 0.7,
}  # fmt: skip


@dataclass
class Gen:
    """A recruited generator: its field, when it joins (s), how fast, how strong, its lag."""

    field: np.ndarray
    onset: float
    ramp: float
    gain: float
    lag: float = 0.0


def choose_types(ctx: Ctx) -> list[str]:
    """The morphology of each requested seizure (mostly the patient's primary type)."""
    sz = ctx.patient["seizure"]
    out = []
    for _ in ctx.seizures:
        t = sz["types"][0] if ctx.rng.random() < sz["p_primary"] else sz["types"][1]
        out.append(t if t in SEIZURE_TYPES else "focal_rhythmic_theta")
    return out


def _wave(ph, f, sharp, slow, spike_w, poly=0):
    """Ictal waveform from phase: sinusoid, spike, spike-and-slow-wave or polyspike-wave.

    Negative (surface-negative) peaks at phase 0.
    """
    k = sh.kappa_for(spike_w, f)
    spk = sh.vm_bump(ph, 0.0, k)
    for j in range(1, poly + 1):
        spk = spk + (0.85 - 0.1 * j) * sh.vm_bump(ph, 2 * np.pi * f * 0.05 * j, k)
    if poly:
        spk = spk / (1.0 + 0.6 * poly)
    sw = sh.vm_bump(ph, 0.95 * np.pi, 2.2)
    return -((1 - sharp) * np.cos(ph) + sharp * ((1 - 0.3 * slow) * spk + slow * sw))


def _knots(u, pts):
    xs = np.linspace(0.0, 1.0, len(pts))
    return np.interp(u, xs, pts)


def _spread(ctx: Ctx, region, side, dur, k_neigh=2, p_contra=0.4, hemi=0.3, width_sd=5.0):
    """Focus, ipsilateral neighbours, maybe contralateral homologue and hemisphere."""
    rng, sp = ctx.rng, ctx.patient["seizure"]["spread"]
    gens = [Gen(geo.region_field(region, side, rng, width_sd, 0.3, rng.uniform(1.2, 1.5)), 0.0,
                rng.uniform(1.0, 4.0), 1.0)]  # fmt: skip
    for j, nb in enumerate(geo.NEIGHBOURS[region][:k_neigh]):
        if rng.random() < 0.5 + 0.5 * sp:
            on = min(dur * rng.uniform(0.08, 0.4), rng.uniform(3, 30)) * (1 + 0.5 * j)
            gens.append(Gen(geo.region_field(nb, side, rng, 8, 0.3, 1.2), on, rng.uniform(2, 6),
                            rng.uniform(0.5, 0.9), rng.uniform(0.005, 0.04)))  # fmt: skip
    if dur > 15 and rng.random() < p_contra * (0.5 + sp):
        other = "R" if side == "L" else "L"
        on = min(dur * rng.uniform(0.3, 0.6), rng.uniform(15, 60))
        gens.append(Gen(geo.region_field(region, other, rng, 8, 0.3, 1.2), on, rng.uniform(3, 10),
                        rng.uniform(0.4, 0.85), rng.uniform(0.01, 0.06)))  # fmt: skip
    if dur > 20 and rng.random() < hemi * (0.5 + sp):
        on = min(dur * rng.uniform(0.25, 0.5), rng.uniform(10, 50))
        gens.append(Gen(geo.hemispheric_field(side, region if region in
                        ("temporal", "frontal", "central") else "temporal"), on,
                        rng.uniform(4, 10), rng.uniform(0.4, 0.7), 0.02))  # fmt: skip
    return gens


def _render(ctx, a, b, gens, f_pts, sharp_pts, slow_pts, amp_pts, amp_uv, *, spike_w=0.018,
            poly=0, irregular=1.0, wax=0.25, atten=0.3, atten_pts=None, end_fade=0.4,
            texture=0.3, cycle_jitter=0.25):  # fmt: skip
    """Render the ictal oscillator through the generators into ``[a, b)``.

    Each generator follows the common ictal phase (with its lag) but has its own waxing and
    waning, cycle-to-cycle amplitude jitter and a ``texture`` share of a phase-diffused copy
    of the waveform, so that the rhythm is organic rather than a pure chirp. Background under
    involved electrodes is attenuated (``atten``, or following ``atten_pts``) while they are
    recruited.
    """
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < 4:
        return
    u = np.linspace(0.0, 1.0, m)
    tt = np.arange(m) / sf
    nc = max(8, int(m / sf * 4))
    jit = np.interp(tt, np.arange(nc) / 4.0, sh.slow_noise(rng, nc, 4.0, 1.0))
    f = np.maximum(_knots(u, f_pts) * (1 + 0.06 * jit), 0.3)
    ph = sh.phase_from_freq(f, sf, 0.0) + np.cumsum(rng.normal(0, irregular / np.sqrt(sf), m))
    sharp = _knots(u, sharp_pts)
    slow = _knots(u, slow_pts)
    amp = amp_uv * _knots(u, amp_pts) * sh.ramp_env(m, sf, 0.05, min(end_fade, m / sf / 4))
    cyc = ph / (2 * np.pi)
    n_cyc = int(cyc[-1]) + 3
    gates = []
    involve = np.zeros((geo.N_CH, m), dtype=np.float32)
    for g in gens:
        gate = np.sin(0.5 * np.pi * np.clip((tt - g.onset) / max(g.ramp, 0.05), 0, 1)) ** 2
        gates.append(gate)
        involve = np.maximum(involve, np.abs(g.field)[:, None].astype(np.float32) * gate)
    att = atten if atten_pts is None else _knots(u, atten_pts)
    ctx.eeg[:, i0:i1] *= 1.0 - (att * involve).astype(np.float32)
    for g, gate in zip(gens, gates, strict=True):
        if not gate.any():
            continue
        w = np.exp(wax * sh.slow_noise(rng, nc, 4.0, 1.5))
        w = np.interp(tt, np.arange(nc) / 4.0, w / w.mean())
        w *= np.exp(cycle_jitter * np.interp(cyc, np.arange(n_cyc), rng.normal(0, 1, n_cyc)))
        pg = ph - 2 * np.pi * f * g.lag
        wave = _wave(pg, f, sharp, slow, spike_w, poly)
        if texture > 0:
            ph2 = pg + np.cumsum(rng.normal(0, 3.0 / np.sqrt(sf), m))
            wave = (1 - texture) * wave + texture * _wave(ph2, f, sharp, slow, spike_w, poly)
        sig = g.gain * amp * gate * w * wave
        ctx.add(g.field, sig.astype(np.float32), i0)


def _focal_rhythmic_theta(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    d = b - a
    f0 = rng.uniform(5.0, 8.0) if rng.random() < 0.85 else rng.uniform(8.0, 10.5)
    f0 *= sz["freq_scale"]
    gens = _spread(ctx, fo[0], fo[1], d, 2, 0.45, 0.3)
    if rng.random() < 0.4:
        _decrement(ctx, a, min(d * 0.2, rng.uniform(1, 4)), gens[0].field, 0.6)
    fe = max(1.5, f0 * rng.uniform(0.25, 0.4))
    _render(ctx, a, b, gens, [f0, f0 * 0.97, f0 * 0.7, f0 * 0.5, fe],
            [0.15, 0.25, 0.5, 0.7, 0.8], [0, 0, 0.15, 0.45, 0.7],
            [0.3, 0.7, 1.1, 1.3, 1.0], sz["amp_uv"] * rng.uniform(0.7, 1.3))  # fmt: skip


def _low_voltage_fast(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    d = b - a
    gens = _spread(ctx, fo[0], fo[1], d, 3, 0.4, 0.4)
    _decrement(ctx, a, min(d * 0.3, rng.uniform(2, 6)), gens[0].field, 0.75)
    f0 = rng.uniform(15, 28)
    _render(ctx, a, b, gens, [f0, 0.5 * f0, 6.5, 4.0, 2.2],
            [0.0, 0.2, 0.65, 0.85, 0.9], [0, 0, 0.2, 0.45, 0.6],
            [0.15, 0.35, 0.8, 1.1, 0.95], sz["amp_uv"] * rng.uniform(0.8, 1.3),
            spike_w=0.012, atten=0.5, irregular=2.5, texture=0.45, cycle_jitter=0.35)  # fmt: skip


def _focal_spike_train(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    d = b - a
    gens = _spread(ctx, fo[0], fo[1], d, 2, 0.35, 0.25)
    f0 = rng.uniform(1.5, 3.0) * sz["freq_scale"]
    fm = rng.uniform(3.5, 5.5)
    _render(ctx, a, b, gens, [f0, fm, fm * 0.95, 0.6 * fm, max(1.0, 0.3 * fm)],
            [0.85, 0.9, 0.9, 0.9, 0.9], [0.3, 0.15, 0.25, 0.5, 0.6],
            [0.6, 0.9, 1.0, 1.0, 0.85], sz["amp_uv"] * rng.uniform(0.8, 1.3),
            spike_w=rng.uniform(0.012, 0.025))  # fmt: skip


def _subtle_focal(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    d = b - a
    gens = _spread(ctx, fo[0], fo[1], d, 1, 0.1, 0.0, 8.0)
    f0 = rng.uniform(2.5, 6.0)
    _render(ctx, a, b, gens, [f0, f0 * 1.15, f0 * 0.9, f0 * 0.7],
            [0.2, 0.4, 0.5, 0.5], [0, 0.1, 0.2, 0.3], [0.4, 0.85, 1.0, 0.8],
            sz["amp_uv"] * rng.uniform(0.3, 0.5), atten=0.15, wax=0.3)  # fmt: skip


def _rhythmic_delta_evolving(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    d = b - a
    gens = _spread(ctx, fo[0], fo[1], d, 3, 0.3, 0.5)
    f0 = rng.uniform(1.2, 2.2)
    _render(ctx, a, b, gens, [f0, 1.5 * f0, 2.1 * f0, 1.6 * f0, 1.1 * f0],
            [0.1, 0.3, 0.6, 0.6, 0.5], [0, 0.1, 0.3, 0.4, 0.4],
            [0.5, 0.8, 1.0, 1.0, 0.8], sz["amp_uv"] * rng.uniform(0.8, 1.3),
            spike_w=0.03)  # fmt: skip


def _lpd_evolving(ctx, a, b, fo):
    """LPDs accelerating into a seizure: the discharges speed up, sharpen and spread."""
    rng, sz = ctx.rng, ctx.patient["seizure"]
    pe = ctx.patient["periodic"] or {}
    d = b - a
    f0 = pe.get("freq", 1.0) if pe.get("kind") in ("lpd", "bipd") else rng.uniform(0.8, 1.5)
    fm = rng.uniform(2.5, 4.0)
    region, side = (pe["region"], pe["side"]) if pe.get("kind") in ("lpd", "bipd") else fo
    gens = _spread(ctx, region, side, d, 3, 0.35, 0.6)
    gens[0].field = 0.75 * gens[0].field + 0.25 * geo.hemispheric_field(side, "temporal")
    amp = pe.get("amp_uv", sz["amp_uv"]) * rng.uniform(0.9, 1.3)
    _render(ctx, a, b, gens, [f0 * 1.2, fm * 0.8, fm, fm * 0.85, max(1.0, f0 * 1.1)],
            [0.8, 0.8, 0.75, 0.85, 0.9], [0.2, 0.25, 0.3, 0.4, 0.45],
            [0.9, 1.0, 1.1, 1.1, 0.9], amp, spike_w=rng.uniform(0.02, 0.04),
            irregular=1.5, atten=0.2)  # fmt: skip


def _gpd_evolving(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    pe = ctx.patient["periodic"] or {}
    f0 = pe.get("freq", 1.2) if pe.get("kind") in ("gpd", "triphasic") else rng.uniform(0.8, 1.8)
    fm = rng.uniform(2.5, 3.5)
    d = b - a
    gens = [Gen(asym(rng, geo.generalised_field(1.4, 0.3), 0.2), 0.0, rng.uniform(1, 3), 1.0),
            Gen(geo.generalised_field(0.6, 1.2), min(d * 0.3, 15), rng.uniform(3, 8),
                rng.uniform(0.5, 0.8), 0.02)]  # fmt: skip
    amp = pe.get("amp_uv", sz["amp_uv"]) * rng.uniform(0.9, 1.2) * GEN_BOOST
    _render(ctx, a, b, gens, [f0 * 1.2, fm, fm * 1.05, fm * 0.8, max(1.0, f0)],
            [0.6, 0.8, 0.85, 0.85, 0.8], [0.4, 0.35, 0.3, 0.4, 0.5],
            [0.9, 1.0, 1.1, 1.0, 0.9], amp, spike_w=0.03, irregular=1.2, atten=0.3)  # fmt: skip


def _hypermotor(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    d = b - a
    gens = _spread(ctx, fo[0], fo[1], d, 2, 0.6, 0.3)
    _decrement(ctx, a, min(d * 0.2, 3.0), gens[0].field, 0.6)
    f0 = rng.uniform(9, 16)
    _render(ctx, a, b, gens, [f0, 0.6 * f0, 5.0, 3.0], [0.0, 0.3, 0.6, 0.7],
            [0, 0.1, 0.3, 0.5], [0.3, 0.7, 1.0, 0.9],
            sz["amp_uv"] * rng.uniform(0.5, 0.9), spike_w=0.015)  # fmt: skip


def _absence(ctx, a, b, fo):
    """3 Hz generalised spike-and-wave: abrupt on and off, slowing a little."""
    rng, sz = ctx.rng, ctx.patient["seizure"]
    f0 = rng.uniform(3.0, 4.0)
    gens = [Gen(asym(rng, geo.generalised_field(rng.uniform(1.0, 1.5), 0.5), 0.15), 0.0,
                0.3, 1.0)]  # fmt: skip
    _render(ctx, a, b, gens, [f0, f0 * 0.9, f0 * 0.8, f0 * 0.75], [0.95] * 4,
            [0.9, 0.95, 1.0, 1.0], [1.0, 1.0, 0.95, 0.9], sz["amp_uv"] * rng.uniform(1.1, 1.7) * GEN_BOOST,
            spike_w=0.014, irregular=0.3, wax=0.1, atten=0.5, end_fade=0.2, texture=0.1,
            cycle_jitter=0.12,
            poly=int(rng.random() < 0.25))  # fmt: skip


def _atypical(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    f0 = rng.uniform(1.7, 2.5)
    gens = [Gen(asym(rng, geo.generalised_field(1.2, 0.7), 0.35), 0.0, rng.uniform(1, 3), 1.0)]
    _render(ctx, a, b, gens, [f0, f0 * 1.1, f0 * 0.9, f0 * 0.8], [0.6, 0.8, 0.8, 0.7],
            [0.7, 0.8, 0.9, 0.9], [0.6, 1.0, 1.0, 0.8], sz["amp_uv"] * rng.uniform(1.0, 1.6) * GEN_BOOST,
            spike_w=0.03, irregular=1.5, atten=0.4, end_fade=1.5)  # fmt: skip


def _polyspike_wave(ctx, a, b, fo):
    rng, sz = ctx.rng, ctx.patient["seizure"]
    f0 = rng.uniform(3.5, 5.0)
    gens = [Gen(asym(rng, geo.generalised_field(1.3, 0.6), 0.2), 0.0, 0.5, 1.0)]
    _render(ctx, a, b, gens, [f0, f0 * 0.9, f0 * 0.75, f0 * 0.6], [0.9] * 4,
            [0.6, 0.7, 0.8, 0.9], [0.8, 1.0, 1.0, 0.9], sz["amp_uv"] * rng.uniform(1.0, 1.6) * GEN_BOOST,
            spike_w=0.009, poly=int(rng.integers(2, 4)), irregular=1.5, atten=0.5)  # fmt: skip


def _tonic_clonic(ctx, a, b, fo):
    """(Focal-onset) tonic-clonic: recruiting fast activity under muscle, clonic bursts."""
    rng, sz = ctx.rng, ctx.patient["seizure"]
    d = b - a
    focal = not ctx.patient["generalised"]
    gf = asym(rng, geo.generalised_field(1.0, 0.8), 0.2)
    t_gen = min(d * rng.uniform(0.1, 0.3), rng.uniform(5, 25)) if focal else 0.0
    gens = []
    if focal:
        gens = _spread(ctx, fo[0], fo[1], d, 1, 0.0, 0.0)
    gens.append(Gen(gf, t_gen, rng.uniform(0.5, 2.0), 1.2))
    f0 = rng.uniform(6, 9) if focal else rng.uniform(12, 20)
    _render(ctx, a, b, gens, [f0, 12.0, 9.0, 4.0, 2.0, 1.0], [0.3, 0.5, 0.6, 0.9, 0.9, 0.9],
            [0, 0, 0.1, 0.5, 0.7, 0.8], [0.35, 0.6, 0.9, 1.0, 1.0, 0.9],
            sz["amp_uv"] * rng.uniform(0.8, 1.2) * GEN_BOOST, spike_w=0.012, poly=1,
            atten=0.6)  # fmt: skip
    # Tonic muscle from generalisation, then clonic jerks.
    m_on = a + t_gen + rng.uniform(0.5, 3)
    split = m_on + (b - m_on) * rng.uniform(0.3, 0.5)
    if split > m_on + 0.5:
        art.emg(ctx, m_on, split, art.EMG_ALL, rng.uniform(15, 50), log=False)
        art.movement(ctx, m_on, split, rng.uniform(20, 70), log=False)
    if b > split + 1:
        art.clonic_emg(ctx, split, b, rng.uniform(2.5, 4.0), rng.uniform(0.6, 1.2),
                       rng.uniform(25, 80))  # fmt: skip


def _tonic_fast(ctx, a, b, fo):
    """Generalised paroxysmal fast activity after an electrodecrement (tonic seizure)."""
    rng, sz = ctx.rng, ctx.patient["seizure"]
    d = b - a
    gf = asym(rng, geo.generalised_field(1.3, 0.7), 0.2)
    if rng.random() < 0.6:
        k, z = sh.phases(ctx.sfreq, [(0.0, 0.1, 0.2, -1.0)])
        sh.place(ctx.eeg, gf, k, z, ctx.s(a + 0.25), sz["amp_uv"] * rng.uniform(1.2, 2.0))
    f0 = rng.uniform(15, 22)
    _render(ctx, a, b, [Gen(gf, 0.3, min(2.0, d / 4), 1.0)], [f0, f0 * 0.85, f0 * 0.65, 10],
            [0.0, 0.1, 0.2, 0.3], [0, 0, 0, 0.1], [0.3, 0.8, 1.0, 0.9],
            sz["amp_uv"] * rng.uniform(0.4, 0.7) * GEN_BOOST, atten=0.7)  # fmt: skip


_RENDER = {
    "focal_rhythmic_theta": _focal_rhythmic_theta, "low_voltage_fast": _low_voltage_fast,
    "focal_spike_train": _focal_spike_train, "subtle_focal": _subtle_focal,
    "rhythmic_delta_evolving": _rhythmic_delta_evolving, "lpd_evolving": _lpd_evolving,
    "gpd_evolving": _gpd_evolving, "hypermotor": _hypermotor, "absence_spike_wave": _absence,
    "atypical_spike_wave": _atypical, "polyspike_wave": _polyspike_wave,
    "tonic_clonic": _tonic_clonic, "tonic_fast": _tonic_fast,
}  # fmt: skip


def _decrement(ctx, a, d, fieldv, depth):
    """Electrodecrement: the background under ``fieldv`` flattens for ``d`` s from ``a``."""
    i0, i1 = ctx.s(a), ctx.s(a + d)
    if i1 <= i0:
        return
    w = sh.ramp_env(i1 - i0, ctx.sfreq, 0.3, 0.6)
    ctx.eeg[:, i0:i1] *= (1.0 - depth * np.clip(fieldv, 0, 1)[:, None] * w[None, :]).astype(
        np.float32
    )


def _postictal(ctx, b, kind, fo):
    """Post-ictal attenuation and polymorphic slowing after the offset (not labelled)."""
    rng, sf = ctx.rng, ctx.sfreq
    strength = ctx.patient["seizure"]["postictal"]
    if kind in ("absence_spike_wave", "polyspike_wave") or b >= ctx.duration - 1:
        return
    convulsive = kind in ("tonic_clonic", "hypermotor")
    gen = kind in GENERALISED or convulsive
    fv = geo.generalised_field(1.0, 0.9) if gen else geo.region_field(fo[0], fo[1])
    fv = np.clip(fv, 0, 1)
    d = min(ctx.duration - b, rng.uniform(60, 300) * strength + 20)
    i0, i1 = ctx.s(b), ctx.s(b + d)
    tt = np.arange(i1 - i0) / sf
    tau = rng.uniform(10, 60) * (1.5 if convulsive else 1.0)
    depth = 0.7 + 0.25 * strength if convulsive else 0.55 * strength
    att = depth * np.exp(-tt / tau)
    ctx.eeg[:, i0:i1] *= (1.0 - fv[:, None] * att[None, :]).astype(np.float32)
    src = sh.spectral_noise(rng, i1 - i0, sf, sh.band_gain(0.5, 3.0), 2)
    rise = np.clip(tt / rng.uniform(3, 15), 0, 1)
    slow = rng.uniform(25, 70) * strength * rise * np.exp(-tt / (2.5 * tau))
    ctx.add(fv, (slow * (src[0] + 0.5 * src[1])).astype(np.float32), i0)
    ctx.event(b, b + d, "postictal_slowing")


def render_seizures(ctx: Ctx):
    """Render every requested seizure with its chosen morphology, then post-ictal changes."""
    rng, p = ctx.rng, ctx.patient
    for (a, b), kind in zip(ctx.seizures, ctx.seizure_types, strict=True):
        side = p["side"] if rng.random() < 0.9 else ("R" if p["side"] == "L" else "L")
        fo = (p["region"], side)
        _RENDER[kind](ctx, a, b, fo)
        mp = _MUSCLE[kind] * (0.4 + 0.6 * p["seizure"]["muscle"])
        if kind not in ("tonic_clonic",) and rng.random() < mp and b - a > 4:
            _ictal_artifact(ctx, a, b, kind)
        _postictal(ctx, b, kind, fo)


def _ictal_artifact(ctx, a, b, kind):
    """Clinical signs that obscure the record: muscle, movement, automatisms, flutter."""
    rng = ctx.rng
    on = a + min((b - a) * 0.5, rng.uniform(1.5, 12.0))
    if kind == "absence_spike_wave":
        art.eye_flutter(ctx, on, min(b, on + rng.uniform(2, 8)), log=False)
        return
    if kind in ("polyspike_wave", "focal_spike_train"):
        art.clonic_emg(ctx, on, b, rng.uniform(1.5, 3.5), rng.uniform(0.7, 1.5),
                       rng.uniform(15, 60), focal=True)  # fmt: skip
        return
    if kind == "focal_rhythmic_theta" and rng.random() < 0.5:
        art.chewing(ctx, on, b, log=False)
        return
    chans = art.EMG_ALL if kind in ("hypermotor", "tonic_fast") else art.EMG_TEMPORAL
    art.emg(ctx, on, b, chans, rng.uniform(8, 40), log=False)
    if kind == "hypermotor" or rng.random() < 0.4:
        # Thrashing comes in bouts: movement bursts of a few seconds with pauses.
        t = on
        while t < b - 0.5:
            d = min(b - t, rng.uniform(1.0, 6.0))
            art.movement(ctx, t, t + d, rng.uniform(20, 80), log=False)
            t += d + rng.uniform(0.5, 4.0)
