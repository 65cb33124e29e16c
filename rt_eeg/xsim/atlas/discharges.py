"""Interictal epileptiform discharges and the periodic / rhythmic patterns of the ICU.

None of these evolve, so none is a seizure: IEDs are isolated (or in brief runs of 2-4),
periodic discharges (LPDs, GPDs, BIPDs, triphasic waves) recur at a fixed 0.5-2.5 Hz with
jitter, rhythmic delta (LRDA, GRDA, FIRDA) keeps its frequency and field.
"""

from __future__ import annotations

import numpy as np

from . import geometry as geo
from . import shapes as sh
from .context import CTRL_RATE, Ctx
from .states import env

#: Generalised fields have shallow gradients, so bipolar derivations see less of them; real
#: generalised discharges are correspondingly larger in referential amplitude.
GEN_BOOST = 1.8


def asym(rng, field: np.ndarray, amount: float) -> np.ndarray:
    """A bilateral field made slightly asymmetric (left/right gains differ)."""
    g = 1.0 + amount * rng.uniform(-1, 1) * geo.XYZ[:, 1]
    return field * g


# ----------------------------------------------------------------------------- IEDs
def _ied_kernel(rng, sf: float, kind: str):
    """One discharge template of ``kind`` (negative at the focus)."""
    if kind == "spike":
        slow = 0.0 if rng.random() < 0.3 else rng.uniform(0.3, 0.8)
        return sh.spike(sf, rng.uniform(0.008, 0.015), rng.uniform(0.014, 0.028), slow,
                        rng.uniform(0.15, 0.3))  # fmt: skip
    if kind == "sharp":
        return sh.spike(sf, rng.uniform(0.025, 0.045), rng.uniform(0.035, 0.07),
                        rng.uniform(0.2, 0.7), rng.uniform(0.2, 0.35), 0.15)  # fmt: skip
    if kind == "polyspike":
        return sh.polyspike(sf, int(rng.integers(2, 6)), rng.uniform(0.045, 0.07),
                            rng.uniform(0.4, 0.9))  # fmt: skip
    if kind == "rolandic":
        return sh.spike(sf, 0.015, 0.03, rng.uniform(0.3, 0.6), 0.2, 0.5)
    # spike_wave: 1-3 complexes at 3-4 Hz
    n = int(rng.integers(1, 4))
    per = 1.0 / rng.uniform(3.0, 4.2)
    comps = []
    for i in range(n):
        c = i * per
        comps += [(c, 0.01, 0.018, 1.0), (c + 0.045, 0.015, 0.02, -0.35)]
        comps += [(c + 0.16, 0.05, 0.07, 0.85)]
    k, z = sh.phases(sf, comps)
    return -k, z


def _ied_fields(rng, ie: dict):
    """A few field variants per focus (position jitter, tilt); generalised if so."""
    out = []
    for fo in ie["foci"]:
        fl = []
        for _ in range(5):
            if ie["generalised"]:
                fl.append(asym(rng, geo.generalised_field(rng.uniform(0.8, 1.2)), 0.3))
            elif ie["kind"] == "rolandic":
                u = geo.jitter(rng, geo.region_dir("central", fo["side"]), 6)
                u = geo._unit(u + 0.4 * geo.region_dir("temporal", fo["side"]))
                # Tangential: negative centro-temporal, positive frontal.
                fwd = geo.direction(60, 20 if fo["side"] == "L" else -20)
                t = fwd - fwd.dot(u) * u
                fl.append(geo.source_field(u, 26, -1.1 * t / np.linalg.norm(t)))
            else:
                fl.append(geo.region_field(fo["region"], fo["side"], rng, 8.0, 0.35))
        out.append(fl)
    return out


