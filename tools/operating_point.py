"""Operating points tuned on pooled unseen-family corpora, reported on fresh ones (issue #12).

The model is fixed; only the postprocessor changes. It re-runs the postprocessor on the
per-recording probabilities ``rt-eeg evaluate`` stored (``NAME.probs.npz``):

- every ``--tune NAME=LIST:EVAL`` corpus is pooled, and the configuration is chosen on the
  pool by :func:`rt_eeg.tuning.tune`'s rule (:func:`rt_eeg.tuning.choose_trial`) (most sensitive within ``--target-fa``, then
  earliest median onset, then fewest false alarms) over :func:`strict_grid`: the sweep's
  grid widened to stricter thresholds (0.999-0.9998) and longer confirmations (5 epochs),
  where the low-false-alarm points of a decoder trained under a 50/50 prior lie
  (``--sens-slack S``: the earliest onset among the points within S of the best);
- every ``--report NAME=LIST:EVAL`` corpus is scored once per configuration, separately,
  and chooses nothing;
- ``--fixed NAME=TOML`` adds configurations scored as they are (today's ``postprocess.toml``,
  an earlier choice) beside the chosen one, on the pool and on every report corpus.

Writes the JSON (``--out``: the pool's and every corpus's figures for each configuration,
every trial on the pool) and the chosen configuration as a postprocess TOML (``--toml``)
with its figures in the header. Every trial's figures go to a gzip-compressed file beside the
JSON (``NAME.trials.json.gz``, named in its ``trials_pool_file``; :func:`load_result` reads
the two as one; ``--compact FILE...`` moves an older result's inline trials there).
``--score-only`` skips the grid and scores the ``--fixed``
configurations alone. ``--grid adapt`` searches the patient-relative onset gate
(:func:`adapt_grid`) instead of :func:`strict_grid`, ``--grid strict_dual`` adds the
dual-threshold early paths (:func:`dual_grid`; ``--grid dual``: those alone);
``--extend RESULT --grid G`` keeps an earlier result's trials on the same corpora, runs only
G's configurations and chooses over both (pilot 65: the ceiling band, :func:`ceiling_off_grid`,
added to a strict_off result; pilot 67: the band under its floor, :func:`floor_off_grid`;
pilot 105: the evidence-accumulating onset, :func:`cusum_off_grid`; pilot 106: top-k 1 and 3,
:func:`topk_off_grid`);
``--rechoose RESULT`` chooses over an earlier result's trials again under this run's rule and
runs none (amendment 70: ``--max-voice-fa SS=1``, a tuned corpus's own false alarms bounded while
the mean spends the budget; amendment 72: ``--bound OD=LIST:EVAL --max-voice-fa OD=1
--min-voice-sens OD=95``, a corpus scored beside the mean and chosen on first). ``--weigh
corpora`` chooses on the means over the tuned corpora (:func:`macro_trials`: one voice per
corpus, however many seizures it holds) instead of on their pool. It never writes into the
model folder.

Usage::

    python tools/operating_point.py --model models/default --target-fa 5 \\
        --tune SS=/work/sim/recipe/SS.list:/work/sim/recipe/eval_SS \\
        --tune U=/work/sim/recipe/U.list:/work/sim/recipe/eval_U \\
        --report R=/work/sim/recipe/R.list:/work/sim/recipe/eval_R \\
        --fixed today=models/default/postprocess.toml \\
        --out tools/results/operating_point.json --toml tools/results/operating_point.toml
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import os
import sys
import time
from pathlib import Path

from postprocess_candidates import full_figures, load_corpus

from rt_eeg.config import load_postprocess_config, read_postprocess_toml
from rt_eeg.errors import RtEegError
from rt_eeg.features import model_feature_config
from rt_eeg.io.atomic import write_json_atomic, write_json_gz_atomic, write_text_atomic
from rt_eeg.postprocess import PostprocessConfig
from rt_eeg.tuning import choose_trial, run_trials

#: Thresholds, confirmation epochs, top-k, hysteresis ratio, rising-score onset.
STRICT_THRESHOLDS = (0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 0.9998)
STRICT_ONSETS = (1, 2, 3, 4, 5)


def strict_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """The sweep's grid (:func:`rt_eeg.tuning.default_grid`) with stricter thresholds and
    confirmations: 7 thresholds x 5 onsets x top-k (2, 4) x off ratio 0.5 x rise (0, 0.3)."""
    grid = itertools.product(STRICT_THRESHOLDS, STRICT_ONSETS, (2, 4), (0.0, 0.3))
    return [base.replace(threshold_on=th, threshold_off=round(th * 0.5, 4), onset_epochs=onset,
                         top_k=k, rise_delta=rise)
            for th, onset, k, rise in grid]  # fmt: skip


#: Amendment 52: hysteresis ratios (``threshold_off`` / ``threshold_on``) searched with the
#: flagged-time limit, so a model whose background sits above one half can still end its alarms.
OFF_RATIOS = (0.5, 0.8, 0.95)


def _strict_off_at(thresholds: tuple, base: PostprocessConfig,
                   top_ks: tuple = (2, 4)) -> list[PostprocessConfig]:  # fmt: skip
    """strict_off's confirmations, top-k, rises and off ratios at other thresholds (or top-ks)."""
    grid = itertools.product(thresholds, STRICT_ONSETS, top_ks, (0.0, 0.3), OFF_RATIOS)
    return [base.replace(threshold_on=th, threshold_off=round(th * off, 4), onset_epochs=onset,
                         top_k=k, rise_delta=rise)
            for th, onset, k, rise, off in grid]  # fmt: skip


