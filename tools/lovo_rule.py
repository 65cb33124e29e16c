"""An operating-point rule judged leave-one-voice-out over the SELECT voices (amendment 31).

Choosing a postprocess point on the very voices it is scored on flatters a larger grid: more
points, more chances that one is lucky on these recordings. Here every rule is scored on voices
it did not choose on: for each seed and each voice v, the rule chooses on the other voices
(their means, as ``operating_point.py --weigh corpora``) and v is scored at that point. A
seed's figure is the mean over its held-out voices of sensitivity, FA/24 h and median onset
(voices with a detection); a (grid, rule) pair's figure is the mean over seeds.

It reads the per-voice trials ``tools/operating_point.py --weigh corpora`` stored
(``trials_pool[i]["corpora"]``); no postprocessing is re-run. Per seed, the first JSON is the
status-quo grid G0 and all of them together are G1 (e.g. ``--grid strict`` then ``--grid
dual``). Rules: R0 :func:`rt_eeg.tuning.choose_trial` (the most sensitive, then the earliest
onset); R1 the same with ``--slack`` (the earliest onset within that many points of the best).

The candidate (G1, R1) is adopted over (G0, R0) iff its mean held-out onset is at least
``--min-gain-s`` earlier, its mean held-out sensitivity at most ``--max-sens-loss`` lower and
its mean held-out FA/24 h at most ``--max-fa-rise`` higher (the amendment's clauses; the TUH
veto is checked separately, on the shipped point).

Usage::

    python tools/lovo_rule.py --slack 2 \\
        --seed k15=tools/results/operating_point_k15_sel5.json,tools/results/operating_point_k15_sel5_dual.json \\
        --seed k15s1=... --out tools/results/lovo_amend31.json
"""

from __future__ import annotations

import argparse
import json
import sys
from statistics import mean

from operating_point import load_corpora_result, macro_trials

from rt_eeg.errors import RtEegError
from rt_eeg.io.atomic import write_json_atomic
from rt_eeg.tuning import choose_trial

COMBOS = {"G0R0": ("G0", False), "G0R1": ("G0", True), "G1R0": ("G1", False),
          "G1R1": ("G1", True)}  # fmt: skip


def load_trials(path: str) -> list[dict]:
    """The per-voice trials of one ``--weigh corpora`` run; RtEegError naming the file."""
    return load_corpora_result(path)["trials_pool"]


def per_voice(trials: list[dict]) -> dict[str, list[dict]]:
    """``{voice: trials in grid order}`` from the stored macro trials."""
    voices = list(trials[0]["corpora"])
    for t in trials:
        if list(t["corpora"]) != voices:
            raise RtEegError(f"trials hold different voices: {list(t['corpora'])} vs {voices}")
    return {v: [t["corpora"][v] for t in trials] for v in voices}


def _mean(values: list) -> float | None:
    """The mean of the values that exist (None when none does)."""
    vals = [v for v in values if v is not None]
    return mean(vals) if vals else None


def _held(t: dict) -> dict:
    return {k: t.get(k) for k in ("sensitivity", "fa_per_24h", "latency_median_s", "hits",
                                  "targets", "false_alarms")}  # fmt: skip


def lovo(per: dict[str, list[dict]], target_fa: float, slack: float) -> dict:
    """Leave-one-voice-out figures of one rule on one seed's grid.

    Parameters
    ----------
    per : dict
        ``{voice: trials}``, each list in the same grid order.
    target_fa : float
        FA/24 h target on the mean over the choosing voices.
    slack : float
        :func:`rt_eeg.tuning.choose_trial`'s ``sens_slack`` (0: rule R0).

    Returns
    -------
    dict
        ``folds`` (per held-out voice: its figures at the point chosen on the others, and that
        point), the means over folds, and ``all`` (the point chosen on every voice, in-sample).
    """
    voices = list(per)
    folds = {}
    for v in voices:
        sub = macro_trials({u: per[u] for u in voices if u != v})
        i = choose_trial(sub, target_fa, slack)
        folds[v] = _held(per[v][i]) | {"config": per[v][i].get("config")}
    everything = macro_trials(per)
    i = choose_trial(everything, target_fa, slack)
    return {
        "sensitivity": _mean([f["sensitivity"] for f in folds.values()]),
        "fa_per_24h": mean(f["fa_per_24h"] for f in folds.values()),
        "latency_median_s": _mean([f["latency_median_s"] for f in folds.values()]),
        "folds": folds,
        "all": {k: everything[i][k] for k in ("sensitivity", "fa_per_24h", "latency_median_s")}
        | {"config": per[voices[0]][i].get("config")},
    }  # fmt: skip


