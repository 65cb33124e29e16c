"""Batch evaluation: the complete detector over a corpus, then NEDC / SzCORE scoring.

Each recording is one task (:func:`run_recording`): the in-process detector (the live
pipeline's stage objects, no ZeroMQ) writes the hypothesis files and the per-epoch channel
probabilities. Tasks run in local worker processes by default or on a Dask distributed
cluster (``--dask tcp://host:8786``, e.g. one started by dask-jobqueue on Slurm). A run is
resumable: a recording whose HYP exists is skipped (the HYP is written last, atomically); one
whose ``NAME.probs.npz`` exists without its HYP is only re-postprocessed (so copying a run's
probabilities into a new folder evaluates another postprocess configuration, e.g. a
``cross_channel`` scorer, in seconds). A recording that fails is reported with its error and
does not stop the run.

The stored probabilities make threshold sweeps cheap: only the postprocessor is re-run.
The report's DET curve and operating point, and the tuning grid search of ``--sweep``
(:func:`sweep_and_tune`), come from :mod:`rt_eeg.tuning`, which owns the operating-point
search; its names (:func:`~rt_eeg.tuning.ovlp_for`, :func:`~rt_eeg.tuning.det_curve`,
:func:`~rt_eeg.tuning.tune`, :func:`~rt_eeg.tuning.choose_trial`, ...) are re-exported here.
This module owns the corpus run, its resumption, the report and the onset latencies.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import (
    Annotation,
    Event,
    check_within_recording,
    read_annotation,
    read_csv_bi,
)
from rt_eeg.io.atomic import save_npz_atomic, write_json_atomic, write_text_atomic
from rt_eeg.io.corpus import CorpusItem, parse_chbmit_summary
from rt_eeg.lifetime import die_with_parent
from rt_eeg.outputs import output_paths, write_outputs
from rt_eeg.postprocess import PostprocessConfig, postprocess_recording
from rt_eeg.tuning import (  # noqa: F401 - the others are re-exported (moved to rt_eeg.tuning)
    choose_trial,
    default_grid,
    det_curve,
    ovlp_for,
    plot_det,
    run_trials,
    trial_for,
    tune,
)

_DECODERS: dict[tuple[str, str], object] = {}  # one loaded model per worker process


def _decoder(model_dir: str, device: str):
    from rt_eeg.decoder import Decoder

    key = (model_dir, device)
    if key not in _DECODERS:
        # features are computed in-process from the decoder's settings: a model trained on
        # other ones (``rt-eeg train --features``) is evaluated with its own
        _DECODERS[key] = Decoder(model_dir, device=device, feature_config="model")
    return _DECODERS[key]


def run_recording(edf: str, out_dir: str, model_dir: str, post: dict, device: str = "cpu",
                  feature_cache: str | None = None) -> dict:  # fmt: skip
    """Detect seizures in one recording and write its outputs (a worker task).

    ``feature_cache``: a :class:`~rt_eeg.feature_cache.FeatureCache` folder (same results,
    the model-independent half of the work done once per recording).

    Returns a row: name, duration_s, seconds (wall), status ('done', 'skipped',
    'repostprocessed', 'failed'),
    error (one line) and the output paths. Never raises for a bad recording.
    """
    name = Path(edf).stem
    paths = output_paths(out_dir, name)
    probs_path = Path(out_dir) / f"{name}.probs.npz"
    row = {"name": name, "edf": str(edf), "hyp": str(paths["hyp"]), "csv_bi": str(paths["csv_bi"]),
           "probs": str(probs_path)}  # fmt: skip
    if paths["hyp"].is_file() and probs_path.is_file():
        with np.load(probs_path, allow_pickle=False) as z:
            return row | {"status": "skipped", "duration_s": float(z["duration"]), "seconds": 0.0,
                          "montage": str(z["montage"]) if "montage" in z else None,
                          "ch_names": [str(c) for c in z["ch_names"]]}  # fmt: skip
    if probs_path.is_file():
        # Probabilities stored without a HYP (copied from a run of this model into a new
        # folder, or a run stopped between the two writes): only the postprocessor runs again,
        # over the same epochs the detector would push, so the decisions are the detector's.
        t0 = time.perf_counter()
        try:
            with np.load(probs_path, allow_pickle=False) as z:
                starts, probs, duration = z["epoch_starts"], z["probs"], float(z["duration"])
                ch_names = [str(c) for c in z["ch_names"]]
                montage = str(z["montage"]) if "montage" in z else None
            decisions = postprocess_recording(starts, probs, ch_names, PostprocessConfig.from_dict(post))
            write_outputs(out_dir, name, decisions, duration)
        except (OSError, KeyError, ValueError) as err:
            return row | {"status": "failed", "error": f"{probs_path}: unreadable stored probabilities ({err})",
                          "duration_s": 0.0, "seconds": time.perf_counter() - t0}  # fmt: skip
        return row | {"status": "repostprocessed", "duration_s": duration,
                      "seconds": time.perf_counter() - t0, "montage": montage, "ch_names": ch_names}  # fmt: skip
    t0 = time.perf_counter()
    try:
        from rt_eeg.detector import detect_recording

        decoder = _decoder(model_dir, device)
        t0 = time.perf_counter()  # speed figures exclude the one-off model load per worker
        from rt_eeg.feature_cache import FeatureCache

        cache = FeatureCache(feature_cache) if feature_cache else None
        res = detect_recording(edf, decoder, PostprocessConfig.from_dict(post), feature_cache=cache)
        save_npz_atomic(probs_path, epoch_starts=res.epoch_starts, probs=res.probs,
                        ch_names=np.array(res.ch_names), duration=np.float64(res.duration),
                        montage=np.array(res.montage))  # fmt: skip
        write_outputs(out_dir, name, res.decisions, res.duration)
        return row | {
            "status": "done",
            "runtime": decoder.runtime,  # litert (CPU) or tensorflow (GPU, or no model.tflite)
            "duration_s": res.duration,
            "seconds": time.perf_counter() - t0,
            "montage": res.montage,
            "ch_names": list(res.ch_names),
        }
    except RtEegError as err:
        return row | {
            "status": "failed",
            "error": str(err),
            "duration_s": 0.0,
            "seconds": time.perf_counter() - t0,
        }
    except Exception as err:  # a bug on one recording must not stop a corpus run
        tb = traceback.format_exc(limit=3).strip().splitlines()[-1]
        return row | {"status": "failed", "error": f"{edf}: {type(err).__name__}: {err} ({tb})",
                      "duration_s": 0.0, "seconds": time.perf_counter() - t0}  # fmt: skip


def reference_annotation(item: CorpusItem, duration: float) -> Annotation | None:
    """The item's reference as an Annotation (CHB-MIT summaries converted to TERM events)."""
    if item.ref is None:
        return None
    if item.ref.name.endswith("-summary.txt"):
        seizures = parse_chbmit_summary(item.ref).get(item.edf.name, [])
        events = [Event(a, b, "seiz") for a, b in seizures]
        ann = Annotation(item.ref, events, duration)
    else:
        ann = read_annotation(item.ref)
    check_within_recording(ann, duration, item.edf)  # e.g. a seizure at 99999 s in 600 s
    return ann


