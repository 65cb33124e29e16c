"""Sensor-space artifacts: ocular, muscle, cardiac, electrode, movement and environmental.

Everything here is added to the scalp potentials after the lead field, in microvolts. Rates
scale with a per-recording artifact load (some recordings are artifact-heavy) and follow the
vigilance state (blinks when awake with eyes open, rolling eye movements when drowsy, rapid
eye movements in REM, movement at arousals).
"""

from __future__ import annotations

import numpy as np
from scipy.signal import butter, sosfilt

from rt_eeg.xsim.base import ELECTRODES

_E = {e: i for i, e in enumerate(ELECTRODES)}
N_EL = len(ELECTRODES)


def _w(d: dict[str, float], default: float = 0.0) -> np.ndarray:
    out = np.full(N_EL, default)
    for k, v in d.items():
        out[_E[k]] = v
    return out


#: Topographies (per electrode weight) of the artifact generators.
BLINK = _w({"FP1": 1, "FP2": 1, "F7": 0.45, "F8": 0.45, "F3": 0.4, "F4": 0.4, "FZ": 0.38,
            "C3": 0.12, "C4": 0.12, "CZ": 0.12, "T3": 0.08, "T4": 0.08}, 0.03)  # fmt: skip
LATERAL = _w({"F7": 1, "F8": -1, "FP1": 0.45, "FP2": -0.45, "T3": 0.3, "T4": -0.3,
              "F3": 0.2, "F4": -0.2, "A1": 0.15, "A2": -0.15})  # fmt: skip
MUSCLE = _w({"T3": 1, "T4": 1, "F7": 0.9, "F8": 0.9, "A1": 0.8, "A2": 0.8, "T5": 0.6,
             "T6": 0.6, "FP1": 0.6, "FP2": 0.6, "F3": 0.35, "F4": 0.35, "O1": 0.3,
             "O2": 0.3, "FZ": 0.25}, 0.15)  # fmt: skip
ECG = _w({"A1": 1.0, "T3": 0.45, "T5": 0.55, "O1": 0.3, "P3": 0.2, "C3": 0.15, "A2": -0.35,
          "T4": -0.15, "T6": -0.1, "F7": 0.25}, 0.05)  # fmt: skip
GLOSSO = _w({"FP1": 0.6, "FP2": 0.6, "F7": 0.8, "F8": 0.8, "T3": 0.7, "T4": 0.7, "A1": 0.9,
             "A2": 0.9, "F3": 0.4, "F4": 0.4}, 0.15)  # fmt: skip


def draw_traits(rng: np.random.Generator) -> dict:
    """Patient-fixed artifact habits."""
    return {
        "blink_rate": float(rng.uniform(4, 25)),
        "blink_amp": float(rng.uniform(80, 300)),
        "muscle_tone": float(
            rng.choice([0.0, rng.uniform(0.5, 3.0), rng.uniform(3, 10)], p=[0.5, 0.35, 0.15])
        ),
        "heart_rate": float(rng.uniform(55, 105)),
        "ecg_amp": float(
            rng.choice(
                [rng.uniform(0, 4), rng.uniform(4, 15), rng.uniform(15, 45)], p=[0.45, 0.4, 0.15]
            )
        ),
        "tremor": bool(rng.random() < 0.08),
        "tremor_hz": float(rng.uniform(4.0, 7.0)),
        "restless": float(rng.uniform(0.3, 2.0)),
        "line_hz": float(rng.choice([50.0, 60.0])),
    }


def _emg(rng: np.random.Generator, n: int, fs: float) -> np.ndarray:
    """Unit-rms surface EMG: broadband 20-~100 Hz noise with a motor-unit texture."""
    hi = min(0.45 * fs, 110.0)
    sos = butter(3, [18.0, hi], btype="bandpass", fs=fs, output="sos")
    x = sosfilt(sos, rng.standard_normal(n + 64) * (1 + 0.8 * rng.standard_normal(n + 64) ** 2))
    x = x[64:]
    return x / (x.std() + 1e-12)


