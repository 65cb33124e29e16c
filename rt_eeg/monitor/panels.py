"""Banners, event list and status line of the monitor window.

:class:`_Panels` is a mixin of :class:`~rt_eeg.monitor.window.MonitorWindow`: the state
label, the NO DATA / STALE banner, the seizure banner, the seizure event list (a click
scrolls to the event) and the status line, each redrawn only when what it shows changed.
It uses the window's state: ``state``, ``live``, ``decisions``, ``signal``, ``ch_names``,
``flags``, ``source``, ``feed_status``, ``_clock``, ``_last_frame_wall``,
``_last_heartbeat_wall`` and ``_drawn``.
"""

from __future__ import annotations

from pyqtgraph.Qt import QtCore, QtWidgets

from rt_eeg.monitor.model import SeizureEvent, format_time

Qt = QtCore.Qt

_STATE_STYLE = {
    "live": ("LIVE", "background:#1a9641;color:white"),
    "paused": ("PAUSED", "background:#2b5d9b;color:white"),
    "stale": ("NO DATA", "background:#ffd21f;color:black"),
    "waiting": ("NO DATA", "background:#ffd21f;color:black"),
    "eos": ("END OF STREAM", "background:#444;color:white"),
    "review": ("REVIEW", "background:#4a5568;color:white"),
}


#: The state badge's look beside its colours (its font is the one its width is measured in).
_BADGE_STYLE = "font-size:15pt;font-weight:bold;padding:4px 10px;border-radius:4px"
_BADGE_PAD_PX = 2 * 10 + 8  # the horizontal padding above, and a margin


def badge_width(label: QtWidgets.QLabel) -> int:
    """Width (px) that shows every state's text in the badge's font.

    Sized once for the widest text: a shown window re-lays out only on an event-loop turn, so a
    badge that grew with its text was grabbed cut ("ID OF STREA") when the stream ended, and the
    top bar would jump at each change of state.
    """
    label.setStyleSheet(_BADGE_STYLE)
    label.ensurePolished()
    fm = label.fontMetrics()
    return max(fm.horizontalAdvance(text) for text, _ in _STATE_STYLE.values()) + _BADGE_PAD_PX


class _Panels:
    """Mixin: the banners and panels of :class:`~rt_eeg.monitor.window.MonitorWindow`."""

    def _build_banners(self, outer: QtWidgets.QVBoxLayout) -> None:
        """Create the NO DATA and seizure banners below the top bar (hidden)."""
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

    def _build_event_panel(self) -> QtWidgets.QWidget:
        """Create the side panel: the seizure event list and the key help."""
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
        return panel

    def _refresh_banners(self) -> None:
        text, style = _STATE_STYLE[self.state]
        key = (self.state, text)
        if self._drawn.get("state") != key:
            self._state_label.setText(text)
            self._state_label.setStyleSheet(f"{style};{_BADGE_STYLE}")
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

    def _on_event_clicked(self, row: int, _col: int) -> None:
        events = self.decisions.events
        if 0 <= row < len(events):
            self.scroll_to(events[row].onset - 0.25 * self.window_s)
            self.tick()

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
