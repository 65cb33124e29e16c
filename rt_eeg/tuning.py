"""The postprocessor's operating point: OVLP figures, DET curves and the tuning grid search.

Everything here re-runs only the postprocessor on a run's stored per-epoch channel
probabilities (``NAME.probs.npz``, loaded by :func:`rt_eeg.evaluate.load_probs`), so a
configuration is scored in a fraction of a second, not a detector run:

- :func:`ovlp_for`: OVLP sensitivity, false alarms per 24 h and median onset of one
  configuration; :func:`det_curve` sweeps its onset threshold, :func:`plot_det` draws it;
- :func:`tune`: the grid search (:func:`default_grid`, or given candidates) scored by
  :func:`run_trials` (:func:`trial_for` of each, on forked workers) and decided by
  :func:`choose_trial`: most sensitive within the false-alarm target, then earliest median
  onset, then fewest false alarms.

Running the corpus, the report and ``evaluate --sweep``
(:func:`rt_eeg.evaluate.sweep_and_tune`) live in :mod:`rt_eeg.evaluate`, which re-exports
these names; ``tools/operating_point.py`` and ``tools/postprocess_candidates.py`` apply the
same rule to other pools.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from rt_eeg.io.annotations import Annotation
from rt_eeg.postprocess import (
    PostprocessConfig,
    complete_decisions,
    decisions_to_events,
    postprocess_recording,
    postprocess_scored,
    score_key,
    score_series,
)
from rt_eeg.scored_events import ScoredRecording
from rt_eeg.scored_events import supports as supports_bulk


def ovlp_for(cfg: PostprocessConfig, refs: list, stored: list[dict]) -> dict:
    """OVLP seizure sensitivity (%) and FA/24 h of a postprocess configuration (fast path)."""
    from rt_eeg.scoring.nedc import ovlp_counts, prepare_events

    hits = targets = fas = 0
    total = flagged = ref_seiz = 0.0
    lat: list[float] = []
    for ref_events, s in zip(refs, stored, strict=True):
        hyp = prepare_events(Annotation(None, events_for(cfg, s), s["duration"]))
        c = ovlp_counts(ref_events, hyp)["seiz"]
        hits, targets, fas = hits + c["hits"], targets + c["targets"], fas + c["false_alarms"]
        total += ref_events[-1].stop
        # time called seizure against time that is: OVLP counts an alarm that never ends as one
        # hit and no false alarm (protocol amendment 52), so the time it covers is kept too
        flagged += sum(h.stop - h.start for h in hyp if h.label == "seiz")
        ref_seiz += sum(r.stop - r.start for r in ref_events if r.label == "seiz")
        # decision-epoch onset latency of each detected seizure (feature delay not included)
        for r in ref_events:
            if r.label != "seiz":
                continue
            starts = [
                h.start for h in hyp if h.label == "seiz" and h.start < r.stop and h.stop > r.start
            ]
            if starts:
                lat.append(max(0.0, min(starts) - r.start))
    return {"sensitivity": 100.0 * hits / targets if targets else None, "fa_per_24h": fas / total * 86400 if total else 0.0,
            "hits": hits, "targets": targets, "false_alarms": fas,
            "latency_median_s": float(np.median(lat)) if lat else None,
            "seiz_flagged_s": flagged, "seiz_ref_s": ref_seiz,
            "flag_ratio": flagged / ref_seiz if ref_seiz else None}  # fmt: skip


def det_curve(base: PostprocessConfig, refs, stored, thresholds=None) -> list[dict]:
    """Sweep the onset threshold (offset threshold kept at the same ratio): DET points."""
    # The decoder is trained under a 50/50 class prior, so useful thresholds reach high: the
    # strict end goes past the sweep's strictest (0.998) to show what a stricter point costs.
    thresholds = (
        np.r_[np.round(np.linspace(0.1, 0.9, 17), 3), 0.93, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998,
              0.999, 0.9995, 0.9998, 0.9999]
        if thresholds is None
        else thresholds
    )  # fmt: skip
    ratio = base.threshold_off / base.threshold_on
    points = []
    for th in thresholds:
        cfg = base.replace(threshold_on=float(th), threshold_off=float(th) * ratio)
        points.append({"threshold_on": float(th)} | ovlp_for(cfg, refs, stored))
    return points


#: Hysteresis ratios ``threshold_off / threshold_on`` the sweep searches (protocol amendment 53;
#: 0.5 and 0.7 before): a model whose background scores sit above 0.7 of its threshold has no
#: point at 0.5 or 0.7 whose alarms end, and the flagged-time limit then leaves it none to choose.
OFF_RATIOS = (0.5, 0.8, 0.95)


def default_grid(base: PostprocessConfig) -> list[PostprocessConfig]:
    """The configurations ``--sweep`` tries: threshold, onset epochs, top-k, hysteresis
    (:data:`OFF_RATIOS`), rising-score onset (rise_delta 0.3, off or on). With a
    ``cross_channel`` scorer in ``base`` (kept in every configuration), a wider threshold range
    and no top-k."""
    if base.cross_channel is not None:
        # The learned score replaces the top-k mean (top_k does not matter); it is trained under
        # balanced classes, so its operating points spread over the whole of (0, 1).
        grid = itertools.product(
            (0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999),
            (1, 2, 3, 4),
            (base.top_k,),
            OFF_RATIOS,
            (0.0, 0.3),
        )
        return [base.replace(threshold_on=th, threshold_off=round(th * off_ratio, 4), onset_epochs=onset,
                             top_k=top_k, rise_delta=rise)
                for th, onset, top_k, off_ratio, rise in grid]  # fmt: skip
    # The decoder is trained under a 50/50 prior, so low false-alarm operating points sit near 1.
    grid = itertools.product(
        (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998),
        (1, 2, 3, 4),
        (2, 4),
        OFF_RATIOS,
        (0.0, 0.3),
    )
    return [base.replace(threshold_on=th, threshold_off=round(th * off_ratio, 4), onset_epochs=onset,
                         top_k=top_k, rise_delta=rise)
            for th, onset, top_k, off_ratio, rise in grid]  # fmt: skip


def tune(
    base: PostprocessConfig,
    refs,
    stored,
    target_fa_per_24h: float,
    configs: list[PostprocessConfig] | None = None,
    *,
    workers: int = 1,
    progress: bool = False,
    max_flag_ratio: float | None = None,
) -> tuple[PostprocessConfig, list[dict]]:
    """Grid search for the most sensitive configuration within the false-alarm target.

    ``configs`` replaces :func:`default_grid` (e.g. postprocessor candidates); the choice is
    the same: most sensitive within the target, then earliest median onset, then fewest false
    alarms (or, when none meets the target, the fewest false alarms); ``max_flag_ratio`` as in
    :func:`choose_trial`. ``workers`` > 1 scores
    the configurations on forked processes (:func:`run_trials`); the trials are the same.
    """
    configs = default_grid(base) if configs is None else configs
    trials = run_trials(configs, refs, stored, workers=workers, progress=progress)
    return configs[choose_trial(trials, target_fa_per_24h, max_flag_ratio=max_flag_ratio)], trials


_TRIAL_POOL: tuple = ()  # (refs, stored) of a grid search, inherited by forked workers


#: Whether :func:`ovlp_for` takes :mod:`rt_eeg.scored_events`'s bulk path where it applies
#: (the same events, tested; False: the per-epoch postprocessor, for benchmarks and tests).
BULK_EVENTS = True


def _series(cfg: PostprocessConfig, s: dict):
    """The stored run's :func:`score_series` for ``cfg``, computed once per :func:`score_key`
    and kept in ``s`` (a grid varies the thresholds far more than what the scores depend on);
    None where there is none (epochs with a gap)."""
    key = score_key(cfg, s["ch_names"])
    cache = s.setdefault("_score_series", {})
    if key not in cache:
        cache[key] = score_series(s["epoch_starts"], s["probs"], s["ch_names"], cfg)
    return cache[key]


def _decisions(cfg: PostprocessConfig, s: dict) -> list:
    """:func:`postprocess_recording` of a stored run, from its shared score series where it
    has one (:func:`_series`; the decisions are the same, tested)."""
    series = _series(cfg, s)
    if series is None:  # the plain path
        return postprocess_recording(s["epoch_starts"], s["probs"], s["ch_names"], cfg)
    return postprocess_scored(s["epoch_starts"], series, s["ch_names"], cfg)


def events_for(cfg: PostprocessConfig, s: dict) -> list:
    """The TERM seizure events the postprocessor gives a stored run under ``cfg``: in bulk
    (:class:`rt_eeg.scored_events.ScoredRecording`) where that applies, else epoch by epoch."""
    if BULK_EVENTS and supports_bulk(cfg):
        rec = _scored(cfg, s)
        if rec is not None:
            return rec.events(cfg)
    return decisions_to_events(complete_decisions(_decisions(cfg, s), s["duration"]))


def _scored(cfg: PostprocessConfig, s: dict) -> ScoredRecording | None:
    """The stored run's series checked once for the bulk path, kept beside it per
    :func:`score_key` (None where the bulk path does not apply to the recording)."""
    key = score_key(cfg, s["ch_names"])
    cache = s.setdefault("_scored", {})
    if key not in cache:
        series = _series(cfg, s)
        cache[key] = (None if series is None
                      else ScoredRecording.of(s["epoch_starts"], series[1], s["duration"]))  # fmt: skip
    return cache[key]


def _pooled_trial(cfg: PostprocessConfig) -> dict:
    return trial_for(cfg, *_TRIAL_POOL)


def run_trials(configs, refs, stored, *, workers: int = 1, progress: bool = False) -> list[dict]:
    """:func:`trial_for` of every configuration, in order, on ``workers`` forked processes
    (the stored probabilities are shared copy-on-write, not sent to each task), with a
    progress bar over configurations when ``progress``."""
    import multiprocessing as mp

    from tqdm import tqdm

    global _TRIAL_POOL
    _TRIAL_POOL = (refs, stored)
    bar = tqdm(total=len(configs), unit="config", desc="tune", disable=not progress,
               dynamic_ncols=True)  # fmt: skip
    try:
        if workers <= 1 or len(configs) < 2:
            out = []
            for c in configs:
                out.append(_pooled_trial(c))
                bar.update()
            return out
        from rt_eeg.lifetime import die_with_parent

        with mp.get_context("fork").Pool(workers, initializer=die_with_parent) as pool:
            out = []
            for t in pool.imap(_pooled_trial, configs, chunksize=2):
                out.append(t)
                bar.update()
            return out
    finally:
        bar.close()
        _TRIAL_POOL = ()


def trial_for(cfg: PostprocessConfig, refs, stored) -> dict:
    """One configuration's figures as :func:`tune` records them (``config`` + OVLP)."""
    d = cfg.to_dict()
    if "cross_channel" in d:  # the same weights in every trial: not copied into each
        d["cross_channel"] = {"trained_on": d["cross_channel"]["trained_on"]}
    return {"config": d} | ovlp_for(cfg, refs, stored)