def run_corpus(items: list[CorpusItem], out_dir, model_dir, *, post: PostprocessConfig, workers: int | None = None,
               dask: str | None = None, device: str = "cpu", progress: bool = True,
               feature_cache: str | os.PathLike | None = None) -> list[dict]:  # fmt: skip
    """Run every recording (locally or on Dask) with a progress bar; returns one row each.

    ``feature_cache``: a folder of cached features (:mod:`rt_eeg.feature_cache`), shared by
    runs of different models over the same recordings; the outputs are the same with or
    without it.

    Resuming is only safe with the same model and parameters: ``run_config.json`` in the
    output folder records them, and a folder made with others is refused.
    """
    from tqdm import tqdm

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    _check_run_config(out_dir, model_dir, post)
    cache = str(feature_cache) if feature_cache else None
    args = [(str(i.edf), str(out_dir), str(model_dir), post.to_dict(), device, cache) for i in items]
    rows: list[dict] = []
    bar = tqdm(total=len(args), unit="rec", disable=not progress, dynamic_ncols=True)
    t_start = time.perf_counter()
    hours = 0.0

    def collect(row):
        nonlocal hours
        rows.append(row)
        hours += row["duration_s"] / 3600
        elapsed = time.perf_counter() - t_start
        bar.set_postfix_str(f"{hours:.2f} h EEG, {hours * 3600 / max(elapsed, 1e-9):.0f}x real time, "
                            f"{sum(r['status'] == 'failed' for r in rows)} failed")  # fmt: skip
        bar.update(1)

    try:
        if dask:
            from distributed import Client
            from distributed import as_completed as dask_completed

            with Client(dask) as client:
                futures = [client.submit(run_recording, *a, pure=False) for a in args]
                for fut in dask_completed(futures):
                    collect(fut.result())
        elif (workers or 1) <= 1:
            for a in args:
                collect(run_recording(*a))
        else:
            import multiprocessing as mp

            # spawn, not fork: TensorFlow is not fork-safe once initialised.
            # Workers die with this process (a killed evaluate must not leave workers writing
            # into its output folder).
            with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"),
                                     initializer=die_with_parent, initargs=(os.getpid(),)) as pool:  # fmt: skip
                for fut in as_completed([pool.submit(run_recording, *a) for a in args]):
                    collect(fut.result())
    finally:
        bar.close()
    order = {a[0]: k for k, a in enumerate(args)}
    return sorted(rows, key=lambda r: order[r["edf"]])


