"""The patches' Hawkes dynamics at population-rate level, synthesised in the frequency domain.

Each patch holds an excitatory (E) and an inhibitory (I) population whose spike counts form a
linear multivariate Hawkes process: E excites itself with branching ratio ``rho`` through an
exponential kernel (``TAU_SELF``), E excites I and I inhibits E through kernels with a loop
delay ``D``. For a stationary linear Hawkes process the rate fluctuations are the Poisson
innovations filtered by ``(I - Phi(f))^-1``; the scalp dipole of a patch is the excitatory
minus the inhibitory synaptic current (rates filtered by postsynaptic kernels). Loop delay
and gain are solved per state so that the loop resonates at ``f0`` with ``|det|`` a fraction
``1 - q`` of its open-loop value (``q -> 1``: critical). Self-excitation near 1 gives the
slow-wave power of deep sleep.

Innovations of neighbouring patches are correlated through a few smooth "thalamic" common
inputs (mutual excitation to first order). The state (hence the spectrum) changes every 2 s:
4 s frames with sine windows, hop 2 s, overlap-added (variance-preserving).
"""

from __future__ import annotations

import numpy as np
import scipy.fft

#: Time constant (s) of the excitatory self-excitation kernel.
TAU_SELF = 0.03
#: Loop kernels' time constants times the resonance angular frequency (E->I, I->E).
A_E, A_I = 0.3, 0.7
#: Relative weight of the inhibitory synaptic current in the dipole.
BETA_I = 0.6
#: Amplifier high-pass corner (Hz).
HP_HZ = 0.4
#: Dendritic low-pass corner (Hz) of the dipole currents.
LP_HZ = 18.0
FRAME_S = 2.0


def loop_power(freqs: np.ndarray, f0, q, rho) -> np.ndarray:
    """Power spectrum of a patch dipole (unnormalised), broadcasting ``f0, q, rho`` against
    ``freqs`` (last axis)."""
    f0, q, rho = (np.asarray(v, dtype=np.float64)[..., None] for v in (f0, q, rho))
    w = 2 * np.pi * freqs
    w0 = 2 * np.pi * f0
    ks = 1.0 / (1.0 + 1j * w * TAU_SELF)
    c0 = 1.0 - rho / (1.0 + 1j * w0 * TAU_SELF)
    psi = np.angle(c0) + np.pi
    w0d = np.mod(-np.arctan(A_E) - np.arctan(A_I) - psi, 2 * np.pi)
    gain = q * np.abs(c0) * np.sqrt((1 + A_E**2) * (1 + A_I**2))
    ke = 1.0 / (1.0 + 1j * w * A_E / w0)
    ki = 1.0 / (1.0 + 1j * w * A_I / w0)
    half = np.exp(-0.5j * w * w0d / w0)
    phi_ei = -np.sqrt(gain) * ki * half
    phi_ie = np.sqrt(gain) * ke * half
    det = 1.0 - rho * ks - phi_ei * phi_ie
    h_e = 1.0 / ((1 + 1j * w * 0.004) * (1 + 1j * w * 0.012))
    h_i = 1.0 / ((1 + 1j * w * 0.004) * (1 + 1j * w * 0.025))
    a = h_e - BETA_I * h_i * phi_ie
    b = h_e * phi_ei - BETA_I * h_i * (1.0 - rho * ks)
    p = (np.abs(a) ** 2 + 0.5 * np.abs(b) ** 2) / np.abs(det) ** 2
    r = (freqs / HP_HZ) ** 2
    return p * r / (1.0 + r) / (1.0 + (freqs / LP_HZ) ** 2)


def frame_len(sfreq: float) -> int:
    """Hop of the synthesis frames in samples (frames are twice as long)."""
    return int(round(FRAME_S * sfreq))


