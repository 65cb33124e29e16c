"""How much earlier a model could call seizures by its operating point alone (issue #12, onsets).

Reads a model's ``_sel5o`` trials (``operating_point_K_sel5o.trials.json.gz``: every point of the
grid, scored on the five SELECT v2 voices and the OD bound, no decoding) and reports, among the
points the protocol could choose (mean false alarms over the voices <= ``--max-fa``, flagged time
<= ``--max-flag-ratio`` x the reference's on every voice, OD <= ``--max-od-fa``), the best SELECT v2
point and the point with the earliest detections whose SELECT v2 is within ``--within`` points
of it. Latency is the mean over the voices of each voice's median detection latency (s).

Chooses nothing: it measures whether the postprocessor can buy earlier onsets cheaply, or
whether the delay is the decoder's rise time.

Usage::

    python tools/onset_frontier.py k53s15a k53s16a --out tools/results/onset_frontier_k53.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

VOICES = ("SS", "XS", "XCC", "XT3", "XT4")


def eligible_points(trials: list[dict], *, max_fa: float = 5.0, max_flag_ratio: float = 2.0,
                    max_od_fa: float = 1.0) -> list[dict]:  # fmt: skip
    """The trials the protocol could choose, each as ``{select_v2, latency_s, fa_per_24h,
    od_found, point}``; trials with a voice that found nothing have no latency and are left out."""
    rows = []
    for tr in trials:
        c = tr["corpora"]
        od = tr.get("bounds", {}).get("OD")
        lats = [c[v]["latency_median_s"] for v in VOICES]
        if any(lat is None for lat in lats):
            continue
        fa = sum(c[v]["fa_per_24h"] for v in VOICES) / len(VOICES)
        if fa > max_fa or any(c[v]["flag_ratio"] > max_flag_ratio for v in VOICES):
            continue
        if od is not None and od["fa_per_24h"] > max_od_fa:
            continue
        cfg = c["SS"]["config"]
        rows.append({
            "select_v2": round(sum(c[v]["sensitivity"] for v in VOICES) / len(VOICES), 2),
            "latency_s": round(sum(lats) / len(lats), 2),
            "fa_per_24h": round(fa, 2),
            "od_found": None if od is None else od["hits"],
            "point": f"top-{cfg['top_k']} >= {cfg['threshold_on']} x{cfg['onset_epochs']}",
        })  # fmt: skip
    return rows


def frontier(rows: list[dict], within: float) -> dict:
    """``{best, earliest_within}``: the best SELECT v2 point (earliest on ties) and the earliest
    point within ``within`` points of it (best SELECT v2 on ties)."""
    best = max(rows, key=lambda r: (r["select_v2"], -r["latency_s"]))
    near = [r for r in rows if r["select_v2"] >= best["select_v2"] - within]
    early = min(near, key=lambda r: (r["latency_s"], -r["select_v2"]))
    return {"best": best, "earliest_within": early,
            "latency_gain_s": round(best["latency_s"] - early["latency_s"], 2)}  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="+", help="names K of tools/results/operating_point_K_sel5o.trials.json.gz")
    ap.add_argument("--results", default="tools/results", help="folder of the trials files")
    ap.add_argument("--within", type=float, default=3.0, help="SELECT v2 points given up at most")
    ap.add_argument("--max-fa", type=float, default=5.0)
    ap.add_argument("--max-flag-ratio", type=float, default=2.0)
    ap.add_argument("--max-od-fa", type=float, default=1.0)
    ap.add_argument("--out", help="JSON to write")
    args = ap.parse_args(argv)
    out = {"within": args.within, "models": {}}
    for k in args.models:
        path = Path(args.results) / f"operating_point_{k}_sel5o.trials.json.gz"
        try:
            trials = json.loads(gzip.open(path).read())["trials_pool"]
        except (OSError, ValueError, KeyError) as err:
            print(f"onset_frontier: {path}: {err}", file=sys.stderr)
            return 2
        rows = eligible_points(trials, max_fa=args.max_fa, max_flag_ratio=args.max_flag_ratio,
                               max_od_fa=args.max_od_fa)  # fmt: skip
        if not rows:
            print(f"onset_frontier: {path}: no eligible point", file=sys.stderr)
            return 2
        f = out["models"][k] = frontier(rows, args.within)
        print(f"{k}: best {f['best']['select_v2']} % at {f['best']['latency_s']} s ({f['best']['point']}); "
              f"earliest within {args.within:g}: {f['earliest_within']['select_v2']} % at "
              f"{f['earliest_within']['latency_s']} s ({f['earliest_within']['point']})")  # fmt: skip
    if args.out:
        from rt_eeg.io.atomic import write_json_atomic

        write_json_atomic(args.out, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
