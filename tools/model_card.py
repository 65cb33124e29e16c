"""Collect a model's held-out figures into its manifest and print the README model card.

Reads what ``tools/make_default_model.sh`` produced under ``--work``:

- ``eval_S/report.json``: the SELECT families (unseen in training; every choice was made here);
- ``eval_U/report.json``, ``eval_U2/report.json``: the REPORT families (unseen in training and
  in every choice; two seeds);
- ``eval_O/report.json``: the training families on patients never seen (own distribution);
- ``eval_R/report.json``: the fresh REPORT2 families (no corpus that trains, selects or tunes
  holds them);
- ``eval_XS``, ``eval_XR``, ``eval_XRB``, ``eval_XCC``, ``eval_XTD``, ``eval_XEB``, ``eval_XHB``:
  corpora of the independently written generators (``rt_eeg/xsim``): SELECT (nmm), REPORT
  (atlas; XRB at real TUSZ seizure times; tide), the confirmation of protocol amendment 7
  (mvar), and two generators the model trains on at real TUSZ times (epileptor, hopf);
- ``tools/results/real_checks_<model>.json``: real EEG (``tools/real_checks.py``).

Per seizure family, OVLP sensitivity is computed from each recording's
``<stem>.families.json`` sidecar (family of each seizure, in time order) and the run's
``.csv_bi`` hypothesis. Writes ``heldout`` into the model's ``manifest.json`` (atomically) and
prints Markdown for the README.

Each corpus also gets the seizure time its hypotheses call against the reference's
(``time_called``): OVLP counts an alarm that never ends as one hit (protocol amendment 52).

Usage::

    python tools/model_card.py --model models/default --work /work/sim/recipe
    python tools/model_card.py --time-called /work/sim/report/eval_default_U ...   # table only
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.io.annotations import read_csv_bi  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

ROLES = {
    "O": "own distribution: training families, unseen patients",
    "O2": "own distribution drawn like O, 18 more unseen patients (the gate is O + O2)",
    "S": "SELECT families, S + S2 (unseen in training; used for every choice)",
    "U": "REPORT families (unseen in training and in every choice)",
    "U2": "REPORT families, another seed (unseen in training and in every choice)",
    "R": "REPORT2: the fresh families (hypnagogic, mu, lambda, phantom 6 Hz spike-wave, photic) "
         "with REPORT seizures; held out of everything",
    "XS": "SELECT generator nmm (written independently; early stopping, the choice and, with "
          "S + S2, the operating point)",
    "XR": "REPORT generator atlas (written independently; used for nothing else)",
    "XRB": "REPORT generator atlas at the real TUSZ v2 sample's seizure times, rates and montages",
    "XCC": "generator mvar (written after round 2; XC + XCB at real TUSZ times): the confirmation "
           "of protocol amendment 7, which chose between K5 and K6",
    "XTD": "REPORT generator tide (written 2026-11-26; trained, selected and tuned on by no model)",
    "XEB": "generator epileptor at the real TUSZ v2 sample's seizure times: a generator the model "
           "trains on (XE), recordings it never saw",
    "XHB": "generator hopf at the real TUSZ v2 sample's seizure times: a generator the model trains "
           "on (XH), recordings it never saw",
}


def _summary(report: dict, nd: int = 2) -> dict:
    """A report's figures at its operating point, rounded to ``nd`` decimals."""
    s = report.get("scores") or {}
    ov, ta = s.get("ovlp", {}).get("seiz", {}), s.get("taes", {}).get("seiz", {})
    lat = report.get("onset_latency_s", {})
    n_seiz = int(ov.get("targets", 0) or 0)
    return {
        "recordings": report.get("n_recordings"),
        "hours": round(float(report.get("hours", 0.0)), 2),
        "seizures": n_seiz or None,
        "ovlp_sensitivity": _r(ov.get("sensitivity"), nd),
        "ovlp_fa_per_24h": _r(ov.get("fa_per_24h"), nd),
        "operating_point_fast_path": report.get("operating_point"),
        "taes_sensitivity": _r(ta.get("sensitivity"), nd),
        "taes_fa_per_24h": _r(ta.get("fa_per_24h"), nd),
        "onset_latency_s": {k: _r(v, nd) for k, v in lat.items()},
        "time_called": time_called(report),
        "postprocess": report.get("postprocess"),
        "command": report.get("command"),
    }


