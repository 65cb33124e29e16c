"""Process entry points: the live monitor on a running pipeline, and the file viewer.

Both open the same :class:`~rt_eeg.monitor.window.MonitorWindow`. With ``screenshot`` they
also work without a display (Qt's offscreen platform): the window is rendered to a PNG and
the process exits, which is how tests and ``make run`` on a headless machine use them.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import write_json_atomic

log = logging.getLogger(__name__)

#: After the first end-of-stream, wait at most this long (s) for the other topic's before
#: the final screenshot: the display path is lossy, so an eos may never come.
EOS_GRACE_S = 5.0


def has_display() -> bool:
    """True when a window can be shown (X11 or Wayland, or a non-offscreen Qt platform)."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and platform not in ("offscreen", "minimal"):
        return True
    return not platform and bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def prepare_qt(*, headless: bool, screenshot: str | os.PathLike | None) -> bool:
    """Choose the Qt platform before Qt is imported; returns True when rendering offscreen.

    Raises
    ------
    RtEegError
        No display and nothing to render offscreen for, or a Qt binding known to crash.
    """
    from rt_eeg.monitor import qt_binding_problem

    problem = qt_binding_problem()
    if problem is not None:
        raise RtEegError(problem)
    if headless or (screenshot is not None and not has_display()):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return True
    if os.environ.get("QT_QPA_PLATFORM") in ("offscreen", "minimal"):
        return True
    if not has_display():
        raise RtEegError(
            "no display available (DISPLAY is not set); pass --screenshot PATH to render "
            "the window offscreen to a PNG instead"
        )
    return False


def _qapp():
    import pyqtgraph as pg

    return pg.mkQApp("rt-eeg monitor")


