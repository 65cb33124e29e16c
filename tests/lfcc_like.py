"""LFCC-like feature arrays for the decoder and context tests: shaped like the real features
without running the extractor."""

from __future__ import annotations

import numpy as np

#: Features per channel per frame (as rt_eeg.features.N_FEATURES).
N_FEAT = 26


def lfcc_like(rng: np.random.Generator, n_frames: int, n_ch: int = 22) -> np.ndarray:
    """A log-energy-like offset on feature 0, a slow drift per channel, and noise.

    Returns
    -------
    ndarray of float32, shape (n_frames, n_ch, N_FEAT)
    """
    base = rng.normal(0, 1, (n_frames, n_ch, N_FEAT)).astype(np.float32)
    drift = np.cumsum(rng.normal(0, 0.05, (n_frames, n_ch, 1)), axis=0).astype(np.float32)
    return base + drift + np.float32(5.0) * (np.arange(N_FEAT) == 0)
