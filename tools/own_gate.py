"""The own-distribution gate (amendment 37): O + O2 scored together, per seizure family.

Reads ``rt-eeg evaluate`` output folders of one model on the own-distribution held-out corpora
(O and O2: our simulator's TRAIN families on patients never seen) and the corpora themselves,
and writes, as JSON, the union's OVLP sensitivity and false alarms per 24 h (the sums of each
folder's NEDC OVLP counts, so the figures are the scorer's own) and, per seizure family, how many
were found (``tools/model_card.py``'s ``per_family``, the model card's own count: each
recording's ``.families.json`` sidecar, any-overlap the way OVLP counts a hit). The per-family
totals are checked against the scorer's hits, and every decoded recording must lie under the
corpus given, so a mismatched corpus fails loudly.

Usage::

    python tools/own_gate.py --model K28s1=/work/sim/o/eval_k28s1_O:/work/sim/recipe/O,\\
/work/sim/o/eval_k28s1_O2:/work/sim/recipe/O2 --out tools/results/own_gate_k28.json

The gate passes at >= 95 % sensitivity and <= 1 FA/24 h (``--min-sens``, ``--max-fa``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/, for model_card

from model_card import per_family as per_family_of  # noqa: E402
from model_card import time_called  # noqa: E402

from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402


def score_corpus(eval_dir: Path, corpus: Path) -> dict:
    """One corpus's OVLP counts (from ``report.json``) and its per-family found / seizures
    (:func:`model_card.per_family`), checked against the scorer's counts.

    Returns
    -------
    dict
        ``hits``, ``targets``, ``false_alarms``, ``hours``, ``per_family`` (family ->
        {"found", "seizures", "sensitivity"}) and ``time_called`` (:func:`model_card.time_called`).
    """
    report_path = eval_dir / "report.json"
    if not report_path.is_file():
        raise RtEegError("no report.json (has rt-eeg evaluate finished there?)", report_path)
    report = json.loads(report_path.read_text())
    if report["failed"]:
        raise RtEegError(f"{len(report['failed'])} recording(s) failed to decode", report_path)
    root = corpus.resolve()
    for row in report.get("recordings", []):
        if not Path(row["edf"]).resolve().is_relative_to(root):
            raise RtEegError(f"{row['edf']} was decoded there, not a recording of {corpus}", report_path)
    ovlp = report["scores"]["ovlp"]["seiz"]
    per_family = per_family_of(report)
    n_ref = sum(v["seizures"] for v in per_family.values())
    found = sum(v["found"] for v in per_family.values())
    # a recording without its sidecar or hypothesis is left out by per_family: caught here
    if n_ref != ovlp["targets"] or found != ovlp["hits"]:
        raise RtEegError(f"per-family count {found}/{n_ref} differs from the scorer's "
                         f"{ovlp['hits']}/{ovlp['targets']} (another corpus?)", eval_dir)  # fmt: skip
    return {"hits": ovlp["hits"], "targets": ovlp["targets"], "false_alarms": ovlp["false_alarms"],
            "hours": report["hours"], "per_family": per_family,
            "time_called": time_called(report)}  # fmt: skip


def gate(pairs: list[tuple[Path, Path]], min_sens: float, max_fa: float) -> dict:
    """The union of ``(eval_dir, corpus)`` pairs against the gate."""
    parts = [{"eval": str(ev), "corpus": str(corpus)} | score_corpus(ev, corpus) for ev, corpus in pairs]
    hits = sum(p["hits"] for p in parts)
    targets = sum(p["targets"] for p in parts)
    fas = sum(p["false_alarms"] for p in parts)
    hours = sum(p["hours"] for p in parts)
    sens = 100.0 * hits / targets if targets else 0.0
    fa24 = fas * 24.0 / hours if hours else 0.0
    # amendment 52: how long the alarms last, which the OVLP figures cannot see
    tcs = [p["time_called"] for p in parts if p["time_called"]]
    called, ref = sum(t["called_s"] for t in tcs) / 3600, sum(t["reference_s"] for t in tcs) / 3600
    return {"union_sensitivity": round(sens, 1), "union_fa_per_24h": round(fa24, 2), "hits": hits,
            "targets": targets, "false_alarms": fas, "hours": round(hours, 2),
            "time_called_h": round(called, 2), "reference_seizure_h": round(ref, 2),
            "flag_ratio": round(called / ref, 2) if ref else None,
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
              f"({m['hits']}/{m['targets']}, {m['false_alarms']} FA in {m['hours']} h; seizure called "
              f"{m['time_called_h']} h of the reference's {m['reference_seizure_h']} h): "
              f"{'passes' if m['passes'] else 'fails'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
