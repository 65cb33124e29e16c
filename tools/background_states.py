"""What a model's high scores on seizure-free EEG coincide with, on an independently generated
corpus (issue #12; protocol amendment 11).

Reads an ``rt-eeg evaluate`` output folder (per-recording ``NAME.probs.npz``) and the corpus it
ran on (``rt-eeg simulate --generator G``: every EDF has a ``NAME.xsim.json`` sidecar listing
the generator's seizures and events). The score of every epoch is the postprocessor's
cross-channel score: each channel's P(seizure) averaged over the last ``--smooth`` epochs, then
the mean of the ``--top-k`` highest. Epochs within ``--guard-before`` s before a seizure or
``--guard-after`` s after one are left out of the background. Writes, as JSON:

- ``by_kind``: for every event kind (an epoch whose 7 s window overlaps the event), for
  ``clean`` background (no event) and for ``SEIZURE`` epochs: how many epochs, and the share
  whose score reaches each ``--thresholds`` value. A kind's share against ``clean``'s says
  whether it *raises* the score, not merely how often it is near a false alarm.
- ``seizures_by_type``: for every seizure type the generator drew (and ``all``): how many
  seizures reach each threshold at some epoch inside them, the median seconds from onset to
  the end of the first such epoch, and the median peak score.
- ``by_state``: for the generator's vigilance states (events named ``--state-prefix`` + state),
  the same shares by the time since the state began, separately for the state a recording
  starts in and a state entered later (which is where a background context learnt from the
  state before it is tested).

Usage::

    python tools/background_states.py --corpus /work/sim/recipe/XS \\
        --eval /work/sim/recipe/evalsel_k6 --out tools/results/background_states_k6_XS.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from rt_eeg.io.atomic import write_json_atomic
from rt_eeg.postprocess import PostprocessConfig, Postprocessor

#: Seconds since a state began, bin edges.
STATE_BINS = (0, 30, 60, 120, 240, 480, 960)
#: Decoder window (s): an epoch's score can reflect an event up to this long after it ends.
WINDOW_S = 7.0
#: Event kinds that cover whole recordings and say nothing about where scores rise.
CONTINUOUS = {"ecg"}


def cross_channel_score(
    probs: np.ndarray, top_k: int, smooth: int, ch_names: list[str] | None = None
) -> np.ndarray:
    """The postprocessor's own cross-channel score per epoch (:class:`Postprocessor`, the
    object the pipeline runs: channels smoothed causally, then the top-k mean).

    Parameters
    ----------
    probs : ndarray, shape (n_epochs, n_channels)
    top_k, smooth : int
    ch_names : list of str, optional
        The channels (``top_k`` is used for a reduced montage too).

    Returns
    -------
    score : ndarray of float64, shape (n_epochs,)
    """
    p = np.asarray(probs, np.float64)
    names = list(ch_names) if ch_names is not None else [f"ch{i}" for i in range(p.shape[1])]
    cfg = PostprocessConfig(top_k=top_k, top_k_reduced=top_k, smooth_epochs=smooth)
    post = Postprocessor(names, cfg)
    return np.array([post.push(float(i), row)[-1].score for i, row in enumerate(p)])


def _order(key) -> tuple:
    """Kinds by name; states by name, where, then the bin's lower edge."""
    if isinstance(key, str):
        return (key,)
    return (key[0], key[1], float(key[2].split("-")[0]))


class _Tally:
    def __init__(self, thresholds: np.ndarray):
        self.thr = thresholds
        self.n: dict = defaultdict(int)
        self.hi: dict = defaultdict(lambda: np.zeros(len(thresholds), np.int64))

    def add(self, key, scores: np.ndarray) -> None:
        self.n[key] += len(scores)
        self.hi[key] += (scores[:, None] >= self.thr[None, :]).sum(axis=0)

    def items(self):
        """``(key, {"epochs", "share_at_or_above": {threshold: percent}})`` per non-empty key."""
        for k in sorted(self.n, key=_order):
            if self.n[k]:
                shares = {f"{t:g}": float(round(100.0 * h / self.n[k], 2))
                          for t, h in zip(self.thr, self.hi[k], strict=True)}  # fmt: skip
                yield k, {"epochs": int(self.n[k]), "share_at_or_above": shares}


def _seizure_row(score: np.ndarray, since: np.ndarray, thr: np.ndarray) -> tuple:
    """A seizure's peak score and, per threshold, the seconds from onset to the end of the
    first epoch at or above it (when it is decided, before the feature delay; NaN when none)."""
    first = [float(since[np.argmax(score >= t)]) if (score >= t).any() else np.nan for t in thr]
    return float(score.max()), first


