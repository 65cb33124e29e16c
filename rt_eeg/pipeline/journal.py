"""The postprocessor's decision journal (``.run/decisions.jsonl``): one JSON line per decision,
flushed as it is made, so a restarted postprocessor and the supervisor (when it must write
the outputs itself) lose nothing already decided."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rt_eeg.postprocess import Decision


def decision_record(d: Decision, wall: float) -> dict:
    """The journal line of one decision; ``wall`` is when it was made (epoch seconds)."""
    return {"start": d.start, "stop": d.stop, "label": d.label, "confidence": d.confidence,
            "channels": list(d.channels), "score": d.score, "wall": wall}  # fmt: skip


def read_journal(
    path: str | os.PathLike, *, repair: bool = False
) -> tuple[list[Decision], float | None]:
    """Decisions journalled so far and the wall time of the first one.

    A torn last line (a crash mid-write) ends the journal; with ``repair`` the file is
    rewritten without it (atomically) so appending carries on from a clean line.
    """
    from rt_eeg.io.atomic import write_text_atomic

    path = Path(path)
    if not path.exists():
        return [], None
    decisions, good, first_wall = [], [], None
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
            wall = rec.pop("wall", None)
            decisions.append(Decision(**{**rec, "channels": tuple(rec["channels"])}))
        except (ValueError, TypeError, KeyError):
            break
        if first_wall is None:
            first_wall = wall
        good.append(line)
    if repair:
        write_text_atomic(path, "".join(f"{ln}\n" for ln in good))
    return decisions, first_wall