def _check_run_config(out_dir: Path, model_dir, post: PostprocessConfig) -> None:
    import hashlib

    weights = Path(model_dir) / "model.keras"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest() if weights.is_file() else None
    lite = Path(model_dir) / "model.tflite"  # the CPU runtime's file: probabilities differ
    lite_digest = hashlib.sha256(lite.read_bytes()).hexdigest() if lite.is_file() else None
    current = {"model_sha256": digest, "model_tflite_sha256": lite_digest,
               "postprocess": post.to_dict()}  # fmt: skip
    path = out_dir / "run_config.json"
    if path.is_file():
        try:
            previous = json.loads(path.read_text())
        except ValueError:
            previous = None
        if isinstance(previous, dict) and isinstance(previous.get("postprocess"), dict):
            # a folder written before a parameter existed ran with that parameter's default
            previous["postprocess"] = PostprocessConfig().to_dict() | previous["postprocess"]
        if previous != current:
            raise RtEegError("holds outputs of a run with another model or postprocess configuration; "
                             "use a new --out folder", out_dir)  # fmt: skip
    else:
        write_json_atomic(path, current)


def _pairs(items, rows) -> tuple[list, list[dict]]:
    """(reference, hypothesis) annotation pairs for the recordings that ran and have a reference."""
    pairs, used = [], []
    for item, row in zip(items, rows, strict=True):
        if row["status"] == "failed" or item.ref is None:
            continue
        hyp = read_csv_bi(row["csv_bi"])
        ref = reference_annotation(item, hyp.duration)
        pairs.append((ref, hyp))
        used.append(row)
    return pairs, used


# -- stored probabilities (what rt_eeg.tuning's sweeps re-postprocess) and latencies ------------


def load_probs(rows: list[dict]) -> list[dict]:
    out = []
    for row in rows:
        with np.load(row["probs"], allow_pickle=False) as z:
            out.append({"epoch_starts": z["epoch_starts"], "probs": z["probs"], "ch_names": list(z["ch_names"]),
                        "duration": float(z["duration"])})  # fmt: skip
    return out


def onset_latencies(pairs, delay_s: float, epoch_s: float = 1.0) -> list[float]:
    """First SEIZ decision minus true onset (s) for each detected reference seizure.

    A decision about epoch ``[a, b)`` is available at signal time ``b + delay_s`` (the epoch
    must be complete and the features wait ``delay_s`` for future samples).
    """
    from rt_eeg.scoring.nedc import prepare_events

    out = []
    for ref_ann, hyp_ann in pairs:
        ref = [e for e in prepare_events(ref_ann) if e.label == "seiz"]
        hyp = [e for e in prepare_events(hyp_ann, duration=hyp_ann.duration) if e.label == "seiz"]
        for r in ref:
            hits = [h for h in hyp if h.stop > r.start and h.start < r.stop]
            if hits:
                # The first SEIZ epoch overlapping the seizure (the one holding the onset when
                # the alarm was already on) is decided at its end plus the feature delay.
                first_epoch = max(
                    min(h.start for h in hits), math.floor(r.start / epoch_s) * epoch_s
                )
                out.append(first_epoch + epoch_s + delay_s - r.start)
    return out


