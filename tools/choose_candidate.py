"""Apply the cross-generator protocol's rule to the candidates' tuned figures (issue #12).

The rule is ``tools/results/xgen_protocol.md`` (rule 1-3 and amendment 1). Every candidate
comes with the JSON ``tools/operating_point.py`` wrote for it on the SELECT pool (every trial
of the strict grid, ``trials_pool``) and the JSON ``tools/real_checks.py`` wrote for it:

1. veto: CHB-MIT chb01 ictal vs pre-ictal AUC (patient context) below 0.5;
2. F = the target (5 FA/24 h) when every candidate reaches it, else the lowest rate every
   candidate reaches on the grid;
3. each candidate's best trial at <= F FA/24 h: highest sensitivity, then fewer false alarms,
   then earlier onset; the winner is the best of those;
4. the winner replaces the reference (K0) if it beats the reference's sensitivity at the same
   F by >= 5 percentage points, or equals it exactly with fewer false alarms (a smaller gain
   is within run-to-run noise, even with fewer false alarms).

Usage::

    python tools/choose_candidate.py --reference K0 \\
        --candidate K0=/work/sim/recipe/op_k0.json:/work/sim/recipe/rc_default.json \\
        --candidate K2=/work/sim/recipe/op_k2.json:/work/sim/recipe/rc_k2.json \\
        --out tools/results/xgen_round1.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from operating_point import load_result

from rt_eeg.io.atomic import write_json_atomic

VETO_PATIENT = "chb01"
VETO_AUC = 0.5
MARGIN_PP = 5.0


def _key(trial: dict) -> tuple:
    """Sort key: higher sensitivity, fewer false alarms, earlier onset."""
    lat = trial.get("latency_median_s")
    return (-trial["sensitivity"], trial["fa_per_24h"], lat if lat is not None else 1e9)


def best_within(trials: list[dict], fa: float) -> dict | None:
    """The best trial with at most ``fa`` false alarms per 24 h, or None."""
    ok = [t for t in trials if t["fa_per_24h"] <= fa + 1e-9]
    return min(ok, key=_key) if ok else None


def choose(cands: dict[str, dict], reference: str, target_fa: float) -> dict:
    """The rule on ``{name: {"trials": [...], "chb01_auc": float}}``; returns the decision."""
    eligible = {n: c for n, c in cands.items() if c["chb01_auc"] >= VETO_AUC}
    if not eligible:
        raise SystemExit("choose_candidate: every candidate is vetoed on chb01")
    floor = max(min(t["fa_per_24h"] for t in c["trials"]) for c in eligible.values())
    fa = target_fa if floor <= target_fa else floor
    best = {n: best_within(c["trials"], fa) for n, c in eligible.items()}
    ranked = sorted(best, key=lambda n: _key(best[n]))
    winner = ranked[0]
    ref = best_within(cands[reference]["trials"], fa)
    w = best[winner]
    replaces = winner != reference and (
        w["sensitivity"] >= ref["sensitivity"] + MARGIN_PP
        or (w["sensitivity"] == ref["sensitivity"] and w["fa_per_24h"] < ref["fa_per_24h"])
    )
    return {
        "compared_at_fa_per_24h": fa,
        "vetoed": sorted(set(cands) - set(eligible)),
        "ranking": ranked,
        "best": {n: {k: best[n][k] for k in best[n] if k != "config"} | {
            "threshold_on": best[n]["config"]["threshold_on"],
            "onset_epochs": best[n]["config"]["onset_epochs"],
            "top_k": best[n]["config"]["top_k"],
            "rise_delta": best[n]["config"]["rise_delta"]} for n in ranked},
        "winner": winner,
        "replaces_reference": replaces,
        "margin_pp": w["sensitivity"] - ref["sensitivity"],
    }  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidate", action="append", required=True,
                    help="NAME=OPERATING_POINT_JSON:REAL_CHECKS_JSON")  # fmt: skip
    ap.add_argument("--reference", default="K0", help="today's default (default K0)")
    ap.add_argument("--target-fa", type=float, default=5.0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    cands = {}
    for spec in args.candidate:
        name, _, rest = spec.partition("=")
        op_path, _, rc_path = rest.rpartition(":")
        op = load_result(op_path)
        rc = json.loads(Path(rc_path).read_text("utf-8"))
        auc = rc["chbmit"]["patients"][VETO_PATIENT]["patient_context"]["auc"]
        cands[name] = {"trials": op["trials_pool"], "chb01_auc": auc, "op": op_path}
    if args.reference not in cands:
        raise SystemExit(f"choose_candidate: reference {args.reference!r} not among the candidates")
    out = choose(cands, args.reference, args.target_fa)
    out["chb01_auc"] = {n: c["chb01_auc"] for n, c in cands.items()}
    out["inputs"] = args.candidate
    write_json_atomic(args.out, out)
    print(f"compared at <= {out['compared_at_fa_per_24h']:.2f} FA/24 h on the SELECT pool")
    for n in out["ranking"]:
        b = out["best"][n]
        print(
            f"  {n}: {b['sensitivity']:.1f} % at {b['fa_per_24h']:.2f} FA/24 h, onset "
            f"{b.get('latency_median_s') or float('nan'):.1f} s (top-{b['top_k']} >= "
            f"{b['threshold_on']} for {b['onset_epochs']}, rise {b['rise_delta']})"
        )
    print(
        f"winner {out['winner']}: {out['margin_pp']:+.1f} pp against {args.reference}; "
        f"{'replaces' if out['replaces_reference'] else 'does not replace'} it"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
