"""Seizures: the focus patches' branching ratio pushed over criticality.

A supercritical Hawkes cascade with refractory saturation does not diverge: each cascade
grows until the population saturates, is shut off by refractoriness, and restarts when the
population has recovered. At rate level this is a relaxation oscillation; it is synthesised
here in its phase-reduced form: a burst per cycle whose phase advances at the recovery rate
(``f(t)``, slowing as the seizure evolves), whose shape sharpens as the effective branching
ratio grows (``kappa``: a von Mises burst, ``kappa -> inf`` a spike), whose amplitude
(the recruited fraction of the patch) grows, and which spreads to neighbouring patches as
their own branching ratio is pushed up (a recruitment front moving at ``speed`` rad/s).
Low-voltage fast onsets are the linear near-critical resonance before saturation.
"""

from __future__ import annotations

import numpy as np
from scipy.special import i0e

from rt_eeg.xsim.hawkes.leadfield import angles
from rt_eeg.xsim.hawkes.patient import SEIZURE_TYPES

_BLOCK_S = 20.0


def _smooth(x):
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def _vm(x, kappa):
    """Zero-mean von Mises burst of phase ``x`` (cycles), peak 1 at integer phases."""
    base = i0e(kappa)
    return (np.exp(kappa * (np.cos(2 * np.pi * x) - 1.0)) - base) / (1.0 - base)


def waveform(kind: str, x, kappa, spacing: float = 0.2):
    """One cycle family: ``'vm'`` rhythmic bursts, ``'sw'`` spike-and-wave, ``'ps'``
    polyspike-and-wave (spikes ``spacing`` cycles apart). Surface-negative, peak about 1."""
    if kind == "sw":
        return -0.75 * _vm(x, kappa) + 0.3 * _vm(x - 0.12, 8.0) - 0.8 * _vm(x - 0.5, 2.5)
    if kind == "ps":
        sp = sum(a * _vm(x - k * spacing, kappa) for k, a in enumerate((1.0, 0.85, 0.65)))
        return -0.7 * sp - 0.6 * _vm(x - 3 * spacing - 0.12, 3.0)
    return -_vm(x, kappa)


