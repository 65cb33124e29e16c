"""What a run checks and claims before it starts any process: the source (opened once,
channels counted), the model folder (files against their manifest), and the output folder's
private state, taken over from a killed predecessor (also used by ``rt-eeg serve``)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from rt_eeg.errors import RtEegError

if TYPE_CHECKING:
    from rt_eeg.features import FeatureConfig

log = logging.getLogger("rt_eeg.pipeline")
LOCK = "supervisor.pid"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie or a reused pid of another program is not a supervisor.
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True
    return b"rt_eeg" in cmdline or b"rt-eeg" in cmdline


def reclaim_folder(folder: Path, lock: Path, ipc_prefix: str, what: str) -> dict | None:
    """Take ``folder`` (a run's or a service's private state) for this process.

    Refuses (``RtEegError``) while the process named in ``lock`` lives; after a SIGKILL,
    removes the killed process's ipc folder (named in ``folder/ipc_dir``, only if its name
    starts with ``ipc_prefix``) and ``folder`` itself, and returns what was recovered (else
    None). The caller recreates ``folder`` and writes ``lock``.
    """
    recovered = None
    if lock.exists():
        try:
            pid = int(lock.read_text().strip() or 0)
        except (OSError, ValueError):
            pid = 0
        if pid and pid != os.getpid() and _pid_alive(pid):
            raise RtEegError(
                f"output folder is in use by a running {what} (pid {pid})", folder.parent
            )
        try:
            stale = (folder / "ipc_dir").read_text().strip()
        except OSError:
            stale = ""
        if stale and Path(stale).name.startswith(ipc_prefix):
            shutil.rmtree(stale, ignore_errors=True)
        recovered = {"killed_pid": pid, "ipc_dir_removed": stale or None}
        log.warning(
            "%s: a previous %s (pid %s) was killed; starting over", folder.parent, what, pid
        )
    if folder.exists():
        shutil.rmtree(folder)
    return recovered


def check_source(source: dict, edf: Path | None) -> tuple[list[str], float | None, str, dict, str]:
    """Open ``source`` once, without subscribing, and check it before anything starts.

    Parameters
    ----------
    source : dict
        Source description (``{"kind": "edf", "path": ...}``, ``{"kind": "lsl", ...}``).
    edf : Path or None
        The recording, named in errors (else the source's own ``where``).

    Returns
    -------
    ch_names, duration, montage, info, name
        The detector's channels, the length in seconds (None for a live stream), the
        montage, the source's description and its name.
    """
    from rt_eeg.montage import check_enough_channels, reduced_note
    from rt_eeg.sources import source_from_spec

    src = source_from_spec({**source, "subscribe": False})
    try:
        ch_names, duration, montage = src.ch_names, src.duration, src.montage
        info = src.describe()
        default_name = src.name
    finally:
        src.close()
    check_enough_channels(ch_names, edf or getattr(src, "where", None))
    note = reduced_note(montage, ch_names, edf or getattr(src, "where", None))
    if note:
        log.warning(note)
    return ch_names, duration, montage, info, default_name


def check_model(model: Path) -> FeatureConfig:
    """The model folder's files against its manifest (hashes, the LiteRT twin's source):
    the source no longer waits for the decoder, so a tampered or stale model must fail
    here, before any process starts, not after streaming began. Milliseconds.

    Returns
    -------
    FeatureConfig
        The model's feature settings (its ``features.toml``; the defaults without one, whose
        absence the decoder stage reports): what the feature stage of this run computes.
    """
    from rt_eeg.features import model_feature_config
    from rt_eeg.model_files import lite_model_path, verify_model_files

    if not (model / "model.keras").is_file():
        raise RtEegError("model folder has no model.keras", model)
    manifest = verify_model_files(model)
    if manifest is not None:  # None: the decoder stage reports a missing or broken manifest
        lite_model_path(model, manifest)
    return model_feature_config(model)