def state_power(
    params: dict, region: np.ndarray, amp: np.ndarray, rho_add: np.ndarray, sfreq: float
) -> np.ndarray:
    """Per-state, per-patch frame power spectra, shape ``(n_states, n_patches, H + 1)``,
    scaled so that a frame's time-domain variance is ``amp**2``.

    Parameters
    ----------
    params : dict
        :func:`rt_eeg.xsim.hawkes.states.state_params` output.
    region : ndarray of int, shape (n_patches,)
    amp : ndarray, shape (n_states, n_patches)
        RMS of each patch in each state.
    rho_add : ndarray, shape (n_states, n_patches)
        Extra self-excitation (focal slowing), added below criticality.
    """
    h = frame_len(sfreq)
    n = 2 * h
    freqs = np.fft.rfftfreq(n, 1.0 / sfreq)
    f0 = np.minimum(params["f0"][:, region], 0.4 * sfreq)
    rho = np.minimum(params["rho"][:, region] + rho_add, 0.975)
    p = loop_power(freqs, f0, params["q"][:, region], rho)
    p[..., 0] = 0.0
    p[..., -1] = 0.0
    p *= (n**2 / (2.0 * p.sum(axis=-1, keepdims=True))) * amp[..., None] ** 2
    return p.astype(np.float32)


def thalamic_inputs(xyz: np.ndarray, coherence: float, n_inputs: int = 8) -> np.ndarray:
    """Mixing ``(n_patches, n_inputs)`` of smooth common inputs; rows have squared norm
    ``coherence`` (the rest of a patch's innovation is its own)."""
    i = np.arange(n_inputs) + 0.5
    z = 1.0 - 1.3 * i / n_inputs
    ph = np.pi * (3.0 - np.sqrt(5.0)) * i
    c = np.stack([np.sqrt(1 - z**2) * np.cos(ph), np.sqrt(1 - z**2) * np.sin(ph), z], 1)
    th = np.arccos(np.clip(xyz @ c.T, -1.0, 1.0))
    u = np.exp(-0.5 * (th / 0.55) ** 2)
    u *= np.sqrt(coherence) / np.linalg.norm(u, axis=1, keepdims=True)
    return u.astype(np.float32)


def synthesize(power, weights, mixing, coherence, n, sfreq, rng, max_floats=1_500_000):
    """Generate the patch dipoles block by block.

    Parameters
    ----------
    power : ndarray, shape (n_states, n_patches, H + 1)
    weights : ndarray, shape (K, n_states)
        State weights of frames ``0..K-1`` (frame ``k`` centred at ``k * H`` samples).
    mixing : ndarray, shape (n_patches, n_inputs)
    coherence : float
    n : int
        Samples to produce.

    Yields
    ------
    (i0, block)
        ``block`` (float32, shape (n_patches, m)) holds samples ``i0 .. i0 + m``.
    """
    s, p, nf = power.shape
    h = nf - 1
    n_frames = weights.shape[0]
    win = np.sin(np.pi * (np.arange(2 * h) + 0.5) / (2 * h)).astype(np.float32)
    flat = power.reshape(s, -1)
    local = np.float32(np.sqrt(1.0 - coherence) / np.sqrt(2.0))
    per = max(2, int(max_floats // (p * nf)))
    carry = None
    k = 0
    while k < n_frames:
        ks = np.arange(k, min(n_frames, k + per))
        m = ks.size
        amp = np.sqrt((weights[ks].astype(np.float32) @ flat).reshape(m, p, nf))
        fl = rng.normal(0.0, 1.0, (m, 1, 1)) * 0.22 + rng.normal(0.0, 1.0, (m, p, 1)) * 0.15
        amp *= np.exp(fl).astype(np.float32)
        z = rng.standard_normal((m, p, 2 * nf), dtype=np.float32) * local
        eta = rng.standard_normal((m, mixing.shape[1], 2 * nf), dtype=np.float32)
        z += (mixing / np.float32(np.sqrt(2.0))) @ eta
        spec = (z[..., :nf] + 1j * z[..., nf:]) * amp
        frames = scipy.fft.irfft(spec, n=2 * h, axis=-1) * win
        blocks = frames[..., :h].copy()
        if carry is not None:
            blocks[0] += carry
        blocks[1:] += frames[:-1, :, h:]
        carry = frames[-1, :, h:]
        out = np.moveaxis(blocks, 0, 1).reshape(p, m * h)
        i0 = (k - 1) * h
        if i0 < 0:  # frame 0's first half lies before time 0
            out, i0 = out[:, h:], 0
        if i0 >= n:
            break
        yield i0, out[:, : n - i0]
        k += m