def render_ieds(ctx: Ctx):
    """Interictal spikes, sharp waves, polyspikes, generalised spike-wave, rolandic spikes."""
    rng, ie, sf = ctx.rng, ctx.patient["ieds"], ctx.sfreq
    if ie["rate_h"] <= 0:
        return
    clus = np.exp(ie["clustering"] * sh.slow_noise(rng, ctx.n_ctrl, CTRL_RATE, 150.0))
    rate = ie["rate_h"] / 3600.0 * env(ctx, "ied") * clus / clus.mean()
    rate *= ctx.free_ctrl(3.0) * (1 - ctx.bs_mask)
    fields = _ied_fields(rng, ie)
    w = np.array([f["weight"] for f in ie["foci"]])
    kernels = [_ied_kernel(rng, sf, ie["kind"]) for _ in range(8)]
    kind = ie["kind"]
    for t0 in sh.poisson_times(rng, rate, CTRL_RATE):
        fo = int(rng.choice(len(w), p=w / w.sum()))
        fv = fields[fo][int(rng.integers(5))]
        k, z = kernels[int(rng.integers(8))]
        runs = 1 if ie["generalised"] or rng.random() < 0.9 else int(rng.integers(2, 5))
        amp = ie["amp_uv"] * rng.lognormal(0, 0.3) * (GEN_BOOST if ie["generalised"] else 1.0)
        t = t0
        for j in range(runs):
            if j:
                t += rng.uniform(0.5, 1.5)
            sh.place(ctx.eeg, fv, k, z, ctx.s(t), amp * rng.uniform(0.7, 1.1))
        ctx.event(t0 - z / sf, t + (k.size - z) / sf, f"ied_{kind}")


# ------------------------------------------------------------------ periodic / rhythmic
def schedule_runs(ctx: Ctx, prevalence, median_s, sigma, lo, hi, margin=5.0, keep=()):
    """Runs covering about ``prevalence`` of the recording, cut around seizures.

    ``keep`` lists (a, b) spans that must be covered (e.g. the minutes before an LPD-onset
    seizure); seizures themselves are always excluded (``margin`` s around them).
    """
    rng = ctx.rng
    runs = []
    t = rng.exponential(median_s * (1 - prevalence) / max(prevalence, 0.05))
    while t < ctx.duration:
        d = float(np.clip(rng.lognormal(np.log(median_s), sigma), lo, hi))
        runs.append((t, min(t + d, ctx.duration)))
        t += d + rng.exponential(median_s * (1 - prevalence) / max(prevalence, 0.05))
    runs += list(keep)
    runs.sort()
    merged: list[list[float]] = []
    for a, b in runs:
        if merged and a <= merged[-1][1] + 1.0:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out = []
    for a, b in merged:
        pieces = [(a, b)]
        for x, y in ctx.seizures:
            nxt = []
            for p, q in pieces:
                if q <= x - margin or p >= y + margin:
                    nxt.append((p, q))
                    continue
                if p < x - margin:
                    nxt.append((p, x - margin))
                if q > y + margin:
                    nxt.append((y + margin, q))
            pieces = nxt
        out += [(p, q) for p, q in pieces if q - p >= min(lo, 3.0)]
    # Clip into the recording (kept spans may reach past its end).
    return [(max(0.0, p), min(q, ctx.duration)) for p, q in out if p < ctx.duration - 1.0]


def pd_kernels(rng, sf: float, kind: str, n: int = 4):
    """Templates of periodic discharges: sharp di-/triphasic, blunt, or triphasic waves."""
    out = []
    for _ in range(n):
        if kind == "triphasic":
            comps = [(0.0, 0.02, 0.025, -0.3 * rng.uniform(0.6, 1.4)),
                     (0.075 * rng.uniform(0.9, 1.2), 0.035, 0.05, 1.0),
                     (0.25 * rng.uniform(0.9, 1.2), 0.07, 0.12, -0.5 * rng.uniform(0.7, 1.3))]  # fmt: skip
        else:
            r = rng.uniform(0.015, 0.05)
            comps = [(0.0, r, 1.6 * r, -1.0), (3.2 * r, 1.2 * r, 2 * r, 0.5 * rng.uniform(0.5, 1))]
            if rng.random() < 0.6:
                comps.append((0.22 * rng.uniform(0.8, 1.4), 0.06, 0.1, -0.4 * rng.uniform(0.5, 1)))
        out.append(sh.phases(sf, comps))
    return out


