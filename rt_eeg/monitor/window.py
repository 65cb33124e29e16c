"""The monitor window: scrolling TCP-montage EEG with the detector's decisions overlaid.

Transport-free: the live feed (:mod:`rt_eeg.monitor.feed`) and the file viewer call
:meth:`MonitorWindow.push_signal`, :meth:`MonitorWindow.push_decision` and
:meth:`MonitorWindow.mark_eos`; tests call them directly and drive time with an injected
clock.

Layout of the plot (y in divisions; one division = the distance between two channel
baselines = ``uv_per_div`` microvolts): channel ``i`` is drawn around ``y = n - 1 - i`` so the
first channel is at the top; above it the 'Detection' strip shows every decision in opaque
colour with its label, and the same colours lie semi-transparent behind the traces.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets

from rt_eeg.io.atomic import atomic_path
from rt_eeg.monitor.model import (
    BCKG,
    NA,
    SEIZ,
    DecisionStore,
    SeizureEvent,
    SignalArray,
    SignalHistory,
    channel_flags,
    format_time,
)

log = logging.getLogger(__name__)

Qt = QtCore.Qt

#: Sensitivities offered, microvolts per division (one division = channel spacing).
SENSITIVITIES_UV: tuple[float, ...] = (7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000)
#: Time bases offered, seconds across the screen.
TIME_BASES_S: tuple[float, ...] = (10.0, 20.0, 30.0)

# Colours. Red and green are paired with text labels (SEIZ / BCKG / not analysed) in the
# strip, so the overlay does not rely on colour alone.
SEIZ_RGB = (215, 25, 28)
BCKG_RGB = (26, 150, 65)
NA_RGB = (150, 150, 150)
REF_RGB = (110, 20, 90)
TRACE_RGB = (15, 15, 25)
STALE_TRACE_RGB = (185, 185, 185)
FLAG_RGB = (200, 80, 0)
GRID_RGB = (200, 200, 200)
GRID5_RGB = (150, 150, 150)
#: Opacity of the colours behind the traces (the strip is opaque).
BACKGROUND_ALPHA = {SEIZ: 0.30, BCKG: 0.22, NA: 0.28}
STRIP_TEXT = {SEIZ: "SEIZ", BCKG: "BCKG", NA: "not analysed"}

_STATE_STYLE = {
    "live": ("LIVE", "background:#1a9641;color:white"),
    "paused": ("PAUSED", "background:#2b5d9b;color:white"),
    "stale": ("NO DATA", "background:#ffd21f;color:black"),
    "waiting": ("NO DATA", "background:#ffd21f;color:black"),
    "eos": ("END OF STREAM", "background:#444;color:white"),
    "review": ("REVIEW", "background:#4a5568;color:white"),
}


def _qcolor(rgb: tuple[int, int, int], alpha: float = 1.0) -> QtGui.QColor:
    return QtGui.QColor(rgb[0], rgb[1], rgb[2], int(round(alpha * 255)))


class _TimeAxis(pg.AxisItem):
    """Bottom axis labelled in mm:ss (h:mm:ss past an hour) of signal time."""

    def tickSpacing(self, minVal, maxVal, size):  # noqa: N802 (Qt naming)
        span = maxVal - minVal
        major = 5.0 if span <= 40 else 10.0 if span <= 120 else 60.0
        return [(major, 0.0), (1.0, 0.0)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [format_time(v, decimals=0) for v in values]


class _ChannelAxis(pg.AxisItem):
    """Left axis with channel names; flagged channels (FLAT/RAIL) in bold orange."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.text_colours: dict[str, QtGui.QColor] = {}
        self._bold = QtGui.QFont()
        self._bold.setBold(True)

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802
        super().drawPicture(p, axisSpec, tickSpecs, [])
        normal_font = p.font()
        bold = QtGui.QFont(normal_font)
        bold.setBold(True)
        for rect, flags, text in textSpecs:
            colour = self.text_colours.get(text)
            p.setFont(bold if colour is not None else normal_font)
            p.setPen(pg.mkPen(colour if colour is not None else self.textPen().color()))
            p.drawText(rect, int(flags), text)