def strict_off_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """:func:`strict_grid` at each off ratio of :data:`OFF_RATIOS` (0.5 first: the strict grid
    itself), 420 configurations."""
    return _strict_off_at(STRICT_THRESHOLDS, base)


#: Pilot 65: the band just under the decoder's output ceiling (its sigmoid saturates near
#: 0.9985, where the weak seeds' points sit at 0.998 with nothing between it and 0.999).
CEILING_THRESHOLDS = (0.996, 0.997, 0.9975, 0.9985)


def ceiling_off_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """:func:`strict_off_grid`'s confirmations, top-k, rises and off ratios at the thresholds of
    :data:`CEILING_THRESHOLDS` (none in the strict grid), 240 configurations: with ``--extend``
    a strict_off result, the two together are the strict grid at a finer step near the top."""
    return _strict_off_at(CEILING_THRESHOLDS, base)


#: Pilot 67: under the strict grid's floor (0.98), for a decoder whose scores sit lower
#: (amendment 66's score-weighted background: its points at 0.98 on four seeds of six).
FLOOR_THRESHOLDS = (0.9, 0.95, 0.97)


def floor_off_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """:func:`strict_off_grid`'s confirmations, top-k, rises and off ratios at the thresholds of
    :data:`FLOOR_THRESHOLDS`, all under the strict grid's, 180 configurations (``--extend`` a
    strict_off result to read a model whose seizures and background peak below 0.98)."""
    return _strict_off_at(FLOOR_THRESHOLDS, base)


#: Pilot 102: the steps the strict grid skips between 0.98, 0.99 and 0.995, where a distilled
#: decoder's scale tops out (its soft targets cap its outputs near 0.995; pilot 101).
MID_THRESHOLDS = (0.985, 0.9925)


def mid_off_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """:func:`strict_off_grid`'s confirmations, top-k, rises and off ratios at the thresholds of
    :data:`MID_THRESHOLDS` (none in the strict grid), 120 configurations (``--extend`` a
    strict_off result)."""
    return _strict_off_at(MID_THRESHOLDS, base)


def topk_off_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """:func:`strict_off_grid` at top-k 1 and 3 instead of 2 and 4 (pilot 106: does the alarm
    wait for the seizure's spread over channels?), 420 configurations (``--extend`` a strict_off
    result)."""
    return _strict_off_at(STRICT_THRESHOLDS, base, top_ks=(1, 3))


