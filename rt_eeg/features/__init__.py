"""LFCC features: a streaming extractor with circular buffers and its vectorised batch twin.

Twenty-six features per channel per 0.1 s frame (25 samples at 250 Hz), after the online
TUH/NEDC system. This package is the public face (import from ``rt_eeg.features``); each
module owns one part:

- :mod:`~rt_eeg.features.config`: ``FeatureConfig`` (every parameter, stated and justified
  in its docstring; ``features.toml``), the default ``N_FEATURES``, ``FEATURE_NAMES``,
  ``FEATURE_DELAY_S``
- :mod:`~rt_eeg.features.lfcc`: the algorithm (its docstring), the per-row stages and
  ``compute_features`` (batch)
- :mod:`~rt_eeg.features.streaming`: ``StreamingFeatures`` (bit-identical to the batch for
  any chunking)
"""

from __future__ import annotations

# Every name the former single module defined is imported here, so existing imports keep
# working; F401 is off for this file in pyproject.toml.
from rt_eeg.features.config import (
    _FIELD_TYPES,
    _TOML_TABLE,
    FEATURE_DELAY_S,
    FEATURE_NAMES,
    N_FEATURES,
    WINDOWS,
    FeatureConfig,
    _check_filterbank,
    _taper,
    _triangles,
    check_runnable,
    model_feature_config,
)
from rt_eeg.features.lfcc import (
    _BATCH_BLOCK_FRAMES,
    _absolute,
    _absolute_frames,
    _as_signal,
    _assemble,
    _diff_energy,
    _empty,
    _frame_windows,
    _Kernel,
    _kernel,
    _regression,
    _times,
    compute_features,
)
from rt_eeg.features.streaming import StreamingFeatures