class _StripItem(pg.GraphicsObject):
    """A horizontal band ``y0..y1`` whose x extent follows the visible time range."""

    def __init__(self, y0: float, y1: float):
        super().__init__()
        self.y0, self.y1 = y0, y1
        self._rect = QtCore.QRectF(0.0, y0, 1.0, y1 - y0)

    def set_extent(self, x0: float, x1: float) -> None:
        rect = QtCore.QRectF(x0, self.y0, max(x1 - x0, 1e-6), self.y1 - self.y0)
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect
        self.update()

    def boundingRect(self):  # noqa: N802
        return self._rect


class _BandItem(_StripItem):
    """Decision colours over a horizontal band of the plot.

    ``strip=True``: opaque, with text (SEIZ + confidence, BCKG, not analysed).
    ``strip=False``: semi-transparent, behind the traces.
    """

    def __init__(self, window: MonitorWindow, y0: float, y1: float, *, strip: bool):
        super().__init__(y0, y1)
        self._w = window
        self.strip = strip
        self._font = QtGui.QFont()
        self._font.setBold(True)
        self._font.setPointSize(11)

    def paint(self, p, *args):
        x0, x1 = self._rect.left(), self._rect.right()
        segs = self._w._segments(x0, x1)
        stale = self._w.state in ("stale", "waiting")
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        for a, b, code in segs:
            # When data stopped, background is no longer shown as reassuring green.
            shown = NA if (stale and code == BCKG) else code
            rgb = {SEIZ: SEIZ_RGB, BCKG: BCKG_RGB, NA: NA_RGB}[shown]
            alpha = 1.0 if self.strip else BACKGROUND_ALPHA[shown]
            p.fillRect(QtCore.QRectF(a, self.y0, b - a, self.y1 - self.y0), _qcolor(rgb, alpha))
        if self.strip:
            self._paint_text(p, segs, stale)
        else:
            self._paint_grid(p, x0, x1)

    def _paint_grid(self, p, x0: float, x1: float) -> None:
        # One line per second, darker every 5 s, like EEG paper. Drawn here rather than with
        # the axis grid, which would rebuild a full-plot picture on every scroll step.
        pens = (pg.mkPen(GRID_RGB, width=0), pg.mkPen(GRID5_RGB, width=0))
        for s in range(int(math.ceil(x0)), int(math.floor(x1)) + 1):
            p.setPen(pens[s % 5 == 0])
            p.drawLine(QtCore.QPointF(s, self.y0), QtCore.QPointF(s, self.y1))

    def _paint_text(self, p, segs, stale: bool) -> None:
        tr = p.transform()
        p.save()
        p.resetTransform()
        p.setFont(self._font)
        fm = QtGui.QFontMetrics(self._font)
        x0, x1 = self._rect.left(), self._rect.right()
        for a, b, code in segs:
            shown = NA if (stale and code == BCKG) else code
            text = STRIP_TEXT[shown]
            if shown == SEIZ:
                conf = self._w._event_confidence(a, b)
                text = f"SEIZ {conf:.2f}" if conf is not None else "SEIZ"
            r = tr.mapRect(QtCore.QRectF(a, self.y0, b - a, self.y1 - self.y0))
            r = r.intersected(tr.mapRect(QtCore.QRectF(x0, self.y0, x1 - x0, self.y1 - self.y0)))
            if fm.horizontalAdvance(text) + 8 > r.width():
                if shown != SEIZ:
                    continue
                text = "SEIZ"  # never leave a red span unlabelled if the word fits
                if fm.horizontalAdvance(text) + 4 > r.width():
                    continue
            p.setPen(pg.mkPen("w" if shown != NA else (40, 40, 40)))
            p.drawText(
                r.adjusted(4, 0, -2, 0),
                int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                text,
            )
        p.restore()


class _RefItem(_StripItem):
    """Reference (expert) seizure annotations in their own strip, for review."""

    def __init__(self, events: list[tuple[float, float]], y0: float, y1: float):
        super().__init__(y0, y1)
        self.events = sorted(events)

    def paint(self, p, *args):
        x0, x1 = self._rect.left(), self._rect.right()
        tr = p.transform()
        font = QtGui.QFont()
        font.setBold(True)
        for a, b in self.events:
            a, b = max(a, x0), min(b, x1)
            if b <= a:
                continue
            rect = QtCore.QRectF(a, self.y0, b - a, self.y1 - self.y0)
            p.fillRect(rect, _qcolor(REF_RGB))
            p.save()
            p.resetTransform()
            p.setFont(font)
            p.setPen(pg.mkPen("w"))
            r = tr.mapRect(rect)
            if r.width() > 70:
                p.drawText(
                    r.adjusted(4, 0, 0, 0),
                    int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                    "REF SEIZ",
                )
            p.restore()


