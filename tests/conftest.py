"""Shared fixtures: the ../shared data folder (skipped cleanly when absent), seeded signals."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RT_EEG_SHARED", ROOT.parent / "shared"))


@pytest.fixture(autouse=True)
def _debug_flag_restored():
    """``rt-eeg --debug`` run in-process sets ``RT_EEG_DEBUG`` for its child processes; it must
    not leak into later tests (a service started with it logs every message)."""
    saved = os.environ.get("RT_EEG_DEBUG")
    yield
    if saved is None:
        os.environ.pop("RT_EEG_DEBUG", None)
    else:
        os.environ["RT_EEG_DEBUG"] = saved


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The team's ``../shared`` folder; tests that need it skip when it is absent."""
    if not (SHARED / "data").is_dir():
        pytest.skip(f"../shared/data not found at {SHARED} (real sample data is not in the repo)")
    return SHARED


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator so every test signal is reproducible."""
    return np.random.default_rng(12345)


# --------------------------------------------------------------------------------------------
# The live-pipeline tests (test_pipeline, test_faults, test_live) share one model, one
# recording and the offline detector's result on it; built once per session. Tests must not
# change them (copy the model folder first, as the broken-model test does).


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory) -> Path:
    """An untrained model folder (default architecture, seed 3): real shapes and timing.

    Modules that need another model define their own ``model_dir``, which overrides this one.
    """
    from rt_eeg.decoder import write_untrained_model

    return write_untrained_model(tmp_path_factory.mktemp("model") / "m", seed=3)


@pytest.fixture(scope="session")
def recording(tmp_path_factory) -> Path:
    """A generated 45 s TUH-named recording at 256 Hz (noise, seed 11), ``rec_s001_t000.edf``."""
    from edf_factory import tuh_like

    rng = np.random.default_rng(11)
    path, _ = tuh_like(tmp_path_factory.mktemp("rec") / "rec_s001_t000.edf", 45.0, 256, rng=rng)
    return path


@pytest.fixture(scope="session")
def offline_detection(recording, model_dir):
    """The offline detector on ``recording`` with ``model_dir``: what live runs must equal.

    Returns
    -------
    rt_eeg.detector.DetectionResult
        ``decisions`` and ``duration``, for ``rt_eeg.outputs.write_outputs``.
    """
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording

    return detect_recording(recording, Decoder(model_dir, device="cpu"))


# --------------------------------------------------------------------------------------------
# The training tests (test_train*.py) read one small synthetic feature store; built once per
# session, never written to.


@pytest.fixture(scope="session")
def store_and_recs(tmp_path_factory):
    """A :class:`rt_eeg.store.FeatureStore` of seven synthetic recordings and the recordings."""
    from train_helpers import small_store

    return small_store(tmp_path_factory)


@pytest.fixture(scope="session")
def qapp():
    """The one QApplication of the Qt tests, offscreen (their modules skip a known-bad Qt binding
    before they import Qt: ``monitor_helpers.pyqtgraph_or_skip``)."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    import pyqtgraph as pg

    return pg.mkQApp("rt-eeg tests")
