"""PyQtGraph live monitor and file viewer.

Qt is imported only by :mod:`rt_eeg.monitor.window` (and the modules that use it), so that
importing this package, or the Qt-free state in :mod:`rt_eeg.monitor.model`, stays cheap.
"""

from __future__ import annotations

__all__ = ["MonitorWindow", "MonitorFeed"]


def __getattr__(name: str):
    if name == "MonitorWindow":
        from rt_eeg.monitor.window import MonitorWindow

        return MonitorWindow
    if name == "MonitorFeed":
        from rt_eeg.monitor.feed import MonitorFeed

        return MonitorFeed
    raise AttributeError(name)
