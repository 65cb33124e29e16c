"""The ward overview's widgets: the bed tile and the alarm banner.

- :class:`BedTile`: one bed, painted by hand (cheap for 32+ tiles at once): name, state in
  words and colour, confidence and seizure duration, time since the last data and the bed's
  trace, with a thick yellow frame while the bed has an unacknowledged alarm; a click calls
  ``on_click(name)``. What it shows is a :class:`~rt_eeg.ward.overview_model.TileView`
  (Qt-free, :func:`~rt_eeg.ward.overview_model.tile_view`).
- :class:`AlarmBanner`: the red banner listing every alarm nobody has acknowledged, each with
  an Acknowledge button that calls ``on_ack(alarm_id)``.

The window that lays them out and feeds them is :class:`rt_eeg.ward.overview.WardOverview`,
which re-exports these names.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets

from rt_eeg.ward.overview_model import TileView, alarm_row

Qt = QtCore.Qt

BANNER_STYLE = "background:#d7191c;color:white;border:3px solid #7a0000;border-radius:4px"


def _qc(rgb, alpha: int = 255) -> QtGui.QColor:
    return QtGui.QColor(int(rgb[0]), int(rgb[1]), int(rgb[2]), alpha)


class BedTile(QtWidgets.QWidget):
    """One bed: painted by hand (cheap for 32+ tiles at once); a click opens its monitor."""

    def __init__(self, name: str, on_click: Callable[[str], None], parent=None):
        super().__init__(parent)
        self.name = name
        self.view = TileView(name, "NO DATA", (), (96, 102, 112), (255, 255, 255))
        self.trace = np.zeros(0, np.float32)
        self._poly: tuple | None = None  # (trace id and box, polyline, flat): drawn once per status
        self._on_click = on_click
        self.setCursor(QtGui.QCursor(Qt.CursorShape.PointingHandCursor))
        self.setMinimumSize(120, 90)
        self.setToolTip(f"{name}: click to open its monitor")

    def set_view(self, view: TileView, trace: np.ndarray) -> None:
        if view == self.view and trace is self.trace:
            return  # nothing changed: no repaint (32 tiles, 4 ticks a second)
        self.view, self.trace = view, trace
        self.update()

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        if event.button() == Qt.MouseButton.LeftButton:
            self._on_click(self.name)

    def paintEvent(self, event) -> None:  # noqa: N802
        v, w, h = self.view, self.width(), self.height()
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        rect = QtCore.QRectF(3, 3, w - 6, h - 6)
        p.setBrush(_qc(v.bg))
        if v.alarm:
            p.setPen(QtGui.QPen(_qc((255, 210, 31)), 6))
        else:
            p.setPen(Qt.PenStyle.NoPen)
        p.drawRoundedRect(rect, 8, 8)
        pad = max(6.0, w * 0.04)
        inner = rect.adjusted(pad, pad * 0.6, -pad, -pad * 0.6)
        y = inner.top()
        fg = _qc(v.fg)
        for text, frac, bold in [(v.name, 0.095, True), (v.state, 0.16, True)]:
            y = self._text(p, text, inner, y, max(11.0, h * frac), bold, fg)
        for i, line in enumerate(v.lines):  # the first line (confidence, duration) is larger
            y = self._text(
                p, line, inner, y, max(10.0, h * (0.088 if i == 0 else 0.07)), i == 0, fg
            )
        trace_box = QtCore.QRectF(inner.left(), max(y + 2, inner.top() + inner.height() * 0.62),
                                  inner.width(), 0)  # fmt: skip
        trace_box.setBottom(inner.bottom())
        self._trace(p, trace_box, fg)
        p.end()

    @staticmethod
    def _text(p, text: str, box: QtCore.QRectF, y: float, px: float, bold: bool, colour) -> float:
        """Draw ``text`` from ``y`` down, wrapped onto two lines at most; returns the next y."""
        font = QtGui.QFont()
        font.setPixelSize(int(px))
        font.setBold(bold)
        p.setFont(font)
        p.setPen(colour)
        fm = QtGui.QFontMetrics(font)
        width = int(box.width())
        if fm.horizontalAdvance(text) <= width:
            lines = [text]
        else:  # break at the last space that fits, elide what the second line cannot hold
            cut = len(text)
            while cut > 0 and fm.horizontalAdvance(text[:cut]) > width:
                cut = text.rfind(" ", 0, cut)
            cut = cut if cut > 0 else 1
            rest = text[cut:].strip()
            lines = [text[:cut], fm.elidedText(rest, Qt.TextElideMode.ElideRight, width)]
        for line in lines:
            shown = fm.elidedText(line, Qt.TextElideMode.ElideRight, width)
            p.drawText(QtCore.QPointF(box.left(), y + fm.ascent()), shown)
            y += fm.height()
        return y

    def _trace(self, p, box: QtCore.QRectF, colour) -> None:
        x = self.trace
        if x.size < 2 or box.height() < 8:
            return
        key = (id(x), box.left(), box.top(), box.width(), box.height())
        if self._poly is None or self._poly[0] != key:  # a new status or a new size
            centred = x - np.median(x)
            scale = float(np.percentile(np.abs(centred), 98))
            if scale <= 0:
                centred, scale = np.zeros_like(centred), 1.0
            ys = box.center().y() - np.clip(centred / scale, -1.2, 1.2) * box.height() * 0.42
            xs = box.left() + np.linspace(0, box.width(), x.size)
            pts = [QtCore.QPointF(float(a), float(b)) for a, b in zip(xs, ys, strict=True)]
            self._poly = (key, QtGui.QPolygonF(pts), scale == 1.0 and not centred.any())
        _, poly, flat = self._poly
        # No data: a flat, faint line where the trace would be.
        p.setPen(QtGui.QPen(_qc(self.view.fg, 90) if flat else colour, 1.4))
        p.drawPolyline(poly)


class AlarmBanner(QtWidgets.QFrame):
    """Red banner listing unacknowledged alarms, each with an Acknowledge button."""

    def __init__(self, on_ack: Callable[[str], None], parent=None):
        super().__init__(parent)
        self.setStyleSheet(BANNER_STYLE)
        self._on_ack = on_ack
        self._layout = QtWidgets.QVBoxLayout(self)
        self._layout.setContentsMargins(10, 6, 10, 6)
        self._layout.setSpacing(4)
        self.title = QtWidgets.QLabel()
        self.title.setStyleSheet("border:none;font-size:20pt;font-weight:bold")
        self._layout.addWidget(self.title)
        self.rows: dict[str, tuple[QtWidgets.QLabel, QtWidgets.QPushButton]] = {}
        self.hide()

    @property
    def buttons(self) -> dict[str, QtWidgets.QPushButton]:
        """Acknowledge button per alarm id shown."""
        return {k: b for k, (_, b) in self.rows.items()}

    def set_alarms(self, alarms: list[dict], now_wall: float, pending: dict[str, str],
                   connected: bool) -> None:  # fmt: skip
        """Show ``alarms`` (unacknowledged, oldest first); ``pending``: id -> button text
        while an acknowledgement is on its way."""
        ids = [a["id"] for a in alarms]
        if list(self.rows) != ids:
            for label, button in self.rows.values():
                label.deleteLater()
                button.deleteLater()
            self.rows = {}
            for aid in ids:
                row = QtWidgets.QHBoxLayout()
                label = QtWidgets.QLabel()
                label.setStyleSheet("border:none;font-size:14pt")
                label.setWordWrap(True)  # a long row wraps instead of widening the window
                button = QtWidgets.QPushButton("Acknowledge")
                button.setStyleSheet(
                    "QPushButton{background:white;color:#7a0000;font-size:14pt;font-weight:bold;"
                    "border:2px solid #7a0000;border-radius:4px;padding:4px 18px}"
                    "QPushButton:disabled{background:#f3c9c9;color:#7a4a4a}"
                )
                button.clicked.connect(lambda _=False, a=aid: self._on_ack(a))
                row.addWidget(label, 1)
                row.addWidget(button, 0)
                self._layout.addLayout(row)
                self.rows[aid] = (label, button)
        for a in alarms:
            label, button = self.rows[a["id"]]
            label.setText(alarm_row(a, now_wall))
            button.setText(pending.get(a["id"], "Acknowledge"))
            button.setEnabled(connected and a["id"] not in pending)
        n_active = sum(a["state"] == "active" for a in alarms)
        what = "SEIZURE ALARM" if n_active else "SEIZURE ALARM (ended)"
        self.title.setText(f"{what}: {len(alarms)} to acknowledge")
        self.setVisible(bool(alarms))
