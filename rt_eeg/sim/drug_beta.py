"""Excess beta of sedative medication: the ``drug_beta`` background family.

Benzodiazepines and barbiturates, given to most patients on an epilepsy unit at some point,
add diffuse fast activity to the background: 14-30 Hz (benzodiazepines mostly 18-26 Hz),
10-30 uV and more, frontocentral at its maximum, waxing and waning over seconds, present in
wakefulness, larger in drowsiness and light sleep, not reactive to eye opening. Low-voltage
fast seizure onsets are 15-30 Hz too: a detector that has only seen low-amplitude beta in the
background (the simulator's own beta is 1.5-5 uV) can learn "sustained fast activity" as the
seizure. This family is the counter-example: hours of such activity with no seizure in it.

A recording holds it with chance :data:`PRESENCE` (or for sure when required) and draws
everything on a stream of its own (:class:`rt_eeg.sim.recording.RecordingGenerator` seeds
it); the activity is added to the background before seizures reshape it (an electrodecrement
suppresses it as it suppresses the rest). Recordings that do not hold the family are the
recordings the simulator made before it existed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rt_eeg.sim.background import Timeline, lowpass_noise
from rt_eeg.sim.band_field import BandField, field_map

#: The family's name (:data:`rt_eeg.sim.families.FAMILIES`, background group).
FAMILY = "drug_beta"
#: Chance that a recording (allowing the family) holds it.
PRESENCE = 0.15
#: Peak frequency (Hz), spectral width (sd, Hz) and amplitude at the maximum (uV rms) ranges.
FREQ_HZ = (15.0, 27.0)
WIDTH_HZ = (1.5, 4.0)
AMP_UV = (8.0, 30.0)
#: Gain per behavioural state (drowsiness and light sleep enhance it).
STATE_GAIN = {"awake": 1.0, "drowsy": 1.35, "sleep": 0.9}
#: Spatial layouts: source sites and weights (frontocentral maximum, or diffuse).
LAYOUTS = {
    "frontocentral": (("F3", 1.0), ("F4", 1.0), ("FZ", 0.8), ("C3", 0.7), ("C4", 0.7),
                      ("CZ", 0.7)),
    "diffuse": (("F3", 1.0), ("F4", 1.0), ("FZ", 0.8), ("C3", 0.9), ("C4", 0.9), ("CZ", 0.8),
                ("P3", 0.5), ("P4", 0.5), ("T3", 0.5), ("T4", 0.5)),
}  # fmt: skip
#: Spatial spread of each source (``gaussian_map`` sigma).
SIGMA = 0.45
#: Fraction of the amplitude that waxes and wanes over seconds (``beta spindles``).
WAX = (0.2, 0.5)
#: Time constant of the waxing and waning (s).
WAX_TAU_S = 1.5


@dataclass(frozen=True)
class DrugBeta:
    """One recording's medication beta.

    Attributes
    ----------
    freq : float
        Peak frequency (Hz).
    width : float
        Spectral standard deviation (Hz).
    uv : float
        Amplitude at the maximum (uV rms).
    layout : str
        A key of :data:`LAYOUTS`.
    asym : float
        Left-right asymmetry: left sites x (1 + asym), right sites x (1 - asym).
    wax : float
        Depth of the waxing and waning (0-1).
    """

    freq: float
    width: float
    uv: float
    layout: str
    asym: float
    wax: float

    @classmethod
    def draw(cls, rng: np.random.Generator) -> DrugBeta:
        return cls(
            freq=float(rng.uniform(*FREQ_HZ)),
            width=float(rng.uniform(*WIDTH_HZ)),
            uv=float(np.exp(rng.uniform(np.log(AMP_UV[0]), np.log(AMP_UV[1])))),
            layout=str(rng.choice(list(LAYOUTS))),
            asym=float(rng.uniform(-0.25, 0.25)),
            wax=float(rng.uniform(*WAX)),
        )

    def spatial_map(self, elec_gain) -> np.ndarray:
        """``(k, 21)`` mixing of ``k`` independent unit-variance sources (uV): the electrode
        with the most of it carries ``uv`` rms before its contact gain."""
        return field_map(LAYOUTS[self.layout], SIGMA, self.uv, self.asym, elec_gain)


class DrugBetaSource(BandField):
    """Renders one recording's medication beta block by block (in order, no gaps).

    Parameters
    ----------
    spec : DrugBeta
    timeline : Timeline
        The recording's state weights (the envelope follows them).
    sfreq : float
    elec_gain : sequence of float
        ``(21,)`` the patient's electrode gains.
    rng : np.random.Generator
        The family's own stream (after :meth:`DrugBeta.draw`).
    """

    family = FAMILY

    def __init__(self, spec: DrugBeta, timeline: Timeline, sfreq: float, elec_gain,
                 rng: np.random.Generator):  # fmt: skip
        self.spec = spec
        super().__init__(spec.freq, spec.width, spec.spatial_map(elec_gain), sfreq, rng)
        n = len(timeline.awake)
        state = (STATE_GAIN["awake"] * timeline.awake + STATE_GAIN["drowsy"] * timeline.drowsy
                 + STATE_GAIN["sleep"] * timeline.sleep)  # fmt: skip
        wax = 1.0 + spec.wax * np.tanh(lowpass_noise(rng, n, WAX_TAU_S))
        slow = np.exp(0.15 * lowpass_noise(rng, n, 120.0))
        self.env = (state * wax * slow).astype(np.float32)


def draw_drug_beta(seed: int, timeline: Timeline, sfreq: float, elec_gain, variety):
    """The recording's :class:`DrugBetaSource`, or None when it does not hold the family.

    Parameters
    ----------
    seed : int
        The recording's seed; the family's stream is ``[seed, 0xDB7A]``.
    variety : rt_eeg.sim.variety.Variety
        Whether the family is allowed or required.
    """
    if not variety.allows(FAMILY):
        return None
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xDB7A]))
    if not (rng.random() < PRESENCE or FAMILY in variety.require):
        return None
    return DrugBetaSource(DrugBeta.draw(rng), timeline, sfreq, elec_gain, rng)


__all__ = ["FAMILY", "PRESENCE", "DrugBeta", "DrugBetaSource", "draw_drug_beta"]
