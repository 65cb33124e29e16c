"""Today's postprocessor next to the cross-channel scorer on SELECT and REPORT (issue #12).

Re-runs only the postprocessor on the probabilities ``rt-eeg evaluate`` stored for both corpora
(the same ``NAME.probs.npz`` for both configurations, so only the postprocessor differs) and
writes, per configuration and corpus, OVLP sensitivity, FA/24 h and the onset latency as
``rt-eeg evaluate`` reports it (decision time including the feature delay). Nothing is chosen
here: the cross-channel thresholds come from ``rt-eeg evaluate --sweep`` on S.

Usage::

    python tools/cross_channel_report.py --today models/default --candidate /work/sim/x/model_cc \\
        --candidate /work/sim/x/model_cc4 \\
        --select-list /work/sim/recipe/S.list --select-eval /work/sim/recipe/eval_S \\
        --report-list /work/sim/recipe/U.list --report-eval /work/sim/recipe/eval_U \\
        --out tools/results/cross_channel.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from postprocess_candidates import full_figures, load_corpus

from rt_eeg.config import load_postprocess_config
from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import write_json_atomic


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--today", default="models/default", help="model folder of today's postprocess.toml")
    p.add_argument("--candidate", required=True, action="append",
                   help="model folder whose postprocess.toml has [cross_channel] (repeatable)")
    p.add_argument("--select-list", required=True)
    p.add_argument("--select-eval", required=True)
    p.add_argument("--report-list", required=True)
    p.add_argument("--report-eval", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    try:
        configs = {"today": load_postprocess_config(args.today)}
        for folder in args.candidate:
            configs[Path(folder).name] = load_postprocess_config(folder)
            if configs[Path(folder).name].cross_channel is None:
                raise RtEegError("has no [cross_channel] table", f"{folder}/postprocess.toml")
        figures = {}
        for corpus, lst, ev in (("S", args.select_list, args.select_eval), ("U", args.report_list, args.report_eval)):
            anns, refs, stored = load_corpus(lst, ev)
            figures[corpus] = {name: full_figures(cfg, anns, refs, stored) for name, cfg in configs.items()}
    except RtEegError as err:
        print(f"cross_channel_report: {err}", file=sys.stderr)
        return 2
    shown = {}
    for name, cfg in configs.items():  # the weights are in the TOML files, not here
        d = cfg.to_dict()
        if "cross_channel" in d:
            d["cross_channel"] = {k: v for k, v in d["cross_channel"].items() if k not in ("w1", "b1", "w2", "b2")}
        shown[name] = d
    doc = {"command": " ".join(sys.argv), "configs": shown, "select_S": figures["S"], "report_U": figures["U"],
           "wall_s": round(time.perf_counter() - t0, 1)}  # fmt: skip
    write_json_atomic(args.out, doc)
    print(json.dumps({k: doc[k] for k in ("select_S", "report_U")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
