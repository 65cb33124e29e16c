"""Where the false alarms and the onset latency come from (issue #12), per corpus.

Reads an ``rt-eeg evaluate`` output folder (per-recording ``NAME.probs.npz``) and the
simulated corpus it ran on, re-runs the postprocessor on the stored probabilities (the same
object the pipeline runs, so the events are the evaluated ones) and writes, as JSON:

- **each false alarm** (an OVLP hypothesis event that overlaps no reference seizure): its
  duration, peak cross-channel score, the channels above 0.5 / 0.9 at the peak epoch, the
  channels the postprocessor listed, and what the simulator put there. The signal families
  come from re-planning the corpus with the recipe's own arguments (``rt_eeg.sim`` is a pure
  function of them): every transient (kind -> family, start, stop, site), electrode fault,
  behavioural state, seizure and post-ictal stretch that overlaps the decoder's causal window
  ``[start - 7 s, stop)`` of the event, plus the recording-wide families (slowing, breach,
  ...) from the ``.families.json`` sidecar. The planned seizures are checked against the
  sidecar and the ``.csv_bi`` so a mismatched corpus fails loudly.
- **each seizure's onset latency, decomposed**: the decision time (epoch end plus the
  feature delay) of the first epoch at or after the true onset whose cross-channel score
  reaches 0.5 / 0.9 / 0.99 / the operating threshold, the first epoch where any single
  channel reaches 0.5 / 0.9, and when the postprocessor actually fired (as
  ``rt_eeg.evaluate.onset_latencies`` counts it).

Usage (the recipe's S corpus)::

    python tools/analyse_errors.py --eval /work/sim/recipe/eval_S --corpus /work/sim/recipe/S \
        --hours 12 --patients 6 --seed 23 \
        --exclude-families rhythmic_delta,...  --out tools/results/analyse_errors_S.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from rt_eeg.config import load_postprocess_config, read_postprocess_toml
from rt_eeg.errors import RtEegError
from rt_eeg.features import model_feature_config
from rt_eeg.io.annotations import read_csv_bi
from rt_eeg.io.atomic import write_json_atomic
from rt_eeg.postprocess import (
    PostprocessConfig,
    complete_decisions,
    decisions_to_events,
    postprocess_recording,
)

LEVELS = (0.5, 0.9, 0.99)
WINDOW_S = 7.0  # the decoder's causal window: what it saw when it fired
POSTICTAL_S = 60.0
ONSET_SLACK_S = 3.0  # the score needs a few epochs to climb: an event may start just before  # an FA starting this soon after a seizure ends counts as post-ictal


def sim_events(plan) -> list[dict]:
    """Time-resolved signal families of one planned recording (no signal is generated).

    Returns
    -------
    list of dict
        ``{family, kind, start, stop, site}`` for every transient, electrode fault,
        behavioural state segment, seizure and post-ictal stretch.
    """
    from rt_eeg.sim.recording import RecordingGenerator
    from rt_eeg.sim.variety import KIND_FAMILY, STATE_FAMILY

    gen = RecordingGenerator(plan)
    out = [{"family": KIND_FAMILY[t.kind], "kind": t.kind, "start": float(t.start),
            "stop": float(t.stop), "site": t.site} for t in gen.transients]  # fmt: skip
    out += [{"family": "electrode_pop", "kind": f"fault_{f.mode}", "start": float(f.start),
             "stop": float(f.stop), "site": f.electrode} for f in gen.faults]  # fmt: skip
    out += [{"family": STATE_FAMILY[name], "kind": f"state_{name}", "start": float(a),
             "stop": float(b), "site": ""} for name, a, b in gen.timeline.segments]  # fmt: skip
    for sz in plan.seizures:
        out.append({"family": sz.family or sz.kind, "kind": "seizure", "start": float(sz.start),
                    "stop": float(sz.stop), "site": sz.focus})  # fmt: skip
        out.append({"family": "postictal", "kind": "postictal", "start": float(sz.stop),
                    "stop": float(sz.stop + max(sz.postictal_s, 0.0)), "site": sz.focus})  # fmt: skip
    return out


def recording_wide(plan) -> dict:
    """Families that last the whole recording (they colour every epoch, not one event)."""
    v = plan.variety
    out = {}
    if v is None:
        return out
    if v.slowing is not None:
        site, uv, continuous = v.slowing
        out["slowing"] = {"site": site or "diffuse", "uV": round(uv, 1),
                          "continuous": bool(continuous)}  # fmt: skip
    if v.breach is not None:
        out["breach"] = {"site": v.breach[0], "gain": round(v.breach[1], 2)}
    return out


def plan_corpus_jobs(args) -> dict:
    """Re-plan the simulated corpus with its recipe arguments: ``{edf stem: plan}``."""
    from rt_eeg.sim.corpus import plan_corpus
    from rt_eeg.sim.families import resolve_families

    fams = resolve_families(args.families, args.exclude_families)
    jobs = plan_corpus(args.hours, args.patients, args.seed, families=fams)
    return {Path(j.rel).stem: j.plan for j in jobs}


def _smoothed(probs: np.ndarray, n: int) -> np.ndarray:
    """``(n_epochs, n_channels)`` causal moving mean over ``n`` epochs, as the postprocessor."""
    out = np.empty_like(probs)
    for i in range(len(probs)):
        out[i] = probs[max(0, i - n + 1) : i + 1].mean(axis=0)
    return out


def analyse_recording(stem: str, stored: dict, ref_events, plan, sidecar: dict, cfg: PostprocessConfig,
                      delay_s: float) -> tuple[list[dict], list[dict]]:  # fmt: skip
    """False alarms and per-seizure latency decomposition of one recording."""
    starts, probs, ch = stored["epoch_starts"], stored["probs"], stored["ch_names"]
    dec = postprocess_recording(starts, probs, ch, cfg)
    score = np.array([d.score for d in dec])
    sm = _smoothed(probs.astype(np.float64), cfg.smooth_epochs)
    hyp = decisions_to_events(complete_decisions(dec, stored["duration"]))
    refs = [(e.start, e.stop) for e in ref_events if e.label == "seiz"]
    events = sim_events(plan) if plan is not None else []
    if sidecar and "present" in sidecar:
        extra = sorted({e["family"] for e in events if e["kind"] not in ("seizure", "postictal")}
                       - set(sidecar["present"]) - {"awake_alpha", "drowsy", "sleep"})
        if extra:  # e.g. families added to the simulator after the corpus was made
            raise RtEegError(f"{stem}: the re-planned recording holds {', '.join(extra)}, which "
                             "its .families.json does not (add them to --exclude-families)")
    wide = recording_wide(plan) if plan is not None else {}
    by_start = {round(d.start): d for d in dec}
    fas = []
    for h in hyp:
        if any(h.start < b and h.stop > a for a, b in refs):
            continue
        idx = np.flatnonzero((starts >= h.start - 1e-6) & (starts < h.stop - 1e-6))
        peak = int(idx[np.argmax(score[idx])])
        lo, hi = h.start - WINDOW_S, h.stop
        near = []
        for e in events:
            ov = min(hi, e["stop"]) - max(lo, e["start"])
            if ov > 0 and not e["kind"].startswith("state_"):
                near.append(e | {"overlap_s": round(ov, 2)})
        state = [e["kind"][6:] for e in events if e["kind"].startswith("state_")
                 and e["start"] < hi and e["stop"] > lo]  # fmt: skip
        after_sz = [a for a, b in refs if 0 <= h.start - b <= POSTICTAL_S]
        fam_overlap, fam_new = defaultdict(float), defaultdict(float)
        for e in near:
            if e["kind"] not in ("seizure", "postictal"):
                fam_overlap[e["family"]] += e["overlap_s"]
                if e["start"] >= lo - ONSET_SLACK_S:  # began around the window: what changed
                    fam_new[e["family"]] += e["overlap_s"]
        trigger = fam_new or fam_overlap
        cause = (
            "postictal" if after_sz or any(e["kind"] == "postictal" for e in near)
            else max(trigger, key=trigger.get) if trigger
            else ("recording-wide: " + ",".join(sorted(wide))) if wide
            else "background"
        )  # fmt: skip
        first = by_start.get(round(h.start))
        fas.append({
            "recording": stem, "start": h.start, "stop": h.stop, "duration_s": h.stop - h.start,
            "peak_score": round(float(score[peak]), 5), "mean_score": round(float(score[idx].mean()), 5),
            "peak_at": float(starts[peak]),
            "channels_ge_0.5": [ch[i] for i in np.flatnonzero(sm[peak] >= 0.5)],
            "channels_ge_0.9": [ch[i] for i in np.flatnonzero(sm[peak] >= 0.9)],
            "n_channels": len(ch),
            "event_channels": list(dec[int(idx[-1])].channels) if first is not None else [],
            "cause": cause, "families_in_window": dict(fam_overlap),
            "families_starting_in_window": dict(fam_new), "state": state,
            "recording_wide": wide, "sim_events": near, "sidecar_present": sidecar.get("present", []),
        })  # fmt: skip
    seizures = []
    fam_iter = iter(sidecar.get("seizure", []))
    for a, b in refs:
        fam = next(fam_iter, None)
        row = {"recording": stem, "start": a, "stop": b, "duration_s": b - a, "family": fam}
        # epochs from the one holding the onset to the seizure's end; decided at end + delay
        sel = np.flatnonzero((starts + 1.0 > a + 1e-9) & (starts < b))
        t_dec = starts[sel] + cfg.epoch_s + delay_s - a
        row["max_score_in_seizure"] = round(float(score[sel].max()), 5) if len(sel) else None
        row["score_before_onset"] = round(float(score[sel[0] - 1]), 5) if len(sel) and sel[0] > 0 else None
        for name, s in [(f"score_{lv}", score[sel]) for lv in LEVELS] + [("score_threshold_on", score[sel])]:
            lv = cfg.threshold_on if name == "score_threshold_on" else float(name.split("_")[1])
            hit = np.flatnonzero(s >= lv)
            row[f"first_{name}_s"] = round(float(t_dec[hit[0]]), 3) if len(hit) else None
        for lv in (0.5, 0.9):
            hit = np.flatnonzero(sm[sel].max(axis=1) >= lv)
            row[f"first_any_channel_{lv}_s"] = round(float(t_dec[hit[0]]), 3) if len(hit) else None
        hits = [h for h in hyp if h.start < b and h.stop > a]
        if hits:
            first_epoch = max(min(h.start for h in hits), math.floor(a / cfg.epoch_s) * cfg.epoch_s)
            row["fired_s"] = round(first_epoch + cfg.epoch_s + delay_s - a, 3)
            row["alarm_on_before_onset"] = min(h.start for h in hits) < a
        else:
            row["fired_s"], row["alarm_on_before_onset"] = None, False
        seizures.append(row)
    return fas, seizures


def _check_plan(stem: str, plan, ref_events, sidecar: dict) -> None:
    """The re-planned recording must be the one on disk (same seizures, same families)."""
    planned = [(round(s.start, 3), round(s.stop, 3)) for s in sorted(plan.seizures, key=lambda s: s.start)]
    on_disk = [(round(e.start, 3), round(e.stop, 3)) for e in ref_events if e.label == "seiz"]
    fams = [s.family for s in sorted(plan.seizures, key=lambda s: s.start)]
    if len(planned) != len(on_disk) or any(abs(p[0] - q[0]) > 0.01 or abs(p[1] - q[1]) > 0.01
                                           for p, q in zip(planned, on_disk, strict=True)):  # fmt: skip
        raise RtEegError(f"{stem}: re-planned seizures {planned} differ from the corpus {on_disk} "
                         "(wrong --hours/--patients/--seed/--exclude-families?)")  # fmt: skip
    if sidecar and sidecar.get("seizure") != fams:
        raise RtEegError(f"{stem}: re-planned families {fams} differ from .families.json")


def summarise(fas: list[dict], seizures: list[dict], cfg: PostprocessConfig, hours: float) -> dict:
    med = lambda v: None if not v else round(float(np.median(v)), 3)  # noqa: E731
    lat = {}
    for key in ([f"first_score_{lv}_s" for lv in LEVELS] + ["first_score_threshold_on_s", "first_any_channel_0.5_s",
                                                            "first_any_channel_0.9_s", "fired_s"]):  # fmt: skip
        vals = [s[key] for s in seizures if s[key] is not None]
        lat[key] = {"n": len(vals), "median": med(vals),
                    "p90": None if not vals else round(float(np.percentile(vals, 90)), 3)}  # fmt: skip
    return {
        "postprocess": cfg.to_dict(), "hours": round(hours, 3), "false_alarms": len(fas),
        "fa_per_24h": round(len(fas) / hours * 24, 2) if hours else None,
        "fa_by_cause": dict(Counter(f["cause"] for f in fas).most_common()),
        "fa_duration_s_median": med([f["duration_s"] for f in fas]),
        "fa_peak_score_median": med([f["peak_score"] for f in fas]),
        "fa_channels_ge_0.9_median": med([len(f["channels_ge_0.9"]) for f in fas]),
        "seizures": len(seizures), "detected": sum(s["fired_s"] is not None for s in seizures),
        "latency_s": lat,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--eval", required=True, help="rt-eeg evaluate output folder (NAME.probs.npz)")
    p.add_argument("--corpus", required=True, help="the simulated corpus folder (edf/...)")
    p.add_argument("--hours", type=float, required=True)
    p.add_argument("--patients", type=int, required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--families")
    p.add_argument("--exclude-families")
    p.add_argument("--model", default="models/default", help="postprocess.toml from here")
    p.add_argument("--post", help="a postprocess TOML to use instead of the model's")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one postprocess parameter (repeatable)")
    p.add_argument("--out", required=True, help="JSON output")
    args = p.parse_args(argv)
    try:
        cfg = _config(args)
        plans = plan_corpus_jobs(args)
        fas, seizures, hours = [], [], 0.0
        delay = model_feature_config(args.model).delay_s
        for npz in sorted(Path(args.eval).glob("*.probs.npz")):
            stem = npz.name[: -len(".probs.npz")]
            edfs = list(Path(args.corpus, "edf").rglob(f"{stem}.edf"))
            if len(edfs) != 1:
                raise RtEegError(f"{stem}: {len(edfs)} EDF files of this name under {args.corpus}/edf")
            ref = read_csv_bi(edfs[0].with_suffix(".csv_bi"))
            side_path = edfs[0].with_suffix(".families.json")
            sidecar = json.loads(side_path.read_text()) if side_path.is_file() else {}
            plan = plans.get(stem)
            if plan is None:
                raise RtEegError(f"{stem}: not in the re-planned corpus")
            _check_plan(stem, plan, ref.events, sidecar)
            with np.load(npz, allow_pickle=False) as z:
                stored = {"epoch_starts": z["epoch_starts"], "probs": z["probs"],
                          "ch_names": [str(c) for c in z["ch_names"]], "duration": float(z["duration"])}  # fmt: skip
            hours += stored["duration"] / 3600
            f, s = analyse_recording(stem, stored, ref.events, plan, sidecar, cfg, delay)
            fas += f
            seizures += s
    except RtEegError as err:
        print(f"analyse_errors: {err}", file=sys.stderr)
        return 2
    doc = {"command": " ".join(sys.argv), "summary": summarise(fas, seizures, cfg, hours),
           "false_alarms": fas, "seizures": seizures}  # fmt: skip
    write_json_atomic(args.out, doc)
    print(json.dumps(doc["summary"], indent=1))
    return 0


def _config(args) -> PostprocessConfig:
    if args.post:
        cfg = read_postprocess_toml(args.post)
    else:
        cfg = load_postprocess_config(args.model)
    changes = {}
    for kv in args.set:
        k, _, v = kv.partition("=")
        typ = type(getattr(cfg, k))
        changes[k] = typ(v)
    return cfg.replace(**changes)


if __name__ == "__main__":
    sys.exit(main())
