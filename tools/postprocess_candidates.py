"""Postprocessor candidates without retraining (issue #12): chosen on SELECT, reported on REPORT.

Re-runs only the postprocessor on the per-recording probabilities ``rt-eeg evaluate`` stored
(``NAME.probs.npz``) for two corpora of the recipe (``tools/make_default_model.sh``):

- **S** (SELECT families) chooses. Every candidate grid goes through the sweep's own choice,
  :func:`rt_eeg.tuning.tune` (most sensitive within ``--target-fa``, then earliest median
  onset, then fewest false alarms), over the union of: the grid ``--sweep`` uses today,
  dual-threshold onsets (``early_threshold``/``early_epochs``/``early_rise``) and a minimum
  spatial extent (``min_channels``/``channel_level``) around high thresholds.
- **U** (REPORT families) is scored exactly once, for the chosen configuration, next to
  the model's current ``postprocess.toml``.

Writes the JSON (``--out``) with every S trial, the best of each candidate family on S, and
the U figures; and the chosen configuration as a postprocess TOML (``--toml``), with its
numbers in the header. It never writes into the model folder.

Usage::

    python tools/postprocess_candidates.py --select-list /work/sim/recipe/S.list \\
        --select-eval /work/sim/recipe/eval_S --report-list /work/sim/recipe/U.list \\
        --report-eval /work/sim/recipe/eval_U --target-fa 5 \\
        --out tools/results/postprocess_candidates.json \\
        --toml tools/results/postprocess_candidate.toml
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

from rt_eeg.config import load_postprocess_config
from rt_eeg.errors import RtEegError
from rt_eeg.evaluate import onset_latencies
from rt_eeg.features import model_feature_config
from rt_eeg.io.annotations import Annotation, read_csv_bi
from rt_eeg.io.atomic import write_json_atomic, write_text_atomic
from rt_eeg.postprocess import PostprocessConfig
from rt_eeg.scoring.nedc import prepare_events
from rt_eeg.tuning import default_grid, events_for, ovlp_for, tune


def load_corpus(list_path: str, eval_dir: str) -> tuple[list, list, list]:
    """(reference annotations, prepared reference events, stored probabilities) of a corpus."""
    anns, refs, stored = [], [], []
    for line in Path(list_path).read_text().split():
        edf = Path(line)
        npz = Path(eval_dir) / f"{edf.stem}.probs.npz"
        if not npz.is_file():
            raise RtEegError(f"{npz}: missing (run rt-eeg evaluate on {list_path} first)")
        with np.load(npz, allow_pickle=False) as z:
            stored.append({"epoch_starts": z["epoch_starts"], "probs": z["probs"],
                           "ch_names": [str(c) for c in z["ch_names"]], "duration": float(z["duration"])})  # fmt: skip
        ann = read_csv_bi(edf.with_suffix(".csv_bi"))
        anns.append(ann)
        refs.append(prepare_events(ann))
    return anns, refs, stored


def candidate_grids(base: PostprocessConfig) -> dict[str, list[PostprocessConfig]]:
    """The candidate families, each a list of configurations."""
    grids = {"sweep_grid": default_grid(base)}
    dual = []
    for th, onset, e_th, e_n, e_rise in itertools.product(
        (0.995, 0.998, 0.999), (2, 3), (0.98, 0.99, 0.995, 0.999), (1, 2), (0.0, 0.3, 0.6)
    ):
        if e_n < onset:  # the early path must be faster than the strict one
            dual.append(base.replace(threshold_on=th, threshold_off=round(th * 0.5, 4), onset_epochs=onset,
                                     early_threshold=e_th, early_epochs=e_n, early_rise=e_rise))  # fmt: skip
    grids["dual_threshold"] = dual
    grids["spatial_extent"] = [
        base.replace(threshold_on=th, threshold_off=round(th * 0.5, 4), onset_epochs=onset,
                     min_channels=k, channel_level=lv)
        for th, onset, k, lv in itertools.product((0.995, 0.998, 0.999), (1, 2, 3), (2, 3, 4, 6), (0.5, 0.9))
    ]  # fmt: skip
    return grids


def full_figures(cfg: PostprocessConfig, anns, refs, stored, delay_s: float) -> dict:
    """OVLP figures plus the evaluate report's onset latency (decision time incl. the feature
    delay ``delay_s``: the model's, ``model_feature_config(model).delay_s``)."""
    fig = ovlp_for(cfg, refs, stored)
    pairs = []
    for ann, s in zip(anns, stored, strict=True):
        # the same events as the postprocessor's epoch-by-epoch decisions (rt_eeg.tuning)
        pairs.append((ann, Annotation(None, events_for(cfg, s), s["duration"])))
    lat = onset_latencies(pairs, delay_s)
    return fig | {
        "onset_latency_median_s": round(float(np.median(lat)), 3) if lat else None,
        "onset_latency_p90_s": round(float(np.percentile(lat, 90)), 3) if lat else None,
    }


