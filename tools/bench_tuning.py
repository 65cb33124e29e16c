"""Benchmark the operating-point grid search (rt_eeg.tuning.run_trials) on stored outputs.

Times the strict grid of ``tools/operating_point.py`` (140 configurations) over a synthetic
corpus of stored decoder outputs three ways, in one process, one after the other, and checks
that all three give the same figures:

- ``bulk``: what the tuner does (since 2026-11-30): each recording's score series computed once
  per (smoothing, top-k), and each configuration's events from it in bulk
  (:mod:`rt_eeg.scored_events`);
- ``shared``: the same series, then the postprocessor epoch by epoch (the tuner until then);
- ``plain``: the postprocessor per configuration from the probabilities (before that).

and the same grid with a learned cross-channel stage in the base configuration (random weights
of the trainer's geometry; ``--stage-hours`` of the corpus): ``bulk`` (its scores computed once
per recording and stage, since 2026-12-01) against ``plain`` (once per configuration, before).

Usage::

    python tools/bench_tuning.py [--hours 6] [--recordings 6] [--out tools/results/bench_tuning.json]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from operating_point import strict_grid  # noqa: E402

import rt_eeg.tuning as tuning  # noqa: E402
from rt_eeg.cross_channel import CrossChannelConfig  # noqa: E402
from rt_eeg.io.annotations import Annotation, Event  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.postprocess import PostprocessConfig, postprocess_recording  # noqa: E402
from rt_eeg.scoring.nedc import prepare_events  # noqa: E402

CH = [f"C{i}" for i in range(22)]


def corpus(hours: float, n_rec: int, seed: int = 0) -> tuple[list, list]:
    """Stored outputs: background near 0.05 with a restless stretch, a seizure every ~40 min."""
    rng = np.random.default_rng(seed)
    refs, stored = [], []
    n = int(hours * 3600 / n_rec)
    for _ in range(n_rec):
        p = np.clip(rng.normal(0.05, 0.04, (n, len(CH))), 0, 1)
        events = []
        for s in range(600, n - 1300, 2400):
            p[s : s + 60, :6] = rng.uniform(0.6, 1.0, (60, 6))
            events.append(Event(float(s), float(s + 60), "seiz"))
            a = s + 1200  # an artifact between seizures
            p[a : a + 20, :4] = rng.uniform(0.9, 0.999, (20, 4))
        refs.append(prepare_events(Annotation(None, events, float(n))))
        stored.append({"epoch_starts": np.arange(n, dtype=np.float64), "probs": p,
                       "ch_names": CH, "duration": float(n)})  # fmt: skip
    return refs, stored


def timed_trials(grid, refs, stored, *, bulk: bool, plain: bool = False) -> tuple[list, float]:
    """run_trials on fresh copies of ``stored`` (no score series cached yet), bulk events or
    per epoch, from the shared series or (``plain``) the postprocessor from the probabilities:
    (trials, seconds)."""
    fresh = [{k: v for k, v in s.items() if k[0] != "_"} for s in stored]
    saved = tuning._decisions
    if plain:
        tuning._decisions = lambda cfg, s: postprocess_recording(
            s["epoch_starts"], s["probs"], s["ch_names"], cfg
        )
    tuning.BULK_EVENTS = bulk
    try:
        t = time.perf_counter()
        trials = tuning.run_trials(grid, refs, fresh)
        return trials, time.perf_counter() - t
    finally:
        tuning._decisions = saved
        tuning.BULK_EVENTS = True


def random_stage(seed: int = 0, epochs: int = 4, top_m: int = 4, hidden: int = 16) -> CrossChannelConfig:
    """A cross-channel stage of ``tools/train_cross_channel.py``'s default geometry, random weights."""
    rng = np.random.default_rng(seed)
    n_in = epochs * (top_m + 2)
    return CrossChannelConfig.from_arrays(rng.normal(0, 0.3, (n_in, hidden)), rng.normal(0, 0.3, hidden),
                                          rng.normal(0, 0.3, hidden), 0.0, epochs=epochs, top_m=top_m)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hours", type=float, default=6.0)
    ap.add_argument("--recordings", type=int, default=6)
    ap.add_argument("--stage-hours", type=float, default=2.0,
                    help="hours of the corpus timed with a learned stage (its old path is slow)")
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_tuning.json"))
    args = ap.parse_args(argv)
    refs, stored = corpus(args.hours, args.recordings)
    grid = strict_grid(PostprocessConfig())
    bulk, t_bulk = timed_trials(grid, refs, stored, bulk=True)
    shared, t_shared = timed_trials(grid, refs, stored, bulk=False)
    plain, t_plain = timed_trials(grid, refs, stored, bulk=False, plain=True)
    epochs = sum(len(s["epoch_starts"]) for s in stored)
    s_refs, s_stored = corpus(args.stage_hours, args.recordings, seed=1)
    s_grid = strict_grid(PostprocessConfig(cross_channel=random_stage()))
    s_bulk, ts_bulk = timed_trials(s_grid, s_refs, s_stored, bulk=True)
    s_plain, ts_plain = timed_trials(s_grid, s_refs, s_stored, bulk=False, plain=True)
    doc = {
        "benchmark": "tuning",
        "platform": platform.platform(), "cpu_count": os.cpu_count(),
        "corpus": {"hours": args.hours, "recordings": args.recordings, "channels": len(CH)},
        "configurations": len(grid),
        "bulk_s": round(t_bulk, 2),
        "shared_scores_s": round(t_shared, 2),
        "plain_s": round(t_plain, 2),
        "speedup": round(t_plain / t_bulk, 2),
        "speedup_over_shared": round(t_shared / t_bulk, 2),
        "us_per_epoch_config": {"bulk": round(1e6 * t_bulk / epochs / len(grid), 2),
                                "shared": round(1e6 * t_shared / epochs / len(grid), 2),
                                "plain": round(1e6 * t_plain / epochs / len(grid), 2)},
        "identical_figures": bulk == shared == plain,
        "learned_stage": {"hours": args.stage_hours, "configurations": len(s_grid),
                          "bulk_s": round(ts_bulk, 2), "plain_s": round(ts_plain, 2),
                          "speedup": round(ts_plain / ts_bulk, 2), "identical_figures": s_bulk == s_plain},
    }  # fmt: skip
    write_json_atomic(args.out, doc)
    print(f"{len(grid)} configurations on {args.hours} h: bulk {t_bulk:.1f} s, shared scores "
          f"{t_shared:.1f} s, plain {t_plain:.1f} s ({doc['speedup']}x), identical "
          f"{doc['identical_figures']}; with a learned stage on {args.stage_hours} h: bulk {ts_bulk:.1f} s, "
          f"plain {ts_plain:.1f} s, identical {s_bulk == s_plain}; wrote {args.out}")  # fmt: skip
    return 0 if doc["identical_figures"] and s_bulk == s_plain else 1


if __name__ == "__main__":
    sys.exit(main())