def signal_t0(path: str | os.PathLike) -> float:
    """``t0`` from a signal file's JSON header (0 when absent)."""
    p = Path(path)
    name = p.name
    for suffix in (".signal.f32", ".signal.json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    meta = p.with_name(name + ".signal.json")
    try:
        return float(json.loads(meta.read_text(encoding="utf-8")).get("t0", 0.0))
    except (OSError, ValueError, TypeError, AttributeError):
        return 0.0


def _reference_intervals(path) -> list[tuple[float, float]]:
    from rt_eeg.io.annotations import SEIZURE_LABELS, read_annotation

    ann = read_annotation(path)
    spans = sorted((ev.start, ev.stop) for ev in ann.events if ev.label in SEIZURE_LABELS)
    merged: list[tuple[float, float]] = []
    for a, b in spans:  # per-channel annotations overlap: show their union
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def run_view(
    signal_path: str | os.PathLike,
    hyp_path: str | os.PathLike | None = None,
    *,
    events_path: str | os.PathLike | None = None,
    start_s: float | None = None,
    window_s: float = 20.0,
    uv_per_div: float = 100.0,
    screenshot: str | os.PathLike | None = None,
    headless: bool = False,
) -> int:
    """Review a saved signal file with its HYP decisions (and reference events).

    Parameters
    ----------
    signal_path : path-like
        ``<stem>.signal.f32``, its ``.signal.json`` or the stem.
    hyp_path : path-like, optional
        Per-epoch decisions (``rt_eeg_hyp_v1``); without it every epoch shows as not analysed.
    events_path : path-like, optional
        Reference annotations (csv_bi, csv, tse, tse_bi, lbl): seizures appear in a
        'Reference' strip.
    start_s : float, optional
        Left edge of the first page, signal seconds (default: the start of the file).
    screenshot : path-like, optional
        Save the first page as PNG and exit instead of opening the window.

    Returns
    -------
    int
        Exit code.
    """
    from rt_eeg.io.annotations import read_hyp
    from rt_eeg.io.signalfile import read_signal

    data, sfreq, ch_names = read_signal(signal_path)
    t0 = signal_t0(signal_path)
    epochs, duration = read_hyp(hyp_path) if hyp_path is not None else ([], None)
    refs = _reference_intervals(events_path) if events_path is not None else []
    rec_end = t0 + data.shape[0] / sfreq
    if duration is not None and duration > rec_end + 1.0:
        log.warning(
            "%s: HYP covers %.1f s but the signal ends at %.1f s", hyp_path, duration, rec_end
        )
    prepare_qt(headless=headless, screenshot=screenshot)
    app = _qapp()
    from rt_eeg.monitor.window import MonitorWindow

    win = MonitorWindow(
        ch_names,
        sfreq,
        window_s=window_s,
        uv_per_div=uv_per_div,
        live=False,
        source=Path(signal_path).name,
    )
    try:
        win.set_decisions(epochs)
    except ValueError as err:
        raise RtEegError(f"invalid decision in HYP ({err})", hyp_path) from None
    win.set_signal(data, t0)
    if refs:
        win.set_references(refs)
    win.scroll_to(t0 if start_s is None else float(start_s))
    if screenshot is not None:
        win.grab(screenshot)
        print(f"wrote {screenshot}")
        win.close()
        return 0
    win.show()
    win.tick()
    return int(app.exec())


def run_monitor(
    endpoints: Sequence[str],
    *,
    ch_names: Sequence[str] | None = None,
    sfreq: float = 250.0,
    window_s: float = 20.0,
    uv_per_div: float = 100.0,
    screenshot: str | os.PathLike | None = None,
    after_s: float | None = None,
    exit_on_eos: bool = False,
    stats_path: str | os.PathLike | None = None,
    headless: bool = False,
    at_signal_s: float | None = None,
    at_screenshot: str | os.PathLike | None = None,
    curve: tuple[str, str] | None = None,
) -> int:
    """Show a running pipeline's display stream.

    Parameters
    ----------
    endpoints : list of str
        Display endpoints (signal and decision publishers).
    ch_names : list of str, optional
        Channels expected; otherwise taken from the first frame.
    screenshot : path-like, optional
        PNG written after ``after_s`` seconds, else at end of stream (or on SIGTERM/SIGINT);
        the process then exits.
    exit_on_eos : bool
        Exit when the stream has ended (implied by ``screenshot`` without ``after_s``).
    stats_path : path-like, optional
        JSON counters written on exit (received, dropped, malformed, fps). Defaults to
        ``monitor_stats.json`` beside the screenshot when there is one.
    at_signal_s, at_screenshot : float, path-like, optional
        Also write ``at_screenshot`` once the newest signal shown is ``at_signal_s`` seconds
        into the recording (and the decisions have caught up with it), then carry on: a
        picture of a chosen moment, such as a seizure onset, from a live run.
    curve : (str, str), optional
        ``(server public key file, client secret key file)`` for CURVE-protected endpoints.
    """
    prepare_qt(headless=headless, screenshot=screenshot or at_screenshot)
    app = _qapp()
    from pyqtgraph.Qt import QtCore

    from rt_eeg.monitor.feed import MonitorFeed
    from rt_eeg.monitor.window import MonitorWindow

    if stats_path is None and screenshot is not None:
        stats_path = Path(screenshot).with_name("monitor_stats.json")
    exit_on_eos = exit_on_eos or (screenshot is not None and after_s is None)
    win = MonitorWindow(
        list(ch_names or []),
        sfreq,
        window_s=window_s,
        uv_per_div=uv_per_div,
        live=True,
        source=", ".join(endpoints),
    )
    feed = MonitorFeed(endpoints, win, curve=curve)
    t_start = time.monotonic()
    finished = {"done": False}

    def finish() -> None:
        if finished["done"]:
            return
        finished["done"] = True
        if screenshot is not None:
            win.grab(screenshot)
            log.info("wrote %s", screenshot)
        app.quit()

    taken = {"at": at_signal_s is None or at_screenshot is None}

    def check_exit() -> None:
        now = time.monotonic()
        if not taken["at"]:
            sig = win.signal
            t_end = getattr(sig, "t_end", None) if not getattr(sig, "empty", True) else None
            if (
                t_end is not None
                and t_end >= at_signal_s
                and feed.last_decision_stop() >= at_signal_s - 2.0
            ):
                taken["at"] = True
                win.grab(at_screenshot)
                log.info("wrote %s", at_screenshot)
        if after_s is not None and now - t_start >= after_s:
            finish()
        elif exit_on_eos and feed.t_first_eos is not None:
            all_eos = {"signal", "decision"} <= feed.eos_topics
            if all_eos or now - feed.t_first_eos > EOS_GRACE_S:
                finish()

    win.add_poller(check_exit)
    # Python signal handlers run between Qt events; the display timer keeps them coming.
    previous = {
        sig: signal.signal(sig, lambda *_: finish()) for sig in (signal.SIGTERM, signal.SIGINT)
    }
    win.show()
    win.start()
    timer = QtCore.QTimer()  # keep a handle so it is not collected
    timer.start(200)
    timer.timeout.connect(lambda: None)
    try:
        app.exec()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        win.stop()
        if stats_path is not None:
            fps = win.paint_counter.count / max(time.monotonic() - t_start, 1e-9)
            write_json_atomic(stats_path, feed.stats() | {"paints_per_s": round(fps, 1)})
        feed.close()
        win.close()
    return 0
