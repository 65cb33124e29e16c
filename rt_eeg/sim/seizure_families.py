"""Seizure families (:data:`rt_eeg.sim.families.FAMILIES` ``['seizure']``): planning and rendering.

Each family is an evolving rhythmic discharge with its own frequency band and trajectory,
waveform (sinusoidal to sharp, spike-and-wave, polyspike-and-wave), onset (low-voltage fast
or not), spatial field (focal, spreading, hemispheric, generalised, confined) and overlays
(muscle). Every one of those is drawn per seizure, so two seizures of a family differ in
frequency trajectory, amplitude, sharpness, extent and speed of evolution. ``generalised``
reuses the classic generalised, tonic and tonic-clonic kinds of :mod:`rt_eeg.sim.seizures`.
"""

from __future__ import annotations

import math

import numpy as np

from rt_eeg.sim.artifacts import _band_noise
from rt_eeg.sim.background import CTRL_SFREQ, EMG_ELECTRODES, gaussian_map
from rt_eeg.sim.layout import EIDX, N_ELECTRODES, XYZ, distances_to

#: Frequency band (Hz) the trajectory of each rhythmic family stays in, and the least
#: change of frequency over the seizure (it evolves).
BANDS: dict[str, tuple[float, float, float]] = {
    "rhythmic_delta": (1.6, 3.8, 0.8),
    "rhythmic_theta": (4.3, 7.7, 1.2),
    "rhythmic_alpha": (8.3, 12.7, 1.5),
    "rhythmic_beta": (14.0, 26.0, 3.0),
}
#: Seizure families the classic-kind planner handles (kind chosen among these).
CLASSIC_GENERALISED = ("generalized", "tonic", "tonic_clonic")
_TEMPORAL = {"T3", "T4", "F7", "F8", "T5", "T6"}


def _smoothstep(x):
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


# --------------------------------------------------------------------------------------------
# planning


def classic_kind(family: str, duration: float, rng) -> str | None:
    """The classic kind that renders ``family`` (only 'generalised'), else None."""
    if family != "generalised":
        return None
    kinds = [k for k in CLASSIC_GENERALISED
             if not (k == "tonic" and duration > 60) and not (k == "tonic_clonic" and duration < 25)]  # fmt: skip
    return str(rng.choice(kinds))


def draw_trajectory(family: str, rng) -> tuple[float, float]:
    """Start and end frequency of a rhythmic family: inside its band, at least its least
    change apart; mostly slowing (as most seizures do), sometimes speeding up."""
    lo, hi, least = BANDS[family]
    for _ in range(100):
        a, b = sorted(rng.uniform(lo, hi, 2))
        if b - a >= least:
            break
    else:  # pragma: no cover - the band is always wide enough
        a, b = lo, hi
    return (b, a) if rng.random() < 0.75 else (a, b)


def draw_extent(family: str, rng) -> str:
    """Spatial field of a family's seizure: 'focal', 'subtle', 'spread', 'hemispheric' or
    'generalised'."""
    fixed = {"focal_spread": "spread", "hemispheric": "hemispheric", "subtle_focal": "subtle"}
    if family in fixed:
        return fixed[family]
    choices = {
        "spike_wave": (("generalised", 0.8), ("hemispheric", 0.1), ("focal", 0.1)),
        "polyspike": (("generalised", 0.85), ("hemispheric", 0.15)),
        "low_voltage_fast": (("focal", 0.6), ("spread", 0.2), ("hemispheric", 0.2)),
        "rhythmic_beta": (("focal", 0.55), ("hemispheric", 0.15), ("generalised", 0.3)),
        "muscle_obscured": (("focal", 0.5), ("spread", 0.2), ("generalised", 0.3)),
    }.get(family, (("focal", 0.55), ("spread", 0.15), ("hemispheric", 0.1), ("generalised", 0.2)))
    names, p = zip(*choices, strict=True)
    return str(rng.choice(names, p=np.array(p) / sum(p)))


