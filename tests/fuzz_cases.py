"""Fuzz cases for every input the user hands us, shared by ``tests/test_fuzz_inputs.py``
(fixed seed, about a minute) and ``tools/fuzz_inputs.py --cases N`` (the long run).

Each Hypothesis strategy draws a *case*: the bytes of one input file and its suffix. The
``check_*`` functions write it, feed it to the reader (and, for a valid result, to what
consumes it next), and judge the outcome:

- ``valid``: the input was accepted and the result satisfies the invariants (finite samples
  of the declared shape, events with 0 <= start < stop, known labels, ...);
- ``error``: an :class:`RtEegError` whose message is ONE line that starts with the file;
- ``finding``: anything else (another exception, a multi-line or anonymous error, a result
  that breaks an invariant). Findings are bugs.
"""

from __future__ import annotations

import math
import signal
import tempfile
import traceback
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from edf_factory import SIGNAL_FIELDS, field_span, set_field, tuh_like, write_edf
from hypothesis import strategies as st

from rt_eeg.errors import RtEegError

WORK = Path(tempfile.gettempdir())


@dataclass
class Outcome:
    kind: str  # valid | error | finding
    detail: str = ""


def judge_error(err: RtEegError, path: Path) -> Outcome:
    """An RtEegError is fine when it is one line naming the file."""
    msg = str(err)
    if "\n" in msg or "\r" in msg:
        return Outcome("finding", f"multi-line error: {msg!r}")
    if not msg.startswith(f"{path}: "):
        return Outcome("finding", f"error does not name the file: {msg!r}")
    return Outcome("error", msg[len(str(path)) + 2 :])


def unexpected(err: BaseException) -> Outcome:
    tb = traceback.extract_tb(err.__traceback__)
    where = f"{Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else "?"
    return Outcome("finding", f"{type(err).__name__} at {where}: {str(err)[:300]}")


# ------------------------------------------------------------------------------ EDF cases
@cache
def base_edfs() -> dict[str, bytes]:
    """Small valid recordings to corrupt: EDF+C (TUH names, 256 Hz, with the EDF+
    annotation signal) and mixed rates (256 / 512 Hz)."""
    folder = Path(tempfile.mkdtemp(prefix="rteeg-fuzz-base-"))
    rng = np.random.default_rng(0)
    plus, _ = tuh_like(folder / "plus.edf", 3.0, 256, rng=rng)
    labels = [
        f"EEG {e}-REF" for e in "FP1 FP2 F3 F4 C3 C4 P3 P4 O1 O2 F7 F8 T3 T4 T5 T6 CZ".split()
    ]
    rates = [256 if i % 2 else 512 for i in range(len(labels))]
    rows = [rng.normal(0, 20, int(3 * fs)) for fs in rates]
    mixed = write_edf(folder / "mixed.edf", rows, labels, rates)
    return {"plus": plus.read_bytes(), "mixed": mixed.read_bytes()}


def _ns(data: bytes) -> int:
    return int(data[252:256].decode("ascii").strip())


FIELD_VALUES = st.one_of(
    st.sampled_from(["0", "-1", "1", "nan", "inf", "-inf", "1e308", "-1e308", "1e-300", "",
                     "abc", "+", "-", ".", "1.5", "99999999", "-99999999", "0x10", "1e9",
                     "32767", "-32768", "40000", "EDF+D", "EDF+C", "BDF+C", "uV", "mV", "V",
                     "nV", "K", "%", "EEG FP1-REF", "EDF Annotations"]),
    st.integers(-(10**7), 10**7).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(lambda x: f"{x:.6g}"),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=10),
    st.binary(min_size=1, max_size=8),
    st.text(st.characters(min_codepoint=128, max_codepoint=0x2FF), min_size=1, max_size=4),
)  # fmt: skip


