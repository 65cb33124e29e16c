"""Long fuzz run over every user input: ``python tools/fuzz_inputs.py --cases N``.

Runs each target of ``tests/fuzz_cases.py`` (EDF header fields, truncation, EDF+D, signals
and calibrations, annotation files, list files, TOML configs) with Hypothesis for about
``N / 7`` examples each, never stopping at a finding: every outcome is counted and every
finding (an exception other than RtEegError, a multi-line or anonymous error, an accepted
input that breaks an invariant) is recorded with a reproducer. Writes
``tools/results/fuzz_inputs.json``. The CI tests (``tests/test_fuzz_inputs.py``) run the
same targets with a fixed seed and a small budget.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import hypothesis  # noqa: E402
from fuzz_cases import TARGETS, check  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402


def run_target(name: str, strategy, n: int, seed: int) -> dict:
    counts: Counter = Counter()
    errors: Counter = Counter()
    findings: dict[str, dict] = {}
    t0 = time.perf_counter()

    # generate only: the property never fails (findings are recorded), nothing to shrink
    @settings(max_examples=n, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(case=strategy)
    def prop(case):
        out = check(case)
        counts[out.kind] += 1
        if out.kind == "error":
            # group messages by their first words (the field or problem), not the values
            errors[" ".join(out.detail.split()[:4])] += 1
        if out.kind == "finding" and out.detail not in findings:
            kind, data = case
            findings[out.detail] = {"kind": kind, "detail": out.detail, "size": len(data),
                                    "input_b64": base64.b64encode(data[:4096]).decode()}  # fmt: skip

    hypothesis.seed(seed)(prop)()
    return {
        "examples": sum(counts.values()),
        "outcomes": dict(counts),
        "seconds": round(time.perf_counter() - t0, 1),
        "top_errors": dict(errors.most_common(15)),
        "findings": list(findings.values()),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=2000, help="total examples over all targets")
    p.add_argument("--seed", type=int, default=0, help="random seed (recorded in the JSON)")
    p.add_argument("--only", nargs="*", help="targets to run (default: all)")
    p.add_argument("--out", default=str(ROOT / "tools" / "results" / "fuzz_inputs.json"))
    args = p.parse_args(argv)
    names = args.only or list(TARGETS)
    per = max(1, args.cases // len(names))
    report = {"cases_requested": args.cases, "seed": args.seed, "targets": {}}
    for name in names:
        print(f"{name}: {per} cases ...", flush=True)
        res = run_target(name, TARGETS[name], per, args.seed)
        report["targets"][name] = res
        print(f"  {res['outcomes']} in {res['seconds']} s; findings {len(res['findings'])}",
              flush=True)  # fmt: skip
        for f in res["findings"][:5]:
            print(f"    FINDING {f['detail'][:160]}", flush=True)
    report["total_examples"] = sum(t["examples"] for t in report["targets"].values())
    report["total_findings"] = sum(len(t["findings"]) for t in report["targets"].values())
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}")
    tmp.write_text(json.dumps(report, indent=2) + "\n")
    os.replace(tmp, out)
    print(f"{report['total_examples']} cases, {report['total_findings']} findings -> {out}")
    return 1 if report["total_findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
