"""Atomic output: write to a temporary file beside the target, then rename over it.

A crash or a bad input part-way through never leaves a truncated or half-written output, and
an existing output stays intact until its replacement is complete.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path in ``path``'s directory; rename it to ``path`` on success.

    Parameters
    ----------
    path : path-like
        Final destination. Parent directories are created.
    suffix : str
        Suffix for the temporary name (some writers, e.g. ``np.savez``, append their own
        extension unless the name already ends with it).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or ".tmp", dir=path.parent)
    os.close(fd)
    # mkstemp creates 0600; outputs get the usual permissions (0666 less the umask).
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def json_text(obj: object, rows: str | None = None) -> str:
    """``obj`` as indented JSON; the list ``obj[rows]`` (if named) one compact item per line.

    A long list of records (an operating-point grid's trials) indented item by item is most of
    a file's bytes; one line per record keeps it readable and diffable at about half the size.
    """
    if rows is None or not isinstance(obj, dict) or not isinstance(obj.get(rows), list):
        return json.dumps(obj, indent=2, sort_keys=False) + "\n"
    parts = []
    for key, value in obj.items():
        if key == rows and value:
            lines = ",\n".join("    " + json.dumps(r, separators=(",", ":")) for r in value)
            text = "[\n" + lines + "\n  ]"
        else:
            text = json.dumps(value, indent=2).replace("\n", "\n  ")
        parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_json_atomic(path: str | os.PathLike, obj: object, rows: str | None = None) -> None:
    """Write ``obj`` as indented JSON to ``path`` atomically (``rows``: see :func:`json_text`)."""
    write_text_atomic(path, json_text(obj, rows))


def write_json_gz_atomic(path: str | os.PathLike, obj: object, rows: str | None = None) -> str:
    """:func:`write_json_atomic`, gzip-compressed; the bytes depend on ``obj`` alone (no
    timestamp in the header), so the same result written twice is the same file. Returns the
    file's SHA-256 (hex), for a file that refers to this one to check it."""
    data = gzip.compress(json_text(obj, rows).encode("utf-8"), compresslevel=9, mtime=0)
    with atomic_path(path, suffix=".gz") as tmp:
        tmp.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def save_npz_atomic(path: str | os.PathLike, **arrays: np.ndarray) -> None:
    """``np.savez`` to ``path`` atomically (the name is used exactly as given)."""
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez(tmp, **arrays)
