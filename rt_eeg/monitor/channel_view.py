"""The channel view of the monitor window: traces, y axis, decision bands, reference strip.

:class:`_ChannelView` is a mixin of :class:`~rt_eeg.monitor.window.MonitorWindow`: it builds
the plot, (re)builds the traces for a channel set, and on every redraw refetches the visible
signal block, scales it into divisions, flags FLAT/RAIL channels and moves the bands. It
uses the window's state: ``signal``, ``decisions``, ``references``, ``state``, ``following``,
``window_s``, ``uv_per_div``, ``history_s``, ``flags``, ``_drawn`` and ``_data_version``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets

from rt_eeg.monitor.model import SignalArray, SignalHistory, channel_flags
from rt_eeg.monitor.plot_items import (
    FLAG_RGB,
    STALE_TRACE_RGB,
    TRACE_RGB,
    _BandItem,
    _ChannelAxis,
    _qcolor,
    _RefItem,
    _TimeAxis,
)

Qt = QtCore.Qt


class _ChannelView:
    """Mixin: the plot of :class:`~rt_eeg.monitor.window.MonitorWindow` (see the module)."""

    def _build_plot(self, lv: QtWidgets.QVBoxLayout) -> None:
        """Create the plot (channel and time axes, no mouse, peak downsampling) in ``lv``."""
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

    def _segments(self, x0: float, x1: float):
        sig = self.signal
        cover0, cover1 = (sig.t_first, sig.t_end) if not sig.empty else (0.0, 0.0)
        return self.decisions.segments(x0, x1, cover0, cover1)

    def _event_confidence(self, a: float, b: float) -> float | None:
        evs = self.decisions.events_between(a, b)
        return evs[0].confidence if evs else None

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
