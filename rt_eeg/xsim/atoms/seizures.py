"""Seizures: atom processes that become regular and self-similar, and evolve.

A seizure is a train of complexes (one Gabor cycle, a spike, a spike-and-wave or a
polyspike-and-wave per cycle) placed at the cycles of an instantaneous frequency; along the
seizure (``u`` from 0 at onset to 1 at the end) the frequency, amplitude, sharpness, timing
regularity and spatial field evolve according to the morphology, and the field may spread to
the other hemisphere. Seizure atoms are not ``brain`` atoms of the scene: the ictal and
post-ictal attenuation they cause applies to the background, not to themselves. Every seizure
atom is cut to the requested interval (``window``), so the activity starts at ``start`` and
ends at ``stop``; what follows (post-ictal suppression and slowing) is cerebral but not
seizure. Muscle, chewing (automatisms) and movement may obscure
the seizure, as they do at the bedside.
"""

import numpy as np

from rt_eeg.xsim.atoms import artifacts as A
from rt_eeg.xsim.atoms import complexes as C
from rt_eeg.xsim.atoms import fields as F
from rt_eeg.xsim.atoms.ictal import Events, Ictal, interp, smooth
from rt_eeg.xsim.atoms.render import TRANS, Scene

TYPES = (
    "focal_evolving_rhythmic", "focal_lvfa", "focal_rhythmic_delta", "subtle_focal",
    "evolving_periodic", "focal_to_bilateral", "absence_spike_wave", "atypical_spike_wave",
    "tonic_clonic", "electrodecremental", "polyspike_wave",
)  # fmt: skip


def choose_type(patient: dict, rng) -> str:
    """The patient's usual morphology, or now and then another of its class."""
    ep = patient["epilepsy"]
    if rng.random() < ep["p_primary"]:
        return ep["primary"]
    keys = list(ep["types"])
    p = np.array([ep["types"][k] for k in keys])
    return str(keys[int(rng.choice(len(keys), p=p / p.sum()))])