#: Pilot 105: the evidence-accumulating onset (``cusum_h``, logit units) at thresholds down to
#: 0.9 (a sustained 0.95 may fire where a single one must not).
CUSUM_THRESHOLDS = (0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999)
CUSUM_HS = (1.0, 2.0, 4.0, 8.0)


def cusum_off_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """The CUSUM onset (``cusum_h`` in :data:`CUSUM_HS` instead of a run of epochs) at the
    thresholds of :data:`CUSUM_THRESHOLDS` x top-k (2, 4) x :data:`OFF_RATIOS`, no rise: 168
    configurations (``--extend`` a strict_off or strict_off+mid_off result)."""
    grid = itertools.product(CUSUM_THRESHOLDS, CUSUM_HS, (2, 4), OFF_RATIOS)
    return [base.replace(threshold_on=th, threshold_off=round(th * off, 4), onset_epochs=1,
                         top_k=k, rise_delta=0.0, cusum_h=h)
            for th, h, k, off in grid]  # fmt: skip


#: Amendment 6 of tools/results/xgen_protocol.md: the patient-relative onset gate's grid.
ADAPT_THRESHOLDS = (0.98, 0.99, 0.995, 0.998)
ADAPT_ONSETS = (1, 2, 3)
ADAPT_QUANTILES = (0.9, 0.99)
ADAPT_MARGINS = (0.0, 0.5, 1.0, 2.0)


def adapt_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """The patient-relative gate (``adapt_*``, 300 background epochs) over 4 thresholds x 3
    onsets x 2 quantiles x 4 margins, top-2, off ratio 0.5, no rising-score onset."""
    grid = itertools.product(ADAPT_THRESHOLDS, ADAPT_ONSETS, ADAPT_QUANTILES, ADAPT_MARGINS)
    return [base.replace(threshold_on=th, threshold_off=round(th * 0.5, 4), onset_epochs=onset,
                         top_k=2, rise_delta=0.0, adapt_epochs=300, adapt_quantile=q,
                         adapt_margin=m, adapt_min_epochs=60)
            for th, onset, q, m in grid]  # fmt: skip


#: Amendment 31: the dual-threshold early paths added to the strict grid's bases.
DUAL_EARLY_LEVELS = (0.999, 0.9995, 0.9998)
DUAL_EARLY_EPOCHS = (1, 2, 3)
DUAL_RISE_LEVEL, DUAL_RISE, DUAL_RISE_EPOCHS = 0.99, 0.2, (1, 2)


def dual_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """The dual-threshold points of amendment 31, to be taken together with
    :func:`strict_grid` (which holds no early path): every strict base with rise 0, onset 2-5
    epochs and top-2/4, with an early path faster than it,

    - ``early_threshold`` in :data:`DUAL_EARLY_LEVELS` above the base threshold for fewer
      ``early_epochs`` (1-3) than the base's ``onset_epochs``, no rise (a confident epoch
      fires sooner); or
    - ``early_threshold`` 0.99 after a rise of 0.2 within ``rise_epochs``, for 1-2 epochs
      fewer than the base's, base threshold above 0.99 (a score that jumped fires sooner).

    340 configurations.
    """
    out = []
    for th, onset, k in itertools.product(STRICT_THRESHOLDS, (2, 3, 4, 5), (2, 4)):
        b = base.replace(threshold_on=th, threshold_off=round(th * 0.5, 4), onset_epochs=onset,
                         top_k=k, rise_delta=0.0)  # fmt: skip
        out += [b.replace(early_threshold=e, early_epochs=n, early_rise=0.0)
                for e, n in itertools.product(DUAL_EARLY_LEVELS, DUAL_EARLY_EPOCHS)
                if e > th and n < onset]  # fmt: skip
        if th > DUAL_RISE_LEVEL:
            out += [b.replace(early_threshold=DUAL_RISE_LEVEL, early_epochs=n,
                              early_rise=DUAL_RISE) for n in DUAL_RISE_EPOCHS if n < onset]  # fmt: skip
    return out