def time_called(report: dict) -> dict | None:
    """Seizure time the run's hypotheses call against the reference's seizure time, over its
    scored recordings (protocol amendment 52: OVLP counts an alarm that never ends as one hit
    and no false alarm; this does not). None when no recording has both files.

    Returns
    -------
    dict or None
        ``called_h``, ``reference_h`` (and unrounded, ``called_s``, ``reference_s``), ``ratio``
        (called / reference; None without reference seizures) and ``longest_event_s``, the
        longest SEIZ event called.
    """
    from rt_eeg.io.annotations import read_annotation

    called = ref = longest = 0.0
    n = 0
    for row in report.get("recordings", []):
        hyp, ref_path = row.get("csv_bi"), row.get("ref")
        if row.get("status") == "failed" or not (hyp and ref_path):
            continue
        if not (Path(hyp).is_file() and Path(ref_path).is_file()):
            continue
        spans = [e.stop - e.start for e in read_csv_bi(hyp).events if e.label == "seiz"]
        called += sum(spans)
        longest = max([longest, *spans])
        ref += sum(e.stop - e.start for e in read_annotation(ref_path).events if e.label != "bckg")
        n += 1
    if not n:
        return None
    return {"called_h": round(called / 3600, 2), "reference_h": round(ref / 3600, 2),
            "called_s": round(called, 1), "reference_s": round(ref, 1),
            "ratio": round(called / ref, 2) if ref else None, "longest_event_s": round(longest, 1)}  # fmt: skip


def _r(v, nd: int = 2):
    return None if v is None else round(float(v), nd)


def per_family(report: dict) -> dict:
    """OVLP hits per seizure family from the sidecars and the hypotheses."""
    from rt_eeg.io.annotations import read_annotation

    fam: dict[str, list[int]] = {}
    for row in report.get("recordings", []):
        edf = Path(row["edf"])
        side = edf.with_suffix(".families.json")
        xside = edf.with_suffix(".xsim.json")  # an independent generator's seizure types
        ref_path = edf.with_suffix(".csv_bi")
        if not (side.is_file() or xside.is_file()) or not ref_path.is_file():
            continue
        if not Path(row.get("csv_bi", "")).is_file():
            continue
        if side.is_file():
            names = json.loads(side.read_text("utf-8")).get("seizure", [])
        else:
            names = [sz[2] for sz in json.loads(xside.read_text("utf-8")).get("seizures", [])]
        refs = [e for e in read_annotation(ref_path).events if e.label != "bckg"]
        hyps = [e for e in read_csv_bi(row["csv_bi"]).events if e.label == "seiz"]
        for name, r in zip(names, sorted(refs, key=lambda e: e.start), strict=False):
            hit = any(h.start < r.stop and h.stop > r.start for h in hyps)
            fam.setdefault(name, [0, 0])
            fam[name][0] += int(hit)
            fam[name][1] += 1
    return {k: {"found": v[0], "seizures": v[1], "sensitivity": round(100 * v[0] / v[1], 1)}
            for k, v in sorted(fam.items())}  # fmt: skip