class _PaintCounter(QtCore.QObject):
    """Counts paint events of the plot's viewport (benchmark: frames actually drawn)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter):
        super().__init__()
        self.count = 0
        self.times: deque[float] = deque(maxlen=10_000)  # recent paint times (bounded)
        self._clock = clock

    def eventFilter(self, obj, ev):  # noqa: N802
        if ev.type() == QtCore.QEvent.Type.Paint:
            self.count += 1
            self.times.append(self._clock())
        return False


class MonitorWindow(QtWidgets.QWidget):
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
        self._state_label.setMinimumWidth(150)
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

        self._stale_banner = QtWidgets.QLabel()
        self._stale_banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._stale_banner.setStyleSheet(
            "background:#ffd21f;color:black;font-size:22pt;font-weight:bold;padding:6px;"
            "border:3px solid black"
        )
        self._stale_banner.hide()
        outer.addWidget(self._stale_banner)
        self._alert_banner = QtWidgets.QLabel()
        self._alert_banner.setWordWrap(True)
        self._alert_banner.hide()
        outer.addWidget(self._alert_banner)

        split = QtWidgets.QSplitter(Qt.Orientation.Horizontal)
        left = QtWidgets.QWidget()
        lv = QtWidgets.QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.setSpacing(2)
        self._chan_axis = _ChannelAxis("left")
        self._time_axis = _TimeAxis("bottom")
        self._plotw = pg.PlotWidget(
            background="w", axisItems={"left": self._chan_axis, "bottom": self._time_axis}
        )
        self._plotw.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._plot = self._plotw.getPlotItem()
        self._plot.setMenuEnabled(False)
        self._plot.hideButtons()
        vb = self._plot.getViewBox()
        vb.setMouseEnabled(x=False, y=False)
        vb.disableAutoRange()
        # PlotItem.addItem applies these to every curve: min/max per pixel column, and only
        # the visible part of the data is turned into a path.
        self._plot.setDownsampling(auto=True, mode="peak")
        self._plot.setClipToView(True)
        font = QtGui.QFont()
        font.setPointSize(10)
        for ax in (self._chan_axis, self._time_axis):
            ax.setPen(pg.mkPen((60, 60, 60)))
            ax.setTextPen(pg.mkPen((10, 10, 10)))
            ax.setStyle(tickFont=font)
        self._chan_axis.setStyle(tickLength=0, textFillLimits=[(0, 1.0)])
        self._chan_axis.setWidth(120)
        lv.addWidget(self._plotw, 1)
        self._scroll = QtWidgets.QScrollBar(Qt.Orientation.Horizontal)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._scroll.valueChanged.connect(self._on_scroll)
        lv.addWidget(self._scroll)
        split.addWidget(left)

        panel = QtWidgets.QWidget()
        pv = QtWidgets.QVBoxLayout(panel)
        pv.setContentsMargins(0, 0, 0, 0)
        title = QtWidgets.QLabel("<b>Seizure events</b>")
        pv.addWidget(title)
        self._table = QtWidgets.QTableWidget(0, 4)
        self._table.setHorizontalHeaderLabels(["Onset", "Duration", "Conf.", "Channels"])
        self._table.verticalHeader().setVisible(False)
        self._table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self._table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self._table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._table.horizontalHeader().setStretchLastSection(True)
        self._table.setWordWrap(True)
        self._table.cellClicked.connect(self._on_event_clicked)
        pv.addWidget(self._table, 1)
        self._help = QtWidgets.QLabel(
            "space pause · ←/→ 1 s · PgUp/PgDn page · Home/End · +/- sensitivity"
        )
        self._help.setWordWrap(True)
        self._help.setStyleSheet("color:#555")
        pv.addWidget(self._help)
        split.addWidget(panel)
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

    def set_channels(self, ch_names: Sequence[str], sfreq: float) -> None:
        """(Re)build the traces for new channels; clears the signal and the decisions."""
        self.ch_names = [str(c) for c in ch_names]
        self.n_channels = len(self.ch_names)
        self.sfreq = float(sfreq)
        self.signal: SignalHistory | SignalArray = SignalHistory(
            max(self.n_channels, 1), self.sfreq, self.history_s
        )
        self.decisions.clear()
        self.flags = [""] * self.n_channels
        for item in list(self._plot.items):
            self._plot.removeItem(item)
        n = self.n_channels
        self._offsets = np.arange(n - 1, -1, -1, dtype=np.float32)  # first channel on top
        self._strip_y = (n - 0.35, n + 0.45)
        self._ref_y = (n + 0.55, n + 1.35)
        self._bg = _BandItem(self, -0.6, n - 0.4, strip=False)
        self._bg.setZValue(-10)
        self._plot.addItem(self._bg)
        self._strip = _BandItem(self, *self._strip_y, strip=True)
        self._strip.setZValue(10)
        self._plot.addItem(self._strip)
        self._ref_item: _RefItem | None = None
        if self.references:
            self.set_references(self.references)
        self.curves = []
        for _ in range(n):
            c = pg.PlotDataItem(
                pen=pg.mkPen(TRACE_RGB, width=1),
                connect="finite",
                autoDownsampleFactor=1.0,  # peak mode: min and max of every pixel column
            )
            self._plot.addItem(c)
            self.curves.append(c)
        self._pen_state: list[str] = [""] * n
        self._allocate_buffers()
        self._update_y_axis()
        self._drawn.clear()
        self._data_version += 1

    def _allocate_buffers(self) -> None:
        # Fetched block: the visible window plus 1 s margin either side, preallocated once
        # per time base; every redraw fills these in place.
        n = int(round((self.window_s + 2.0) * self.sfreq))
        self._block = np.empty((n, max(self.n_channels, 1)), dtype=np.float32)
        self._ybuf = np.empty((max(self.n_channels, 1), n), dtype=np.float32)
        self._xbase = np.arange(n, dtype=np.float64) / self.sfreq
        self._xbuf = np.empty(n, dtype=np.float64)
        self._block_start: int | None = None

    def _update_y_axis(self) -> None:
        n = self.n_channels
        ticks = [(float(self._offsets[i]), self._channel_label(i)) for i in range(n)]
        ticks.append((sum(self._strip_y) / 2, "Detection"))
        top = self._strip_y[1]
        if self.references:
            ticks.append((sum(self._ref_y) / 2, "Reference"))
            top = self._ref_y[1]
        self._chan_axis.setTicks([ticks, []])
        self._chan_axis.text_colours = {
            self._channel_label(i): _qcolor(FLAG_RGB) for i in range(n) if self.flags[i]
        }
        self._chan_axis.picture = None
        self._chan_axis.update()
        self._plot.setYRange(-0.6, top, padding=0)

    def _channel_label(self, i: int) -> str:
        return f"{self.flags[i]}  {self.ch_names[i]}" if self.flags[i] else self.ch_names[i]

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

    def set_references(self, events: Sequence[tuple[float, float]]) -> None:
        """Show reference (expert) seizure intervals in a 'Reference' strip."""
        self.references = [(float(a), float(b)) for a, b in events]
        if self._ref_item is not None:
            self._plot.removeItem(self._ref_item)
        self._ref_item = _RefItem(self.references, *self._ref_y)
        self._ref_item.setZValue(10)
        self._plot.addItem(self._ref_item)
        self._update_y_axis()
        self._drawn.pop("view", None)

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

    def _on_event_clicked(self, row: int, _col: int) -> None:
        events = self.decisions.events
        if 0 <= row < len(events):
            self.scroll_to(events[row].onset - 0.25 * self.window_s)
            self.tick()

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

    def _segments(self, x0: float, x1: float):
        sig = self.signal
        cover0, cover1 = (sig.t_first, sig.t_end) if not sig.empty else (0.0, 0.0)
        return self.decisions.segments(x0, x1, cover0, cover1)

    def _event_confidence(self, a: float, b: float) -> float | None:
        evs = self.decisions.events_between(a, b)
        return evs[0].confidence if evs else None

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

    def _refresh_traces(self, left: float, right: float) -> None:
        sig = self.signal
        n = self._block.shape[0]
        # Only the part of the view that has (or may still get) samples matters.
        i_left = max(sig.index_of(left), sig.first)
        i_right = max(min(sig.index_of(right), sig.end), i_left)
        start = self._block_start
        contained = start is not None and start <= i_left and i_right <= start + n
        new_data = self._drawn.get("data") != self._data_version
        if self.following:
            # The block ends at the newest sample; refetch whenever a frame arrived.
            if contained and not new_data:
                return
            want = sig.end - n
        else:
            # Refetch when the view leaves the block or new data lands inside it.
            if contained and not (new_data and start + n > self._drawn.get("end", 0)):
                return
            want = i_left - int(self.sfreq)
        sig.read_into(want, self._block)
        self._block_start = want
        self._drawn["data"] = self._data_version
        self._drawn["end"] = sig.end
        # (n, n_ch) -> (n_ch, n) divisions, in place: scale then offset each channel.
        np.multiply(self._block.T, np.float32(1.0 / self.uv_per_div), out=self._ybuf)
        self._ybuf += self._offsets[:, None]
        t_start = (sig.t_origin or 0.0) + want / self.sfreq
        np.add(self._xbase, t_start, out=self._xbuf)
        for i, c in enumerate(self.curves):
            c.setData(self._xbuf, self._ybuf[i])
        self._update_flags(right)

    def _update_flags(self, right: float) -> None:
        # Judge each channel on the last second shown (the newest second when live).
        sig = self.signal
        stop = min(sig.index_of(right), sig.end) - self._block_start
        start = max(0, stop - int(self.sfreq))
        if stop - start < int(self.sfreq) // 2:
            flags = [""] * self.n_channels
        else:
            flags = channel_flags(self._block[start:stop])
        if flags != self.flags:
            self.flags = flags
            self._update_y_axis()

    def _refresh_bands(self, left: float, right: float) -> None:
        key = (left, right, self.decisions.version, self.state in ("stale", "waiting"))
        if self._drawn.get("bands") == key:
            return
        self._drawn["bands"] = key
        self._bg.set_extent(left, right)
        self._strip.set_extent(left, right)
        if self._ref_item is not None:
            self._ref_item.set_extent(left, right)

    def _refresh_pens(self) -> None:
        grey = self.state in ("stale", "waiting")
        for i, c in enumerate(self.curves):
            want = "stale" if grey else ("flag" if self.flags[i] else "")
            if self._pen_state[i] != want:
                rgb = {"stale": STALE_TRACE_RGB, "flag": FLAG_RGB, "": TRACE_RGB}[want]
                c.setPen(pg.mkPen(rgb, width=1))
                self._pen_state[i] = want

    def _refresh_banners(self) -> None:
        text, style = _STATE_STYLE[self.state]
        key = (self.state, text)
        if self._drawn.get("state") != key:
            self._state_label.setText(text)
            self._state_label.setStyleSheet(
                f"{style};font-size:15pt;font-weight:bold;padding:4px 10px;border-radius:4px"
            )
            self._drawn["state"] = key
        # NO DATA / STALE banner.
        if self.state in ("stale", "waiting"):
            if self.state == "waiting":
                msg = "NO DATA — waiting for the signal"
                if self.source:
                    msg += f" from {self.source}"
            else:
                since = self._clock() - (self._last_frame_wall or 0.0)
                msg = (
                    f"NO DATA — STALE: no signal for {since:.0f} s "
                    f"(last sample at {format_time(self.signal.t_end)})"
                )
                hb = self._last_heartbeat_wall
                if hb is not None and self._clock() - hb < 3.0:
                    msg += " — pipeline alive, source silent"
            msg += " — decisions are NOT being updated"
            if self._stale_banner.text() != msg:
                self._stale_banner.setText(msg)
            self._stale_banner.show()
        else:
            self._stale_banner.hide()
        self._refresh_alert()

    def _refresh_alert(self) -> None:
        ev, ongoing = self._alert_event()
        key = None if ev is None else (ev.onset, ev.stop, len(ev.confidences), ongoing)
        if self._drawn.get("alert") == key:
            return
        self._drawn["alert"] = key
        if ev is None:
            self._alert_banner.hide()
            return
        chans = ev.channels(self.ch_names)
        chan_txt = ", ".join(chans[:8]) + (f" +{len(chans) - 8} more" if len(chans) > 8 else "")
        chan_txt = chan_txt or "not reported"
        onset = f"{format_time(ev.onset)} ({ev.onset:.1f} s)"
        if ongoing:
            head = "⚠ SEIZURE DETECTED"
            body = (
                f"onset {onset} · {ev.duration:.0f} s so far · confidence {ev.confidence:.2f}"
                f"<br>channels: {chan_txt}"
            )
            style = "background:#d7191c;color:white;border:3px solid #7a0000"
        else:
            head = "Seizure detected (in view)" if not self.live else "Last seizure (ended)"
            body = (
                f"onset {onset} · duration {ev.duration:.0f} s · confidence "
                f"{ev.confidence:.2f}<br>channels: {chan_txt}"
            )
            style = "background:#fde0dd;color:#7a0000;border:2px solid #d7191c"
        self._alert_banner.setText(f"<b>{head}</b> — {body}")
        self._alert_banner.setStyleSheet(f"{style};font-size:15pt;padding:6px")
        self._alert_banner.show()

    def _alert_event(self) -> tuple[SeizureEvent | None, bool]:
        events = self.decisions.events
        if not events:
            return None, False
        if self.live:
            return events[-1], self.decisions.ongoing
        left, right = self.view_range()
        shown = self.decisions.events_between(left, right)
        return (shown[0], False) if shown else (None, False)

    def _refresh_table(self) -> None:
        events = self.decisions.events
        key = (len(events), self.decisions.version if events else 0)
        if self._drawn.get("table") == key:
            return
        self._drawn["table"] = key
        self._table.setRowCount(len(events))
        ongoing = self.decisions.ongoing
        for row, ev in enumerate(events):
            dur = f"{ev.duration:.0f} s"
            if ongoing and row == len(events) - 1:
                dur += " (ongoing)"
            chans = ev.channels(self.ch_names)
            cells = [
                format_time(ev.onset),
                dur,
                f"{ev.confidence:.2f}",
                ", ".join(chans[:6]) + (f" +{len(chans) - 6}" if len(chans) > 6 else ""),
            ]
            for col, txt in enumerate(cells):
                item = self._table.item(row, col)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    self._table.setItem(row, col, item)
                if item.text() != txt:
                    item.setText(txt)
        self._table.resizeColumnsToContents()

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

    def _refresh_status(self, left: float, right: float) -> None:
        flagged = [f"{self.ch_names[i]} {f}" for i, f in enumerate(self.flags) if f]
        pos = f"{format_time(left)} – {format_time(right)}"
        parts = [f"{self.uv_per_div:g} µV/div", f"{self.window_s:g} s/screen"]
        if flagged:
            parts.append("check electrodes: " + ", ".join(flagged))
        key = (pos, tuple(parts), self.feed_status, self.signal.n_gap_samples)
        if self._drawn.get("status") == key:
            return
        self._drawn["status"] = key
        self._pos_label.setText(f"  {pos}   ·   " + "   ·   ".join(parts))
        status = []
        if self.signal.n_gap_samples:
            status.append(
                f"gaps in received signal: {self.signal.n_gap_samples / self.sfreq:.1f} s"
            )
        if self.feed_status:
            status.append(self.feed_status)
        if self.source:
            status.append(f"source: {self.source}")
        self._status.setText("   ·   ".join(status))

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

    def data_to_pixel(self, t: float, y: float) -> tuple[int, int]:
        """Window pixel (as in :meth:`grab`) of plot coordinates (signal seconds, divisions)."""
        vb = self._plot.getViewBox()
        scene_pt = vb.mapViewToScene(QtCore.QPointF(t, y))
        view_pt = self._plotw.mapFromScene(scene_pt)
        win_pt = self._plotw.viewport().mapTo(self, view_pt)
        return win_pt.x(), win_pt.y()

    @property
    def strip_center_y(self) -> float:
        """Plot y of the middle of the Detection strip."""
        return sum(self._strip_y) / 2

    def channel_y(self, i: int) -> float:
        """Plot y of channel ``i``'s baseline."""
        return float(self._offsets[i])

    @property
    def stale_banner_text(self) -> str:
        """Text of the NO DATA banner ('' when hidden)."""
        return self._stale_banner.text() if not self._stale_banner.isHidden() else ""

    @property
    def alert_banner_text(self) -> str:
        """Text of the seizure banner ('' when hidden)."""
        return self._alert_banner.text() if not self._alert_banner.isHidden() else ""

    @property
    def event_rows(self) -> list[list[str]]:
        """Cells of the event list."""
        t = self._table
        return [
            [t.item(r, c).text() if t.item(r, c) else "" for c in range(t.columnCount())]
            for r in range(t.rowCount())
        ]
