"""Benchmark the independently written generators (rt_eeg/xsim); write JSON.

For each generator: render time per simulated hour (three 15-minute recordings at 256 Hz,
three patients, one seizure each, the median), and the peak resident memory of a child
process that renders one hour at 256 Hz. One thread for BLAS/FFT; the machine may be shared:
the JSON records the load average at start and end.

Usage: python tools/bench_xsim.py [--out tools/results/bench_xsim.json] [--generators nmm,spec] [--merge]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.xsim.corpus import GENERATORS, load_generator  # noqa: E402

SFREQ = 256.0


def render_seconds(name: str, seconds: float, seed: int) -> float:
    gen = load_generator(name)
    patient = gen.draw_patient(np.random.default_rng([seed, 1]))
    t0 = time.perf_counter()
    out = gen.render(patient, seconds, SFREQ, [(seconds / 3, seconds / 3 + 60.0)],
                     np.random.default_rng([seed, 2]))  # fmt: skip
    dt = time.perf_counter() - t0
    out.check(seconds, SFREQ, 1)
    return dt


def peak_rss_mb(name: str) -> float:
    """Peak RSS (MB) of a fresh process rendering one hour of ``name`` at 256 Hz."""
    code = (
        "import importlib.util as u, resource; "
        f"s = u.spec_from_file_location('bench_xsim', {str(Path(__file__).resolve())!r}); "
        "m = u.module_from_spec(s); s.loader.exec_module(m); "
        f"m.render_seconds({name!r}, 3600.0, 0); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1]) / 1024.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_xsim.json"))
    ap.add_argument("--generators", default=",".join(GENERATORS))
    ap.add_argument("--merge", action="store_true",
                    help="keep the other generators' rows of an existing --out")  # fmt: skip
    args = ap.parse_args(argv)
    names = [g for g in args.generators.split(",") if g]
    load_start = os.getloadavg()
    rows = {}
    for name in names:
        times = [render_seconds(name, 900.0, seed) for seed in (11, 12, 13)]
        rows[name] = {
            "seconds_per_simulated_hour": round(4 * float(np.median(times)), 2),
            "x_realtime": round(900.0 / float(np.median(times)), 1),
            "peak_rss_mb_one_hour": round(peak_rss_mb(name), 1),
            "description": load_generator(name).DESCRIPTION,
        }
        print(f"{name}: {rows[name]['seconds_per_simulated_hour']} s per simulated hour, "
              f"peak {rows[name]['peak_rss_mb_one_hour']} MB")  # fmt: skip
    if args.merge and Path(args.out).is_file():
        rows = json.loads(Path(args.out).read_text())["generators"] | rows
    doc = {
        "benchmark": "bench_xsim",
        "sfreq": SFREQ,
        "generators": rows,
        "machine": {"python": platform.python_version(), "cpu_count": os.cpu_count(),
                    "load_avg_start": load_start, "load_avg_end": os.getloadavg()},
        "self_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }  # fmt: skip
    write_json_atomic(args.out, doc)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
