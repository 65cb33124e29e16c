"""Fuzzing every user input (Hypothesis, fixed seed, about a minute in all): EDF header
fields, truncation at record boundaries, EDF+D, mixed rates and hostile calibrations,
annotation files (csv_bi, csv, tse, lbl, HYP, events.tsv), list files and TOML configs.
Each case ends in a one-line error naming the file or a valid result that satisfies the
invariants (see ``tests/fuzz_cases.py``); the CLI is checked end to end on a sample.

The long run is ``tools/fuzz_inputs.py --cases N``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis", reason="hypothesis is in the test extra: pip install -e .[test]")

from edf_factory import set_field  # noqa: E402
from fuzz_cases import TARGETS, base_edfs, check  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: Examples per target: the whole file runs in about a minute on the 2-core CI machine.
BUDGET = {"edf_header": 150, "edf_truncation": 60, "edf_discontinuous": 40, "edf_signals": 60,
          "annotations": 300, "lists": 100, "toml": 200}  # fmt: skip


def _fuzz(name: str):
    @pytest.mark.timeout(240)
    @settings(max_examples=BUDGET[name], derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
    @given(case=TARGETS[name])
    def test(case):
        out = check(case)
        assert out.kind != "finding", out.detail

    test.__name__ = f"test_fuzz_{name}"
    return test


test_fuzz_edf_header = _fuzz("edf_header")
test_fuzz_edf_truncation = _fuzz("edf_truncation")
test_fuzz_edf_discontinuous = _fuzz("edf_discontinuous")
test_fuzz_edf_signals = _fuzz("edf_signals")
test_fuzz_annotations = _fuzz("annotations")
test_fuzz_lists = _fuzz("lists")
test_fuzz_toml = _fuzz("toml")


def test_every_record_boundary_truncation_is_one_line():
    """Exhaustive, not sampled: a cut at each record boundary of the EDF+ base file."""
    data = base_edfs()["plus"]
    ns = int(data[252:256])
    header = 256 * (ns + 1)
    n_rec = int(data[236:244])
    rec = (len(data) - header) // n_rec
    for k in range(n_rec + 1):
        out = check(("edf", data[: header + k * rec]))
        assert out.kind == ("valid" if k == n_rec else "error"), (k, out)
        if k < n_rec:
            assert f"hold {k} of {n_rec} data records" in out.detail, out.detail


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.timeout(300)
def test_cli_end_to_end_on_a_sample_of_corrupt_inputs(tmp_path):
    """Subprocess: exit 2, one line on stderr, no traceback, and an output that existed
    before the failing command is left exactly as it was."""
    base = base_edfs()["plus"]
    cases = {
        "dur0.edf": set_field(base, "record_duration", "0"),
        "ns.edf": set_field(base, "n_signals", "abc"),
        "phys.edf": set_field(
            set_field(base, "physical_min", "-1e308", 0), "physical_max", "1e308", 0
        ),
        "label.edf": set_field(base, "label", b"\xff\xfe", 2),
        "short.edf": base[:-100],
        "plusd.edf": set_field(base, "reserved", "EDF+D"),
        "junk.edf": b"0       " + os.urandom(600),
    }
    previous = tmp_path / "f.npz"
    previous.write_bytes(b"an earlier result")
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        commands = [["info", path]]
        if name in ("dur0.edf", "phys.edf", "short.edf"):  # each CLI start costs seconds
            commands.append(["features", path, "--out", previous])
        for args in commands:
            res = _cli(*args)
            assert res.returncode == 2, (name, args[0], res.stderr[-800:])
            assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, res.stderr
            assert str(path) in res.stderr and res.stdout == "", (res.stdout, res.stderr)
            assert previous.read_bytes() == b"an earlier result"
    ann = tmp_path / "a.csv_bi"
    ann.write_bytes(
        b"\xef\xbb\xbf# version = csv_v1.0.0\r\nchannel,start_time,stop_time,label,confidence\r\nTERM,5,2,seiz,1\r\n"
    )
    lst = tmp_path / "refs.list"
    lst.write_text(f"{ann}\n")
    res = _cli("score", "--ref-list", lst, "--hyp-list", lst)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "a.csv_bi: line 3: start time 5.0 is not before stop time 2.0" in res.stderr


def test_real_tuh_recording_corrupted_field_by_field(shared_dir):
    """Issue #15's setting: corrupt files made from a real TUH recording's header and body.
    Every main-header field and every field of the first and last signal, each set to a
    few hostile values, and a cut at every record boundary: one line or a valid result."""
    from edf_factory import MAIN_FIELDS, SIGNAL_FIELDS

    real = (shared_dir / "data" / "tuh_real_snippets" / "00009578_s002_t001.edf").read_bytes()
    ns = int(real[252:256])
    cases = []
    for value in ("0", "-1", "abc", "1e308", "", "\xe9"):
        raw = value.encode("latin-1")
        cases += [set_field(real, name, raw) for name in MAIN_FIELDS]
        for sig in (0, ns - 1):
            cases += [set_field(real, name, raw, sig, ns) for name, _ in SIGNAL_FIELDS]
    header = 256 * (ns + 1)
    n_rec = int(real[236:244])
    rec = (len(real) - header) // n_rec
    cases += [real[: header + k * rec] for k in range(n_rec)]
    kinds = {"valid": 0, "error": 0}
    for data in cases:
        out = check(("edf", data))
        assert out.kind != "finding", out.detail
        kinds[out.kind] += 1
    # the text fields and the last (non-EEG) signal may take any value; the rest must fail
    assert kinds["error"] > 100 and kinds["valid"] > 10, kinds
