"""Seizures: planning (who is involved, when, how fast it evolves) and rendering.

Every seizure is a rhythmic discharge whose frequency, amplitude and waveform sharpness
follow kind-specific trajectories, recruited electrode by electrode from a focus (or almost
at once for generalised kinds), followed by post-ictal suppression and slowing. The
annotation of a seizure (TERM interval and per-channel intervals) comes from the same
:class:`Seizure` fields that drive the rendering, so labels and signal agree by construction:
a TCP channel is involved when either of its electrodes carries the discharge, from the
moment the first of them is recruited.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from rt_eeg.io.annotations import Event
from rt_eeg.sim import seizure_families as sf
from rt_eeg.sim.artifacts import _band_noise
from rt_eeg.sim.background import CTRL_SFREQ, gaussian_map
from rt_eeg.sim.families import FAMILIES
from rt_eeg.sim.layout import (
    DIST,
    EIDX,
    ELECTRODES,
    N_ELECTRODES,
    TCP_PAIRS,
    distances_to,
    tcp_pairs,
)
from rt_eeg.sim.profile import SEIZURE_KINDS, PatientProfile
from rt_eeg.sim.seizure_families import render_family

#: TUSZ subtype -> simulator kind, for annotation trees that give subtypes.
LABEL_KINDS: dict[str, str] = {
    "fnsz": "focal", "cpsz": "focal", "spsz": "focal", "gnsz": "generalized",
    "absz": "absence", "tnsz": "tonic", "tcsz": "tonic_clonic", "cnsz": "generalized",
    "clsz": "generalized", "mysz": "generalized", "atsz": "generalized", "nesz": "focal",
}  # fmt: skip
_TEMPORAL = {"T3", "T4", "F7", "F8", "T5", "T6"}
_TCP_VISIBLE = sorted({e for pair in TCP_PAIRS for e in pair} - {"A1", "A2"})
_FRONTAL_MAP = gaussian_map("FZ", 0.65)


@dataclass(frozen=True)
class SeizureSpec:
    """A seizure asked for by a caller; every field left as None is drawn.

    Attributes
    ----------
    start, stop : float
        Seconds from the start of the recording.
    kind : str, optional
        One of :data:`rt_eeg.sim.profile.SEIZURE_KINDS`.
    label : str, optional
        TUSZ subtype written in the per-channel csv (default: from the kind).
    focus : str, optional
        Onset electrode of focal kinds.
    subtle : bool, optional
        Low amplitude, confined to one to three electrodes.
    amplitude : float, optional
        Peak amplitude (uV) at the most involved electrode.
    onsets : dict of str -> float, optional
        Electrode -> recruitment delay (s after ``start``): fixes the involved electrodes.
    family : str, optional
        A seizure family (:data:`rt_eeg.sim.families.FAMILIES` ``['seizure']``); when given,
        ``kind`` and ``subtle`` are ignored and everything else follows the family.
    """

    start: float
    stop: float
    kind: str | None = None
    label: str | None = None
    focus: str | None = None
    subtle: bool | None = None
    amplitude: float | None = None
    onsets: dict | None = None
    family: str | None = None


@dataclass(frozen=True)
class Seizure:
    """A fully planned seizure (see :func:`plan_seizure`).

    Attributes
    ----------
    start, stop : float
        Seconds (the annotated interval).
    kind, label : str
        Classic kind (:data:`SEIZURE_KINDS`), or the family name for family seizures other
        than 'generalised'; TUSZ subtype written in the per-channel csv.
    focus : str
        Onset electrode ('' for generalised onsets).
    amp : float
        Peak microvolts at weight 1.
    weights : tuple of float
        ``(21,)`` relative amplitude per electrode; 0 = not involved.
    recruit : tuple of float
        ``(21,)`` recruitment delay after ``start`` (s); ``inf`` when not involved.
    delays : tuple of float
        ``(21,)`` propagation lag of the rhythm (s).
    params : dict
        Kind-specific trajectory parameters.
    postictal_s : float
        Length of post-ictal suppression and slowing after ``stop``.
    subtle : bool
    seed : int
    family : str
        Seizure family, '' for seizures planned by classic kind.
    """

    start: float
    stop: float
    kind: str
    label: str
    focus: str
    amp: float
    weights: tuple
    recruit: tuple
    delays: tuple
    params: dict = field(default_factory=dict, compare=False)
    postictal_s: float = 0.0
    subtle: bool = False
    seed: int = 0
    family: str = ""  # seizure family ('' for seizures planned by classic kind)

    @property
    def duration(self) -> float:
        return self.stop - self.start

    @property
    def electrodes(self) -> list[str]:
        """Involved electrodes in recruitment order."""
        idx = [i for i in range(N_ELECTRODES) if self.weights[i] > 0]
        return [ELECTRODES[i] for i in sorted(idx, key=lambda i: (self.recruit[i], i))]

    def channel_events(self, montage: str | None = None) -> list[Event]:
        """Per-channel seizure events: TCP channels with an involved electrode.

        Each starts when the first of its two electrodes is recruited and ends with the
        seizure. Channel order is TCP order.
        """
        out = []
        for a, b in tcp_pairs(montage):
            r = min(self.recruit[EIDX[a]], self.recruit[EIDX[b]])
            if math.isfinite(r):
                t0 = min(self.start + r, self.stop - 0.1)
                out.append(Event(round(t0, 4), round(self.stop, 4), self.label, 1.0, f"{a}-{b}"))
        return out

    def term_event(self) -> Event:
        """The whole-recording (csv_bi) event: label 'seiz'."""
        return Event(round(self.start, 4), round(self.stop, 4), "seiz", 1.0, "TERM")

    def render(self, sfreq: float) -> tuple[np.ndarray, np.ndarray]:
        """Render the discharge and its aftermath.

        Returns
        -------
        wave : np.ndarray
            ``(n, 21)`` float32 microvolts added to the potentials from sample
            ``floor(start * sfreq)`` on; ``n`` covers the seizure and ``postictal_s``.
        bg_gain : np.ndarray
            ``(m, 21)`` float32 multiplicative gain of the background on a
            :data:`CTRL_SFREQ` grid starting at ``start`` (ictal replacement, post-ictal
            suppression).
        """
        if self.family and self.kind == self.family:
            return render_family(self, float(sfreq))
        return _render(self, float(sfreq))


# --------------------------------------------------------------------------------------------
# planning


def _choose_kind(profile: PatientProfile, duration: float, rng) -> str:
    kinds, probs = list(profile.kinds), np.asarray(profile.kind_probs, dtype=float)
    ok = np.array([_kind_fits(k, duration) for k in kinds])
    if not ok.any():
        return "focal"
    p = probs * ok
    return kinds[int(rng.choice(len(kinds), p=p / p.sum()))]


def _kind_fits(kind: str, duration: float) -> bool:
    if kind == "absence":
        return duration <= 40.0
    if kind == "tonic_clonic":
        return duration >= 25.0
    if kind == "tonic":
        return duration <= 60.0
    return True


def plan_seizure(
    spec: SeizureSpec,
    profile: PatientProfile,
    rng: np.random.Generator,
    *,
    gap_after: float = math.inf,
) -> Seizure:
    """Draw every detail of a seizure not fixed by ``spec``.

    Parameters
    ----------
    spec : SeizureSpec
    profile : PatientProfile
        Supplies the patient's usual kinds, focus and amplitude.
    rng : np.random.Generator
    gap_after : float
        Seconds until the next seizure (bounds the post-ictal period).
    """
    dur = float(spec.stop - spec.start)
    if not dur > 0:
        raise ValueError(f"seizure stop {spec.stop} is not after start {spec.start}")
    if spec.family:
        return _plan_family(spec, profile, rng, gap_after)
    kind = spec.kind or _choose_kind(profile, dur, rng)
    if kind not in SEIZURE_KINDS:
        raise ValueError(
            f"unknown seizure kind {kind!r} (expected one of {', '.join(SEIZURE_KINDS)})"
        )
    focal = kind in ("focal", "focal_lvf")
    subtle = (
        bool(spec.subtle)
        if spec.subtle is not None
        else bool(focal and rng.random() < profile.subtle_prob)
    )
    focus = spec.focus or (profile.focus if rng.random() < 0.85 else _neighbour(profile.focus, rng))
    if spec.label:
        label = spec.label
    elif kind == "focal" and focus in _TEMPORAL and profile.seed % 2 == 0:
        label = "cpsz"
    else:
        label = SEIZURE_KINDS[kind]
    amp = spec.amplitude or profile.seizure_uv * float(rng.lognormal(0.0, 0.2))
    # generalised fields are broad, so a bipolar montage sees only their gradient: they
    # must be large on the scalp to look as they do on a TCP page
    generalised_uv = {"absence": (350.0, 700.0), "generalized": (200.0, 450.0),
                      "tonic": (120.0, 250.0), "tonic_clonic": (150.0, 300.0)}  # fmt: skip
    if kind in generalised_uv:
        amp = spec.amplitude or float(rng.uniform(*generalised_uv[kind]))
    if subtle and not spec.amplitude:
        amp = max(18.0, amp * float(rng.uniform(0.18, 0.35)))

    weights = np.zeros(N_ELECTRODES)
    recruit = np.full(N_ELECTRODES, np.inf)
    if focal:
        d = distances_to(focus)
        extent = float(rng.uniform(0.5, 0.66)) if subtle else float(rng.uniform(0.75, 1.35))
        spread_s = min(0.5 * dur, float(rng.uniform(3.0, 25.0)))
        sigma = max(0.35, extent / 1.6)
        inv = d <= extent
        weights[inv] = np.exp(-0.5 * (d[inv] / sigma) ** 2)
        recruit[inv] = spread_s * (d[inv] / extent) * rng.uniform(0.8, 1.2, inv.sum())
        recruit[EIDX[focus]] = 0.0
        delays = d * float(rng.uniform(0.02, 0.06))
    else:
        focus = ""
        # bilateral, frontally predominant field with a clear anterior-posterior gradient
        floor = 0.1 if kind == "absence" else 0.2
        weights[:] = floor + (1 - floor) * _FRONTAL_MAP * rng.uniform(0.9, 1.1, N_ELECTRODES)
        weights[[EIDX["A1"], EIDX["A2"]]] *= 0.6
        weights /= weights.max()
        lag = 0.1 if kind == "absence" else 0.8
        recruit[:] = rng.uniform(0.0, lag, N_ELECTRODES)
        recruit[int(np.argmax(weights))] = 0.0
        delays = (
            np.zeros(N_ELECTRODES) if kind == "absence" else rng.uniform(0.0, 0.006, N_ELECTRODES)
        )
    weights, recruit = _fix_onsets(weights, recruit, spec.onsets, dur)
    params = _draw_params(kind, dur, subtle, rng)
    post = {"absence": 0.0, "tonic": rng.uniform(10, 60), "tonic_clonic": rng.uniform(60, 300),
            "generalized": rng.uniform(30, 180)}.get(kind, rng.uniform(20, 200))  # fmt: skip
    if subtle:
        post *= 0.3
    post = float(max(0.0, min(post, gap_after - 1.0)))
    return Seizure(
        start=float(spec.start), stop=float(spec.stop), kind=kind, label=label, focus=focus,
        amp=float(amp), weights=tuple(float(w) for w in weights),
        recruit=tuple(float(r) for r in recruit), delays=tuple(float(x) for x in delays),
        params=params, postictal_s=post, subtle=subtle, seed=int(rng.integers(2**31)),
    )  # fmt: skip


def _fix_onsets(weights, recruit, onsets, dur):
    """Apply electrode onsets given by the caller; make the first TCP-visible electrode
    start at 0 s."""
    if onsets:
        weights_fixed = np.zeros(N_ELECTRODES)
        recruit = np.full(N_ELECTRODES, np.inf)
        for e, r in onsets.items():
            i = EIDX[e]
            weights_fixed[i] = max(weights[i], 0.5)
            recruit[i] = float(max(0.0, min(r, dur - 0.5)))
        weights = weights_fixed / weights_fixed.max()

    # the annotated onset is when the first electrode a TCP page shows (every TCP electrode
    # but the ears, which the _a montages lack) takes part; FZ / PZ are in no TCP channel
    visible = [EIDX[e] for e in _TCP_VISIBLE if math.isfinite(recruit[EIDX[e]])]
    if visible:
        recruit = np.maximum(recruit - min(recruit[i] for i in visible), 0.0)
    return weights, recruit


def _plan_family(spec: SeizureSpec, profile: PatientProfile, rng, gap_after: float) -> Seizure:
    """Plan a seizure of ``spec.family`` (see :mod:`rt_eeg.sim.seizure_families`)."""
    fam = spec.family
    if fam not in FAMILIES["seizure"]:
        raise ValueError(
            f"unknown seizure family {fam!r} (expected one of {', '.join(FAMILIES['seizure'])})"
        )
    dur = float(spec.stop - spec.start)
    classic = sf.classic_kind(fam, dur, rng)
    if classic is not None:
        sz = plan_seizure(replace(spec, family=None, kind=classic, subtle=False), profile, rng,
                          gap_after=gap_after)  # fmt: skip
        return replace(sz, family=fam)
    extent = sf.draw_extent(fam, rng)
    focus = spec.focus or (profile.focus if rng.random() < 0.85 else _neighbour(profile.focus, rng))
    weights, recruit, delays = sf.draw_field(extent, focus, dur, rng)
    weights, recruit = _fix_onsets(weights, recruit, spec.onsets, dur)
    amp = spec.amplitude or sf.family_amplitude(fam, extent, profile, rng)
    label = spec.label or sf.family_label(fam, extent, focus, dur, profile)
    params = sf.draw_params(fam, dur, extent, rng)
    params["extent"] = extent
    post = float(max(0.0, min(sf.postictal_s(fam, extent, rng), gap_after - 1.0)))
    return Seizure(
        start=float(spec.start), stop=float(spec.stop), kind=fam, label=label,
        focus="" if extent == "generalised" else focus, amp=float(amp),
        weights=tuple(float(x) for x in weights), recruit=tuple(float(r) for r in recruit),
        delays=tuple(float(x) for x in delays), params=params, postictal_s=post,
        subtle=extent == "subtle", seed=int(rng.integers(2**31)), family=fam,
    )  # fmt: skip


def _neighbour(e: str, rng) -> str:
    d = distances_to(e)
    near = [ELECTRODES[i] for i in np.argsort(d)[1:5] if ELECTRODES[i] in _TCP_VISIBLE]
    return str(rng.choice(near)) if near else e


def _draw_params(kind: str, dur: float, subtle: bool, rng) -> dict:
    u = rng.uniform
    if kind == "focal":
        return dict(f0=u(4.5, 8.0), f1=u(2.0, 3.8), p=u(0.7, 1.4), a0=u(0.15, 0.35),
                    build=min(0.5 * dur, u(10.0, 30.0)), s0=u(0.05, 0.3), s1=u(0.45, 0.8),
                    burst=u(0.3, 0.6), tau_rec=u(1.0, 3.0))  # fmt: skip
    if kind == "focal_lvf":
        lvf = min(0.3 * dur, u(3.0, 10.0))
        return dict(lvf=lvf, fl0=u(18.0, 25.0), fl1=u(12.0, 15.0), f0=u(6.0, 9.0), f1=u(2.5, 4.0),
                    p=u(0.7, 1.3), a0=u(0.12, 0.2), build=min(0.5 * dur, lvf + u(10.0, 25.0)),
                    s0=0.05, s1=u(0.4, 0.7), burst=u(0.3, 0.6), tau_rec=u(1.0, 3.0))  # fmt: skip
    if kind == "generalized":
        return dict(f0=u(3.8, 5.5), f1=u(2.3, 3.3), p=1.0, a0=u(0.35, 0.6), build=u(1.0, 4.0),
                    s0=u(0.25, 0.45), s1=u(0.5, 0.75), burst=u(0.3, 0.7), tau_rec=0.5)  # fmt: skip
    if kind == "absence":
        return dict(f0=u(3.4, 4.0), f1=u(2.6, 3.0), tau_rec=0.2)
    if kind == "tonic":
        return dict(f0=u(20.0, 25.0), f1=u(10.0, 14.0), muscle=u(30.0, 90.0), tau_rec=0.5)
    if kind == "tonic_clonic":
        return dict(tonic=u(0.3, 0.45), f0=u(20.0, 26.0), f1=u(10.0, 13.0), b0=u(3.0, 4.5),
                    b1=u(0.8, 1.3), muscle=u(120.0, 350.0), tau_rec=0.5)  # fmt: skip
    raise ValueError(kind)


# --------------------------------------------------------------------------------------------
# rendering


def _smoothstep(x):
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


_VM_K = 6.0
_VM_C0 = float(np.i0(_VM_K) * np.exp(-_VM_K))


def rhythmic_wave(phi: np.ndarray, sharp: np.ndarray) -> np.ndarray:
    """Rhythmic discharge of unit amplitude: a sine morphing into surface-negative spikes.

    Parameters
    ----------
    phi : np.ndarray
        Phase (rad), any shape.
    sharp : np.ndarray
        Sharpness in [0, 1] broadcastable to ``phi`` (0 sine, 1 spike train).
    """
    return _raw_wave(phi, sharp) / np.interp(sharp, _SHARP_GRID, _SHARP_RMS) * np.sqrt(0.5)


def _raw_wave(phi, sharp):
    spike = (np.exp(_VM_K * (np.cos(phi) - 1.0)) - _VM_C0) / (1.0 - _VM_C0)
    return (1.0 - sharp) * np.sin(phi) - sharp * 1.3 * spike + 0.15 * np.sin(2 * phi + 1.0)


# rms of the raw waveform per sharpness: the rhythm keeps its power (the rms of a sine of
# unit amplitude) as it turns spiky, so spikes stand out taller than the sine they replace
_SHARP_GRID = np.linspace(0.0, 1.0, 21)
_PHI_GRID = np.linspace(0.0, 2 * np.pi, 512, endpoint=False)
_SHARP_RMS = np.array([np.sqrt(np.mean(_raw_wave(_PHI_GRID, s) ** 2)) for s in _SHARP_GRID])


def _wrapped_gauss(phi, mu, sigma):
    d = np.angle(np.exp(1j * (phi - mu)))
    return np.exp(-0.5 * (d / sigma) ** 2)


def spike_wave(phi: np.ndarray) -> np.ndarray:
    """3 Hz spike-and-wave complex per cycle: negative spike, brief positivity, slow wave."""
    y = -1.0 * _wrapped_gauss(phi, 0.0, 0.28)
    y += 0.35 * _wrapped_gauss(phi, 0.9, 0.45)
    y -= 0.6 * _wrapped_gauss(phi, np.pi + 0.5, 1.0)
    return y + 0.2  # roughly zero mean over a cycle


def _coherent_noise(
    rng, n: int, cols: np.ndarray, lo: float, hi: float, sfreq: float, local: float = 0.2
) -> np.ndarray:
    """``(n, k)`` band-limited noise on electrodes ``cols``, smooth across the scalp.

    Three shared sources spread by broad Gaussian maps plus a ``local`` independent part:
    ictal activity is coherent, so neighbouring electrodes do not turn into noise when a
    bipolar montage subtracts them.
    """
    k = len(cols)
    centres = rng.choice(N_ELECTRODES, 3)
    maps = np.stack([np.exp(-0.5 * (DIST[c, cols] / 0.8) ** 2) for c in centres])
    shared = _band_noise(rng, n, 3, lo, hi, sfreq) @ maps
    shared /= np.maximum(shared.std(axis=0, keepdims=True), 1e-9)
    out = shared * math.sqrt(1.0 - local**2)
    if local > 0:
        out += local * _band_noise(rng, n, k, lo, hi, sfreq)
    return out


def postictal_slowing(sz, rng, n_post: int, w: np.ndarray, sfreq: float) -> np.ndarray:
    """Decaying post-ictal delta over the involved field.

    Parameters
    ----------
    sz : Seizure
    rng : np.random.Generator
    n_post : int
        Samples of the post-ictal period.
    w : ndarray, shape (k,)
        Weights of the involved electrodes.

    Returns
    -------
    slowing : ndarray of float32, shape (n_post, k)
    """
    tp = np.arange(n_post) / sfreq
    decay = np.exp(-tp / max(sz.postictal_s / 3.0, 1.0))
    delta_uv = rng.uniform(20.0, 60.0) * (0.4 if sz.subtle else 1.0)
    src = _band_noise(rng, n_post, 3, 0.5, 2.5, sfreq)
    mix = rng.uniform(0.3, 1.0, (3, len(w))) * w[None, :]
    mix /= np.sqrt((mix**2).sum(axis=0, keepdims=True))
    return ((delta_uv * decay)[:, None] * (src @ mix)).astype(np.float32)


def _render(sz: Seizure, sfreq: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(sz.seed)
    P = sz.params
    D = sz.duration
    n_sz = max(2, int(round(D * sfreq)))
    n_post = int(round(sz.postictal_s * sfreq))
    n = n_sz  # the discharge itself; the post-ictal part is added below
    t = np.arange(n) / sfreq
    u = np.clip(t / D, 0.0, 1.0)
    ins = t < D
    cols = np.flatnonzero(np.asarray(sz.weights) > 0)
    k = len(cols)
    w = np.asarray(sz.weights)[cols]
    rec = np.asarray(sz.recruit)[cols]
    dly = np.asarray(sz.delays)[cols]
    wander = np.exp(0.15 * _band_noise(rng, n, 1, 0.05, 0.5, sfreq)[:, 0])

    f = np.zeros(n)
    A = np.zeros(n)
    sharp = np.zeros(n)
    muscle = np.zeros(n)
    wave_kind = "rhythmic"
    bg_in = 0.4  # background left at full involvement
    kind = sz.kind
    if kind in ("focal", "generalized"):
        f = P["f1"] + (P["f0"] - P["f1"]) * (1.0 - u) ** P["p"]
        A = P["a0"] + (1.0 - P["a0"]) * _smoothstep(t / P["build"])
        sharp = P["s0"] + (P["s1"] - P["s0"]) * u
        late = _smoothstep((u - 0.7) / 0.3)
        A = A * (1.0 - P["burst"] * late * (0.5 - 0.5 * np.cos(2 * np.pi * 0.7 * t)))
    elif kind == "focal_lvf":
        lvf = P["lvf"]
        ph1 = t < lvf
        f = np.where(ph1, P["fl0"] + (P["fl1"] - P["fl0"]) * t / lvf, 0.0)
        u2 = np.clip((t - lvf) / max(D - lvf, 1e-3), 0, 1)
        f = np.where(ph1, f, P["f1"] + (P["f0"] - P["f1"]) * (1.0 - u2) ** P["p"])
        A = np.where(
            ph1,
            P["a0"] * (0.6 + 0.4 * t / lvf),
            P["a0"] + (1 - P["a0"]) * _smoothstep((t - lvf) / (P["build"] - lvf)),
        )
        sharp = np.where(ph1, 0.0, P["s0"] + (P["s1"] - P["s0"]) * u2)
        late = _smoothstep((u - 0.7) / 0.3)
        A = A * (1.0 - P["burst"] * late * (0.5 - 0.5 * np.cos(2 * np.pi * 0.7 * t)))
        bg_in = 0.25
    elif kind == "absence":
        f = P["f0"] + (P["f1"] - P["f0"]) * u
        A = _smoothstep(t / 0.3)
        wave_kind = "spike_wave"
        bg_in = 0.5
    elif kind == "tonic":
        f = P["f0"] + (P["f1"] - P["f0"]) * u
        A = 0.15 + 0.45 * _smoothstep(t / max(0.6 * D, 1.0))
        muscle = P["muscle"] * _smoothstep(t / 3.0)
        bg_in = 0.3
    elif kind == "tonic_clonic":
        tonic = P["tonic"] * D
        ph1 = t < tonic
        f = np.where(ph1, P["f0"] + (P["f1"] - P["f0"]) * t / tonic, P["f1"])
        A = np.where(ph1, 0.15 + 0.55 * _smoothstep(t / tonic), 0.8)
        # clonic bursts slowing from b0 to b1 per second, gating spikes and muscle
        u2 = np.clip((t - tonic) / max(D - tonic, 1e-3), 0, 1)
        rate = P["b0"] + (P["b1"] - P["b0"]) * u2
        psi = 2 * np.pi * np.cumsum(rate) / sfreq
        gate = np.where(ph1, 1.0, np.clip(np.cos(psi), 0.0, None) ** 3)
        A = A * gate
        sharp = np.where(ph1, 0.1, 0.7)
        muscle = (
            P["muscle"]
            * _smoothstep(t / 3.0)
            * np.where(ph1, 0.4 + 0.6 * _smoothstep(t / tonic), gate)
        )
        bg_in = 0.2
    if kind in ("focal", "focal_lvf"):
        A = A * (0.6 + 0.4 * np.sqrt(u))  # keeps building as the rhythm slows
    # a brief offset so the seizure stops within ~1 s of its annotated end
    off = 1.0 - _smoothstep((t - (D - 0.8)) / 0.8)
    A = A * off * ins * wander
    f = np.where(ins, f, 0.0) * (1.0 + 0.05 * _band_noise(rng, n, 1, 0.05, 1.0, sfreq)[:, 0] * ins)
    muscle = muscle * off * ins

    phi = 2 * np.pi * np.cumsum(f) / sfreq + rng.uniform(0, 2 * np.pi)
    tau = P.get("tau_rec", 1.0)
    ramp = _smoothstep((t[:, None] - rec[None, :]) / tau)  # (n, k)
    # slow waxing and waning plus cycle-to-cycle variability, smooth across electrodes;
    # spike-and-wave is far more stereotyped than other discharges
    irregular = 0.3 if wave_kind == "spike_wave" else 1.0
    jit = 1.0 + 0.2 * irregular * _coherent_noise(rng, n, cols, 0.2, 1.5, sfreq)
    jit *= 1.0 + 0.15 * irregular * _coherent_noise(rng, n, cols, 1.0, 2.5, sfreq, local=0.1)
    ph_e = phi[:, None] - 2 * np.pi * f[:, None] * dly[None, :]
    if wave_kind == "spike_wave":
        shape = spike_wave(ph_e)
    else:
        shape = rhythmic_wave(ph_e, sharp[:, None])
    env = (sz.amp * A)[:, None] * ramp * jit * w[None, :]
    wave_k = env * shape
    # irregular ictal activity riding on the rhythm
    wave_k += 0.12 * irregular * env * _coherent_noise(rng, n, cols, 1.0, 20.0, sfreq)
    if muscle.any():
        wave_k += (muscle[:, None] * ramp) * _band_noise(rng, n, k, 20.0, 90.0, sfreq) * w[None, :]

    out = np.zeros((n_sz + n_post, N_ELECTRODES), dtype=np.float32)
    out[:n_sz, cols] = wave_k

    # post-ictal slowing: regional (focal) or diffuse delta, decaying
    if n_post > 0 and sz.kind != "absence":
        out[n_sz:, cols] += postictal_slowing(sz, rng, n_post, w, sfreq)

    # background gain on the control grid: replaced during the discharge, suppressed after
    m = int(math.ceil((D + sz.postictal_s) * CTRL_SFREQ)) + 2
    tc = np.arange(m) / CTRL_SFREQ
    gain = np.ones((m, N_ELECTRODES), dtype=np.float32)
    A_c = np.interp(tc, t, A / max(float(np.max(A)), 1e-9))
    if kind in ("focal_lvf", "tonic", "tonic_clonic"):
        A_c = np.maximum(A_c, (tc < D) * 1.0)  # electrodecrement from the first second
    ramp_c = _smoothstep((tc[:, None] - rec[None, :]) / tau)
    gain[:, cols] = 1.0 - (1.0 - bg_in) * ramp_c * A_c[:, None]
    if sz.postictal_s > 0:
        depth = {"tonic_clonic": 0.85, "generalized": 0.5, "tonic": 0.5}.get(kind, 0.45)
        after = tc >= D
        rec_c = 1.0 - np.clip((tc[after] - D) / sz.postictal_s, 0, 1)
        sup = (1.0 - depth * rec_c)[:, None]
        if kind in ("focal", "focal_lvf"):
            g = gain[after]
            g[:, cols] = 1.0 - depth * rec_c[:, None] * (w[None, :] / w.max())
            gain[after] = g
        else:
            gain[after] = sup
    return out, gain