def _seizure_summary(rows: list, thr: np.ndarray) -> dict:
    """How many seizures of a type reach each threshold, and the median time to it."""
    peaks = np.array([r[0] for r in rows])
    first = np.array([r[1] for r in rows], np.float64).reshape(len(rows), len(thr))
    out = {"seizures": len(rows), "peak_score_median": round(float(np.median(peaks)), 4)}
    for j, t in enumerate(thr):
        hit = np.isfinite(first[:, j])
        out[f"reach_{t:g}"] = {
            "share": round(100.0 * float(hit.mean()), 1),
            "median_s_from_onset": round(float(np.median(first[hit, j])), 1) if hit.any() else None,
        }
    return out


def analyse(corpus: Path, eval_dir: Path, args) -> dict:
    thr = np.asarray(args.thresholds, np.float64)
    kinds, states = _Tally(thr), _Tally(thr)
    n_rec = 0
    per_seizure: dict = defaultdict(list)
    for side in sorted(corpus.rglob("*.xsim.json")):
        name = side.name[: -len(".xsim.json")]
        probs_path = eval_dir / f"{name}.probs.npz"
        if not probs_path.is_file():
            continue
        try:
            meta = json.loads(side.read_text("utf-8"))
            with np.load(probs_path, allow_pickle=False) as z:
                starts, probs, ch_names = z["epoch_starts"], z["probs"], list(z["ch_names"])
            seizures, events = meta["seizures"], meta["events"]
        except (OSError, ValueError, KeyError) as err:
            raise SystemExit(f"error: {side.parent / name}: unreadable ({err})") from None
        n_rec += 1
        score = cross_channel_score(probs, args.top_k, args.smooth, ch_names)
        mid = starts + 0.5
        seiz = np.zeros(len(mid), bool)
        guard = np.zeros(len(mid), bool)
        for a, b, _ in seizures:
            seiz |= (mid >= a) & (mid < b)
            guard |= (mid >= a - args.guard_before) & (mid < b + args.guard_after)
        kinds.add("SEIZURE", score[seiz])
        for a, b, kind in seizures:
            m = (mid >= a) & (mid < b)
            if m.any():
                per_seizure[kind].append(_seizure_row(score[m], mid[m] + 0.5 - a, thr))  # epoch ends
        bg = ~guard
        any_event = np.zeros(len(mid), bool)
        for a, b, kind in events:
            if kind in CONTINUOUS:
                continue
            if kind.startswith(args.state_prefix) and args.state_prefix:
                state = kind[len(args.state_prefix) :]
                where = "start" if a <= 0.0 else "entered"
                since = mid - a
                m = bg & (mid >= a) & (mid < b)
                for lo, hi in zip(STATE_BINS, (*STATE_BINS[1:], np.inf), strict=True):
                    mm = m & (since >= lo) & (since < hi)
                    states.add((state, where, f"{lo}-{hi:g} s"), score[mm])
                continue
            m = bg & (mid >= a - 1.0) & (mid < b + WINDOW_S)
            any_event |= m
            kinds.add(kind, score[m])
        kinds.add("clean", score[bg & ~any_event])
    if not n_rec:
        raise SystemExit(f"error: {eval_dir}: no NAME.probs.npz for any sidecar under {corpus}")
    by_state: dict = defaultdict(lambda: defaultdict(dict))
    for (state, where, span), row in states.items():
        by_state[state][where][span] = row
    by_type = {kind: _seizure_summary(rows, thr) for kind, rows in sorted(per_seizure.items())}
    by_type["all"] = _seizure_summary([r for rows in per_seizure.values() for r in rows], thr)
    return {"recordings": n_rec, "by_kind": dict(kinds.items()), "by_state": by_state,
            "seizures_by_type": by_type}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True, help="a simulated corpus with .xsim.json sidecars")
    p.add_argument("--eval", required=True, help="the rt-eeg evaluate --out folder")
    p.add_argument("--top-k", type=int, default=2)
    p.add_argument("--smooth", type=int, default=2)
    p.add_argument("--thresholds", type=lambda s: [float(x) for x in s.split(",")],
                   default=[0.9, 0.99, 0.998])  # fmt: skip
    p.add_argument("--guard-before", type=float, default=30.0)
    p.add_argument("--guard-after", type=float, default=60.0)
    p.add_argument("--state-prefix", default="state_")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    corpus, eval_dir = Path(args.corpus), Path(args.eval)
    for d in (corpus, eval_dir):
        if not d.is_dir():
            raise SystemExit(f"error: {d}: no such folder")
    doc = {"command": " ".join(["tools/background_states.py", *(argv or sys.argv[1:])]),
           "top_k": args.top_k, "smooth_epochs": args.smooth, **analyse(corpus, eval_dir, args)}  # fmt: skip
    write_json_atomic(args.out, doc)
    clean = doc["by_kind"].get("clean", {}).get("share_at_or_above", {})
    print(f"{doc['recordings']} recordings; clean background at or above: {clean} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
