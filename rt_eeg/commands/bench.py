"""``rt-eeg bench``: run the benchmarks in tools/ and collect their JSON."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from rt_eeg.errors import RtEegError

ROOT = Path(__file__).resolve().parents[2]
#: Every tools/bench_NAME.py (a test checks that none is left out).
NAMES = ("features", "decoder", "pipeline", "live", "monitor", "evaluate", "xsim", "tuning",
         "startup", "ward")  # fmt: skip
HELP = f"run the benchmarks in tools/ ({', '.join(NAMES)}) and collect their JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"which ({', '.join(NAMES)}; default all)"
    )
    parser.add_argument(
        "--results", default=str(ROOT / "tools" / "results"), help="folder for the JSON files"
    )


def run(args: argparse.Namespace) -> int:
    from rt_eeg.io.atomic import write_json_atomic

    unknown = [n for n in args.names if n not in NAMES]
    if unknown:
        raise RtEegError(
            f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(NAMES)}"
        )
    results = Path(args.results)
    summary, failed = {}, []
    for name in args.names or NAMES:
        script = ROOT / "tools" / f"bench_{name}.py"
        if not script.is_file():
            raise RtEegError(
                "benchmark script not found (benchmarks need a source checkout)", script
            )
        out = results / f"bench_{name}.json"
        print(f"== bench {name}", flush=True)
        rc = subprocess.run([sys.executable, str(script), "--out", str(out)]).returncode
        if rc != 0 or not out.is_file():
            failed.append(name)
            continue
        summary[name] = json.loads(out.read_text())
    write_json_atomic(results / "bench_all.json", summary)
    print(
        f"wrote {results / 'bench_all.json'}" + (f"; failed: {', '.join(failed)}" if failed else "")
    )
    return 1 if failed else 0
