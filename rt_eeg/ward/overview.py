"""The ward overview window: one tile per bed, an alarm banner, one glance for the whole ward.

Transport-free: :class:`WardOverview` is fed ward statuses (:meth:`WardOverview.set_status`)
and alarm updates by :class:`~rt_eeg.ward.overview_feed.WardFeed` (or by tests directly);
an Acknowledge button calls ``on_ack(alarm_id)`` and a click on a tile calls
``on_open_bed(bed)``, both plain callbacks.

Layout, top to bottom:

- a **no-connection bar** ("NO CONNECTION TO SERVICE") when no status has arrived for
  :data:`~rt_eeg.ward.overview_model.STATUS_STALE_S` seconds; the tiles then turn grey and
  show the last state with a question mark;
- the **alarm banner** (red) listing every alarm nobody has acknowledged, active or ended:
  bed, time raised, onset (signal time), how long, confidence, channels, and an
  "Acknowledge" button; it disappears when all are acknowledged;
- the **grid** of bed tiles, sized to the number of beds (:func:`grid_shape`): name, state in
  words and colour (SEIZURE red, BCKG green, STALE amber, NO DATA / STARTING grey, PAUSED
  blue, ERROR purple with its detail), confidence and seizure duration, time since the last
  data, and the bed's trace of the last 10 s. A bed with an unacknowledged alarm gets a thick
  yellow frame;
- a status line (beds, seizures, status age, acknowledging user, the last problem).

The tile and banner widgets (:class:`~rt_eeg.ward.overview_widgets.BedTile`,
:class:`~rt_eeg.ward.overview_widgets.AlarmBanner`) live in :mod:`rt_eeg.ward.overview_widgets`
and are re-exported here; what a tile says and its colours come from the Qt-free
:mod:`rt_eeg.ward.overview_model`. This module owns the window (layout, state, the
no-connection bar, acknowledgements) and the entry point :func:`run_overview` of ``rt-eeg
overview`` (its arguments are defined in the Qt-free :mod:`rt_eeg.commands.overview`, so that
building the command line never loads Qt).
"""

from __future__ import annotations

import argparse
import getpass
import logging
import math
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets

from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import atomic_path
from rt_eeg.ward.overview_model import (
    STATUS_STALE_S,
    format_age,
    grid_shape,
    monitor_argv,
    tile_view,
)
from rt_eeg.ward.overview_widgets import (  # noqa: F401 - BANNER_STYLE is re-exported
    BANNER_STYLE,
    AlarmBanner,
    BedTile,
    _qc,
)

log = logging.getLogger(__name__)
Qt = QtCore.Qt

WINDOW_RGB = (30, 32, 36)
#: Seconds an acknowledged alarm's button waits for a status that confirms it.
ACK_CONFIRM_S = 10.0
NO_CONNECTION_STYLE = (
    "background:#ffd21f;color:black;font-size:26pt;font-weight:bold;padding:8px;"
    "border:3px solid #7a5c00"
)


