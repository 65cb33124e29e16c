"""Background brain activity: vigilance states as neural-mass parameter regimes, plus the
afferent drives of sleep (thalamic spindles, K-complexes, vertex waves, slow oscillation).

Each patch keeps one branch of the Wendling model for the whole recording, so state changes
never push it across the bistable zone between branches:

* posterior patches sit on the oscillatory branch (``B`` ~ 12-15): a noise-driven alpha
  rhythm whose amplitude follows ``A``/``B`` (eyes closed vs open) and whose frequency
  follows the time scale ``speed`` (age, drowsiness, diffuse slowing);
* frontal patches sit on the same branch at twice the speed: low-voltage beta;
* rolandic patches carry a mu rhythm in some patients, beta in others;
* temporal and mesial patches sit on the quiet branch (``B`` ~ 30): broadband 1/f-like
  activity that slows with sleep.

Sleep adds thalamocortical input: waxing-waning 11-15 Hz spindle drive, K-complexes (an
excitatory then inhibitory volley), vertex sharp waves, and slow (0.5-2 Hz) fluctuations of
the afferent input that give the delta of N3.
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import uniform_filter1d
from scipy.signal import butter, sosfilt

from rt_eeg.xsim.nmm import head

STATES = ("awake", "drowsy", "n2", "n3", "rem")

#: Mean dwell (minutes) and successors of each vigilance state.
_DWELL_MIN = {"awake": 8.0, "drowsy": 1.5, "n2": 7.0, "n3": 9.0, "rem": 6.0}
_NEXT = {
    "awake": (("drowsy",), (1.0,)),
    "drowsy": (("awake", "n2"), (0.45, 0.55)),
    "n2": (("n3", "drowsy", "awake", "rem"), (0.4, 0.2, 0.15, 0.25)),
    "n3": (("n2",), (1.0,)),
    "rem": (("n2", "awake"), (0.6, 0.4)),
}


def draw_traits(rng: np.random.Generator, age: float) -> dict:
    """Patient-fixed background traits."""
    if age < 3:
        pdr = rng.uniform(5.5, 7.5)
    elif age < 8:
        pdr = rng.uniform(7.0, 9.0)
    elif age < 16:
        pdr = rng.uniform(8.0, 10.5)
    elif age < 65:
        pdr = rng.uniform(8.8, 11.5)
    else:
        pdr = rng.uniform(7.8, 10.0)
    diffuse_slowing = bool(rng.random() < 0.15)
    if diffuse_slowing:
        pdr = max(5.5, pdr - rng.uniform(1.0, 2.5))
    gain = float(rng.lognormal(np.log(65.0), 0.25) * (1.4 if age < 12 else 0.85 if age > 65 else 1))
    return {
        "pdr_hz": float(pdr),
        "alpha_strength": float(rng.beta(3, 2)),
        "alpha_asym": float(rng.normal(0.0, 0.08)),
        "mu": bool(rng.random() < 0.2),
        "mu_hz": float(rng.uniform(8.5, 11.0)),
        "beta_hz": float(rng.uniform(17.0, 24.0)),
        "beta_level": float(rng.beta(2, 4) + (0.3 if rng.random() < 0.15 else 0.0)),
        "diffuse_slowing": diffuse_slowing,
        "focal_slowing": bool(rng.random() < 0.25),
        "spindle_hz": float(rng.uniform(11.5, 14.5)),
        "spindle_rate": float(rng.uniform(2.0, 7.0)),
        "kc_rate": float(rng.uniform(0.5, 2.5)),
        "sleepiness": float(rng.uniform(0.0, 1.0)),
        "delta_level": float(rng.uniform(0.6, 1.3)),
        "gain_uv_per_mv": gain,
        "pink_level": float(rng.uniform(0.7, 1.2)),
    }


def schedule(rng: np.random.Generator, duration_s: float, traits: dict) -> list:
    """Vigilance states as ``[t0, t1, state]`` covering the recording."""
    sl = traits["sleepiness"]
    p0 = np.array([0.75 - 0.35 * sl, 0.1 + 0.1 * sl, 0.15 + 0.25 * sl])
    state = str(rng.choice(["awake", "drowsy", "n2"], p=p0 / p0.sum()))
    t, out = 0.0, []
    while t < duration_s:
        mean = _DWELL_MIN[state] * 60.0 * (1.0 + (sl - 0.5) * (0.8 if state != "awake" else -0.8))
        dwell = float(np.clip(rng.gamma(2.0, mean / 2.0), 30.0, None))
        out.append([t, min(duration_s, t + dwell), state])
        t += dwell
        names, probs = _NEXT[state]
        state = str(rng.choice(names, p=probs))
    return out


def eyes_closed_mask(rng: np.random.Generator, t: np.ndarray, states: list) -> np.ndarray:
    """1 where the eyes are closed (awake periods alternate; asleep: closed)."""
    ec = np.ones_like(t)
    frac = rng.uniform(0.3, 0.8)
    for t0, t1, s in states:
        if s != "awake":
            continue
        u = t0
        closed = bool(rng.random() < frac)
        while u < t1:
            d = rng.uniform(5.0, 50.0) if closed else rng.uniform(4.0, 40.0)
            ec[(t >= u) & (t < min(t1, u + d))] = 1.0 if closed else 0.0
            u += d
            closed = not closed
    return ec


def _smooth(x: np.ndarray, n: int) -> np.ndarray:
    return uniform_filter1d(x, max(1, n), axis=-1, mode="nearest")


def role_params(traits: dict, slowing_patch: str | None) -> dict:
    """Parameter vectors (A, B, G, speed, p_mean, p_sd) per patch for every state.

    Returns a dict state -> array (n_patch, 6); 'awake' is eyes closed, 'awake_eo' open.
    """
    pdr = traits["pdr_hz"] / 10.2
    s = traits["alpha_strength"]
    bl = traits["beta_level"]
    slow = 0.8 if traits["diffuse_slowing"] else 1.0

    def alpha(strength: float, speed: float) -> list:
        return [3.30 + 0.26 * strength, 12.0 + 3.0 * strength, 8.0 - 3.0 * strength, speed]

    quiet = [3.45, 30.0, 10.0]
    out = {}
    for st in ("awake", "awake_eo", "drowsy", "n2", "n3", "rem"):
        rows = []
        for name, role in zip(head.PATCH_NAMES, head.ROLES, strict=True):
            asym = traits["alpha_asym"] * (1 if name[0] == "L" else -1 if name[0] == "R" else 0)
            sp = {"awake": 1.0, "awake_eo": 1.0, "drowsy": 0.7, "n2": 0.55, "n3": 0.42}.get(
                st, 0.75
            )
            if role == "posterior":
                local = 1.0 if "occipital" in name else 0.55 if "temporal" in name else 0.7
                a_str = {"awake": s, "awake_eo": 0.12 * s, "drowsy": 0.15, "rem": 0.25}.get(st, 0.0)
                a_str *= local
                a_sp = pdr * (1.0 if st.startswith("awake") else 0.85 if st == "rem" else 0.7)
                p = alpha(
                    float(np.clip(a_str + asym, 0, 1)), a_sp * (0.95 if "temporal" in name else 1)
                )
            elif role == "rolandic" and traits["mu"] and st.startswith("awake"):
                p = alpha(0.4, traits["mu_hz"] / 10.2)
            elif role in ("frontal", "rolandic"):
                bsp = traits["beta_hz"] / 10.2 if st.startswith("awake") else 0.6
                bst = bl if st.startswith("awake") or st == "rem" else 0.25
                p = alpha(0.3 * min(bst, 1.0), bsp)
            else:
                p = [*quiet, sp]
            if role in ("temporal", "mesial"):
                p[3] = sp
            p[3] *= slow
            if name == slowing_patch:
                p[3] *= 0.35
            pm = 90.0 if st.startswith("awake") else 95.0
            rows.append([*p, pm, 30.0])
        out[st] = np.asarray(rows)
    return out


def build_ctrl(
    t: np.ndarray, states: list, ec: np.ndarray, params: dict, fs_ctrl: float
) -> np.ndarray:
    """Control array (6, n_patch, len(t)) blending state parameter sets with smooth ramps."""
    w = {}
    for st in STATES:
        m = np.zeros_like(t)
        for t0, t1, s in states:
            if s == st:
                m[(t >= t0) & (t < t1)] = 1.0
        if len(states):
            m[t < 0] = 1.0 if states[0][2] == st else 0.0
            m[t >= states[-1][1]] = 1.0 if states[-1][2] == st else 0.0
        w[st] = _smooth(m, int(25.0 * fs_ctrl))
    ecs = _smooth(ec, int(0.8 * fs_ctrl))
    ctrl = np.zeros((6, head.N_PATCH, len(t)), dtype=np.float32)
    parts = [
        ("awake", w["awake"] * ecs),
        ("awake_eo", w["awake"] * (1 - ecs)),
        ("drowsy", w["drowsy"]),
        ("n2", w["n2"]),
        ("n3", w["n3"]),
        ("rem", w["rem"]),
    ]
    for st, wt in parts:
        ctrl += params[st].T[:, :, None].astype(np.float32) * wt[None, None, :].astype(np.float32)
    return ctrl


def _bump(n: int) -> np.ndarray:
    return np.sin(np.linspace(0, np.pi, max(n, 2))) ** 2


def _add(drive: np.ndarray, rows: np.ndarray, w: np.ndarray, i0: int, wave: np.ndarray) -> None:
    """Add ``w[r] * wave`` to drive rows at sample i0 (clipped to the array)."""
    n = drive.shape[1]
    a, b = max(0, i0), min(n, i0 + len(wave))
    if b <= a:
        return
    drive[np.ix_(rows, np.arange(a, b))] += w[:, None] * wave[a - i0 : b - i0][None, :]


def pink_drive(rng: np.random.Generator, drive: np.ndarray, fs: float, level: float) -> None:
    """Add 1/f afferent input (from the rest of the brain) to every patch, in place.

    White input alone gives each mass a Lorentzian spectrum (flat below ~8 Hz); a pink
    afferent share turns the sum into the 1/f-like background of real EEG. The quiet
    branch amplifies slow input steeply, so its share is kept small.
    """
    n_p, n = drive.shape
    f = np.fft.rfftfreq(n, 1.0 / fs)
    shape = 1.0 / np.sqrt(np.maximum(f, 0.3))
    shape[f > 40.0] *= np.exp(-(f[f > 40.0] - 40.0) / 10.0)
    quiet = np.array([r in ("temporal", "mesial") for r in head.ROLES])
    amp = np.where(quiet, 6.0, 8.0) * level
    for i in range(n_p):
        spec = (rng.standard_normal(len(f)) + 1j * rng.standard_normal(len(f))) * shape
        x = np.fft.irfft(spec, n=n)
        drive[i] += (amp[i] / (x.std() + 1e-12) * x).astype(np.float32)


def sleep_drive(
    rng: np.random.Generator,
    drive: np.ndarray,
    t_drive: np.ndarray,
    fs: float,
    states: list,
    traits: dict,
    events: list,
) -> None:
    """Add spindles, K-complexes, vertex waves and slow-oscillation input in place."""
    names = head.PATCH_NAMES
    cen = np.array(
        [
            head.patch_index(n)
            for n in names
            if head.ROLES[head.patch_index(n)] in ("rolandic", "frontal")
        ]
    )
    cen_w = np.array([1.0 if "central" in names[i] or "vertex" in names[i] else 0.6 for i in cen])
    vtx = np.array(
        [
            head.patch_index("M_vertex"),
            head.patch_index("L_central"),
            head.patch_index("R_central"),
            head.patch_index("M_frontal"),
        ]
    )
    vtx_w = np.array([1.0, 0.45, 0.45, 0.5])
    dur = t_drive[-1]
    for t0, t1, st in states:
        span = min(t1, dur) - max(t0, 0.0)
        if span <= 0:
            continue
        if st in ("n2", "n3"):
            rate = traits["spindle_rate"] * (1.0 if st == "n2" else 0.4) / 60.0
            for ts in np.sort(rng.uniform(t0, t0 + span, rng.poisson(rate * span))):
                d = rng.uniform(0.5, 1.8)
                n = int(d * fs)
                f = traits["spindle_hz"] + rng.normal(0, 0.4)
                tt = np.arange(n) / fs
                wave = (
                    rng.uniform(60, 140)
                    * _bump(n)
                    * np.sin(2 * np.pi * f * tt + rng.uniform(0, 6.3))
                )
                _add(
                    drive,
                    cen,
                    cen_w * rng.uniform(0.7, 1.3, len(cen)),
                    int((ts - t_drive[0]) * fs),
                    wave,
                )
                events.append((float(ts), float(ts + d), "sleep_spindle"))
            rate = traits["kc_rate"] * (1.0 if st == "n2" else 0.3) / 60.0
            for ts in np.sort(rng.uniform(t0, t0 + span, rng.poisson(rate * span))):
                amp = rng.uniform(150, 320)
                n1, n2 = int(rng.uniform(0.12, 0.2) * fs), int(rng.uniform(0.35, 0.6) * fs)
                wave = np.concatenate([amp * _bump(n1), -0.45 * amp * _bump(n2)])
                _add(drive, vtx, vtx_w, int((ts - t_drive[0]) * fs), wave)
                events.append((float(ts), float(ts + (n1 + n2) / fs), "k_complex"))
        if st in ("drowsy", "n2"):
            rate = (1.5 if st == "drowsy" else 3.0) / 60.0
            for ts in np.sort(rng.uniform(t0, t0 + span, rng.poisson(rate * span))):
                n = int(rng.uniform(0.07, 0.12) * fs)
                wave = rng.uniform(250, 600) * _bump(n)
                _add(drive, vtx, vtx_w, int((ts - t_drive[0]) * fs), wave)
                events.append((float(ts), float(ts + 0.3), "vertex_wave"))
    # Slow oscillation: low-passed input fluctuations whose size follows sleep depth.
    depth = np.zeros_like(t_drive)
    lvl = {"drowsy": 0.15, "n2": 0.45, "n3": 1.0, "rem": 0.1}
    for t0, t1, st in states:
        depth[(t_drive >= t0) & (t_drive < t1)] = lvl.get(st, 0.0)
    depth = _smooth(depth, int(20 * fs))
    if depth.max() <= 0:
        return
    sos = butter(2, [0.4, 2.0], btype="bandpass", fs=fs, output="sos")
    n_src = 3
    src = sosfilt(sos, rng.standard_normal((n_src, len(t_drive))), axis=1)
    src /= src.std(axis=1, keepdims=True) + 1e-12
    xyz = head.patch_xyz()
    anchors = np.array([[0.8, 0.0, 0.6], [0.0, 0.7, 0.7], [0.0, -0.7, 0.7]])
    mix = np.exp(
        -2.0
        * np.arccos(
            np.clip(xyz @ (anchors / np.linalg.norm(anchors, axis=1, keepdims=True)).T, -1, 1)
        )
        ** 2
    )
    mix += 0.3
    mix /= mix.max(axis=1, keepdims=True)
    # The quiet branch amplifies slow input steeply and turns bistable beyond ~20 pulses/s;
    # the oscillatory branch responds weakly and linearly: scale the input per branch.
    quiet = np.array([r in ("temporal", "mesial") for r in head.ROLES])
    amp = np.where(quiet, 16.0, 45.0) * min(traits["delta_level"], 1.15)
    src = (src * depth[None, :]).astype(np.float32)
    for i in range(head.N_PATCH):
        drive[i] += (amp[i] * mix[i]).astype(np.float32) @ src
