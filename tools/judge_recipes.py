"""Judge a training recipe by the mean over its seeds (protocol amendments 15-17, issue #12).

One training run decides little: the same recipe with three seeds spread 11 points on the
generator-weighed SELECT. A recipe is therefore judged by the mean, over its seeds, of each
seed's SELECT mean (the unweighted mean of the per-corpus sensitivities at the seed's own tuned
point, ``figures.chosen.tune_*`` of the JSON ``tools/operating_point.py --weigh corpora``
wrote), against the reference recipe's mean:

1. veto: any seed with CHB-MIT chb01 ictal vs pre-ictal AUC (patient context) below 0.5;
2. margin = max(5 points, the larger of the two recipes' spreads (max - min over seeds) /
   sqrt(number of seeds));
3. the candidate replaces the reference iff its mean exceeds the reference's by more than the
   margin; a winning recipe ships its **median** seed (not its best: that is the lucky draw).

Usage::

    python tools/judge_recipes.py --reference K6=tools/results/operating_point_k6r_macro.json,...
        --candidate K9=tools/results/operating_point_k9_macro.json,... \\
        --real K9=tools/results/real_checks_k9.json,... --out tools/results/recipe_k9.json

``--paired MIN_MEAN:GAIN_S:MAX_LOSS`` (amendment 39, rule P) judges two recipes trained on the
same seeds, listed in the same order, seed by seed instead: the candidate replaces the reference
iff every paired difference of SELECT means is positive and their mean is at least MIN_MEAN, or
the mean paired onset difference is at least GAIN_S s earlier with a mean difference at most
MAX_LOSS points lower (the veto applies either way). Paired seeds share their initial weights
and data order, so a difference is the recipe's and not the draw's.

``--statistic det`` (amendment 42) judges by each seed's **DET mean** instead of its SELECT
mean: every voice's own DET frontier over the tuning grid's trials (its best sensitivity within
1, 2, 5, 10 and 20 false alarms per 24 h), averaged over those rates and then over the voices.
It reads the ranking at the top of each generator without tying every voice to one threshold,
and its seed spread is about half the SELECT mean's (K15's six seeds: sd 3.9 against 7.7 points;
K17's 6.4 against 14.7). Both figures are reported either way.

``--det-clause MIN_DET:MIN_SELECT:MAX_ONSET_S`` (amendment 45, with ``--paired``) adds a third
way to win: every paired DET-mean difference positive with a mean of at least MIN_DET points,
the mean paired SELECT difference at least MIN_SELECT and the mean paired onset difference at
most MAX_ONSET_S seconds.

``--paired-means MIN_DET:MIN_SELECT:MAX_ONSET_S:GAIN_S:MAX_LOSS:MIN_DET_B`` (amendment 48, six
seeds) is a paired rule of its own, on the means of the paired differences only (no pair need be
positive): the mean DET-mean difference at least MIN_DET with the mean SELECT difference at least
MIN_SELECT and the mean onset difference at most MAX_ONSET_S s; or onsets GAIN_S s earlier at a
SELECT loss of at most MAX_LOSS and a mean DET-mean difference of at least MIN_DET_B.

``--det-max-flag-ratio R`` (amendment 53) reads every DET mean under the flagged-time limit: on
each voice, only the trials whose time called seizure is at most R x the reference's seizure time
(OVLP counts an alarm that never ends as one hit and no false alarm).

``--real`` (optional, per recipe, in the seeds' order) applies the veto. ``--latency-clause
GAIN_S:MAX_LOSS`` (amendment 33) adds a second way to win: the seeds' mean onset (each seed's
mean over voices of the median decision-epoch onset at its point) at least GAIN_S s earlier than
the reference's, with a mean at most MAX_LOSS points lower.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from choose_candidate import best_within  # noqa: E402  (tools/, beside this file)
from operating_point import load_result  # noqa: E402

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.tuning import flag_ratio_of  # noqa: E402

#: False alarms per 24 h at which each voice's DET frontier is read (``--statistic det``)
DET_RATES = (1.0, 2.0, 5.0, 10.0, 20.0)
STATISTICS = {"select": "select_mean", "det": "det_mean"}
VETO_PATIENT = "chb01"
VETO_AUC = 0.5
MIN_MARGIN = 5.0


def det_mean(trials: list[dict], voices: list[str], rates: tuple = DET_RATES,
             max_flag_ratio: float | None = None) -> float:  # fmt: skip
    """Each voice's best sensitivity within each rate over the trials, averaged (points).

    Parameters
    ----------
    trials : list of dict
        ``trials_pool`` of an operating_point.py result: per trial, ``corpora[voice]`` with
        ``sensitivity`` (%) and ``fa_per_24h`` (and ``flag_ratio`` for ``max_flag_ratio``).
    voices : list of str
    rates : tuple of float
        False alarms per 24 h; a voice with no trial within a rate scores 0 there.
    max_flag_ratio : float, optional
        Amendment 53: on each voice only trials whose time called seizure there is at most this
        multiple of the reference's count (an alarm that never ends is one OVLP hit and no
        false alarm, so it would otherwise buy the frontier its sensitivity).
    """
    per_voice = []
    for v in voices:
        pts = [t["corpora"][v] for t in trials]
        if max_flag_ratio is not None:
            if any("flag_ratio" not in p for p in pts):
                raise ValueError(f"voice {v}: a trial without flag_ratio (tuned without "
                                 "--max-flag-ratio, before amendment 52?)")
            pts = [p for p in pts if flag_ratio_of(p) <= max_flag_ratio]
        best = [best_within(pts, r) for r in rates]
        per_voice.append(sum(b["sensitivity"] if b else 0.0 for b in best) / len(rates))
    return sum(per_voice) / len(per_voice)


def seed_figures(op_json: Path, det_max_flag_ratio: float | None = None,
                 doc: dict | None = None) -> dict:  # fmt: skip
    """One seed's SELECT mean and per-corpus figures at its chosen point, and its DET mean
    (under ``det_max_flag_ratio``, :func:`det_mean`); ``doc``: the result already read
    (:func:`operating_point.load_result`), else it is read from ``op_json``."""
    try:
        doc = load_result(op_json) if doc is None else doc
        chosen = doc["figures"]["chosen"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise SystemExit(f"{op_json}: not an operating_point.py result ({err!r})") from err
    corpora = {k.removeprefix("tune_"): v for k, v in chosen.items() if k.startswith("tune_")}
    if not corpora:
        raise SystemExit(f"{op_json}: no tune_* corpora under figures.chosen (not a --weigh run?)")
    mean = sum(v["sensitivity"] for v in corpora.values()) / len(corpora)
    fa = sum(v["fa_per_24h"] for v in corpora.values()) / len(corpora)
    lat = [v["latency_median_s"] for v in corpora.values() if v.get("latency_median_s") is not None]
    try:
        det = (round(det_mean(doc["trials_pool"], list(corpora), max_flag_ratio=det_max_flag_ratio), 2)
               if "trials_pool" in doc else None)  # fmt: skip
    except ValueError as err:
        raise SystemExit(f"{op_json}: {err}") from err
    except (KeyError, TypeError) as err:
        raise SystemExit(f"{op_json}: trials_pool without every voice's figures ({err!r})") from err
    return {
        "file": str(op_json),
        "select_mean": round(mean, 2),
        "det_mean": det,
        "fa_mean": round(fa, 2),
        # the mean over voices with a detection of the median decision-epoch onset (amendment 33)
        "onset_mean_s": round(sum(lat) / len(lat), 2) if lat else None,
        "corpora": {k: round(v["sensitivity"], 1) for k, v in corpora.items()},
    }


def chb01_auc(real_json: Path, doc: dict | None = None) -> float:
    """CHB-MIT chb01 AUC with patient context (the veto's figure); ``doc``: the real checks
    already read from ``real_json``, else they are read."""
    try:
        d = json.loads(Path(real_json).read_text()) if doc is None else doc
        return float(d["chbmit"]["patients"][VETO_PATIENT]["patient_context"]["auc"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise SystemExit(f"{real_json}: no {VETO_PATIENT} patient-context AUC ({err!r})") from err


def recipe(files: list[Path], real: list[Path] | None, statistic: str = "select",
           det_max_flag_ratio: float | None = None) -> dict:  # fmt: skip
    """Mean, spread and median seed of a recipe's seeds, by ``statistic`` (:data:`STATISTICS`);
    DET means under ``det_max_flag_ratio`` (:func:`det_mean`)."""
    key = STATISTICS[statistic]
    seeds = [seed_figures(f, det_max_flag_ratio) for f in files]
    if any(s[key] is None for s in seeds):
        raise SystemExit(f"--statistic {statistic}: a seed's result has no trials_pool")
    if real:
        if len(real) != len(files):
            raise SystemExit(f"--real has {len(real)} files for {len(files)} seeds")
        for s, r in zip(seeds, real, strict=True):
            s["chb01_auc"] = round(chb01_auc(r), 3)
    means = [s[key] for s in seeds]
    dets = [s["det_mean"] for s in seeds if s["det_mean"] is not None]
    order = sorted(range(len(seeds)), key=lambda i: means[i])
    onsets = [s["onset_mean_s"] for s in seeds if s["onset_mean_s"] is not None]
    return {
        "seeds": seeds,
        "statistic": key,
        "mean": round(sum(means) / len(means), 2),
        # reported whatever the statistic (amendment 42): the DET mean over the seeds
        "det_mean": round(sum(dets) / len(dets), 2) if len(dets) == len(seeds) else None,
        "onset_mean_s": round(sum(onsets) / len(onsets), 2) if onsets else None,
        "spread": round(max(means) - min(means), 2),
        "median_seed": seeds[order[(len(order) - 1) // 2]]["file"],
        "vetoed": any(s.get("chb01_auc", 1.0) < VETO_AUC for s in seeds),
    }


def judge(reference: dict, candidate: dict, latency_clause: tuple[float, float] | None = None) -> dict:
    """The rule of amendments 15-17; with ``latency_clause`` = (gain s, loss points), amendment
    33's alternative too: the candidate also replaces the reference when its mean onset is at
    least ``gain`` s earlier and its mean at most ``loss`` points lower (no veto either way)."""
    n = min(len(reference["seeds"]), len(candidate["seeds"]))
    margin = max(MIN_MARGIN, max(reference["spread"], candidate["spread"]) / math.sqrt(n))
    lead = candidate["mean"] - reference["mean"]
    out = {"lead": round(lead, 2), "margin": round(margin, 2)}
    wins = lead > margin
    if latency_clause is not None:
        gain_s, loss = latency_clause
        r, c = reference["onset_mean_s"], candidate["onset_mean_s"]
        earlier = round(r - c, 2) if r is not None and c is not None else None
        by_latency = earlier is not None and earlier >= gain_s and -lead <= loss
        out["latency_clause"] = {"min_gain_s": gain_s, "max_loss": loss, "onset_gain_s": earlier,
                                 "passes": bool(by_latency)}  # fmt: skip
        wins = wins or by_latency
    return out | {"replaces_reference": bool(wins and not candidate["vetoed"])}


def judge_single(reference: dict, candidate: dict, margin: float) -> dict:
    """Amendments 32 and 54: one model (an ensemble of the reference's seeds) against the mean of
    the reference's seeds. It replaces iff its statistic exceeds the seeds' mean by more than
    ``margin`` points, its DET mean is not below theirs, and no veto."""
    if len(candidate["seeds"]) != 1:
        raise SystemExit(f"--single-margin judges one model, got {len(candidate['seeds'])} files")
    c = candidate["seeds"][0]
    if c["det_mean"] is None or reference["det_mean"] is None:
        raise SystemExit("--single-margin needs every file's DET mean (its trials_pool)")
    lead = candidate["mean"] - reference["mean"]
    det = c["det_mean"] - reference["det_mean"]
    by_select, det_ok = lead > margin, det >= 0
    return {"lead": round(lead, 2), "margin": margin, "det_difference": round(det, 2),
            "by_select": bool(by_select), "det_not_lower": bool(det_ok),
            "replaces_reference": bool(by_select and det_ok and not candidate["vetoed"])}  # fmt: skip


def _pairs(reference: dict, candidate: dict, need_det: bool, flag: str) -> dict:
    """Seed-by-seed differences, candidate minus reference: the statistic's, the onsets' (where
    both seeds have one) and, with ``need_det``, the DET means'."""
    ref, cand = reference["seeds"], candidate["seeds"]
    if len(ref) != len(cand):
        raise SystemExit(f"{flag} needs as many candidate seeds as reference seeds "
                         f"({len(cand)} against {len(ref)})")  # fmt: skip
    key = reference["statistic"]
    pairs = list(zip(ref, cand, strict=True))
    diffs = [round(c[key] - r[key], 2) for r, c in pairs]
    onset = [c["onset_mean_s"] - r["onset_mean_s"] for r, c in pairs
             if c["onset_mean_s"] is not None and r["onset_mean_s"] is not None]  # fmt: skip
    out = {"differences": diffs, "mean_difference": round(sum(diffs) / len(diffs), 2),
           "onset_differences_s": [round(o, 2) for o in onset],
           "mean_onset_difference_s": round(sum(onset) / len(onset), 2) if onset else None}  # fmt: skip
    if need_det:
        if any(x["det_mean"] is None for x in (*ref, *cand)):
            raise SystemExit(f"{flag} needs every seed's DET mean (its trials_pool)")
        det = [round(c["det_mean"] - r["det_mean"], 2) for r, c in pairs]
        out.update(det_differences=det, mean_det_difference=round(sum(det) / len(det), 2))
    return out


def judge_paired(
    reference: dict,
    candidate: dict,
    rule: tuple[float, float, float],
    det_clause: tuple[float, float, float] | None = None,
) -> dict:
    """Rule P (amendment 39): seed-by-seed differences, candidate minus reference.

    ``rule`` = (min mean difference, min onset gain s, max mean loss); the seeds of both
    recipes are in the same order (seed i of one was trained with seed i of the other).
    ``det_clause`` = (min mean DET difference, min mean difference, max mean onset difference
    s): amendment 45's third way to win, every paired DET-mean difference positive too."""
    min_mean, gain_s, loss = rule
    paired = _pairs(reference, candidate, det_clause is not None, "--det-clause")
    diffs, mean = paired["differences"], paired["mean_difference"]
    onset_mean = paired["mean_onset_difference_s"]
    by_select = all(d > 0 for d in diffs) and mean >= min_mean
    by_latency = onset_mean is not None and -onset_mean >= gain_s and -mean <= loss
    paired.update(rule={"min_mean": min_mean, "min_gain_s": gain_s, "max_loss": loss},
                  by_select=bool(by_select), by_latency=bool(by_latency))  # fmt: skip
    by_det = False
    if det_clause is not None:
        min_det, min_select, max_onset = det_clause
        by_det = (
            all(d > 0 for d in paired["det_differences"])
            and paired["mean_det_difference"] >= min_det
            and mean >= min_select
            and onset_mean is not None
            and onset_mean <= max_onset
        )
        paired.update(
            det_clause={"min_det": min_det, "min_select": min_select, "max_onset_s": max_onset},
            by_det=bool(by_det),
        )
    return {
        "paired": paired,
        "replaces_reference": bool(
            (by_select or by_latency or by_det) and not candidate["vetoed"]
        ),
    }


def judge_paired_means(reference: dict, candidate: dict, rule: tuple[float, ...]) -> dict:
    """Amendment 48's rule: the means of the paired differences only (six seeds).

    ``rule`` = (min mean DET difference, min mean SELECT difference, max mean onset difference
    s; min onset gain s, max mean SELECT loss, min mean DET difference with the onset gain): the
    candidate replaces the reference iff it is not vetoed and (a) its DET means lead by the
    first at no SELECT loss below the second and onsets no later than the third, or (b) its
    onsets are earlier by the fourth at a SELECT loss of at most the fifth and a DET difference
    of at least the sixth. No pair need be positive: with noise of the size measured
    (tools/statistic_noise.py), a margin on the mean is what a rule can ask of six seeds."""
    if reference["statistic"] != STATISTICS["select"]:
        raise SystemExit("--paired-means reads the SELECT statistic beside the DET mean")
    min_det, min_select, max_onset, gain_s, max_loss, min_det_b = rule
    paired = _pairs(reference, candidate, True, "--paired-means")
    mean, det = paired["mean_difference"], paired["mean_det_difference"]
    onset = paired["mean_onset_difference_s"]
    by_det = det >= min_det and mean >= min_select and onset is not None and onset <= max_onset
    by_latency = onset is not None and -onset >= gain_s and -mean <= max_loss and det >= min_det_b
    paired.update(
        means_rule={"min_det": min_det, "min_select": min_select, "max_onset_s": max_onset,
                    "min_gain_s": gain_s, "max_loss": max_loss, "min_det_with_gain": min_det_b},
        by_det=bool(by_det), by_latency=bool(by_latency),
    )  # fmt: skip
    return {"paired": paired, "replaces_reference": bool((by_det or by_latency) and not candidate["vetoed"])}


def _numbers(text: str | None, flag: str, form: str) -> tuple[float, ...] | None:
    """``'5:2:5'`` -> ``(5.0, 2.0, 5.0)`` (as many numbers as ``form`` has fields); None for
    an option not given; a clear exit otherwise."""
    if not text:
        return None
    try:
        values = tuple(float(x) for x in text.split(":"))
    except ValueError:
        values = ()
    if len(values) != form.count(":") + 1:
        raise SystemExit(f"{flag} {text!r}: expected {form}")
    return values


def _named(spec: str) -> tuple[str, list[Path]]:
    name, _, files = spec.partition("=")
    if not files:
        raise SystemExit(f"expected NAME=FILE,FILE,..., got {spec!r}")
    return name, [Path(f) for f in files.split(",")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reference", required=True, help="NAME=OP_JSON,OP_JSON,... (one per seed)")
    ap.add_argument("--candidate", required=True, help="NAME=OP_JSON,OP_JSON,...")
    ap.add_argument("--real", action="append", default=[], help="NAME=REAL_JSON,... (veto)")
    ap.add_argument("--latency-clause", metavar="GAIN_S:MAX_LOSS",
                    help="amendment 33: also replace when the seeds' mean onset is GAIN_S s "
                         "earlier at most MAX_LOSS points lower")  # fmt: skip
    ap.add_argument("--paired", metavar="MIN_MEAN:GAIN_S:MAX_LOSS",
                    help="amendment 39's rule P: judge seed by seed (the same seeds, in the "
                         "same order) instead of by the recipes' means")  # fmt: skip
    ap.add_argument("--det-clause", metavar="MIN_DET:MIN_SELECT:MAX_ONSET_S",
                    help="with --paired, amendment 45: also replace when every paired DET-mean "
                         "difference is positive, their mean >= MIN_DET, the mean SELECT "
                         "difference >= MIN_SELECT and the mean onset difference <= MAX_ONSET_S")  # fmt: skip
    ap.add_argument("--paired-means",
                    metavar="MIN_DET:MIN_SELECT:MAX_ONSET_S:GAIN_S:MAX_LOSS:MIN_DET_B",
                    help="amendment 48: judge seed by seed on the means of the paired "
                         "differences only: replace when the mean DET difference >= MIN_DET, the "
                         "mean SELECT difference >= MIN_SELECT and the mean onset difference <= "
                         "MAX_ONSET_S; or when onsets are GAIN_S s earlier, the SELECT loss at "
                         "most MAX_LOSS and the mean DET difference >= MIN_DET_B")  # fmt: skip
    ap.add_argument("--single-margin", type=float, default=None, metavar="M",
                    help="amendments 32 / 54: the candidate is one model (e.g. an ensemble of the "
                         "reference's seeds); it replaces when its figure exceeds the seeds' mean "
                         "by more than M points at a DET mean not below theirs")  # fmt: skip
    ap.add_argument("--statistic", choices=sorted(STATISTICS), default="select",
                    help="each seed's figure: its SELECT mean at its point (default) or its "
                         "DET mean over 1-20 FA/24 h (amendment 42)")  # fmt: skip
    ap.add_argument("--det-max-flag-ratio", type=float, default=None, metavar="R",
                    help="amendment 53: each voice's DET frontier only over trials whose time "
                         "called seizure there is at most R x the reference's (needs trials "
                         "with flag_ratio: operating_point.py --max-flag-ratio runs)")  # fmt: skip
    ap.add_argument("--out", type=Path, default=None, help="JSON to write")
    args = ap.parse_args(argv)
    lim = args.det_max_flag_ratio
    if lim is not None and not lim > 0:
        raise SystemExit(f"--det-max-flag-ratio must be > 0, got {lim}")
    paired = _numbers(args.paired, "--paired", "MIN_MEAN:GAIN_S:MAX_LOSS")
    if paired and args.latency_clause:
        raise SystemExit("--paired has its own latency clause; drop --latency-clause")
    det_clause = _numbers(args.det_clause, "--det-clause", "MIN_DET:MIN_SELECT:MAX_ONSET_S")
    if det_clause:
        if not paired or args.statistic != "select":
            raise SystemExit("--det-clause goes with --paired and the SELECT statistic")
    means = _numbers(args.paired_means, "--paired-means",
                     "MIN_DET:MIN_SELECT:MAX_ONSET_S:GAIN_S:MAX_LOSS:MIN_DET_B")  # fmt: skip
    if means and (paired or args.latency_clause):
        raise SystemExit("--paired-means is a rule of its own; drop --paired / --latency-clause")
    single = args.single_margin
    if single is not None and (means or paired or args.latency_clause):
        raise SystemExit("--single-margin is a rule of its own; drop --paired / --paired-means / "
                         "--latency-clause")  # fmt: skip
    clause = None
    if args.latency_clause:
        try:
            gain, loss = (float(x) for x in args.latency_clause.split(":"))
        except ValueError:
            raise SystemExit(f"--latency-clause {args.latency_clause!r}: expected GAIN_S:MAX_LOSS") from None
        clause = (gain, loss)
    real = dict(_named(r) for r in args.real)
    ref_name, ref_files = _named(args.reference)
    cand_name, cand_files = _named(args.candidate)
    ref = recipe(ref_files, real.get(ref_name), args.statistic, lim)
    cand = recipe(cand_files, real.get(cand_name), args.statistic, lim)
    if single is not None:
        verdict = judge_single(ref, cand, single)
    elif means:
        verdict = judge_paired_means(ref, cand, means)
    elif paired:
        verdict = judge_paired(ref, cand, paired, det_clause)
    else:
        verdict = judge(ref, cand, clause)
    out = {"reference": {ref_name: ref}, "candidate": {cand_name: cand}, "det_max_flag_ratio": lim,
           **verdict}  # fmt: skip
    for name, r in ((ref_name, ref), (cand_name, cand)):
        per = ", ".join(f"{s[r['statistic']]:.1f}" for s in r["seeds"])
        det = "" if args.statistic == "det" or r["det_mean"] is None else f", DET mean {r['det_mean']:.1f}"
        print(f"{name}: seeds {per}: mean {r['mean']:.1f} % ({r['statistic']}), spread "
              f"{r['spread']:.1f}, onset {r['onset_mean_s']} s{det}" + (" (vetoed)" if r["vetoed"] else ""))
    verdict = "replaces" if out["replaces_reference"] else "does not replace"
    if single is not None:
        print(f"{cand_name} leads by {out['lead']:+.1f} points (margin {single:g}), DET mean "
              f"{out['det_difference']:+.1f}: {verdict} {ref_name}")  # fmt: skip
    elif paired or means:
        pr, onset = out["paired"], out["paired"]["mean_onset_difference_s"]
        print(f"{cand_name} minus {ref_name}, seed by seed: "
              f"{', '.join(f'{d:+.1f}' for d in pr['differences'])} (mean "
              f"{pr['mean_difference']:+.1f} points, onset "
              f"{'n/a' if onset is None else f'{onset:+.2f} s'}"
              + (f"; DET mean {', '.join(f'{d:+.1f}' for d in pr['det_differences'])}, mean "
                 f"{pr['mean_det_difference']:+.1f}" if "det_differences" in pr else "")
              + f"): {verdict} {ref_name}")
    else:
        lc = out.get("latency_clause")
        why = (f"; onset {lc['onset_gain_s']} s earlier (clause {lc['min_gain_s']} s at <= "
               f"{lc['max_loss']} points lower: {'passes' if lc['passes'] else 'fails'})"
               if lc else "")
        print(f"{cand_name} leads by {out['lead']:+.1f} points (margin {out['margin']:.1f}){why}: "
              f"{verdict} {ref_name}")
    if args.out:
        write_json_atomic(args.out, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
