"""Wendling-Chauvel-Bartolomei neural masses, integrated in parallel over time segments.

Each cortical patch is one neural mass with four second-order synaptic populations:
excitatory interneuron feedback (gain ``A``, rate ``a``), slow dendritic GABA-A,slow
inhibition (``B``, ``b``), fast somatic GABA-A,fast inhibition (``G``, ``g``), and the
pyramidal output fed back to all interneurons. ``G = 0`` reduces it to Jansen-Rit.

Python cannot afford a per-sample loop over one hour (1.8 M steps at 512 Hz), so the
recording is cut into overlapping segments that are integrated *side by side* as one
vectorised state: the loop runs over the steps of one segment only. The input noise is a
function of absolute time (seeded per chunk of samples), so two segments that overlap see
identical noise; noise-driven masses forget their initial state within about a second, so
after the warm-up the tail of one segment and the head of the next are the same trajectory
and their cross-fade is seamless. Autonomous ictal oscillations (limit cycles) do not forget
their phase, so stretches that hold them are integrated as single long segments.

The synaptic kernels are integrated exactly over each step (exponential integrator with the
input held), in float32, with the loop written as in-place array operations: about 13 s of
one core per simulated hour at 512 Hz including a few minutes of seizures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Sigmoid: maximal firing 2*E0 (1/s), threshold V0 (mV), slope R (1/mV).
E0, V0, R = 2.5, 6.0, 0.56
#: Connectivity constants of the Wendling 2002 model (C = 135).
_C = 135.0
C1, C2, C3, C4, C5, C6, C7 = _C, 0.8 * _C, 0.25 * _C, 0.25 * _C, 0.3 * _C, 0.1 * _C, 0.8 * _C
#: Base synaptic rate constants (1/s): excitatory, slow inhibitory, fast inhibitory.
RATE_A, RATE_B, RATE_G = 100.0, 50.0, 500.0

#: Rows of the control-parameter array handed to :func:`integrate`.
PARAMS = ("A", "B", "G", "speed", "p_mean", "p_sd")

# Firing -> synaptic input scale of each population.
_IN_SCALE = np.array([1.0, C2, C4, C7])[:, None, None]


@dataclass
class Layout:
    """Integration rate and the chunk grid, all counted in integration steps.

    Attributes
    ----------
    fs_int : float
        Integration rate (Hz), ``decim`` times the output rate.
    decim : int
        Steps averaged into one output sample.
    chunk : int
        Steps per noise chunk (the unit of the segment grid).
    n_sub : int
        Control-parameter updates per chunk.
    drive_div : int
        Steps per sample of the fast drive.
    n_warm, n_fade : int
        Chunks of warm-up (discarded) and of cross-fade per segment.
    n_chunks : int
        Chunks covering the recording.

    Control and drive arrays start at chunk ``-n_warm`` (the first warm-up).
    """

    fs_int: float
    decim: int
    chunk: int
    n_sub: int
    drive_div: int
    n_warm: int
    n_fade: int
    n_chunks: int

    @property
    def chunk_s(self) -> float:
        """Duration of one chunk (s)."""
        return self.chunk / self.fs_int

    @property
    def out_per_chunk(self) -> int:
        """Output samples per chunk."""
        return self.chunk // self.decim

    @property
    def fs_ctrl(self) -> float:
        """Rate of the control-parameter arrays (Hz)."""
        return self.fs_int * self.n_sub / self.chunk

    @property
    def fs_drive(self) -> float:
        """Rate of the fast drive array (Hz)."""
        return self.fs_int / self.drive_div

    @property
    def t0(self) -> float:
        """Time (s) of column 0 of the control and drive arrays."""
        return -self.n_warm * self.chunk_s

    def n_ctrl(self) -> int:
        """Control samples from the first warm-up to the end of the recording."""
        return (self.n_chunks + self.n_warm + self.n_fade) * self.n_sub

    def n_drive(self) -> int:
        """Fast-drive samples from the first warm-up to the end of the recording."""
        return (self.n_chunks + self.n_warm + self.n_fade) * self.chunk // self.drive_div


def make_layout(sfreq: float, n_out: int) -> Layout:
    """Choose the integration rate and chunk grid for ``n_out`` output samples.

    The integration rate is an integer multiple of ``sfreq`` near 512 Hz (fast inhibition
    has a 2 ms time constant; the exponential integrator is stable at any step but the
    feedback loops need about that resolution).
    """
    decim = max(1, int(round(512.0 / sfreq)))
    fs_int = sfreq * decim
    unit = int(np.lcm(decim, 4)) * 8
    chunk = max(unit, int(round(fs_int / 2.0 / unit)) * unit)
    chunk_s = chunk / fs_int
    n_warm = max(2, int(np.ceil(4.0 / chunk_s)))
    n_fade = max(1, int(np.ceil(1.0 / chunk_s)))
    n_chunks = int(np.ceil(n_out / (chunk // decim)))
    return Layout(fs_int, decim, chunk, 8, 4, n_warm, n_fade, n_chunks)


def integrate(
    lay: Layout,
    starts: np.ndarray,
    n_core: int,
    ctrl: np.ndarray,
    drive: np.ndarray,
    coupling: np.ndarray,
    delay_steps: int,
    seed: int,
) -> np.ndarray:
    """Integrate all patches over a batch of segments of one length.

    Parameters
    ----------
    lay : Layout
        Grid from :func:`make_layout`.
    starts : ndarray of int
        First core chunk of each segment (absolute chunk index; 0 is the recording start).
    n_core : int
        Core chunks per segment; each also runs ``lay.n_warm`` chunks before and
        ``lay.n_fade`` after.
    ctrl : ndarray, shape (len(PARAMS), n_patch, lay.n_ctrl())
        Slow parameters per patch (column 0 at chunk ``-n_warm``; indices past the end
        are clipped).
    drive : ndarray, shape (n_patch, lay.n_drive())
        Extra afferent input (pulses/s) added to the noisy input, same time origin.
    coupling : ndarray, shape (n_patch, n_patch)
        ``coupling[i, j]``: input to patch i per unit firing of patch j above its slow mean.
    delay_steps : int
        Conduction delay of the coupling in integration steps (>= 1).
    seed : int
        Seeds the chunked input noise.

    Returns
    -------
    ndarray of float32, shape (n_seg, n_patch, (n_core + lay.n_fade) * lay.out_per_chunk)
        Pyramidal membrane potential (mV) at the output rate, from each core start.
    """
    starts = np.asarray(starts, dtype=np.int64)
    _, n_patch, n_ctrl = ctrl.shape
    n_drive = drive.shape[1]
    ns, nk, q = len(starts), lay.chunk, lay.chunk // lay.n_sub
    dt = 1.0 / lay.fs_int
    opc = lay.out_per_chunk
    n_keep = n_core + lay.n_fade
    out = np.zeros((n_keep * opc, ns, n_patch), dtype=np.float32)
    shape = (4, ns, n_patch)
    f32 = np.float32
    y = np.zeros(shape, dtype=f32)
    # Start near the resting point (pyramidal potential ~ threshold) to shorten the transient.
    y[1] = 8.0
    z = np.zeros(shape, dtype=f32)
    y2, z2, s, u, t1 = (np.empty(shape, dtype=f32) for _ in range(5))
    ring = np.zeros((delay_steps, ns, n_patch), dtype=f32)
    fire_mean = None
    fire_sum = np.zeros((ns, n_patch), dtype=f32)
    cbuf = np.empty((ns, n_patch), dtype=f32)
    acc = np.zeros((ns, n_patch), dtype=f32)
    cpl_t = np.ascontiguousarray(coupling.T, dtype=f32)
    noise_scale = np.sqrt(lay.fs_int / 512.0)
    rates = np.array([RATE_A, RATE_A, RATE_B, RATE_G])[:, None, None]
    in_scale = np.broadcast_to(_IN_SCALE.astype(f32), shape)
    # Sigmoid arguments are R * (V0 - x) with x = (y1 - y2 - y3, C1 y0, C3 y0, C5 y0 - C6/C4 y2).
    k1, k2, k3, k4 = (f32(-R * c) for c in (C1, C3, C5, -C6 / C4))
    r_neg, r_v0 = f32(-R), f32(R * V0)
    step = 0
    for c in range(lay.n_warm + n_keep):
        chunk_abs = starts - lay.n_warm + c
        noise = np.stack(
            [
                np.random.default_rng([seed, int(a) + 1_000_000]).standard_normal((nk, n_patch))
                for a in chunk_abs
            ],
            axis=1,
        )
        d_idx = ((chunk_abs + lay.n_warm)[None, :] * nk + np.arange(nk)[:, None]) // lay.drive_div
        extra = drive[:, np.minimum(d_idx, n_drive - 1)].transpose(1, 2, 0)  # (nk, ns, n_patch)
        keep = c >= lay.n_warm
        o0 = (c - lay.n_warm) * opc
        for sb in range(lay.n_sub):
            col = np.minimum((chunk_abs + lay.n_warm) * lay.n_sub + sb, n_ctrl - 1)
            par = ctrl[:, :, col].transpose(0, 2, 1).astype(np.float64)  # (n_par, ns, n_patch)
            gain = np.stack([par[0], par[0], par[1], par[2]])
            # 'speed' rescales time: rates scale with it while the steady-state PSP per unit
            # input (gain / base rate) stays, so the regime is kept and only frequencies move.
            k = rates * par[3][None]
            hk = gain / rates
            e = np.exp(-k * dt)
            kdt = k * dt
            # Exact step of y'' = k (hk u k) - 2 k y' - k^2 y with u held over the step:
            # y+ = a1 y + a2 z + cu u,  z+ = b1 y + b2 z + du u.
            a1, a2 = e * (1 + kdt), e * dt
            b1, b2 = -e * k * kdt, e * (1 - kdt)
            cu, du = (1 - a1) * hk, -b1 * hk
            a1, a2, b1, b2, cu, du = (x.astype(f32) for x in (a1, a2, b1, b2, cu, du))
            sl = slice(sb * q, (sb + 1) * q)
            inp = (par[4] + par[5] * noise_scale * noise[sl] + extra[sl]).astype(f32)
            for i in range(q):
                kk = sb * q + i
                np.subtract(y[1], y[2], out=s[0])
                s[0] -= y[3]
                if keep:
                    acc += s[0]
                s[0] *= r_neg
                np.multiply(y[0], k1, out=s[1])
                np.multiply(y[0], k2, out=s[2])
                np.multiply(y[0], k3, out=s[3])
                np.multiply(y[2], k4, out=cbuf)
                s[3] += cbuf
                s += r_v0
                np.exp(s, out=s)
                s += 1.0
                np.divide(f32(2.0 * E0), s, out=s)
                if fire_mean is None:
                    fire_mean = s[0].copy()
                fire_sum += s[0]
                np.subtract(s[0], fire_mean, out=ring[step % delay_steps])
                np.multiply(s, in_scale, out=u)
                u[1] += inp[i]
                np.matmul(ring[(step + 1) % delay_steps], cpl_t, out=cbuf)
                u[1] += cbuf
                np.multiply(a1, y, out=y2)
                np.multiply(a2, z, out=t1)
                y2 += t1
                np.multiply(cu, u, out=t1)
                y2 += t1
                np.multiply(b1, y, out=z2)
                np.multiply(b2, z, out=t1)
                z2 += t1
                np.multiply(du, u, out=t1)
                z2 += t1
                y, y2 = y2, y
                z, z2 = z2, z
                step += 1
                if keep and (kk + 1) % lay.decim == 0:
                    np.multiply(acc, f32(1.0 / lay.decim), out=out[o0 + kk // lay.decim])
                    acc[:] = 0.0
            # Slow mean firing (~0.5 s), so the coupling carries fluctuations only.
            fire_mean += (fire_sum / q - fire_mean) * f32(min(1.0, q / (0.5 * lay.fs_int)))
            fire_sum[:] = 0.0
    return out.transpose(1, 2, 0)


def plan_segments(
    n_chunks: int, protected: list[tuple[int, int]], n_core: int
) -> tuple[list[int], list[tuple[int, int]]]:
    """Cut the recording into segments.

    Limit cycles (seizures) do not forget their phase, so overlapping segments would not
    agree there: each protected chunk range ``[c0, c1)`` becomes one long segment of its
    own; the rest is tiled by segments of ``n_core`` chunks.

    Returns
    -------
    normal : list of int
        Start chunks of the ordinary segments.
    long : list of (start, length)
        The protected segments.
    """
    merged: list[list[int]] = []
    for c0, c1 in sorted(protected):
        c0, c1 = max(0, c0), min(n_chunks, c1)
        if c1 <= c0:
            continue
        if merged and c0 <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], c1)
        else:
            merged.append([c0, c1])
    normal: list[int] = []
    edges = [0] + [v for m in merged for v in m] + [n_chunks]
    for s0, s1 in zip(edges[0::2], edges[1::2], strict=True):
        s = s0
        while s < s1:
            normal.append(s)
            s += n_core
    return normal, [(m[0], m[1] - m[0]) for m in merged]


def run(
    lay: Layout,
    protected: list[tuple[int, int]],
    ctrl: np.ndarray,
    drive: np.ndarray,
    coupling: np.ndarray,
    delay_steps: int,
    seed: int,
    n_core: int = 40,
) -> np.ndarray:
    """Integrate the whole recording; returns (n_patch, n_chunks * out_per_chunk) float32."""
    normal, long = plan_segments(lay.n_chunks, protected, n_core)
    pieces: list[tuple[int, int, np.ndarray]] = []  # (start chunk, batch row, batch)
    # Batches of at most ~30 min keep the per-batch output buffer small.
    for g in range(0, len(normal), 90):
        grp = normal[g : g + 90]
        batch = integrate(lay, np.array(grp), n_core, ctrl, drive, coupling, delay_steps, seed)
        pieces += [(s, i, batch) for i, s in enumerate(grp)]
    if long:
        n_long = max(n for _, n in long)
        starts = np.array([s for s, _ in long])
        batch = integrate(lay, starts, n_long, ctrl, drive, coupling, delay_steps, seed)
        pieces += [(s, i, batch) for i, (s, _) in enumerate(long)]
    pieces.sort(key=lambda p: p[0])
    opc = lay.out_per_chunk
    n_patch = ctrl.shape[1]
    total = lay.n_chunks * opc
    res = np.zeros((n_patch, total + lay.n_fade * opc), dtype=np.float32)
    fade = lay.n_fade * opc
    ramp = ((np.arange(fade) + 0.5) / fade).astype(np.float32)
    for k, (s, i, batch) in enumerate(pieces):
        a = s * opc
        nxt = pieces[k + 1][0] * opc if k + 1 < len(pieces) else total
        seg = batch[i, :, : nxt + fade - a]
        if k == 0:
            res[:, a : a + seg.shape[1]] = seg
            continue
        # Overlapping segments carry the same trajectory here; the ramp hides what is left.
        res[:, a : a + fade] = res[:, a : a + fade] * (1 - ramp) + seg[:, :fade] * ramp
        res[:, a + fade : a + seg.shape[1]] = seg[:, fade:]
    return res[:, :total]