def _print_time_called(dirs: list[Path]) -> int:
    print("| evaluate folder | hours | OVLP sens. | TAES sens. | time called seizure | reference's | "
          "ratio | longest event |")
    print("|---|---|---|---|---|---|---|---|")
    for d in dirs:
        rp = d / "report.json"
        try:
            rep = json.loads(rp.read_text("utf-8"))
        except (OSError, ValueError) as err:
            print(f"model_card: {rp}: not an rt-eeg evaluate report ({err})", file=sys.stderr)
            return 2
        s, tc = _summary(rep), time_called(rep)
        if tc is None:
            print(f"model_card: {rp}: no recording with both its hypothesis and its reference", file=sys.stderr)
            return 2
        print(f"| {d} | {s['hours']} | {s['ovlp_sensitivity']} % | {s['taes_sensitivity']} % | "
              f"{tc['called_h']} h | {tc['reference_h']} h | {tc['ratio']} | {tc['longest_event_s']:.0f} s |")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(ROOT / "models" / "default"))
    ap.add_argument("--work", help="the recipe's work folder (eval_<corpus>/ of the model)")
    ap.add_argument("--eval-prefix", help="the evaluations' folders are PREFIX_<corpus>/ "
                                          "(default: WORK/eval)")  # fmt: skip
    ap.add_argument("--time-called", nargs="+", type=Path, metavar="EVAL_DIR",
                    help="only print the seizure time each rt-eeg evaluate folder calls against "
                         "the reference's (no manifest is written)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.time_called:
        return _print_time_called(args.time_called)
    if not args.work:
        ap.error("--work is required (unless --time-called)")
    model, work = Path(args.model), Path(args.work)
    prefix = args.eval_prefix or str(work / "eval")
    manifest_path = model / "manifest.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    held: dict = {}
    for key, what in ROLES.items():
        rp = Path(f"{prefix}_{key}") / "report.json"
        sp = Path(f"{prefix}_{key}") / "sweep.json"
        if rp.is_file():
            rep = json.loads(rp.read_text("utf-8"))
            held[key] = {"what": what, **_summary(rep), "per_family": per_family(rep)}
        elif sp.is_file():  # the tuning corpus: its figures at the chosen operating point
            sw = json.loads(sp.read_text("utf-8"))
            after = sw["after"]
            held[key] = {
                "what": what, "ovlp_sensitivity": _r(after.get("sensitivity")),
                "ovlp_fa_per_24h": _r(after.get("fa_per_24h")), "seizures": after.get("targets"),
                "taes_sensitivity": None, "taes_fa_per_24h": None, "hours": None,
                "onset_latency_s": {"median": _r(after.get("latency_median_s"))},
                "tuned_here": True, "per_family": {},
            }  # fmt: skip
        else:
            print(f"model_card: {rp} not found; {key} left out", file=sys.stderr)
    rc = ROOT / "tools" / "results" / f"real_checks_{model.name}.json"
    if rc.is_file():
        real = json.loads(rc.read_text("utf-8"))
        held["real"] = {
            "chbmit": {p: {m: {"auc": _r(v["auc"], 3), "ictal_pass": v["ictal_pass"],
                               "preictal_pass": v["preictal_pass"], "n": v["n"]}
                           for m, v in res.items()}
                       for p, res in real["chbmit"]["patients"].items()},
            "tuh_background_seiz_epochs": real["tuh_background"]["total_seiz_epochs"],
            "bonn": {k: _r(v, 3) for k, v in real.get("bonn", {}).items() if k.startswith("auc")},
        }  # fmt: skip
    manifest["heldout"] = held
    write_json_atomic(manifest_path, manifest)

    print("| corpus | hours | OVLP sens. | OVLP FA/24h | TAES sens. | onset latency median / p90 "
          "| time called seizure / reference's (longest event) |")
    print("|---|---|---|---|---|---|---|")
    for key in ROLES:
        h = held.get(key)
        if h:
            lat, tc = h["onset_latency_s"], h.get("time_called")
            called = (f"{tc['called_h']} h / {tc['reference_h']} h ({tc['longest_event_s']:.0f} s)"
                      if tc else "-")  # fmt: skip
            print(f"| {key}: {h['what']} | {h['hours']} | {h['ovlp_sensitivity']} % | "
                  f"{h['ovlp_fa_per_24h']} | {h['taes_sensitivity']} % | "
                  f"{lat.get('median')} s / {lat.get('p90')} s | {called} |")  # fmt: skip
    for key in (k for k in ROLES if k != "O"):
        h = held.get(key)
        if h and h["per_family"]:
            print(f"\n{key} per seizure family: " + ", ".join(
                f"{k} {v['found']}/{v['seizures']}" for k, v in h["per_family"].items()))
    if "real" in held:
        r = held["real"]
        print("\nreal EEG: " + "; ".join(
            f"CHB-MIT {p} {m} AUC {v['auc']}" for p, res in r["chbmit"].items() for m, v in res.items()
        ) + f"; TUH background SEIZ epochs {r['tuh_background_seiz_epochs']}; Bonn {r['bonn']}")
    print(f"\nwrote heldout into {manifest_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
