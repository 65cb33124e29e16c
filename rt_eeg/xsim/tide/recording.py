"""The recording chain of the tide generator: electrode artifacts (pops, single-electrode
drift, sweat), per-electrode gain and noise (impedance), mains interference and the
amplifier's high-pass filter."""

from __future__ import annotations

import numpy as np
from scipy import signal

from rt_eeg.xsim.tide import core
from rt_eeg.xsim.tide.core import add, vmf


def _electrodes(out, fs: float, rng, rate: float) -> list:
    n = out.shape[1]
    dur = n / fs
    events = []
    hours = dur / 3600.0
    # electrode pops: abrupt steps with an exponential return, on one electrode, in runs
    for _ in range(rng.poisson(1.0 * rate * hours)):
        ch = int(rng.integers(21))
        sign = 1.0 if rng.random() < 0.5 else -1.0
        for _ in range(int(rng.integers(1, 4))):
            a = float(rng.uniform(0, dur))
            d = float(rng.uniform(5.0, 120.0))
            times = np.sort(rng.uniform(a, min(dur, a + d), rng.poisson(d * rng.uniform(0.05, 0.5))))
            tau = rng.uniform(0.2, 1.5)
            m = int(5 * tau * fs)
            k = np.arange(m) / fs
            shape = np.minimum(1.0, k / 0.005) * np.exp(-k / tau)
            row = out[ch]
            for t in times:
                i = int(t * fs)
                j = min(n, i + m)
                amp = rng.uniform(50, 300) * sign
                row[i:j] += (shape[: j - i] * amp).astype(np.float32)
            if times.size:
                events.append((float(times[0]), float(times[-1]) + 1.0, "electrode_pop"))
    # slow drift of one electrode (loose contact, cable sway)
    for _ in range(rng.poisson(0.8 * rate * hours)):
        ch = int(rng.integers(21))
        a = float(rng.uniform(0, dur))
        d = float(min(dur - a, rng.uniform(30.0, 600.0)))
        m = int(d * fs)
        if m > 16:
            w = core.smooth_noise(m, fs, rng.uniform(0.05, 0.3), rng)
            w *= core.envelope(m, fs, 0, d, 2.0, 2.0) * rng.uniform(20, 80)
            out[ch, int(a * fs) : int(a * fs) + m] += w.astype(np.float32)
            events.append((a, a + d, "electrode_drift"))
    # sweat: very slow large sways over a cluster of electrodes
    for _ in range(rng.poisson(0.3 * rate * hours)):
        a = float(rng.uniform(0, dur))
        d = float(min(dur - a, rng.uniform(60.0, 600.0)))
        m = int(d * fs)
        if m > 16:
            w = core.smooth_noise(m, fs, rng.uniform(0.05, 0.2), rng)
            w *= core.envelope(m, fs, 0, d, 10.0, 10.0) * rng.uniform(30, 120)
            c = rng.standard_normal(3)
            c[0] = abs(c[0])  # forehead and temples sweat first
            field = vmf(c, rng.uniform(1.0, 3.0)) * rng.uniform(0.4, 1.0, 21)
            add(out, field, w, int(a * fs))
            events.append((a, a + d, "sweat"))
    return events


def render(out: np.ndarray, pt: dict, fs: float, rng) -> list:
    """Pass ``out`` through the electrodes and amplifier, in place.

    Parameters
    ----------
    out : ndarray of float32, shape (21, n)
    pt : dict
    fs : float
    rng : numpy.random.Generator

    Returns
    -------
    list of (float, float, str)
    """
    n = out.shape[1]
    events = _electrodes(out, fs, rng, pt["artifact_rate"])
    # impedance: a gain per electrode, and a noise floor that grows with impedance
    imp = rng.lognormal(0.0, 0.4, 21)
    gain = rng.lognormal(0.0, 0.08, 21).astype(np.float32)
    out *= gain[:, None]
    floor = rng.uniform(0.3, 1.2) * imp
    if rng.random() < 0.1:
        bad = int(rng.integers(21))
        floor[bad] *= rng.uniform(4.0, 12.0)
        events.append((0.0, n / fs, "noisy_electrode"))
    t = np.arange(n) / fs
    hz = pt["line_hz"]
    line = None
    if hz < 0.45 * fs:
        mod = 1.0 + 0.3 * core.smooth_noise(n, fs, 0.01, rng)
        ph = rng.uniform(0, 2 * np.pi)
        line = np.sin(2 * np.pi * hz * t + ph) * mod
        if 3 * hz < 0.45 * fs:
            line += 0.15 * np.sin(2 * np.pi * 3 * hz * t + 3 * ph) * mod
    line_amp = pt["line_amp"] * imp * float(rng.lognormal(0.0, 0.5))
    if rng.random() < 0.1:
        line_amp[int(rng.integers(21))] *= rng.uniform(5.0, 30.0)
    del t
    sos = signal.butter(1, float(rng.uniform(0.05, 0.3)), btype="highpass", fs=fs, output="sos")
    for i in range(21):
        x = out[i].astype(np.float64)
        x += floor[i] * (0.6 * rng.standard_normal(n) + 0.8 * core.aperiodic(n, fs, rng, 1.0))
        if line is not None:
            x += line_amp[i] * line
        # start the high-pass at the first sample's level (no switch-on transient)
        zi = signal.sosfilt_zi(sos) * x[: max(1, int(fs))].mean()
        out[i] = signal.sosfilt(sos, x, zi=zi)[0]
    return events