GRIDS = {"strict": strict_grid, "strict_off": strict_off_grid, "adapt": adapt_grid, "dual": dual_grid,
         "strict_dual": lambda base: strict_grid(base) + dual_grid(base),
         "ceiling_off": ceiling_off_grid, "floor_off": floor_off_grid, "mid_off": mid_off_grid,
         "cusum_off": cusum_off_grid, "topk_off": topk_off_grid}  # fmt: skip


def grid_of(name: str, base: PostprocessConfig) -> list[PostprocessConfig]:
    """The configurations of grid ``name``, or of ``"a+b"``: ``a``'s followed by ``b``'s (a
    result extended with ``--extend``); RtEegError on an unknown name."""
    out = []
    for part in name.split("+"):
        if part not in GRIDS:
            raise RtEegError(f"unknown grid {part!r} (known: {', '.join(sorted(GRIDS))})")
        out += GRIDS[part](base)
    return out


def extended(earlier: dict, path, grid: str | None, base: PostprocessConfig, tuned: list[str],
             weigh: str, flag: str = "--extend") -> tuple[str, list[PostprocessConfig], list[dict]]:  # fmt: skip
    """The grid name, configurations and stored trials of an earlier result that ``--grid
    grid`` extends: its configurations first, so a tie keeps its choice (``grid`` None: the
    result re-chosen as it is, ``--rechoose``; ``flag`` names the option in errors).
    ``tuned``: this run's ``--tune`` specs. RtEegError naming ``path`` when it was tuned on
    other corpora (its command's ``--tune`` specs) or weighed otherwise, already holds
    ``grid``, or its trials are not its grid's (another base configuration)."""
    name, trials = earlier.get("grid"), earlier.get("trials_pool")
    if not isinstance(name, str) or not isinstance(trials, list):
        raise RtEegError(f"{flag} {path}: no grid and trials (not an operating_point.py result)")
    words = str(earlier.get("command", "")).split()
    specs = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--tune"]
    if specs != tuned or earlier.get("weigh") != weigh:
        raise RtEegError(f"{flag} {path}: tuned on {specs} weighed by {earlier.get('weigh')}, "
                         f"not {tuned} by {weigh}")  # fmt: skip
    if grid is not None and grid in name.split("+"):
        raise RtEegError(f"--extend {path}: its grid {name!r} already holds {grid!r}")
    configs = grid_of(name, base)

    def same(trial: dict, cfg: PostprocessConfig) -> bool:  # a macro trial: its voices' config
        got = trial.get("config") or next(iter(trial.get("corpora", {}).values()), {}).get("config")
        want = json.loads(json.dumps(cfg.to_dict()))
        return isinstance(got, dict) and all(
            got.get(k) == v for k, v in want.items() if k != "cross_channel")  # fmt: skip

    if len(configs) != len(trials) or not all(map(same, trials, configs)):
        raise RtEegError(f"{flag} {path}: its {len(trials)} trials are not grid {name!r}'s "
                         f"{len(configs)} configurations from this model's postprocess.toml")  # fmt: skip
    return name, configs, trials


def macro_trials(per_corpus: dict[str, list[dict]]) -> list[dict]:
    """Each configuration's figures averaged over corpora (one voice per corpus).

    Parameters
    ----------
    per_corpus : dict
        ``{corpus: trials}``, each a list in the grid's order (:func:`rt_eeg.tuning.run_trials`).

    Returns
    -------
    list of dict
        Per configuration: mean sensitivity (a corpus without seizures is left out of it), mean
        false alarms per 24 h, mean of the median onsets (corpora with a detection), and the
        per-corpus trials under ``"corpora"``.
    """
    names = list(per_corpus)
    out = []
    for i in range(len(per_corpus[names[0]])):
        ts = {n: per_corpus[n][i] for n in names}
        sens = [t["sensitivity"] for t in ts.values() if t["sensitivity"] is not None]
        lat = [t["latency_median_s"] for t in ts.values() if t.get("latency_median_s") is not None]
        out.append({
            "sensitivity": sum(sens) / len(sens) if sens else None,
            "fa_per_24h": sum(t["fa_per_24h"] for t in ts.values()) / len(ts),
            "latency_median_s": sum(lat) / len(lat) if lat else None,
            "threshold_on": ts[names[0]].get("threshold_on"),
            "corpora": ts,
        })  # fmt: skip
    return out


