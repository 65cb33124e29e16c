"""Background activity of the tide generator: aperiodic activity, state-gated resonators
(posterior alpha, beta, mu, frontocentral theta, frontal delta, focal and diffuse slowing)
and sleep transients (spindles, K-complexes, vertex waves, POSTS, REM sawtooth waves).

Amplitudes are clinical peak-to-peak microvolts; a narrow-band Gaussian rhythm of RMS
``r`` reads as roughly ``3 r`` peak to peak, hence the ``/ 3`` below.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.tide import core
from rt_eeg.xsim.tide.core import add, direction, place, poisson_times, vmf
from rt_eeg.xsim.tide.vigilance import DT, STATES, Vigilance

_ALPHA_TABLE = 0.75 * core.TABLES["sine"] + 0.25 * core.TABLES["arch"]


def _aperiodic(out, amp: float, vig: Vigilance, fs: float, rng) -> None:
    """Spatially smooth scale-free activity: broad latent sources plus a local part."""
    n = out.shape[1]
    sleep = 1.0 + 0.6 * vig.at("delta", n, fs)
    for _ in range(6):
        c = rng.standard_normal(3)
        c[2] = abs(c[2]) + 0.3
        src = core.aperiodic(n, fs, rng, slope=float(rng.uniform(1.3, 1.9)))
        add(out, vmf(c, float(rng.uniform(1.0, 3.0))), src * sleep * amp * 2.5)
    for i in range(out.shape[0]):
        loc = core.aperiodic(n, fs, rng, slope=float(rng.uniform(1.0, 1.6)))
        out[i] += (loc * amp * 2.0).astype(np.float32)


def _sites(out, freq: float, bw: float, where, kappa: float, shared: float, gain, fs: float,
           rng) -> None:  # fmt: skip
    """One rhythm from several partly coherent generators at the named electrodes: a shared
    resonator (share ``shared`` of the variance) plus an independent one per site. Unlike
    one broad field, this survives bipolar montages, as real background does."""
    n = out.shape[1]
    common = core.resonator(freq, bw, n, fs, rng).real * np.sqrt(shared)
    w = np.sqrt((1.0 - shared) / len(where) * 3.0)
    for ch in where:
        z = common + w * core.resonator(freq * rng.uniform(0.9, 1.1), bw, n, fs, rng).real
        c = direction(ch, jitter=0.1, rng=rng)
        add(out, vmf(c, kappa), z * gain * rng.uniform(0.7, 1.2))


def _rhythms(out, pt: dict, amp: float, vig: Vigilance, fs: float, rng) -> None:
    n = out.shape[1]
    # posterior dominant rhythm: one shared resonator plus a hemispheric difference, with
    # the drowsy slowing and a slow wander of the frequency
    f = pt["alpha_f"] + vig.at("alpha_df", n, fs) + 0.2 * core.smooth_noise(n, fs, 0.01, rng)
    f = np.maximum(f, 5.0)
    zc = core.resonator(f, pt["alpha_bw"], n, fs, rng)
    zd = core.resonator(f, pt["alpha_bw"] * 1.5, n, fs, rng)
    g = vig.at("alpha", n, fs) * pt["alpha_amp"] / 3.0 * amp
    k = pt["alpha_kappa"]
    add(out, vmf(direction("O1"), k), g * core.resonator_wave(zc + 0.45 * zd, _ALPHA_TABLE))
    add(out, vmf(direction("O2"), k) * pt["alpha_asym"],
        g * core.resonator_wave(zc - 0.45 * zd, _ALPHA_TABLE))  # fmt: skip
    del zc, zd
    # frontocentral beta (benzodiazepines make it larger)
    _sites(out, pt["beta_f"], 5.0, ("F3", "F4", "FZ", "C3", "C4"), 3.0, 0.2,
           vig.at("beta", n, fs) * pt["beta_amp"] / 3.0 * amp, fs, rng)  # fmt: skip
    # mu: arciform central rhythm, blocked intermittently (movement, intention)
    if pt["mu"]:
        gate = vig.at("mu", n, fs) * (core.smooth_noise(n, fs, 0.05, rng) > -0.3)
        for ch in ("C3", "C4"):
            z = core.resonator(pt["mu_f"], 0.8, n, fs, rng)
            w = core.resonator_wave(z, core.TABLES["arch"]) * gate * pt["mu_amp"] / 3.0 * amp
            add(out, vmf(direction(ch), 5.0), w)
    enc = pt["enceph"]
    # theta of drowsiness and encephalopathy, frontocentral
    g = (vig.at("theta", n, fs) + 0.8 * enc) * pt["theta_amp"] / 3.0 * amp
    _sites(out, float(rng.uniform(4.5, 6.5)), 2.5, ("FZ", "F3", "F4", "CZ", "C3", "C4"),
           2.5, 0.4, g, fs, rng)  # fmt: skip
    # delta: frontal-dominant slow waves of deep sleep, partly independent generators
    gd = (vig.at("delta", n, fs) + 0.35 * enc) * pt["delta_amp"] / 3.0 * amp
    _sites(out, float(rng.uniform(0.8, 1.3)), 1.5,
           ("FZ", "FP1", "FP2", "F3", "F4", "F7", "F8", "CZ"), 2.5, 0.35, gd, fs, rng)
    _sites(out, float(rng.uniform(1.2, 2.2)), 2.0, ("PZ", "P3", "P4", "T5", "T6"), 2.5, 0.3,
           gd * 0.4, fs, rng)  # fmt: skip
    fs_tr = pt["focal_slowing"]
    if fs_tr:
        z = core.resonator(float(rng.uniform(1.0, 2.5)), 2.0, n, fs, rng).real
        g = (0.6 + 0.4 * vig.at("drowsy", n, fs)) * fs_tr["amp"] / 3.0 * amp
        g = g * (0.75 + 0.25 * core.smooth_noise(n, fs, 0.02, rng))
        add(out, vmf(fs_tr["dir"], 3.0), z * g)


def _kcomplex(fs: float, rng) -> np.ndarray:
    t = np.arange(int(1.2 * fs)) / fs
    w = (-np.exp(-0.5 * ((t - 0.3) / rng.uniform(0.07, 0.12)) ** 2)
         + 0.55 * np.exp(-0.5 * ((t - 0.75) / rng.uniform(0.15, 0.22)) ** 2))  # fmt: skip
    return w


def _spindle(fs: float, f: float, rng) -> np.ndarray:
    d = float(rng.uniform(0.5, 2.0))
    t = np.arange(int(d * fs)) / fs
    f_t = f + rng.uniform(-0.3, 0.3) + rng.uniform(-0.5, 0.5) * t / d
    ph = 2 * np.pi * np.cumsum(f_t) / fs + rng.uniform(0, 2 * np.pi)
    return core.hann_burst(t.size) ** 1.5 * np.sin(ph)


def _triangle(fs: float, width_s: float) -> np.ndarray:
    m = max(3, int(width_s * fs))
    return np.bartlett(m) ** 1.5


def _transients(out, pt: dict, amp: float, vig: Vigilance, fs: float, rng) -> list:
    n = out.shape[1]
    events = []
    r_kc, r_sp, r_sp1, r_sp2, r_vx, r_po, r_rem, r_ps = core.fork(rng, 8)
    rng = r_kc
    # K-complexes, a third followed by a spindle
    kc_t = poisson_times(vig.tick("kc"), DT, rng)
    train = np.zeros(n)
    for t in kc_t:
        place(train, t, fs, _kcomplex(fs, rng) * pt["kc_amp"] * rng.uniform(0.6, 1.2) * amp)
    add(out, vmf(direction("FZ", "CZ"), 1.5), train)
    events += [(float(t), float(t) + 1.2, "k_complex") for t in kc_t]
    # spindles: slower frontal and faster centroparietal
    sp_t = np.sort(np.concatenate([poisson_times(vig.tick("spindle"), DT, r_sp),
                                   kc_t[r_sp.random(kc_t.size) < 0.35] + 0.6]))  # fmt: skip
    for shift, where, rng in ((-1.3, ("FZ", "F3", "F4"), r_sp1),
                              (0.3, ("CZ", "PZ", "C3", "C4"), r_sp2)):  # fmt: skip
        train = np.zeros(n)
        r_keep, rng = core.fork(rng, 2)
        for t in sp_t[r_keep.random(sp_t.size) < 0.5]:
            w = _spindle(fs, pt["spindle_f"] + shift, rng)
            place(train, t, fs, w * pt["spindle_amp"] * 0.5 * rng.uniform(0.5, 1.2) * amp)
        add(out, vmf(direction(*where), 2.5), train)
    # vertex waves: sharp negative at the vertex
    rng = r_vx
    train = np.zeros(n)
    for t in poisson_times(vig.tick("vertex"), DT, rng):
        w = -_triangle(fs, rng.uniform(0.12, 0.25))
        place(train, t, fs, w * pt["vertex_amp"] * rng.uniform(0.6, 1.2) * amp)
    add(out, vmf(direction("CZ"), 3.5), train)
    # POSTS: surface-positive occipital sharp transients in short 4-5 Hz runs
    if pt["posts_amp"] > 0:
        rng = r_po
        train = np.zeros(n)
        for t in poisson_times(vig.tick("posts"), DT, rng):
            per = 1.0 / rng.uniform(4.0, 5.5)
            for j in range(int(rng.integers(1, 6))):
                place(train, t + j * per, fs, _triangle(fs, rng.uniform(0.08, 0.14))
                      * pt["posts_amp"] * rng.uniform(0.6, 1.1) * amp)  # fmt: skip
        add(out, vmf(direction("O1", "O2"), 4.0), train)
    # REM sawtooth waves: short runs of 2-3 Hz triangular central waves
    rng = r_rem
    train = np.zeros(n)
    for t in poisson_times(vig.tick("rem_eye") * 0.2, DT, rng):
        f = rng.uniform(2.0, 3.0)
        d = rng.uniform(1.5, 4.0)
        tt = np.arange(int(d * fs)) / fs
        saw = 2.0 * np.mod(tt * f, 1.0) - 1.0
        place(train, t, fs, saw * core.hann_burst(tt.size) * rng.uniform(20, 50) * amp)
    add(out, vmf(direction("CZ", "FZ"), 2.0), train)
    # posterior slow waves of youth, fused with the alpha when the eyes are closed
    if pt["variants"]["pswy"]:
        rng = r_ps
        train = np.zeros(n)
        rate = vig.tick("alpha") * (vig.state == STATES.index("awake_ec")) * 0.08
        for t in poisson_times(rate, DT, rng):
            w = -np.hanning(int(rng.uniform(0.25, 0.4) * fs))
            place(train, t, fs, w * pt["alpha_amp"] * rng.uniform(0.6, 1.2) * amp)
        add(out, vmf(direction("O1", "O2"), 3.0), train)
    return events


def render(out: np.ndarray, pt: dict, amp: float, vig: Vigilance, fs: float, rng) -> list:
    """Add the background to ``out``.

    Parameters
    ----------
    out : ndarray of float32, shape (21, n)
    pt : dict
        Patient traits.
    amp : float
        Recording amplitude scale.
    vig : Vigilance
    fs : float
    rng : numpy.random.Generator

    Returns
    -------
    list of (float, float, str)
        Sleep transients and state segments.
    """
    _aperiodic(out, amp, vig, fs, rng)
    _rhythms(out, pt, amp, vig, fs, rng)
    events = _transients(out, pt, amp, vig, fs, rng)
    # state segments, for error analysis
    st = vig.state
    edges = np.concatenate([[0], np.flatnonzero(np.diff(st)) + 1, [st.size]])
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        events.append((a * DT, min(b * DT, out.shape[1] / fs), "state_" + STATES[st[a]]))
    return events
