"""Per-recording outputs, identical for the live pipeline and batch evaluation.

From the decisions of one recording: the HYP (every epoch's label and confidence), the
seizure events as ``.csv_bi`` and ``.tse`` (ending exactly at the recording's end, scorable
by ``rt-eeg score`` and the NEDC tool) and a BIDS/SzCORE ``*_events.tsv``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

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


class LiveOutputs:
    """The outputs of a live run, written as decisions are made (see :mod:`rt_eeg.io.rotating`).

    Per part (``rotate_s`` of signal time): ``<name>.pNNNNN.hyp`` (HYP records: start, stop,
    label, confidence), ``<name>.pNNNNN.events.tsv`` (a seizure event once it has ended) and
    ``<name>.pNNNNN.decisions.jsonl`` (every decision at full precision: the journal a
    restarted postprocessor resumes from). ``<name>.index.json`` lists the parts and their
    time ranges. At the end of the run (Ctrl-C, ``--duration``) the usual single-file outputs
    are assembled from the parts, so a finite live run ends with exactly the files
    ``rt-eeg evaluate`` writes.

    Parameters
    ----------
    out_dir : path-like
    name : str
    rotate_s : float
        Signal seconds per part (3600 by default in ``rt-eeg live``).
    fsync_s : float
        At most this many seconds of records can be lost to a power cut.
    """

    def __init__(self, out_dir, name: str, rotate_s: float, *, fsync_s: float = 2.0):
        from rt_eeg.io.annotations import _TSV_COLUMNS, HYP_HEADER, HYP_VERSION
        from rt_eeg.io.rotating import RotatingText

        self.out_dir, self.name, self.rotate_s = Path(out_dir), name, float(rotate_s)
        hyp_head = [f"# version = {HYP_VERSION}", "# epoch = 1.0 secs", HYP_HEADER]
        self.kinds = {
            "hyp": RotatingText(out_dir, name, "hyp", hyp_head, rotate_s, fsync_s),
            "events": RotatingText(out_dir, name, "events.tsv", ["\t".join(_TSV_COLUMNS)], rotate_s, fsync_s),
            "decisions": RotatingText(out_dir, name, "decisions.jsonl", [], rotate_s, fsync_s),
        }  # fmt: skip
        self.index_path = self.out_dir / f"{name}.index.json"
        self._event: list[Decision] = []  # the seizure run in progress
        self._part: int | None = None
        self.last_stop = self._resume()

    def _resume(self) -> float | None:
        """After a restart: where the journal on disk ends (its torn tail repaired)."""
        journal = self.kinds["decisions"]
        ks = journal.parts()
        if not ks:
            return None
        from rt_eeg.io.rotating import read_part, repair_torn_tail

        for k in reversed(ks):
            repair_torn_tail(journal.path(k))
            recs = read_part(journal.path(k))
            if recs:
                self._part = k
                return float(json.loads(recs[-1])["stop"])
        return None

    @property
    def error(self) -> str | None:
        """One line when the disk refuses records (None when all is written)."""
        return next((w.error for w in self.kinds.values() if w.error), None)

    def add(self, d: Decision) -> None:
        """Write one decision (and the seizure event it closes, if any)."""
        from rt_eeg.io.annotations import hyp_line

        k = int(d.start // self.rotate_s)
        rec = {"start": d.start, "stop": d.stop, "label": d.label, "confidence": d.confidence,
               "channels": list(d.channels), "score": None if np.isnan(d.score) else d.score}  # fmt: skip
        self.kinds["decisions"].write(d.start, json.dumps(rec))
        self.kinds["hyp"].write(d.start, hyp_line(d.hyp()))
        if d.label == "seiz" and (not self._event or abs(d.start - self._event[-1].stop) < 1e-6):
            self._event.append(d)
        else:
            self._close_event()
            self._event = [d] if d.label == "seiz" else []
        self.last_stop = d.stop
        if k != self._part:
            self._part = k
            self.write_index()

    def _close_event(self) -> None:
        if not self._event:
            return
        from rt_eeg.io.annotations import _sz_event_type

        run = self._event
        conf = float(np.clip(np.mean([d.confidence for d in run]), 0, 1))
        start, stop = run[0].start, run[-1].stop
        line = "\t".join([f"{start:.2f}", f"{stop - start:.2f}", _sz_event_type("seiz"),
                          f"{conf:.2f}", "n/a", "n/a", "n/a"])  # fmt: skip
        self.kinds["events"].write(stop - 1e-9, line)
        self._event = []

    def write_index(self, *, closed: bool = False) -> None:
        from rt_eeg.io.rotating import write_index

        ks = sorted(set().union(*(set(w.parts()) for w in self.kinds.values())))
        parts = [{"part": k, "start": k * self.rotate_s, "stop": (k + 1) * self.rotate_s}
                 | {kind: w.path(k).name for kind, w in self.kinds.items() if w.path(k).exists()}
                 for k in ks]  # fmt: skip
        info = {"name": self.name, "rotate_s": self.rotate_s, "closed": closed,
                "decided_until": self.last_stop, "parts": parts}  # fmt: skip
        try:
            write_index(self.index_path, info)
        except OSError as err:
            self.kinds["hyp"].error = f"{self.index_path}: cannot write the index ({err.strerror or err})"

    def decisions(self) -> list[Decision]:
        """Every decision on disk, in order (full precision, from the journal parts)."""
        out = []
        for line in self.kinds["decisions"].records():
            rec = json.loads(line)
            score = float("nan") if rec.get("score") is None else rec["score"]
            out.append(Decision(rec["start"], rec["stop"], rec["label"], rec["confidence"],
                                tuple(rec["channels"]), score))  # fmt: skip
        return out

    def close(self, duration: float | None) -> dict[str, Path] | None:
        """End of the run: close the parts, write the index, then the single-file outputs
        covering ``[0, duration]`` (skipped when nothing was analysed)."""
        self._close_event()
        for w in self.kinds.values():
            w.close()
        self.write_index(closed=True)
        if not duration or duration <= 0:
            return None
        return write_outputs(self.out_dir, self.name, self.decisions(), duration)
