"""Does choosing among models by SELECT carry to a voice the choice did not see? (pilot 126)

The default ships as the best seed of its recipe by the SELECT v2 figure (the mean sensitivity
over five voices at a point chosen on them). Whether that choice is worth anything off those
voices is read here leave-one-voice-out, from the per-voice trials ``tools/operating_point.py
--weigh corpora`` stored (no postprocessing is re-run):

for each held-out voice v and each model, the point is chosen on the other voices by the rule the
result was chosen by (its own ``target_fa_per_24h``, ``max_flag_ratio``, ``max_voice_fa`` and
``min_voice_sens``, bounds such as OD kept); the model's *selection* figure is the other voices'
mean sensitivity there and its *held* figure v's sensitivity there. Over a class of models, per
voice: the Spearman correlation of selection against held figure, the **out-of-sample gain**
(held figure of the model with the best selection figure minus the class's mean held figure) and
the **in-sample gain** (best selection figure minus the mean selection figure). ``R`` is the ratio
of their means over voices: near 1 the best model's margin carries to an unseen voice, near 0 it
is the draw's.

Usage::

    python tools/selection_lovo.py \\
        --class k53es='tools/results/operating_point_k53es*_sel5mo.json' \\
        --class all='tools/results/operating_point_k*_sel5mo.json' \\
        --out tools/results/selection_lovo_sel5mo.json
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
from statistics import mean

from operating_point import load_corpora_result, macro_trials
from scipy.stats import spearmanr

from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import write_json_atomic
from rt_eeg.tuning import choose_trial

#: the rule's fields in an operating_point.py result, as choose_trial's keyword arguments
RULE = {"target_fa_per_24h": "target_fa_per_24h", "max_flag_ratio": "max_flag_ratio",
        "max_voice_fa": "max_voice_fa", "min_voice_sens": "min_voice_sens"}  # fmt: skip


def model_name(path: str) -> str:
    """``operating_point_k53es12a_sel5mo.json`` -> ``k53es12a``."""
    m = re.match(r"operating_point_(.+?)_sel[^/]*\.json$", path.rsplit("/", 1)[-1])
    return m.group(1) if m else path


def load_model(path: str) -> tuple[dict, list[dict]]:
    """A ``--weigh corpora`` result's rule and its per-voice trials; RtEegError naming the file."""
    doc = load_corpora_result(path)
    rule = {k: doc.get(k) for k in RULE}
    if rule["target_fa_per_24h"] is None:
        raise RtEegError(f"{path}: no target_fa_per_24h")
    return rule, doc["trials_pool"]


def subset(trials: list[dict], voices: list[str]) -> list[dict]:
    """The trials averaged over ``voices`` only (``operating_point.macro_trials``), bounds kept."""
    macro = macro_trials({v: [t["corpora"][v] for t in trials] for v in voices})
    return [m | ({"bounds": t["bounds"]} if "bounds" in t else {}) for m, t in zip(macro, trials, strict=True)]


def choose(rule: dict, trials: list[dict]) -> int:
    """The index the result's own rule chooses among ``trials``."""
    return choose_trial(trials, rule["target_fa_per_24h"], 0.0, rule["max_flag_ratio"],
                        rule["max_voice_fa"], rule["min_voice_sens"])  # fmt: skip


def model_folds(rule: dict, trials: list[dict]) -> dict:
    """Per held-out voice: the selection and held figures of one model (see the module)."""
    voices = list(trials[0]["corpora"])
    folds = {}
    for v in voices:
        rest = [u for u in voices if u != v]
        sub = subset(trials, rest)
        i = choose(rule, sub)
        folds[v] = {"selection": sub[i]["sensitivity"] or 0.0,
                    "held": trials[i]["corpora"][v]["sensitivity"] or 0.0,
                    "held_fa_per_24h": trials[i]["corpora"][v]["fa_per_24h"], "trial": i}  # fmt: skip
    everything = subset(trials, voices)
    i = choose(rule, everything)
    return {"folds": folds, "all": {"sensitivity": everything[i]["sensitivity"] or 0.0,
                                    "fa_per_24h": everything[i]["fa_per_24h"], "trial": i}}  # fmt: skip


