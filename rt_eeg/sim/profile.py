"""Per-patient parameters: what makes one simulated patient look unlike another.

A :class:`PatientProfile` is drawn once per patient from a seed; every recording of that
patient draws its own variations (state sequence, artifacts, seizures) around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rt_eeg.sim.layout import N_ELECTRODES

#: Seizure kinds the simulator renders, with the TUSZ subtype each is labelled with.
SEIZURE_KINDS: dict[str, str] = {
    "focal": "fnsz",  # evolving rhythmic focal discharge (6 -> 3 Hz), spreading
    "focal_lvf": "fnsz",  # low-voltage fast onset (15-25 Hz) evolving into rhythmic theta
    "generalized": "gnsz",  # bilateral rhythmic delta/theta, near-synchronous onset
    "absence": "absz",  # 3 Hz spike-and-wave, abrupt on and off
    "tonic": "tnsz",  # generalised low-voltage fast activity with muscle
    "tonic_clonic": "tcsz",  # tonic fast + muscle, clonic bursts, post-ictal suppression
}
#: Foci of focal seizures and how often patients have them (temporal lobes most often).
FOCI: dict[str, float] = {
    "T3": 0.16, "T4": 0.16, "F7": 0.08, "F8": 0.08, "T5": 0.06, "T6": 0.06, "F3": 0.06,
    "F4": 0.06, "C3": 0.05, "C4": 0.05, "P3": 0.04, "P4": 0.04, "O1": 0.03, "O2": 0.03,
    "FP1": 0.03, "FP2": 0.03, "CZ": 0.04,
}  # fmt: skip
#: Kind mixtures of the three patient types.
_SYNDROMES: dict[str, dict[str, float]] = {
    "focal": {"focal": 0.55, "focal_lvf": 0.3, "tonic_clonic": 0.15},
    "generalized": {"generalized": 0.45, "tonic_clonic": 0.25, "tonic": 0.3},
    "absence": {"absence": 0.8, "generalized": 0.2},
}


@dataclass(frozen=True)
class PatientProfile:
    """Everything drawn once per patient (amplitudes in microvolts, rates per minute).

    Build one with :meth:`draw`; the fields are documented inline.
    """

    seed: int
    alpha_freq: float = 10.0  # posterior dominant rhythm, Hz
    alpha_uv: float = 30.0  # rms of the alpha rhythm at its maximum (eyes closed)
    alpha_asym: float = 0.0  # > 0: left stronger
    bg_uv: float = 18.0  # rms of broadband 1/f background per electrode
    slope: float = 1.7  # exponent b of the 1/f^b power spectrum
    corr_len: float = 1.0  # Gaussian spatial correlation length (chord units; neighbours ~0.6)
    elec_gain: tuple[float, ...] = field(default_factory=lambda: (1.0,) * N_ELECTRODES)
    delta_uv: float = 20.0
    theta_uv: float = 12.0
    beta_uv: float = 4.0
    spindle_freq: float = 13.0
    spindle_uv: float = 25.0
    sleepiness: float = 0.3  # in [0, 1]: how much of a recording is drowsy or asleep
    blink_uv: float = 150.0
    blink_rate: float = 15.0  # eyes open, awake
    muscle_rate: float = 1.0
    chew_rate: float = 0.2
    pop_rate: float = 0.1
    flat_prob: float = 0.1  # chance per recording of a flat or railing electrode
    line_uv: float = 3.0  # typical 60 Hz amplitude; some recordings are notch-filtered
    heart_bpm: float = 72.0
    syndrome: str = "focal"  # 'focal' | 'generalized' | 'absence'
    kinds: tuple[str, ...] = ("focal",)  # seizure kinds of this patient, most common first
    kind_probs: tuple[float, ...] = (1.0,)
    focus: str = "T3"
    seizure_uv: float = 120.0  # typical peak ictal amplitude at the focus
    subtle_prob: float = 0.2  # chance that one seizure is low-amplitude and confined
    seizure_rate: float = 0.3  # chance that a recording contains seizures

    @classmethod
    def draw(cls, seed: int, *, syndrome: str | None = None) -> PatientProfile:
        """Draw a patient from ``seed`` (same seed, same patient).

        Parameters
        ----------
        seed : int
        syndrome : str, optional
            'focal', 'generalized' or 'absence'; drawn (mostly focal, as in TUSZ) if omitted.
        """
        rng = np.random.default_rng([seed, 0x5EED])
        if syndrome is None:
            syndrome = str(rng.choice(["focal", "generalized", "absence"], p=[0.68, 0.22, 0.10]))
        mix = _SYNDROMES[syndrome]
        kinds = list(mix)
        probs = rng.dirichlet([8.0 * p for p in mix.values()])
        order = np.argsort(-probs, kind="stable")
        foci = list(FOCI)
        focus = str(rng.choice(foci, p=np.array(list(FOCI.values())) / sum(FOCI.values())))
        gain = np.exp(rng.normal(0.0, 0.15, N_ELECTRODES))
        return cls(
            seed=int(seed),
            alpha_freq=float(np.clip(rng.normal(10.0, 0.8), 8.3, 11.8)),
            alpha_uv=float(rng.uniform(15.0, 45.0)),
            alpha_asym=float(rng.normal(0.0, 0.12)),
            bg_uv=float(rng.uniform(15.0, 30.0)),
            slope=float(rng.uniform(1.7, 2.4)),
            corr_len=float(rng.uniform(0.8, 1.2)),
            elec_gain=tuple(float(g) for g in gain),
            delta_uv=float(rng.uniform(12.0, 35.0)),
            theta_uv=float(rng.uniform(6.0, 18.0)),
            beta_uv=float(rng.uniform(1.5, 5.0)),
            spindle_freq=float(rng.uniform(12.0, 14.0)),
            spindle_uv=float(rng.uniform(15.0, 40.0)),
            sleepiness=float(rng.beta(2.0, 4.0)),
            blink_uv=float(rng.uniform(80.0, 250.0)),
            blink_rate=float(rng.uniform(6.0, 25.0)),
            muscle_rate=float(rng.uniform(0.2, 3.0)),
            chew_rate=float(rng.uniform(0.0, 0.5)),
            pop_rate=float(rng.uniform(0.0, 0.4)),
            flat_prob=float(rng.uniform(0.0, 0.3)),
            line_uv=float(rng.lognormal(np.log(2.5), 0.6)),
            heart_bpm=float(rng.uniform(55.0, 100.0)),
            syndrome=syndrome,
            kinds=tuple(kinds[i] for i in order),
            kind_probs=tuple(float(probs[i]) for i in order),
            focus=focus,
            seizure_uv=float(rng.uniform(60.0, 220.0)),
            subtle_prob=float(rng.uniform(0.05, 0.35)),
            seizure_rate=float(rng.uniform(0.1, 0.5)),
        )
