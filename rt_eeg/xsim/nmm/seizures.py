"""Seizures as slow excitation/inhibition changes in neural masses, and interictal discharges.

A seizure moves the involved patches along a path in (A, B, G, speed) during the requested
interval. The focal path follows the Wendling route: loss of dendritic inhibition ``B`` with
strong somatic inhibition ``G`` gives low-voltage fast activity; ``B`` recovering gives a
large rhythmic discharge that slows (``speed`` falls); ``B`` near 25 gives rhythmic spikes
and spike-waves before the abrupt end. Neighbouring patches follow after a delay (spread),
and the long-range coupling phase-locks them. Generalised spike-wave is paced by a
thalamocortical volley (periodic excitatory drive) into excitable cortex. After the end the
involved patches are slow and suppressed (lower, slowed input) for tens of seconds.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.nmm import head

#: Seizure morphologies of focal and of generalised epilepsies.
FOCAL_TYPES = ("focal_evolving", "lvfa_onset", "rhythmic_theta", "subtle_focal")
GENERALISED_TYPES = ("spike_wave", "polyspike_wave", "gtc")

#: Focus sites: patch names of the onset zone.
FOCI = {
    "mesial_temporal": ("mesial_temporal", "ant_temporal"),
    "lateral_temporal": ("mid_temporal", "ant_temporal"),
    "frontal": ("frontal", "inf_frontal"),
    "frontopolar": ("prefrontal", "frontal"),
    "central": ("central",),
    "parietal": ("parietal",),
    "occipital": ("occipital",),
    "posterior_temporal": ("post_temporal",),
}
_FOCUS_P = np.array([0.36, 0.14, 0.16, 0.06, 0.07, 0.06, 0.07, 0.08])


def draw_epilepsy(rng: np.random.Generator, age: float) -> dict:
    """Patient-fixed epilepsy traits: syndrome, focus, preferred seizure types, spikes."""
    generalised = bool(rng.random() < (0.35 if age < 20 else 0.18))
    side = str(rng.choice(["L", "R"]))
    site = str(rng.choice(list(FOCI), p=_FOCUS_P / _FOCUS_P.sum()))
    if generalised:
        main = str(
            rng.choice(GENERALISED_TYPES, p=[0.45, 0.2, 0.35] if age < 20 else [0.2, 0.25, 0.55])
        )
        others = list(GENERALISED_TYPES)
    else:
        p = {
            "mesial_temporal": [0.3, 0.1, 0.45, 0.15],
            "lateral_temporal": [0.35, 0.15, 0.35, 0.15],
        }
        main = str(rng.choice(FOCAL_TYPES, p=p.get(site, [0.4, 0.35, 0.1, 0.15])))
        others = list(FOCAL_TYPES)
    return {
        "generalised": generalised,
        "side": side,
        "site": site,
        "main_type": main,
        "other_types": others,
        "bilateral_prob": float(rng.uniform(0.0, 0.6)),
        "ied_rate_per_min": float(
            rng.choice([0.0, rng.uniform(0.1, 1.0), rng.uniform(1.0, 6.0)], p=[0.3, 0.4, 0.3])
            * (0.3 if generalised else 1.0)
        ),
        "ied_amp": float(rng.uniform(45, 110) if generalised else rng.uniform(100, 300)),
        "sw_hz": float(rng.uniform(2.6, 4.0)),
        "visibility": float(rng.uniform(0.1, 0.3)),
        "emg_prob": float(rng.uniform(0.1, 0.9)),
    }


def focus_patches(ep: dict) -> list[str]:
    """Onset-zone patch names."""
    return [f"{ep['side']}_{n}" for n in FOCI[ep["site"]]]


def _keyframes(kind: str, rng: np.random.Generator) -> np.ndarray:
    """Rows (u, A, B, G, speed, gain) over normalised ictal time u in [0, 1].

    ``gain`` scales how much of the patch's ictal activity reaches the scalp (the share of
    the patch that is synchronised): high for the local low-voltage fast onset, lower for
    the large rhythmic discharges that follow.
    """
    j = rng.uniform
    if kind in ("focal_evolving", "lvfa_onset"):
        p1 = j(0.05, 0.14) if kind == "focal_evolving" else j(0.2, 0.35)
        p2 = p1 + j(0.03, 0.06)
        p3 = j(0.5, 0.65)
        p4 = j(0.7, 0.82)
        fast = j(0.8, 0.95)
        sp = j(0.8, 1.05)
        return np.array(
            [
                [0.0, 5.0, j(3.5, 4.0), 35.0, fast, 4.0],
                [p1, 5.0, 4.5, 30.0, fast * 0.9, 3.5],
                [p2, 5.0, 15.0, 12.0, sp, 0.35],
                [p3, 5.0, 16.0, 10.0, sp * j(0.55, 0.7), 1.0],
                [p4, 5.0, j(22, 25), 15.0, j(0.7, 0.8), 1.0],
                [1.0, 5.0, 25.0, 15.0, j(0.45, 0.6), 1.0],
            ]
        )
    if kind == "rhythmic_theta":
        s0 = j(0.62, 0.8)
        return np.array(
            [
                [0.0, j(4.7, 4.85), 15.0, 10.0, s0, 0.5],
                [j(0.15, 0.3), 5.0, 15.0, 10.0, s0 * 0.95, 0.9],
                [j(0.6, 0.75), 5.0, 16.0, 8.0, s0 * j(0.6, 0.75), 1.1],
                [1.0, 5.0, j(17, 23), 12.0, j(0.45, 0.55), 1.1],
            ]
        )
    if kind == "subtle_focal":
        s0 = j(0.55, 1.0)
        return np.array(
            [
                [0.0, j(4.7, 4.8), 15.0, 10.0, s0, 0.6],
                [1.0, j(4.8, 5.0), 15.5, 9.0, s0 * j(0.65, 0.85), 1.0],
            ]
        )
    if kind == "gtc":
        pc = j(0.35, 0.55)
        return np.array(
            [
                [0.0, 5.0, j(3.5, 4.0), 35.0, j(0.8, 0.95), 3.5],
                [0.12, 5.0, 12.0, 15.0, 1.0, 1.0],
                [pc - 0.04, 5.0, 15.0, 12.0, j(0.8, 1.0), 1.0],
                [pc, 4.7, 42.0, 20.0, 0.9, 1.0],
                [1.0, 4.8, 42.0, 20.0, 0.9, 1.0],
            ]
        )
    # Generalised: excitable cortex, the rhythm comes from the paced drive.
    sp = j(0.8, 1.0)
    return np.array(
        [[0.0, j(4.5, 4.8), j(40, 44), 20.0, sp, 1.0], [1.0, j(4.6, 4.9), 42.0, 20.0, sp, 1.0]]
    )


def _interp_kf(kf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Parameters and gain (5, len(u)) at normalised times u."""
    return np.stack([np.interp(u, kf[:, 0], kf[:, k]) for k in range(1, kf.shape[1])])


