"""Corpus discovery: (recording, reference annotation) pairs.

Understands a TUSZ v2 tree (``edf/{train,dev,eval}/<patient>/<session>/<montage>/*.edf``
beside ``.csv_bi``), a TUSZ v1.5 tree (``.tse_bi``), a CHB-MIT tree (``chbNN-summary.txt``
seizure times) and NEDC-style list files (one EDF path per line).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from rt_eeg.errors import RtEegError

SPLITS = ("train", "dev", "eval")
_REF_SUFFIXES = (".csv_bi", ".tse_bi", ".csv", ".tse", ".lbl_bi", ".lbl")


@dataclass(frozen=True)
class CorpusItem:
    """One recording of a corpus.

    Attributes
    ----------
    edf : Path
        The recording.
    ref : Path or None
        Its reference annotation (``.csv_bi``/``.tse_bi``/...; for CHB-MIT the summary file).
    split : str
        ``train``, ``dev``, ``eval`` or ``""`` when the layout has none.
    patient : str
        Patient id (TUSZ folder name, CHB-MIT case).
    channel_ref : Path or None
        Per-channel TUSZ v2 ``.csv`` annotation when present.
    """

    edf: Path
    ref: Path | None
    split: str
    patient: str
    channel_ref: Path | None = None

    @property
    def name(self) -> str:
        return self.edf.stem


def _split_of(path: Path) -> str:
    for part in reversed(path.parts):
        if part in SPLITS:
            return part
    return ""


def _reference_for(edf: Path) -> Path | None:
    for suffix in _REF_SUFFIXES:
        if suffix == ".csv":
            continue
        cand = edf.with_suffix(suffix)
        if cand.is_file():
            return cand
    return None


def _item(edf: Path) -> CorpusItem:
    csv = edf.with_suffix(".csv")
    split = _split_of(edf)
    parts = edf.parts
    patient = (
        parts[parts.index(split) + 1] if split and split in parts[:-1] else edf.stem.split("_")[0]
    )
    return CorpusItem(edf, _reference_for(edf), split, patient, csv if csv.is_file() else None)


def find_recordings(root: str | os.PathLike, split: str | None = None) -> list[CorpusItem]:
    """Find every recording under ``root`` (a TUSZ v1/v2 tree, a CHB-MIT tree or a list file).

    Parameters
    ----------
    root : path-like
        Corpus directory, or a text file listing EDF paths (one per line, ``#`` comments).
    split : str, optional
        Keep only ``train``, ``dev`` or ``eval``.

    Returns
    -------
    list of CorpusItem
        Sorted by path. Recordings without a reference annotation keep ``ref=None``.
    """
    root = Path(root)
    if split is not None and split not in SPLITS:
        raise RtEegError(f"unknown split {split!r} (expected one of {', '.join(SPLITS)})")
    if root.is_file():
        items = [_item(p) for p in read_list(root)]
    elif root.is_dir():
        summaries = sorted(root.rglob("chb*-summary.txt"))
        chb = {}
        for s in summaries:
            for edf_name in parse_chbmit_summary(s):
                chb[s.parent / edf_name] = s
        edfs = sorted(p for p in root.rglob("*") if p.suffix.lower() == ".edf" and p.is_file())
        items = []
        for edf in edfs:
            if edf in chb:
                items.append(CorpusItem(edf, chb[edf], "", edf.parent.name))
            else:
                items.append(_item(edf))
    else:
        raise RtEegError("corpus not found (expected a directory or a list file)", root)
    if split is not None:
        items = [i for i in items if i.split == split]
    return items


def read_list(path: str | os.PathLike, what: str = "files") -> list[Path]:
    """Read an NEDC-style list file: one path per line.

    Blank lines and lines starting with '#' are ignored; ``$VARS`` and ``~`` are expanded;
    relative paths are relative to the list file's directory. ``what`` names the entries in
    the error raised for an empty list.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()  # -sig: drop a BOM
    except FileNotFoundError:
        raise RtEegError("list file not found", path) from None
    except IsADirectoryError:
        raise RtEegError("is a directory, not a list file", path) from None
    except (OSError, UnicodeDecodeError) as err:
        raise RtEegError(f"cannot read list file ({err})", path) from None
    out = []
    for line in lines:
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        p = Path(os.path.expanduser(os.path.expandvars(item)))
        out.append(p if p.is_absolute() else path.parent / p)
    if not out:
        raise RtEegError(f"list file names no {what}", path)
    return out


_CHB_FILE = re.compile(r"^File Name:\s*(\S+)")
_CHB_TIME = re.compile(r"^Seizure\s*\d*\s*(Start|End) Time:\s*([\d.]+)\s*seconds", re.IGNORECASE)


def parse_chbmit_summary(path: str | os.PathLike) -> dict[str, list[tuple[float, float]]]:
    """Seizure intervals per EDF file name from a CHB-MIT ``chbNN-summary.txt``.

    Returns
    -------
    dict
        ``{file_name: [(start_s, stop_s), ...]}`` for every file listed (empty list when
        seizure-free).
    """
    path = Path(path)
    result: dict[str, list[tuple[float, float]]] = {}
    current, start = None, None
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as err:
        raise RtEegError(f"cannot read summary file ({err.strerror or err})", path) from None
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if m := _CHB_FILE.match(line):
            current = m.group(1)
            result[current] = []
        elif m := _CHB_TIME.match(line):
            if current is None:
                raise RtEegError(f"line {n}: seizure time before any 'File Name:' line", path)
            try:
                t = float(m.group(2))
            except ValueError:
                raise RtEegError(f"line {n}: time {m.group(2)!r} is not a number", path) from None
            if m.group(1).lower() == "start":
                start = t
            else:
                if start is None or t <= start:
                    raise RtEegError(f"line {n}: seizure end without a valid start", path)
                result[current].append((start, t))
                start = None
    return result
