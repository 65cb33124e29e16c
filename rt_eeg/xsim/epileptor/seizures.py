"""Seizures: the planner's intervals as scheduled sweeps of the Epileptor's slow variable.

For each requested ``[a, b)`` a morphology is chosen, then which nodes seize and when:
the focus (the patient's epileptogenic zone, the node with the highest ``x0``) at ``a``,
other nodes recruited along the connectome (delay grows with graph distance) and released
before ``b``. Each involved node's permittivity drops below the onset threshold at its
onset and climbs back to the offset threshold at its end, so the Epileptor supplies the
evolution itself: fast discharges at onset, polyspike and spike-wave complexes in the middle
and slowing, widely spaced discharges before the homoclinic offset. Every seizure of a
recording is integrated as one batch; the output is windowed to ``[a, b)`` so that nothing
of it leaks outside the interval.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from . import dynamics as dyn
from .common import shaped_noise

TYPES = ("focal_spread", "lvfa_onset", "rhythmic_spike_wave", "generalised", "subtle_focal",
         "muscle_obscured")  # fmt: skip
PRE_S, POST_S = 3.0, 1.5  # simulated before / after each interval
MAX_STEPS = 140_000  # integration budget of one recording's batch (~3 s)


def plan(p: dict, geo: dict, a: float, b: float, rng) -> dict:
    """One seizure's morphology and node schedule.

    Returns
    -------
    dict
        ``type``; ``on``/``off`` (N,) node onset/offset in s after ``a`` (inf: uninvolved);
        ``amp`` (N,) microvolts per model unit; ``scale`` model time units per second;
        ``z_on`` (N,), ``shape`` exponent of the permittivity's climb; ``lvfa`` seconds.
    """
    kind = str(rng.choice(TYPES, p=np.asarray(p["type_p"]) / np.sum(p["type_p"])))
    d = b - a
    n_nodes = geo["nodes"].shape[0]
    gd = geo["D"][p["ez"]]
    hop = np.median(np.sort(gd)[1:4])
    on, off = np.full(n_nodes, np.inf), np.full(n_nodes, np.inf)
    amp = np.full(n_nodes, 0.0)
    base = p["ictal_uv"] * rng.uniform(0.8, 1.25)
    scale, lvfa = rng.uniform(38.0, 55.0), 0.0
    if kind in ("generalised", "rhythmic_spike_wave"):
        on[:] = rng.uniform(0.0, min(1.5, 0.1 * d), n_nodes)
        on[p["ez"]] = 0.0
        off[:] = d * rng.uniform(0.9, 1.0, n_nodes)
        amp[:] = base * rng.uniform(1.0, 1.4) * rng.uniform(0.7, 1.2, n_nodes)
        if kind == "rhythmic_spike_wave":
            scale = rng.uniform(95.0, 140.0)  # ~3 Hz complexes
            f = geo["regions"]["frontal"] + geo["regions"]["vertex"]
            amp *= 0.6 + 0.6 * f / f.max()
    else:
        frac = {"subtle_focal": (0.0, 0.08), "focal_spread": (0.15, 0.5),
                "lvfa_onset": (0.1, 0.4), "muscle_obscured": (0.1, 0.4)}[kind]  # fmt: skip
        k = 2 + int(rng.uniform(*frac) * n_nodes)
        order = np.argsort(gd, kind="stable")[:k]
        hop_s = rng.uniform(1.5, 6.0)
        delay = gd[order] / hop * hop_s * rng.uniform(0.7, 1.3, k)
        on[order] = np.minimum(delay, 0.5 * d)
        on[p["ez"]] = 0.0
        off[order] = d * rng.uniform(0.75, 1.0, k)
        off[p["ez"]] = d
        amp[order] = base * np.exp(-0.3 * gd[order] / hop)
        if kind == "subtle_focal":
            amp *= rng.uniform(0.7, 0.9)
        if kind == "lvfa_onset":
            lvfa = min(rng.uniform(3.0, 9.0), 0.3 * d)
            on[order] += lvfa * 0.8
    inv = np.isfinite(on)
    amp[~inv] = base * 0.15  # subthreshold ripples that coupling induces in the rest
    z_on = np.where(inv, rng.uniform(2.45, 2.75, n_nodes), dyn.Z_REST)
    return {"type": kind, "on": on, "off": off, "amp": amp, "scale": float(scale),
            "z_on": z_on, "shape": float(rng.uniform(0.7, 1.4)), "lvfa": float(lvfa),
            "a": float(a), "b": float(b)}  # fmt: skip


def _z_schedule(plans: list[dict]):
    """The batch's permittivity as a function of step range (see dynamics.integrate)."""
    on = np.stack([(pl["on"] + PRE_S) * pl["scale"] for pl in plans])  # model units (B, N)
    off = np.stack([(np.maximum(pl["off"], pl["on"] + 1.0) + PRE_S) * pl["scale"]
                    for pl in plans])  # fmt: skip
    z_on = np.stack([pl["z_on"] for pl in plans])
    shape = np.array([pl["shape"] for pl in plans])[:, None]
    inv = np.isfinite(on)
    on = np.where(inv, on - 1.0 * np.array([pl["scale"] for pl in plans])[:, None], 1e12)
    off = np.where(inv, off, 2e12)
    span = off - on
    ramp = 1.2 * np.array([pl["scale"] for pl in plans])[:, None]
    z_end = dyn.Z_OFFSET + 0.03

    def z_sched(k0, k1):
        t = (np.arange(k0, k1) * dyn.DT)[:, None, None]
        u = np.clip((t - on) / span, 0.0, 1.0)
        climb = z_on + (z_end - z_on) * u**shape
        after = z_end + (4.0 - z_end) * np.clip((t - off) / ramp, 0.0, 1.0)
        return np.where(t < on, dyn.Z_REST, np.where(t < off, climb, after))

    return z_sched


