"""A wide alpha field: the ``alpha_field`` background family.

In many normal adults the alpha rhythm is not confined to the occipital region: it extends
over the parietal, central and posterior temporal regions, sometimes with its maximum there,
at 20-60 uV and up to 100 uV in young people; it waxes and wanes in spindles of seconds,
is blocked by eye opening, and in drowsiness it commonly spreads forward (the anterior shift
of alpha) before it drops out. Rhythmic 8-12 Hz activity of high amplitude over the central
and temporal chains is therefore ordinary background, and a detector that has only seen a
posterior alpha can take it for a rhythmic seizure. This family is that activity: the
patient's own alpha frequency, on a field of central, temporal or widespread sources, with
the posterior rhythm's envelope (eyes, state, waxing), and more of it in drowsiness.

A recording holds it with chance :data:`PRESENCE` (or for sure when required) and draws
everything on a stream of its own (:class:`rt_eeg.sim.recording.RecordingGenerator` seeds
it); it is added to the background before seizures reshape it. Recordings that do not hold
the family are the recordings the simulator made before it existed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rt_eeg.sim.background import Timeline
from rt_eeg.sim.band_field import BandField, field_map

#: The family's name (:data:`rt_eeg.sim.families.FAMILIES`, background group).
FAMILY = "alpha_field"
#: Chance that a recording (allowing the family) holds it.
PRESENCE = 0.2
#: Offset from the posterior rhythm's frequency (sd, Hz) and the spectral width (sd, Hz).
FREQ_SD_HZ = 0.3
WIDTH_HZ = (0.4, 0.8)
#: Amplitude at the field's maximum relative to the posterior alpha's, and its bounds (uV rms).
RATIO = (0.6, 1.5)
AMP_UV = (8.0, 60.0)
#: Gain of the field in drowsiness relative to the posterior alpha's envelope there
#: (the anterior shift: drowsy alpha is 0.3 of eyes-closed alpha posteriorly).
DROWSY_GAIN = (1.0, 3.0)
#: Spatial layouts: source sites and weights.
LAYOUTS = {
    "central": (("C3", 1.0), ("C4", 1.0), ("CZ", 0.7), ("P3", 0.6), ("P4", 0.6)),
    "temporal": (("T5", 1.0), ("T6", 1.0), ("T3", 0.8), ("T4", 0.8)),
    "widespread": (("P3", 1.0), ("P4", 1.0), ("C3", 0.9), ("C4", 0.9), ("T5", 0.8),
                   ("T6", 0.8), ("T3", 0.6), ("T4", 0.6), ("F3", 0.4), ("F4", 0.4)),
}  # fmt: skip
#: Spatial spread of each source (``gaussian_map`` sigma).
SIGMA = 0.45


@dataclass(frozen=True)
class AlphaField:
    """One recording's wide alpha field.

    Attributes
    ----------
    freq : float
        Peak frequency (Hz): the posterior rhythm's, plus a small offset.
    width : float
        Spectral standard deviation (Hz).
    uv : float
        Amplitude at the maximum (uV rms, eyes closed).
    layout : str
        A key of :data:`LAYOUTS`.
    asym : float
        Left-right asymmetry: left sites x (1 + asym), right sites x (1 - asym).
    drowsy_gain : float
        Its gain in drowsiness against the posterior alpha envelope's.
    """

    freq: float
    width: float
    uv: float
    layout: str
    asym: float
    drowsy_gain: float

    @classmethod
    def draw(cls, rng: np.random.Generator, alpha_freq: float, alpha_uv: float) -> AlphaField:
        return cls(
            freq=float(np.clip(alpha_freq + rng.normal(0.0, FREQ_SD_HZ), 7.5, 12.5)),
            width=float(rng.uniform(*WIDTH_HZ)),
            uv=float(np.clip(alpha_uv * rng.uniform(*RATIO), *AMP_UV)),
            layout=str(rng.choice(list(LAYOUTS))),
            asym=float(rng.uniform(-0.2, 0.2)),
            drowsy_gain=float(rng.uniform(*DROWSY_GAIN)),
        )

    def spatial_map(self, elec_gain) -> np.ndarray:
        """``(k, 21)`` mixing of ``k`` independent unit-variance sources (uV): the electrode
        with the most of it carries ``uv`` rms before its contact gain."""
        return field_map(LAYOUTS[self.layout], SIGMA, self.uv, self.asym, elec_gain)


class AlphaFieldSource(BandField):
    """Renders one recording's alpha field block by block (in order, no gaps).

    Parameters
    ----------
    spec : AlphaField
    timeline : Timeline
        The recording's state weights and envelopes: the field follows the posterior alpha's
        (``env['alpha']``: eyes, state, waxing, a seizure's attenuation), scaled up in
        drowsiness.
    sfreq : float
    elec_gain : sequence of float
        ``(21,)`` the patient's electrode gains.
    rng : np.random.Generator
        The family's own stream (after :meth:`AlphaField.draw`).
    """

    family = FAMILY

    def __init__(self, spec: AlphaField, timeline: Timeline, sfreq: float, elec_gain,
                 rng: np.random.Generator):  # fmt: skip
        self.spec = spec
        super().__init__(spec.freq, spec.width, spec.spatial_map(elec_gain), sfreq, rng)
        # the posterior envelope is 0.3 in drowsiness: raise that part by drowsy_gain / 0.3
        drowsy = np.asarray(timeline.drowsy, dtype=np.float64)
        boost = 1.0 + (spec.drowsy_gain / 0.3 - 1.0) * drowsy
        self.env = (np.asarray(timeline.env["alpha"], dtype=np.float64) * boost).astype(np.float32)


def draw_alpha_field(seed: int, timeline: Timeline, sfreq: float, profile, alpha_freq: float,
                     variety) -> AlphaFieldSource | None:  # fmt: skip
    """The recording's :class:`AlphaFieldSource`, or None when it does not hold the family.

    Parameters
    ----------
    seed : int
        The recording's seed; the family's stream is ``[seed, 0xA1F4]``.
    profile : rt_eeg.sim.profile.PatientProfile
        Its ``alpha_uv`` and ``elec_gain``.
    alpha_freq : float
        The recording's posterior rhythm (Hz, :attr:`Background.alpha_freq`).
    variety : rt_eeg.sim.variety.Variety
        Whether the family is allowed or required.
    """
    if not variety.allows(FAMILY):
        return None
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xA1F4]))
    if not (rng.random() < PRESENCE or FAMILY in variety.require):
        return None
    spec = AlphaField.draw(rng, alpha_freq, profile.alpha_uv)
    return AlphaFieldSource(spec, timeline, sfreq, profile.elec_gain, rng)


__all__ = ["FAMILY", "PRESENCE", "AlphaField", "AlphaFieldSource", "draw_alpha_field"]
