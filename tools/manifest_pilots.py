"""Record a pilot's (or an amendment's) candidates in models/default/manifest.json.

Every judged candidate of the cross-generator protocol gets a ``candidates_*`` section in the
bundled model's manifest, built from the result files alone: the comparison of
``tools/xgen_rules.sh``, paired (``recipe_PREFIX_vs_REF_paired_SUF_detf.json``) or single (one
model, such as an ensemble, against a recipe's seeds: ``recipe_X_vs_Y_single[SUF].json``) and,
for each model in it, its operating point's figures (OD found and false alarms), its
``family_scores`` file (the nmm background epochs at the top of the score range), its real-signal
checks, and its folder's manifest (weights hash, training time, dev AUC by epoch). Until
2026-11-30 each session wrote these sections with a throwaway script; this is that script, once.

Usage::

    python tools/manifest_pilots.py --section candidates_xgen_20261130_pilot_88 \\
        --comparison tools/results/recipe_k49_vs_k15c12_paired_sel5o_detf.json \\
        --entry pilot_88 --protocol "tools/results/xgen_protocol.md, pilot 88 (2026-11-30)" \\
        --recipe "K49 = K39 plus K40's seizure balance" --reading "mixed ..." \\
        --work /work/sim/repro5 [--with-reference] [--manifest models/default/manifest.json]

A section holds several entries (``--entry`` adds or replaces one); ``--dry-run`` prints the
entry and writes nothing. Errors (a missing result file, a model folder without a manifest)
name the file and exit 2, and the manifest is rewritten atomically or not at all.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

RESULTS = ROOT / "tools" / "results"


class PilotError(Exception):
    """A result file or model folder the section needs is missing or unreadable."""


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise PilotError(f"{path}: no such file") from None
    except (OSError, ValueError) as err:
        raise PilotError(f"{path}: cannot read ({err})") from None


def model_name(op_file: str, suffix: str) -> str:
    """``tools/results/operating_point_k49s12a_sel5o.json`` -> ``k49s12a``."""
    stem = Path(op_file).name
    if not (stem.startswith("operating_point_") and stem.endswith(f"{suffix}.json")):
        raise PilotError(f"{op_file}: not an operating point file with suffix {suffix}")
    return stem[len("operating_point_") : -len(f"{suffix}.json")]


def seed_of(name: str) -> int | None:
    """A model's seed from its name (``k49s12a`` -> 12, ``k15ps3`` -> 3; None without one)."""
    m = re.search(r"s(\d+)[a-z]*$", name)
    return int(m.group(1)) if m else None


def model_figures(seed: dict, suffix: str, work: Path, results: Path = RESULTS) -> tuple[str, dict]:
    """One model's figures: its seed row of a comparison plus its own result files."""
    name = model_name(seed["file"], suffix)
    op = _load(results / f"operating_point_{name}{suffix}.json")
    out = {"select_v2": seed["select_mean"], "fa_per_24h": seed["fa_mean"],
           "det_mean": seed["det_mean"], "onset_mean_s": seed["onset_mean_s"],
           "voices": seed.get("corpora", {})}  # fmt: skip
    od = op.get("figures", {}).get("chosen", {}).get("bound_OD")
    if od is not None:
        out |= {"od_found": od["hits"], "od_false_alarms": od["false_alarms"]}
    man = _load(work / name / "manifest.json")
    out |= {"weights_sha256": str(man.get("weights_sha256", ""))[:12],
            "training_seconds": man.get("training_seconds"),
            "dev_auc_by_epoch": [round(h["dev_auc"], 4) for h in man.get("history", [])
                                 if h.get("dev_auc") is not None]}  # fmt: skip
    real = results / f"real_checks_{name}.json"
    if real.is_file():
        pats = _load(real).get("chbmit", {}).get("patients", {})
        out["chbmit_auc_context"] = {p: v["patient_context"]["auc"] for p, v in sorted(pats.items())}
    fam = results / f"family_scores_{name}_sel.json"
    if fam.is_file():
        nmm = _load(fam).get("generators", {}).get("nmm")
        if nmm is not None:
            out["nmm_background_epochs_at_0995"] = nmm["epochs_at_top"]
    return name, out


