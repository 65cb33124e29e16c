"""Shared fixtures: the ../shared data folder (skipped cleanly when absent), seeded signals."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RT_EEG_SHARED", ROOT.parent / "shared"))


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