#: Where a result's trials live, beside it: the grid's 420 trials are ~1.2 MB of JSON, and a
#: seed's judgement keeps one result (gzip: ~15x smaller).
TRIALS_SUFFIX = ".trials.json.gz"


def trials_path(result: str | os.PathLike) -> Path:
    """The trials file of the result JSON ``result`` (``X.json`` -> ``X.trials.json.gz``)."""
    result = Path(result)
    return result.with_name(result.name.removesuffix(".json") + TRIALS_SUFFIX)


def write_result(path: str | os.PathLike, doc: dict) -> None:
    """Write a result: ``doc["trials_pool"]`` to :func:`trials_path`, the rest to ``path``.

    The trials are written first, so the JSON never names a file that is not complete, and the
    JSON holds the trials file's SHA-256: a stop between the two writes, which leaves an older
    JSON beside newer trials, is found by :func:`load_result` instead of read as one result.
    """
    doc = {k: v for k, v in doc.items() if k not in ("trials_pool_file", "trials_sha256")}
    trials = doc.pop("trials_pool")
    sha = write_json_gz_atomic(trials_path(path), {"trials_pool": trials}, rows="trials_pool")
    write_json_atomic(path, doc | {"trials_pool_file": trials_path(path).name, "trials_sha256": sha})


def load_result(path: str | os.PathLike) -> dict:
    """A result JSON with its ``trials_pool`` (read from its trials file, or inline in a result
    written before the split); SystemExit naming the file on a missing or unreadable one."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise SystemExit(f"{path}: not an operating_point.py result ({err})") from err
    name = doc.get("trials_pool_file") if isinstance(doc, dict) else None
    if name is not None and "trials_pool" not in doc:
        trials = path.parent / name
        try:
            data = trials.read_bytes()
            if doc.get("trials_sha256") not in (None, hashlib.sha256(data).hexdigest()):
                raise ValueError("its SHA-256 is not the one the JSON records: written by "
                                 "another run")  # fmt: skip
            doc["trials_pool"] = json.loads(gzip.decompress(data))["trials_pool"]
        except (OSError, ValueError, KeyError, TypeError, EOFError) as err:
            raise SystemExit(f"{trials}: cannot read the trials of {path} ({err})") from err
    return doc


def load_corpora_result(path: str | os.PathLike) -> dict:
    """A ``--weigh corpora`` result (:func:`load_result`) whose trials hold every voice's own
    figures (``trials_pool[*].corpora``); RtEegError naming the file otherwise."""
    try:
        doc = load_result(path)
        trials = doc["trials_pool"]
        if doc.get("weigh") != "corpora" or not trials or "corpora" not in trials[0]:
            raise KeyError("trials_pool[*].corpora (a --weigh corpora run)")
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise RtEegError(f"{path}: not an operating_point.py --weigh corpora result ({err})") from err
    return doc


def compact(path: str | os.PathLike) -> bool:
    """Move an older result's inline ``trials_pool`` to its trials file; False if it has none."""
    doc = json.loads(Path(path).read_text("utf-8"))
    if "trials_pool" not in doc:
        return False
    write_result(path, doc)
    return True


def _spec(text: str, what: str) -> tuple[str, str, str]:
    """``NAME=LIST:EVAL`` -> (name, list, eval dir); RtEegError naming the bad argument."""
    name, sep, rest = text.partition("=")
    lst, sep2, ev = rest.rpartition(":")
    if not (sep and sep2 and name and lst and ev):
        raise RtEegError(f"{what} {text!r}: expected NAME=LIST:EVAL_DIR")
    return name, lst, ev