def _rank(t: dict) -> tuple:
    """:func:`rt_eeg.tuning.tune`'s order: sensitivity, then earliest onset, then fewest FA."""
    lat = t.get("latency_median_s")
    return (t["sensitivity"] or 0.0, -(lat if lat is not None else 1e9), -t["fa_per_24h"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--select-list", required=True)
    p.add_argument("--select-eval", required=True)
    p.add_argument("--report-list", required=True)
    p.add_argument("--report-eval", required=True)
    p.add_argument("--model", default="models/default")
    p.add_argument("--target-fa", type=float, default=5.0)
    p.add_argument("--out", required=True)
    p.add_argument("--toml", required=True)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    try:
        today = load_postprocess_config(args.model)
        delay = model_feature_config(args.model).delay_s
        s_anns, s_refs, s_stored = load_corpus(args.select_list, args.select_eval)
        grids = candidate_grids(today)
        configs = [today] + [c for g in grids.values() for c in g]
        chosen, trials = tune(today, s_refs, s_stored, args.target_fa, configs=configs)
        # the best of each family alone, by the same rule (for the table; not reported on U)
        per_family, k = {}, 1
        for name, g in grids.items():
            sub = trials[k : k + len(g)]
            k += len(g)
            ok = [t for t in sub if t["fa_per_24h"] <= args.target_fa and t["sensitivity"] is not None]
            per_family[name] = max(ok, key=_rank) if ok else min(sub, key=lambda t: t["fa_per_24h"])
        select = {"today": full_figures(today, s_anns, s_refs, s_stored, delay),
                  "chosen": full_figures(chosen, s_anns, s_refs, s_stored, delay)}  # fmt: skip
        # REPORT: scored once, for the chosen configuration and today's
        u_anns, u_refs, u_stored = load_corpus(args.report_list, args.report_eval)
        report = {"today": full_figures(today, u_anns, u_refs, u_stored, delay),
                  "chosen": full_figures(chosen, u_anns, u_refs, u_stored, delay)}  # fmt: skip
    except RtEegError as err:
        print(f"postprocess_candidates: {err}", file=sys.stderr)
        return 2
    doc = {
        "command": " ".join(sys.argv), "target_fa_per_24h": args.target_fa,
        "today_config": today.to_dict(), "chosen_config": chosen.to_dict(),
        "chosen_is_today": chosen == today,
        "select_S": select, "report_U": report,
        "best_per_candidate_family_S": per_family,
        "n_trials": len(trials), "wall_s": round(time.perf_counter() - t0, 1), "trials_S": trials,
    }  # fmt: skip
    write_json_atomic(args.out, doc)
    import tomli_w

    head = (f"Postprocess candidate (tools/postprocess_candidates.py), chosen on S (SELECT families) for "
            f"<= {args.target_fa} FA/24 h.\nS today: {json.dumps(select['today'])}\nS chosen: {json.dumps(select['chosen'])}\n"
            f"U today: {json.dumps(report['today'])}\nU chosen: {json.dumps(report['chosen'])}\n"
            "Not the default: models/default/postprocess.toml changes only with the lead's OK.")  # fmt: skip
    write_text_atomic(args.toml, "".join(f"# {x}\n" for x in head.splitlines()) + tomli_w.dumps(chosen.to_dict()))
    print(json.dumps({k: doc[k] for k in ("chosen_config", "select_S", "report_U")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