def draw_field(extent: str, focus: str, duration: float, rng):
    """Involvement of each electrode.

    Returns
    -------
    weights, recruit, delays : np.ndarray
        ``(21,)`` relative amplitude (0 = not involved), recruitment delay after onset (s,
        ``inf`` when not involved) and propagation lag of the rhythm (s).
    """
    weights = np.zeros(N_ELECTRODES)
    recruit = np.full(N_ELECTRODES, np.inf)
    d = distances_to(focus)
    if extent in ("focal", "subtle", "spread"):
        if extent == "subtle":
            reach, spread_s = rng.uniform(0.5, 0.66), rng.uniform(3.0, 15.0)
        elif extent == "focal":
            reach, spread_s = rng.uniform(0.75, 1.35), rng.uniform(3.0, 25.0)
        else:  # over the hemisphere and across, over tens of seconds
            reach, spread_s = rng.uniform(1.5, 2.0), rng.uniform(12.0, 40.0)
        spread_s = min(0.6 * duration, spread_s)
        sigma = max(0.35, reach / (1.6 if extent != "spread" else 1.3))
        inv = d <= reach
        weights[inv] = np.exp(-0.5 * (d[inv] / sigma) ** 2)
        recruit[inv] = spread_s * (d[inv] / reach) * rng.uniform(0.8, 1.2, inv.sum())
        recruit[EIDX[focus]] = 0.0
        delays = d * rng.uniform(0.02, 0.06)
    elif extent == "hemispheric":
        side = np.sign(XYZ[EIDX[focus], 1]) or rng.choice([-1.0, 1.0])
        y = XYZ[:, 1] * side  # > 0 on the seizure's side
        inv = y > -0.05
        # the whole hemisphere, strongest around the focus (a flat field would vanish from a
        # bipolar montage)
        near = np.exp(-0.5 * (d[inv] / rng.uniform(0.6, 0.9)) ** 2)
        weights[inv] = (0.3 + 0.7 * near) * np.clip(0.5 + y[inv], 0.3, 1.0)
        weights[inv] *= rng.uniform(0.85, 1.1, inv.sum())
        recruit[inv] = rng.uniform(0.0, min(0.2 * duration, rng.uniform(0.5, 4.0)), inv.sum())
        recruit[EIDX[focus]] = 0.0
        delays = d * rng.uniform(0.005, 0.03)
    else:  # generalised: bilateral, frontal, central or posterior maximum
        centre = str(rng.choice(["FZ", "CZ", "PZ"], p=[0.6, 0.25, 0.15]))
        floor = rng.uniform(0.1, 0.3)
        weights[:] = floor + (1 - floor) * gaussian_map(centre, rng.uniform(0.55, 0.8))
        weights *= rng.uniform(0.9, 1.1, N_ELECTRODES)
        recruit[:] = rng.uniform(0.0, rng.uniform(0.1, 1.0), N_ELECTRODES)
        recruit[int(np.argmax(weights))] = 0.0
        delays = rng.uniform(0.0, 0.006, N_ELECTRODES)
    weights[[EIDX["A1"], EIDX["A2"]]] *= 0.6 if extent == "generalised" else 1.0
    weights = weights / max(weights.max(), 1e-9)
    return weights, recruit, delays