def _discharge_train(ctx, a, b, freq, fv_list, kernels, amp, plus, kind):
    """Periodic discharges between ``a`` and ``b`` s at ``freq`` Hz (jittered, non-evolving)."""
    rng, sf = ctx.rng, ctx.sfreq
    mod_f = 1.0 + 0.06 * np.sin(2 * np.pi * rng.uniform(0.002, 0.01) * (b - a) + rng.uniform(0, 6))
    t = a + rng.uniform(0, 1.0 / freq)
    am = 1.0
    while t < b:
        am = float(np.clip(0.85 * am + 0.15 * rng.lognormal(0, 0.35), 0.4, 1.8))
        k, z = kernels[int(rng.integers(len(kernels)))]
        fv = fv_list[int(rng.integers(len(fv_list)))]
        at = ctx.s(t)
        sh.place(ctx.eeg, fv, k, z, at, amp * am)
        if plus == "fast":
            d = int(rng.uniform(0.15, 0.35) * sf)
            tt = np.arange(d) / sf
            burst = np.sin(2 * np.pi * rng.uniform(12, 20) * tt) * np.hanning(d)
            ctx.add(fv, (0.18 * amp * am * burst).astype(np.float32), at - d // 3)
        t += float(np.clip(rng.normal(1.0, 0.1), 0.7, 1.4)) / (freq * mod_f)
    if plus == "rhythmic":
        i0, i1 = ctx.s(a), ctx.s(b)
        f2 = rng.uniform(1.5, 3.0)
        tt = np.arange(i1 - i0) / sf
        sig = 0.25 * amp * np.sin(2 * np.pi * f2 * tt) * sh.ramp_env(i1 - i0, sf, 2, 2)
        ctx.add(fv_list[0], sig.astype(np.float32), i0)
    ctx.event(a, b, kind if plus == "none" else f"{kind}+{plus[0].upper()}")


def _rhythmic_delta(ctx, a, b, freq, fv, amp, kind):
    """A run of rhythmic delta of stable frequency (no evolution) between ``a`` and ``b``."""
    rng, sf = ctx.rng, ctx.sfreq
    i0, i1 = ctx.s(a), ctx.s(b)
    m = i1 - i0
    if m < sf:
        return
    tt = np.arange(m) / sf
    f = freq * (1 + 0.03 * np.sin(2 * np.pi * tt / rng.uniform(20, 60) + rng.uniform(0, 6)))
    ph = sh.phase_from_freq(f, sf, rng.uniform(0, 6.3)) + np.cumsum(rng.normal(0, 0.004, m))
    wave = np.sin(ph) + rng.uniform(0.0, 0.25) * np.sin(2 * ph + 1.2)
    wax = np.exp(0.25 * sh.slow_noise(rng, max(4, int(m / sf * 4)), 4.0, 2.0))
    wax = np.interp(tt, np.arange(wax.size) / 4.0, wax)
    sig = amp * wave * wax * sh.ramp_env(m, sf, min(1.5, m / sf / 4), min(1.5, m / sf / 4))
    ctx.add(fv, sig.astype(np.float32), i0)
    ctx.event(a, b, kind)


def render_periodic(ctx: Ctx):
    """The patient's periodic or rhythmic pattern, in runs, never inside seizures."""
    rng, pe = ctx.rng, ctx.patient["periodic"]
    if not pe:
        return
    kind, freq, amp, sf = pe["kind"], pe["freq"], pe["amp_uv"], ctx.sfreq
    if kind in ("gpd", "triphasic", "grda", "firda"):
        amp *= GEN_BOOST
    keep = []
    if kind in ("lpd", "gpd", "triphasic", "bipd"):
        # LPD/GPD-onset seizures grow out of an ongoing run of discharges.
        for (x, y), st in zip(ctx.seizures, ctx.seizure_types, strict=True):
            if st in ("lpd_evolving", "gpd_evolving"):
                keep += [(max(0, x - rng.uniform(90, 400)), x + 5.0)]
                keep += [(y + 5.0 + rng.uniform(20, 120), y + rng.uniform(200, 600))]
    prev = pe["prevalence"] * (1 - 0.9 * float(ctx.bs_mask.mean()))
    if kind in ("lpd", "gpd", "bipd", "triphasic"):
        runs = schedule_runs(ctx, prev, pe["run_min"] * 60, 0.8, 10, 3600, 3.0, keep)
        # The pre-ictal run reaches the onset itself (the seizure accelerates out of it).
        for x, _ in ctx.seizures:
            if any(kp < x <= kq for kp, kq in keep):
                runs = [(p, x if abs(q - (x - 3.0)) < 1e-6 else q) for p, q in runs]
        reg, side = pe["region"], pe["side"]
        if kind in ("lpd", "bipd"):
            hemi = geo.hemispheric_field(side, reg if reg in ("temporal", "frontal", "central")
                                         else "temporal")  # fmt: skip
            fvs = [0.75 * geo.region_field(reg, side, rng, 6, 0.3, 1.25) + 0.25 * hemi
                   for _ in range(3)]  # fmt: skip
        else:
            fvs = [asym(rng, geo.generalised_field(rng.uniform(0.9, 1.3)), 0.2) for _ in range(3)]
        kernels = pd_kernels(rng, sf, "triphasic" if kind == "triphasic" else "sharp")
        for a, b in runs:
            if kind == "triphasic":
                _triphasic_run(ctx, a, b, freq, fvs[0], kernels, amp)
                continue
            _discharge_train(ctx, a, b, freq, fvs, kernels, amp, pe["plus"], kind)
            if kind == "bipd":
                other = "R" if side == "L" else "L"
                fo = [geo.hemispheric_field(other, "temporal")]
                _discharge_train(ctx, a, b, freq * rng.uniform(0.6, 0.9), fo, kernels,
                                 amp * rng.uniform(0.5, 0.8), "none", "bipd")  # fmt: skip
        return
    if kind == "lrda":
        fv = 0.6 * geo.region_field(pe["region"], pe["side"]) + 0.4 * geo.hemispheric_field(
            pe["side"], "temporal" if pe["region"] != "frontal" else "frontal"
        )
        med, hi = 20.0, 240.0
    elif kind == "grda":
        fv, med, hi = asym(rng, geo.generalised_field(1.2, 0.4), 0.15), 15.0, 180.0
    else:  # firda: brief bifrontal bursts
        fv, med, hi = geo.generalised_field(1.5, 0.2), 4.0, 12.0
    runs = schedule_runs(ctx, prev * (0.4 if kind == "firda" else 0.6), med, 0.7, 2.5, hi)
    for a, b in runs:
        _rhythmic_delta(ctx, a, b, freq * rng.uniform(0.93, 1.07), fv,
                        amp * rng.uniform(0.7, 1.2), kind)  # fmt: skip


def _triphasic_run(ctx, a, b, freq, fv, kernels, amp):
    """Triphasic waves with a fronto-occipital lag, waxing and waning."""
    rng, sf = ctx.rng, ctx.sfreq
    lag_total = rng.uniform(0.03, 0.1)
    x = geo.XYZ[:, 0]
    lags = lag_total * (x.max() - x) / (x.max() - x.min())
    mats = [sh.lagged_matrix(k, z, fv, lags, sf) for k, z in kernels]
    t = a + rng.uniform(0, 0.5)
    am = 1.0
    while t < b:
        am = float(np.clip(0.8 * am + 0.2 * rng.lognormal(0, 0.4), 0.3, 1.6))
        m, z = mats[int(rng.integers(len(mats)))]
        sh.place_matrix(ctx.eeg, m, z, ctx.s(t), amp * am)
        t += float(np.clip(rng.normal(1.0, 0.12), 0.7, 1.5)) / freq
    ctx.event(a, b, "triphasic")