def versions() -> dict:
    import numpy
    import scipy

    v = {
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
    }
    try:
        from importlib.metadata import version

        v |= {p: version(p) for p in ("tensorflow", "keras", "ai-edge-litert", "pyedflib", "pyzmq",
                                      "timescoring")}  # fmt: skip
    except Exception:  # noqa: BLE001 - versions are informative only
        pass
    return v


def evaluate(items: list[CorpusItem], out_dir, model_dir, *, post: PostprocessConfig, workers: int | None = None,
             dask: str | None = None, device: str = "cpu", progress: bool = True, command: str = "",
             feature_cache: str | os.PathLike | None = None) -> dict:  # fmt: skip
    """Run, score, and write ``report.json``, ``report.md`` and ``det.png`` under ``out_dir``."""
    from rt_eeg.features import model_feature_config
    from rt_eeg.scoring import score_pairs
    from rt_eeg.scoring.nedc import prepare_events

    if not items:
        raise RtEegError("no recordings to evaluate (check --corpus/--split/--list)")
    out_dir = Path(out_dir)
    t0 = time.perf_counter()
    rows = run_corpus(
        items,
        out_dir,
        model_dir,
        post=post,
        workers=workers,
        dask=dask,
        device=device,
        progress=progress,
        feature_cache=feature_cache,
    )
    wall = time.perf_counter() - t0
    pairs, used = _pairs(items, rows)
    scores = score_pairs(pairs) if pairs else None
    report: dict = {"command": command, "model": str(model_dir), "postprocess": post.to_dict(),
                    "n_recordings": len(rows), "n_scored": len(pairs),
                    "failed": [{"edf": r["edf"], "error": r["error"]} for r in rows if r["status"] == "failed"],
                    "hours": sum(r["duration_s"] for r in rows) / 3600, "wall_s": wall,
                    "workers": workers, "dask": dask}  # fmt: skip
    # Which montages were analysed (a reduced one is a different channel set: say so).
    montages: dict[str, int] = {}
    for r in rows:
        if r.get("montage"):
            montages[r["montage"]] = montages.get(r["montage"], 0) + 1
    report["montages"] = montages
    computed = sum(r["seconds"] for r in rows if r["status"] == "done")
    done_h = sum(r["duration_s"] for r in rows if r["status"] == "done") / 3600
    report["real_time_factor"] = done_h * 3600 / wall if done_h else None
    report["real_time_factor_per_core"] = done_h * 3600 / computed if computed else None
    report["compute_s"] = computed  # summed over the recordings this run decoded (not skipped)
    manifest = Path(model_dir) / "manifest.json"
    report["model_manifest"] = json.loads(manifest.read_text()) if manifest.is_file() else None
    report["versions"] = versions()
    report["decoder_runtimes"] = sorted({r["runtime"] for r in rows if r.get("runtime")})
    if scores:
        refs = [prepare_events(r) for r, _ in pairs]
        stored = load_probs(used)
        points = det_curve(post, refs, stored)
        chosen = ovlp_for(post, refs, stored)
        lat = onset_latencies(pairs, model_feature_config(model_dir).delay_s)
        report["scores"] = {k: v for k, v in scores.items() if k != "files"}
        report["det_curve"] = points
        report["operating_point"] = chosen
        report["onset_latency_s"] = {"n": len(lat), "median": float(np.median(lat)) if lat else None,
                                     "p90": float(np.percentile(lat, 90)) if lat else None}  # fmt: skip
        plot_det(
            points,
            chosen,
            out_dir / "det.png",
            f"{Path(model_dir).name}: OVLP DET ({len(pairs)} recordings)",
        )
    report["recordings"] = [r | (f if f else {}) for r, f in zip(used, (scores or {}).get("files", []), strict=False)] + [
        r for r in rows if r not in used]  # fmt: skip
    write_json_atomic(out_dir / "report.json", report)
    write_text_atomic(out_dir / "report.md", report_markdown(report))
    return report