def draw_params(family: str, duration: float, extent: str, rng) -> dict:
    """Trajectory and waveform parameters of a (non-classic) family seizure."""
    u = rng.uniform
    P = dict(wave="rhythmic", p=u(0.6, 1.5), a0=u(0.12, 0.4), build=min(0.5 * duration, u(5.0, 30.0)),
             s0=u(0.0, 0.35), s1=u(0.3, 0.85), burst=u(0.0, 0.6), tau_rec=u(1.0, 3.0),
             muscle=0.0, lvf=0.0, bg_in=0.4, irregular=1.0)  # fmt: skip
    if family in BANDS:
        P["f0"], P["f1"] = draw_trajectory(family, rng)
        if family in ("rhythmic_alpha", "rhythmic_beta"):
            P["s0"], P["s1"] = u(0.0, 0.2), u(0.1, 0.45)  # fast rhythms stay fairly sinusoidal
            P.update(burst=0.0, a0=u(0.3, 0.6), bg_in=0.3)
    elif family == "spike_wave":
        f0 = u(3.0, 4.0)
        P.update(wave="spike_wave", f0=f0, f1=u(2.5, min(f0, 3.3)), p=1.0, a0=u(0.6, 1.0),
                 build=u(0.3, 2.0), burst=0.0, tau_rec=0.2, irregular=0.3, bg_in=0.5)  # fmt: skip
    elif family == "polyspike":
        f0 = u(2.0, 3.5)
        P.update(wave="polyspike", f0=f0, f1=u(1.5, f0), n_spikes=int(rng.integers(2, 6)),
                 p=1.0, a0=u(0.5, 1.0), build=u(0.3, 3.0), burst=u(0.0, 0.4), tau_rec=0.3,
                 irregular=0.5, bg_in=0.5)  # fmt: skip
    elif family == "low_voltage_fast":
        lvf = min(0.3 * duration, u(3.0, 12.0))
        P.update(lvf=lvf, fl0=u(18.0, 28.0), fl1=u(13.0, 17.0), f0=u(5.5, 9.0), f1=u(2.5, 4.5),
                 a0=u(0.1, 0.2), build=min(0.5 * duration, lvf + u(8.0, 25.0)), s0=0.05,
                 bg_in=0.25)  # fmt: skip
    else:  # focal_spread, hemispheric, subtle_focal, muscle_obscured: theta slowing to delta
        P["f0"], P["f1"] = u(4.0, 8.5), u(2.0, 4.0)
        if family == "muscle_obscured":
            P.update(muscle=u(40.0, 150.0), muscle_delay=u(0.0, min(5.0, 0.2 * duration)),
                     muscle_side=str(rng.choice(["both", "left", "right"], p=[0.7, 0.15, 0.15])))  # fmt: skip
    if extent == "generalised" and P["wave"] == "rhythmic":
        P["tau_rec"] = 0.5
    return P


def family_label(family: str, extent: str, focus: str, duration: float, profile) -> str:
    """TUSZ subtype written in the per-channel csv for a family seizure."""
    if extent == "generalised":
        if family == "spike_wave":
            return "absz" if duration <= 40.0 else "gnsz"
        if family == "polyspike":
            return "mysz" if duration <= 15.0 else "gnsz"
        if family == "rhythmic_beta":
            return "tnsz"
        if family == "muscle_obscured":
            return "tcsz"
        return "gnsz"
    return "cpsz" if focus in _TEMPORAL and profile.seed % 2 == 0 else "fnsz"


def family_amplitude(family: str, extent: str, profile, rng) -> float:
    """Peak microvolts at the most involved electrode."""
    if extent == "subtle":
        return float(rng.uniform(15.0, 40.0))
    if extent == "generalised":
        amp = (
            rng.uniform(250.0, 600.0)
            if family in ("spike_wave", "polyspike")
            else rng.uniform(150.0, 400.0)
        )
    elif extent == "hemispheric":  # broad fields look small on a bipolar montage
        amp = rng.uniform(150.0, 350.0)
    else:
        amp = profile.seizure_uv * float(rng.lognormal(0.0, 0.2))
    # fast discharges are low voltage; broad fields need more to show on a bipolar montage
    broad = extent in ("generalised", "hemispheric")
    scale = {"rhythmic_alpha": 0.7 if broad else 0.5,
             "rhythmic_beta": 0.5 if broad else 0.3}.get(family, 1.0)  # fmt: skip
    return float(amp * scale)