def plan_seizure(rng: np.random.Generator, ep: dict, start: float, stop: float, state: str) -> dict:
    """Draw one seizure's morphology, extent and timing."""
    if rng.random() < 0.7:
        kind = ep["main_type"]
    else:
        kind = str(rng.choice(ep["other_types"]))
    dur = stop - start
    if kind == "gtc" and dur < 25:
        kind = "spike_wave"
    if kind in ("spike_wave", "polyspike_wave", "gtc"):
        patches = list(head.PATCH_NAMES)
        delays = {n: float(rng.uniform(0, 0.3)) for n in patches}
        weights = {n: float(rng.uniform(0.75, 1.0)) for n in patches}
        for n in patches:
            if head.ROLES[head.patch_index(n)] == "mesial":
                weights[n] = 0.4
    else:
        focus = focus_patches(ep)
        xyz = head.patch_xyz()
        f_xyz = xyz[[head.patch_index(n) for n in focus]].mean(axis=0)
        ang = np.arccos(np.clip(xyz @ (f_xyz / np.linalg.norm(f_xyz)), -1, 1))
        order = [head.PATCH_NAMES[i] for i in np.argsort(ang)]
        bilateral = kind != "subtle_focal" and dur > 30 and rng.random() < ep["bilateral_prob"]
        n_rec = len(focus) + (0 if kind == "subtle_focal" else int(rng.integers(1, 5)))
        patches, delays, weights = [], {}, {}
        step = rng.uniform(1.0, 6.0)
        for rank, n in enumerate(order[:n_rec]):
            patches.append(n)
            delays[n] = (
                0.0 if n in focus else float(min(0.4 * dur, rank * step * rng.uniform(0.6, 1.4)))
            )
            weights[n] = 1.0 if n in focus else float(rng.uniform(0.6, 1.0))
        if bilateral:
            t_gen = float(rng.uniform(0.25, 0.55) * dur)
            for n in order[n_rec:]:
                patches.append(n)
                delays[n] = t_gen + float(rng.uniform(0, 4.0))
                weights[n] = float(rng.uniform(0.5, 0.9))
            kind_label = "focal_to_bilateral"
        else:
            kind_label = kind
    if kind in ("spike_wave", "polyspike_wave", "gtc"):
        kind_label = kind
    kf = _keyframes(kind, rng)
    vis = ep["visibility"] * rng.uniform(0.75, 1.25)
    if kind == "subtle_focal":
        vis *= rng.uniform(0.4, 0.7)
    if kind in ("spike_wave", "polyspike_wave", "gtc") or kind_label == "focal_to_bilateral":
        vis *= 0.7
    emg = kind == "gtc" or kind_label == "focal_to_bilateral" or rng.random() < ep["emg_prob"] * 0.5
    return {
        "start": float(start),
        "stop": float(stop),
        "kind": kind,
        "label": kind_label,
        "patches": patches,
        "delays": delays,
        "weights": weights,
        "keyframes": kf.tolist(),
        "clonic_u": float(kf[-2, 0]) if kind == "gtc" else 1.0,
        "visibility": float(min(vis, 0.6)),
        "sw_hz": float(ep["sw_hz"] * rng.uniform(0.9, 1.1)),
        "emg": bool(emg),
        "automatisms": bool(kind in ("rhythmic_theta", "focal_evolving") and rng.random() < 0.3),
        "postictal_s": float(rng.uniform(20, 120) * (1.6 if kind == "gtc" else 1.0)),
        "state": state,
    }


