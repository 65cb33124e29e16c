"""The own-distribution gate (amendment 37): O + O2 scored together, per seizure family.

Reads ``rt-eeg evaluate`` output folders of one model on the own-distribution held-out corpora
(O and O2: our simulator's TRAIN families on patients never seen) and the corpora themselves,
and writes, as JSON, the union's OVLP sensitivity and false alarms per 24 h (the sums of each
folder's NEDC OVLP counts, so the figures are the scorer's own) and, per seizure family (from
each recording's ``.families.json`` sidecar, seizures in time order), how many were found:
a reference seizure is found when a hypothesis SEIZ event of the same recording overlaps it
(any-overlap, the way OVLP counts a hit; the per-family totals are checked against the
scorer's hits so a mismatched corpus fails loudly).

Usage::

    python tools/own_gate.py --model K28s1=/work/sim/o/eval_k28s1_O:/work/sim/recipe/O,\\
/work/sim/o/eval_k28s1_O2:/work/sim/recipe/O2 --out tools/results/own_gate_k28.json

The gate passes at >= 95 % sensitivity and <= 1 FA/24 h (``--min-sens``, ``--max-fa``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations.tusz_csv import read_csv_bi
from rt_eeg.io.atomic import write_json_atomic
from rt_eeg.sim.families import read_families


def _seizures(annotation) -> list[tuple[float, float]]:
    return sorted((e.start, e.stop) for e in annotation.events if e.label != "bckg")


def score_corpus(eval_dir: Path, corpus: Path) -> dict:
    """One corpus's OVLP counts (from ``report.json``) and its per-family found / seizures.

    Returns
    -------
    dict
        ``hits``, ``targets``, ``false_alarms``, ``hours`` and ``per_family``
        (family -> {"found", "seizures"}).
    """
    report_path = eval_dir / "report.json"
    if not report_path.is_file():
        raise RtEegError("no report.json (has rt-eeg evaluate finished there?)", report_path)
    report = json.loads(report_path.read_text())
    if report["failed"]:
        raise RtEegError(f"{len(report['failed'])} recording(s) failed to decode", report_path)
    ovlp = report["scores"]["ovlp"]["seiz"]
    per_family: dict[str, dict[str, int]] = defaultdict(lambda: {"found": 0, "seizures": 0})
    n_ref = 0
    for ref_path in sorted(corpus.rglob("*.csv_bi")):
        refs = _seizures(read_csv_bi(ref_path))
        families = read_families(ref_path.with_suffix(".edf"))["seizure"]
        if len(families) != len(refs):
            raise RtEegError(f"{len(refs)} seizures annotated but {len(families)} families in the sidecar", ref_path)
        hyp_path = eval_dir / ref_path.name
        if not hyp_path.is_file():
            raise RtEegError("no hypothesis for this recording", hyp_path)
        hyps = _seizures(read_csv_bi(hyp_path))
        for (a, b), fam in zip(refs, families, strict=True):
            per_family[fam]["seizures"] += 1
            per_family[fam]["found"] += any(s < b and e > a for s, e in hyps)
        n_ref += len(refs)
    found = sum(v["found"] for v in per_family.values())
    if n_ref != ovlp["targets"] or found != ovlp["hits"]:
        raise RtEegError(f"per-family count {found}/{n_ref} differs from the scorer's "
                         f"{ovlp['hits']}/{ovlp['targets']} (another corpus?)", eval_dir)  # fmt: skip
    return {"hits": ovlp["hits"], "targets": ovlp["targets"], "false_alarms": ovlp["false_alarms"],
            "hours": report["hours"], "per_family": dict(sorted(per_family.items()))}  # fmt: skip


def gate(pairs: list[tuple[Path, Path]], min_sens: float, max_fa: float) -> dict:
    """The union of ``(eval_dir, corpus)`` pairs against the gate."""
    parts = [{"eval": str(ev), "corpus": str(corpus)} | score_corpus(ev, corpus) for ev, corpus in pairs]
    hits = sum(p["hits"] for p in parts)
    targets = sum(p["targets"] for p in parts)
    fas = sum(p["false_alarms"] for p in parts)
    hours = sum(p["hours"] for p in parts)
    sens = 100.0 * hits / targets if targets else 0.0
    fa24 = fas * 24.0 / hours if hours else 0.0
    return {"union_sensitivity": round(sens, 1), "union_fa_per_24h": round(fa24, 2), "hits": hits,
            "targets": targets, "false_alarms": fas, "hours": round(hours, 2),
            "passes": sens >= min_sens and fa24 <= max_fa, "corpora": parts}  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", required=True, metavar="NAME=EVAL:CORPUS,EVAL:CORPUS",
                    help="a model's evaluate folders, each with the corpus it decoded")  # fmt: skip
    ap.add_argument("--min-sens", type=float, default=95.0)
    ap.add_argument("--max-fa", type=float, default=1.0)
    ap.add_argument("--note", default="", help="recorded in the JSON (which amendment, which point)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    try:
        models = {}
        for spec in args.model:
            name, _, rest = spec.partition("=")
            pairs = []
            for item in rest.split(","):
                ev, sep, corpus = item.partition(":")
                if not sep:
                    raise RtEegError(f"--model {spec!r}: expected EVAL:CORPUS pairs")
                pairs.append((Path(ev), Path(corpus)))
            models[name] = gate(pairs, args.min_sens, args.max_fa)
    except RtEegError as err:
        print(f"own_gate: {err}", file=sys.stderr)
        return 2
    out = {"gate": f">= {args.min_sens:g} % OVLP at <= {args.max_fa:g} FA/24 h on the union", "note": args.note,
           "models": models}  # fmt: skip
    write_json_atomic(args.out, out)
    for name, m in models.items():
        print(f"{name}: {m['union_sensitivity']} % at {m['union_fa_per_24h']} FA/24 h "
              f"({m['hits']}/{m['targets']}, {m['false_alarms']} FA in {m['hours']} h): "
              f"{'passes' if m['passes'] else 'fails'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