def postictal_s(family: str, extent: str, rng) -> float:
    if family == "spike_wave" and extent == "generalised":
        return 0.0
    if extent == "subtle":
        return float(rng.uniform(5.0, 60.0))
    if extent == "generalised":
        return float(rng.uniform(20.0, 180.0))
    return float(rng.uniform(20.0, 200.0))


# --------------------------------------------------------------------------------------------
# rendering


def _wrapped_gauss(phi, mu, sigma):
    d = np.angle(np.exp(1j * (phi - mu)))
    return np.exp(-0.5 * (d / sigma) ** 2)


_GRID = np.linspace(0.0, 2 * np.pi, 1024, endpoint=False)


def _polyspike_raw(phi, n_spikes: int):
    y = np.zeros_like(phi, dtype=np.float64)
    for j in range(n_spikes):  # a run of spikes ~60 ms apart at 2.5 Hz, then the wave
        y -= (1.0 - 0.12 * j) * _wrapped_gauss(phi, 0.9 * j, 0.16)
        y += 0.3 * _wrapped_gauss(phi, 0.9 * j + 0.45, 0.2)
    y -= 0.7 * _wrapped_gauss(phi, 0.9 * n_spikes + 1.6, 0.8)
    return y


def polyspike_wave(phi: np.ndarray, n_spikes: int) -> np.ndarray:
    """Polyspike-and-wave per cycle: ``n_spikes`` negative spikes, then a slow wave; zero
    mean, unit rms times sqrt(0.5) (as a sine of unit amplitude)."""
    ref = _polyspike_raw(_GRID, n_spikes)
    return (_polyspike_raw(phi, n_spikes) - ref.mean()) / ref.std() * math.sqrt(0.5)


