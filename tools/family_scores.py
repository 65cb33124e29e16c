"""Which seizure types a decoder scores too low, per generator (issue #12; chooses nothing).

Reads ``rt-eeg evaluate`` outputs (per-recording ``NAME.probs.npz``) of corpora whose
recordings carry their generator's own account beside the EDF: ``.xsim.json`` (an independent
generator, ``rt_eeg/xsim``: every seizure with its type) or ``.families.json`` plus ``.csv_bi``
(our simulator: the seizures' families in time order, matched to the ``.csv_bi``'s seizures in
time order). No postprocessing: per seizure, the highest top-k channel mean (the postprocessor's
cross-channel score before smoothing) during the seizure, and how long after the onset it
first reaches each level; per generator, the quantiles of the same score on background (epochs
more than 30 s before a seizure or 60 s after one). A type whose seizures peak below the
levels the operating point lives at (0.995-0.9998) is missed whatever the postprocessor does.

What the background at the top is: for an independent generator's recordings (their
``.xsim.json`` lists its background events with times: artifacts, state changes), the share of
background epochs scoring at least ``--top-level`` that overlap each event type, beside that
type's share of all background epochs. A type whose share at the top is far above its share
overall is what the false alarms at that level are made of.

Usage (SELECT v2's decodes of one seed; the lists name the EDFs)::

    python tools/family_scores.py --top-k 4 \\
        --corpus SEL=/work/sim/repro5/SEL.list:/work/sim/repro5/eval_k31s3_SEL \\
        --corpus XCC=/work/sim/repro5/XCC.list:/work/sim/repro5/eval_k31s3_XCC \\
        --out tools/results/family_scores_k31s3_sel.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from operating_point import _spec  # noqa: E402  (tools/, beside this file)

from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.postprocess import PostprocessConfig, effective_top_k  # noqa: E402

LEVELS = (0.99, 0.995, 0.998)
BACKGROUND_QUANTILES = (0.99, 0.999, 0.9999)
TOP_LEVEL = 0.995  # the operating points' middle: background above it is a false alarm's start
BEFORE_S, AFTER_S = 30.0, 60.0  # kept out of the background: pre-ictal build-up, post-ictal


def _xsim(edf: Path) -> dict | None:
    """The independent generator's ``.xsim.json`` beside ``edf``, or None (our simulator's)."""
    xsim = edf.with_suffix(".xsim.json")
    return json.loads(xsim.read_text("utf-8")) if xsim.is_file() else None


def seizures_of(edf: Path, xsim: dict | None = None) -> tuple[str, list[tuple[float, float, str]]]:
    """``(generator, [(start_s, stop_s, type), ...])`` from the files beside ``edf``
    (``xsim``: its ``.xsim.json`` already read)."""
    doc = xsim if xsim is not None else _xsim(edf)
    if doc is not None:
        return doc["generator"], [(float(a), float(b), str(t)) for a, b, t in doc["seizures"]]
    fams = edf.with_suffix(".families.json")
    if not fams.is_file():
        raise SystemExit(f"{edf}: neither .xsim.json nor .families.json beside it")
    kinds = json.loads(fams.read_text("utf-8"))["seizure"]  # one per seizure, by start time
    spans = []
    for line in edf.with_suffix(".csv_bi").read_text("utf-8").splitlines():
        parts = line.split(",")
        if len(parts) >= 4 and parts[3].strip() == "seiz":
            spans.append((float(parts[1]), float(parts[2])))
    if len(spans) != len(kinds):
        raise SystemExit(f"{edf}: {len(spans)} seizures in the .csv_bi, {len(kinds)} families "
                         f"in the .families.json")  # fmt: skip
    return "ours", [(a, b, k) for (a, b), k in zip(sorted(spans), kinds, strict=True)]


def recording_scores(probs: np.ndarray, top_k: int) -> np.ndarray:
    """``(n_epochs, n_channels)`` -> ``(n_epochs,)``: the mean of the ``top_k`` highest."""
    k = min(top_k, probs.shape[1])
    return np.sort(probs, axis=1)[:, -k:].mean(axis=1)


def family_scores(corpora: dict[str, tuple[Path, Path]], top_k: int = 4,
                  levels=LEVELS, top_level: float = TOP_LEVEL) -> dict:  # fmt: skip
    """Per ``generator/type``: seizures, their peak scores and latencies; per generator the
    background quantiles and, where events are timed, what the background at ``top_level``
    overlaps. ``corpora``: ``{name: (list file, evaluate folder)}``."""
    peaks, lats, background = defaultdict(list), defaultdict(list), defaultdict(list)
    # per generator: [background epochs, of them >= top_level, {type: [overlapping, of them top]}]
    ev_counts: dict[str, list] = {}
    for name, (lst, ev) in corpora.items():
        for line in lst.read_text("utf-8").split():
            edf = Path(line)
            npz = ev / f"{edf.stem}.probs.npz"
            if not npz.is_file():
                raise SystemExit(f"{npz}: no decoder output for {edf} (corpus {name})")
            z = np.load(npz)
            # the postprocessor's own k for these channels (fewer on a reduced montage)
            k = effective_top_k(PostprocessConfig(top_k=top_k), [str(c) for c in z["ch_names"]])
            t, score = z["epoch_starts"], recording_scores(z["probs"], k)
            xsim = _xsim(edf)
            gen, seizures = seizures_of(edf, xsim)
            near = np.zeros(len(t), bool)
            for a, b, kind in seizures:
                near |= (t + 1 > a - BEFORE_S) & (t < b + AFTER_S)
                inside = (t + 1 > a) & (t < b)
                if not inside.any():
                    continue
                s, ts = score[inside], t[inside]
                peaks[f"{gen}/{kind}"].append(float(s.max()))
                lats[f"{gen}/{kind}"].append([float(ts[s >= lv][0] + 1 - a) if (s >= lv).any()
                                              else None for lv in levels])  # fmt: skip
            background[gen].append(score[~near])
            if xsim is not None:  # timed background events: an independent generator's
                bg, top = ~near, ~near & (score >= top_level)
                c = ev_counts.setdefault(gen, [0, 0, defaultdict(lambda: [0, 0])])
                c[0] += int(bg.sum())
                c[1] += int(top.sum())
                over: dict[str, np.ndarray] = {}
                for a, b, kind in xsim.get("events", []):
                    o = over.setdefault(str(kind), np.zeros(len(t), bool))
                    o |= (t + 1 > float(a)) & (t < float(b))
                for kind, o in over.items():
                    c[2][kind][0] += int((o & bg).sum())
                    c[2][kind][1] += int((o & top).sum())
    types = {}
    for key in sorted(peaks):
        p = np.array(peaks[key])
        types[key] = {"seizures": len(p), "peak_median": round(float(np.median(p)), 4)}
        for i, lv in enumerate(levels):
            reached = [x[i] for x in lats[key] if x[i] is not None]
            types[key][f"reach_{lv}"] = round(float(np.mean(p >= lv)), 3)
            types[key][f"latency_median_s_{lv}"] = (round(float(np.median(reached)), 1)
                                                    if reached else None)  # fmt: skip
    gens = {}
    for gen, parts in sorted(background.items()):
        b = np.concatenate(parts)
        gens[gen] = {"background_epochs": int(b.size)} | {
            f"q{q}": round(float(np.quantile(b, q)), 4) for q in BACKGROUND_QUANTILES
        } if b.size else {"background_epochs": 0}
        if gen in ev_counts:
            n_bg, n_top, per = ev_counts[gen]
            gens[gen]["top_level"] = top_level
            gens[gen]["epochs_at_top"] = n_top
            # share of the top epochs / of all background epochs overlapping each event type
            gens[gen]["events_at_top"] = {
                kind: {"share_top": round(v[1] / n_top, 3) if n_top else None,
                       "share_all": round(v[0] / n_bg, 3) if n_bg else None}
                for kind, v in sorted(per.items(), key=lambda kv: -kv[1][1])
            }  # fmt: skip
    return {"top_k": top_k, "levels": list(levels), "top_level": top_level, "types": types,
            "generators": gens}  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", required=True, metavar="NAME=LIST:EVAL_DIR")
    ap.add_argument("--top-k", type=int, default=4)
    ap.add_argument("--top-level", type=float, default=TOP_LEVEL,
                    help="background epochs at or above this score are attributed to the "
                         "generator's events (default %(default)s)")  # fmt: skip
    ap.add_argument("--out", help="write the figures here as JSON")
    args = ap.parse_args(argv)
    corpora = {}
    for spec in args.corpus:
        try:
            name, lst, ev = _spec(spec, "--corpus")
        except RtEegError as e:
            raise SystemExit(str(e)) from None
        if not (Path(lst).is_file() and Path(ev).is_dir()):
            raise SystemExit(f"--corpus {spec!r}: expected NAME=an existing list:an evaluate folder")
        corpora[name] = (Path(lst), Path(ev))
    doc = {"command": " ".join(sys.argv)} | family_scores(corpora, args.top_k, top_level=args.top_level)
    for gen, g in doc["generators"].items():
        print(f"{gen:8s} background " + ", ".join(f"{k} {v}" for k, v in g.items()
                                                   if k != "events_at_top"))  # fmt: skip
        top = list(g.get("events_at_top", {}).items())[:6]
        if top:
            print(f"{'':8s} at >= {g['top_level']}: " + ", ".join(
                f"{k} {v['share_top']} ({v['share_all']})" for k, v in top))
    for key, t in doc["types"].items():
        print(f"{key:36s} n={t['seizures']:3d} peak median {t['peak_median']:.4f}  "
              + "  ".join(f">={lv}: {t[f'reach_{lv}']:.2f}" for lv in doc["levels"]))  # fmt: skip
    if args.out:
        write_json_atomic(args.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
