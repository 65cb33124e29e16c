"""Benchmark ``rt-eeg evaluate`` end to end on a simulated corpus; write JSON.

Simulates a small TUSZ-layout corpus (22-channel recordings), then runs the complete detector
(EDF reading and resampling, features, decoder, postprocessor, output files) with one worker
on one core and scores it. Reports the real-time factor per core (signal seconds / compute
seconds, model loading excluded) and overall (including the one-off model load and scoring).

With ``--feature-cache`` it runs the corpus three times (no cache; a cold cache being filled;
a warm cache, as a second model's run would) and reports each one's factor, the cache's size
per hour of EEG, and whether the three runs' outputs are byte-identical.

Usage: python tools/bench_evaluate.py [--out tools/results/bench_evaluate.json] [--hours 1]
       [--feature-cache]
"""

from __future__ import annotations

import os

for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.config import DEFAULT_MODEL, load_postprocess_config  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_evaluate.json"))
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--hours", type=float, default=1.0, help="hours of simulated EEG (default 1)")
    ap.add_argument("--corpus", help="use this corpus instead of simulating one")
    ap.add_argument("--feature-cache", action="store_true",
                    help="measure runs without, with a cold and with a warm feature cache")
    args = ap.parse_args()
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    except (AttributeError, OSError):
        pass
    from rt_eeg.evaluate import evaluate
    from rt_eeg.io.corpus import find_recordings

    tmp = Path(tempfile.mkdtemp(prefix="bench_evaluate_"))
    model = Path(args.model)
    untrained = not (model / "model.keras").is_file()
    if untrained:
        from rt_eeg.decoder import write_untrained_model

        model = write_untrained_model(tmp / "model")
    if args.corpus:
        corpus = Path(args.corpus)
    else:
        from rt_eeg.sim.corpus import simulate_corpus

        corpus = tmp / "corpus"
        simulate_corpus(
            corpus, args.hours, 3, seed=11, sfreq=256, montage="01_tcp_ar", progress=False
        )
    items = find_recordings(corpus)
    if args.feature_cache:
        return _cache_bench(items, model, untrained, tmp, args.out)
    t0 = time.perf_counter()
    report = evaluate(
        items, tmp / "ev", model, post=load_postprocess_config(model), workers=1, progress=False
    )
    wall = time.perf_counter() - t0
    result = {
        "model": str(model) + (" (untrained, same architecture)" if untrained else ""),
        "recordings": report["n_recordings"], "hours": round(report["hours"], 3),
        "real_time_factor_per_core": round(report["real_time_factor_per_core"] or 0, 1),
        "real_time_factor_overall": round(report["hours"] * 3600 / wall, 1),
        "wall_s": round(wall, 2), "failed": len(report["failed"]), "load_avg": os.getloadavg(),
        "target_per_core": 300,
    }  # fmt: skip
    write_json_atomic(args.out, result)
    print(json.dumps(result, indent=2))
    return 0


def _cache_bench(items, model: Path, untrained: bool, tmp: Path, out: str) -> int:
    from rt_eeg.evaluate import evaluate

    runs, outputs = {}, {}
    for name, cache in (("no_cache", None), ("cold_cache", tmp / "fc"), ("warm_cache", tmp / "fc")):
        t0 = time.perf_counter()
        report = evaluate(items, tmp / f"ev_{name}", model, post=load_postprocess_config(model), workers=1,
                          progress=False, feature_cache=cache)  # fmt: skip
        wall = time.perf_counter() - t0
        runs[name] = {"real_time_factor_per_core": round(report["real_time_factor_per_core"] or 0, 1),
                      "compute_s": round(report["compute_s"], 2),
                      "wall_s": round(wall, 2), "failed": len(report["failed"])}  # fmt: skip
        outputs[name] = {p.name: p.read_bytes() for p in sorted((tmp / f"ev_{name}").glob("*"))
                         if p.suffix in (".hyp", ".csv_bi", ".npz")}  # fmt: skip
    hours = report["hours"]
    cache_bytes = sum(p.stat().st_size for p in (tmp / "fc").glob("*.npz"))
    result = {
        "model": str(model) + (" (untrained, same architecture)" if untrained else ""),
        "recordings": report["n_recordings"], "hours": round(hours, 3), "runs": runs,
        "warm_over_no_cache_compute": round(runs["warm_cache"]["compute_s"] / runs["no_cache"]["compute_s"], 3),
        "cache_mb_per_hour": round(cache_bytes / 1e6 / hours, 1),
        "outputs_identical": outputs["no_cache"] == outputs["cold_cache"] == outputs["warm_cache"],
        "load_avg": os.getloadavg(),
    }  # fmt: skip
    write_json_atomic(out, result)
    print(json.dumps(result, indent=2))
    return 0 if result["outputs_identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
