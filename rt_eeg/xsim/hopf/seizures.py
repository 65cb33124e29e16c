"""Seizures: the ictal band of an epileptogenic zone driven through the Hopf bifurcation.

Outside the requested intervals the ictal band sits far below the bifurcation with no noise
(and is gated to zero at the output rate), so it carries nothing. Inside, the zone's
oscillators get ``a > 0`` along a trajectory (low-voltage fast onset, then rhythmic theta
slowing to delta with growing amplitude), the coupling rises so that neighbouring nodes are
entrained, and nodes further away are recruited (their ``a`` crosses zero later): spread is
the network's own dynamics. Morphology comes from wave-shaping the oscillator phase (sharp
waves, spike-and-wave). Around the seizure the background of the zone is attenuated (onset
electrodecrement, post-ictal suppression with some slowing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rt_eeg.xsim.hopf.geometry import Geometry, electrode_point
from rt_eeg.xsim.hopf.network import BI, ChunkParams

#: Seizure morphologies a patient may have.
KINDS: tuple[str, ...] = (
    "focal_evolving", "rhythmic_theta", "rhythmic_delta", "spike_wave", "hemispheric",
    "subtle_focal", "obscured_by_muscle", "tonic_clonic",
)  # fmt: skip
#: Foci by lobe (electrode names), for focal kinds.
FOCI = {
    "temporal": ("T3", "T4", "F7", "F8", "T5", "T6"),
    "frontal": ("F3", "F4", "FP1", "FP2", "FZ"),
    "central": ("C3", "C4"),
    "parietal": ("P3", "P4"),
    "occipital": ("O1", "O2"),
}
A_REST = -5.0


@dataclass
class Plan:
    """One seizure's trajectories (knots in the fraction ``u`` of the seizure's duration)."""

    start: float
    stop: float
    kind: str
    drive: np.ndarray  # (N,) zone weight (1 = driven from onset)
    recruit_at: np.ndarray  # (N,) absolute recruitment time (inf: never)
    recruit_w: np.ndarray  # (N,) how far a recruited node is driven
    u: np.ndarray  # knot positions in [0, 1]
    f: np.ndarray  # carrier Hz at the knots
    a: np.ndarray  # zone bifurcation parameter at the knots
    k: np.ndarray  # coupling at the knots
    h2: np.ndarray
    sw: np.ndarray
    gain: float  # microvolts per unit
    off: float  # fraction of the duration taken by the offset
    onset_s: float  # electrodecrement duration
    post_s: float
    post_depth: float
    emg: list[tuple[float, float]] = field(default_factory=list)

    @property
    def involved(self) -> np.ndarray:
        return np.maximum(self.drive, np.where(np.isfinite(self.recruit_at), self.recruit_w, 0))


def _focus(patient: dict, rng: np.random.Generator) -> np.ndarray:
    p = electrode_point(patient["focus"]) + 0.08 * rng.standard_normal(3)
    return p / np.linalg.norm(p)


def plan(start: float, stop: float, patient: dict, geo: Geometry,
         rng: np.random.Generator) -> Plan:
    """Draw the trajectories of one seizure in ``[start, stop)``."""
    kinds, probs = patient["seizure_kinds"], patient["seizure_probs"]
    kind = str(rng.choice(kinds, p=np.asarray(probs) / np.sum(probs)))
    d = stop - start
    n = geo.n
    focus = _focus(patient, rng)
    dist = np.linalg.norm(geo.xyz - focus[None], axis=1)
    amax = float(rng.uniform(10.0, 18.0))
    gain = float(patient["ictal_uv"] * rng.uniform(0.8, 1.25))
    off = min(float(rng.uniform(0.3, 1.0)), 0.05 * d) / d  # a falls below zero before stop
    onset_s = float(min(max(2.0, 0.15 * d), 8.0))
    u1 = min(onset_s / d, 0.4)
    radius = float(rng.uniform(0.5, 1.1))
    spread_by = float(rng.uniform(0.4, 0.8))
    drive = np.exp(-(dist**2) / (2 * 0.27**2))
    drive[drive < 0.05] = 0.0
    emg: list[tuple[float, float]] = []
    h2_end, sw_end = float(rng.uniform(0.1, 0.5)), float(rng.choice([0.0, 0.0, 0.4, 0.7]))
    # Knots span [0, 1]; the offset (a pushed far below zero) is laid over the last ``off``.
    if kind in ("focal_evolving", "obscured_by_muscle"):
        ff = rng.uniform(14.0, 28.0)
        u = np.array([0, u1, min(u1 + 0.15, 0.7), 1])
        f = np.array([ff, 0.8 * ff, rng.uniform(5, 7.5), rng.uniform(2.0, 3.5)])
        a = np.array([3.0, 4.0, amax, 1.1 * amax])
        k = np.array([1.0, 2.0, 4.0, rng.uniform(5, 9)])
        h2 = np.array([0, 0.05, 0.2, h2_end])
        sw = np.array([0, 0, 0, sw_end])
        gain *= 1.8
        if kind == "obscured_by_muscle":
            emg.append((start + rng.uniform(0, 0.2) * d, stop - rng.uniform(0, 0.1) * d))
    elif kind in ("rhythmic_theta", "rhythmic_delta", "subtle_focal", "hemispheric"):
        lo, hi = {"rhythmic_theta": ((5.0, 7.5), (3.5, 5.0)), "rhythmic_delta": ((2.0, 3.5),
                  (1.4, 2.2)), "subtle_focal": ((4.0, 10.0), (3.5, 7.0)),
                  "hemispheric": ((4.0, 8.0), (2.5, 4.0))}[kind]
        u = np.array([0, 0.2, 0.85, 1])
        f0 = rng.uniform(*lo)
        f = np.array([f0, f0, min(f0, rng.uniform(*hi)), min(f0, rng.uniform(*hi))])
        am = amax * (0.5 if kind == "subtle_focal" else 1.0)
        a = np.array([2.0, 0.7 * am, am, 0.8 * am])
        k = np.array([1.5, 3.0, rng.uniform(4, 8), 6])
        h2 = np.array([0.1, 0.25, h2_end, h2_end])
        sw = np.array([0, 0, 0.5 * sw_end, 0.5 * sw_end])
        gain *= 1.8
        if kind == "subtle_focal":
            drive = np.exp(-(dist**2) / (2 * 0.2**2))
            drive[drive < 0.05] = 0.0
            radius, gain = 0.3, 0.45 * gain
        if kind == "hemispheric":
            side = np.sign(focus[1]) or 1.0
            drive = 1 / (1 + np.exp(-side * geo.xyz[:, 1] / 0.08))
            radius, gain = 0.0, gain / 1.8
    else:  # spike_wave, tonic_clonic: generalised
        frontal = np.exp(-np.sum((geo.xyz - electrode_point("FZ")) ** 2, 1) / (2 * 0.6**2))
        drive = 0.6 + 0.4 * frontal
        radius = 0.0
        if kind == "spike_wave":
            f0 = rng.uniform(2.8, 4.0)
            u = np.array([0, 0.1, 1])
            f = np.array([f0, f0, rng.uniform(2.3, 3.0)])
            a = np.array([9.0, 10.0, 8.0])
            k = np.array([10.0, 10.0, 10.0])
            h2 = np.zeros(3)
            sw = np.array([0.9, 0.95, 0.95])
        else:
            ut = min(max(0.3, 5.0 / d), 0.6)
            u = np.array([0, ut, min(ut + 0.1, 0.8), 1])
            f = np.array([rng.uniform(16, 24), 12.0, rng.uniform(3, 4.5), 2.0])
            a = np.array([2.0, amax, amax, 0.8 * amax])
            k = np.array([8.0, 12.0, 12.0, 12.0])
            h2 = np.array([0.0, 0.0, 0.3, 0.3])
            sw = np.array([0.0, 0.0, 0.7, 0.7])
            emg.append((start, start + ut * d))
    recruit_at = np.full(n, np.inf)
    recruit_w = np.zeros(n)
    if radius > 0:
        reach = (dist < radius) & (drive < 0.5)
        recruit_at[reach] = start + d * (u1 + (spread_by - u1) * dist[reach] / radius)
        recruit_w[reach] = np.clip(1.1 - dist[reach] / radius, 0.2, 1.0)
    return Plan(start=start, stop=stop, kind=kind, drive=drive, recruit_at=recruit_at,
                recruit_w=recruit_w, u=u, f=f, a=a, k=k, h2=h2, sw=sw, gain=gain, off=off,
                onset_s=onset_s, post_s=float(rng.uniform(20, 120)),
                post_depth=float(rng.uniform(0.2, 0.6)), emg=emg)


def apply(p: ChunkParams, t: np.ndarray, plans: list[Plan]) -> None:
    """Overlay the seizures (and their pre/post effects on the background) on chunk
    parameters at envelope times ``t``, in place."""
    ic = BI["ictal"]
    for pl in plans:
        if pl.start > t[-1] or pl.stop + pl.post_s < t[0]:
            continue
        inside = (t >= pl.start) & (t < pl.stop)
        if inside.any():
            ti = t[inside]
            u = (ti - pl.start) / (pl.stop - pl.start)
            az = np.where(u < 1 - pl.off, np.interp(u, pl.u, pl.a), -20.0)
            ramp = np.clip((ti[:, None] - pl.recruit_at[None]) / 4.0, 0.0, 1.0)
            drv = np.maximum(pl.drive[None], pl.recruit_w[None] * ramp)
            p.a[inside, ic] = A_REST + (az[:, None] - A_REST) * drv
            p.s[inside, ic] = 0.02 + 0.6 * drv  # noisy limit cycles in the zone: irregular waves
            p.k[inside, ic] = np.interp(u, pl.u, pl.k)
            p.f[inside, ic] = np.exp(np.interp(u, pl.u, np.log(np.maximum(pl.f, 0.5))))
            p.amp[inside, ic] = pl.gain
            p.h2[inside, 1] = np.interp(u, pl.u, pl.h2)
            p.sw[inside, 1] = np.interp(u, pl.u, pl.sw)
            # Onset electrodecrement of the zone's background.
            dec = np.clip(1 - (ti - pl.start) / pl.onset_s, 0, 1)[:, None] * pl.drive[None]
            p.amp[inside, :5] *= (1 - 0.6 * dec)[:, None, :]
        post = (t >= pl.stop) & (t < pl.stop + pl.post_s)
        if post.any():
            decay = (1 - (t[post] - pl.stop) / pl.post_s)[:, None] * pl.involved[None]
            p.amp[post, :5] *= (1 - pl.post_depth * decay)[:, None, :]
            p.amp[post, BI["delta"]] *= 1 + 1.5 * pl.post_depth * decay


def gate(n_out: int, i0: int, sfreq: float, plans: list[Plan]) -> np.ndarray:
    """Output-rate indicator of the requested intervals for samples ``i0 .. i0 + n_out``."""
    g = np.zeros(n_out, np.float32)
    for pl in plans:
        a = max(int(np.ceil(pl.start * sfreq)) - i0, 0)
        b = min(int(np.ceil(pl.stop * sfreq)) - i0, n_out)
        if b > a:
            g[a:b] = 1.0
    return g
