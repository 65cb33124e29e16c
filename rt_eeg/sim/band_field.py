"""A band-limited field on named scalp sites, rendered block by block.

What the continuous background families (``drug_beta``, ``alpha_field``) share: independent
unit-variance sources of one band (a Gaussian spectral peak), each spread over the scalp by a
``gaussian_map`` around its site, scaled so the electrode with the most of it carries a given
rms, and one envelope over time that the family computes from the recording's timeline.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.sim.background import (
    CTRL_SFREQ,
    FIR_S,
    BlockNoise,
    design_fir,
    gaussian_band,
    gaussian_map,
)


def side_of(site: str) -> str:
    """'1' left (odd-numbered), '2' right (even), 'z' midline."""
    d = site[-1]
    return "z" if not d.isdigit() else "1" if int(d) % 2 else "2"


def field_map(sites, sigma: float, uv: float, asym: float, elec_gain) -> np.ndarray:
    """``(k, 21)`` mixing of ``k`` independent unit-variance sources (uV).

    Parameters
    ----------
    sites : sequence of (str, float)
        Each source's site and weight.
    sigma : float
        Spread of each source (``gaussian_map`` sigma).
    uv : float
        Rms at the electrode with the most of the field, before its contact gain.
    asym : float
        Left sites x (1 + asym), right sites x (1 - asym).
    elec_gain : sequence of float
        ``(21,)`` the patient's electrode gains.
    """
    rows = []
    for site, w in sites:
        side = {"1": 1.0 + asym, "2": 1.0 - asym}.get(side_of(site), 1.0)
        rows.append(gaussian_map(site, sigma) * w * side)
    m = np.stack(rows)
    m *= uv / float(np.sqrt((m**2).sum(axis=0)).max())
    return m * np.asarray(elec_gain, dtype=np.float64)[None, :]


class BandField:
    """Sources of one band mixed onto the electrodes, under an envelope set by the family.

    Parameters
    ----------
    freq, width : float
        Spectral peak and standard deviation (Hz).
    mixing : np.ndarray
        ``(k, 21)`` from :func:`field_map`.
    sfreq : float
    rng : np.random.Generator
        The family's own stream; the noise is seeded from it here, before the family draws
        its envelope from it.

    Attributes
    ----------
    family : str
        The family it renders (a subclass sets it).
    env : np.ndarray
        ``(n_ctrl,)`` float32 gain at :data:`CTRL_SFREQ`; the family sets it.
    """

    family = ""

    def __init__(self, freq: float, width: float, mixing: np.ndarray, sfreq: float,
                 rng: np.random.Generator):  # fmt: skip
        n_taps = int(round(FIR_S * sfreq)) | 1
        kernel = design_fir(gaussian_band(freq, width, 0.45 * sfreq), sfreq, n_taps)
        self.mixing = mixing.astype(np.float32)  # (k, 21)
        self.noise = BlockNoise(kernel[None, :], np.zeros(len(self.mixing), dtype=int), rng)
        self.env = np.zeros(0, dtype=np.float32)

    def render(self, t: np.ndarray) -> np.ndarray:
        """``(n, 21)`` float32 microvolts at sample times ``t`` (s), in order, no gaps."""
        env = np.interp(t * CTRL_SFREQ, np.arange(len(self.env)), self.env).astype(np.float32)
        src = self.noise.next(len(t)) * env[None, :]  # float32 already
        return src.T @ self.mixing


__all__ = ["BandField", "field_map", "side_of"]
