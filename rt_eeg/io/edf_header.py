"""EDF/BDF header validation before pyedflib sees the file.

pyedflib (edflib) divides by the record duration, prints its own diagnostics on the C-level
stdout and reports most problems as one generic "not EDF compliant" reason. Parsing the
fixed-width header ourselves first turns every structural problem into one line naming the
field (``record duration 0 ...``, ``truncated: 13 of 17 data records``), and
:func:`quiet_c_output` keeps whatever edflib still prints off the user's terminal.

Layout (EDF spec, Kemp 1992 / EDF+ 2003): a 256-byte main header, then ``ns`` signal headers
stored field by field (label 16, transducer 80, dimension 8, physical min/max 8+8, digital
min/max 8+8, prefiltering 80, samples per record 8, reserved 32 bytes), then ``n_records``
data records of ``sum(samples_per_record)`` 2-byte (EDF) or 3-byte (BDF) little-endian
integers.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rt_eeg.errors import RtEegError

#: (name, width) of the per-signal header fields, in file order.
SIGNAL_FIELDS = (("label", 16), ("transducer", 80), ("dimension", 8), ("physical_min", 8),
                 ("physical_max", 8), ("digital_min", 8), ("digital_max", 8),
                 ("prefiltering", 80), ("samples_per_record", 8), ("reserved", 32))  # fmt: skip
#: More signals than any real recorder writes; bounds the header we read.
MAX_SIGNALS = 4096
ANNOTATION_LABELS = ("EDF Annotations", "BDF Annotations")


@dataclass(frozen=True)
class SignalHeader:
    """One signal's header fields (numbers parsed, text stripped)."""

    index: int
    label: str
    dimension: str
    physical_min: float
    physical_max: float
    digital_min: int
    digital_max: int
    samples_per_record: int

    @property
    def is_annotation(self) -> bool:
        return self.label in ANNOTATION_LABELS


@dataclass(frozen=True)
class EdfHeader:
    """The parsed, validated header of an EDF/BDF file.

    Attributes
    ----------
    bdf : bool
        24-bit BDF rather than 16-bit EDF.
    variant : str
        ``''`` (plain EDF), ``'EDF+C'``, ``'EDF+D'``, ``'BDF+C'``, ``'BDF+D'``.
    header_bytes, n_records : int
    record_duration : float
        Seconds per data record (> 0).
    signals : tuple of SignalHeader
    """

    bdf: bool
    variant: str
    header_bytes: int
    n_records: int
    record_duration: float
    signals: tuple[SignalHeader, ...]

    @property
    def sample_bytes(self) -> int:
        return 3 if self.bdf else 2

    @property
    def record_bytes(self) -> int:
        return sum(s.samples_per_record for s in self.signals) * self.sample_bytes

    def sfreq(self, i: int) -> float:
        """Sampling rate of signal ``i`` in Hz."""
        return self.signals[i].samples_per_record / self.record_duration


def _text(raw: bytes, what: str, path) -> str:
    bad = next((b for b in raw if b < 32 or b > 126), None)
    if bad is not None:
        raise RtEegError(
            f"{what} holds a non-ASCII or control byte 0x{bad:02x} "
            "(EDF headers are printable ASCII)",
            path,
        )
    return raw.decode("ascii").strip()


def _int(raw: bytes, what: str, path) -> int:
    text = _text(raw, what, path)
    try:
        return int(text)
    except ValueError:
        raise RtEegError(f"{what} {text!r} is not an integer", path) from None


def _float(raw: bytes, what: str, path) -> float:
    text = _text(raw, what, path)
    try:
        value = float(text)
    except ValueError:
        raise RtEegError(f"{what} {text!r} is not a number", path) from None
    if not math.isfinite(value):
        raise RtEegError(f"{what} {text!r} is not finite", path)
    return value