def render(p: dict, geo: dict, seizures, n: int, sfreq: float, rng, events: list):
    """All seizures of a recording on the scalp.

    Returns
    -------
    eeg : ndarray of float32, shape (21, n)
    types : list of str
    plans : list of dict
    """
    out = np.zeros((21, n), np.float32)
    if not seizures:
        return out, [], []
    plans = [plan(p, geo, a, b, rng) for a, b in seizures]
    units = max((pl["b"] - pl["a"] + PRE_S + POST_S) * pl["scale"] for pl in plans)
    if units / dyn.DT > MAX_STEPS:  # slow every seizure down alike to stay in budget
        f = MAX_STEPS * dyn.DT / units
        for pl in plans:
            pl["scale"] *= f
    n_steps = int(max((pl["b"] - pl["a"] + PRE_S + POST_S) * pl["scale"] for pl in plans)
                  / dyn.DT) + 2  # fmt: skip
    decim = max(1, int(min(pl["scale"] for pl in plans) / dyn.DT / (2.5 * sfreq)))
    y = dyn.integrate(_z_schedule(plans), n_steps, geo["W"], p["k_z"], p["k_2"], 0.02, rng,
                      decim)  # (T, B, N)  # fmt: skip
    sos = signal.butter(2, 0.5, "highpass", fs=sfreq, output="sos")
    for bi, pl in enumerate(plans):
        a, b = pl["a"], pl["b"]
        i0, i1 = max(0, int(np.floor((a - PRE_S) * sfreq))), min(n, int(np.ceil((b + 0.2) * sfreq)))
        t = np.arange(i0, i1) / sfreq - (a - PRE_S)  # s since the simulation began
        pos = t * pl["scale"] / (dyn.DT * decim)
        j = np.clip(pos.astype(int), 0, y.shape[0] - 2)
        fr = np.clip(pos - j, 0.0, 1.0).astype(np.float32)[:, None]
        x = y[j, bi] * (1 - fr) + y[j + 1, bi] * fr  # (m, N)
        x = x - x[: max(1, int(0.5 * sfreq))].mean(0)  # interictal level -> 0
        x = signal.sosfiltfilt(sos, x, axis=0)  # scalp EEG is AC coupled
        src = (x * pl["amp"]).T  # (N, m)
        if pl["lvfa"] > 0:
            src[p["ez"]] += _lvfa(pl, t - PRE_S, sfreq, rng) * pl["amp"][p["ez"]]
        win = _window(t - PRE_S, b - a)
        out[:, i0:i1] += (geo["L"] @ src * win).astype(np.float32)
        if pl["type"] == "muscle_obscured":
            _obscuring_emg(out, sfreq, a, b, rng, events)
    return out, [pl["type"] for pl in plans], plans