def draw_params(kind: str, pt: dict, duration: float, rng) -> dict:
    """Randomised evolution parameters of one seizure of type ``kind``."""
    u = rng.uniform
    bg = float(pt["amplitude_uv"])
    p = {"kind": kind, "wave": "vm", "lvfa_s": 0.0, "emg_uv": 0.0, "generalised": False,
         "radius0": u(0.15, 0.3), "radius_max": u(0.45, 0.9), "speed": u(0.02, 0.08),
         "lag": u(0.05, 0.25), "onset_s": u(2.0, 6.0), "offset_s": u(0.3, 1.2),
         "amp0": u(0.3, 0.55), "bg_supp": u(0.4, 0.75), "jitter": u(0.03, 0.08),
         "tau_sup": u(5.0, 20.0), "tau_slow": u(60.0, 240.0)}  # fmt: skip
    if kind in ("focal_rhythmic_theta", "muscle_obscured", "focal_spread"):
        p.update(
            f0=u(5.0, 7.5), f1=u(2.5, 4.5), k0=u(2.0, 4.0), k1=u(6.0, 12.0), amp=bg * u(10.0, 16.0)
        )
    if kind == "focal_rhythmic_delta":
        p.update(
            f0=u(2.5, 3.8), f1=u(1.4, 2.3), k0=u(3.0, 6.0), k1=u(8.0, 14.0), amp=bg * u(16.0, 24.0)
        )
    if kind == "focal_spread":
        p.update(radius_max=4.0, speed=u(0.04, 0.15), tau_sup=u(20.0, 60.0))
    if kind == "muscle_obscured":
        p.update(emg_uv=u(40.0, 150.0), amp=bg * u(7.0, 12.0))
    if kind == "subtle_focal":
        p.update(
            f0=u(5.0, 8.0),
            k0=u(2.0, 3.0),
            k1=u(3.0, 5.0),
            amp=bg * u(4.5, 6.0),
            radius_max=u(0.2, 0.35),
            speed=0.02,
            amp0=0.6,
            bg_supp=0.2,
            tau_sup=2.0,
            tau_slow=u(10.0, 40.0),
        )
        p["f1"] = p["f0"] * u(0.8, 0.95)
    if kind == "lvfa_onset":
        p.update(
            lvfa_s=min(u(3.0, 10.0), 0.3 * duration),
            f_fast=u(14.0, 28.0),
            f0=u(7.0, 10.0),
            f1=u(3.0, 5.0),
            k0=u(1.5, 3.0),
            k1=u(5.0, 10.0),
            amp=bg * u(10.0, 15.0),
            bg_supp=u(0.6, 0.85),
        )
    if kind in ("spike_wave", "polyspike"):
        p.update(
            generalised=True,
            wave="sw" if kind == "spike_wave" else "ps",
            f0=u(3.2, 4.2) if kind == "spike_wave" else u(3.5, 5.0),
            onset_s=u(0.2, 0.6),
            offset_s=u(0.1, 0.4),
            amp0=u(0.7, 0.9),
            k0=u(12.0, 25.0),
            k1=u(10.0, 20.0),
            amp=bg * u(14.0, 22.0),
            lag=0.0,
            tau_sup=0.0 if kind == "spike_wave" else u(2.0, 10.0),
            tau_slow=0.0 if kind == "spike_wave" else u(10.0, 60.0),
        )
        p["f1"] = p["f0"] * u(0.65, 0.85)
    p["amp"] = float(np.clip(p["amp"], 30.0, 500.0))
    p["onset_s"] = min(p["onset_s"], 0.25 * duration)
    p["offset_s"] = min(p["offset_s"], 0.1 * duration)
    return p


def _recruitment(p, xyz, focus, rng):
    """Involved patches, their recruitment delays (s), gains and phase lags (cycles)."""
    th = angles(xyz, np.asarray(focus)[None, :] / np.linalg.norm(focus))[:, 0]
    if p["generalised"]:
        idx = np.arange(xyz.shape[0])
        delay = rng.uniform(0.0, 0.3, idx.size)
        # frontal maximum, falling off towards the back; fronto-occipital phase lag
        th_f = angles(xyz, np.array([[0.75, 0.0, 0.66]]))[:, 0]
        gain = np.maximum(np.exp(-0.5 * (th_f / 1.1) ** 2), 0.25)
        lag = 0.02 * th_f + rng.normal(0.0, 0.004, idx.size)  # synchronous within ~10 ms
        return idx, delay, gain * rng.lognormal(0.0, 0.3, idx.size), lag
    idx = np.flatnonzero(th <= p["radius_max"])
    if idx.size == 0:
        idx = np.array([int(np.argmin(th))])
    delay = np.maximum(th[idx] - p["radius0"], 0.0) / p["speed"]
    delay += rng.uniform(0.0, 1.0, idx.size) * (delay > 0)
    gain = np.exp(-0.5 * (th[idx] / max(0.35, 0.6 * p["radius_max"])) ** 2)
    gain = np.maximum(gain, 0.35)
    return idx, delay, gain, p["lag"] * th[idx] / 0.5