@st.composite
def edf_header_cases(draw) -> tuple[str, bytes]:
    """One or more header fields (main or per-signal) replaced by a hostile value."""
    data = base_edfs()[draw(st.sampled_from(["plus", "mixed"]))]
    main = ["version", "patient", "recording", "startdate", "starttime", "header_bytes",
            "reserved", "n_records", "record_duration", "n_signals"]  # fmt: skip
    ns = _ns(data)  # of the intact file: the field itself may be corrupted below
    n_fields = draw(st.integers(1, 3))
    for _ in range(n_fields):
        if draw(st.booleans()):
            name, sig = draw(st.sampled_from(main)), None
        else:
            name = draw(st.sampled_from([f for f, _ in SIGNAL_FIELDS]))
            sig = draw(st.integers(0, ns - 1))
        value = draw(FIELD_VALUES)
        raw = value.encode("utf-8") if isinstance(value, str) else value
        data = set_field(data, name, raw, sig, ns)
    return "edf", data


@st.composite
def edf_truncation_cases(draw) -> tuple[str, bytes]:
    """Cut at a record boundary (every one is reachable), inside the header, or a few bytes
    either side of a boundary; or extra bytes appended."""
    data = base_edfs()[draw(st.sampled_from(["plus", "mixed"]))]
    ns = _ns(data)
    header = 256 * (ns + 1)
    spr = [int(data[field_span(data, "samples_per_record", i)[0] :][:8]) for i in range(ns)]
    rec = 2 * sum(spr)
    n_rec = (len(data) - header) // rec
    how = draw(st.sampled_from(["boundary", "near", "header", "append"]))
    if how == "boundary":
        cut = header + draw(st.integers(0, n_rec)) * rec
    elif how == "near":
        cut = header + draw(st.integers(0, n_rec)) * rec + draw(st.integers(-3, 3))
    elif how == "header":
        cut = draw(st.integers(0, header))
    else:
        return "edf", data + draw(st.binary(min_size=1, max_size=rec + 5))
    return "edf", data[: max(0, cut)]


def _tal_positions(data: bytes) -> tuple[int, int, int, float]:
    """(offset of the annotation signal in a record, its width, record bytes, duration)."""
    ns = _ns(data)
    labels = [data[field_span(data, "label", i)[0] :][:16].decode().strip() for i in range(ns)]
    spr = [int(data[field_span(data, "samples_per_record", i)[0] :][:8]) for i in range(ns)]
    k = labels.index("EDF Annotations")
    return 2 * sum(spr[:k]), 2 * spr[k], 2 * sum(spr), float(data[244:252])


@st.composite
def edf_discontinuous_cases(draw) -> tuple[str, bytes]:
    """EDF+D: record onsets rewritten with a gap, an overlap, a garbled TAL or none at all
    (contiguous EDF+D is valid)."""
    data = bytearray(set_field(base_edfs()["plus"], "reserved", "EDF+D"))
    off, width, rec, dur = _tal_positions(bytes(data))
    header = 256 * (_ns(bytes(data)) + 1)
    n_rec = (len(data) - header) // rec
    at = draw(st.integers(1, n_rec - 1))
    shift = draw(st.sampled_from([0.0, 0.0, 0.5, 1.0, 7.25, -0.5, -1.0, 1e-9, 3600.0]))
    garble = None
    if draw(st.integers(0, 3)) == 0:
        garble = draw(st.sampled_from([b"", b"+abc\x14\x14\x00", b"\xff\xfe", b"+nan\x14"]))
    for r in range(n_rec):
        onset = r * dur + (shift if r >= at else 0.0)
        tal = f"+{onset:g}\x14\x14\x00".encode()
        if r == at and garble is not None:
            tal = garble
        pos = header + r * rec + off
        data[pos : pos + width] = tal.ljust(width, b"\x00")[:width]
    return "edf", bytes(data)


