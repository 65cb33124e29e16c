"""PyQtGraph live monitor and file viewer.

Qt is imported only by :mod:`rt_eeg.monitor.window` (and the modules that use it), so that
importing this package, or the Qt-free state in :mod:`rt_eeg.monitor.model`, stays cheap.
"""

from __future__ import annotations

import sys
from importlib import metadata

__all__ = ["MonitorWindow", "MonitorFeed", "qt_binding_problem"]

#: PySide6 releases that crash this process on the Python versions given: 6.12.0 drops a
#: reference to ``None`` on every call returning nothing, so on Python < 3.12 (where None is
#: not immortal) a few thousand paints abort the interpreter ("deallocating None").
_BROKEN_BINDINGS = {"6.12.0": (3, 12)}


def qt_binding_problem() -> str | None:
    """Why the installed Qt binding cannot run the monitor, or None when it can.

    Checked from package metadata, without importing Qt.
    """
    for dist in ("PySide6-Essentials", "PySide6"):
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
        fixed_in = _BROKEN_BINDINGS.get(version)
        if fixed_in is not None and sys.version_info[:2] < fixed_in:
            return (
                f"{dist} {version} crashes on Python {sys.version_info[0]}.{sys.version_info[1]} "
                f"(reference-count bug); install another version, e.g. "
                f"pip install '{dist}<6.12'"
            )
        return None
    return "PySide6 is not installed (pip install PySide6-Essentials)"


def __getattr__(name: str):
    if name == "MonitorWindow":
        from rt_eeg.monitor.window import MonitorWindow

        return MonitorWindow
    if name == "MonitorFeed":
        from rt_eeg.monitor.feed import MonitorFeed

        return MonitorFeed
    raise AttributeError(name)