class _Seizure(Ictal):
    """The morphologies: each method draws one seizure type into the scene."""

    def evolving_rhythmic(self, bilateral: bool = False) -> None:
        """Focal rhythmic theta/alpha slowing to sharp delta, growing, widening, sometimes
        spreading to the other side; ``bilateral``: it becomes bilateral (tonic-clonic).
        """
        rng = self.rng
        f0, f1 = rng.uniform(5.0, 8.5) * self.ff, rng.uniform(2.0, 3.5)
        p = rng.uniform(0.7, 1.4)
        tk, u = self.times(lambda x: f0 * (f1 / f0) ** (x**p), jitter=0.03, drift=0.04)
        fk = f0 * (f1 / f0) ** (u**p)
        grow = rng.uniform(1.0, 1.6)  # slower and larger as it evolves, a little less at the end
        amp = self.amp * (0.3 + 0.7 * smooth(u / 0.35)) * (1.0 + (grow - 1.0) * smooth(u / 0.85))
        amp *= (1.0 - 0.2 * smooth((u - 0.9) / 0.1)) * self.vary(tk)
        kap = 0.3 + rng.uniform(0.8, 2.2) * u**1.2
        skew = rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 0.7) * smooth(u / 0.6)
        w0 = self.ep["width"]
        w1 = w0 + rng.uniform(15.0, 35.0)
        clonic = rng.random() < 0.5
        uc = rng.uniform(0.75, 0.9) if clonic else 2.0

        def draw(t, uu, g, centre):
            fl = self.focal_fields(uu, w0, w1, centre=centre)
            fq = np.interp(uu, u, fk)
            sw = uu >= uc  # late: sharp-and-slow complexes, as the discharge breaks up
            C.wave_train(
                self.scene,
                t[~sw],
                fq[~sw],
                (amp_of(uu) * g)[~sw],
                fl[~sw],
                k=np.interp(uu, u, kap)[~sw],
                skew=np.interp(uu, u, skew)[~sw],
                window=self.window,
                brain=False,
            )
            if np.any(sw):
                C.spikes(
                    self.scene,
                    t[sw],
                    (amp_of(uu) * g)[sw] * 1.2,
                    fl[sw],
                    rng,
                    width=2.2,
                    slow=0.9,
                    window=self.window,
                    brain=False,
                )

        def amp_of(uu):
            return np.interp(uu, u, amp)

        draw(tk, u, np.ones_like(u), self.c0)
        if bilateral:
            ug = rng.uniform(0.25, 0.5)
            self.contra(tk, u, ug, rng.uniform(0.6, 0.9), draw)
            # the generalised phase: a broad field over both hemispheres, larger, with muscle
            m = u > ug
            g = smooth((u[m] - ug) / 0.15)
            fl = self.general_fields(int(m.sum()), rng.uniform(50.0, 65.0), 0.05)
            C.wave_train(
                self.scene,
                tk[m] + 0.005,
                fk[m],
                amp[m] * 0.5 * g,
                fl,
                k=kap[m],
                skew=skew[m],
                window=self.window,
                brain=False,
            )
            a = self.start + ug * self.dur + rng.uniform(0.0, 3.0)
            self.mus.burst(
                a,
                self.stop + 1.0,
                A.muscle_weights("diffuse", rng),
                float(rng.uniform(20.0, 70.0)),
                rng,
                window=(self.start, self.stop + 2.0, 0.3),
            )
            self.events.append((a, self.stop + 1.0, "muscle_ictal"))
            self.involved = F.gauss(self.c0, 90.0)
        elif rng.random() < self.ep["p_generalise"]:
            self.contra(tk, u, rng.uniform(0.3, 0.8), rng.uniform(0.4, 0.9), draw)
        if rng.random() < 0.4:  # onset: focal attenuation with low-amplitude fast activity
            d = min(rng.uniform(2.0, 5.0), 0.3 * self.dur)
            self.attenuate(self.start, self.start + d, 0.6, F.gauss(self.c0, 30.0))
            self.low_voltage_fast(self.start, self.start + d, rng.uniform(8.0, 20.0))
        self.attenuate(self.start + 1.0, self.stop, 0.45, F.gauss(self.c0, w1), ramp=2.0)
        self.postictal(rng.uniform(0.4, 0.85), self.involved, rng.uniform(30.0, 90.0))

    def lvfa(self, generalised: bool = False) -> None:
        """Low-voltage fast onset (with attenuation), then rhythmic sharp alpha-theta-delta."""
        rng = self.rng
        t_fast = min(rng.uniform(3.0, 10.0), 0.35 * self.dur)
        u1 = t_fast / self.dur
        cen = self.c0
        width = rng.uniform(35.0, 50.0) if generalised else None
        fld = F.gauss(cen, 80.0 if generalised else 30.0)
        self.attenuate(self.start, self.start + t_fast, rng.uniform(0.6, 0.85), fld)
        self.low_voltage_fast(
            self.start,
            self.start + t_fast,
            rng.uniform(10.0, 28.0),
            width=width,
            f=(18.0, 28.0),
            f_end=rng.uniform(11.0, 15.0),
        )
        fa, fb, fc = rng.uniform(7.0, 10.0), rng.uniform(4.0, 6.0), rng.uniform(2.0, 3.5)
        prof = [(0.0, fa), (u1, fa), (u1 + 0.3 * (1 - u1), fb), (1.0, fc)]
        tk, u = self.times(
            lambda x: interp(x, prof, log=True),
            jitter=0.03,
            drift=0.03,
            t0=self.start + t_fast * 0.8,
        )
        fk = interp(u, prof, log=True)
        x = np.clip((u - u1) / (1 - u1 + 1e-9), 0.0, 1.0)
        amp = self.amp * (0.15 + 0.85 * smooth(x / 0.4)) * smooth((u - u1 * 0.8) / 0.05)
        amp *= self.vary(tk)
        kap = 0.5 + rng.uniform(0.5, 1.6) * x
        skew = rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 0.7) * x
        w0 = self.ep["width"]
        fl = (
            self.general_fields(len(u), rng.uniform(50.0, 65.0))
            if generalised
            else self.focal_fields(u, w0, w0 + rng.uniform(15.0, 30.0))
        )
        C.wave_train(self.scene, tk, fk, amp, fl, k=kap, skew=skew, window=self.window, brain=False)
        if not generalised and rng.random() < self.ep["p_generalise"]:

            def draw(t, uu, g, centre):
                ff = self.focal_fields(uu, w0, w0 + 20.0, centre=centre)
                C.wave_train(
                    self.scene,
                    t,
                    np.interp(uu, u, fk),
                    np.interp(uu, u, amp) * g,
                    ff,
                    k=np.interp(uu, u, kap),
                    skew=np.interp(uu, u, skew),
                    window=self.window,
                    brain=False,
                )

            self.contra(tk, u, rng.uniform(0.4, 0.8), rng.uniform(0.4, 0.8), draw)
        self.postictal(
            rng.uniform(0.4, 0.8),
            self.involved if not generalised else F.gauss(cen, 90.0),
            rng.uniform(40.0, 100.0),
        )

    def rhythmic_delta(self) -> None:
        """Lateralised rhythmic delta, sharply contoured, mildly evolving (ICU type)."""
        rng = self.rng
        f0 = rng.uniform(1.5, 3.0) * self.ff
        bump = rng.uniform(0.1, 0.35)
        freq = lambda x: f0 * (1.0 + bump * np.sin(np.pi * x)) * (1.0 - 0.15 * x)  # noqa: E731
        tk, u = self.times(freq, jitter=0.05, drift=0.05)
        amp = self.amp * rng.uniform(0.6, 1.0) * (0.45 + 0.55 * smooth(u / 0.3)) * self.vary(tk)
        w0 = self.ep["width"] + rng.uniform(5.0, 12.0)
        fl = self.focal_fields(u, w0, w0 + rng.uniform(5.0, 20.0))
        sharp = rng.random() < 0.5  # with superimposed sharp components, or plain
        C.wave_train(
            self.scene,
            tk,
            freq(u),
            amp,
            fl,
            k=rng.uniform(0.3, 1.5),
            ncyc=0.45,
            skew=rng.uniform(-0.6, 0.6),
            window=self.window,
            brain=False,
        )
        if sharp:
            C.spikes(
                self.scene,
                tk - 0.02,
                amp * 0.4,
                fl,
                rng,
                width=1.5,
                slow=0.0,
                window=self.window,
                brain=False,
            )
        self.attenuate(self.start + 1.0, self.stop, 0.4, F.gauss(self.c0, w0))
        if rng.random() < 0.6:
            self.postictal(rng.uniform(0.3, 0.6), self.involved, rng.uniform(30.0, 80.0))

    def subtle(self) -> None:
        """Low-amplitude rhythmic theta over a few electrodes, little evolution."""
        rng = self.rng
        f0 = rng.uniform(4.0, 7.0) * self.ff
        tk, u = self.times(lambda x: f0 * (1.0 - 0.2 * x), jitter=0.04, drift=0.04)
        amp = rng.uniform(15.0, 40.0) * (0.5 + 0.5 * smooth(u / 0.3)) * self.vary(tk, 0.2)
        w0 = rng.uniform(15.0, 20.0)
        fl = self.focal_fields(u, w0, w0 + 6.0)
        C.wave_train(
            self.scene,
            tk,
            f0 * (1.0 - 0.2 * u),
            amp,
            fl,
            k=rng.uniform(0.2, 1.2),
            window=self.window,
            brain=False,
        )
        self.involved = F.gauss(self.c0, 25.0)

    def periodic(self) -> None:
        """Periodic sharp waves accelerating from ~1 to 2-3 Hz and slowing again."""
        rng = self.rng
        peak = rng.uniform(2.0, 3.0)
        prof = [(0.0, rng.uniform(0.7, 1.1)), (rng.uniform(0.4, 0.7), peak), (1.0, peak * 0.6)]
        tk, u = self.times(lambda x: interp(x, prof, log=True), jitter=0.04, drift=0.02)
        amp = self.amp * (0.7 + 0.6 * smooth(u / 0.5)) * self.vary(tk, 0.2)
        w0 = self.ep["width"] + 8.0
        fl = self.focal_fields(u, w0, w0 + rng.uniform(10.0, 25.0))
        C.spikes(
            self.scene,
            tk,
            amp,
            fl,
            rng,
            width=rng.uniform(1.8, 2.8),
            slow=0.8,
            window=self.window,
            brain=False,
        )
        self.postictal(rng.uniform(0.3, 0.6), self.involved, rng.uniform(30.0, 80.0))

    def spike_wave(self, atypical: bool = False, poly: bool = False) -> None:
        """Generalised spike-and-wave: typical 3 Hz absence, slow atypical, or fragmented
        polyspike-and-wave with myoclonic jerks."""
        rng = self.rng
        if atypical:
            prof = [(0.0, rng.uniform(2.0, 2.6)), (1.0, rng.uniform(1.5, 2.0))]
            jit, width, spw = 0.08, rng.uniform(55.0, 70.0), rng.uniform(1.2, 1.8)
        elif poly:
            prof = [(0.0, rng.uniform(3.5, 5.0)), (1.0, rng.uniform(3.0, 4.0))]
            jit, width, spw = 0.12, rng.uniform(55.0, 70.0), 1.0
        else:
            prof = [
                (0.0, rng.uniform(3.0, 3.8)),
                (0.3, rng.uniform(2.8, 3.3)),
                (1.0, rng.uniform(2.3, 2.9)),
            ]
            jit, width, spw = 0.02, rng.uniform(45.0, 60.0), rng.uniform(0.8, 1.1)
        freq = lambda x: interp(x, prof) * np.sqrt(self.ff)  # noqa: E731
        tk, u = self.times(freq, jitter=jit, drift=0.02)
        if poly:  # fragments of 1-4 s with short gaps
            keep = np.ones(len(tk), dtype=bool)
            t = self.start + rng.uniform(1.0, 4.0)
            while t < self.stop - 1.0:
                g = rng.uniform(0.3, 1.2)
                keep &= ~((tk > t) & (tk < t + g))
                t += g + rng.uniform(1.0, 4.0)
            tk, u = tk[keep], u[keep]
        n = len(tk)
        scale = (2.2 if poly or atypical else rng.uniform(1.6, 2.4)) * 0.8
        amp = (
            self.amp * scale * (0.8 + 0.2 * smooth(u / 0.1)) * np.exp(0.1 * rng.standard_normal(n))
        )
        fl = self.general_fields(n, width, asym=0.15 if atypical else 0.05)
        ns = rng.integers(2, 5, n) if poly else np.where(rng.random(n) < 0.1, 2, 1)
        C.spike_waves(
            self.scene,
            tk,
            1.0 / freq(u),
            amp,
            fl,
            rng,
            spike_frac=rng.uniform(0.8, 1.3),
            n_spikes=ns,
            spike_width=spw,
            window=(self.start, self.stop, 0.03),
            brain=False,
        )
        self.involved = F.gauss(self.c0, width)
        if poly:  # myoclonic jerks: muscle with some complexes
            jerk = tk[rng.random(n) < 0.08]
            for a in jerk:
                self.mus.burst(
                    a,
                    a + rng.uniform(0.1, 0.3),
                    A.muscle_weights("diffuse", rng),
                    float(rng.uniform(20.0, 60.0)),
                    rng,
                    window=self.window,
                )
            if len(jerk):
                self.events.append((float(jerk[0]), float(jerk[-1]) + 0.3, "muscle_ictal"))
        if atypical:
            self.postictal(rng.uniform(0.2, 0.4), self.involved, rng.uniform(20.0, 50.0))

    def tonic_clonic(self) -> None:
        """Generalised: recruiting fast rhythm under muscle (tonic), then polyspike-wave at
        lengthening intervals with a jerk each (clonic), then suppression."""
        rng = self.rng
        ut = rng.uniform(0.25, 0.45)
        t_ton = self.start + ut * self.dur
        width = rng.uniform(50.0, 65.0)
        # tonic: generalised fast activity recruiting to ~10 Hz with rising amplitude
        self.attenuate(self.start, t_ton, 0.6, F.gauss(self.c0, 90.0))
        prof = [
            (0.0, rng.uniform(18.0, 25.0)),
            (0.25, rng.uniform(10.0, 12.0)),
            (1.0, rng.uniform(7.0, 9.0)),
        ]
        tk, u = self.times(
            lambda x: interp(x / ut, prof, log=True), jitter=0.02, drift=0.03, t1=t_ton
        )
        x = u / ut
        fk = interp(x, prof, log=True)
        amp = self.amp * (0.12 + 0.9 * smooth(x / 0.7)) * self.vary(tk, 0.1)
        fl = self.general_fields(len(tk), width)
        C.wave_train(
            self.scene, tk, fk, amp, fl, k=0.3 + 1.2 * x, ncyc=0.55, window=self.window, brain=False
        )
        # clonic: polyspike-and-wave with lengthening intervals
        prof2 = [(0.0, rng.uniform(3.0, 4.5)), (1.0, rng.uniform(0.8, 1.4))]
        tk2, u2 = self.times(
            lambda x: interp(np.clip((x - ut) / (1 - ut), 0, 1), prof2, log=True),
            jitter=0.08,
            drift=0.03,
            t0=t_ton,
        )
        x2 = np.clip((u2 - ut) / (1 - ut), 0.0, 1.0)
        per = 1.0 / interp(x2, prof2, log=True)
        fl2 = self.general_fields(len(tk2), width)
        C.spike_waves(
            self.scene,
            tk2,
            np.minimum(per, 0.45),
            self.amp * 1.3 * (1.0 - 0.3 * x2),
            fl2,
            rng,
            n_spikes=rng.integers(2, 5, len(tk2)),
            window=self.window,
            brain=False,
        )
        # muscle: continuous through the tonic phase, in bursts with each clonic jerk
        win = (self.start, self.stop + 1.5, 0.2)
        a = self.start + rng.uniform(0.5, 3.0)
        if a < t_ton:
            self.mus.burst(
                a,
                t_ton,
                A.muscle_weights("diffuse", rng),
                float(rng.uniform(30.0, 90.0)),
                rng,
                density=150.0,
                window=win,
            )
        for b in tk2:
            self.mus.burst(
                b - 0.02,
                b + rng.uniform(0.1, 0.25),
                A.muscle_weights("diffuse", rng),
                float(rng.uniform(30.0, 90.0)),
                rng,
                window=win,
            )
        self.events.append((min(a, t_ton), self.stop, "muscle_ictal"))
        if rng.random() < 0.5:
            d = float(min(rng.uniform(1.0, 4.0), self.stop - t_ton))
            A.movement(self.scene, self.mus, t_ton, d, rng, window=win)
            self.events.append((t_ton, t_ton + d, "movement_ictal"))
        self.involved = F.gauss(self.c0, 100.0)
        self.postictal(rng.uniform(0.7, 0.9), self.involved, rng.uniform(40.0, 100.0))

    def electrodecremental(self) -> None:
        """Generalised attenuation with low-voltage fast activity (spasm/tonic), evolving to
        rhythmic theta-delta when long."""
        rng = self.rng
        fld = F.gauss(self.c0, 85.0)
        if rng.random() < 0.5:  # the spasm's slow transient at onset
            self.scene.add(
                TRANS,
                self.start + 0.25,
                -self.amp * rng.uniform(1.0, 2.0),
                0.12,
                0.25,
                topo=F.gauss(self.c0, 60.0),
                window=self.window,
                brain=False,
            )
        t_fast = min(self.dur, rng.uniform(8.0, 20.0))
        self.attenuate(self.start, self.start + t_fast, rng.uniform(0.6, 0.85), fld, ramp=0.3)
        self.low_voltage_fast(
            self.start,
            self.start + t_fast,
            rng.uniform(15.0, 40.0),
            width=rng.uniform(32.0, 45.0),
            f=(15.0, 25.0),
        )
        if rng.random() < 0.5:
            a = self.start + rng.uniform(0.3, 2.0)
            self.mus.burst(
                a,
                self.start + t_fast,
                A.muscle_weights("diffuse", rng),
                float(rng.uniform(30.0, 100.0)),
                rng,
                window=self.window,
            )
            self.events.append((a, self.start + t_fast, "muscle_ictal"))
        if self.dur > t_fast + 3.0:  # longer ones evolve into rhythmic sharp theta-delta
            prof = [(0.0, rng.uniform(5.0, 7.0)), (1.0, rng.uniform(2.0, 3.0))]
            t0 = self.start + t_fast
            tk, u = self.times(
                lambda x: interp(
                    np.clip((x * self.dur - t_fast) / (self.dur - t_fast), 0, 1), prof
                ),
                t0=t0,
                jitter=0.04,
            )
            x = np.clip((tk - t0) / (self.stop - t0), 0.0, 1.0)
            C.wave_train(
                self.scene,
                tk,
                interp(x, prof),
                self.amp * smooth(x / 0.3 + 0.1),
                self.general_fields(len(tk), 60.0),
                k=0.5 + 1.2 * x,
                skew=0.4 * x,
                window=self.window,
                brain=False,
            )
        self.involved = fld
        self.postictal(rng.uniform(0.4, 0.8), fld, rng.uniform(30.0, 80.0))