def limit_cycle_span(sz: dict) -> tuple[float, float]:
    """The part of a seizure run by autonomous oscillations (empty for paced ones)."""
    if sz["kind"] in ("spike_wave", "polyspike_wave"):
        return (sz["start"], sz["start"])
    if sz["kind"] == "gtc":
        return (sz["start"], sz["start"] + sz["clonic_u"] * (sz["stop"] - sz["start"]))
    return (sz["start"], sz["stop"])


def apply_seizure(
    rng: np.random.Generator,
    sz: dict,
    ctrl: np.ndarray,
    t_ctrl: np.ndarray,
    vis: np.ndarray,
    drive: np.ndarray,
    t_drive: np.ndarray,
    fs_drive: float,
) -> None:
    """Write one seizure into the control, visibility and drive arrays (in place)."""
    start, stop = sz["start"], sz["stop"]
    kf = np.asarray(sz["keyframes"])
    in_sz = (t_ctrl >= start) & (t_ctrl < stop)
    ramp_in = 0.8 if sz["kind"] in ("spike_wave", "polyspike_wave") else 2.0
    for n in sz["patches"]:
        i = head.patch_index(n)
        d = sz["delays"][n]
        t_on = start + d
        span = max(stop - t_on, 1e-3)
        u = np.clip((t_ctrl - t_on) / span, 0, 1)
        w = np.clip((t_ctrl - t_on) / ramp_in, 0, 1) * np.clip((stop - t_ctrl) / 0.4, 0, 1)
        w = w * in_sz * sz["weights"][n]
        target = _interp_kf(kf, u)
        for k in range(4):
            ctrl[k, i] = ctrl[k, i] * (1 - w) + target[k] * w
        vis[i] = vis[i] * (1 - w) + sz["visibility"] * target[4] * w
        # Post-ictal: slowed, suppressed input, fading over tens of seconds.
        post = (t_ctrl >= stop) * np.exp(-np.clip(t_ctrl - stop, 0, None) / sz["postictal_s"])
        post *= sz["weights"][n]
        quiet = ctrl[1, i] > 20
        ctrl[3, i] = ctrl[3, i] * (1 - post) + (0.35 if quiet.any() else 0.4) * post
        ctrl[5, i] = ctrl[5, i] * (1 - 0.6 * post)
    if sz["kind"] in ("spike_wave", "polyspike_wave", "gtc"):
        _paced_drive(rng, sz, drive, t_drive, fs_drive)


