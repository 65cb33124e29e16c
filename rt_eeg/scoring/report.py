"""Human-readable scoring summary laid out like NEDC's ``summary.txt``."""

from __future__ import annotations

SEP = "=" * 78
LABEL_ORDER = ("seiz", "bckg")

_RATES = (
    ("Sensitivity (TPR, Recall)", "sensitivity"),
    ("Specificity (TNR)", "specificity"),
    ("Precision (PPV)", "precision"),
    ("Negative Pred. Value (NPV)", "npv"),
    ("Miss Rate (FNR)", "miss_rate"),
    ("False Positive Rate (FPR)", "fpr"),
    ("False Discovery Rate (FDR)", "fdr"),
    ("False Omission Rate (FOR)", "false_omission_rate"),
    ("Accuracy", "accuracy"),
    ("Misclassification Rate", "misclassification_rate"),
    ("Prevalence", "prevalence"),
)
_SUMMARY_RATES = (
    ("Sensitivity (TPR, Recall)", "sensitivity"),
    ("Miss Rate (FNR)", "miss_rate"),
    ("Accuracy", "accuracy"),
    ("Misclassification Rate", "misclassification_rate"),
    ("Prevalence", "prevalence"),
)


def _count(name: str, value: float, decimals: int) -> str:
    return f"   {name:>30}: {value:12.{decimals}f}"


def _pct(name: str, value: float | None) -> str:
    if value is None:
        return f"   {name:>30}: {'n/a':>12}"
    return f"   {name:>30}: {value:12.4f}%"


def _num(name: str, value: float, unit: str = "") -> str:
    return f"   {name:>30}: {value:12.4f}" + (f" {unit}" if unit else "")


def _event_block(res: dict, decimals: int) -> list[str]:
    out = ["PER LABEL RESULTS:", ""]
    for lab in LABEL_ORDER:
        r = res[lab]
        out += [f" LABEL: {lab.upper()}", ""]
        out += [
            _count("Targets", r["targets"], decimals),
            _count("Hits", r["hits"], decimals),
            _count("Misses", r["misses"], decimals),
            _count("False Alarms", r["false_alarms"], decimals),
            _count("Insertions", r["insertions"], decimals),
            _count("Deletions", r["deletions"], decimals),
            "",
            _count("True Positives (TP)", r["tp"], decimals),
            _count("True Negatives (TN)", r["tn"], decimals),
            _count("False Positives (FP)", r["fp"], decimals),
            _count("False Negatives (FN)", r["fn"], decimals),
            "",
        ]
        out += [_pct(name, r[key]) for name, key in _RATES]
        out += [
            _num("F1 Score (F Ratio)", r["f1"]),
            _num("Matthews (MCC)", r["mcc"]),
            _num("False Alarm Rate", r["fa_per_24h"], "per 24 hours"),
            "",
        ]
    t = res["total"]
    out += ["SUMMARY:", ""]
    out += [
        _count("Total", t["targets"], decimals),
        _count("Hits", t["hits"], decimals),
        _count("Misses", t["misses"], decimals),
        _count("False Alarms", t["false_alarms"], decimals),
        _count("Insertions", t["insertions"], decimals),
        _count("Deletions", t["deletions"], decimals),
        "",
        _count("True Positives(TP)", t["tp"], decimals),
        _count("False Positives (FP)", t["fp"], decimals),
        "",
    ]
    out += [_pct(name, t[key]) for name, key in _SUMMARY_RATES]
    out += [
        _num("F1 Score", t["f1"]),
        _num("Matthews (MCC)", t["mcc"]),
        "",
        _num("Total Duration", t["total_duration_s"], "secs"),
        _num("Total False Alarms", t["total_false_alarms"], "events"),
        _num("Total False Alarm Rate", t["fa_per_24h"], "per 24 hours"),
        "",
    ]
    return out


def _confusion(conf: dict) -> list[str]:
    out = [f"{'Ref/Hyp:':>10}" + "".join(f"{lab:^24}" for lab in LABEL_ORDER)]
    for a in LABEL_ORDER:
        row_sum = sum(conf[a].values())
        cells = ""
        for b in LABEL_ORDER:
            pct = 100.0 * conf[a][b] / row_sum if row_sum else 0.0
            cells += f"{float(conf[a][b]):12.2f} ({pct:6.2f}%)"
        out.append(f"{a + ':':>10}{cells}")
    return out


def format_summary(
    result: dict, *, ref_list: str | None = None, hyp_list: str | None = None
) -> str:
    """Format a :func:`rt_eeg.scoring.score_pairs` result as text (NEDC layout, 4 decimals)."""
    out = [SEP, "rt-eeg score: NEDC EEG Eval v6.0.0 compatible scoring and SzCORE", SEP]
    if ref_list or hyp_list:
        out += ["Data:", f" Ref: {ref_list}", f" Hyp: {hyp_list}", ""]
    out += [f" Files: {result['n_files']}", ""]
    out += [SEP, "NEDC EPOCH SCORING SUMMARY:", ""]
    out += ["NEDC Epoch Confusion Matrix".center(58)] + _confusion(result["epoch"]["confusion"])
    out += [""] + _event_block(result["epoch"], 0)
    out += [SEP, "NEDC OVERLAP SCORING SUMMARY:", ""] + _event_block(result["ovlp"], 0)
    out += [SEP, "NEDC TAES SCORING SUMMARY:", ""] + _event_block(result["taes"], 4)
    sz = result["szcore"]
    out += [SEP, "SZCORE EVENT SCORING SUMMARY (timescoring defaults):", ""]
    out += [
        _count("Reference Events", sz["ref_events"], 0),
        _count("True Positives", sz["tp"], 0),
        _count("False Positives", sz["fp"], 0),
        _pct("Sensitivity", sz["sensitivity"]),
        _pct("Precision", sz["precision"]),
        f"   {'F1 Score':>30}: {'n/a':>12}" if sz["f1"] is None else _num("F1 Score", sz["f1"]),
        _num("False Alarm Rate", sz["fa_per_24h"], "per 24 hours"),
        _num("Total Duration", sz["duration_s"], "secs"),
        "",
        SEP,
    ]
    return "\n".join(out) + "\n"
