"""The monitor window: scrolling TCP-montage EEG with the detector's decisions overlaid.

Transport-free: the live feed (:mod:`rt_eeg.monitor.feed`) and the file viewer call
:meth:`MonitorWindow.push_signal`, :meth:`MonitorWindow.push_decision` and
:meth:`MonitorWindow.mark_eos`; tests call them directly and drive time with an injected
clock.

Layout of the plot (y in divisions; one division = the distance between two channel
baselines = ``uv_per_div`` microvolts): channel ``i`` is drawn around ``y = n - 1 - i`` so the
first channel is at the top; above it the 'Detection' strip shows every decision in opaque
colour with its label, and the same colours lie semi-transparent behind the traces.

This module owns the window itself: layout, data in, user controls, the refresh cycle and
grabbing. Its parts live beside it: the plot in :mod:`rt_eeg.monitor.channel_view`, the
banners, event list and status line in :mod:`rt_eeg.monitor.panels`, the colours and plot
items in :mod:`rt_eeg.monitor.plot_items`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets

from rt_eeg.io.atomic import atomic_path
from rt_eeg.monitor.channel_view import _ChannelView
from rt_eeg.monitor.model import DecisionStore, SignalArray, SignalHistory
from rt_eeg.monitor.panels import _Panels, badge_width
from rt_eeg.monitor.plot_items import (
    BACKGROUND_ALPHA,
    BCKG_RGB,
    FLAG_RGB,
    GRID5_RGB,
    GRID_RGB,
    NA_RGB,
    REF_RGB,
    SEIZ_RGB,
    STALE_TRACE_RGB,
    STRIP_TEXT,
    TRACE_RGB,
    _PaintCounter,
)

# The colours live in plot_items, with the items that paint them; importable from here too.
__all__ = [
    "BACKGROUND_ALPHA",
    "BCKG_RGB",
    "FLAG_RGB",
    "GRID5_RGB",
    "GRID_RGB",
    "NA_RGB",
    "REF_RGB",
    "SEIZ_RGB",
    "SENSITIVITIES_UV",
    "STALE_TRACE_RGB",
    "STRIP_TEXT",
    "TIME_BASES_S",
    "TRACE_RGB",
    "MonitorWindow",
]

log = logging.getLogger(__name__)

Qt = QtCore.Qt

#: Sensitivities offered, microvolts per division (one division = channel spacing).
SENSITIVITIES_UV: tuple[float, ...] = (7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000)
#: Time bases offered, seconds across the screen.
TIME_BASES_S: tuple[float, ...] = (10.0, 20.0, 30.0)


class MonitorWindow(_ChannelView, _Panels, QtWidgets.QWidget):
    """Scrolling EEG with decisions, alarms and staleness, live or on a saved recording.

    Parameters
    ----------
    ch_names : list of str
        Channel names in display order (first at the top). May be empty in live mode: the
        window then waits for the stream and :meth:`set_channels` is called on first data.
    sfreq : float
        Hz.
    window_s : float
        Seconds across the screen (10, 20 or 30 in the menu; any positive value works).
    uv_per_div : float
        Microvolts per division (channel spacing).
    live : bool
        Live mode shows NO DATA / STALE when frames stop; review mode (False) does not.
    history_s : float
        Seconds of signal kept for scrolling back in live mode.
    stale_after_s : float
        Seconds (wall clock) without a frame after which live mode shows STALE.
    refresh_hz : float
        Rate of the display timer that drains the feed and redraws.
    clock : callable
        Monotonic wall clock in seconds; tests inject a fake one.
    source : str
        Where the data comes from, shown in the title and the NO DATA banner.
    """

    def __init__(
        self,
        ch_names: Sequence[str],
        sfreq: float = 250.0,
        *,
        window_s: float = 20.0,
        uv_per_div: float = 100.0,
        live: bool = True,
        history_s: float = 1800.0,
        stale_after_s: float = 1.0,
        refresh_hz: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        source: str = "",
        parent: QtWidgets.QWidget | None = None,
    ):
        super().__init__(parent)
        if window_s <= 0 or uv_per_div <= 0 or sfreq <= 0:
            raise ValueError("window_s, uv_per_div and sfreq must be positive")
        self.live = bool(live)
        self.window_s = float(window_s)
        self.uv_per_div = float(uv_per_div)
        self.history_s = float(history_s)
        self.stale_after_s = float(stale_after_s)
        self.source = source
        self._clock = clock
        self.decisions = DecisionStore()
        self.references: list[tuple[float, float]] = []
        self.state = "live" if live else "review"
        self.eos = False
        self.following = self.live  # live edge tracked; False once paused or scrolled back
        self.flags: list[str] = []
        self.n_frames = 0
        self.n_rejected_frames = 0
        self.feed_status = ""
        self._pollers: list[Callable[[], object]] = []
        self._last_frame_wall: float | None = None
        self._last_heartbeat_wall: float | None = None
        self._last_tick_wall: float | None = None
        self._t_head = 0.0  # right edge of the view while following (signal seconds)
        self._t_left = 0.0  # left edge when not following
        self._data_version = 0
        self._drawn: dict[str, object] = {}
        self._events_shown = -1
        self._updating_scrollbar = False

        self.setWindowTitle(f"rt-eeg monitor{' - ' + source if source else ''}")
        self._build_ui()
        self.set_channels(list(ch_names), sfreq)
        self.paint_counter = _PaintCounter()
        self._plotw.viewport().installEventFilter(self.paint_counter)
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(max(1, int(round(1000.0 / refresh_hz))))
        self._timer.timeout.connect(self.tick)
        self.tick()

    # ---------------------------------------------------------------------------------------
    # construction

    def _build_ui(self) -> None:
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.setSpacing(4)

        bar = QtWidgets.QHBoxLayout()
        self._state_label = QtWidgets.QLabel()
        self._state_label.setFixedWidth(badge_width(self._state_label))
        self._state_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        bar.addWidget(self._state_label)
        self._pos_label = QtWidgets.QLabel()
        f = self._pos_label.font()
        f.setPointSize(11)
        self._pos_label.setFont(f)
        bar.addWidget(self._pos_label, 1)
        self._pause_btn = QtWidgets.QPushButton("Pause (space)")
        self._pause_btn.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._pause_btn.clicked.connect(self.toggle_pause)
        self._pause_btn.setVisible(self.live)
        bar.addWidget(self._pause_btn)
        bar.addWidget(QtWidgets.QLabel("Sensitivity"))
        self._sens_combo = QtWidgets.QComboBox()
        self._sens_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for v in SENSITIVITIES_UV:
            self._sens_combo.addItem(f"{v:g} µV/div", float(v))
        self._sens_combo.currentIndexChanged.connect(
            lambda i: self.set_sensitivity(self._sens_combo.itemData(i))
        )
        bar.addWidget(self._sens_combo)
        bar.addWidget(QtWidgets.QLabel("Time base"))
        self._tb_combo = QtWidgets.QComboBox()
        self._tb_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for v in TIME_BASES_S:
            self._tb_combo.addItem(f"{v:g} s", float(v))
        self._tb_combo.currentIndexChanged.connect(
            lambda i: self.set_time_base(self._tb_combo.itemData(i))
        )
        bar.addWidget(self._tb_combo)
        outer.addLayout(bar)

        self._build_banners(outer)

        split = QtWidgets.QSplitter(Qt.Orientation.Horizontal)
        left = QtWidgets.QWidget()
        lv = QtWidgets.QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.setSpacing(2)
        self._build_plot(lv)
        self._scroll = QtWidgets.QScrollBar(Qt.Orientation.Horizontal)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._scroll.valueChanged.connect(self._on_scroll)
        lv.addWidget(self._scroll)
        split.addWidget(left)

        split.addWidget(self._build_event_panel())
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 1)
        split.setSizes([1300, 330])
        outer.addWidget(split, 1)

        self._status = QtWidgets.QLabel()
        self._status.setStyleSheet("color:#333")
        outer.addWidget(self._status)
        self.resize(1680, 980)
        self._select_combo(self._sens_combo, self.uv_per_div)
        self._select_combo(self._tb_combo, self.window_s)

    @staticmethod
    def _select_combo(combo: QtWidgets.QComboBox, value: float) -> None:
        i = combo.findData(float(value))
        if i < 0:
            combo.addItem(f"{value:g}", float(value))
            i = combo.count() - 1
        combo.blockSignals(True)
        combo.setCurrentIndex(i)
        combo.blockSignals(False)

    # ---------------------------------------------------------------------------------------
    # data in

    def push_signal(self, t0: float, frame: np.ndarray) -> None:
        """Add a frame of signal.

        Parameters
        ----------
        t0 : float
            Signal seconds of the first sample.
        frame : np.ndarray
            (n_samples, n_channels) microvolts.

        Raises
        ------
        ValueError
            Wrong shape or non-finite t0 (the feed counts it as malformed).
        """
        frame = np.asarray(frame, dtype=np.float32)
        if frame.ndim != 2 or frame.shape[1] != self.n_channels or self.n_channels == 0:
            raise ValueError(f"frame shape {frame.shape} does not match {self.n_channels} channels")
        if not math.isfinite(t0):
            raise ValueError(f"frame t0 {t0} is not finite")
        sig = self.signal
        if isinstance(sig, SignalHistory) and not sig.empty and t0 < sig.t_end - 2.0:
            # Time went backwards: a new recording or a restarted source. Start afresh
            # rather than overwrite history with unrelated data.
            log.warning("signal time went back from %.1f s to %.1f s; clearing", sig.t_end, t0)
            self.set_channels(self.ch_names, self.sfreq)
            sig = self.signal
        if not sig.write(t0, frame):
            self.n_rejected_frames += 1
            return
        self.n_frames += 1
        self._last_frame_wall = self._clock()
        self.eos = False
        self._data_version += 1

    def push_decision(
        self, start: float, stop: float, label: str, confidence: float, channels: Sequence[str]
    ) -> None:
        """Add one decision: 'seiz' (or a seizure subtype), 'bckg' or 'na' over [start, stop).

        Raises
        ------
        ValueError
            Unknown label or invalid numbers (the feed counts it as malformed).
        """
        self.decisions.add(start, stop, label, confidence, list(channels))

    def set_decisions(self, epochs: Sequence) -> None:
        """Load many decisions at once (objects with start, stop, label, confidence)."""
        for ep in epochs:
            self.decisions.add(
                ep.start, ep.stop, ep.label, ep.confidence, list(getattr(ep, "channels", []))
            )

    def set_signal(self, data: np.ndarray, t0: float = 0.0) -> None:
        """Show a whole saved recording (review mode); ``data`` (n_samples, n_channels) uV."""
        if data.ndim != 2 or data.shape[1] != self.n_channels:
            raise ValueError(f"signal shape {data.shape} does not match {self.n_channels} channels")
        self.signal = SignalArray(data, self.sfreq, t0)
        self._t_left = float(t0)
        self._data_version += 1

    def mark_eos(self) -> None:
        """The stream ended normally: show END OF STREAM instead of STALE."""
        self.eos = True

    def note_heartbeat(self) -> None:
        """The pipeline is alive (used to word the NO DATA banner)."""
        self._last_heartbeat_wall = self._clock()

    def set_feed_status(self, text: str) -> None:
        """One line about the transport (counts, latency), shown in the status bar."""
        self.feed_status = text

    def add_poller(self, poll: Callable[[], object]) -> None:
        """Call ``poll()`` at the start of every tick (the feed drains its sockets there)."""
        self._pollers.append(poll)

    # ---------------------------------------------------------------------------------------
    # user controls

    def start(self) -> None:
        """Start the refresh timer (drain the feed and redraw at ``refresh_hz``)."""
        self._timer.start()

    def stop(self) -> None:
        """Stop the refresh timer."""
        self._timer.stop()

    def set_sensitivity(self, uv_per_div: float) -> None:
        """Microvolts per division (channel spacing)."""
        self.uv_per_div = float(uv_per_div)
        self._select_combo(self._sens_combo, self.uv_per_div)
        self._block_start = None

    def step_sensitivity(self, steps: int) -> None:
        """Move along SENSITIVITIES_UV; positive = bigger traces (fewer uV per division)."""
        vals = sorted(SENSITIVITIES_UV)
        i = int(np.argmin([abs(v - self.uv_per_div) for v in vals]))
        self.set_sensitivity(vals[int(np.clip(i - steps, 0, len(vals) - 1))])

    def set_time_base(self, window_s: float) -> None:
        """Seconds across the screen."""
        right = self.view_range()[1]
        self.window_s = float(window_s)
        self._select_combo(self._tb_combo, self.window_s)
        self._allocate_buffers()
        if not self.following:
            self._t_left = right - self.window_s
        self._drawn.clear()

    def toggle_pause(self) -> None:
        """Freeze the live display (data keeps arriving) or return to the live edge."""
        if not self.live:
            return
        if self.following:
            self._t_left = self.view_range()[0]
            self.following = False
        else:
            self.go_live()

    def go_live(self) -> None:
        """Follow the newest data again (live mode)."""
        if self.live:
            self.following = True
            self._t_head = self.signal.t_end

    def scroll_to(self, t_left: float) -> None:
        """Show ``[t_left, t_left + window_s]``; in live mode this stops following."""
        self.following = False
        lo = self.signal.t_first
        hi = max(lo, self.signal.t_end - self.window_s)
        self._t_left = float(np.clip(t_left, lo, hi)) if not self.signal.empty else t_left

    def scroll_by(self, dt: float) -> None:
        """Move the view by ``dt`` seconds; reaching the live edge resumes following."""
        left = self.view_range()[0] + dt
        if self.live and left + self.window_s >= self.signal.t_end:
            self.go_live()
        else:
            self.scroll_to(left)

    def keyPressEvent(self, ev):  # noqa: N802
        key = ev.key()
        K = Qt.Key
        if key == K.Key_Space:
            self.toggle_pause()
        elif key == K.Key_Left:
            self.scroll_by(-1.0)
        elif key == K.Key_Right:
            self.scroll_by(1.0)
        elif key == K.Key_PageUp:
            self.scroll_by(-self.window_s)
        elif key == K.Key_PageDown:
            self.scroll_by(self.window_s)
        elif key == K.Key_Home:
            self.scroll_to(self.signal.t_first)
        elif key == K.Key_End:
            if self.live:
                self.go_live()
            else:
                self.scroll_to(self.signal.t_end - self.window_s)
        elif key in (K.Key_Plus, K.Key_Equal):
            self.step_sensitivity(+1)
        elif key in (K.Key_Minus, K.Key_Underscore):
            self.step_sensitivity(-1)
        else:
            super().keyPressEvent(ev)
            return
        self.tick()

    def _on_scroll(self, value: int) -> None:
        if self._updating_scrollbar:
            return
        t_left = value / 10.0
        if self.live and t_left + self.window_s >= self.signal.t_end - 0.05:
            self.go_live()
        else:
            self.scroll_to(t_left)

    # ---------------------------------------------------------------------------------------
    # refresh

    def view_range(self) -> tuple[float, float]:
        """(left, right) signal seconds currently shown."""
        if self.following:
            # Until a screenful has arrived the trace grows from the left edge.
            right = max(self._t_head, self.signal.t_first + self.window_s)
            return right - self.window_s, right
        return self._t_left, self._t_left + self.window_s

    def tick(self, *, poll: bool = True) -> None:
        """One display step: drain pollers, update state, move the view, redraw what changed.

        ``poll=False`` redraws without calling the pollers (used by :meth:`grab`, which a
        poller may call).
        """
        for poll_fn in self._pollers if poll else ():
            try:
                poll_fn()
            except Exception:  # a broken feed must not take the display down with it
                log.exception("monitor poller failed")
        now = self._clock()
        self._update_state(now)
        self._advance_head(now)
        self._last_tick_wall = now
        self._redraw()

    def _update_state(self, now: float) -> None:
        if not self.live:
            self.state = "review"
        elif self.eos:
            self.state = "eos"
        elif self._last_frame_wall is None:
            self.state = "waiting"
        elif now - self._last_frame_wall > self.stale_after_s:
            self.state = "stale"
        else:
            self.state = "live" if self.following else "paused"

    def _advance_head(self, now: float) -> None:
        if not self.following:
            return
        t_end = self.signal.t_end
        # Scroll smoothly at wall-clock speed between frames, never ahead of the data and
        # never more than 0.25 s behind it.
        dt = 0.0 if self._last_tick_wall is None else max(0.0, now - self._last_tick_wall)
        self._t_head = min(t_end, max(self._t_head + dt, t_end - 0.25))

    def _redraw(self) -> None:
        left, right = self.view_range()
        if self.n_channels and not self.signal.empty:
            self._refresh_traces(left, right)
        if self._drawn.get("view") != (left, right):
            self._plot.setXRange(left, right, padding=0)
            self._drawn["view"] = (left, right)
            # pyqtgraph defers the view matrix to the next paint, where changing it marks
            # every item dirty again and costs a second full repaint; apply it now.
            self._plotw.scene().prepareForPaint()
        self._refresh_bands(left, right)
        self._refresh_pens()
        self._refresh_banners()
        self._refresh_table()
        self._refresh_scrollbar(left)
        self._refresh_status(left, right)

    def _refresh_scrollbar(self, left: float) -> None:
        sig = self.signal
        lo = int(math.floor(sig.t_first * 10))
        hi = max(lo, int(math.ceil((sig.t_end - self.window_s) * 10)))
        key = (lo, hi, int(round(left * 10)), int(self.window_s * 10))
        if self._drawn.get("scroll") == key:
            return
        self._drawn["scroll"] = key
        self._updating_scrollbar = True
        try:
            self._scroll.setRange(lo, hi)
            self._scroll.setPageStep(int(self.window_s * 10))
            self._scroll.setSingleStep(10)
            self._scroll.setValue(int(round(left * 10)))
        finally:
            self._updating_scrollbar = False

    # ---------------------------------------------------------------------------------------
    # output and test helpers

    def grab_image(self) -> QtGui.QImage:
        """Render the whole window now and return it as an image."""
        self.tick(poll=False)
        return self.grab().toImage()

    def grab(self, path: str | Path | None = None):  # type: ignore[override]
        """Render the window; with ``path``, save it as PNG (atomically) and return the path.

        Without ``path`` this is ``QWidget.grab()`` (returns a QPixmap).
        """
        if path is None:
            return super().grab()
        self.tick(poll=False)
        pix = super().grab()
        with atomic_path(path, suffix=".png") as tmp:
            if not pix.save(str(tmp), "PNG"):
                raise OSError(f"could not write PNG {path}")
        return Path(path)