def choose_trial(trials: list[dict], target_fa_per_24h: float, sens_slack: float = 0.0,
                 max_flag_ratio: float | None = None,
                 max_voice_fa: dict[str, float] | None = None,
                 min_voice_sens: dict[str, float] | None = None) -> int:  # fmt: skip
    """Index of :func:`tune`'s choice among ``trials``: the most sensitive within the target,
    then earliest median onset, then fewest false alarms; when none meets the target, the
    fewest false alarms.

    With ``max_flag_ratio`` (protocol amendment 52), a trial is eligible only if the time it
    calls seizure is at most that multiple of the reference's seizure time (``flag_ratio``; a
    trial averaged over corpora, :func:`flag_ratio_of`, must keep it on every corpus): alarms
    that do not end are not detections, though OVLP counts them as hits.

    With ``max_voice_fa`` (``{corpus: FA/24 h}``, protocol amendment 70), a trial averaged over
    corpora is eligible only if each named corpus's own false-alarm rate is within its bound
    (our own distribution's background at its target while the mean spends the budget). A
    corpus is one of the trial's ``"corpora"`` or of its ``"bounds"`` (scored, outside the mean).

    With ``min_voice_sens`` (``{corpus: %}``, protocol amendment 72), among the eligible trials
    (every bound, the target and the flag limit kept) only those finding at least that share of
    the corpus's seizures stay, or, where none reaches it, those at the best share any eligible
    trial reaches: our own distribution first, at its target or as near as it can be, and the
    rule then chooses among them.

    With ``sens_slack > 0`` (protocol amendment 31's latency clause) the earliest median onset
    comes first among the qualifying trials within ``sens_slack`` percentage points of the best
    sensitivity; then the most sensitive, then the fewest false alarms. A trial with no
    detection has no onset and ranks last on it.
    """
    # amendment 70: trials that break a per-voice bound are removed before the rule (and its
    # fallback) is applied; when none keeps every bound, the one with the fewest false alarms
    # on the bounded corpora is the choice
    bounds = max_voice_fa or {}
    keep = [i for i, t in enumerate(trials)
            if all(voice_of(t, v)["fa_per_24h"] <= b for v, b in bounds.items())]  # fmt: skip
    if not keep:
        return min(range(len(trials)), key=lambda i: (
            sum(voice_of(trials[i], v)["fa_per_24h"] for v in bounds), trials[i]["fa_per_24h"]))
    ok = [
        i for i in keep
        if trials[i]["fa_per_24h"] <= target_fa_per_24h and trials[i]["sensitivity"] is not None
        and (max_flag_ratio is None or flag_ratio_of(trials[i]) <= max_flag_ratio)
    ]  # fmt: skip
    if not ok:
        return min(keep, key=lambda i: trials[i]["fa_per_24h"])
    for v, level in (min_voice_sens or {}).items():  # amendment 72: read among the eligible
        sens = {i: voice_of(trials[i], v)["sensitivity"] or 0.0 for i in ok}
        level = min(level, max(sens.values()))
        ok = [i for i in ok if sens[i] >= level]

    def lat(i):
        v = trials[i].get("latency_median_s")
        return v if v is not None else 1e9

    def rank(i):  # most sensitive; then earliest onset; then fewest false alarms
        t = trials[i]
        return (t["sensitivity"] or 0.0, -lat(i), -t["fa_per_24h"])

    if sens_slack > 0:
        best = max(trials[i]["sensitivity"] for i in ok)
        near = [i for i in ok if trials[i]["sensitivity"] >= best - sens_slack]
        return min(near, key=lambda i: (lat(i), -trials[i]["sensitivity"], trials[i]["fa_per_24h"]))
    return max(ok, key=rank)