class WardOverview(QtWidgets.QWidget):
    """The ward overview (see the module docstring).

    Parameters
    ----------
    on_open_bed : callable, optional
        ``on_open_bed(bed)`` with the BED record of a clicked tile.
    on_ack : callable, optional
        ``on_ack(alarm_id)`` when an Acknowledge button is pressed (set by the feed).
    user : str
        Shown in the status line (who acknowledges).
    clock, monotonic : callable
        Wall clock (alarm ages) and monotonic clock (status age), injectable for tests.
    """

    def __init__(
        self,
        *,
        on_open_bed: Callable[[dict], None] | None = None,
        on_ack: Callable[[str], None] | None = None,
        user: str = "",
        source: str = "",
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        refresh_ms: int = 250,
    ):
        super().__init__()
        self.setWindowTitle("rt-eeg ward overview")
        self.on_open_bed = on_open_bed
        self.on_ack = on_ack
        self.user = user
        self.source = source
        self._clock, self._mono = clock, monotonic
        self.header: dict | None = None
        self.traces = np.zeros((0, 0), np.float32)
        self._rows: list[np.ndarray] = []
        self._no_trace = np.zeros(0, np.float32)
        self.received_at: float | None = None
        self._alarms: dict[str, dict] = {}
        self._pending: dict[str, str] = {}  # alarm id -> button text while acking
        self._pending_since: dict[str, float] = {}  # alarm id -> when the ack was sent
        self.message = ""
        self._pollers: list[Callable[[], object]] = []
        self.tiles: dict[str, BedTile] = {}
        self._grid_shape = (0, 0)

        pal = self.palette()
        pal.setColor(QtGui.QPalette.ColorRole.Window, _qc(WINDOW_RGB))
        self.setPalette(pal)
        self.setAutoFillBackground(True)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 4)
        outer.setSpacing(6)
        self.no_connection = QtWidgets.QLabel()
        self.no_connection.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_connection.setStyleSheet(NO_CONNECTION_STYLE)
        self.no_connection.setWordWrap(True)
        outer.addWidget(self.no_connection)
        self.banner = AlarmBanner(self._ack)
        outer.addWidget(self.banner)
        self._grid_box = QtWidgets.QWidget()
        self._grid = QtWidgets.QGridLayout(self._grid_box)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(4)
        outer.addWidget(self._grid_box, 1)
        self.status_line = QtWidgets.QLabel()
        self.status_line.setStyleSheet("color:#d0d0d0;font-size:11pt")
        self.status_line.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        outer.addWidget(self.status_line)
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(int(refresh_ms))
        self._timer.timeout.connect(self.tick)
        self.tick(poll=False)

    # -- input -------------------------------------------------------------------------------

    def add_poller(self, poll: Callable[[], object]) -> None:
        """Call ``poll()`` at every tick (before redrawing)."""
        self._pollers.append(poll)

    def set_status(
        self, header: dict, traces: np.ndarray, *, received_at: float | None = None
    ) -> None:
        """Show a ward status (decoded by :func:`rt_eeg.ward.status.decode_status`)."""
        self.header, self.traces = header, traces
        self._rows = list(traces)  # one array object per bed and status (tiles cache by it)
        self.received_at = self._mono() if received_at is None else received_at
        self._alarms = {a["id"]: a for a in header["alarms"]}
        self._pending = {k: v for k, v in self._pending.items()
                         if self._alarms.get(k, {}).get("acknowledged_by") is None}  # fmt: skip
        names = [b["name"] for b in header["beds"]]
        if names != list(self.tiles):
            self._rebuild(names)
        self._redraw()

    def update_alarm(self, alarm: dict) -> None:
        """An alarm changed (an ``alarm`` message): show it before the next status."""
        self._alarms[alarm["id"]] = alarm
        if alarm["acknowledged_by"] is not None:
            self._pending.pop(alarm["id"], None)
        self._redraw()

    def ack_done(self, alarm_id: str, ok: bool, error: str | None) -> None:
        """The control socket's answer to an acknowledgement."""
        if ok:
            if alarm_id in self._pending:
                self._pending[alarm_id] = "Acknowledged"
        else:
            self._pending.pop(alarm_id, None)
            self.message = f"acknowledging {alarm_id} failed: {error}"
        self._redraw()

    def _ack(self, alarm_id: str) -> None:
        if self.on_ack is None:
            self.message = "cannot acknowledge: not connected to a control socket"
        else:
            self._pending[alarm_id] = "Sending..."
            self._pending_since[alarm_id] = self._mono()
            self.on_ack(alarm_id)
        self._redraw()

    def _open(self, name: str) -> None:
        bed = next((b for b in (self.header or {}).get("beds", []) if b["name"] == name), None)
        if bed is not None and self.on_open_bed is not None:
            self.on_open_bed(bed)

    # -- state -------------------------------------------------------------------------------

    @property
    def status_age_s(self) -> float | None:
        """Seconds since the last status arrived (None before the first)."""
        return None if self.received_at is None else self._mono() - self.received_at

    @property
    def connected(self) -> bool:
        """A status arrived less than :data:`STATUS_STALE_S` seconds ago."""
        age = self.status_age_s
        return age is not None and age <= STATUS_STALE_S

    def unacknowledged(self) -> list[dict]:
        """Alarms shown in the banner, oldest first."""
        alarms = [a for a in self._alarms.values() if a["acknowledged_by"] is None]
        return sorted(alarms, key=lambda a: a["wall"])

    # -- drawing -----------------------------------------------------------------------------

    def _rebuild(self, names: list[str]) -> None:
        for tile in self.tiles.values():
            self._grid.removeWidget(tile)
            tile.deleteLater()
        self.tiles = {n: BedTile(n, self._open, self._grid_box) for n in names}
        self._grid_shape = (0, 0)
        self._place()

    def _place(self) -> None:
        # The window's size, less the banner and status line: the grid's own size lags behind.
        shape = grid_shape(len(self.tiles), self.width(), max(100, self.height() - 110))
        if shape == self._grid_shape:
            return
        old_rows, old_cols = self._grid_shape
        self._grid_shape = rows, cols = shape
        for i, tile in enumerate(self.tiles.values()):
            self._grid.removeWidget(tile)
            self._grid.addWidget(tile, i // cols, i % cols)
        for r in range(max(rows, old_rows, self._grid.rowCount())):
            self._grid.setRowStretch(r, 1 if r < rows else 0)
        for c in range(max(cols, old_cols, self._grid.columnCount())):
            self._grid.setColumnStretch(c, 1 if c < cols else 0)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place()

    def _redraw(self) -> None:
        connected, age = self.connected, self.status_age_s
        for aid, t in list(self._pending_since.items()):
            # No status confirmed the acknowledgement in time: give the button back.
            if aid not in self._pending or self._mono() - t > ACK_CONFIRM_S:
                self._pending.pop(aid, None)
                del self._pending_since[aid]
        if connected:
            self.no_connection.hide()
        else:
            why = (
                f"waiting for the first status from {self.source}" if age is None
                else f"last status {format_age(age)} ago"
            )  # fmt: skip
            self.no_connection.setText(f"NO CONNECTION TO SERVICE  ({why})")
            self.no_connection.show()
        unacked = self.unacknowledged()
        alarm_beds = {a["bed"] for a in unacked}
        beds = (self.header or {}).get("beds", [])
        for i, bed in enumerate(beds):
            view = tile_view(
                bed, age or 0.0, connected=connected, unacked=bed["name"] in alarm_beds
            )
            trace = self._rows[i] if i < len(self._rows) else self._no_trace
            self.tiles[bed["name"]].set_view(view, trace)
        self.banner.set_alarms(unacked, self._clock(), self._pending, connected)
        n_seiz = sum(b["state"] == "SEIZ" for b in beds)
        parts = [f"{len(beds)} beds", f"{n_seiz} in seizure"]
        if self.header is not None:
            parts.append(f"status #{self.header['seq']} {format_age(age)} ago")
        if self.user:
            parts.append(f"acknowledging as {self.user}")
        if self.message:
            parts.append(self.message)
        self.status_line.setText("  ·  ".join(parts))

    def tick(self, *, poll: bool = True) -> None:
        """Take new messages (pollers), then redraw the time-dependent parts."""
        if poll:
            for fn in self._pollers:
                fn()
        self._redraw()

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def tile_rect(self, name: str) -> QtCore.QRect:
        """Where bed ``name``'s tile lies in the window (pixels, as in :meth:`grab_image`)."""
        QtWidgets.QApplication.processEvents()
        tile = self.tiles[name]
        return QtCore.QRect(tile.mapTo(self, QtCore.QPoint(0, 0)), tile.size())

    def grab_image(self) -> QtGui.QImage:
        """Render the whole window now and return it as an image."""
        self.tick(poll=False)
        QtWidgets.QApplication.processEvents()  # pending layout (a banner shown or hidden)
        return self.grab().toImage()

    def save_png(self, path: str | Path) -> Path:
        """Render the window to a PNG, written atomically."""
        self.tick(poll=False)
        QtWidgets.QApplication.processEvents()
        pix = self.grab()
        with atomic_path(path, suffix=".png") as tmp:
            if not pix.save(str(tmp), "PNG"):
                raise OSError(f"could not write PNG {path}")
        return Path(path)


# -- entry point -------------------------------------------------------------------------------


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry, no LOGNAME
        return "unknown"


def open_bed_monitor(bed: dict) -> subprocess.Popen | None:
    """Open the one-bed monitor window on ``bed``'s display endpoints (its own process)."""
    argv = monitor_argv(bed)
    if argv is None:
        log.warning("bed %s: the status gives no monitor endpoints", bed["name"])
        return None
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True)