def _env(n: int, edge: int) -> np.ndarray:
    e = np.ones(n)
    k = max(1, min(edge, n // 2))
    ramp = np.sin(np.linspace(0, np.pi / 2, k)) ** 2
    e[:k] = ramp
    e[n - k :] = ramp[::-1]
    return e


def _put(eeg: np.ndarray, i0: int, block: np.ndarray) -> None:
    """Add block (n_el, m) at sample i0, clipped."""
    n = eeg.shape[1]
    a, b = max(0, i0), min(n, i0 + block.shape[1])
    if b > a:
        eeg[:, a:b] += block[:, a - i0 : b - i0]


def _times(rng: np.random.Generator, rate_per_min: float, t0: float, t1: float) -> np.ndarray:
    n = rng.poisson(max(rate_per_min, 0.0) / 60.0 * max(t1 - t0, 0.0))
    return np.sort(rng.uniform(t0, t1, n))


def add_artifacts(
    rng: np.random.Generator,
    eeg: np.ndarray,
    fs: float,
    states: list,
    eyes_open,
    seizures: list,
    tr: dict,
    load: float,
    events: list,
) -> None:
    """Add every artifact family to ``eeg`` (21, n) in place and log them in ``events``.

    ``eyes_open(t)`` returns True where an awake patient has the eyes open; ``seizures``
    are the seizure plans (for ictal muscle and automatisms).
    """
    n = eeg.shape[1]
    dur = n / fs
    el_gain = rng.uniform(0.8, 1.2, N_EL)

    def log(t0: float, t1: float, kind: str) -> None:
        events.append((float(max(0.0, t0)), float(min(dur, t1)), kind))

    # ---- ocular ----
    for t0, t1, st in states:
        t1 = min(t1, dur)
        if st == "awake":
            for ts in _times(rng, tr["blink_rate"] * load**0.5, t0, t1):
                if not eyes_open(ts) and rng.random() > 0.08:
                    continue
                k = 1 if rng.random() > 0.12 else int(rng.integers(2, 6))  # flutter
                for j in range(k):
                    m = int(rng.uniform(0.25, 0.45) * fs)
                    x = np.linspace(0, 1, m)
                    wave = x**1.5 * np.exp(-((x / 0.35) ** 1.2)) * 4.4
                    amp = tr["blink_amp"] * rng.uniform(0.6, 1.3)
                    topo = BLINK * (1 + rng.normal(0, 0.08, N_EL))
                    _put(
                        eeg,
                        int((ts + j * rng.uniform(0.22, 0.32)) * fs),
                        amp * topo[:, None] * wave[None, :],
                    )
                log(ts, ts + 0.4 * k, "eye_blink" if k == 1 else "eye_flutter")
            for ts in _times(rng, 4.0 * load**0.5, t0, t1):
                if not eyes_open(ts):
                    continue
                hold = rng.uniform(0.3, 3.0)
                m = int((hold + 0.2) * fs)
                step = np.clip(np.arange(m) / (0.04 * fs), 0, 1) * np.clip(
                    (m - np.arange(m)) / (0.06 * fs), 0, 1
                )
                amp = rng.choice([-1, 1]) * rng.uniform(30, 120)
                _put(eeg, int(ts * fs), amp * LATERAL[:, None] * step[None, :])
                log(ts, ts + hold, "lateral_eye_movement")
        if st in ("drowsy", "n2") and rng.random() < (0.8 if st == "drowsy" else 0.2):
            ts = rng.uniform(t0, max(t0, t1 - 20))
            d = min(rng.uniform(10, 60), t1 - ts)
            m = int(d * fs)
            if m > fs:
                f = rng.uniform(0.15, 0.5)
                ph = np.cumsum(2 * np.pi * f * (1 + 0.3 * np.sin(np.arange(m) / fs * 0.7)) / fs)
                wave = np.sin(ph) * _env(m, int(2 * fs)) * rng.uniform(40, 140)
                _put(eeg, int(ts * fs), LATERAL[:, None] * wave[None, :])
                log(ts, ts + d, "slow_rolling_eye_movements")
        if st == "rem":
            for ts in _times(rng, 6.0, t0, t1):
                k = int(rng.integers(1, 5))
                for j in range(k):
                    m = int(rng.uniform(0.3, 1.0) * fs)
                    step = np.clip(np.arange(m) / (0.05 * fs), 0, 1) * np.exp(
                        -np.arange(m) / (0.6 * fs)
                    )
                    amp = rng.choice([-1, 1]) * rng.uniform(40, 110)
                    topo = LATERAL + 0.4 * BLINK * rng.uniform(-1, 1)
                    _put(eeg, int((ts + 0.5 * j) * fs), amp * topo[:, None] * step[None, :])
                log(ts, ts + 0.5 * k, "rapid_eye_movements")

    # ---- muscle ----
    wake_frac = lambda st: {"awake": 1.0, "drowsy": 0.4, "rem": 0.1}.get(st, 0.15)  # noqa: E731
    for t0, t1, st in states:
        t1 = min(t1, dur)
        for ts in _times(rng, 3.0 * load * tr["restless"] * wake_frac(st), t0, t1):
            d = float(rng.choice([rng.uniform(0.3, 2.0), rng.uniform(2, 12)], p=[0.6, 0.4]))
            m = int(d * fs)
            side = rng.uniform(0.3, 1.0, 2)
            topo = MUSCLE * np.where(
                np.isin(
                    np.arange(N_EL),
                    [_E[e] for e in ("FP1", "F3", "F7", "T3", "T5", "C3", "P3", "O1", "A1")],
                ),
                side[0],
                side[1],
            )
            topo = topo * rng.uniform(0.5, 1.5, N_EL)
            amp = rng.lognormal(np.log(18), 0.6) * load**0.3
            wave = _emg(rng, m, fs) * _env(m, int(0.1 * fs)) * amp
            _put(eeg, int(ts * fs), topo[:, None] * wave[None, :])
            log(ts, ts + d, "muscle")
        for ts in _times(rng, 0.4 * load * wake_frac(st), t0, t1):
            d = rng.uniform(3, 25)
            m = int(d * fs)
            f = rng.uniform(0.9, 2.0)
            tt = np.arange(m) / fs
            gate = (np.sin(2 * np.pi * f * tt) > rng.uniform(0.2, 0.6)).astype(float)
            gate = np.convolve(gate, np.hanning(int(0.04 * fs) + 2) / (0.02 * fs + 1), mode="same")
            amp = rng.uniform(20, 70)
            wave = _emg(rng, m, fs) * gate * amp * _env(m, int(0.3 * fs))
            slow = np.sin(2 * np.pi * f * tt + 1.0) * rng.uniform(5, 30) * _env(m, int(0.3 * fs))
            _put(
                eeg, int(ts * fs), MUSCLE[:, None] * wave[None, :] + GLOSSO[:, None] * slow[None, :]
            )
            log(ts, ts + d, "chewing")
        for ts in _times(rng, 0.5 * load * tr["restless"] * wake_frac(st), t0, t1):
            d = rng.uniform(1, 10)
            m = int(d * fs)
            sos = butter(2, [0.3, 4.0], btype="bandpass", fs=fs, output="sos")
            slow = sosfilt(
                sos, rng.standard_normal((N_EL, m)) + 2.5 * rng.standard_normal(m)[None, :], axis=1
            )
            slow /= slow.std() + 1e-12
            amp = rng.uniform(60, 300) * load**0.3
            topo = rng.uniform(0.2, 1.2, N_EL)
            block = slow * amp * topo[:, None] * _env(m, int(0.3 * fs))[None, :]
            block += (
                MUSCLE[:, None]
                * _emg(rng, m, fs)[None, :]
                * rng.uniform(15, 60)
                * _env(m, int(0.2 * fs))[None, :]
            )
            _put(eeg, int(ts * fs), block)
            log(ts, ts + d, "movement")
        if st in ("awake", "drowsy"):
            for ts in _times(rng, 0.3 * load, t0, t1):
                d = rng.uniform(1, 5)
                m = int(d * fs)
                sos = butter(2, [1.5, 4.0], btype="bandpass", fs=fs, output="sos")
                x = sosfilt(sos, rng.standard_normal(m))
                x = x / (x.std() + 1e-12) * rng.uniform(20, 60) * _env(m, int(0.3 * fs))
                _put(eeg, int(ts * fs), GLOSSO[:, None] * x[None, :])
                log(ts, ts + d, "glossokinetic")
    if tr["muscle_tone"] > 0:
        # Tonic scalp-muscle tension: continuous low-level EMG, strongest temporally.
        blk = int(60 * fs)
        for a in range(0, n, blk):
            m = min(blk, n - a)
            eeg[:, a : a + m] += (MUSCLE * tr["muscle_tone"] * rng.uniform(0.3, 1.0))[
                :, None
            ] * _emg(rng, m, fs)[None, :]

    # ---- ictal muscle and automatisms ----
    for sz in seizures:
        a, b = sz["start"], sz["stop"]
        if sz["emg"]:
            t_on = a + (b - a) * (0.0 if sz["kind"] == "gtc" else rng.uniform(0.1, 0.5))
            d = b - t_on + rng.uniform(0, 3)
            m = int(d * fs)
            amp = (
                rng.uniform(25, 120)
                if sz["kind"] in ("gtc",) or sz["label"] == "focal_to_bilateral"
                else rng.uniform(8, 40)
            )
            env = _env(m, int(1.0 * fs))
            if sz["kind"] == "gtc":
                # Tonic contraction, then clonic jerks separated by relaxation.
                tt = np.arange(m) / fs
                t_cl = sz["clonic_u"] * (b - a) - (t_on - a)
                f = np.where(
                    tt < t_cl, 0.0, 2.5 - 1.7 * np.clip((tt - t_cl) / max(d - t_cl, 1), 0, 1)
                )
                ph = np.cumsum(2 * np.pi * f / fs)
                jerk = np.where(tt < t_cl, 1.0, (np.cos(ph) > 0.3).astype(float))
                env = env * jerk
            _put(
                eeg,
                int(t_on * fs),
                (MUSCLE * rng.uniform(0.6, 1.4, N_EL))[:, None]
                * (_emg(rng, m, fs) * env * amp)[None, :],
            )
            log(t_on, t_on + d, "ictal_muscle")
        if sz["automatisms"]:
            t_on = a + (b - a) * rng.uniform(0.2, 0.6)
            d = min(b - t_on + rng.uniform(2, 15), dur - t_on)
            m = int(d * fs)
            if m > fs:
                f = rng.uniform(1.0, 2.0)
                tt = np.arange(m) / fs
                gate = (np.sin(2 * np.pi * f * tt) > 0.3).astype(float)
                wave = _emg(rng, m, fs) * gate * rng.uniform(15, 50) * _env(m, int(0.5 * fs))
                slow = np.sin(2 * np.pi * f * tt) * rng.uniform(10, 40) * _env(m, int(0.5 * fs))
                _put(
                    eeg,
                    int(t_on * fs),
                    MUSCLE[:, None] * wave[None, :] + GLOSSO[:, None] * slow[None, :],
                )
                log(t_on, t_on + d, "automatism_artifact")

    # ---- rhythmic non-cerebral ----
    if rng.random() < 0.12 * load:
        ts = rng.uniform(0, dur)
        d = rng.uniform(10, 90)
        m = int(min(d, dur - ts) * fs)
        if m > fs:
            f = rng.uniform(1.0, 3.5)
            tt = np.arange(m) / fs
            wave = np.sign(np.sin(2 * np.pi * f * tt)) * np.abs(np.sin(2 * np.pi * f * tt)) ** 0.5
            sos = butter(2, 12.0, fs=fs, output="sos")
            wave = sosfilt(sos, wave) * rng.uniform(40, 200) * _env(m, int(fs))
            topo = np.zeros(N_EL)
            idx = rng.choice(N_EL, int(rng.integers(2, 8)), replace=False)
            topo[idx] = rng.uniform(0.5, 1.0, len(idx)) * rng.choice([-1, 1], len(idx))
            _put(eeg, int(ts * fs), topo[:, None] * wave[None, :])
            log(ts, ts + m / fs, "patting_rhythmic")
    if tr["tremor"]:
        for ts in _times(rng, 0.6, 0, dur):
            d = rng.uniform(5, 40)
            m = int(d * fs)
            tt = np.arange(m) / fs
            f = tr["tremor_hz"] * (1 + 0.03 * np.sin(tt * 0.5))
            wave = np.sin(np.cumsum(2 * np.pi * f / fs)) * rng.uniform(15, 60) * _env(m, int(fs))
            topo = rng.uniform(0, 1, N_EL) ** 3
            _put(eeg, int(ts * fs), topo[:, None] * wave[None, :])
            log(ts, ts + d, "tremor")

    # ---- cardiac ----
    hr = tr["heart_rate"] / 60.0
    if tr["ecg_amp"] > 0.5 or rng.random() < 0.15:
        beats = [rng.uniform(0, 1 / hr)]
        while beats[-1] < dur:
            beats.append(
                beats[-1] + (1 / hr) * (1 + 0.04 * np.sin(beats[-1] * 1.6) + rng.normal(0, 0.02))
            )
        m = int(0.3 * fs)
        tt = np.arange(m) / fs - 0.08
        qrs = (
            -0.15 * np.exp(-(((tt + 0.02) / 0.008) ** 2))
            + np.exp(-((tt / 0.011) ** 2))
            - 0.3 * np.exp(-(((tt - 0.025) / 0.012) ** 2))
        )
        qrs += 0.25 * np.exp(-(((tt - 0.2) / 0.04) ** 2))
        spike = np.zeros(n, dtype=np.float32)
        for bt in beats:
            i0 = int(bt * fs)
            if i0 + m < n:
                spike[i0 : i0 + m] += qrs
        topo = ECG * tr["ecg_amp"] * rng.uniform(0.7, 1.3, N_EL)
        for ch in range(N_EL):
            eeg[ch] += np.float32(topo[ch]) * spike
        log(0, dur, "ecg")
        if rng.random() < 0.15:
            pulse = np.zeros(n)
            pm = int(0.6 * fs)
            pw = np.sin(np.linspace(0, np.pi, pm)) ** 2 * np.exp(-np.linspace(0, 2, pm))
            for bt in beats:
                i0 = int((bt + 0.2) * fs)
                if i0 + pm < n:
                    pulse[i0 : i0 + pm] += pw
            el = int(rng.integers(N_EL))
            eeg[el] += (pulse * rng.uniform(15, 50)).astype(eeg.dtype)
            log(0, dur, f"pulse_artifact_{ELECTRODES[el]}")

    # ---- electrode ----
    n_pop_el = rng.poisson(0.6 * load)
    for _ in range(n_pop_el):
        el = int(rng.integers(N_EL))
        for ts in _times(rng, rng.uniform(0.3, 4.0), 0, dur):
            m = int(rng.uniform(0.3, 2.0) * fs)
            tau = rng.uniform(0.05, 0.5)
            wave = np.exp(-np.arange(m) / (tau * fs)) * rng.choice([-1, 1]) * rng.uniform(50, 600)
            wave[: max(1, int(0.005 * fs))] *= np.linspace(0, 1, max(1, int(0.005 * fs)))
            block = np.zeros((N_EL, m))
            block[el] = wave
            _put(eeg, int(ts * fs), block)
            log(ts, ts + m / fs, f"electrode_pop_{ELECTRODES[el]}")
    n_sweat = rng.poisson(0.7 * load)
    for _ in range(n_sweat):
        ts = rng.uniform(0, dur)
        d = min(rng.uniform(30, 400), dur - ts)
        m = int(d * fs)
        if m < 2 * fs:
            continue
        sos = butter(1, [0.03, rng.uniform(0.15, 0.5)], btype="bandpass", fs=fs, output="sos")
        x = sosfilt(sos, rng.standard_normal(m + int(30 * fs)))[int(30 * fs) :]
        x = x / (x.std() + 1e-12) * rng.uniform(20, 150) * _env(m, int(5 * fs))
        topo = np.zeros(N_EL)
        idx = rng.choice(N_EL, int(rng.integers(1, 6)), replace=False)
        topo[idx] = rng.uniform(0.5, 1.0, len(idx))
        _put(eeg, int(ts * fs), topo[:, None] * x[None, :])
        log(ts, ts + d, "sweat_drift")
    if rng.random() < 0.15 * load:
        ts = rng.uniform(0, dur)
        d = min(rng.uniform(30, 300), dur - ts)
        m = int(d * fs)
        if m > fs:
            f = rng.uniform(0.2, 0.4)
            wave = (
                np.sin(2 * np.pi * f * np.arange(m) / fs)
                * rng.uniform(20, 80)
                * _env(m, int(3 * fs))
            )
            el = int(rng.integers(N_EL))
            block = np.zeros((N_EL, m))
            block[el] = wave
            _put(eeg, int(ts * fs), block)
            log(ts, ts + d, "respiration")

    # ---- environment and amplifier ----
    line = tr["line_hz"]
    if line < 0.5 * fs:
        amp = rng.lognormal(np.log(0.8), 0.8, N_EL) * (1.0 if rng.random() < 0.7 else 5.0)
        ph = rng.uniform(0, 0.4, N_EL)
        tt = np.arange(n) / fs
        carrier = np.sin(2 * np.pi * line * tt).astype(np.float32)
        carrier2 = np.cos(2 * np.pi * line * tt).astype(np.float32)
        del tt
        for ch in range(N_EL):
            eeg[ch] += np.float32(amp[ch] * np.cos(ph[ch])) * carrier
            eeg[ch] += np.float32(amp[ch] * np.sin(ph[ch])) * carrier2
    # Amplifier and electrode noise, then per-electrode gain (impedance, amplifier spread).
    sd = rng.uniform(0.5, 1.5, N_EL)
    for ch in range(N_EL):
        eeg[ch] += rng.standard_normal(n, dtype=np.float32) * np.float32(sd[ch])
        eeg[ch] *= np.float32(el_gain[ch])


def bad_channels(
    rng: np.random.Generator, eeg: np.ndarray, fs: float, load: float, events: list
) -> None:
    """Occasionally a flat, noisy, or salt-bridged electrode for the whole recording."""
    n = eeg.shape[1]
    dur = n / fs
    if rng.random() < 0.06 * load:
        el = int(rng.integers(N_EL))
        eeg[el] = eeg[el] * 0.02 + rng.standard_normal(n).astype(eeg.dtype) * 0.5
        events.append((0.0, dur, f"flat_channel_{ELECTRODES[el]}"))
    if rng.random() < 0.08 * load:
        el = int(rng.integers(N_EL))
        sos = butter(2, [1.0, 0.45 * fs], btype="bandpass", fs=fs, output="sos")
        eeg[el] += (sosfilt(sos, rng.standard_normal(n)) * rng.uniform(15, 60)).astype(eeg.dtype)
        events.append((0.0, dur, f"noisy_channel_{ELECTRODES[el]}"))
    if rng.random() < 0.04 * load:
        pairs = [("F3", "C3"), ("F4", "C4"), ("C3", "P3"), ("C4", "P4"), ("FZ", "CZ"), ("T3", "T5")]
        a, b = pairs[int(rng.integers(len(pairs)))]
        m = 0.5 * (eeg[_E[a]] + eeg[_E[b]])
        eeg[_E[a]] = m
        eeg[_E[b]] = m
        events.append((0.0, dur, f"salt_bridge_{a}_{b}"))