def voice_of(trial: dict, name: str) -> dict:
    """A trial averaged over corpora: corpus ``name``'s own figures, from its ``"corpora"`` (in
    the mean) or its ``"bounds"`` (scored outside it)."""
    return {**trial.get("bounds", {}), **trial.get("corpora", {})}[name]


def flag_ratio_of(trial: dict) -> float:
    """The trial's seizure time called over seizure time there is: its own ``flag_ratio``, or
    for a trial averaged over corpora (``"corpora"``, and any ``"bounds"``), the largest of
    theirs (0 where a corpus has no seizure and nothing is called; infinite where it has none
    and something is)."""
    parts = ([*trial["corpora"].values(), *trial.get("bounds", {}).values()] if "corpora" in trial
             else [trial])  # fmt: skip
    worst = 0.0
    for t in parts:
        r = t.get("flag_ratio")
        if r is None:
            r = float("inf") if t.get("seiz_flagged_s", 0.0) > 0 else 0.0
        worst = max(worst, r)
    return worst


def plot_det(points: list[dict], chosen: dict | None, path: Path, title: str) -> None:
    """DET-style curve: OVLP sensitivity against false alarms per 24 h as the threshold sweeps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=120)
    pts = [p for p in points if p["sensitivity"] is not None]
    ax.plot(
        [p["fa_per_24h"] for p in pts],
        [p["sensitivity"] for p in pts],
        "o-",
        color="tab:blue",
        ms=3,
    )
    # every few points, and each of the strict ones where a saturated model's trade-off lies
    step = max(1, len(pts) // 6)
    for i, p in enumerate(pts):
        if i % step == 0 or p["threshold_on"] >= 0.995:
            ax.annotate(f"{p['threshold_on']:g}", (p["fa_per_24h"], p["sensitivity"]), fontsize=7,
                        textcoords="offset points", xytext=(4, -8))  # fmt: skip
    if chosen and chosen.get("sensitivity") is not None:
        ax.plot(
            [chosen["fa_per_24h"]],
            [chosen["sensitivity"]],
            "*",
            color="tab:red",
            ms=14,
            label="operating point",
        )
        ax.legend(loc="lower right")
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlabel("false alarms per 24 h (OVLP)")
    ax.set_ylabel("sensitivity, % (OVLP)")
    ax.set_ylim(0, 101)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    from rt_eeg.io.atomic import atomic_path

    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, format="png")
    plt.close(fig)
