"""Per-recording outputs, identical for the live pipeline and batch evaluation.

From the decisions of one recording: the HYP (every epoch's label and confidence), the
seizure events as ``.csv_bi`` and ``.tse`` (ending exactly at the recording's end, scorable
by ``rt-eeg score`` and the NEDC tool) and a BIDS/SzCORE ``*_events.tsv``.
"""

from __future__ import annotations

import os
from pathlib import Path

from rt_eeg.io.annotations import write_csv_bi, write_events_tsv, write_hyp, write_tse
from rt_eeg.postprocess import Decision, complete_decisions, decisions_to_events


def output_paths(out_dir: str | os.PathLike, name: str) -> dict[str, Path]:
    """Where the outputs of recording ``name`` go under ``out_dir``."""
    out_dir = Path(out_dir)
    return {
        "hyp": out_dir / f"{name}.hyp",
        "csv_bi": out_dir / f"{name}.csv_bi",
        "tse": out_dir / f"{name}.tse",
        "events_tsv": out_dir / f"{name}_events.tsv",
    }


def write_outputs(
    out_dir: str | os.PathLike,
    name: str,
    decisions: list[Decision],
    duration: float,
    *,
    montage_file: str | None = None,
    date_time=None,
) -> dict[str, Path]:
    """Write HYP, csv_bi, tse and events.tsv atomically; the HYP is written last.

    Writing the HYP last makes it the completion marker batch evaluation resumes on.

    Returns
    -------
    dict
        Paths written, by kind.
    """
    paths = output_paths(out_dir, name)
    epochs = complete_decisions(decisions, duration)
    events = decisions_to_events(epochs)
    write_csv_bi(paths["csv_bi"], events, duration, bname=name, montage_file=montage_file)
    write_tse(paths["tse"], events, duration)
    write_events_tsv(paths["events_tsv"], events, duration, date_time=date_time)
    write_hyp(paths["hyp"], [d.hyp() for d in epochs], duration)
    return paths
