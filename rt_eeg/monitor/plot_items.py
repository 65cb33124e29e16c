"""Plot items of the monitor: colours, axes, the decision bands, the reference strip.

Drawn by pyqtgraph inside :class:`~rt_eeg.monitor.window.MonitorWindow`'s plot; the bands
ask the window for the decision segments of the visible range. Also the paint counter the
benchmark reads.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

import pyqtgraph as pg
from pyqtgraph.Qt import QtCore, QtGui

from rt_eeg.monitor.model import BCKG, BCKG_RGB, NA, NA_RGB, SEIZ, SEIZ_RGB, format_time

if TYPE_CHECKING:
    from rt_eeg.monitor.window import MonitorWindow

Qt = QtCore.Qt

# Colours. Red and green are paired with text labels (SEIZ / BCKG / not analysed) in the
# strip, so the overlay does not rely on colour alone.
REF_RGB = (110, 20, 90)
TRACE_RGB = (15, 15, 25)
STALE_TRACE_RGB = (185, 185, 185)
FLAG_RGB = (200, 80, 0)
GRID_RGB = (200, 200, 200)
GRID5_RGB = (150, 150, 150)
#: Opacity of the colours behind the traces (the strip is opaque).
BACKGROUND_ALPHA = {SEIZ: 0.30, BCKG: 0.22, NA: 0.28}
STRIP_TEXT = {SEIZ: "SEIZ", BCKG: "BCKG", NA: "not analysed"}


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
