"""Atom waveforms and the renderer that sums them onto the 21 electrodes.

Every atom has a kind, a centre time, an amplitude (microvolts at the field's peak), up to
five shape parameters and a topography (a row of the scene's field table). Kinds:

``GABOR``
    ``exp(-tau**2 / 2b**2) * v(theta + sk sin(theta), k)`` with ``theta = 2 pi (a tau +
    ch tau**2 / 2) + c``: Gaussian envelope of width ``b`` s, frequency ``a`` Hz, chirp ``ch``
    Hz/s, phase ``c``; ``v`` is a cosine made peaky by ``k`` (a normalised von Mises wave:
    ``k = 0`` sinusoidal, 1-3 arciform or sharply contoured, more spiky) and ``sk`` (-0.8 to
    0.8) skews each cycle towards a sawtooth. ``a = 0`` gives a monophasic slow wave.
``TRANS``
    Asymmetric Gaussian transient: rise width ``a`` s, fall width ``b`` s (spikes, sharp
    waves, blinks, K-complex components).
``POP``
    ``(1 - exp(-tau/a)) exp(-tau/b)`` for ``tau >= 0``: an electrode pop (fast step, slow
    decay).
``BOX``
    ``(tanh(tau/a) - tanh((tau - b)/a)) / 2``: a plateau of length ``b`` with edges ``a`` s
    (eye movements: saccade, fixation, return).

Rendering is multirate, the dyadic scales of matching-pursuit dictionaries: an atom is drawn
at the lowest rate ``sfreq / 2**j`` that still holds its bandwidth (3x margin), each level is
summed with a sparse product (waveform samples x topographies) and the levels are upsampled by
two and added, top to bottom. The cost of an atom is then about the same whatever its length,
so hours of dense background processes render in seconds.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.signal import resample_poly
from scipy.special import i0e

from rt_eeg.xsim.atoms.fields import N_CH

GABOR, TRANS, POP, BOX = 0, 1, 2, 3
_COLS = ("kind", "t", "amp", "a", "b", "c", "k", "ch", "sk", "w0", "w1", "wr", "topo", "brain")
#: Column types (times in float64: an hour at 1 kHz needs it; shapes in float32 to save memory).
_DTYPES = {"kind": np.int8, "topo": np.int32, "brain": np.bool_, "t": np.float64,
           "w0": np.float64, "w1": np.float64}  # fmt: skip
_CHUNK = 1 << 21  # waveform samples computed per vectorised chunk
_SPAN = 1 << 16  # samples of output one chunk may span
_MARGIN = 3.0  # level rate / highest frequency an atom holds


def vonmises_wave(theta: np.ndarray, k) -> np.ndarray:
    """A zero-mean periodic wave of peak 1: ``cos`` for ``k = 0``, peakier as ``k`` grows.

    ``k`` broadcasts against ``theta``; a column ``(m, 1)`` gives one value per row.
    """
    out = np.cos(theta)
    k = np.asarray(k, dtype=out.dtype)
    if out.ndim == 2 and k.ndim == 2 and k.shape[1] == 1:
        sel = np.flatnonzero(k[:, 0] > 1e-3)  # whole rows: cheaper than an elementwise mask
        ks = k[sel]
    else:
        kb = np.broadcast_to(k, out.shape)
        sel = kb > 1e-3
        ks = kb[sel]
    if ks.size:
        m = i0e(ks).astype(out.dtype)  # the wave's mean, exp(-k) I0(k)
        out[sel] = (np.exp(ks * (out[sel] - 1.0)) - m) / (1.0 - m)
    return out


def waveform(kind: int, tau: np.ndarray, p: dict) -> np.ndarray:
    """Unit-amplitude waveforms of one kind at offsets ``tau`` (s) from their centres.

    ``p`` maps ``a, b, c, k, ch, sk`` to column vectors ``(m, 1)``.
    """
    a, b = p["a"], p["b"]
    if kind == GABOR:
        env = np.exp(-0.5 * (tau / b) ** 2)
        theta = 2.0 * np.pi * (a * tau + 0.5 * p["ch"] * tau * tau) + p["c"]
        if np.any(p["sk"] != 0):
            theta = theta + p["sk"] * (1.0 - np.cos(theta))  # monotone, asymmetric warp
        return env * vonmises_wave(theta, p["k"])
    if kind == TRANS:
        s = np.where(tau < 0.0, a, b)
        return np.exp(-0.5 * (tau / s) ** 2)
    if kind == POP:
        tp = np.maximum(tau, 0.0)
        return np.where(tau >= 0.0, (1.0 - np.exp(-tp / a)) * np.exp(-tp / b), 0.0)
    if kind == BOX:
        return 0.5 * (np.tanh(tau / a) - np.tanh((tau - b) / a))
    raise ValueError(f"unknown atom kind {kind}")


def extent(kind, a, b, ch) -> tuple[np.ndarray, np.ndarray]:
    """Support ``(lo, hi)`` in seconds around the centre, per atom."""
    lo = np.where(kind == GABOR, -4.0 * b, 0.0)
    hi = np.where(kind == GABOR, 4.0 * b, 0.0)
    lo = np.where(kind == TRANS, -4.0 * a, lo)
    hi = np.where(kind == TRANS, 4.0 * b, hi)
    hi = np.where(kind == POP, 7.0 * b, hi)
    lo = np.where(kind == BOX, -3.0 * a, lo)
    hi = np.where(kind == BOX, b + 3.0 * a, hi)
    return lo, hi


def top_frequency(kind, a, b, k, ch, sk) -> np.ndarray:
    """Highest frequency (Hz) with appreciable energy, per atom (it sets the atom's level)."""
    harm = 1.0 + 1.5 * np.sqrt(np.maximum(k, 0.0)) + 2.0 * np.abs(sk)
    gab = (np.abs(a) + np.abs(ch) * 4.0 * b) * harm + 0.5 / b
    f = np.where(kind == GABOR, gab, 0.0)
    a_ = np.maximum(np.abs(a), 1e-4)  # (a is a frequency, possibly 0, for Gabor atoms)
    f = np.where(kind == TRANS, 0.45 / np.minimum(a_, b), f)
    f = np.where(kind == POP, 0.6 / a_, f)
    return np.where(kind == BOX, 0.35 / a_, f)


class Scene:
    """Atoms of one recording, gathered from every process, then rendered at once.

    Parameters
    ----------
    duration_s, sfreq : float
    pad_s : float
        Margin rendered either side (filter edges, atoms straddling the ends), then cut.
    """

    def __init__(self, duration_s: float, sfreq: float, pad_s: float = 4.0):
        self.fs = float(sfreq)
        self.duration = float(duration_s)
        self.n = int(round(duration_s * sfreq))
        self.pad = float(pad_s)
        self._fields: list[np.ndarray] = [np.zeros((1, N_CH))]
        self._n_fields = 1
        self._cols: dict[str, list[np.ndarray]] = {c: [] for c in _COLS}
        self.mods: list[tuple] = []

    # -- fields -----------------------------------------------------------------------------
    def fields(self, topo) -> np.ndarray:
        """Register fields ``(21,)`` or ``(n, 21)``; return their row ids in the table."""
        f = np.atleast_2d(np.asarray(topo, dtype=np.float64))
        if f.shape[1] != N_CH:
            raise ValueError(f"fields have {f.shape[1]} electrodes, expected {N_CH}")
        ids = np.arange(self._n_fields, self._n_fields + len(f))
        self._fields.append(f)
        self._n_fields += len(f)
        return ids if np.ndim(topo) > 1 else ids[0]

    # -- atoms ------------------------------------------------------------------------------
    def add(
        self,
        kind: int,
        t,
        amp,
        a,
        b,
        c=0.0,
        k=0.0,
        ch=0.0,
        *,
        topo,
        sk=0.0,
        window=None,
        brain: bool = False,
    ) -> None:
        """Add atoms (array arguments broadcast together).

        Parameters
        ----------
        kind : int
            ``GABOR``, ``TRANS``, ``POP`` or ``BOX``.
        t, amp, a, b, c, k, ch, sk : float or array
            Centre (or onset) time s, peak amplitude uV, shape parameters (module docstring).
        topo : int array of field ids, or float array (21,) / (n, 21) of fields
        window : (w0, w1) or (w0, w1, ramp), optional
            Absolute times outside which the atoms are cut to zero (with a ``ramp`` s taper
            inside): how seizure activity is kept inside its interval.
        brain : bool
            Cerebral activity (scaled by the scene's modulations: ictal and post-ictal
            attenuation); artifacts are not.
        """
        t = np.atleast_1d(np.asarray(t, dtype=np.float64))
        if np.issubdtype(np.asarray(topo).dtype, np.integer):
            ids = np.asarray(topo)
        else:
            ids = self.fields(topo)
        n = np.broadcast_shapes(
            t.shape,
            np.shape(amp),
            np.shape(a),
            np.shape(b),
            np.shape(c),
            np.shape(k),
            np.shape(ch),
            np.shape(sk),
            np.shape(ids),
        )[0]
        if n == 0:
            return
        w0, w1, wr = (-np.inf, np.inf, 0.1) if window is None else (tuple(window) + (0.1,))[:3]
        vals = dict(
            kind=kind,
            t=t,
            amp=amp,
            a=a,
            b=b,
            c=c,
            k=k,
            ch=ch,
            sk=sk,
            w0=w0,
            w1=w1,
            wr=wr,
            topo=ids,
            brain=float(brain),
        )
        for name, v in vals.items():
            dt = _DTYPES.get(name, np.float32)
            self._cols[name].append(np.broadcast_to(np.asarray(v, dtype=dt), (n,)).copy())

    def modulate(self, t0, t1, depth, field, ramp=1.0, tau=0.0) -> None:
        """Scale brain atoms down by ``depth`` where ``field`` covers them, from ``t0`` to
        ``t1`` (linear ramp in over ``ramp`` s), recovering exponentially (``tau`` s) after."""
        self.mods.append(
            (float(t0), float(t1), float(depth), np.asarray(field, float), float(ramp), float(tau))
        )

    def count(self) -> int:
        """Atoms added so far."""
        return int(sum(len(x) for x in self._cols["t"]))

    # -- rendering --------------------------------------------------------------------------
    def _gain(self, t, ids, table) -> np.ndarray:
        """Product of the modulations at times ``t`` for atoms of field rows ``ids``."""
        g = np.ones_like(t)
        w = np.abs(table)
        norm = w.sum(1) + 1e-12
        for t0, t1, depth, field, ramp, tau in self.mods:
            end = t1 + (8.0 * tau if tau > 0 else 0.0)
            sel = np.flatnonzero((t > t0) & (t < end))
            if not len(sel):
                continue
            ov = np.clip((w @ field) / norm, 0.0, 1.0)[ids[sel]]  # how much of the field
            ts = t[sel]
            env = np.clip((ts - t0) / max(ramp, 1e-3), 0.0, 1.0)
            after = ts > t1
            env = np.where(after, np.exp(-(ts - t1) / tau) if tau > 0 else 0.0, env)
            g[sel] *= 1.0 - depth * ov * env
        return g

    def render(self) -> np.ndarray:
        """Sum every atom: float32 array (21, n) in microvolts."""
        if not self._cols["t"]:
            return np.zeros((N_CH, self.n), dtype=np.float32)
        col = {c: np.concatenate(v) for c, v in self._cols.items()}
        self._cols = {c: [] for c in _COLS}  # the scene is consumed: free the pieces
        table = np.concatenate(self._fields)
        if self.mods:
            br = col["brain"]
            col["amp"][br] *= self._gain(col["t"][br], col["topo"][br], table).astype(np.float32)
        pad_n = int(np.ceil(self.pad * self.fs))
        ntot = self.n + 2 * pad_n
        n_levels = 1
        while self.fs / 2**n_levels >= 2.0 and ntot / 2**n_levels >= 64:
            n_levels += 1
        kind, a, b, k, ch = col["kind"], col["a"], col["b"], col["k"], col["ch"]
        ftop = top_frequency(kind, a, b, k, ch, col["sk"])
        with np.errstate(divide="ignore"):
            lev = np.floor(np.log2(self.fs / (_MARGIN * np.maximum(ftop, 1e-3))))
        lev = np.clip(lev, 0, n_levels - 1).astype(int)
        # windowed atoms at the full rate: their cut must not ring through the upsampling
        lev[np.isfinite(col["w0"]) | np.isfinite(col["w1"])] = 0
        lo, hi = extent(kind, a, b, ch)
        out = None
        for j in range(n_levels - 1, -1, -1):
            nj = -(-ntot // 2**j)
            if out is not None:
                out = _upsample2(out, nj)
            sel = np.flatnonzero(lev == j)
            if len(sel):
                if out is None:
                    out = np.zeros((N_CH, nj), dtype=np.float32)
                rate = self.fs / 2**j
                _scatter(out, rate, self.pad, col, sel, lo[sel], hi[sel], table)
        return out[:, pad_n : pad_n + self.n].astype(np.float32, copy=False)


def _upsample2(x: np.ndarray, n: int) -> np.ndarray:
    """Double the rate (sample ``2i`` of the result is sample ``i`` of ``x``), keep ``n``."""
    out = np.empty((x.shape[0], n), dtype=np.float32)
    for i in range(x.shape[0]):
        out[i] = resample_poly(x[i], 2, 1)[:n]
    return out


def _scatter(out, rate, pad, col, sel, lo, hi, table) -> None:
    """Add the atoms ``sel`` of ``col`` (all drawn at ``rate``) into ``out`` (21, n_level)."""
    n_out = out.shape[1]
    kinds = col["kind"][sel]
    t = col["t"][sel] + pad
    s = np.ceil((t + lo) * rate).astype(np.int64)
    length = np.floor((t + hi) * rate).astype(np.int64) - s + 1
    keep = (length > 0) & (s < n_out) & (s + length > 0)
    length = np.maximum(length, 1)
    # lengths rounded up to 2**(i/2): little waste, few distinct shapes to vectorise over
    bucket = np.ceil(2 ** (np.ceil(2.0 * np.log2(np.maximum(length, 4))) / 2.0)).astype(np.int64)
    for kind in np.unique(kinds[keep]):
        for lb in np.unique(bucket[keep & (kinds == kind)]):
            idx = np.flatnonzero(keep & (kinds == kind) & (bucket == lb))
            idx = idx[np.argsort(s[idx], kind="stable")]
            m = max(1, _CHUNK // int(lb))
            starts = s[idx]
            # chunks of at most m atoms spanning at most _SPAN samples: the dense (span x 21)
            # product of a chunk must stay small even when its atoms are sparse in time
            i = 0
            while i < len(idx):
                j = min(i + m, int(np.searchsorted(starts, starts[i] + _SPAN)))
                j = max(j, i + 1)
                part = idx[i:j]
                _scatter_chunk(
                    out, rate, pad, int(kind), int(lb), sel[part], s[part], length[part], col, table
                )
                i = j


def _scatter_chunk(out, rate, pad, kind, lb, part, sp, length, col, table) -> None:
    """Atoms ``part`` (of one kind, support ``length`` <= ``lb`` samples from ``sp``)."""
    n_out = out.shape[1]
    lo = max(int(sp.min()), 0)
    hi = min(int(sp.max()) + lb, n_out)
    # offsets in float32 (after subtracting in float64): half the cost, errors far below 1e-3
    tau = (sp / rate - pad - col["t"][part]).astype(np.float32)[:, None] + (
        np.arange(lb, dtype=np.float32)[None, :] / np.float32(rate)
    )
    p = {n: col[n][part][:, None].astype(np.float32) for n in ("a", "b", "c", "k", "ch", "sk")}
    w = waveform(kind, tau, p)
    w *= col["amp"][part][:, None].astype(np.float32)
    w *= np.arange(lb)[None, :] < length[:, None]
    tp = col["t"][part]
    cut = np.flatnonzero(np.isfinite(col["w0"][part]) | np.isfinite(col["w1"][part]))
    if len(cut):  # windowed atoms: taper to zero outside [w0, w1] (relative times, float32)
        ramp = np.maximum(col["wr"][part][cut], 1e-3)[:, None]
        d0 = np.clip(tp[cut] - col["w0"][part][cut], -1e6, 1e6)[:, None]
        d1 = np.clip(col["w1"][part][cut] - tp[cut], -1e6, 1e6)[:, None]
        tc = tau[cut]
        w[cut] *= np.clip((tc + d0) / ramp, 0.0, 1.0) * np.clip((d1 - tc) / ramp, 0.0, 1.0)
    cols = (sp - lo).astype(np.int32)[:, None] + np.arange(lb, dtype=np.int32)[None, :]
    if sp.min() < 0 or sp.max() + lb > n_out:  # atoms straddling the ends of the buffer
        w *= (cols >= 0) & (cols < hi - lo)
        np.clip(cols, 0, hi - lo - 1, out=cols)
    m = len(part)
    indptr = np.arange(0, m * lb + 1, lb, dtype=np.int32)
    mat = sparse.csr_matrix((w.ravel(), cols.ravel(), indptr), shape=(m, hi - lo), copy=False)
    topo = table[col["topo"][part]].astype(np.float32)
    out[:, lo:hi] += (mat.T @ topo).T
