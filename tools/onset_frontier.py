"""How much earlier a model could call seizures by its operating point alone (issue #12, onsets).

Reads a model's ``_sel5o`` trials (``operating_point_K_sel5o.trials.json.gz``: every point of the
grid, scored on the five SELECT v2 voices and the OD bound, no decoding) and reports, among the
points the protocol could choose (mean false alarms over the voices <= ``--max-fa``, flagged time
<= ``--max-flag-ratio`` x the reference's on every voice, OD <= ``--max-od-fa``), the best SELECT v2
point and the point with the earliest detections whose SELECT v2 is within ``--within`` points
of it. Latency is the mean over the voices of each voice's median detection latency (s).

Chooses nothing: it measures whether the postprocessor can buy earlier onsets cheaply, or
whether the delay is the decoder's rise time.

``--matched REF:CAND`` compares two models' onsets at the same sensitivity (pilot 116): a model
that finds fewer seizures finds the easier, earlier ones, so chosen points' onsets mix the two.
For each pair, each model's earliest eligible point at or above the lower of the two best SELECT
v2 figures, and the candidate's onset minus the reference's.

Usage::

    python tools/onset_frontier.py k53s15a k53s16a --out tools/results/onset_frontier_k53.json
    python tools/onset_frontier.py --suffix _sel5mo --matched k53es12a:k66s12a k53es13a:k66s13a
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

VOICES = ("SS", "XS", "XCC", "XT3", "XT4")
#: The protocol's limits on an eligible point (mean FA/24 h, flagged-time ratio, OD FA/24 h).
LIMITS = {"max_fa": 5.0, "max_flag_ratio": 2.0, "max_od_fa": 1.0}


def _row(trial: dict) -> dict:
    cfg = trial["corpora"]["SS"]["config"]
    od = trial.get("bounds", {}).get("OD")
    return {
        "select_v2": round(trial["sensitivity"], 2),
        "latency_s": round(trial["latency_median_s"], 2),
        "fa_per_24h": round(trial["fa_per_24h"], 2),
        "od_found": None if od is None else od["hits"],
        "point": f"top-{cfg['top_k']} >= {cfg['threshold_on']} "
                 + (f"cusum {cfg['cusum_h']:g}" if cfg.get("cusum_h") else f"x{cfg['onset_epochs']}"),
    }


def _choose(trials: list[dict], within: float, max_fa: float, max_flag_ratio: float,
            max_od_fa: float) -> tuple[dict, dict] | None:  # fmt: skip
    """(best, earliest within ``within`` points of it) as trials, or None (:func:`frontier`)."""
    from rt_eeg.tuning import choose_trial, flag_ratio_of

    timed = [t for t in trials if all(t["corpora"][v]["latency_median_s"] is not None for v in VOICES)]
    kw = dict(max_flag_ratio=max_flag_ratio, max_voice_fa={"OD": max_od_fa})
    best = timed[choose_trial(timed, max_fa, **kw)] if timed else None
    if best is None or best["fa_per_24h"] > max_fa or flag_ratio_of(best) > max_flag_ratio:
        return None  # choose_trial's fallback (fewest false alarms) is not an eligible point
    return best, timed[choose_trial(timed, max_fa, sens_slack=within, **kw)]


def frontier(trials: list[dict], within: float, **limits) -> dict | None:
    """``{best, earliest_within, latency_gain_s}`` by the protocol's own choice
    (:func:`rt_eeg.tuning.choose_trial`; ``within`` is its latency clause's ``sens_slack``), among
    the trials whose every voice detected something (a latency to compare); None when no trial
    meets the limits (:data:`LIMITS`, each overridable by keyword). ``trials``: a voice-averaged
    pool (``sensitivity``, ``fa_per_24h`` and ``latency_median_s`` the means over ``corpora``; OD
    in ``bounds``)."""
    chosen = _choose(trials, within, **(LIMITS | limits))
    if chosen is None:
        return None
    b, e = _row(chosen[0]), _row(chosen[1])
    return {"best": b, "earliest_within": e, "latency_gain_s": round(b["latency_s"] - e["latency_s"], 2)}


def matched(ref: list[dict], cand: list[dict], **limits) -> dict | None:
    """Two models' onsets at the same sensitivity: each one's earliest eligible point (the limits
    of :func:`frontier`) at or above ``floor``, the lower of their best SELECT v2 figures;
    ``{floor, reference, candidate, onset_difference_s}`` (candidate minus reference), or None
    when either has no eligible point."""
    limits = LIMITS | limits
    bests = [_choose(t, 0.0, **limits) for t in (ref, cand)]
    if None in bests:
        return None
    floor = min(b[0]["sensitivity"] for b in bests)
    # the earliest within (own best - floor) points of the own best: at or above the floor
    r, c = (_row(_choose(t, b[0]["sensitivity"] - floor, **limits)[1]) for t, b in zip((ref, cand), bests, strict=True))
    return {"floor": round(floor, 2), "reference": r, "candidate": c,
            "onset_difference_s": round(c["latency_s"] - r["latency_s"], 2)}  # fmt: skip


def load_trials(results: str, name: str, suffix: str) -> list[dict] | None:
    """``operating_point_{name}{suffix}``'s stored trials, or None (said on stderr)."""
    path = Path(results) / f"operating_point_{name}{suffix}.trials.json.gz"
    try:
        return json.loads(gzip.open(path).read())["trials_pool"]
    except (OSError, ValueError, KeyError) as err:
        print(f"onset_frontier: {path}: {err}", file=sys.stderr)
        return None


def _matched_main(args) -> int:
    out = {"suffix": args.suffix, "pairs": {}}
    for pair in args.matched:
        ref_name, sep, cand_name = pair.partition(":")
        if not sep or not ref_name or not cand_name:
            print(f"onset_frontier: --matched {pair!r}: expected REF:CAND", file=sys.stderr)
            return 2
        ref, cand = load_trials(args.results, ref_name, args.suffix), load_trials(args.results, cand_name, args.suffix)
        if ref is None or cand is None:
            return 2
        m = matched(ref, cand, max_fa=args.max_fa, max_flag_ratio=args.max_flag_ratio, max_od_fa=args.max_od_fa)
        out["pairs"][pair] = m
        if m is None:  # recorded as null, left out of the mean (as judge_recipes' paired onsets)
            print(f"onset_frontier: {pair}: no eligible point", file=sys.stderr)
            continue
        print(f"{pair}: at >= {m['floor']} %: {ref_name} {m['reference']['latency_s']} s, {cand_name} "
              f"{m['candidate']['latency_s']} s ({m['onset_difference_s']:+.2f} s)")  # fmt: skip
    diffs = [m["onset_difference_s"] for m in out["pairs"].values() if m is not None]
    if not diffs:
        return 2
    out["mean_onset_difference_s"] = round(sum(diffs) / len(diffs), 2)
    out["pairs_read"] = len(diffs)
    print(f"mean onset difference at matched sensitivity ({len(diffs)} of {len(out['pairs'])} pairs): "
          f"{out['mean_onset_difference_s']:+.2f} s")  # fmt: skip
    if args.out:
        from rt_eeg.io.atomic import write_json_atomic

        write_json_atomic(args.out, out)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", help="names K of tools/results/operating_point_K{SUFFIX}.trials.json.gz")
    ap.add_argument("--matched", nargs="+", metavar="REF:CAND",
                    help="compare each pair's onsets at the lower of their best SELECT v2 figures "
                         "(a pair without an eligible point is null, left out of the mean)")
    ap.add_argument("--results", default="tools/results", help="folder of the trials files")
    ap.add_argument("--within", type=float, default=3.0, help="SELECT v2 points given up at most")
    for key, value in LIMITS.items():
        ap.add_argument("--" + key.replace("_", "-"), type=float, default=value)
    ap.add_argument("--suffix", default="_sel5o",
                    help="the trials files' suffix: operating_point_K{SUFFIX}.trials.json.gz (default _sel5o)")
    ap.add_argument("--out", help="JSON to write")
    args = ap.parse_args(argv)
    if args.matched:
        return _matched_main(args)
    if not args.models:
        ap.error("name models, or pairs with --matched")
    out = {"within": args.within, "suffix": args.suffix, "models": {}}
    for k in args.models:
        path = Path(args.results) / f"operating_point_{k}{args.suffix}.trials.json.gz"
        trials = load_trials(args.results, k, args.suffix)
        if trials is None:
            return 2
        f = frontier(trials, args.within, max_fa=args.max_fa, max_flag_ratio=args.max_flag_ratio,
                     max_od_fa=args.max_od_fa)  # fmt: skip
        if f is None:
            print(f"onset_frontier: {path}: no eligible point", file=sys.stderr)
            return 2
        out["models"][k] = f
        print(f"{k}: best {f['best']['select_v2']} % at {f['best']['latency_s']} s ({f['best']['point']}); "
              f"earliest within {args.within:g}: {f['earliest_within']['select_v2']} % at "
              f"{f['earliest_within']['latency_s']} s ({f['earliest_within']['point']})")  # fmt: skip
    if args.out:
        from rt_eeg.io.atomic import write_json_atomic

        write_json_atomic(args.out, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
