"""How much of a seed's selection figure is noise: candidate statistics on stored results.

Every recipe since amendment 39 is judged by paired differences on three seeds, and a figure
that moves with the last bits of a CPU's arithmetic cannot see a real effect smaller than that
movement. This reads stored ``tools/operating_point.py`` results (their ``trials_pool``: every
trial of the strict grid with each voice's sensitivity and false alarms) and computes, for each
candidate statistic,

- the **replicate noise**: the same recipe and seed trained in different numeric environments
  (``--replicates NAME=A,B,C``: e.g. K15 seed 3 where the shipped model was made, natively here,
  and pinned to AVX2); the pooled within-group standard deviation;
- the **seed spread**: the standard deviation over the groups' first members (one environment);
- paired differences of named comparisons (``--pair LABEL=CAND_A:REF_A,CAND_B:REF_B``), each
  with its mean and its mean over the replicate noise x sqrt(2 / n) (a rough signal-to-noise).

The statistics (points):

- ``select``: the mean over voices of the sensitivities at the one shared point chosen (SELECT v2);
- ``det_mean``: each voice's own DET frontier read at 1, 2, 5, 10, 20 FA/24 h, averaged
  (amendment 42);
- ``det_at5``: each voice's frontier read at 5 FA/24 h only, averaged;
- ``top5_shared``: the mean SELECT figure of the five most sensitive shared points within a mean
  of 5 FA/24 h (the chosen one and its four runners-up), so that one threshold step decides less.

It chooses nothing; it is the measurement a rule's statistic is chosen by, before any figure of
the candidates that rule will judge.

Usage::

    python tools/statistic_noise.py --dir tools/results \\
        --replicates s3=k15s3p,k15s3r,k15s3 --replicates s0=k15p,k15r,k15 \\
        --pair K24=k24s3:k15s3p,k24s0:k15p,k24s1:k15ps1 --out tools/results/statistic_noise.json
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge_recipes import det_mean, seed_figures  # noqa: E402  (tools/, beside this file)
from operating_point import load_result  # noqa: E402

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

TARGET_FA = 5.0
TOP_M = 5


def top_shared(trials: list[dict], m: int = TOP_M, target: float = TARGET_FA) -> float:
    """Mean pooled sensitivity of the ``m`` most sensitive trials within ``target`` FA/24 h.

    Parameters
    ----------
    trials : list of dict
        ``trials_pool``: per trial the pooled (voice-mean) ``sensitivity`` and ``fa_per_24h``.
    """
    ok = sorted((t["sensitivity"] for t in trials if t["fa_per_24h"] <= target), reverse=True)
    return sum(ok[:m]) / m if ok else 0.0


def statistics_of(op_json: Path) -> dict:
    """Every candidate statistic of one seed's stored operating-point result."""
    doc = load_result(op_json)
    seed = seed_figures(op_json, doc=doc)
    if "trials_pool" not in doc:
        raise SystemExit(f"{op_json}: no trials_pool (not a strict-grid --weigh corpora result)")
    trials, voices = doc["trials_pool"], list(seed["corpora"])
    return {
        "select": seed["select_mean"],
        "det_mean": round(det_mean(trials, voices), 2),
        "det_at5": round(det_mean(trials, voices, (TARGET_FA,)), 2),
        "top5_shared": round(top_shared(trials), 2),
    }


def _named_list(spec: str, flag: str) -> tuple[str, list[str]]:
    name, sep, rest = spec.partition("=")
    if not (sep and name and rest):
        raise SystemExit(f"{flag} {spec!r}: expected NAME=ITEM,ITEM,...")
    return name, rest.split(",")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default="tools/results", help="where operating_point_K_sel5.json are")
    ap.add_argument("--replicates", action="append", default=[], metavar="NAME=K,K,...",
                    help="one seed of one recipe in several numeric environments")
    ap.add_argument("--pair", action="append", default=[], metavar="LABEL=CAND:REF,...",
                    help="a paired comparison, seed by seed")
    ap.add_argument("--out", required=True, help="JSON written (atomically)")
    args = ap.parse_args(argv)  # fmt: skip

    cache: dict[str, dict] = {}

    def stats(k: str) -> dict:
        if k not in cache:
            cache[k] = statistics_of(Path(args.dir) / f"operating_point_{k}_sel5.json")
        return cache[k]

    groups = [_named_list(s, "--replicates") for s in args.replicates]
    if not groups:
        raise SystemExit("statistic_noise: give at least one --replicates group")
    names = list(stats(groups[0][1][0]))
    noise, spread = {}, {}
    for s in names:
        # pooled within-group variance (each group: one seed in several environments)
        ss = sum(sum((stats(k)[s] - statistics.mean(stats(x)[s] for x in ks)) ** 2 for k in ks)
                 for _, ks in groups)  # fmt: skip
        dof = sum(len(ks) - 1 for _, ks in groups)
        noise[s] = round(math.sqrt(ss / dof), 2) if dof else None
        firsts = [stats(ks[0])[s] for _, ks in groups]
        spread[s] = round(statistics.stdev(firsts), 2) if len(firsts) > 1 else None
    pairs = {}
    for spec in args.pair:
        label, items = _named_list(spec, "--pair")
        diffs = {}
        for s in names:
            d = [stats(c)[s] - stats(r)[s] for c, r in (i.split(":") for i in items)]
            sn = None
            if noise[s]:
                sn = round(statistics.mean(d) / (noise[s] * math.sqrt(2 / len(d))), 2)
            diffs[s] = {"differences": [round(x, 2) for x in d],
                        "mean": round(statistics.mean(d), 2), "mean_over_noise": sn}  # fmt: skip
        pairs[label] = diffs
    out = {
        "command": "tools/statistic_noise.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "statistics": names,
        "replicate_groups": {n: {k: stats(k) for k in ks} for n, ks in groups},
        "replicate_noise_sd": noise,
        "seed_spread_sd": spread,
        "pairs": pairs,
    }
    write_json_atomic(args.out, out)
    print(f"{'statistic':<22}{'replicate sd':>14}{'seed sd':>10}  " + "  ".join(pairs))
    for s in names:
        cells = "  ".join(f"{pairs[p][s]['mean']:+6.1f} ({pairs[p][s]['mean_over_noise']})"
                          for p in pairs)  # fmt: skip
        print(f"{s:<22}{noise[s]!s:>14}{spread[s]!s:>10}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