def read_edf_header(path: str | os.PathLike) -> EdfHeader:
    """Parse and validate the header of an EDF/EDF+/BDF file.

    Checks everything a reader relies on: version, header size, signal count, a positive
    finite record duration, integer sample counts >= 1, ordered digital and distinct physical
    limits, and that the file size holds exactly the declared data records.

    Raises
    ------
    RtEegError
        ``path: problem`` naming the field, for a missing file, a directory or any
        malformed field.
    """
    path = Path(path)
    if path.is_dir():
        raise RtEegError("is a directory, not an EDF file", path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            main = fh.read(256)
            if len(main) < 256:
                raise RtEegError(f"too short for an EDF header ({size} bytes, need 256)", path)
            bdf = main[:8] == b"\xffBIOSEMI"
            if not bdf and main[:8] != b"0       ":
                raise RtEegError(
                    f"not an EDF or BDF file (version field {main[:8]!r}, expected '0')", path
                )
            ns = _int(main[252:256], "number of signals", path)
            if not 1 <= ns <= MAX_SIGNALS:
                raise RtEegError(f"number of signals {ns} is outside 1..{MAX_SIGNALS}", path)
            rest = fh.read(256 * ns)
    except FileNotFoundError:
        raise RtEegError("file not found", path) from None
    except PermissionError:
        raise RtEegError("permission denied", path) from None
    except OSError as err:
        raise RtEegError(f"cannot read file ({err.strerror or err})", path) from None
    header_bytes = _int(main[184:192], "header size", path)
    if header_bytes != 256 * (ns + 1):
        raise RtEegError(
            f"header size {header_bytes} does not match {ns} signals (expected {256 * (ns + 1)})",
            path,
        )
    if len(rest) < 256 * ns:
        raise RtEegError(
            f"truncated header: {size} bytes, the {ns} signal headers need {header_bytes}", path
        )
    _text(main[8:184], "patient/recording/start fields", path)
    reserved = _text(main[192:236], "reserved field", path)
    variant = reserved[:5] if reserved[:5] in ("EDF+C", "EDF+D", "BDF+C", "BDF+D") else ""
    n_records = _int(main[236:244], "number of data records", path)
    if n_records < 1:
        raise RtEegError(
            f"number of data records is {n_records} (a file still being recorded, or empty)", path
        )
    duration = _float(main[244:252], "record duration", path)
    if duration <= 0:
        raise RtEegError(f"record duration {duration:g} s is not positive", path)
    fields: dict[str, list[bytes]] = {}
    pos = 0
    for name, width in SIGNAL_FIELDS:
        fields[name] = [rest[pos + k * width : pos + (k + 1) * width] for k in range(ns)]
        pos += width * ns
    dig_lo, dig_hi = (-(2**23), 2**23 - 1) if bdf else (-32768, 32767)
    signals = []
    for i in range(ns):
        label = _text(fields["label"][i], f"signal {i + 1} label", path)
        what = f"signal {i + 1} ({label!r})"
        for name in ("transducer", "prefiltering", "reserved"):
            _text(fields[name][i], f"{what} {name}", path)
        s = SignalHeader(
            index=i,
            label=label,
            dimension=_text(fields["dimension"][i], f"{what} physical dimension", path),
            physical_min=_float(fields["physical_min"][i], f"{what} physical minimum", path),
            physical_max=_float(fields["physical_max"][i], f"{what} physical maximum", path),
            digital_min=_int(fields["digital_min"][i], f"{what} digital minimum", path),
            digital_max=_int(fields["digital_max"][i], f"{what} digital maximum", path),
            samples_per_record=_int(fields["samples_per_record"][i], f"{what} samples per record", path),
        )  # fmt: skip
        if s.samples_per_record < 1:
            raise RtEegError(f"{what} samples per record {s.samples_per_record} is not >= 1", path)
        if not dig_lo <= s.digital_min < s.digital_max <= dig_hi:
            raise RtEegError(
                f"{what} digital range {s.digital_min}..{s.digital_max} is not an increasing "
                f"range within {dig_lo}..{dig_hi}",
                path,
            )
        if s.physical_min == s.physical_max:
            raise RtEegError(f"{what} physical minimum equals maximum ({s.physical_min:g})", path)
        signals.append(s)
    header = EdfHeader(bdf, variant, header_bytes, n_records, duration, tuple(signals))
    expected = header_bytes + n_records * header.record_bytes
    if size < expected:
        complete = (size - header_bytes) // header.record_bytes if header.record_bytes else 0
        raise RtEegError(
            f"truncated: {size} bytes hold {max(complete, 0)} of {n_records} data records "
            f"({expected - size} bytes missing)",
            path,
        )
    if size > expected:
        raise RtEegError(
            f"{size - expected} bytes after the last of {n_records} data records "
            "(wrong record count in the header?)",
            path,
        )
    if variant.endswith("+D"):
        check_continuous(path, header)
        # edflib refuses every EDF+D file, even one whose records are back to back
        raise RtEegError(
            f"{variant} (discontinuous) file whose records are contiguous: the EDF reader "
            f"does not open {variant}; mark it {variant[:4]}C in the header's reserved field",
            path,
        )
    return header


def record_onsets(path: str | os.PathLike, header: EdfHeader) -> list[float]:
    """Onset (s) of every data record from its first time-keeping TAL (EDF+/BDF+ only)."""
    annot = [s for s in header.signals if s.is_annotation]
    if not annot:
        raise RtEegError(f"{header.variant} file has no '{ANNOTATION_LABELS[0]}' signal", path)
    offset = sum(s.samples_per_record for s in header.signals[: annot[0].index])
    offset *= header.sample_bytes
    width = annot[0].samples_per_record * header.sample_bytes
    onsets = []
    with open(path, "rb") as fh:
        for r in range(header.n_records):
            fh.seek(header.header_bytes + r * header.record_bytes + offset)
            tal = fh.read(width)
            head = tal.split(b"\x14", 1)[0]
            try:
                onset = float(head.decode("ascii"))
            except (UnicodeDecodeError, ValueError):
                raise RtEegError(
                    f"data record {r + 1} has no valid time-keeping annotation ({head[:20]!r})",
                    path,
                ) from None
            if not math.isfinite(onset):
                raise RtEegError(f"data record {r + 1} onset {onset} is not finite", path)
            onsets.append(onset)
    return onsets


def check_continuous(path: str | os.PathLike, header: EdfHeader) -> None:
    """Refuse an EDF+D file whose records are not back to back (a gap or an overlap).

    The detector streams samples as one continuous signal, so a gap would silently shift
    every later decision in time.
    """
    onsets = record_onsets(path, header)
    tol = 1e-6 + 1e-9 * header.n_records
    for r in range(1, len(onsets)):
        step = onsets[r] - onsets[r - 1]
        if abs(step - header.record_duration) > tol:
            raise RtEegError(
                f"discontinuous EDF+D recording: data record {r + 1} starts at "
                f"{onsets[r]:g} s, expected {onsets[r - 1] + header.record_duration:g} s "
                "(only continuous recordings can be analysed)",
                path,
            )


@contextlib.contextmanager
def quiet_c_output() -> Iterator[None]:
    """Silence the process-level stdout/stderr (file descriptors 1 and 2) for the block.

    edflib writes diagnostics such as ``filesize 236538 != 13506*17+7936`` with C ``printf``,
    which Python's ``sys.stdout`` redirection cannot catch. C stdio buffers are flushed before
    the descriptors are restored so nothing printed inside leaks out later.
    """
    try:
        libc = ctypes.CDLL(None)
    except OSError:  # pragma: no cover - not a POSIX libc
        libc = None
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = []
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:  # pragma: no cover
        yield
        return
    try:
        for fd in (1, 2):
            try:
                saved.append((fd, os.dup(fd)))
            except OSError:
                continue  # descriptor closed: nothing to protect
            os.dup2(devnull, fd)
        yield
    finally:
        if libc is not None:
            libc.fflush(None)
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)
