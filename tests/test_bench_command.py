"""``rt-eeg bench``: it knows every benchmark in tools/ and names an unknown one."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from rt_eeg.commands import bench
from rt_eeg.errors import RtEegError

ROOT = Path(__file__).resolve().parents[1]


def test_every_benchmark_script_is_run_by_rt_eeg_bench():
    scripts = {p.stem[len("bench_"):] for p in (ROOT / "tools").glob("bench_*.py")}
    assert scripts == set(bench.NAMES)


def test_an_unknown_benchmark_is_named(tmp_path):
    with pytest.raises(RtEegError, match="unknown benchmark.*nope"):
        bench.run(argparse.Namespace(names=["nope"], results=str(tmp_path)))
    assert not any(tmp_path.iterdir())
