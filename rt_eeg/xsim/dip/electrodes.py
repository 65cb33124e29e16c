"""The electrodes and the amplifier: contact noise and drift, mains interference through
impedance imbalance, pops, sweat, respiration on a lead, salt bridges, bad channels, the
common reference and the amplifier's high-pass.

Each electrode has an impedance (kOhm); mains pick-up, contact noise and drift grow with it,
so a poorly prepared electrode is the one that hums and wanders.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from rt_eeg.xsim.base import ELECTRODES

from .recording import Recording
from .signals import (
    CHUNK,
    add_at,
    add_mixed_noise,
    add_outer,
    ctrl_to_samples,
    filtered_noise,
    lognormal_mod,
    poisson_times,
    slow_noise,
    sos,
)

# Neighbouring pairs that gel can bridge.
_BRIDGES = [
    ("FP1", "F3"),
    ("F3", "C3"),
    ("C3", "P3"),
    ("P3", "O1"),
    ("FP2", "F4"),
    ("F4", "C4"),
    ("C4", "P4"),
    ("P4", "O2"),
    ("F3", "FZ"),
    ("F4", "FZ"),
    ("FZ", "CZ"),
    ("CZ", "PZ"),
    ("C3", "CZ"),
    ("C4", "CZ"),
    ("F7", "T3"),
    ("F8", "T4"),
    ("T3", "T5"),
    ("T4", "T6"),
]
_SCALP = [i for i, e in enumerate(ELECTRODES) if e not in ("A1", "A2")]


def _neighbours(rec: Recording, e: int, k: int) -> np.ndarray:
    return np.argsort(-(rec.head.elec @ rec.head.elec[e]))[:k]


def electrode_effects(rec: Recording, x: np.ndarray, rng) -> np.ndarray:
    """Apply contact and amplifier effects to the scalp potentials ``x`` (21, n), in place.

    Returns
    -------
    ndarray of float32, shape (21, n)
        The recorded signals against the common (average or linked-ear) reference.
    """
    fs, n, art = rec.fs, rec.n, rec.art
    ne = len(ELECTRODES)
    z = rng.lognormal(np.log(5.0), 0.45, ne) * rng.lognormal(0, 0.2)
    n_high = rng.poisson(0.35 * art)
    for e in rng.choice(_SCALP, size=min(int(n_high), 4), replace=False):
        z[e] *= rng.uniform(4, 12)
        rec.event(0.0, rec.duration, f"high_impedance_{ELECTRODES[e]}")
    # Contact noise (1/f) and drift, larger on high-impedance electrodes.
    add_mixed_noise(
        x,
        np.diag(0.6 * np.sqrt(z / 5.0)),
        sos("power", fs, 1.0, 0.5),
        np.ones(n, dtype=np.float32),
        rng,
        fs,
    )
    # Drift of the half-cell potentials (below ~0.3 Hz: made at the control rate).
    d_amp = rng.lognormal(np.log(5.0), 0.5) * (z / 5.0) ** 0.7
    for e in range(ne):
        x[e] += d_amp[e] * ctrl_to_samples(slow_noise(rng, rec.n_ctrl, 5.0), n, fs)
    _line_noise(rec, x, z, rng)
    _pops(rec, x, rng)
    _sweat_and_breathing(rec, x, rng)
    _bridge(rec, x, rng)
    flat = _bad_channel(rec, x, z, rng)
    # Common reference.
    if rng.random() < 0.25:
        ref = 0.5 * (x[ELECTRODES.index("A1")] + x[ELECTRODES.index("A2")])
    else:
        ref = x.mean(axis=0)
    x -= ref[None, :]
    if flat is not None:
        x[flat] = rng.normal(0, 0.5, n).astype(np.float32)
    # Amplifier high-pass (first order), a few tenths of a hertz or below.
    hp = signal.butter(1, rng.uniform(0.05, 0.3), "highpass", fs=fs, output="sos")
    zi = (signal.sosfilt_zi(hp)[:, None, :] * x[:, :1][None, :, :]).astype(np.float32)
    hp = hp.astype(np.float32)
    for a in range(0, n, CHUNK):
        b = min(n, a + CHUNK)
        x[:, a:b], zi = signal.sosfilt(hp, x[:, a:b], axis=1, zi=zi)
    return x


def _line_noise(rec: Recording, x: np.ndarray, z: np.ndarray, rng) -> None:
    """Mains pick-up: the common-mode field enters each lead in proportion to its
    impedance; a third harmonic where the sampling rate allows."""
    fs, n = rec.fs, rec.n
    f = rec.patient["habits"]["line_hz"]
    base = rng.lognormal(np.log(0.6), 1.0) * np.sqrt(rec.art)
    amp = base * z / 5.0
    phase = rng.normal(0, 0.3, len(z))
    t = np.arange(n) / fs
    mod = ctrl_to_samples(lognormal_mod(rng, rec.n_ctrl, 120.0, 0.3), n, fs)
    for k, rel in ((1, 1.0), (3, 0.15)):
        if k * f >= 0.45 * fs:
            continue
        s = (np.sin(2 * np.pi * k * f * t) * mod).astype(np.float32)
        c = (np.cos(2 * np.pi * k * f * t) * mod).astype(np.float32)
        add_outer(x, amp * rel * np.cos(k * phase), s)
        add_outer(x, amp * rel * np.sin(k * phase), c)
    if amp.max() > 5:
        rec.event(0.0, rec.duration, "line_noise")


def _pops(rec: Recording, x: np.ndarray, rng) -> None:
    """Electrode pops: a sudden jump of the electrode's half-cell potential that the
    electrode and amplifier then bleed off over a fraction of a second."""
    fs = rec.fs
    k = rng.poisson(0.5 * rec.art)
    for e in rng.choice(_SCALP, size=min(int(k), 3), replace=False):
        t = rng.uniform(0, rec.duration)
        while t < rec.duration:
            dur = rng.lognormal(np.log(60), 1.0)
            rate = rng.uniform(2, 20) / 60
            for tp in t + poisson_times(rng, lambda u, r=rate: np.full(len(u), r), dur, rate):
                tau = rng.uniform(0.08, 0.8)
                m = int(min(6 * tau, 4.0) * fs)
                tt = np.arange(m) / fs
                rise = rng.uniform(0.002, 0.012)
                w = (1 - np.exp(-tt / rise)) * np.exp(-tt / tau)
                add_at(
                    x[e : e + 1],
                    np.array([rng.choice([-1, 1]) * rng.lognormal(np.log(200), 0.6)]),
                    rec.idx(tp),
                    w,
                )
                rec.event(tp, tp + min(3 * tau, 2.0), f"electrode_pop_{ELECTRODES[e]}")
            t += dur + rng.lognormal(np.log(600), 1.0)


def _sweat_and_breathing(rec: Recording, x: np.ndarray, rng) -> None:
    """Sweat (very slow large swings over a region) and a lead moving with respiration."""
    fs, n, art = rec.fs, rec.n, rec.art
    long = rec.duration > 1800
    if rng.random() < (0.08 + 0.08 * art) * (1.5 if long else 1.0):
        e0 = int(rng.choice(_SCALP))
        near = _neighbours(rec, e0, int(rng.integers(3, 9)))
        t0 = rng.uniform(0, 0.7 * rec.duration)
        a = rec.idx(t0)
        m = n - a
        if m > 16:
            com = filtered_noise(rng, 1, m, sos("band", fs, 0.03, 0.3, order=1), fs)
            own = filtered_noise(rng, len(near), m, sos("band", fs, 0.03, 0.4, order=1), fs)
            grow = np.clip(np.arange(m) / (rng.uniform(60, 300) * fs), 0, 1).astype(np.float32)
            amp = rng.lognormal(np.log(60), 0.5)
            x[near, a:] += amp * grow * (0.7 * com + 0.5 * own)
            rec.event(t0, rec.duration, "sweat")
    if rng.random() < 0.1 * art:
        k = int(rng.integers(1, 4))
        near = _neighbours(rec, int(rng.choice(_SCALP)), k)
        t = np.arange(n) / fs
        f = rng.uniform(0.18, 0.4)
        ph = 2 * np.pi * f * t + 0.4 * np.sin(2 * np.pi * 0.01 * t)
        w = np.sin(ph) + 0.3 * np.sin(2 * ph)
        env = ctrl_to_samples(
            rec.plan.mix(
                {"n2": 1, "n3": 1, "rem": 0.7, "drowsy": 0.6, "wake_ec": 0.3, "wake_eo": 0.2}
            ),
            n,
            fs,
        )
        x[near] += np.outer(rng.uniform(15, 70, k), (w * env).astype(np.float32)).astype(np.float32)
        rec.event(0.0, rec.duration, "respiration_artifact")


def _bridge(rec: Recording, x: np.ndarray, rng) -> None:
    """A salt bridge: gel shorts two neighbours, which then read nearly the same."""
    if rng.random() >= 0.04 * (1 + 0.5 * rec.art):
        return
    a_name, b_name = _BRIDGES[int(rng.integers(len(_BRIDGES)))]
    a, b = ELECTRODES.index(a_name), ELECTRODES.index(b_name)
    s = rng.uniform(0.35, 0.49)
    t0 = 0.0 if rng.random() < 0.6 else rng.uniform(0, 0.8 * rec.duration)
    i = rec.idx(t0)
    xa, xb = x[a, i:].copy(), x[b, i:].copy()
    x[a, i:] = (1 - s) * xa + s * xb
    x[b, i:] = (1 - s) * xb + s * xa
    rec.event(t0, rec.duration, f"salt_bridge_{a_name}_{b_name}")


def _bad_channel(rec: Recording, x: np.ndarray, z: np.ndarray, rng):
    """A lead that comes off (noise and hum) or is shorted to the reference (flat)."""
    if rng.random() >= 0.07:
        return None
    fs, n = rec.fs, rec.n
    e = int(rng.choice(_SCALP))
    t0 = 0.0 if rng.random() < 0.5 else rng.uniform(0, 0.9 * rec.duration)
    i = rec.idx(t0)
    if rng.random() < 0.35 and i == 0:
        rec.event(0.0, rec.duration, f"flat_channel_{ELECTRODES[e]}")
        return e
    m = n - i
    junk = filtered_noise(rng, 1, m, sos("power", fs, 1.6, 0.3), fs)[0] * rng.uniform(20, 80)
    t = np.arange(m) / fs
    hum = rng.uniform(30, 300) * np.sin(
        2 * np.pi * rec.patient["habits"]["line_hz"] * t + rng.uniform(0, 6.3)
    )
    if rec.patient["habits"]["line_hz"] >= 0.45 * fs:
        hum = 0.0
    x[e, i:] = 0.2 * x[e, i:] + junk + hum
    rec.event(t0, rec.duration, f"bad_channel_{ELECTRODES[e]}")
    return None
