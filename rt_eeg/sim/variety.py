"""Per-recording variety of family-mode recordings (``rt-eeg simulate`` corpora).

A :class:`Variety` fixes, for one recording, the families it may draw from and everything
that makes recordings of one patient differ beyond the patient's profile: overall amplifier
gain, per-electrode impedance (gain and noise), mains frequency, background abnormalities
(focal/diffuse slowing, breach rhythm) and which benign variants and rarer artifacts the
recording holds and how often. Plans without one (``RecordingPlan.variety is None``) are
classic recordings, rendered exactly as before families existed (the bundled sample).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rt_eeg.sim.background import gaussian_map, lowpass_noise
from rt_eeg.sim.families import FAMILIES, family_list
from rt_eeg.sim.layout import N_ELECTRODES

#: Family of each transient kind the simulator renders.
KIND_FAMILY: dict[str, str] = {
    "blink": "blink", "saccade": "lateral_eye", "roving": "lateral_eye", "muscle": "emg",
    "chew": "chewing", "pop": "electrode_pop", "sway": "drift", "sweat": "sweat",
    "movement": "movement", "patting": "patting", "spindle": "sleep", "kcomplex": "sleep",
    "vertex": "posts_vertex", "posts": "posts_vertex", "wicket": "wicket", "rmtd": "rmtd",
    "fourteen_six": "fourteen_six", "sreda": "sreda", "percussion": "percussion",
    "pulse": "pulse", "glossokinetic": "glossokinetic", "hypnagogic": "hypnagogic", "mu": "mu",
    "lambda": "lambda", "phantom_sw": "phantom_sw", "photic": "photic",
    "temporal_theta": "steady_rhythm", "midline_theta": "steady_rhythm", "irda": "steady_rhythm",
}  # fmt: skip
#: Behavioural state -> its background family.
STATE_FAMILY = {"awake": "awake_alpha", "drowsy": "drowsy", "sleep": "sleep"}
#: Chance that a recording holds each optional family (when allowed). The clinical artifact
#: and the fresh families have their own (``CLINICAL_PRESENCE`` in
#: :mod:`rt_eeg.sim.clinical_artifacts`, ``FRESH_PRESENCE`` in :mod:`rt_eeg.sim.fresh_families`),
#: each drawn from a stream of its own: a draw added here would change every recording of
#: every corpus.
PRESENCE: dict[str, float] = {
    "slowing": 0.2, "breach": 0.07, "wicket": 0.2, "rmtd": 0.15, "fourteen_six": 0.15,
    "sreda": 0.08, "posts_vertex": 0.8, "sweat": 0.2, "drift": 0.5, "movement": 0.35,
    "patting": 0.12,
}  # fmt: skip
#: Sites of focal slowing and breach rhythms (temporal and central most often).
_FOCAL_SITES = ("T3", "T4", "F7", "F8", "C3", "C4", "T5", "T6", "F3", "F4", "P3", "P4")


@dataclass(frozen=True)
class Variety:
    """What varies per recording in family mode (microvolts, Hz).

    Attributes
    ----------
    allowed : frozenset of str
        Families the recording may draw from.
    gain : float
        Overall gain of the recording (0.5-2).
    elec_gain : tuple of float
        ``(21,)`` gain of each electrode (contact impedance).
    elec_noise : tuple of float
        ``(21,)`` extra white noise of each electrode (uV rms; high impedance is noisy).
    line_freq : float
        Mains frequency, 50 or 60 Hz.
    slowing : tuple or None
        ``(site, uV, continuous)``: polymorphic delta at a site ('' = diffuse), continuous
        or intermittent.
    breach : tuple or None
        ``(site, gain, fast_uV)``: skull defect over a site.
    present : frozenset of str
        Optional families (:data:`PRESENCE`) this recording holds.
    activity : float
        Rate multiplier of artifacts and benign variants in this recording.
    require : frozenset of str
        Optional families asked for (present for sure; the clinical artifact and fresh
        families read it when they are drawn).
    """

    allowed: frozenset
    gain: float = 1.0
    elec_gain: tuple = field(default_factory=lambda: (1.0,) * N_ELECTRODES)
    elec_noise: tuple = field(default_factory=lambda: (0.0,) * N_ELECTRODES)
    line_freq: float = 60.0
    slowing: tuple | None = None
    breach: tuple | None = None
    present: frozenset = frozenset()
    activity: float = 1.0
    require: frozenset = frozenset()

    @classmethod
    def draw(cls, allowed, rng: np.random.Generator, require=()) -> Variety:
        """Draw a recording's variety among the ``allowed`` families; the optional families
        in ``require`` (a subset of ``allowed``) are always present."""
        allowed = frozenset(allowed)
        require = frozenset(require)
        if not require <= allowed:
            raise ValueError(f"required families {family_list(require - allowed)} are not allowed")
        gain = float(np.exp(rng.uniform(np.log(0.5), np.log(2.0))))
        elec_gain = np.exp(rng.normal(0.0, rng.uniform(0.05, 0.2), N_ELECTRODES))
        elec_noise = rng.lognormal(np.log(0.5), 0.8, N_ELECTRODES)
        for i in rng.choice(N_ELECTRODES, int(rng.poisson(0.7)), replace=False):
            elec_noise[i] *= rng.uniform(3.0, 12.0)  # a poorly attached electrode
            elec_gain[i] *= rng.uniform(0.6, 1.0)
        line_freq = 50.0 if rng.random() < 0.3 else 60.0
        # one draw per optional family whatever is allowed: recordings that differ only in
        # their allowed families differ only in those families
        present = frozenset(
            f for f, p in PRESENCE.items() if (rng.random() < p or f in require) and f in allowed
        )
        site = str(rng.choice(_FOCAL_SITES))
        slow = (site if rng.random() < 0.7 else "", float(rng.uniform(15.0, 50.0)),
                bool(rng.random() < 0.5))  # fmt: skip
        breach = (str(rng.choice(_FOCAL_SITES)), float(rng.uniform(1.5, 2.5)),
                  float(rng.uniform(5.0, 15.0)))  # fmt: skip
        slowing = slow if "slowing" in present else None
        breach = breach if "breach" in present else None
        return cls(allowed, gain, tuple(float(g) for g in elec_gain),
                   tuple(float(x) for x in elec_noise), line_freq, slowing, breach, present,
                   float(rng.lognormal(0.0, 0.5)), require)  # fmt: skip

    def allows(self, family: str) -> bool:
        return family in self.allowed

    @property
    def states(self) -> tuple[str, ...]:
        """Behavioural states the recording may be in ('awake' alone when none is allowed;
        it then carries no alpha)."""
        return tuple(s for s, f in STATE_FAMILY.items() if f in self.allowed) or ("awake",)

    def adjust_blocks(self, blocks: list) -> list:
        """Background sources with this recording's slowing and breach added.

        Parameters
        ----------
        blocks : list of (envelope, kernel index, map (k, 21))
            As :class:`rt_eeg.sim.background.Background` builds them (kernel 1 is delta, 4
            beta).
        """
        out = list(blocks)
        if self.breach is not None:
            site, g, fast_uv = self.breach
            m = gaussian_map(site, 0.4)
            out = [(name, k, mp * (1.0 + (g - 1.0) * m)[None, :]) for name, k, mp in out]
            out.append(
                ("breach", 4, np.stack([m * fast_uv * 2.0, gaussian_map(site, 0.3) * fast_uv]))
            )
        if self.slowing is not None:
            site, uv, _ = self.slowing
            if site:
                m = np.stack([gaussian_map(site, 0.45), gaussian_map(site, 0.6) * 0.7])
            else:
                m = np.stack([gaussian_map(c, 0.9) for c in ("F3", "F4", "P3", "P4")]) * 0.7
            out.append(("slowing", 1, m * uv))
        return out

    def add_envelopes(self, timeline, rng: np.random.Generator) -> None:
        """Envelopes of the added background sources on ``timeline``: intermittent slowing
        comes and goes over tens of seconds."""
        n = len(timeline.awake)
        timeline.env["breach"] = np.ones(n, dtype=np.float32)
        if self.slowing is not None and not self.slowing[2]:
            x = lowpass_noise(rng, n, 15.0)
            env = 1.0 / (1.0 + np.exp(-4.0 * (x - 0.3)))
        else:
            env = np.exp(0.2 * lowpass_noise(rng, n, 30.0))
        timeline.env["slowing"] = env.astype(np.float32)


def family_rngs(rng: np.random.Generator, names) -> dict:
    """One generator per family name, all seeded up front: what one family draws never
    shifts what another draws."""
    return {
        n: np.random.default_rng(int(x))
        for n, x in zip(names, rng.integers(0, 2**63, len(names)), strict=True)
    }


def own_stream_presence(
    rng: np.random.Generator, presence: dict[str, float], variety
) -> tuple[dict, set]:
    """Generators and presence of families drawn on a stream of their own.

    One generator per family (:func:`family_rngs`), and each family's first draw decides
    whether the recording holds it (chance ``presence[name]``, or for sure when in
    ``variety.require``); a family ``variety`` does not allow is never present.

    Returns
    -------
    rngs : dict of str -> np.random.Generator
        Each family's generator, after its presence draw.
    has : set of str
        The families present.
    """
    rngs = family_rngs(rng, tuple(presence))
    has = {f for f, p in presence.items()
           if (rngs[f].random() < p or f in variety.require) and variety.allows(f)}  # fmt: skip
    return rngs, has


def families_present(
    plan, timeline, transients, faults, ecg_on: bool, line_on: bool, extra=()
) -> list[str]:
    """Families a generated recording holds, in :data:`FAMILIES` order.

    A state counts when the recording spends at least 10 s in it; ``extra`` names families
    the caller knows are present (continuous sources such as ``drug_beta``).
    """
    v = plan.variety
    found = {sz.family for sz in plan.seizures if sz.family} | set(extra)
    for name, a, b in timeline.segments:
        fam = STATE_FAMILY[name]
        if b - a >= 10.0 and v.allows(fam):
            found.add(fam)
    if v.slowing is not None:
        found.add("slowing")
    if v.breach is not None:
        found.add("breach")
    if timeline.arousals:
        found.add("arousal")
    found.update(KIND_FAMILY[tr.kind] for tr in transients)
    if faults:
        found.add("electrode_pop")
    if ecg_on:
        found.add("ecg")
    if line_on:
        found.add("line_noise")
    order = [f for fams in FAMILIES.values() for f in fams]
    return [f for f in order if f in found]