def report_markdown(r: dict) -> str:
    """A readable summary of a report."""
    lines = [f"# rt-eeg evaluation: {Path(r['model']).name}", "",
             f"- recordings: {r['n_recordings']} ({r['n_scored']} scored, {len(r['failed'])} failed), "
             f"{r['hours']:.2f} h of EEG", f"- wall time {r['wall_s']:.1f} s; "
             f"real-time factor {r['real_time_factor'] or 0:.0f}x overall, {r['real_time_factor_per_core'] or 0:.0f}x per core",
             f"- command: `{r['command']}`", ""]  # fmt: skip
    s = r.get("scores")
    if s:
        lines += ["| metric | OVLP | TAES | EPOCH |", "|---|---|---|---|"]
        for key, label in (("sensitivity", "seizure sensitivity (%)"), ("precision", "precision (%)"),
                           ("f1", "F1"), ("fa_per_24h", "false alarms / 24 h")):  # fmt: skip
            vals = [s[m]["seiz"].get(key) for m in ("ovlp", "taes", "epoch")]
            lines.append(
                f"| {label} | " + " | ".join("-" if v is None else f"{v:.4f}" for v in vals) + " |"
            )
        z = s.get("szcore", {})
        lines += ["", f"SzCORE: sensitivity {z.get('sensitivity')}, precision {z.get('precision')}, "
                  f"F1 {z.get('f1')}, FP/24 h {z.get('fa_per_24h')}", ""]  # fmt: skip
        lat = r.get("onset_latency_s", {})
        fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        lines += [f"Onset latency (first SEIZ decision minus true onset, {lat.get('n')} detected seizures): "
                  f"median {fmt(lat.get('median'))} s, p90 {fmt(lat.get('p90'))} s", ""]  # fmt: skip
        op = r.get("operating_point") or {}
        if "seiz_flagged_s" in op:  # OVLP cannot see an alarm that never ends; this can
            ratio = op.get("flag_ratio")
            lines += [f"Time called seizure: {op['seiz_flagged_s'] / 3600:.2f} h; the reference's seizures: "
                      f"{op['seiz_ref_s'] / 3600:.2f} h" + (f" (ratio {ratio:.2f})" if ratio is not None else ""),
                      ""]  # fmt: skip
        lines += ["![DET](det.png)", ""]
    if r["failed"]:
        lines += ["## Failed recordings", ""] + [f"- {f['error']}" for f in r["failed"]]
    return "\n".join(lines) + "\n"


def sweep_and_tune(items, out_dir, model_dir, *, base: PostprocessConfig, target_fa: float, workers=None,
                   dask=None, device="cpu", progress=True, feature_cache=None,
                   max_flag_ratio: float | None = None) -> dict:  # fmt: skip
    """Run the detector on a (dev) split, tune postprocess parameters to ``target_fa``
    (``max_flag_ratio``: only points whose alarms cover at most that multiple of the reference's
    seizure time, :func:`~rt_eeg.tuning.choose_trial`), write them to
    ``<model>/postprocess.toml`` and return the before/after scores."""
    from rt_eeg.config import save_postprocess_config
    from rt_eeg.scoring.nedc import prepare_events

    rows = run_corpus(
        items,
        out_dir,
        model_dir,
        post=base,
        workers=workers,
        dask=dask,
        device=device,
        progress=progress,
        feature_cache=feature_cache,
    )
    pairs, used = _pairs(items, rows)
    if not pairs:
        raise RtEegError("no recording with a reference annotation to tune on")
    refs = [prepare_events(r) for r, _ in pairs]
    stored = load_probs(used)
    best, trials = tune(base, refs, stored, target_fa, workers=workers or default_workers(),
                        progress=progress, max_flag_ratio=max_flag_ratio)  # fmt: skip
    before, after = ovlp_for(base, refs, stored), ovlp_for(best, refs, stored)
    limit = f", alarms at most {max_flag_ratio:g}x the seizure time" if max_flag_ratio else ""
    comment = (f"Tuned by rt-eeg evaluate --sweep on {len(pairs)} recordings for <= {target_fa} FA/24 h{limit}.\n"
               f"Before: {json.dumps(before)}\nAfter: {json.dumps(after)}")  # fmt: skip
    path = save_postprocess_config(model_dir, best, comment)
    result = {"before": before, "after": after, "config": best.to_dict(), "written": str(path),
              "n_trials": len(trials), "target_fa_per_24h": target_fa, "max_flag_ratio": max_flag_ratio}  # fmt: skip
    write_json_atomic(Path(out_dir) / "sweep.json", result | {"trials": trials})
    return result


def default_workers() -> int:
    return max(
        1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
