"""Building blocks of seizures: the shared state of one seizure being rendered, its cycle
times, per-cycle variability, evolving fields, spread, background attenuation, the artifacts of
the clinical seizure and the post-ictal changes. :mod:`rt_eeg.xsim.atoms.seizures` builds the
morphologies from them.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.atoms import artifacts as A
from rt_eeg.xsim.atoms import complexes as C
from rt_eeg.xsim.atoms import fields as F
from rt_eeg.xsim.atoms.render import GABOR, Scene

Events = list[tuple[float, float, str]]


def interp(u, pts, log: bool = False) -> np.ndarray:
    """Piecewise-linear (or log-linear) profile through ``pts = [(u, value), ...]``."""
    xs, ys = zip(*pts, strict=True)
    ys = np.asarray(ys, dtype=float)
    if log:
        return np.exp(np.interp(u, xs, np.log(ys)))
    return np.interp(u, xs, ys)


def smooth(x) -> np.ndarray:
    """Smoothstep: 0 below 0, 1 above 1, an S-curve between."""
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


class Ictal:
    """Shared state and tools of one seizure being rendered (``window``: its interval)."""

    def __init__(self, scene: Scene, mus: A.Muscle, patient: dict, start: float, stop: float, rng):
        self.scene, self.mus, self.rng = scene, mus, rng
        self.ep = patient["epilepsy"]
        self.start, self.stop = start, stop
        self.dur = stop - start
        self.window = (start, stop, 0.08)
        self.c0 = F.jitter(np.asarray(self.ep["centre"]), 4.0, rng)
        self.amp = self.ep["amp"] * float(np.exp(0.2 * rng.standard_normal()))
        self.ff = self.ep["f_factor"] * rng.uniform(0.92, 1.08)
        self.events: Events = []
        self.involved = F.gauss(self.c0, 40.0)

    def times(self, freq, jitter=0.03, drift=0.03, t0=None, t1=None):
        """Cycle times in ``[t0, t1]`` (default the whole seizure) of a rhythm whose frequency
        ``freq(u)`` is given as a function of the fraction ``u`` of the seizure elapsed;
        returns the times and their ``u``."""
        t0 = self.start if t0 is None else t0
        t1 = self.stop if t1 is None else t1
        a, b = (t0 - self.start) / self.dur, (t1 - self.start) / self.dur
        tk, _x = C.cycle_times(
            t0, t1, lambda x: freq(a + x * (b - a)), self.rng, jitter=jitter, drift=drift
        )
        tk = tk[(tk >= self.start) & (tk < self.stop)]
        return tk, (tk - self.start) / self.dur

    def vary(self, tk, spread: float = 0.15) -> np.ndarray:
        """Per-cycle amplitude factors: cycle-to-cycle scatter and a slow waxing and waning
        (ictal rhythms are regular, not perfectly so)."""
        rng = self.rng
        per = rng.uniform(2.0, 6.0)
        slow = 1.0 + rng.uniform(0.05, 0.25) * np.sin(2 * np.pi * tk / per + rng.uniform(0, 6.3))
        return slow * np.exp(spread * rng.standard_normal(len(tk)))

    def focal_fields(self, u, w0, w1, grow=0.6, centre=None) -> np.ndarray:
        """Fields at the focus (or ``centre``) widening from ``w0`` to ``w1`` degrees by the
        fraction ``grow`` of the seizure, one per cycle ``u``."""
        c = self.c0 if centre is None else centre
        w = w0 + (w1 - w0) * smooth(u / grow)
        return F.roughen(F.gauss(np.tile(c, (len(u), 1)), w), 0.07, self.rng)

    def general_fields(self, n: int, width: float, asym: float = 0.1) -> np.ndarray:
        """``n`` broad bilateral fields (frontal maximum), slightly asymmetric."""
        f = F.gauss(np.tile(self.c0, (n, 1)), width)
        side = 1.0 + asym * self.rng.standard_normal() * F.XYZ[:, 1]
        return F.roughen(f * side, 0.06, self.rng)

    def contra(self, tk, u, onset_u, gain, draw):
        """Propagation to the homologous region, lagging by 10-40 ms."""
        m = u > onset_u
        if not np.any(m) or gain <= 0:
            return
        g = gain * smooth((u[m] - onset_u) / 0.15)
        draw(tk[m] + self.rng.uniform(0.01, 0.04), u[m], g, F.mirror(self.c0))
        self.involved = np.maximum(self.involved, F.gauss(F.mirror(self.c0), 40.0))

    def attenuate(self, t0, t1, depth, field, ramp=0.3) -> None:
        """Background attenuation (electrodecrement) under ``field``."""
        self.scene.modulate(t0, t1, depth, field, ramp=ramp)

    # -- artifacts of the clinical seizure ---------------------------------------------------
    def obscure(self, p_muscle: float, p_chew: float, p_move: float) -> None:
        """Muscle, chewing (oral automatisms) and movement during the seizure, each with its
        probability."""
        rng, win = self.rng, (self.start, self.stop + 2.0, 0.2)
        if rng.random() < p_muscle:
            a = self.start + rng.uniform(0.1, 0.6) * self.dur
            b = min(self.stop + 1.0, a + rng.uniform(0.3, 1.0) * self.dur)
            region = str(
                rng.choice(
                    ["temporalis_L", "temporalis_R", "temporalis_both", "frontalis", "diffuse"]
                )
            )
            self.mus.burst(
                a, b, A.muscle_weights(region, rng), float(rng.uniform(10.0, 45.0)), rng, window=win
            )
            self.events.append((a, b, "muscle_ictal"))
        if rng.random() < p_chew and self.dur > 8:
            a = self.start + rng.uniform(0.15, 0.5) * self.dur
            b = min(self.stop, a + rng.uniform(0.3, 0.8) * self.dur)
            A.chewing(self.scene, self.mus, a, b, rng, window=win)
            self.events.append((a, b, "chewing_ictal"))
        if rng.random() < p_move:
            a = self.start + rng.uniform(0.2, 0.8) * self.dur
            d = float(min(rng.uniform(1.0, 5.0), self.stop + 1.0 - a))
            A.movement(self.scene, self.mus, a, d, rng, window=win)
            self.events.append((a, a + d, "movement_ictal"))

    def postictal(self, depth: float, field, slow_amp: float) -> None:
        """Suppression of the involved background, then polymorphic delta, fading."""
        rng, stop = self.rng, self.stop
        sup = float(rng.uniform(5.0, 40.0))
        rec = float(rng.uniform(30.0, 200.0))
        self.scene.modulate(stop - 0.3, stop + sup, depth, field, ramp=0.3, tau=rec / 3)
        n = rng.poisson(1.6 * (sup + rec))
        t = stop + sup * 0.3 + rng.exponential((sup + rec) / 2.0, n)
        f = np.exp(rng.uniform(np.log(0.5), np.log(3.0), n))
        a = slow_amp * np.exp(-(t - stop) / rec) * np.exp(0.35 * rng.standard_normal(n))
        flds = F.roughen(np.tile(field, (n, 1)), 0.15, rng)
        self.scene.add(
            GABOR,
            t,
            a,
            f,
            rng.uniform(0.4, 1.0, n) / f,
            rng.uniform(0, 6.3, n),
            rng.uniform(0.0, 2.0, n),
            topo=flds,
            brain=False,
        )
        self.events.append((stop, stop + sup + rec, "postictal_slowing"))

    # -- morphologies ------------------------------------------------------------------------
    def low_voltage_fast(
        self, t0, t1, amp, centre=None, width=None, f=(16.0, 30.0), f_end=None
    ) -> None:
        """Low-voltage fast activity from ``t0`` to ``t1``, slowing and growing a little."""
        rng = self.rng
        fa = rng.uniform(*f)
        fb = fa * 0.7 if f_end is None else f_end
        a, span = (t0 - self.start) / self.dur, max((t1 - t0) / self.dur, 1e-6)

        def local(u):
            return np.clip((u - a) / span, 0.0, 1.0)

        tk, u = self.times(
            lambda u: fa * (fb / fa) ** local(u), jitter=0.02, drift=0.03, t0=t0, t1=t1
        )
        x = local(u)
        w = self.ep["width"] * 0.8 if width is None else width
        fl = self.focal_fields(x, w, w * 1.3, grow=1.0, centre=centre)
        C.wave_train(
            self.scene,
            tk,
            fa * (fb / fa) ** x,
            amp * (0.4 + 0.6 * x),
            fl,
            k=0.0,
            ncyc=0.6,
            window=self.window,
            brain=False,
        )
