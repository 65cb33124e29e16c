"""Held-out figures of several models side by side, from their ``rt-eeg evaluate`` reports.

For every model (``--model NAME=PREFIX``: the evaluation of corpus C is ``PREFIX_C/report.json``)
and corpus (``--corpora U,U2,...``): OVLP sensitivity and false alarms per 24 h at the model's
shipped operating point, TAES sensitivity, onset latency (median, p90), and from the report's
DET curve the best sensitivity reached within each of ``--fa`` false-alarm rates (the
threshold sweep at the shipped confirmation, from the strictest threshold down to where the
OVLP curve folds back; what a stricter or looser point would give).
Chooses nothing: it reads reports of corpora that were held out of every choice.

Usage::

    python tools/compare_heldout.py --model K6=/work/sim/recipe/eval --model K0=/work/sim/recipe/evalK0 \\
        --corpora XR,XRB,U,U2,R,O --out tools/results/heldout_k6_k0.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from model_card import _summary  # noqa: E402

from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402


def _r(v, nd: int = 1):
    return None if v is None else round(float(v), nd)


def _unfolded(det: list[dict]) -> list[dict]:
    """The DET points from the strictest threshold down to where the curve folds back.

    At loose thresholds OVLP events merge into a few long ones per recording, so false alarms
    fall again while sensitivity nears 100 %: those points are not operating points.
    """
    pts = sorted((p for p in det if p.get("sensitivity") is not None),
                 key=lambda p: -p["threshold_on"])  # fmt: skip
    out: list[dict] = []
    for p in pts:
        if out and p["fa_per_24h"] < out[-1]["fa_per_24h"] - 1e-9:
            break
        out.append(p)
    return out


def figures(report: dict, fa_rates: list[float]) -> dict:
    """The shipped point's figures and the DET curve's best sensitivity within each rate."""
    s = _summary(report, nd=1)
    det = _unfolded(report.get("det_curve") or [])
    within = {}
    for fa in fa_rates:
        ok = [p for p in det if p["fa_per_24h"] <= fa + 1e-9]
        best = max(ok, key=lambda p: (p["sensitivity"], -p["fa_per_24h"]), default=None)
        within[f"{fa:g}"] = None if best is None else {
            "sensitivity": _r(best["sensitivity"]), "fa_per_24h": _r(best["fa_per_24h"]),
            "threshold_on": best.get("threshold_on")}  # fmt: skip
    return {
        "hours": s["hours"], "seizures": s["seizures"],
        "ovlp_sensitivity": s["ovlp_sensitivity"], "ovlp_fa_per_24h": s["ovlp_fa_per_24h"],
        "taes_sensitivity": s["taes_sensitivity"],
        "onset_latency_median_s": s["onset_latency_s"].get("median"),
        "onset_latency_p90_s": s["onset_latency_s"].get("p90"),
        "det_best_within_fa": within,
    }  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", action="append", required=True, help="NAME=PREFIX (PREFIX_C/report.json)")
    p.add_argument("--corpora", required=True, help="comma-separated corpus names")
    p.add_argument("--fa", default="5,14,30", help="false-alarm rates for the DET column (default 5,14,30)")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    rates = [float(x) for x in args.fa.split(",")]
    doc: dict = {"command": " ".join(sys.argv), "fa_rates": rates, "models": {}}
    try:
        for spec in args.model:
            name, sep, prefix = spec.partition("=")
            if not (sep and name and prefix):
                raise RtEegError(f"--model {spec!r}: expected NAME=PREFIX")
            doc["models"][name] = {}
            for c in args.corpora.split(","):
                rp = Path(f"{prefix}_{c}") / "report.json"
                if not rp.is_file():
                    print(f"compare_heldout: {rp} not found; {name} {c} left out", file=sys.stderr)
                    continue
                try:
                    rep = json.loads(rp.read_text("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as err:
                    raise RtEegError(f"not a report ({err})", rp) from None
                doc["models"][name][c] = figures(rep, rates)
    except RtEegError as err:
        print(f"compare_heldout: {err}", file=sys.stderr)
        return 2
    write_json_atomic(args.out, doc)
    cols = " | ".join(f"best within {r:g} FA/24 h" for r in rates)
    print(f"| corpus | model | OVLP sens. at the shipped point | FA/24 h | TAES sens. | onset median / p90 | {cols} |")
    print("|---" * (6 + len(rates)) + "|")
    for c in args.corpora.split(","):
        for name, per in doc["models"].items():
            f = per.get(c)
            if not f:
                continue
            cells = [f["det_best_within_fa"][f"{r:g}"] for r in rates]
            det = " | ".join("-" if b is None else f"{b['sensitivity']} % at {b['fa_per_24h']}"
                             for b in cells)  # fmt: skip
            print(f"| {c} ({f['hours']} h, {f['seizures']} seizures) | {name} | {f['ovlp_sensitivity']} % | "
                  f"{f['ovlp_fa_per_24h']} | {f['taes_sensitivity']} % | {f['onset_latency_median_s']} / "
                  f"{f['onset_latency_p90_s']} s | {det} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
