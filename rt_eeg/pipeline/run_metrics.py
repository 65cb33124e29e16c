"""A run's ``metrics.json``: timings, message counts, gaps, restarts and errors, from what
the supervisor saw of its stages (their final reports, else their last heartbeats)."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rt_eeg.pipeline.supervisor import Supervisor


def _count(value) -> int:
    """A counter from a stage's statistics (control messages are checked for shape, not for
    the contents of ``stats``: a bad value counts as 0 rather than breaking the metrics)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def run_metrics(sup: Supervisor, interrupted: bool) -> dict:
    """The metrics of the run ``sup`` supervised (what :meth:`Supervisor.metrics` returns)."""
    from rt_eeg.features import FeatureConfig
    from rt_eeg.pipeline.journal import read_journal
    from rt_eeg.pipeline.supervisor import DETECTION_STAGES

    post = sup.done.get("postprocess", {})
    source = sup.done.get("source", {})
    # The first decision ever (the journal survives postprocessor restarts).
    decisions, first = read_journal(sup.run_dir / "decisions.jsonl")
    if first is None:  # a live run keeps its decisions in rotating parts, not the journal
        walls = [st.get("first_decision_wall") for (sg, _), st in sup.stats.items()
                 if sg == "postprocess"] + [post.get("first_decision_wall")]  # fmt: skip
        walls = [w for w in walls if isinstance(w, int | float) and not isinstance(w, bool)]
        first = min(walls) if walls else None
    n_decisions = len(decisions) if decisions or not sup.live else post.get("n_decisions")
    # Every incarnation's counters: the final report for finished ones, else the last
    # heartbeat (a killed incarnation's malformed messages and gaps still count).
    for stage, st in sup.done.items():
        if stage in sup.incarnation and not st.get("failed"):
            sup.stats[(stage, sup.incarnation[stage])] = st
    gaps, malformed = [], dict.fromkeys(DETECTION_STAGES[1:], 0)
    for (stage, inc), st in sorted(sup.stats.items()):
        found = st.get("gaps") if isinstance(st.get("gaps"), list) else []
        gaps += [
            g | {"stage": stage, "stage_incarnation": inc} for g in found if isinstance(g, dict)
        ]
        if stage in malformed:
            malformed[stage] += _count(st.get("malformed"))
    malformed["supervisor"] = sup.malformed_control
    if source.get("failed"):
        gaps.append({"stage": "source", "from_t": round(source.get("frames", 0) * 0.1, 3),
                     "to_t": sup.duration, "reason": "source died"})  # fmt: skip
    monitor_stats = _monitor_stats(sup.out_dir)
    return {
        "recording": str(sup.edf) if sup.edf else sup.source_info,
        "montage": sup.montage,
        "ch_names": list(sup.ch_names),
        "duration_s": sup.duration if not sup.live else source.get("t_end"),
        "launch_wall_time": round(sup.t_launch, 3),
        "speed": sup.speed if sup.speed else "max",
        "interrupted": interrupted,
        "stop_signal": signal.Signals(sup.stop_signal).name if sup.stop_signal else None,
        "outputs_written_by": sup.outputs_by,
        "recovered_from_killed_run": sup.recovered,
        "algorithmic_delay_s": FeatureConfig.from_toml(sup.run["features"]).delay_s,
        "end_to_end_latency_ms": post.get("latency_ms"),
        "stage_processing_ms": {s: st.get("processing_ms") for s, st in sup.done.items()},
        # Messages each stage took in and sent on (eos included in "sent"): end to end,
        # processed(downstream) == sent(upstream) - 1 when nothing was lost.
        "stage_messages": {
            s: {"processed": st.get("processed"), "sent": st.get("sent")}
            for s, st in sup.done.items()
            if not st.get("failed")
        },  # fmt: skip
        # go: the source streams from here; the decoder may still be loading its model
        "time_to_ready_s": round(sup.t_ready - sup.t_launch, 3) if sup.t_ready else None,
        "time_to_stage_ready_s": {
            s: round(t - sup.t_launch, 3) for s, t in sorted(sup.t_stage_ready.items())
        },
        "time_to_first_decision_s": round(first - sup.t_launch, 3) if first else None,
        "frames_streamed": source.get("frames"),
        "display_frames_sent": source.get("display_sent"),
        "display_frames_dropped": monitor_stats.get("dropped") if monitor_stats else None,
        "detection_path_gaps": gaps,
        "malformed_messages": malformed,
        "malformed_messages_total": sum(malformed.values()),
        "restarts": sup.restarts,
        "errors": sup.errors,
        "decoder_device": sup.done.get("decoder", {}).get("device"),
        "decoder_runtime": sup.done.get("decoder", {}).get("runtime"),
        "n_decisions": n_decisions,
    }


def _monitor_stats(out_dir: Path) -> dict | None:
    path = out_dir / "monitor_stats.json"
    try:
        return json.loads(path.read_text()) if path.is_file() else None
    except ValueError:
        return None
