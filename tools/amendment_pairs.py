"""Record a paired amendment's pairs as they finish, without reading its rule (issue #12).

Amendment 127 (protocol) trains, per fresh seed N, a reference ``k53esNa`` and a candidate
``k66sNa`` on one machine and reads its rule only once all six pairs are in. Between sessions
each finished pair is written down here: both members' figures at each suffix's chosen point
(:func:`judge_recipes.seed_figures`: SELECT v2 mean, DET mean, false alarms, onsets, the voices),
the OD bound, the real-signal checks (chb01 AUC, TUH SEIZ epochs), the weights and training time
from the manifests, the pair's CPU class, the differences candidate - reference and the matched
onset difference (:func:`onset_frontier.matched`). Nothing is judged and nothing chosen.

A pair already in ``--out`` is replaced by the new reading; keys this tool does not write (notes
added by hand, e.g. ``matched_note``) are kept. The file is written atomically.

Usage::

    python tools/amendment_pairs.py --out tools/results/amendment127_pairs.json \\
        --work /work/sim/repro5 25 26
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from judge_recipes import chb01_auc, seed_figures  # noqa: E402
from onset_frontier import matched  # noqa: E402
from operating_point import load_result  # noqa: E402

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

WHAT = ("Amendment 127 (protocol): the K66 amendment's pairs as they finish, per-pair figures "
        "only; the rule (rule_k66e) is read on the six pairs 24-29 and not before")  # fmt: skip
SUFFIXES = ("_sel5mo", "_sel5o")


class PairError(Exception):
    """A pair's files are missing or not of the expected shape (one line, naming the file)."""


def _json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise PairError(f"{path}: {err}") from err


def figures_at(name: str, suffix: str, results: Path, det_flag: float) -> tuple[dict, list[dict]]:
    """One model's figures at ``suffix``'s chosen point (with the OD bound) and that result's
    trials."""
    path = results / f"operating_point_{name}{suffix}.json"
    try:  # both raise SystemExit with a one-line message naming the file
        doc = load_result(path)
        fig = seed_figures(path, det_flag, doc)
    except SystemExit as err:
        raise PairError(str(err)) from err
    od = doc["figures"]["chosen"].get("bound_OD", {})
    fig |= {"OD": f"{od.get('hits')}/{od.get('targets')}", "OD_fa_per_24h": od.get("fa_per_24h")}
    return fig, doc["trials_pool"]


def model_facts(name: str, results: Path, work: Path) -> tuple[dict, str | None]:
    """One model's real checks and its manifest's weights, training time and dev AUC, whatever
    the suffix; and the CPU its manifest names (None when it names none)."""
    real_path = results / f"real_checks_{name}.json"
    real = _json(real_path)
    try:
        chb01 = chb01_auc(real_path, real)
        tuh = real["tuh_background"]["total_seiz_epochs"]
    except SystemExit as err:
        raise PairError(str(err)) from err
    except (KeyError, TypeError) as err:
        raise PairError(f"{real_path}: no tuh_background.total_seiz_epochs ({err!r})") from err
    man_path = work / name / "manifest.json"
    man = _json(man_path)
    try:
        weights, dev_auc = man["weights_sha256"][:12], round(man["dev_scores"]["auc"], 4)
    except (KeyError, TypeError) as err:
        raise PairError(f"{man_path}: no weights_sha256 / dev_scores.auc ({err!r})") from err
    facts = {"chb01_auc": round(chb01, 3), "tuh_seiz_epochs": tuh, "weights_sha256": weights,
             "training_seconds": man.get("training_seconds"), "dev_auc": dev_auc}  # fmt: skip
    return facts, (man.get("numeric_environment") or {}).get("cpu_id")


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 2)


def pair(seed: str, reference: str, candidate: str, results: Path, work: Path,
         det_flag: float = 2.0, matched_suffix: str = "_sel5mo") -> dict:  # fmt: skip
    """One pair's record: ``{cpu_id, machine_k15s3_weights, <suffix>: {k53, k66, select_diff,
    det_diff, onset_diff_s}, matched_onset_s}``; ``reference`` / ``candidate`` are name
    templates with ``{}`` for the seed; ``matched_suffix`` one of :data:`SUFFIXES`."""
    ref, cand = reference.format(seed), candidate.format(seed)
    figs = {suf: [figures_at(n, suf, results, det_flag) for n in (ref, cand)] for suf in SUFFIXES}
    facts = {n: model_facts(n, results, work) for n in (ref, cand)}
    cpus = {cpu for _, cpu in facts.values()} - {None}
    rec: dict = {}
    for suf, ((a, _), (b, _)) in figs.items():
        a, b = a | facts[ref][0], b | facts[cand][0]
        rec[suf] = {"k53": a, "k66": b,
                    "select_diff": _diff(a["select_mean"], b["select_mean"]),
                    "det_diff": _diff(a["det_mean"], b["det_mean"]),
                    "onset_diff_s": _diff(a["onset_mean_s"], b["onset_mean_s"])}  # fmt: skip
    if len(cpus) > 1:  # the amendment's second addendum: a pair's two members on one machine
        raise PairError(f"{ref} / {cand}: trained on different CPUs ({', '.join(sorted(cpus))})")
    rec["cpu_id"] = cpus.pop() if cpus else None
    k15 = _json(work / "model" / "manifest.json").get("weights_sha256")
    rec["machine_k15s3_weights"] = k15[:12] if k15 else None
    m = matched(*(t for _, t in figs[matched_suffix]))
    rec["matched_onset_s"] = None if m is None else m["onset_difference_s"]
    return rec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seeds", nargs="+", help="the pairs' seed numbers")
    ap.add_argument("--out", type=Path, required=True, help="the amendment's pairs JSON (updated)")
    ap.add_argument("--work", type=Path, required=True, help="WORK: the models' manifests")
    ap.add_argument("--results", type=Path, default=Path("tools/results"))
    ap.add_argument("--reference", default="k53es{}a", help="reference name template")
    ap.add_argument("--candidate", default="k66s{}a", help="candidate name template")
    ap.add_argument("--det-max-flag-ratio", type=float, default=2.0)
    args = ap.parse_args(argv)
    try:
        out = _json(args.out) if args.out.exists() else {"what": WHAT, "pairs": {}}
        for s in args.seeds:
            rec = pair(
                s, args.reference, args.candidate, args.results, args.work, args.det_max_flag_ratio
            )
            out.setdefault("pairs", {})[s] = out.get("pairs", {}).get(s, {}) | rec
    except PairError as err:
        print(f"amendment_pairs: {err}", file=sys.stderr)
        return 1
    write_json_atomic(args.out, out)
    for s in args.seeds:
        p = out["pairs"][s]
        r = p["_sel5mo"]
        print(f"seed {s} ({p['cpu_id']}): K53 {r['k53']['select_mean']} ({r['k53']['fa_mean']} FA; "
              f"OD {r['k53']['OD']}), K66 {r['k66']['select_mean']} ({r['k66']['fa_mean']} FA; OD "
              f"{r['k66']['OD']}): SELECT {r['select_diff']:+}, DET {r['det_diff']}, onset "
              f"{r['onset_diff_s']} s, matched {p['matched_onset_s']} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
