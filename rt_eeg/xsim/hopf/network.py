"""The Stuart-Landau (Hopf normal form) network, integrated in the rotating frame.

Every node ``n`` carries one complex oscillator per band ``b``::

    dz/dt = (a + i*omega) z - |z|^2 z + K * sum_m C[n, m] (z_m - z_n) + sigma * xi(t)

Why a rotating frame: with ``z = w * exp(i * theta_b(t))``, ``d theta_b / dt = omega_b(t)``
(the band's carrier, common to all nodes of the band), the equation for ``w`` is the same
Stuart-Landau equation with ``omega`` replaced by the node's small detuning, because the
diffusive coupling and the cubic term are invariant under a common rotation and rotated white
noise is white noise. ``w`` varies only as fast as the band's envelope (a few Hz), so it is
integrated by exponential Euler-Maruyama on a coarse grid (~32 Hz; the linear part exactly)
and the carrier is applied at the output rate: exact dynamics at a tenth of the cost.

Two bands are wave-shaped after integration (the benign-variant and the ictal band): the
node signal is ``|z| * g(arg z)`` with ``g`` a sharpened cosine or a spike-and-wave template
instead of ``cos``, so spikes stay phase-locked to the oscillation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import signal

from rt_eeg.xsim.hopf.geometry import Geometry

BANDS: tuple[str, ...] = ("delta", "theta", "alpha", "sigma", "beta", "variant", "ictal")
B = len(BANDS)
BI = {b: i for i, b in enumerate(BANDS)}
#: Bands whose node signal is wave-shaped (variant, ictal).
SHAPED = (5, 6)
#: Rate of the envelope grid, Hz (approximately: an integer divisor of the output rate).
ENV_HZ = 32.0


def _spike_wave_table(n: int = 512) -> np.ndarray:
    """One cycle of spike-and-wave as a function of phase, shape (n,), unit RMS * sqrt(1/2)."""
    ph = np.linspace(0, 2 * np.pi, n, endpoint=False)
    spike = np.exp(9.0 * (np.cos(ph) - 1.0))
    wave = np.exp(1.8 * (np.cos(ph - 1.15 * np.pi) - 1.0))
    y = -(spike - spike.mean()) + 0.75 * (wave - wave.mean())
    return y / np.sqrt(np.mean(y**2)) * np.sqrt(0.5)


SW_TABLE = _spike_wave_table()


@dataclass
class ChunkParams:
    """Parameters on the envelope grid for one chunk (``Tc + 1`` samples, the last one is the
    first of the next chunk, used for interpolation only).

    Attributes
    ----------
    a : ndarray, shape (Tc + 1, B, N)
        Bifurcation parameter, 1/s (< 0 damped, noise-driven; > 0 limit cycle of radius sqrt(a)).
    s : ndarray, shape (Tc + 1, B, N)
        Noise level, as the stationary RMS of ``|w|`` it gives in the linear (a < 0) regime.
    k : ndarray, shape (Tc + 1, B)
        Global coupling, 1/s.
    f : ndarray, shape (Tc + 1, B)
        Carrier frequency, Hz.
    amp : ndarray, shape (Tc + 1, B, N)
        Microvolts per unit ``Re z`` at the node.
    h2 : ndarray, shape (Tc + 1, 2)
        Second-harmonic weight of the shaped bands (sharp / arciform waves).
    sw : ndarray, shape (Tc + 1, 2)
        Spike-and-wave weight of the shaped bands, in [0, 1].
    ap : ndarray, shape (Tc + 1, N)
        Aperiodic (1/f) amplitude at the node, microvolts RMS.
    """

    a: np.ndarray
    s: np.ndarray
    k: np.ndarray
    f: np.ndarray
    amp: np.ndarray
    h2: np.ndarray
    sw: np.ndarray
    ap: np.ndarray


def aperiodic_sos(beta: float, sfreq: float) -> np.ndarray:
    """Second-order sections of a ~1/f^beta filter (alternating real poles and zeros),
    normalised to unit output variance for unit white input."""
    fp = np.geomspace(0.25, 80.0, 6)
    ratio = fp[1] / fp[0]
    fz = fp * ratio ** (beta / 2.0)
    fnyq = sfreq / 2 * 0.95
    fp, fz = np.minimum(fp, fnyq), np.minimum(fz, fnyq)
    p = np.exp(-2 * np.pi * fp / sfreq)
    z = np.exp(-2 * np.pi * fz / sfreq)
    sos = signal.zpk2sos(z, p, 1.0)
    imp = np.zeros(int(40 * sfreq))
    imp[0] = 1.0
    h = signal.sosfilt(sos, imp)
    sos[0, :3] /= np.sqrt(np.sum(h**2))
    return sos


class Network:
    """The integrator, its state carried from chunk to chunk.

    Parameters
    ----------
    geo : Geometry
    detune : ndarray, shape (B, N)
        Node detuning from the band carrier, Hz.
    sfreq : float
        Output rate; the envelope grid is ``sfreq / up`` with ``up`` an integer.
    ap_beta : float
        Exponent of the aperiodic component's power spectrum.
    white_uv : float
        Electrode (amplifier) white noise, microvolts RMS.
    """

    def __init__(self, geo: Geometry, detune, sfreq: float, ap_beta: float, white_uv: float):
        self.geo = geo
        self.sfreq = float(sfreq)
        self.up = max(1, int(round(sfreq / ENV_HZ)))
        self.dt = self.up / self.sfreq
        self.rot = np.exp(2j * np.pi * np.asarray(detune, float) * self.dt)
        self.connT = np.ascontiguousarray(geo.conn.T)
        self.w = np.zeros((B, geo.n), complex)
        self.theta = np.zeros(B)
        self.sos = aperiodic_sos(ap_beta, sfreq)
        self.zi = np.zeros((self.sos.shape[0], len(geo.lead), 2))
        # Node-independent 1/f noise projected by the lead field has covariance L L^T: draw it
        # directly on the 21 electrodes through a square root of that (half the draws).
        cov = geo.lead @ geo.lead.T
        ev, vec = np.linalg.eigh(cov)
        self.ap_mix = ((vec * np.sqrt(np.maximum(ev, 0))) @ vec.T).astype(np.float32)
        self.white_uv = white_uv

    def integrate(self, p: ChunkParams, rng: np.random.Generator) -> np.ndarray:
        """Advance the envelopes by one chunk.

        Returns
        -------
        ndarray of complex, shape (Tc + 1, B, N)
            The envelopes at the chunk's grid points, the carried-in state first.
        """
        tc = p.a.shape[0] - 1
        dt = self.dt
        # Self part of the diffusive coupling (rows of C sum to 1) goes into the exact factor.
        lam = p.a[:tc] - p.k[:tc, :, None]
        sig = p.s[:tc] * np.sqrt((1 - np.exp(2 * np.minimum(lam, -1.0) * dt)) / 2)
        xi = rng.standard_normal((tc, B, self.geo.n, 2), dtype=np.float32).view(np.complex64)
        noise = xi[..., 0] * sig.astype(np.float32)
        adt = lam * dt
        kdt = p.k[:tc, :, None] * dt
        out = np.empty((tc + 1, B, self.geo.n), complex)
        w = self.w
        out[0] = w
        connT, rot = self.connT, self.rot
        for j in range(tc):
            c = w @ connT
            c *= kdt[j]
            c += noise[j]
            g = np.abs(w)
            g *= g
            g *= -dt
            g += adt[j]
            np.exp(g, out=g)
            w = w * rot
            w *= g
            w += c
            out[j + 1] = w
        self.w = w
        return out

    def synthesise(self, env: np.ndarray, p: ChunkParams, gate: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
        """Scalp signals of one chunk from its envelopes.

        The plain bands are projected to the electrodes on the envelope grid (the lead field
        is linear and the same for all bands), then interpolated and modulated by their
        carriers at the output rate; the wave-shaped bands need the node phase, so they are
        synthesised per node, only while active.

        Parameters
        ----------
        env : ndarray of complex, shape (Tc + 1, B, N)
        p : ChunkParams
        gate : ndarray, shape (Tc * up,)
            Output-rate gate of the ictal band (1 inside a requested seizure, else 0).

        Returns
        -------
        ndarray of float32, shape (21, Tc * up)
        """
        up, tc = self.up, env.shape[0] - 1
        n_out = tc * up
        lead = self.geo.lead
        f_out = np.repeat(p.f[:tc], up, axis=0)
        theta = self.theta[None, :] + 2 * np.pi * np.cumsum(f_out, axis=0) / self.sfreq
        self.theta = np.mod(theta[-1], 2 * np.pi)
        frac = np.arange(up) / up
        # y[j*up + r] = Re sum_b (v[j, b] (1 - frac_r) + v[j + 1, b] frac_r) exp(i theta_b).
        v = np.einsum("tbn,en->tbe", env[:, :5] * p.amp[:, :5], lead)  # (Tc + 1, 5, 21)
        vv = np.concatenate([v[:-1], v[1:]], axis=1)  # (Tc, 10, 21)
        cth = np.exp(1j * theta[:, :5]).reshape(tc, up, 5)
        cc = np.concatenate([cth * (1 - frac)[None, :, None], cth * frac[None, :, None]], 2)
        lhs = np.concatenate([cc.real, -cc.imag], axis=2)  # (Tc, up, 20)
        rhs = np.concatenate([vv.real, vv.imag], axis=1)  # (Tc, 20, 21)
        y = np.matmul(lhs, rhs).reshape(n_out, -1)  # (n_out, 21)
        for col, b in enumerate(SHAPED):
            e = env[:, b] * p.amp[:, b]
            if not np.any(np.abs(e) > 1e-3):  # inactive (the usual case): nothing to add
                continue
            fr = frac[None, :, None]
            wi = (e[:-1, None] * (1 - fr) + e[1:, None] * fr).reshape(n_out, -1)
            zb = wi * np.exp(1j * theta[:, b])[:, None]
            r, ph = np.abs(zb), np.angle(zb)
            h2 = np.repeat(p.h2[:tc, col], up)[:, None]
            shaped = np.cos(ph) + h2 * np.cos(2 * ph)
            sw = np.repeat(p.sw[:tc, col], up)[:, None]
            if np.any(sw):
                tab = np.interp(np.mod(ph, 2 * np.pi), np.linspace(0, 2 * np.pi, SW_TABLE.size,
                                endpoint=False), SW_TABLE, period=2 * np.pi)
                shaped = (1 - sw) * shaped + sw * tab
            yb = r * shaped
            if b == BI["ictal"]:
                yb = yb * gate[:, None]
            y += np.einsum("tn,en->te", yb, lead)
        xi = rng.standard_normal((len(lead), n_out), dtype=np.float32)
        mixed = np.einsum("ij,jt->it", self.ap_mix, xi)  # einsum: no BLAS thread spin-up
        ap, self.zi = signal.sosfilt(self.sos, mixed, axis=-1, zi=self.zi)
        ap_amp = np.repeat(np.einsum("tn,en->te", p.ap[:tc], lead), up, axis=0)  # (n_out, 21)
        x = y.T + ap * ap_amp.T
        x += self.white_uv * rng.standard_normal(x.shape, dtype=np.float32)
        return x.astype(np.float32)
