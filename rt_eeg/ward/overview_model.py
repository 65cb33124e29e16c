"""What the ward overview shows, without Qt: tile texts and colours, the grid, alarm rows.

:func:`tile_view` turns one BED record of a ward status (and how old that status is) into the
texts and colours of its tile; :func:`grid_shape` sizes the grid to the number of beds and
the screen; :func:`alarm_row` is one line of the alarm banner. Colours follow the monitor's
(:mod:`rt_eeg.monitor.window`): red SEIZ, green BCKG, amber for data that stopped coming,
and every colour is paired with its state in words.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass

from rt_eeg.monitor.model import BCKG_RGB, SEIZ_RGB, format_time

#: Seconds without a ward status after which the overview says the service is gone.
STATUS_STALE_S = 3.0

STALE_RGB = (255, 210, 31)
NO_DATA_RGB = (96, 102, 112)
PAUSED_RGB = (43, 93, 155)
ERROR_RGB = (120, 40, 140)
DISCONNECTED_RGB = (70, 70, 70)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)

#: State -> (background, text colour, words on the tile).
STATE_STYLE = {
    "SEIZ": (SEIZ_RGB, WHITE, "SEIZURE"),
    "BCKG": (BCKG_RGB, WHITE, "BCKG"),
    "STALE": (STALE_RGB, BLACK, "STALE"),
    "NO DATA": (NO_DATA_RGB, WHITE, "NO DATA"),
    "STARTING": (NO_DATA_RGB, WHITE, "STARTING"),
    "PAUSED": (PAUSED_RGB, WHITE, "PAUSED"),
    "ERROR": (ERROR_RGB, WHITE, "ERROR"),
}


@dataclass(frozen=True)
class TileView:
    """Everything one bed's tile draws.

    Attributes
    ----------
    name : str
        Bed name (tile title).
    state : str
        Big state text (``SEIZURE``, ``BCKG``, ``NO DATA`` ...).
    lines : tuple of str
        Smaller lines under it: confidence and duration in seizure, the detail, data age.
    bg, fg : tuple of int
        Background and text colours (RGB).
    alarm : bool
        The bed has an alarm nobody has acknowledged (the tile gets a thick border).
    """

    name: str
    state: str
    lines: tuple[str, ...]
    bg: tuple[int, int, int]
    fg: tuple[int, int, int]
    alarm: bool = False


def format_age(s: float | None) -> str:
    """Seconds as ``0.4 s``, ``12 s``, ``3 min 05 s``, ``2 h 04 min`` (``--`` when unknown)."""
    if s is None or not math.isfinite(s):
        return "--"
    s = max(0.0, s)
    if s < 10:
        return f"{s:.1f} s"
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        m, sec = divmod(int(s), 60)
        return f"{m} min {sec:02d} s"
    h, rem = divmod(int(s), 3600)
    return f"{h} h {rem // 60:02d} min"


def tile_view(
    bed: dict, status_age_s: float = 0.0, *, connected: bool = True, unacked: bool = False
) -> TileView:
    """The tile of one bed.

    Parameters
    ----------
    bed : dict
        A BED record (ward contract).
    status_age_s : float
        Seconds since this status arrived: added to the bed's data age and seizure duration,
        so both keep counting between statuses.
    connected : bool
        False when the service has gone quiet: the last state is shown greyed, with its age.
    unacked : bool
        The bed has an unacknowledged alarm.
    """
    state = bed["state"]
    bg, fg, words = STATE_STYLE.get(state, (NO_DATA_RGB, WHITE, state))
    age = status_age_s if connected else 0.0
    lines: list[str] = []
    if state == "SEIZ":
        conf = bed.get("confidence")
        dur = bed.get("seiz_duration_s")
        parts = [] if conf is None else [f"conf {conf:.2f}"]
        if dur is not None:
            parts.append(format_age(dur + age))
        lines.append(" · ".join(parts))
    elif state == "BCKG" and bed.get("confidence") is not None:
        lines.append(f"conf {bed['confidence']:.2f}")
    if bed.get("detail"):
        lines.append(str(bed["detail"]))
    since = bed.get("since_data_s")
    lines.append(
        "no data received" if since is None else f"last data {format_age(since + age)} ago"
    )
    if not connected:
        words, bg, fg = f"{words}?", DISCONNECTED_RGB, (200, 200, 200)
    return TileView(bed["name"], words, tuple(lines), bg, fg, unacked and connected)


def grid_shape(
    n: int, width: float = 1920, height: float = 1000, aspect: float = 1.45
) -> tuple[int, int]:
    """``(rows, cols)`` for ``n`` tiles in a ``width x height`` area, tiles near ``aspect``.

    Chooses the column count whose tiles come closest to the wanted width/height ratio, with
    a penalty for empty cells (32 beds on 1920x1000: 4 x 8 tiles of 240 x 250 px).
    """
    if n <= 0:
        return 1, 1
    best = None
    for cols in range(1, n + 1):
        rows = math.ceil(n / cols)
        ratio = (width / cols) / (height / rows)
        cost = abs(math.log(ratio / aspect)) + 1.2 * (rows * cols - n) / n
        if best is None or cost < best[0]:
            best = (cost, rows, cols)
    return best[1], best[2]


def alarm_row(alarm: dict, now_wall: float) -> str:
    """One line of the alarm banner: bed, when raised, onset, confidence, channels."""
    raised = time.strftime("%H:%M:%S", time.localtime(alarm["wall"]))
    ago = format_age(now_wall - alarm["wall"])
    how = f"raised {raised} ({ago} ago)" + ("" if alarm["state"] == "active" else ", seizure ended")
    chans = ", ".join(alarm["channels"][:6]) + (" ..." if len(alarm["channels"]) > 6 else "")
    return (
        f"{alarm['bed']}  ·  {how}  ·  onset {format_time(alarm['onset'], decimals=0)} signal time"
        f"  ·  conf {alarm['confidence']:.2f}  ·  {chans or 'channels n/a'}"
    )


def monitor_argv(bed: dict, python: str = sys.executable) -> list[str] | None:
    """The command that opens the one-bed monitor on ``bed``'s display endpoints (None when
    the status gives none)."""
    eps = bed.get("monitor")
    if not eps:
        return None
    return [python, "-m", "rt_eeg.cli", "monitor", "--connect", eps["signal"], "--connect",
            eps["decision"]]  # fmt: skip