def _pool(corpora: dict[str, tuple]) -> tuple[list, list, list]:
    anns, refs, stored = [], [], []
    for a, r, s in corpora.values():
        anns += a
        refs += r
        stored += s
    return anns, refs, stored


def _voice_bounds(specs: list[str], voices: list[str], weigh: str, flag: str) -> dict[str, float]:
    """``flag NAME=VALUE`` specs (``--max-voice-fa``, ``--min-voice-sens``) as ``{NAME: VALUE}``;
    RtEegError for a malformed one, a corpus neither tuned nor bound, or pooled tuning (whose
    trials hold no corpus of their own)."""
    out = {}
    for spec in specs:
        name, _, value = spec.partition("=")
        try:
            bound = float(value)
        except ValueError:
            bound = -1.0
        if not name or not bound >= 0:
            raise RtEegError(f"{flag} {spec!r}: expected NAME=VALUE with VALUE >= 0, e.g. SS=1")
        if name not in voices:
            raise RtEegError(f"{flag} {spec!r}: {name!r} is not a tuned or bound corpus "
                             f"({', '.join(voices) or 'none'})")  # fmt: skip
        out[name] = bound
    if out and weigh != "corpora":
        raise RtEegError(f"{flag} needs --weigh corpora (pooled trials hold no corpus's own)")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tune", action="append", default=[], help="NAME=LIST:EVAL_DIR (pooled)")
    p.add_argument("--report", action="append", default=[], help="NAME=LIST:EVAL_DIR (scored only)")
    p.add_argument(
        "--fixed", action="append", default=[], help="NAME=POSTPROCESS_TOML, scored as is"
    )
    p.add_argument("--model", default="models/default")
    p.add_argument("--target-fa", type=float, default=5.0, help="FA/24 h on the pool (default 5)")
    p.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)"
    )
    p.add_argument(
        "--score-only",
        action="store_true",
        help="no grid: score the --fixed configurations on every corpus",
    )
    p.add_argument("--grid", choices=sorted(GRIDS), default="strict",
                   help="strict: thresholds and confirmations (default); adapt: the "
                        "patient-relative onset gate (protocol amendment 6); dual: the "
                        "dual-threshold early paths alone; strict_dual: strict + dual "
                        "(amendment 31); strict_off: strict at off ratios 0.5, 0.8, 0.95 "
                        "(amendment 52, with --max-flag-ratio); ceiling_off, floor_off, "
                        "mid_off, cusum_off, topk_off: bands, the CUSUM onset and top-k 1/3 to "
                        "--extend a result with (pilots 65, 67, 102, 105, 106)")  # fmt: skip
    p.add_argument("--extend", metavar="RESULT_JSON",
                   help="an earlier result on the same corpora (--weigh, --tune): its trials are "
                        "kept, only --grid's configurations are run, and the choice is made over "
                        "both (pilot 65: --grid ceiling_off on a strict_off result; pilot 67: "
                        "floor_off)")  # fmt: skip
    p.add_argument("--rechoose", metavar="RESULT_JSON",
                   help="an earlier result on the same corpora (--weigh, --tune): its trials "
                        "are chosen over again under this run's rule, none is run (amendment "
                        "70: with --max-voice-fa)")  # fmt: skip
    p.add_argument("--max-voice-fa", action="append", default=[], metavar="NAME=FA",
                   help="with --weigh corpora: eligible only if corpus NAME's own false alarms "
                        "(a --tune or --bound corpus) are at most FA/24 h (amendment 70: SS=1); "
                        "repeatable")  # fmt: skip
    p.add_argument("--bound", action="append", default=[], metavar="NAME=LIST:EVAL_DIR",
                   help="with --weigh corpora: a corpus scored for every configuration outside "
                        "the mean, for --max-voice-fa / --min-voice-sens (amendment 72: our "
                        "own-distribution dev corpus OD)")  # fmt: skip
    p.add_argument("--min-voice-sens", action="append", default=[], metavar="NAME=PCT",
                   help="among the eligible configurations, those finding at least PCT %% of "
                        "corpus NAME's seizures, or the best share any reaches (amendment 72: "
                        "OD=95); repeatable")  # fmt: skip
    p.add_argument("--sens-slack", type=float, default=0.0,
                   help="latency clause (amendment 31): the earliest onset among the points "
                        "within this many points of the best sensitivity (default 0: the most "
                        "sensitive)")  # fmt: skip
    p.add_argument("--weigh", choices=("seizures", "corpora"), default="seizures",
                   help="seizures: pool the tuned corpora (default); corpora: score each "
                        "separately and choose on the means over corpora (amendment 8)")  # fmt: skip
    p.add_argument("--max-flag-ratio", type=float, default=None, metavar="R",
                   help="eligible only if the time called seizure is at most R times the "
                        "reference's seizure time, on every tuned corpus (protocol amendment 52: "
                        "2); default: no limit")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", help="the result JSON (its trials go beside it, see TRIALS_SUFFIX)")
    p.add_argument("--compact", nargs="+", metavar="JSON",
                   help="only move these older results' inline trials to their trials files")  # fmt: skip
    p.add_argument(
        "--toml", help="write the chosen configuration here (required unless --score-only)"
    )
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    if args.compact:
        for f in args.compact:
            try:
                moved = compact(f)
            except (OSError, ValueError) as err:
                print(f"operating_point: {f}: cannot compact ({err})", file=sys.stderr)
                return 2
            print(f"{f}: {'trials moved to ' + trials_path(f).name if moved else 'no inline trials'}")
        return 0
    if not args.out:
        p.error("--out is required")
    if not args.score_only and not (args.toml and args.tune):
        p.error("--tune and --toml are required unless --score-only")
    if not (args.tune or args.report):
        p.error("no corpus: give --tune or --report")
    grid_name = args.grid  # "NAME+GRID" when --extend adds GRID to a result on grid NAME
    if args.extend and args.rechoose:
        p.error("--extend and --rechoose: give one")
    try:
        voices = [_spec(t, "--tune")[0] for t in args.tune] + [_spec(t, "--bound")[0] for t in args.bound]
        voice_fa = _voice_bounds(args.max_voice_fa, voices, args.weigh, "--max-voice-fa")
        voice_sens = _voice_bounds(args.min_voice_sens, voices, args.weigh, "--min-voice-sens")
        if args.bound and args.weigh != "corpora":
            raise RtEegError("--bound needs --weigh corpora (its figures sit beside each voice's)")
        today = load_postprocess_config(args.model)
        fixed = {}
        for f in args.fixed:
            name, sep, path = f.partition("=")
            if not (sep and name and Path(path).is_file()):
                raise RtEegError(f"--fixed {f!r}: expected NAME=an existing postprocess TOML")
            fixed[name] = read_postprocess_toml(path)
        tuned = {n: load_corpus(lst, ev) for n, lst, ev in (_spec(t, "--tune") for t in args.tune)}
        reports = {
            n: load_corpus(lst, ev) for n, lst, ev in (_spec(t, "--report") for t in args.report)
        }
        bound = {n: load_corpus(lst, ev) for n, lst, ev in (_spec(t, "--bound") for t in args.bound)}
        pool = _pool(tuned)
        if args.score_only:  # the --fixed configurations only: nothing is chosen
            if not fixed:
                raise RtEegError("--score-only needs at least one --fixed configuration")
            trials, configs = [], dict(fixed)
        else:
            grid, trials = GRIDS[args.grid](today), []
            if args.extend:
                name, configs, trials = extended(load_result(args.extend), args.extend, args.grid,
                                                 today, args.tune, args.weigh)  # fmt: skip
                grid_name, grid = f"{name}+{args.grid}", configs + grid
            elif args.rechoose:
                grid_name, grid, trials = extended(load_result(args.rechoose), args.rechoose, None,
                                                   today, args.tune, args.weigh, "--rechoose")  # fmt: skip
            todo = grid[len(trials):]  # none for --rechoose: no worker pool is started for it
            if args.weigh == "corpora":
                if todo:
                    per = {n: run_trials(todo, c[1], c[2], workers=args.workers,
                                         progress=not args.quiet) for n, c in tuned.items()}  # fmt: skip
                    trials = trials + macro_trials(per)
                if bound:  # every configuration's, a re-chosen result's included
                    per = {n: run_trials(grid, c[1], c[2], workers=args.workers,
                                         progress=not args.quiet) for n, c in bound.items()}  # fmt: skip
                    trials = [t | {"bounds": {n: per[n][i] for n in bound}} for i, t in enumerate(trials)]
            elif todo:
                trials = trials + run_trials(
                    todo, pool[1], pool[2], workers=args.workers, progress=not args.quiet
                )
            pick = choose_trial(trials, args.target_fa, args.sens_slack, args.max_flag_ratio,
                                voice_fa, voice_sens)  # fmt: skip
            configs = {"chosen": grid[pick]} | fixed
        delay = model_feature_config(args.model).delay_s  # onsets: this model's feature lookahead
        figures = {
            name: ({"pool": full_figures(cfg, *pool, delay)} if tuned else {})
            | {f"tune_{n}": full_figures(cfg, *c, delay) for n, c in tuned.items()}
            | {f"report_{n}": full_figures(cfg, *c, delay) for n, c in reports.items()}
            | {f"bound_{n}": full_figures(cfg, *c, delay) for n, c in bound.items()}
            for name, cfg in configs.items()
        }
    except RtEegError as err:
        print(f"operating_point: {err}", file=sys.stderr)
        return 2
    doc = {
        "command": " ".join([sys.argv[0], *(sys.argv[1:] if argv is None else argv)]),
        "model": args.model, "target_fa_per_24h": args.target_fa,
        "weigh": args.weigh, "grid": grid_name,
        "extends": args.extend, "rechooses": args.rechoose, "sens_slack": args.sens_slack,
        "max_flag_ratio": args.max_flag_ratio, "max_voice_fa": voice_fa,
        "min_voice_sens": voice_sens, "bound": list(bound),
        "tune": list(tuned), "report": list(reports),
        "configs": {n: c.to_dict() for n, c in configs.items()},
        "figures": figures, "n_trials": len(trials), "wall_s": round(time.perf_counter() - t0, 1),
        "trials_pool": trials,
    }  # fmt: skip
    write_result(args.out, doc)
    if args.score_only:
        print(json.dumps({"configs": doc["configs"], "figures": figures}, indent=1))
        return 0
    chosen = configs["chosen"]
    import tomli_w

    how = "pooled" if args.weigh == "seizures" else "as one voice each (means over corpora)"
    rule = (f", the earliest onset within {args.sens_slack} points of the best sensitivity"
            if args.sens_slack > 0 else "")  # fmt: skip
    if args.max_flag_ratio is not None:
        rule += f", calling seizure at most {args.max_flag_ratio:g}x the reference's seizure time"
    rule += "".join(f", {v} at <= {b:g} FA/24 h" for v, b in voice_fa.items())
    rule += "".join(f", {v} finding >= {b:g} % (or its best)" for v, b in voice_sens.items())
    head = [f"Operating point (tools/operating_point.py) chosen on {' + '.join(tuned)} {how} for "
            f"<= {args.target_fa} FA/24 h{rule} over {len(trials)} configurations "
            f"(grid {grid_name})."]  # fmt: skip
    head += [f"{k}: {json.dumps(v)}" for k, v in figures["chosen"].items()]
    write_text_atomic(
        args.toml, "".join(f"# {x}\n" for x in head) + tomli_w.dumps(chosen.to_dict())
    )
    print(json.dumps({"configs": doc["configs"], "figures": figures}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
