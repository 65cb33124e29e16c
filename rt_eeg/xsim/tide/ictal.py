"""Seizures, postictal changes and interictal discharges of the tide generator.

A seizure is an evolving oscillator (noisy phase, instantaneous frequency and amplitude
trajectories, a waveform that sharpens as it evolves) projected through spatial fields
that widen as it spreads: focus, region, contralateral homologue. Ictal activity is
gated exactly to ``[start, stop)``; the background under an involved field is
attenuated (replaced) there. Postictal slowing or suppression comes after ``stop``.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.tide import core
from rt_eeg.xsim.tide.core import IDX, add, direction, mirror, place, vmf

TYPES = ("focal_temporal", "focal_frontal", "hemispheric", "lvfa", "subtle_focal",
         "spike_wave", "polyspike", "tonic_clonic")  # fmt: skip
GENERALISED = ("spike_wave", "polyspike", "tonic_clonic")
_P = {
    "child": [0.15, 0.12, 0.05, 0.08, 0.07, 0.35, 0.10, 0.08],
    "adult": [0.35, 0.12, 0.08, 0.12, 0.12, 0.05, 0.08, 0.08],
    "elderly": [0.32, 0.10, 0.15, 0.10, 0.23, 0.0, 0.0, 0.10],
}
_FOCI = {
    "focal_temporal": [("F7", "T3"), ("T3",), ("T3", "T5"), ("F7", "T3", "A1")],
    "focal_frontal": [("F3", "FP1"), ("F3", "FZ"), ("F3", "F7"), ("FP1", "F3", "FZ")],
    "hemispheric": [("C3", "T3"), ("C3",)],
    "lvfa": [("F7", "T3"), ("F3",), ("C3", "F3"), ("P3", "T5"), ("T3",)],
    "subtle_focal": [("T3",), ("F7",), ("T5", "O1"), ("P3",), ("C3",), ("F3",)],
}
_AMP = {"focal_temporal": (120, 350), "focal_frontal": (80, 250), "hemispheric": (120, 350),
        "lvfa": (100, 300), "subtle_focal": (30, 70), "spike_wave": (150, 400),
        "polyspike": (150, 400), "tonic_clonic": (150, 400)}  # fmt: skip
_FON = {"focal_temporal": (5, 9), "focal_frontal": (6, 12), "hemispheric": (6, 10),
        "lvfa": (7, 11), "subtle_focal": (4, 7.5), "spike_wave": (3.0, 4.0),
        "polyspike": (2.5, 4.0), "tonic_clonic": (9, 12)}  # fmt: skip
#: Temporal / frontal channels where scalp muscle shows (cranial and facial muscles).
MUSCLE_CH = ("FP1", "FP2", "F7", "F8", "T3", "T4", "T5", "T6", "A1", "A2", "F3", "F4")


def draw_seizure_traits(rng, group: str, kind: str | None = None) -> dict:
    """A patient's seizure habit: type, side, focus, frequencies, amplitude, spread,
    muscle obscuring and postictal length (JSON-serialisable).

    Parameters
    ----------
    rng : numpy.random.Generator
    group : str
        ``'child'``, ``'adult'`` or ``'elderly'`` (sets the type probabilities).
    kind : str, optional
        Force one of :data:`TYPES`.
    """
    drawn = str(rng.choice(TYPES, p=_P[group]))
    kind = kind or drawn
    left = bool(rng.random() < 0.5)
    if kind in GENERALISED:
        focus = direction("FZ", "F3", "F4") + 0.1 * rng.standard_normal(3)
    else:
        opts = _FOCI[kind]
        focus = direction(*opts[int(rng.integers(len(opts)))], jitter=0.08, rng=rng)
        if not left:
            focus = mirror(focus)
    focus = focus / np.linalg.norm(focus)
    f_on = float(rng.uniform(*_FON[kind]))
    return {
        "type": kind,
        "kind": "generalised" if kind in GENERALISED else "focal",
        "side": "left" if left else "right",
        "focus": [float(x) for x in focus],
        "kappa": float({"hemispheric": rng.uniform(1.2, 2.0), "subtle_focal": rng.uniform(4.0, 6.0)}
                       .get(kind, rng.uniform(2.5, 4.5))),
        "f_on": f_on,
        "f_end": float(max(2.5, f_on - rng.uniform(0.3, 1.0)) if kind == "spike_wave"
                       else rng.uniform(1.5, 4.0)),  # fmt: skip
        "amp": float(rng.uniform(*_AMP[kind])),
        "onset": "lvfa" if kind == "lvfa" else str(rng.choice(["rhythmic", "attenuation"],
                                                              p=[0.7, 0.3])),  # fmt: skip
        "spread_p": float(rng.uniform(0.2, 0.9) if kind != "subtle_focal" else 0.1),
        "bilateral_p": float(rng.uniform(0.0, 0.6)),
        "emg_p": float(rng.uniform(0.4, 0.9) if kind in ("focal_frontal", "tonic_clonic")
                       else rng.uniform(0.05, 0.4)),  # fmt: skip
        "sharp": float(rng.uniform(0.2, 0.9)),
        "post_s": float({"spike_wave": 0.0, "polyspike": 10.0, "subtle_focal": 30.0,
                         "tonic_clonic": 600.0}.get(kind, 180.0) * rng.uniform(0.5, 1.5)),
        "ied_rate": 0.0 if rng.random() < 0.35 else float(rng.lognormal(np.log(15), 0.9)),
    }  # fmt: skip


def _ramp(tau: np.ndarray, at: float, width: float) -> np.ndarray:
    return np.clip((tau - at) / max(width, 1e-6), 0.0, 1.0)


def _muscle(out, i0: int, n: int, fs: float, amp: float, env: np.ndarray, rng,
            channels=MUSCLE_CH, side: float = 0.0) -> None:  # fmt: skip
    """Independent EMG on ``channels`` (one noise per electrode: muscle is local)."""
    for ch in channels:
        lat = 1.0 + side * (1.0 if ch[-1] in "1357" else -1.0)
        g = amp * rng.uniform(0.5, 1.2) * max(lat, 0.1) / 3.0
        out[IDX[ch], i0 : i0 + n] += (g * env * core.muscle_noise(n, fs, rng)).astype(np.float32)


def render_seizure(out: np.ndarray, a_s: float, b_s: float, tr: dict, fs: float, rng,
                   scale: float = 1.0):  # fmt: skip
    """Add one seizure to ``out`` (background already there), in ``[a_s, b_s)`` only.

    Parameters
    ----------
    out : ndarray of float32, shape (21, n)
    a_s, b_s : float
        Seizure start and stop, seconds.
    tr : dict
        The patient's seizure traits.
    fs : float
    rng : numpy.random.Generator
    scale : float
        The recording's amplitude scale (skull, age), as the background gets it.

    Returns
    -------
    name : str
        The seizure type.
    events : list of (float, float, str)
    """
    i0, i1 = int(round(a_s * fs)), min(out.shape[1], int(round(b_s * fs)))
    n = i1 - i0
    if n < 4:
        return tr["type"], []
    dur = n / fs
    tau = np.arange(n) / n
    kind = tr["type"]
    amp = tr["amp"] * scale * float(rng.lognormal(0.0, 0.25))
    f_on = tr["f_on"] * float(rng.uniform(0.88, 1.12))
    f_end = min(tr["f_end"] * float(rng.uniform(0.85, 1.15)), f_on)
    focus = np.asarray(tr["focus"]) + 0.05 * rng.standard_normal(3)
    gen = kind in GENERALISED
    rise = min(0.2 * dur, float(rng.uniform(0.1, 0.3) if gen else rng.uniform(0.5, 3.0)))
    fall = min(0.1 * dur, float(rng.uniform(0.1, 0.8)))
    gate = core.envelope(n, fs, 0.0, dur, rise, fall)
    events: list[tuple[float, float, str]] = []
    jitter = 1.0 + 0.15 * core.smooth_noise(n, fs, 0.7, rng)
    if kind in ("spike_wave", "polyspike"):
        f = f_on + (f_end - f_on) * tau
        cyc = core.phase_oscillator(f, n, fs, rng, diffusion=0.02)
        wave = core.shaped(cyc, core.TABLES[kind + ("_wave" if kind == "polyspike" else "")])
        env = gate * amp * 0.75 * jitter
        if kind == "polyspike":
            # irregular bursts of polyspike-wave separated by lower-amplitude stretches
            env = env * (0.35 + 0.65 * (core.smooth_noise(n, fs, 0.4, rng) > -0.4))
        field = vmf(focus, float(rng.uniform(1.3, 2.2)))
        _attenuate(out, i0, n, field, gate, 0.6)
        add(out, field, env * wave, i0)
        if rng.random() < tr["emg_p"] * 0.5:
            jerks = np.clip(-wave, 0, None) ** 4 * gate
            _muscle(out, i0, n, fs, 60.0, jerks, rng)
            events.append((a_s, b_s, "ictal_muscle"))
        return kind, events
    if kind == "tonic_clonic":
        tt = float(rng.uniform(0.2, 0.4))
        tonic = gate * (1.0 - _ramp(tau, tt, 0.05))
        f = np.where(tau < tt, f_on - 3.0 * tau / tt, 3.5 - 2.3 * _ramp(tau, tt, 1 - tt))
        cyc = core.phase_oscillator(f, n, fs, rng, diffusion=0.03)
        fast = np.sin(2 * np.pi * cyc) * (0.1 + 0.7 * _ramp(tau, 0.0, tt)) * tonic
        clonic = core.shaped(cyc, core.TABLES["polyspike_wave"]) * _ramp(tau, tt, 0.05) * gate
        field = vmf(focus, float(rng.uniform(1.0, 1.8)))
        _attenuate(out, i0, n, field, gate, 0.7)
        add(out, field, amp * 0.6 * jitter * (fast + clonic), i0)
        if rng.random() < tr["emg_p"]:
            emg = tonic * 1.5 + np.clip(-clonic, 0, None) ** 2 * 2.0
            _muscle(out, i0, n, fs, float(rng.uniform(40, 120)), emg, rng)
            events.append((a_s, b_s, "ictal_muscle"))
        return kind, events
    # focal families: evolving rhythm at the focus, spreading
    k = float(rng.uniform(1.5, 4.0))
    t_lv = 0.0
    if tr["onset"] == "lvfa":
        t_lv = min(0.3, float(rng.uniform(3.0, 12.0)) / dur)
    f = f_end + (f_on - f_end) * np.exp(-k * np.clip(tau - t_lv, 0, None))
    f = f * (1.0 + 0.04 * core.smooth_noise(n, fs, 0.2, rng))
    cyc = core.phase_oscillator(f, n, fs, rng, diffusion=0.03 + 0.05 * rng.random())
    s0 = 0.1 * rng.random()
    sharp = s0 + (tr["sharp"] - s0) * tau
    wave = core.blend(cyc, "spike_wave" if kind == "focal_frontal" and rng.random() < 0.3
                      else "sharp", sharp)  # fmt: skip
    a0 = float(rng.uniform(0.25, 0.5)) if kind != "subtle_focal" else 0.6
    t_pk = float(rng.uniform(0.3, 0.7))
    grow = a0 + (1 - a0) * np.sin(0.5 * np.pi * np.clip((tau - t_lv) / t_pk, 0, 1)) ** 2
    grow = grow * (1.0 - 0.25 * _ramp(tau, 0.85, 0.15)) * (tau >= t_lv)
    if tr["onset"] == "attenuation":
        grow = grow * (0.2 + 0.8 * _ramp(tau, 0.0, min(0.25, 8.0 / dur)))
    if rng.random() < 0.4:  # clonic-like fragmentation late in the seizure
        grow = grow * (1.0 - 0.6 * _ramp(tau, 0.75, 0.1) * (np.sin(2 * np.pi * cyc / 4) < 0))
    env = gate * grow * jitter * amp * 0.5
    spread = rng.random() < tr["spread_p"]
    sp = _ramp(tau, float(rng.uniform(0.15, 0.5)), 0.15) if spread else np.zeros(n)
    core_f = vmf(focus, tr["kappa"])
    reg_f = vmf(focus, 2.0 if kind != "hemispheric" else 1.2)
    att = 0.85 if tr["onset"] == "attenuation" else float(rng.uniform(0.3, 0.7))
    _attenuate(out, i0, n, np.maximum(core_f, reg_f * (0.7 if spread else 0.0)), gate, att)
    add(out, core_f, env * (1.0 - 0.5 * sp) * wave, i0)
    if spread:
        add(out, reg_f, env * 0.8 * sp * wave, i0)
        if rng.random() < tr["bilateral_p"]:
            lag = int(rng.uniform(0.005, 0.03) * fs)
            contra = env * 0.7 * _ramp(tau, float(rng.uniform(0.5, 0.8)), 0.1) * wave
            contra = np.concatenate([np.zeros(lag), contra[: n - lag]])
            add(out, vmf(mirror(focus), 2.5), contra, i0)
    if t_lv > 0:
        fz = 28.0 - 12.0 * np.clip(tau / t_lv, 0, 1)
        z = core.resonator(np.minimum(fz, 0.4 * fs), 3.0, n, fs, rng).real
        lv = z * gate * (tau < t_lv) * float(rng.uniform(8, 20))
        add(out, vmf(focus, tr["kappa"] * 0.7), lv, i0)
    if rng.random() < tr["emg_p"]:
        m0 = float(rng.uniform(0.0, 0.6))
        emg = gate * _ramp(tau, m0, 0.05) * (0.5 + 0.5 * (core.smooth_noise(n, fs, 0.3, rng) > 0))
        side = 0.6 if tr["side"] == "left" else -0.6
        _muscle(out, i0, n, fs, float(rng.uniform(30, 100)), emg, rng, side=side)
        events.append((a_s + m0 * dur, b_s, "ictal_muscle"))
    return kind, events


def _attenuate(out, i0: int, n: int, field, gate, att: float) -> None:
    """Replace background under an ictal field: scale by ``1 - att * field * gate``."""
    f = np.asarray(field, dtype=np.float32)[:, None]
    g = np.asarray(gate, dtype=np.float32)[None, :]
    out[:, i0 : i0 + n] *= 1.0 - np.float32(att) * f * g


def postictal(out: np.ndarray, b_s: float, tr: dict, post_s: float, fs: float, rng,
              scale: float = 1.0) -> list:  # fmt: skip
    """Postictal slowing after ``b_s`` (focal or diffuse delta decaying over ``post_s``),
    preceded by generalised suppression after a tonic-clonic seizure.

    Returns
    -------
    list of (float, float, str)
    """
    i1 = int(round(b_s * fs))
    m = min(out.shape[1] - i1, int(post_s * fs))
    if m <= int(fs) or post_s <= 0:
        return []
    t = np.arange(m) / fs
    events = [(b_s, b_s + m / fs, "postictal")]
    if tr["type"] == "tonic_clonic":
        sup = float(rng.uniform(10.0, 60.0))
        prof = (0.1 + 0.9 * np.clip((t - sup) / 20.0, 0, 1)).astype(np.float32)
        out[:, i1 : i1 + m] *= prof[None, :]
        events.append((b_s, b_s + sup, "postictal_suppression"))
    focal = tr["kind"] == "focal"
    field = vmf(tr["focus"], 2.5) if focal else vmf(direction("FZ", "CZ"), 0.8)
    z = core.resonator(1.2 + 0.3 * rng.random(), 1.5, m, fs, rng).real
    decay = np.exp(-t / (0.4 * post_s)) * np.clip(t / 2.0, 0, 1)
    add(out, field, z * decay * tr["amp"] * scale * float(rng.uniform(0.15, 0.35)), i1)
    return events


def interictal(out: np.ndarray, tr: dict, state_rate: np.ndarray, dt: float, fs: float,
               seizures, rng, scale: float = 1.0) -> list:  # fmt: skip
    """Interictal spikes / sharp waves at the focus (single complexes or doublets; focal or
    generalised after the seizure type), never inside or right next to a seizure.

    Parameters
    ----------
    state_rate : ndarray, shape (m,)
        Relative discharge rate per control tick (sleep activates).
    scale : float
        The recording's amplitude scale.

    Returns
    -------
    list of (float, float, str)
    """
    if tr["ied_rate"] <= 0:
        return []
    times = core.poisson_times(state_rate * tr["ied_rate"] / 3600.0, dt, rng)
    times = [t for t in times if all(t < a - 3 or t > b + 3 for a, b in seizures)]
    gen = tr["kind"] == "generalised"
    table = core.TABLES["polyspike_wave" if tr["type"] == "polyspike" else "spike_wave"]
    train = np.zeros(out.shape[1])
    for t in times:
        per = float(rng.uniform(0.25, 0.45))
        reps = 2 if rng.random() < 0.2 else 1
        g = np.arange(int(per * fs * reps)) / (per * fs)
        w = core.shaped(g, table)
        place(train, t, fs, w * float(rng.uniform(0.4, 1.0)) * tr["amp"] * scale * 0.6)
    field = vmf(tr["focus"], 1.3 if gen else 0.7 * tr["kappa"])
    add(out, field, train)
    return [(float(t), float(t) + 0.5, "interictal_discharge") for t in times]