def render_family(sz, sfreq: float) -> tuple[np.ndarray, np.ndarray]:
    """Render a family seizure: same contract as :meth:`rt_eeg.sim.seizures.Seizure.render`."""
    from rt_eeg.sim.seizures import (
        _coherent_noise,
        postictal_slowing,
        rhythmic_wave,
        spike_wave,
    )

    rng = np.random.default_rng(sz.seed)
    P = sz.params
    D = sz.duration
    n = max(2, int(round(D * sfreq)))
    n_post = int(round(sz.postictal_s * sfreq))
    t = np.arange(n) / sfreq
    u = np.clip(t / D, 0.0, 1.0)
    cols = np.flatnonzero(np.asarray(sz.weights) > 0)
    w = np.asarray(sz.weights)[cols]
    rec = np.asarray(sz.recruit)[cols]
    dly = np.asarray(sz.delays)[cols]
    wander = np.exp(0.15 * _band_noise(rng, n, 1, 0.05, 0.5, sfreq)[:, 0])

    lvf = float(P["lvf"])
    if lvf > 0:  # low-voltage fast onset, then the rhythmic discharge
        ph1 = t < lvf
        u2 = np.clip((t - lvf) / max(D - lvf, 1e-3), 0, 1)
        f = np.where(ph1, P["fl0"] + (P["fl1"] - P["fl0"]) * t / lvf,
                     P["f1"] + (P["f0"] - P["f1"]) * (1.0 - u2) ** P["p"])  # fmt: skip
        A = np.where(ph1, P["a0"] * (0.6 + 0.4 * t / lvf),
                     P["a0"] + (1 - P["a0"]) * _smoothstep((t - lvf) / max(P["build"] - lvf, 1.0)))  # fmt: skip
        sharp = np.where(ph1, 0.0, P["s0"] + (P["s1"] - P["s0"]) * u2)
    else:
        f = P["f1"] + (P["f0"] - P["f1"]) * (1.0 - u) ** P["p"]
        A = P["a0"] + (1.0 - P["a0"]) * _smoothstep(t / P["build"])
        sharp = P["s0"] + (P["s1"] - P["s0"]) * u
    late = _smoothstep((u - 0.7) / 0.3)  # late fragmentation into bursts
    A = A * (1.0 - P["burst"] * late * (0.5 - 0.5 * np.cos(2 * np.pi * 0.7 * t)))
    off = 1.0 - _smoothstep((t - (D - 0.8)) / 0.8)  # stops within ~1 s of the annotated end
    A = A * off * wander
    f = f * (1.0 + 0.05 * _band_noise(rng, n, 1, 0.05, 1.0, sfreq)[:, 0])

    phi = 2 * np.pi * np.cumsum(f) / sfreq + rng.uniform(0, 2 * np.pi)
    tau = P["tau_rec"]
    ramp = _smoothstep((t[:, None] - rec[None, :]) / tau)  # (n, k)
    irr = P["irregular"]
    jit = 1.0 + 0.2 * irr * _coherent_noise(rng, n, cols, 0.2, 1.5, sfreq)
    jit *= 1.0 + 0.15 * irr * _coherent_noise(rng, n, cols, 1.0, 2.5, sfreq, local=0.1)
    ph_e = phi[:, None] - 2 * np.pi * f[:, None] * dly[None, :]
    if P["wave"] == "spike_wave":
        shape = spike_wave(ph_e)
    elif P["wave"] == "polyspike":
        shape = polyspike_wave(ph_e, P["n_spikes"])
    else:
        shape = rhythmic_wave(ph_e, sharp[:, None])
    env = (sz.amp * A)[:, None] * ramp * jit * w[None, :]
    wave_k = env * shape
    wave_k += 0.12 * irr * env * _coherent_noise(rng, n, cols, 1.0, min(20.0, 0.4 * sfreq), sfreq)

    out = np.zeros((n + n_post, N_ELECTRODES), dtype=np.float32)
    out[:n, cols] = wave_k
    if P["muscle"] > 0:  # temporalis / frontalis contraction over the discharge
        emg = [EIDX[e] for e in EMG_ELECTRODES]
        side = P["muscle_side"]
        mw = np.array(
            [1.0 if side == "both" or (side == "left") == (XYZ[i, 1] > 0) else 0.15 for i in emg]
        )
        mw *= rng.uniform(0.5, 1.0, len(emg))
        gate = _smoothstep((t - P["muscle_delay"]) / 1.5) * off
        gate *= np.exp(0.35 * _band_noise(rng, n, 1, 0.1, 1.5, sfreq)[:, 0])
        m = _band_noise(rng, n, len(emg), 20.0, 90.0, sfreq) * (P["muscle"] * gate)[:, None]
        out[:n, emg] += (m * mw[None, :]).astype(np.float32)

    if n_post > 0:  # post-ictal slowing over the involved field, decaying
        out[n:, cols] += postictal_slowing(sz, rng, n_post, w, sfreq)

    # background gain on the control grid: replaced during the discharge, suppressed after
    m = int(math.ceil((D + sz.postictal_s) * CTRL_SFREQ)) + 2
    tc = np.arange(m) / CTRL_SFREQ
    gain = np.ones((m, N_ELECTRODES), dtype=np.float32)
    A_c = np.interp(tc, t, A / max(float(np.max(A)), 1e-9))
    if lvf > 0:
        A_c = np.maximum(A_c, (tc < D) * 1.0)  # electrodecrement from the first second
    ramp_c = _smoothstep((tc[:, None] - rec[None, :]) / tau)
    gain[:, cols] = 1.0 - (1.0 - P["bg_in"]) * ramp_c * A_c[:, None]
    if sz.postictal_s > 0:
        after = tc >= D
        rec_c = 1.0 - np.clip((tc[after] - D) / sz.postictal_s, 0, 1)
        g = gain[after]
        g[:, cols] = 1.0 - 0.45 * rec_c[:, None] * (w[None, :] / w.max())
        gain[after] = g
    return out, gain
