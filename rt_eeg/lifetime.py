"""Child processes that cannot outlive their parent (Linux ``PR_SET_PDEATHSIG``).

Used by the pipeline's stages, the ward's beds and decoder, and the worker pools of
``rt-eeg evaluate`` and of the feature store build: a killed parent never leaves children
computing (or writing) for nobody.
"""

from __future__ import annotations

import ctypes
import os
import signal


def die_with_parent(parent_pid: int | None = None) -> None:
    """Ask Linux to SIGKILL this process when its parent (the supervisor) dies: no orphans.

    SIGKILL, not SIGTERM: a stage blocked on back-pressure or waiting for its release has no
    use without the supervisor, and must not be able to linger. ``parent_pid`` closes the race
    of a parent that died before the request was made.
    """
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        return  # not Linux: the supervisor's own cleanup still applies
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)