def bed_monitor_opener(status_endpoint: str) -> Callable[[dict], object]:
    """What a tile click does: :func:`open_bed_monitor` on the service's machine; from a
    station on another machine (a non-loopback status endpoint) a logged refusal, since a
    bed's display endpoints are ipc sockets in the service's private folder."""
    from rt_eeg.security import is_loopback

    if is_loopback(status_endpoint):
        return open_bed_monitor

    def refuse(bed: dict) -> None:
        log.warning("bed %s: its live monitor can be opened only on the ward service's machine "
                    "(the overview is connected to %s)", bed.get("name"), status_endpoint)  # fmt: skip

    return refuse


def _parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise RtEegError(f"--size must be WIDTHxHEIGHT, got {text!r}") from None
    if not (320 <= w <= 10000 and 240 <= h <= 10000):
        raise RtEegError(f"--size {text} is outside 320x240..10000x10000")
    return w, h


def run_overview(args: argparse.Namespace) -> int:
    """Open the ward overview on a running service (``rt-eeg overview``).

    Returns
    -------
    int
        0; 1 when ``--screenshot`` was asked but no status arrived within ``--wait``.
    """
    from rt_eeg.commands.ward import client_keys, service_endpoints
    from rt_eeg.monitor.app import prepare_qt
    from rt_eeg.security import parse_endpoint

    eps = None
    if getattr(args, "config", None):
        eps = service_endpoints(args.config)
        args.status = args.status or eps["status"]
        args.control = args.control or eps["control"]
    if not args.status:
        raise RtEegError("give --config WARD_TOML or --status ENDPOINT")
    for flag in ("status", "control"):
        ep = getattr(args, flag)
        if ep is not None:
            try:
                parse_endpoint(ep)
            except ValueError as err:
                raise RtEegError(f"--{flag}: {err}") from None
    size = _parse_size(args.size)
    for flag in ("after", "wait"):
        v = getattr(args, flag)
        if not (math.isfinite(v) and v >= 0):
            raise RtEegError(f"--{flag} must be a non-negative number of seconds, got {v}")
    user = (args.user or _login()).strip()
    if not 0 < len(user) <= 64:
        raise RtEegError(f"--user must be 1..64 characters, got {args.user!r}")
    curve = client_keys(args, eps)  # key files checked here, before the window opens
    prepare_qt(headless=False, screenshot=args.screenshot)
    import pyqtgraph as pg

    from rt_eeg.ward.overview_feed import WardFeed

    app = pg.mkQApp("rt-eeg ward")
    win = WardOverview(user=user, source=args.status, on_open_bed=bed_monitor_opener(args.status))
    win.resize(*size)
    feed = WardFeed(args.status, args.control, win, user=user, curve=curve)
    t_start = time.monotonic()
    first = {"at": None, "rc": 0}

    def check_screenshot() -> None:
        now = time.monotonic()
        if feed.n_status and first["at"] is None:
            first["at"] = now
        ready = first["at"] is not None and now - first["at"] >= args.after
        if ready or now - t_start >= args.wait:
            if not ready:
                print(f"rt-eeg ward overview: no status from {args.status} within {args.wait:g} s")
                first["rc"] = 1
            win.save_png(args.screenshot)
            print(f"wrote {args.screenshot}")
            app.quit()

    if args.screenshot:
        win.add_poller(check_screenshot)
    previous = {s: signal.signal(s, lambda *_: app.quit()) for s in (signal.SIGTERM, signal.SIGINT)}
    win.show()
    win.start()
    try:
        app.exec()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        win.stop()
        feed.close()
        win.close()
    return first["rc"]