def render_seizure(
    a: float, b: float, kind: str, pt: dict, xyz, lf, sfreq: float, rng, scale: float = 1.0
):
    """Synthesize one seizure on ``[a, b)``; ``scale`` multiplies its amplitude.

    Returns
    -------
    dict
        ``i0``: first sample; ``scalp``: float32 (21, n) additive potentials (uV); ``idx``
        and ``mult``: involved patches and their background multipliers (n_idx, n);
        ``post``: (tau_sup, tau_slow) postictal time constants; ``params``.
    """
    if kind not in SEIZURE_TYPES:
        raise ValueError(f"unknown seizure type {kind!r}")
    i0, i1 = int(round(a * sfreq)), int(round(b * sfreq))
    n = max(i1 - i0, 1)
    d = n / sfreq
    p = draw_params(kind, pt, d, rng)
    p["amp"] = float(min(p["amp"] * scale, 500.0))
    focus = np.asarray(pt["focus"]) + rng.normal(0.0, 0.05, 3)
    idx, delay, gain, lag = _recruitment(p, xyz, focus, rng)
    t = np.arange(n) / sfreq
    u = t / d
    # instantaneous burst rate: slowing recovery plus slow jitter
    n_knots = max(4, int(d / 1.5))
    jit = np.interp(t, np.linspace(0, d, n_knots), rng.normal(0, p["jitter"], n_knots))
    f_inst = p["f0"] * (p["f1"] / p["f0"]) ** (u**0.8) * np.exp(jit)
    phase = np.cumsum(f_inst) / sfreq + rng.random()
    kappa = p["k0"] + (p["k1"] - p["k0"]) * u
    env = p["amp"] * (p["amp0"] + (1 - p["amp0"]) * (1 - np.exp(-3 * u)) / (1 - np.exp(-3)))
    env *= _smooth(t / max(p["onset_s"], 1e-3)) * _smooth((d - t) / max(p["offset_s"], 1e-3))
    n_cyc = int(phase[-1] + 3)
    cyc_gain = rng.lognormal(0.0, 0.15, n_cyc + 2)
    lv_env = np.zeros(n)
    if p["lvfa_s"] > 0:  # linear near-critical resonance before the cascade saturates
        tl = p["lvfa_s"]
        env *= _smooth((t - 0.7 * tl) / (0.6 * tl + 1e-3))
        spec = np.fft.rfft(rng.standard_normal(n))
        fr = np.fft.rfftfreq(n, 1.0 / sfreq)
        spec *= np.exp(-0.5 * ((fr - p["f_fast"]) / 2.0) ** 2)
        fast = np.fft.irfft(spec, n)
        fast /= np.max(np.abs(fast)) / 2.5 + 1e-12
        lv_env = fast * 0.35 * p["amp"] * _smooth(t / 1.0) * _smooth((1.3 * tl - t) / (0.6 * tl))
    lf_n = lf[:, idx] / np.max(lf[:, idx] @ gain)
    scalp = np.zeros((lf.shape[0], n), np.float32)
    mult = np.ones((idx.size, n), np.float32)
    blk = int(_BLOCK_S * sfreq)
    for s0 in range(0, n, blk):
        sl = slice(s0, min(n, s0 + blk))
        rec = _smooth((t[None, sl] - delay[:, None]) / 2.0)
        x = phase[None, sl] - lag[:, None]
        cg = cyc_gain[np.floor(x + 0.5).astype(int).clip(0, n_cyc + 1)]
        src = waveform(p["wave"], x, kappa[None, sl], 0.06 * p["f0"]) * cg * rec * env[None, sl]
        src += lv_env[None, sl] * _smooth(1.0 - delay[:, None] / 3.0)
        src *= gain[:, None]
        scalp[:, sl] = lf_n @ src
        on = _smooth(t[sl] / 0.5) * _smooth((d - t[sl]) / 0.3)
        mult[:, sl] = 1.0 - p["bg_supp"] * np.maximum(rec, (delay[:, None] < 3.0)) * on
    if p["emg_uv"] > 0:  # tonic muscle over the temporal/frontal electrodes
        from rt_eeg.xsim.hawkes.artifacts import emg_noise, emg_pattern

        e_env = _smooth((t - p["onset_s"]) / 2.0) * _smooth((d - t) / 1.0)
        scalp += (emg_pattern(rng, both=True)[:, None] * emg_noise(n, sfreq, rng)
                  * (p["emg_uv"] * e_env)).astype(np.float32)  # fmt: skip
    return {"i0": i0, "scalp": scalp, "idx": idx, "mult": mult,
            "post": (p["tau_sup"], p["tau_slow"]), "params": p}  # fmt: skip