@st.composite
def edf_signal_cases(draw) -> tuple[str, bytes]:
    """Generated recordings: mixed sample rates, hostile calibrations and units, non-ASCII
    labels, constant/railed signals."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    elec = "FP1 FP2 F3 F4 C3 C4 P3 P4 O1 O2 F7 F8 T3 T4 T5 T6 CZ A1 A2".split()
    n = draw(st.integers(2, len(elec)))
    labels = [f"EEG {e}-REF" for e in elec[:n]]
    rate_set = draw(st.lists(st.sampled_from([100, 128, 200, 250, 256, 300, 400, 500, 512, 1000,
                                              2048]), min_size=1, max_size=3))  # fmt: skip
    rates = [rate_set[i % len(rate_set)] for i in range(n)]
    seconds = draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["noise", "flat", "rail"]))
    rows = []
    for fs in rates:
        x = rng.normal(0, 20, seconds * fs)
        rows.append(
            np.zeros_like(x)
            if kind == "flat"
            else (np.full_like(x, 3276.7) if kind == "rail" else x)
        )
    folder = Path(tempfile.mkdtemp(prefix="rteeg-fuzz-sig-", dir=WORK))
    path = write_edf(folder / "s.edf", rows, labels, rates)
    data = path.read_bytes()
    path.unlink()
    folder.rmdir()
    for _ in range(draw(st.integers(0, 2))):
        sig = draw(st.integers(0, n - 1))
        what = draw(st.sampled_from(["phys", "dim", "label"]))
        if what == "phys":
            lo = draw(st.sampled_from(["-1e308", "-1e10", "-3276.8", "-1", "0", "1e-30", "-1e300"]))
            hi = draw(st.sampled_from(["1e308", "1e10", "3276.7", "1", "0", "-1e-30", "1e9"]))
            data = set_field(set_field(data, "physical_min", lo, sig), "physical_max", hi, sig)
        elif what == "dim":
            data = set_field(data, "dimension", draw(st.sampled_from(["uV", "mV", "V", "nV", "K", "", "µV"])).encode("latin-1", "replace"), sig)  # fmt: skip
        else:
            data = set_field(data, "label", draw(st.binary(min_size=1, max_size=16)), sig)
    return "edf", data


def check_edf(data: bytes) -> Outcome:
    """Open, read and compute features; judge as described in the module docstring."""
    from rt_eeg.features import compute_features
    from rt_eeg.io.edf import open_recording

    with tempfile.TemporaryDirectory(prefix="rteeg-fuzz-", dir=WORK) as d:
        path = Path(d) / "case.edf"
        path.write_bytes(data)
        try:
            with open_recording(path) as rec:
                x = rec.read()
                if x.shape != (rec.n_samples, len(rec.ch_names)) or x.dtype != np.float32:
                    return Outcome("finding", f"read {x.shape} {x.dtype}, header says "
                                              f"{(rec.n_samples, len(rec.ch_names))}")  # fmt: skip
                if not np.isfinite(x).all():
                    return Outcome("finding", "accepted a recording with non-finite samples")
                feats, _ = compute_features(x)
                if not np.isfinite(feats).all():
                    return Outcome("finding", "finite samples gave non-finite features")
            return Outcome("valid")
        except RtEegError as err:
            return judge_error(err, path)
        except Exception as err:
            return unexpected(err)


# ----------------------------------------------------------------------- annotation cases
CSV_BI = ("# version = csv_v1.0.0\n# bname = case\n# duration = {dur} secs\n"
          "# montage_file = $NEDC_NFC/lib/nedc_eas_default_montage.txt\n#\n"
          "channel,start_time,stop_time,label,confidence\n")  # fmt: skip
TIMES = st.one_of(
    st.floats(-10, 1e5, allow_nan=False).map(lambda x: f"{x:.4f}"),
    st.sampled_from(["nan", "inf", "-inf", "-1", "0", "", "abc", "1e400", "99999", "1,5", "0x1"]),
)
LABELS = st.sampled_from(["seiz", "bckg", "fnsz", "GNSZ", "spike", "", "null", "artf", "na",
                          "sz", "sz_foc", "bckg ", "séiz"])  # fmt: skip
CONF = st.sampled_from(["1.0000", "0.5", "0", "-0.1", "1.5", "nan", "x", ""])
CHANNELS = st.sampled_from(["TERM", "FP1-F7", "", "T3-C3", "X", "n/a"])


@st.composite
def event_rows(draw, sep: str, n_fields: int, clean: bool = False) -> list[str]:
    """Rows of ``channel, start, stop, label, confidence`` (the last ``n_fields``); a
    ``clean`` file has only well-formed rows (possibly overlapping), to reach the code that
    consumes a parsed annotation."""
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        start, stop = draw(TIMES), draw(TIMES)
        if clean or draw(st.booleans()):
            a = draw(st.floats(0, 500, allow_nan=False))
            start, stop = f"{a:.4f}", f"{a + draw(st.floats(0.001, 100)):.4f}"
        if clean:
            fields = [draw(st.sampled_from(["TERM", "FP1-F7"])) if n_fields == 5 else "TERM",
                      start, stop, draw(st.sampled_from(["seiz", "bckg", "fnsz"])),
                      draw(st.sampled_from(["1.0000", "0.5"]))]  # fmt: skip
        else:
            fields = [draw(CHANNELS), start, stop, draw(LABELS), draw(CONF)]
        fields = fields[-n_fields:] if n_fields < 5 else fields
        if not clean and draw(st.integers(0, 9)) == 0:
            fields = fields[: draw(st.integers(0, len(fields)))]
        rows.append(sep.join(fields))
    return rows


def _finish_text(draw, text: str, clean: bool = False) -> bytes:
    """Apply BOM / CRLF (always possible) and truncation / stray bytes (not when clean)."""
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    raw = text.encode("utf-8")
    if draw(st.integers(0, 3)) == 0:
        raw = b"\xef\xbb\xbf" + raw
    mode = 9 if clean else draw(st.integers(0, 9))
    if mode == 0:
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif mode == 1:
        raw = b""
    elif mode == 2:
        pos = draw(st.integers(0, len(raw)))
        raw = raw[:pos] + draw(st.binary(min_size=1, max_size=6)) + raw[pos:]
    return raw


@st.composite
def annotation_cases(draw) -> tuple[str, bytes]:
    """csv_bi, csv, tse, lbl, HYP and events.tsv files with hostile rows and headers."""
    fmt = draw(st.sampled_from(["csv_bi", "csv", "tse", "lbl", "hyp", "tsv"]))
    clean = draw(st.booleans())
    durs = ["600.0000", "1e9"] if clean else ["600.0000", "0", "-5", "nan", "abc", "10.5", "1e9"]
    dur = draw(st.sampled_from(durs))
    if fmt in ("csv_bi", "csv"):
        text = CSV_BI.format(dur=dur) + "\n".join(draw(event_rows(",", 5, clean))) + "\n"
    elif fmt == "tse":
        rows = [r.replace(",", " ") for r in draw(event_rows(",", 4, clean))]
        text = "version = tse_v1.0.0\n\n" + "\n".join(rows) + "\n"
    elif fmt == "hyp":
        rows = draw(event_rows(",", 4, clean))
        text = (f"# version = rt_eeg_hyp_v1\n# duration = {dur} secs\n# epoch = 1.0 secs\n"
                "start_time,stop_time,label,confidence\n" + "\n".join(rows) + "\n")  # fmt: skip
    elif fmt == "tsv":
        head = "onset\tduration\teventType\tconfidence\tchannels\tdateTime\trecordingDuration\n"
        rows = []
        for _ in range(draw(st.integers(0, 5))):
            et = draw(st.sampled_from(["sz", "bckg", "sz_foc", "spike", "", "sz_gen_m_tonic"]))
            rows.append("\t".join([draw(TIMES), draw(TIMES), et, draw(CONF), draw(CHANNELS),
                                   "n/a", draw(st.sampled_from([dur, "n/a", "600"]))]))  # fmt: skip
        text = head + "\n".join(rows) + "\n"
    else:  # lbl
        sym = draw(st.sampled_from(["{0: 'null', 1: 'seiz', 2: 'bckg'}", "{0: 'null'}", "{x}",
                                    "{0: 'null', 1: 'spike'}"]))  # fmt: skip
        lines = ["version = lbl_v1.0.0", "", "montage = 0, FP1-F7: EEG FP1-REF -- EEG F7-REF",
                 "montage = 1, F7-T3: EEG F7-REF -- EEG T3-REF", "", "number_of_levels = 1",
                 "level[0] = 1", "", f"symbols[0] = {sym}", ""]  # fmt: skip
        for _ in range(draw(st.integers(0, 4))):
            ch = draw(st.sampled_from(["0", "1", "5", "-1", "x"]))
            probs = draw(st.sampled_from(["[0.0, 1.0, 0.0]", "[1.0]", "[]", "[a, b]", "[0, 0, 1]"]))
            lines.append(f"label = {{0, 0, {draw(TIMES)}, {draw(TIMES)}, {ch}, {probs}}}")
        text = "\n".join(lines) + "\n"
    return fmt, _finish_text(draw, text, clean)


def _event_invariants(events, duration) -> str:
    from rt_eeg.io.annotations import KNOWN_LABELS

    for ev in events:
        if not (math.isfinite(ev.start) and math.isfinite(ev.stop) and 0 <= ev.start < ev.stop):
            return f"bad event times {ev}"
        if ev.label not in KNOWN_LABELS | {"na"}:
            return f"unknown label accepted {ev}"
        if not 0 <= ev.confidence <= 1:
            return f"confidence out of range {ev}"
    if duration is not None and not (math.isfinite(duration) and duration > 0):
        return f"bad duration {duration}"
    return ""


def check_annotation(fmt: str, data: bytes) -> Outcome:
    """Read the file; a valid result must satisfy the event invariants and survive
    background filling and scoring against itself."""
    from rt_eeg.io.annotations import fill_background, read_annotation, read_hyp

    suffix = "_events.tsv" if fmt == "tsv" else f".{fmt}"
    with tempfile.TemporaryDirectory(prefix="rteeg-fuzz-", dir=WORK) as d:
        path = Path(d) / f"case{suffix}"
        path.write_bytes(data)
        try:
            if fmt == "hyp":
                epochs, duration = read_hyp(path)
                bad = _event_invariants(epochs, duration)
                return Outcome("finding", bad) if bad else Outcome("valid")
            ann = read_annotation(path)
            bad = _event_invariants(ann.events, ann.duration)
            if bad:
                return Outcome("finding", bad)
            if ann.duration is not None:
                fill_background(ann.events, ann.duration)
                from rt_eeg.scoring import score_pairs

                score_pairs([(ann, ann)])
            return Outcome("valid")
        except RtEegError as err:
            return judge_error(err, path)
        except Exception as err:
            return unexpected(err)


@st.composite
def list_cases(draw) -> tuple[str, bytes]:
    lines = draw(st.lists(st.one_of(
        st.sampled_from(["", "# comment", "rec.edf", "a/b.edf", "$HOME/x.edf", "~/y.edf",
                         "   ", "\t", "../z.edf", "/abs/path.edf"]),
        st.text(max_size=30)), max_size=6))  # fmt: skip
    text = "\n".join(line.replace("\x00", "") for line in lines) + "\n"
    return "list", _finish_text(draw, text)


def check_list(data: bytes) -> Outcome:
    from rt_eeg.io.corpus import read_list

    with tempfile.TemporaryDirectory(prefix="rteeg-fuzz-", dir=WORK) as d:
        path = Path(d) / "case.list"
        path.write_bytes(data)
        try:
            items = read_list(path)
            # reference parse: a leading BOM is not part of the first entry
            text = data.decode("utf-8-sig")
            expected = [ln.strip() for ln in text.splitlines()]
            expected = [e for e in expected if e and not e.startswith("#")]
            if len(items) != len(expected) or str(items[0]).startswith(f"{d}/\ufeff"):
                return Outcome("finding", f"entries {items[:3]} for lines {expected[:3]}")
            return Outcome("valid")
        except RtEegError as err:
            return judge_error(err, path)
        except Exception as err:
            return unexpected(err)


# --------------------------------------------------------------------------- TOML configs
TOML_VALUES = st.one_of(
    st.integers(-(2**63), 2**63 - 1), st.floats(), st.booleans(), st.text(max_size=12),
    st.sampled_from(["abc", "big", "auto", "cpu", "gpu", "tpu", "ipc", "tcp",
                     "tcp://127.0.0.1:5601", "tcp://0.0.0.0:5555", "tcp://*:1", "ipc:///tmp/x",
                     "udp://x", "tcp://127.0.0.1:0", "ipc://", "models/default"]),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.sampled_from(["a", "x"]),
                                                          st.integers(), max_size=1),
)  # fmt: skip
TOP_KEYS = ["model", "device", "transport", "heartbeat_s", "dead_after_s", "ready_timeout_s",
            "data_hwm", "display_hwm", "insecure", "speed", "endpoints", "postprocess",
            "security"]  # fmt: skip


@st.composite
def toml_cases(draw) -> tuple[str, bytes]:
    import tomli_w

    from rt_eeg.config import ENDPOINT_NAMES
    from rt_eeg.postprocess import PostprocessConfig

    doc: dict = {}
    for key in draw(st.lists(st.sampled_from(TOP_KEYS), max_size=5, unique=True)):
        if key == "endpoints" and draw(st.booleans()):
            doc[key] = {draw(st.sampled_from([*ENDPOINT_NAMES, "monitor"])): draw(TOML_VALUES)}
        elif key == "postprocess" and draw(st.booleans()):
            fields = [f.name for f in __import__("dataclasses").fields(PostprocessConfig)]
            doc[key] = {draw(st.sampled_from([*fields, "bogus"])): draw(TOML_VALUES)}
        elif key == "security" and draw(st.booleans()):
            doc[key] = {draw(st.sampled_from(["server_secret_key", "authorized_keys_dir",
                                              "client_secret_key", "x"])): draw(TOML_VALUES)}  # fmt: skip
        else:
            doc[key] = draw(TOML_VALUES)
    try:
        text = tomli_w.dumps(doc)
    except (TypeError, ValueError):
        text = "model = 5\n"
    return "toml", _finish_text(draw, text)


def check_toml(data: bytes) -> Outcome:
    from rt_eeg.config import PipelineConfig, load_pipeline_config

    with tempfile.TemporaryDirectory(prefix="rteeg-fuzz-", dir=WORK) as d:
        path = Path(d) / "case.toml"
        path.write_bytes(data)
        try:
            cfg = load_pipeline_config(path)
            if PipelineConfig.from_dict(cfg.to_dict()) != cfg:
                return Outcome("finding", "config does not survive the trip to the stages")
            return Outcome("valid")
        except RtEegError as err:
            return judge_error(err, path)
        except Exception as err:
            return unexpected(err)


# ---------------------------------------------------------------------------------- all
CHECKS = {"edf": check_edf, "list": check_list, "toml": check_toml}


#: Seconds one case may take; longer counts as a hang (a finding), not a slow test.
CASE_TIMEOUT_S = 30


class _Hang(BaseException):
    """Raised by the alarm; BaseException so no ``except Exception`` in the code swallows it."""


def check(case: tuple[str, bytes]) -> Outcome:
    kind, data = case

    def alarm(*_):
        raise _Hang

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(CASE_TIMEOUT_S)
    try:
        if kind in CHECKS:
            return CHECKS[kind](data)
        return check_annotation(kind, data)
    except _Hang:
        return Outcome("finding", f"hang: {kind} case ran over {CASE_TIMEOUT_S} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


#: name -> strategy; the test and the tool run each with its own example budget.
TARGETS = {
    "edf_header": edf_header_cases(),
    "edf_truncation": edf_truncation_cases(),
    "edf_discontinuous": edf_discontinuous_cases(),
    "edf_signals": edf_signal_cases(),
    "annotations": annotation_cases(),
    "lists": list_cases(),
    "toml": toml_cases(),
}

__all__ = ["TARGETS", "Outcome", "check", "base_edfs"]