def _paced_drive(
    rng: np.random.Generator, sz: dict, drive: np.ndarray, t_drive: np.ndarray, fs: float
) -> None:
    """Thalamocortical volleys that pace generalised spike-wave and clonic discharges."""
    start, stop = sz["start"], sz["stop"]
    kind = sz["kind"]
    if kind == "gtc":
        t_a = start + sz["clonic_u"] * (stop - start)
        f_a, f_b, burst = rng.uniform(2.5, 3.5), rng.uniform(0.7, 1.2), (2, 5)
    else:
        t_a = start + 0.02
        f_a, f_b = sz["sw_hz"], sz["sw_hz"] * rng.uniform(0.6, 0.8)
        burst = (1, 1) if kind == "spike_wave" else (2, 4)
    amp0 = rng.uniform(250, 500)
    w = np.array([sz["weights"][n] for n in head.PATCH_NAMES])
    # Generalised discharges are usually maximal frontally.
    w = w * (0.6 + 0.4 * np.clip(head.patch_xyz()[:, 0] + 0.3, 0, 1.3))
    t = t_a
    while t < stop - 0.15:
        frac = (t - t_a) / max(stop - t_a, 1e-3)
        period = 1.0 / (f_a + (f_b - f_a) * frac)
        for b in range(int(rng.integers(burst[0], burst[1] + 1))):
            tb = t + b * rng.uniform(0.045, 0.07)
            n = max(2, int(rng.uniform(0.02, 0.035) * fs))
            a, e = max(0, int((tb - t_drive[0]) * fs)), 0
            e = min(drive.shape[1], a + n)
            if e > a:
                amp = amp0 * rng.uniform(0.85, 1.15) * (0.7 if b else 1.0)
                drive[:, a:e] += (amp * w)[:, None]
        t += period * rng.uniform(0.93, 1.07)


def interictal(
    rng: np.random.Generator,
    ep: dict,
    states: list,
    seizures: list,
    drive: np.ndarray,
    t_drive: np.ndarray,
    fs: float,
    events: list,
) -> None:
    """Interictal spikes (focal kicks) or brief generalised spike-wave bursts, in place."""
    rate = ep["ied_rate_per_min"] / 60.0
    if rate <= 0:
        return
    dur = float(t_drive[-1])
    busy = [(a - 5.0, b + 10.0) for a, b in seizures]
    sleep_boost = {"n2": 2.0, "n3": 2.5, "drowsy": 1.5}
    focus = [head.patch_index(n) for n in focus_patches(ep)]
    for t0, t1, st in states:
        span = min(t1, dur) - t0
        if span <= 0:
            continue
        r = rate * sleep_boost.get(st, 1.0)
        for ts in np.sort(rng.uniform(t0, t0 + span, rng.poisson(r * span))):
            if any(a <= ts <= b for a, b in busy):
                continue
            if ep["generalised"]:
                n_dis = int(rng.integers(1, 6)) if rng.random() < 0.5 else 1
                per = 1.0 / (ep["sw_hz"] * rng.uniform(1.0, 1.2))
                w = np.full(head.N_PATCH, 1.0)
                for k in range(n_dis):
                    n = max(2, int(0.03 * fs))
                    i0 = int((ts + k * per - t_drive[0]) * fs)
                    if 0 <= i0 < drive.shape[1] - n:
                        drive[:, i0 : i0 + n] += (ep["ied_amp"] * rng.uniform(0.7, 1.2) * w)[
                            :, None
                        ]
                events.append((float(ts), float(ts + n_dis * per + 0.3), "generalised_discharge"))
            else:
                i_f = int(rng.choice(focus))
                n = max(2, int(rng.uniform(0.02, 0.04) * fs))
                i0 = int((ts - t_drive[0]) * fs)
                if 0 <= i0 < drive.shape[1] - n:
                    drive[i_f, i0 : i0 + n] += ep["ied_amp"] * rng.uniform(0.6, 1.3)
                events.append((float(ts), float(ts + 0.3), "interictal_spike"))