def read_class(models: dict[str, dict]) -> dict:
    """A class's per-voice statistics and their means, from :func:`model_folds` per model."""
    names = list(models)
    if len(names) < 3:
        raise RtEegError(f"a class needs three models or more, got {len(names)}: {names}")
    voices = list(models[names[0]]["folds"])
    for n in names:
        if list(models[n]["folds"]) != voices:
            raise RtEegError(f"{n}: voices {list(models[n]['folds'])}, not {voices}")
    per = {}
    for v in voices:
        sel = [models[n]["folds"][v]["selection"] for n in names]
        held = [models[n]["folds"][v]["held"] for n in names]
        fa = [models[n]["folds"][v]["held_fa_per_24h"] for n in names]
        best = max(range(len(names)), key=lambda k: (sel[k], -k))  # ties: the first listed
        rho = spearmanr(sel, held).statistic if len(set(sel)) > 1 and len(set(held)) > 1 else None
        per[v] = {"spearman": None if rho is None else float(rho), "best": names[best],
                  "gain_out": held[best] - mean(held), "gain_in": sel[best] - mean(sel),
                  "held_mean": mean(held), "held_best": held[best],
                  "held_fa_mean": mean(fa), "held_fa_best": fa[best]}  # fmt: skip
    g_out = mean(p["gain_out"] for p in per.values())
    g_in = mean(p["gain_in"] for p in per.values())
    rhos = [p["spearman"] for p in per.values() if p["spearman"] is not None]
    full = [models[n]["all"]["sensitivity"] for n in names]
    return {
        "models": names, "voices": per, "gain_out": g_out, "gain_in": g_in,
        "R": g_out / g_in if g_in > 0 else None, "spearman_mean": mean(rhos) if rhos else None,
        "select_mean": mean(full), "select_best": max(full),
        "select_best_model": names[max(range(len(names)), key=lambda k: (full[k], -k))],
        "held_fa_out": mean(p["held_fa_best"] - p["held_fa_mean"] for p in per.values()),
        "per_model": {n: models[n] for n in names},
    }  # fmt: skip


def reading(r: float | None) -> str:
    """Pilot 126's pre-stated reading of R."""
    if r is None:
        return "undefined (no in-sample gain)"
    return "carries" if r >= 0.5 else "mostly the draw" if r < 0.25 else "partial"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--class", dest="classes", action="append", required=True,
                   help="NAME=GLOB of operating_point.py --weigh corpora results (quote the glob)")  # fmt: skip
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    doc: dict = {"command": " ".join(sys.argv), "classes": {}}
    try:
        cache: dict[str, dict] = {}
        for spec in args.classes:
            name, sep, pattern = spec.partition("=")
            if not (sep and name and pattern):
                raise RtEegError(f"--class {spec!r}: expected NAME=GLOB")
            paths = sorted(glob.glob(pattern))
            if not paths:
                raise RtEegError(f"--class {name}: no file matches {pattern!r}")
            models = {}
            for path in paths:
                if path not in cache:
                    cache[path] = model_folds(*load_model(path))
                models[model_name(path)] = cache[path]
            doc["classes"][name] = read_class(models) | {"reading": None}
            doc["classes"][name]["reading"] = reading(doc["classes"][name]["R"])
    except RtEegError as err:
        print(f"selection_lovo: {err}", file=sys.stderr)
        return 2
    write_json_atomic(args.out, doc)
    for name, c in doc["classes"].items():
        rho = "n/a" if c["spearman_mean"] is None else f"{c['spearman_mean']:+.2f}"
        r = "n/a" if c["R"] is None else f"{c['R']:+.2f}"
        print(f"{name:>8} ({len(c['models'])} models): in-sample gain {c['gain_in']:5.1f}, "
              f"out of sample {c['gain_out']:+5.1f}, R {r} ({c['reading']}), Spearman {rho}, "
              f"held FA/24 h of the best {c['held_fa_out']:+.1f} against the mean")  # fmt: skip
    print(json.dumps({n: {v: round(s["spearman"], 2) if s["spearman"] is not None else None
                          for v, s in c["voices"].items()} for n, c in doc["classes"].items()}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