def judge(seeds: dict[str, list[str]], target_fa: float, slack: float, min_gain_s: float,
          max_sens_loss: float, max_fa_rise: float) -> dict:  # fmt: skip
    """Every combo's leave-one-voice-out figures per seed, their means over seeds, and the
    amendment's decision of (G1, R1) over (G0, R0)."""
    out: dict = {"seeds": {}, "means": {}}
    for name, paths in seeds.items():
        g0 = load_trials(paths[0])
        g1 = g0 + [t for p in paths[1:] for t in load_trials(p)]
        grids = {"G0": per_voice(g0), "G1": per_voice(g1)}
        out["seeds"][name] = {c: lovo(grids[g], target_fa, slack if r1 else 0.0)
                              for c, (g, r1) in COMBOS.items()}  # fmt: skip
    for c in COMBOS:
        rows = [s[c] for s in out["seeds"].values()]
        out["means"][c] = {k: _mean([r[k] for r in rows])
                           for k in ("sensitivity", "fa_per_24h", "latency_median_s")}  # fmt: skip
    q, c = out["means"]["G0R0"], out["means"]["G1R1"]
    if None in (q["latency_median_s"], c["latency_median_s"], q["sensitivity"], c["sensitivity"]):
        raise RtEegError("no seed detected a seizure on a held-out voice: nothing to compare")
    gain = q["latency_median_s"] - c["latency_median_s"]
    loss = q["sensitivity"] - c["sensitivity"]
    rise = c["fa_per_24h"] - q["fa_per_24h"]
    out["decision"] = {
        "onset_gain_s": gain, "sensitivity_loss": loss, "fa_rise": rise,
        "clauses": {"min_gain_s": min_gain_s, "max_sens_loss": max_sens_loss,
                    "max_fa_rise": max_fa_rise},
        "adopted": gain >= min_gain_s and loss <= max_sens_loss and rise <= max_fa_rise,
    }  # fmt: skip
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", action="append", required=True,
                   help="NAME=G0_JSON[,MORE_JSON...] (operating_point.py --weigh corpora runs)")  # fmt: skip
    p.add_argument("--target-fa", type=float, default=5.0)
    p.add_argument("--slack", type=float, default=2.0, help="R1's sensitivity slack (points)")
    p.add_argument("--min-gain-s", type=float, default=2.0)
    p.add_argument("--max-sens-loss", type=float, default=2.0)
    p.add_argument("--max-fa-rise", type=float, default=1.0)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    try:
        seeds = {}
        for s in args.seed:
            name, sep, paths = s.partition("=")
            if not (sep and name and paths):
                raise RtEegError(f"--seed {s!r}: expected NAME=JSON[,JSON...]")
            seeds[name] = paths.split(",")
        doc = judge(seeds, args.target_fa, args.slack, args.min_gain_s, args.max_sens_loss,
                    args.max_fa_rise)  # fmt: skip
    except RtEegError as err:
        print(f"lovo_rule: {err}", file=sys.stderr)
        return 2
    doc = {"command": " ".join(sys.argv), "target_fa_per_24h": args.target_fa,
           "slack": args.slack} | doc  # fmt: skip
    write_json_atomic(args.out, doc)
    print(json.dumps({"means": doc["means"], "decision": doc["decision"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
