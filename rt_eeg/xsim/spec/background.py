"""Ongoing background: state-dependent multichannel coloured Gaussian noise.

Each component (aperiodic 1/f, posterior alpha, drowsy slowed alpha, theta, delta, beta, focal
polymorphic delta, amplifier floor) is a stationary Gaussian process with its own power
spectrum and spatial covariance ``diag(topo) R diag(topo)`` with ``R = exp(-d/length)``
(coherence falls with distance; slower bands are more coherent). Components are synthesised
in the frequency domain in long blocks joined by equal-power cross-fades (which keep the
spectrum and variance of independent blocks), then scaled by slow gains on the coarse grid:
vigilance-state weights times log-normal fluctuations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import fft as sfft

from . import geometry as geo
from .signals import (
    DT,
    gauss_peak,
    lowpass_edge,
    ou,
    spectrum_amp,
    upsample,
)
from .vigilance import N2, D, R, W


@dataclass
class Component:
    """One background process: spectrum, coherent spatial mixing per band, coarse gain."""

    name: str
    psd: object  # callable f -> power
    bands: list  # [(f_lo, f_hi, mixer 21x21)], mixer includes topography (uV)
    gain: np.ndarray  # coarse grid
    lateral: np.ndarray | None = None  # (21,) weights of a fluctuating left/right imbalance
    lateral_gain: np.ndarray | None = None
    _cache: dict = field(default_factory=dict)

    def block(self, rng, n: int, sfreq: float) -> np.ndarray:
        """A (21, n) float32 block of this process with unit gain."""
        n_fft = sfft.next_fast_len(n)
        key = n_fft
        if key not in self._cache:
            f = np.fft.rfftfreq(n_fft, 1.0 / sfreq)
            amp = spectrum_amp(self.psd(f), n_fft)
            sel = []
            thr = amp.max() * 1e-3
            for lo, hi, mixer in self.bands:
                idx = np.nonzero((f >= lo) & (f < hi) & (amp > thr))[0]
                if idx.size:
                    diag = np.allclose(mixer, np.diag(np.diag(mixer)))
                    m = np.diag(mixer)[:, None] if diag else mixer
                    # Circular complex Gaussian: real and imaginary parts of variance 1/2.
                    a = np.repeat(amp[idx] * np.sqrt(0.5), 2).astype(np.float32)
                    sel.append((idx, a, m.astype(np.float32), diag))
            self._cache = {key: (f.size, sel)}
        nf, sel = self._cache[key]
        y = np.zeros((geo.N_CH, nf), np.complex64)
        for idx, a, m, diag in sel:
            z = rng.standard_normal((geo.N_CH, 2 * idx.size), dtype=np.float32)
            z *= a
            # A real mixing matrix acts on real and imaginary parts alike (interleaved view).
            z = z * m if diag else m @ z
            y[:, idx] = z.view(np.complex64)
        return sfft.irfft(y, n_fft, axis=-1)[:, :n].astype(np.float32, copy=False)


def _mixer(topo_uv: np.ndarray, length: float, nugget: float) -> np.ndarray:
    return topo_uv[:, None] * geo.coherence_mixer(length, nugget)


def _fluct(rng, n_c: int, tau: float, sigma: float) -> np.ndarray:
    return np.exp(sigma * ou(rng, n_c, DT, tau) - 0.5 * sigma**2)


def build(rng, patient: dict, tl: dict, sfreq: float) -> list[Component]:
    """The background components of one recording (gains follow the vigilance timeline)."""
    bg = patient["background"]
    enc = bg["encephalopathy"]
    w = tl["weights"].astype(float)
    n_c = tl["n_c"]
    eyes = tl["eyes_open"].astype(float)
    ad = tl["alpha_drowsy"].astype(float)
    nyq_edge = 0.42 * sfreq

    # Local modifiers of fast rhythms: attenuated over a lesion, enhanced over a skull breach.
    fast_mod = np.ones(geo.N_CH)
    slow_mod = np.ones(geo.N_CH)
    if bg["focal_slowing"]:
        fs = bg["focal_slowing"]
        fast_mod *= 1.0 - 0.5 * geo.gauss_field(fs["point"], fs["radius"])
    if bg["breach"]:
        br = bg["breach"]
        g = geo.gauss_field(br["point"], br["radius"])
        fast_mod *= 1.0 + (br["gain"] - 1.0) * g
        slow_mod *= 1.0 + 0.3 * (br["gain"] - 1.0) * g

    def gsum(table) -> np.ndarray:
        return np.tensordot(np.asarray(table, float), w, axes=1)

    comps = []
    chi, knee = bg["aperiodic_exp"], bg["knee_hz"]
    topo = geo.gauss_field(geo.site("CZ"), 1.1, 0.75) * bg["aperiodic_uv"]
    ap_bands = [
        (0.0, 2.0, 2.5, 0.03),
        (2.0, 8.0, 1.6, 0.05),
        (8.0, 20.0, 1.0, 0.08),
        (20.0, 1e9, 0.5, 0.2),
    ]
    comps.append(
        Component(
            "aperiodic",
            lambda f: lowpass_edge(f, nyq_edge) / (knee**chi + np.maximum(f, 0.05) ** chi),
            [
                (lo, hi, _mixer(topo * (fast_mod if lo >= 8 else slow_mod), ln, nu))
                for lo, hi, ln, nu in ap_bands
            ],
            gsum([1.0, 1.05, 1.2, 1.3, 0.85]) * _fluct(rng, n_c, 20.0, 0.12),
        )
    )

    pdr, bw = bg["pdr_hz"], bg["pdr_bw"]
    post = geo.site("O1", "O2", "PZ")
    lr = np.where(geo.LEFT, bg["alpha_lr"] ** -0.5, np.where(geo.RIGHT, bg["alpha_lr"] ** 0.5, 1.0))
    topo = geo.gauss_field(post, bg["alpha_radius"], 0.5) * lr * fast_mod * bg["alpha_uv"]
    react = bg["reactivity"]
    gain = w[W] - eyes * (1.0 - react) + w[D] * 0.35 * ad + 0.04 * w[N2] + 0.12 * w[R]
    comps.append(
        Component(
            "alpha",
            lambda f: gauss_peak(f, pdr, bw) + 0.03 * gauss_peak(f, 2 * pdr, 2 * bw),
            [(0.0, 1e9, _mixer(topo, 1.2, 0.04))],
            np.maximum(gain, 0.0) * _fluct(rng, n_c, 1.5, 0.35),
            lateral=np.sign(geo.XYZ[:, 1]) * (np.abs(geo.XYZ[:, 1]) > 0.05),
            lateral_gain=0.22 * ou(rng, n_c, DT, 3.0),
        )
    )
    # Drowsy alpha: slower, spreading to central and frontal regions.
    topo = geo.gauss_field(geo.site("CZ", "PZ"), 0.9, 0.6) * fast_mod * 0.6 * bg["alpha_uv"]
    comps.append(
        Component(
            "alpha_drowsy",
            lambda f: gauss_peak(f, pdr - 1.2, bw + 0.3),
            [(0.0, 1e9, _mixer(topo, 1.0, 0.06))],
            gsum([0.05, 0.0, 0.03, 0.0, 0.35]) + w[D] * 0.55 * (1 - ad) + 0.1 * w[D],
        )
    )
    th_hz = bg["theta_hz"]
    topo = geo.gauss_field(geo.site("CZ", "FZ"), 0.85, 0.7) * slow_mod * bg["theta_uv"]
    comps.append(
        Component(
            "theta",
            lambda f: gauss_peak(f, th_hz, 1.2) + 0.15 * gauss_peak(f, 3.0, 1.0),
            [(0.0, 1e9, _mixer(topo, 1.5, 0.05))],
            gsum([0.3 + 1.3 * enc, 1.0 + 0.5 * enc, 0.8, 0.6, 0.85]) * _fluct(rng, n_c, 2.0, 0.35),
        )
    )
    topo = geo.gauss_field(geo.site("FZ", "F3", "F4"), 0.95, 0.7) * slow_mod * bg["delta_uv"]
    comps.append(
        Component(
            "delta",
            lambda f: np.exp(-0.5 * (np.log(np.maximum(f, 1e-3) / 0.9) / 0.55) ** 2),
            [(0.0, 1e9, _mixer(topo, 1.6, 0.05))],
            gsum([0.06 + 0.45 * enc, 0.18 + 0.4 * enc, 0.4, 1.0, 0.12])
            * _fluct(rng, n_c, 4.0, 0.35),
        )
    )
    bh = bg["beta_hz"]
    topo = geo.gauss_field(geo.site("FZ", "CZ", "F3", "F4"), 0.75, 0.6) * fast_mod * bg["beta_uv"]
    comps.append(
        Component(
            "beta",
            lambda f: gauss_peak(f, bh, 4.0) * lowpass_edge(f, nyq_edge),
            [(0.0, 1e9, _mixer(topo, 0.5, 0.2))],
            gsum([1.0, 1.35, 0.7, 0.4, 0.8]) * _fluct(rng, n_c, 5.0, 0.2),
        )
    )
    if bg["focal_slowing"]:
        fs = bg["focal_slowing"]
        topo = geo.gauss_field(fs["point"], fs["radius"]) * fs["uv"]
        fh = fs["hz"]
        comps.append(
            Component(
                "focal_delta",
                lambda f: np.exp(-0.5 * (np.log(np.maximum(f, 1e-3) / fh) / 0.5) ** 2),
                [(0.0, 1e9, _mixer(topo, 0.7, 0.1))],
                gsum([1.0, 1.2, 1.0, 0.9, 1.0]) * _fluct(rng, n_c, 8.0, 0.45),
            )
        )
    # Amplifier and electrode noise: white-ish, independent between electrodes.
    comps.append(
        Component(
            "floor",
            lambda f: lowpass_edge(f, nyq_edge) * (1.0 + 1.0 / np.maximum(f, 0.2)),
            [(0.0, 1e9, np.eye(geo.N_CH) * bg["hf_floor_uv"])],
            np.ones(n_c),
        )
    )
    return comps


def synthesize(rng, comps: list[Component], n: int, sfreq: float, out: np.ndarray) -> None:
    """Add all components to ``out`` (21, n) in cross-faded blocks of ~2**16 samples."""
    block = 1 << 16
    overlap = int(min(16.0 * sfreq, block // 4))
    starts = [0]
    while starts[-1] + block < n:
        starts.append(starts[-1] + block - overlap)
    last = len(starts) - 1
    for k, s in enumerate(starts):
        length = min(block, n - s)
        win = np.ones(length, np.float32)
        u = (np.arange(overlap, dtype=np.float32) + 0.5) / overlap
        if k > 0:
            win[:overlap] = np.sin(0.5 * np.pi * u)
        if k < last:
            win[length - overlap :] = np.cos(0.5 * np.pi * u)
        seg = out[:, s : s + length]
        for c in comps:
            y = c.block(rng, length, sfreq)
            g = upsample(c.gain, length, sfreq, s) * win
            if c.lateral is not None:
                gl = upsample(c.lateral_gain, length, sfreq, s) * g
                seg += y * g + (c.lateral.astype(np.float32)[:, None] * y) * gl
            else:
                seg += y * g
