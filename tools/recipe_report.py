"""What a judged seed did, beside the figure that judged it (issue #12; chooses nothing).

For each model: the SELECT figures at its own tuned point (``figures.chosen`` of the JSON
``tools/operating_point.py --weigh corpora`` wrote), the same corpora at one fixed
configuration of its grid (default top-2 >= 0.995 for 2 epochs, no rising onset: where
`nmm`'s waking false alarms and the other generators' seizures part), and the channel-epoch
ROC AUC of its stored decoder outputs on each corpus (every channel-epoch from the 8th on,
labels from the reference annotations).

Usage::

    python tools/recipe_report.py --op-suffix sel5 --work /work/sim/recipe \\
        --corpus SS=SS.list:SEL --corpus XS=XS.list:SEL --corpus XCC=XCC.list:XCC \\
        --corpus XT3=XT3.list:XT3 --corpus XT4=XT4.list:XT4 \\
        --out tools/results/recipe_report_sel5.json k6r k6s1 k6s2 k13 k13s1 k13s2

``NAME=LIST:EVAL`` reads the model's stored outputs from ``WORK/eval_{model}_{EVAL}`` and the
recording list from ``WORK/LIST``; the operating point from
``OP_DIR/operating_point_{model}_{suffix}.json`` (default ``tools/results``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from operating_point import load_result  # noqa: E402  (tools/, beside this file)

from rt_eeg.dev_metrics import roc_auc  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.store_labels import channel_labels  # noqa: E402

FIRST_EPOCH = 7  # the first full 7 s window ends with epoch 7


def channel_epoch_auc(list_file: Path, eval_dir: Path) -> float | None:
    """ROC AUC of stored P(seizure) against per-channel epoch labels over a corpus."""
    ys, ps = [], []
    for line in list_file.read_text().split():
        edf = Path(line)
        f = eval_dir / f"{edf.stem}.probs.npz"
        if not f.is_file():
            raise SystemExit(f"{f}: no stored decoder outputs (decode {list_file} first)")
        with np.load(f) as d:
            p = d["probs"]
            ch = [str(c) for c in d["ch_names"]]
        lab = channel_labels(edf, edf.with_suffix(".csv_bi"), ch, p.shape[0])
        ys.append(lab[FIRST_EPOCH:].reshape(-1))
        ps.append(p[FIRST_EPOCH:].reshape(-1))
    y = np.concatenate(ys).astype(bool)
    return round(float(roc_auc(y, np.concatenate(ps))), 3) if y.any() and not y.all() else None


def fixed_point(trials: list[dict], threshold: float, onset: int, top_k: int) -> dict | None:
    """Per-corpus (sensitivity %, FA/24 h) of the grid's configuration at these settings."""
    for t in trials:
        c = next(iter(t["corpora"].values()))["config"]
        if (c["threshold_on"], c["onset_epochs"], c["top_k"], c["rise_delta"]) == (
            threshold, onset, top_k, 0.0,
        ):  # fmt: skip
            return {
                "corpora": {n: [_r(v["sensitivity"]), _r(v["fa_per_24h"])]
                            for n, v in t["corpora"].items()},
                "mean_sensitivity": _r(t["sensitivity"]),
                "mean_fa_per_24h": _r(t["fa_per_24h"]),
            }  # fmt: skip
    return None


def _r(x):
    return None if x is None else round(float(x), 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+")
    ap.add_argument("--work", type=Path, default=Path("/work/sim/recipe"))
    ap.add_argument("--op-suffix", default="sel5", help="operating_point_{model}_{suffix}.json")
    ap.add_argument("--op-dir", type=Path, default=ROOT / "tools" / "results")
    ap.add_argument("--corpus", action="append", required=True, help="NAME=LIST:EVAL")
    ap.add_argument("--threshold", type=float, default=0.995)
    ap.add_argument("--onset", type=int, default=2)
    ap.add_argument("--top-k", type=int, default=2)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    corpora = {}
    for spec in args.corpus:
        name, _, rest = spec.partition("=")
        lst, _, ev = rest.partition(":")
        if not (name and lst and ev):
            raise SystemExit(f"--corpus {spec!r}: expected NAME=LIST:EVAL")
        corpora[name] = (args.work / lst, ev)
    out = {"command": " ".join(sys.argv), "fixed": f"top-{args.top_k} >= {args.threshold} for "
           f"{args.onset}", "models": {}}  # fmt: skip
    for m in args.models:
        op_json = args.op_dir / f"operating_point_{m}_{args.op_suffix}.json"
        if not op_json.is_file():
            raise SystemExit(f"{op_json}: no operating_point.py result for model {m}")
        op = load_result(op_json)
        chosen = op["figures"]["chosen"]
        cfg = op["configs"]["chosen"]
        row = {
            "chosen": f"top-{cfg['top_k']} >= {cfg['threshold_on']} for {cfg['onset_epochs']}",
            "at_chosen": {k.removeprefix("tune_"): [_r(v["sensitivity"]), _r(v["fa_per_24h"])]
                          for k, v in chosen.items() if k.startswith("tune_")},
            "at_fixed": fixed_point(op["trials_pool"], args.threshold, args.onset, args.top_k),
            "channel_epoch_auc": {n: channel_epoch_auc(lst, args.work / f"eval_{m}_{ev}")
                                  for n, (lst, ev) in corpora.items()},
        }  # fmt: skip
        out["models"][m] = row
        print(m, json.dumps(row), flush=True)
    write_json_atomic(args.out, out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