def render_seizure(
    scene: Scene, mus: A.Muscle, patient: dict, start: float, stop: float, stype: str, rng
) -> Events:
    """Add one seizure of morphology ``stype`` in ``[start, stop]``; return its side events
    (ictal muscle, automatisms, post-ictal slowing)."""
    sz = _Seizure(scene, mus, patient, start, stop, rng)
    ep = patient["epilepsy"]
    temporal = "temporal" in ep["focus_region"]
    if stype == "focal_evolving_rhythmic":
        sz.evolving_rhythmic()
        sz.obscure(ep["p_muscle"], ep["p_automatism"], 0.2)
    elif stype == "focal_to_bilateral":
        sz.evolving_rhythmic(bilateral=True)
        sz.obscure(0.3, 0.0, 0.4)
    elif stype == "focal_lvfa":
        sz.lvfa()
        sz.obscure(ep["p_muscle"], ep["p_automatism"] if temporal else 0.05, 0.25)
    elif stype == "focal_rhythmic_delta":
        sz.rhythmic_delta()
        sz.obscure(0.5 * ep["p_muscle"], 0.3 * ep["p_automatism"], 0.1)
    elif stype == "subtle_focal":
        sz.subtle()
        sz.obscure(0.5, 0.1, 0.1)
    elif stype == "evolving_periodic":
        sz.periodic()
        sz.obscure(0.3 * ep["p_muscle"], 0.0, 0.1)
    elif stype == "absence_spike_wave":
        sz.spike_wave()
        sz.obscure(0.05, 0.0, 0.05)
    elif stype == "atypical_spike_wave":
        sz.spike_wave(atypical=True)
        sz.obscure(0.15, 0.0, 0.15)
    elif stype == "polyspike_wave":
        sz.spike_wave(poly=True)
    elif stype == "tonic_clonic":
        sz.tonic_clonic()
    elif stype == "electrodecremental":
        sz.electrodecremental()
    else:
        raise ValueError(f"unknown seizure type {stype!r}")
    return sz.events