def _window(t: np.ndarray, d: float) -> np.ndarray:
    """0 outside ``[0, d)``, raised-cosine edges (0.25 s in, 0.6 s out)."""
    w = np.clip(t / 0.25, 0, 1) * np.clip((d - t) / 0.6, 0, 1)
    return 0.5 - 0.5 * np.cos(np.pi * w)


def _lvfa(pl: dict, t: np.ndarray, sfreq: float, rng) -> np.ndarray:
    """Low-voltage fast activity (15-30 Hz) that opens the seizure before the discharges."""
    f0 = rng.uniform(16.0, 26.0)
    x = shaped_noise(rng, 1, t.size, sfreq, lambda f: np.exp(-0.5 * ((f - f0) / 3.0) ** 2))[0]
    d = pl["lvfa"]
    env = np.clip(t / (0.3 * d), 0, 1) * np.clip((1.3 * d - t) / (0.5 * d), 0, 1)
    return 0.7 * x * env


def _obscuring_emg(out, sfreq, a, b, rng, events) -> None:
    """The patient's muscles tense with the seizure: EMG over the temporal and frontal
    electrodes from a few seconds in, often hiding the rhythm."""
    from .artifacts import MUSCLE, _emg

    t0 = a + rng.uniform(1.0, min(5.0, 0.3 * (b - a)))
    i0, i1 = int(t0 * sfreq), min(out.shape[1], int(b * sfreq))
    if i1 <= i0:
        return
    m = i1 - i0
    env = np.clip(np.arange(m) / (1.5 * sfreq), 0, 1).astype(np.float32)
    amp = (MUSCLE * rng.uniform(40, 100)).astype(np.float32)[:, None]
    out[:, i0:i1] += _emg(rng, 21, m) * env * amp
    events.append((round(t0, 3), round(b, 3), "emg_ictal"))


def postictal(p: dict, geo: dict, plans: list[dict], n: int, sfreq: float, rng) -> np.ndarray:
    """Postictal slowing over the involved nodes after each seizure.

    Returns
    -------
    eeg : ndarray of float32, shape (21, n)
        Postictal delta.
    gain : ndarray of float32, shape (n,)
        Multiplies the background (postictal suppression).
    """
    out = np.zeros((21, n), np.float32)
    gain = np.ones(n, np.float32)
    for pl in plans:
        if pl["type"] == "subtle_focal":
            continue
        b = pl["b"]
        d = rng.uniform(15.0, 90.0)
        i0, i1 = int(b * sfreq), min(n, int((b + d) * sfreq))
        if i1 - i0 < int(sfreq):
            continue
        tt = np.arange(i1 - i0) / sfreq
        decay = np.exp(-tt / (0.4 * d)).astype(np.float32)
        gain[i0:i1] *= 1.0 - 0.5 * decay
        v = np.isfinite(pl["on"]).astype(float)
        x = shaped_noise(rng, 1, i1 - i0, sfreq, lambda f: np.exp(-0.5 * ((f - 1.2) / 0.6) ** 2))
        out[:, i0:i1] += np.outer(geo["L"] @ v / max(1.0, v.sum() ** 0.5), x[0] * decay) * 25.0
    return out, gain
