"""Trainer variants of the cross-channel scorer compared on SELECT (S) only (issue #12).

Trains each variant with ``tools/train_cross_channel.py`` on the same C outputs, then tunes
its onset threshold and onset epochs on S with :func:`rt_eeg.tuning.tune` (the sweep's rule:
most sensitive within ``--target-fa``, then earliest onset, then fewest false alarms) over a
reduced grid (thresholds x onset epochs, hysteresis 0.5, no rising onset), and writes each
variant's best S figures. REPORT (U) is not read. The winner then goes through the full
``rt-eeg evaluate --sweep`` on S and one evaluation on U (README).

Usage::

    python tools/cross_channel_variants.py --eval /work/sim/x/eval_C --corpus /work/sim/x/C.list \\
        --select-list /work/sim/recipe/S.list --select-eval /work/sim/recipe/eval_S \\
        --work /work/sim/x --out tools/results/cross_channel_variants.json
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import time
from pathlib import Path

from postprocess_candidates import load_corpus

from rt_eeg.config import read_toml
from rt_eeg.io.atomic import write_json_atomic
from rt_eeg.postprocess import PostprocessConfig
from rt_eeg.tuning import tune

VARIANTS = {"T8_m4_h16_ow4": [], "ow1": ["--onset-weight", "1"], "T4": ["--window", "4"],
            "h8_e20": ["--hidden", "8", "--epochs", "20"]}  # fmt: skip
THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--eval", required=True)
    p.add_argument("--corpus", required=True)
    p.add_argument("--model", default="models/default")
    p.add_argument("--select-list", required=True)
    p.add_argument("--select-eval", required=True)
    p.add_argument("--target-fa", type=float, default=5.0)
    p.add_argument("--work", required=True, help="folder for the variants' TOML files")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    anns, refs, stored = load_corpus(args.select_list, args.select_eval)
    trainer = Path(__file__).with_name("train_cross_channel.py")
    out = {}
    for name, extra in VARIANTS.items():
        toml = Path(args.work) / f"var_{name}.toml"
        subprocess.run([sys.executable, str(trainer), "--eval", args.eval, "--corpus", args.corpus, "--model",
                        args.model, "--out", str(toml), *extra], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        base = PostprocessConfig.from_dict(read_toml(toml))
        grid = [base.replace(threshold_on=th, threshold_off=round(th * 0.5, 4), onset_epochs=on)
                for th, on in itertools.product(THRESHOLDS, (1, 2, 3, 4))]  # fmt: skip
        best, trials = tune(base, refs, stored, args.target_fa, configs=grid)
        t = trials[grid.index(best)]
        out[name] = {"trainer_args": extra, "threshold_on": best.threshold_on, "onset_epochs": best.onset_epochs,
                     **{k: t[k] for k in ("sensitivity", "fa_per_24h", "hits", "targets", "latency_median_s")}}  # fmt: skip
        print(name, out[name], flush=True)
    write_json_atomic(args.out, {"command": " ".join(sys.argv), "target_fa_per_24h": args.target_fa,
                                 "select_S": out, "wall_s": round(time.perf_counter() - t0, 1)})  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
