"""How much a per-recording calibration of the cross-channel score could give, at best
(issue #12; chooses nothing).

The one shared threshold fails where some generators' background scores as high as other
generators' seizures. If that were a *level* each recording keeps (a restless patient whose
whole background sits high), subtracting the recording's own background level from its score
would separate seizures from background across recordings better than the absolute score.
This tool measures the best such a calibration could do: per recording, the score's logit is
shifted by its **own background's** median (or 0.99 quantile) over the **whole** recording, an
oracle that knows the labels and the future; and what a causal one does: shifted by the 0.99
quantile of the ``CAUSAL_WINDOW`` epochs that ended ``CAUSAL_LAG`` epochs earlier, labels unseen
(the lag keeps a seizure's own first epochs out of its reference; nothing before
``CAUSAL_WARM`` epochs of history, scored as -inf). It reads
``rt-eeg evaluate`` outputs (``NAME.probs.npz``) and the ``.csv_bi`` references, with no
postprocessing beyond the score itself (each channel averaged over the last 2 epochs, the mean
of the ``--top-k`` highest channels).

Per corpus and pooled over all of them it reports the epoch-level ROC AUC of seizure against
background for the absolute and the shifted scores, and, at the pooled background's
``--tail`` quantile (a false-alarm level shared by every corpus), the share of each corpus's
seizure epochs above it and the background epochs above it. Where the oracle shifts lift the
tail share and the causal one does not, the gain lives in knowing which epochs are seizure (a
missed seizure, or an earlier one, raises its recording's reference), which no causal
calibration has: the false alarms are events, not a level the recording keeps.

Usage::

    python tools/recording_shift.py \\
        --corpus SS=/work/sim/repro5/SS.list:/work/sim/repro5/eval_k15ps12a_SEL \\
        --corpus XS=/work/sim/repro5/XS.list:/work/sim/repro5/eval_k15ps12a_SEL \\
        --out tools/results/recording_shift_k15ps12a.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from operating_point import _spec  # noqa: E402  (tools/, beside this file)
from postprocess_candidates import load_corpus  # noqa: E402

from rt_eeg.cross_channel import logit  # noqa: E402
from rt_eeg.dev_metrics import roc_auc  # noqa: E402
from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.postprocess import PostprocessConfig, score_series  # noqa: E402

SHIFTS = ("absolute", "oracle_minus_median", "oracle_minus_q99", "causal_minus_q99")
CAUSAL_WINDOW, CAUSAL_LAG, CAUSAL_WARM = 600, 30, 60


def recording_logits(stored: dict, ann, top_k: int, smooth: int = 2) -> tuple[dict, np.ndarray]:
    """One recording's score logits, absolute and shifted, and its seizure mask.

    Returns
    -------
    scores : dict of str -> ndarray, shape (n_epochs,)
        ``SHIFTS``' scores.
    seizure : ndarray of bool, shape (n_epochs,)
        Epochs overlapping a reference seizure.
    """
    # the postprocessor's own score: channels averaged over the last `smooth` epochs, top-k mean
    cfg = PostprocessConfig(top_k=top_k, top_k_reduced=top_k, smooth_epochs=smooth)
    series = score_series(stored["epoch_starts"], stored["probs"], stored["ch_names"], cfg)
    if series is None:
        raise RtEegError("recording_shift: a decode with a gap (epochs not contiguous)")
    x = logit(series[1])
    starts = np.asarray(stored["epoch_starts"], np.float64)
    seizure = np.zeros(len(x), bool)
    for e in ann.term_events:
        if e.label != "bckg":
            seizure |= (starts + 1.0 > e.start) & (starts < e.stop)
    bg = x[~seizure] if (~seizure).any() else x
    causal = np.full(len(x), -np.inf)
    for t in range(CAUSAL_LAG + CAUSAL_WARM, len(x)):
        past = x[max(0, t - CAUSAL_LAG - CAUSAL_WINDOW) : t - CAUSAL_LAG]
        causal[t] = x[t] - np.quantile(past, 0.99)
    return {"absolute": x, "oracle_minus_median": x - np.median(bg),
            "oracle_minus_q99": x - np.quantile(bg, 0.99), "causal_minus_q99": causal}, seizure


def recording_shift(corpora: dict[str, tuple[Path, Path]], top_k: int = 4,
                    tail: float = 0.9995) -> dict:  # fmt: skip
    """The figures (module docstring) of ``corpora``: ``{name: (list file, evaluate folder)}``."""
    per = {s: [] for s in SHIFTS}
    ys, names = [], []
    for name, (lst, ev) in corpora.items():
        anns, _, stored = load_corpus(str(lst), str(ev))
        for ann, s in zip(anns, stored, strict=True):
            scores, y = recording_logits(s, ann, top_k)
            for k in SHIFTS:
                per[k].append(scores[k])
            ys.append(y)
            names += [name] * len(y)
    y, names = np.concatenate(ys), np.asarray(names)
    if not y.any() or y.all():
        raise RtEegError("recording_shift: the corpora need both seizure and background epochs")
    out = {"top_k": top_k, "tail_quantile": tail, "corpora": {}, "pooled": {}}
    for k in SHIFTS:
        x = np.concatenate(per[k])
        level = float(np.quantile(x[~y], tail))
        out["pooled"][k] = {"auc": round(roc_auc(y, x), 4), "tail_level_logit": round(level, 3)}
        for name in corpora:
            m = names == name
            fig = out["corpora"].setdefault(name, {"seizure_epochs": int(y[m].sum()),
                                                   "background_epochs": int((~y[m]).sum())})  # fmt: skip
            fig[k] = {"auc": round(roc_auc(y[m], x[m]), 4),
                      "seizure_above_tail": round(float((x[m & y] > level).mean()), 4) if (m & y).any() else None,
                      "background_above_tail": int((x[m & ~y] > level).sum())}  # fmt: skip
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", required=True, metavar="NAME=LIST:EVAL",
                    help="a corpus: its EDF list and the rt-eeg evaluate folder of its outputs")
    ap.add_argument("--top-k", type=int, default=4, help="channels in the score (default 4)")
    ap.add_argument("--tail", type=float, default=0.9995,
                    help="the pooled background quantile the tail shares are read at")
    ap.add_argument("--out", required=True, help="JSON written atomically")
    args = ap.parse_args(argv)
    try:
        if not 0 < args.tail < 1:
            raise RtEegError(f"--tail must be within (0, 1) (got {args.tail})")
        corpora = {}
        for c in args.corpus:
            name, lst, ev = _spec(c, "--corpus")
            corpora[name] = (Path(lst), Path(ev))
        res = recording_shift(corpora, args.top_k, args.tail)
    except RtEegError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write_json_atomic(args.out, res)
    for name, fig in {**res["corpora"], "pooled": res["pooled"]}.items():
        print(name, "  ".join(f"{k} AUC {fig[k]['auc']:.3f}" for k in SHIFTS))
    for name, fig in res["corpora"].items():
        print(name, "seizure epochs above the tail:",
              "  ".join(f"{k} {fig[k]['seizure_above_tail']}" for k in SHIFTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
