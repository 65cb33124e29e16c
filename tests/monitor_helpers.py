"""What the monitor tests share: a hand-driven clock, a synthetic EEG, and pixel colour probes of a
rendered window."""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before anything imports Qt

import numpy as np
import pytest

from rt_eeg.monitor import qt_binding_problem

SFREQ = 250.0


def pyqtgraph_or_skip():
    """pyqtgraph, offscreen; the calling test module is skipped, loudly, when the Qt binding is
    known to abort the interpreter or pyqtgraph is missing. Call at module level."""
    if qt_binding_problem():
        pytest.skip(qt_binding_problem(), allow_module_level=True)
    return pytest.importorskip("pyqtgraph")


class FakeClock:
    """Monotonic clock the test advances by hand."""

    def __init__(self, t: float = 100.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def eeg(n_samples: int, n_channels: int, rng: np.random.Generator) -> np.ndarray:
    """(n_samples, n_channels) float32 uV: 10 Hz rhythm plus noise, about 30 uV peak."""
    t = np.arange(n_samples) / SFREQ
    phase = rng.uniform(0, 2 * np.pi, n_channels)
    x = 20 * np.sin(2 * np.pi * 10 * t[:, None] + phase) + rng.normal(0, 5, (n_samples, n_channels))
    return x.astype(np.float32)


def pixel(img, xy) -> tuple[int, int, int]:
    c = img.pixelColor(int(xy[0]), int(xy[1]))
    return c.red(), c.green(), c.blue()


def median_colour(win, img, t0: float, t1: float, ys) -> np.ndarray:
    """Median RGB over a grid of points in [t0, t1] x ys (plot coordinates)."""
    pts = [
        pixel(img, win.data_to_pixel(t, y)) for t in np.linspace(t0 + 0.1, t1 - 0.1, 9) for y in ys
    ]
    return np.median(np.array(pts, dtype=float), axis=0)


def is_red(rgb) -> bool:
    r, g, b = rgb
    return r > g + 40 and r > b + 40


def is_green(rgb) -> bool:
    r, g, b = rgb
    return g > r + 15 and g > b + 15


def is_grey(rgb) -> bool:
    r, g, b = rgb
    return max(r, g, b) - min(r, g, b) < 12 and max(r, g, b) < 245


def between_channels(win) -> list[float]:
    """Plot y halfway between channel baselines (background, mostly free of trace)."""
    return [win.channel_y(i) - 0.5 for i in range(0, win.n_channels - 1, 3)]