def _parse(rule: dict, comparison: Path) -> tuple[str, dict, dict, dict]:
    """(point suffix, candidate, reference, summary) of a paired comparison
    (``recipe_X_vs_Y_paired_SUF_detf.json``) or a single one (``recipe_X_vs_Y_single[SUF].json``,
    one model such as an ensemble against a recipe's seeds; SUF ``_sel5o`` when absent)."""
    name = comparison.name
    try:
        (cand,) = rule["candidate"].values()
        (ref,) = rule["reference"].values()
        if "_paired_" in name:
            suffix = "_" + name.split("_paired_")[1].split("_detf")[0]
            return suffix, cand, ref, {"paired": {k: rule["paired"][k] for k in (
                "differences", "mean_difference", "onset_differences_s", "mean_onset_difference_s",
                "det_differences", "mean_det_difference")}}  # fmt: skip
        if "_single" in name:
            suffix = name.split("_single", 1)[1].removesuffix(".json") or "_sel5o"
            return suffix, cand, ref, {"single": {
                "lead": rule["lead"], "margin": rule["margin"], "det_difference": rule["det_difference"],
                "reference_mean": ref["mean"], "reference_det_mean": ref["det_mean"]}}  # fmt: skip
    except (KeyError, IndexError, ValueError) as err:
        raise PilotError(f"{comparison}: not a paired or single comparison ({err})") from None
    raise PilotError(f"{comparison}: not a paired or single comparison (its name says neither)")


def entry(comparison: Path, work: Path, *, protocol: str, recipe: str, reading: str,
          with_reference: bool = False, results: Path = RESULTS) -> dict:  # fmt: skip
    """A section entry from a paired or single comparison file (``tools/xgen_rules.sh``)."""
    rule = _load(comparison)
    suffix, cand, ref, summary = _parse(rule, comparison)
    models = dict(model_figures(s, suffix, work, results) for s in cand["seeds"])
    out = {"protocol": protocol, "recipe": recipe, "point": suffix,
           "seeds": [seed_of(n) for n in models],
           "models": models, "comparison_file": comparison.name, **summary,
           "replaces_reference": bool(rule.get("replaces_reference", False))}  # fmt: skip
    if with_reference:
        out["reference"] = dict(model_figures(s, suffix, work, results) for s in ref["seeds"])
    if reading:
        out["reading"] = reading
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--section", required=True, help="the manifest key (candidates_...)")
    ap.add_argument("--entry", required=True, help="the entry's key within the section")
    ap.add_argument("--comparison", required=True, help="a paired or single comparison JSON")
    ap.add_argument("--work", required=True, help="the folder holding the models")
    ap.add_argument("--protocol", required=True, help="where the protocol entry is")
    ap.add_argument("--recipe", required=True, help="what the candidate recipe is")
    ap.add_argument("--reading", default="", help="the result as the protocol reads it")
    ap.add_argument("--with-reference", action="store_true", help="record the reference seeds too")
    ap.add_argument("--manifest", default=str(ROOT / "models" / "default" / "manifest.json"))
    ap.add_argument("--results", default=str(RESULTS), help="where the models' result files are")
    ap.add_argument("--dry-run", action="store_true", help="print the entry, write nothing")
    args = ap.parse_args(argv)
    if not args.section.startswith("candidates"):
        ap.error(f"--section {args.section!r}: a candidates section's key starts with 'candidates'")
    try:
        new = entry(Path(args.comparison), Path(args.work), protocol=args.protocol,
                    recipe=args.recipe, reading=args.reading,
                    with_reference=args.with_reference, results=Path(args.results))  # fmt: skip
        if args.dry_run:
            print(json.dumps(new, indent=1))
            return 0
        man = _load(Path(args.manifest))
    except PilotError as err:
        print(f"manifest_pilots: {err}", file=sys.stderr)
        return 2
    section = man.get(args.section, {})
    if not isinstance(section, dict):
        print(f"manifest_pilots: {args.manifest}: {args.section} is not a section", file=sys.stderr)
        return 2
    section[args.entry] = new
    man[args.section] = section
    write_json_atomic(args.manifest, man)
    lead = (f"paired mean {new['paired']['mean_difference']:+.1f}" if "paired" in new
            else f"lead {new['single']['lead']:+.1f} over the seeds' mean")
    print(f"{args.manifest}: {args.section}.{args.entry}: {len(new['models'])} models ({lead})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
