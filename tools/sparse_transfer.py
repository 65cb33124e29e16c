"""How the default model transfers to sparse montages and low sample rates (issue #12).

Outside testers run the bundled model on recordings of 21 and of 8 electrodes at 100 Hz.
This measures that, on held-out simulated recordings (the REPORT families of
``tools/make_default_model.sh``, new patients and a new seed, so nothing here was used to
train, choose or tune the model) and on the real CHB-MIT pieces:

1. ``rt-eeg simulate`` a held-out corpus: 22-channel TCP (01_tcp_ar) at 250 Hz;
2. ``tools/degrade_corpus.py`` copies: 21 electrodes at 100 Hz, 8 electrodes
   (Fp1 Fp2 C3 C4 T3 T4 O1 O2: the reduced montage) at 100 Hz and at 250 Hz;
3. ``rt-eeg evaluate --model models/default`` on each (one worker; resumable);
4. ``tools/real_checks.py --electrodes ... [--sfreq 100]`` on the CHB-MIT pieces;
5. the table: ``tools/results/sparse_transfer.json`` and Markdown on stdout.

Usage::

    python tools/sparse_transfer.py --work /work/sim/sparse [--hours 16 --patients 8 --seed 31]

Every step skips what is already in ``--work``. About 25 min of CPU for 16 h (simulation
0.5 min, degrading 0.5 min, evaluation 2-3 min per condition on one core, 7 conditions; the
CHB-MIT checks 0.5 min each).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from model_card import _summary, per_family  # noqa: E402

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

TRAIN_SEIZ = "rhythmic_delta,rhythmic_theta,spike_wave,focal_spread,generalised"
SELECT_SEIZ = "hemispheric,subtle_focal,rhythmic_beta"
SELECT_OTHER = "slowing,fourteen_six,movement,electrode_pop"
#: TRAIN-only families added after this corpus was first made (the recipe's NEW_TRAIN).
NEW_TRAIN = "percussion,pulse,glossokinetic"
#: The fresh families (rt_eeg/sim/fresh_families.py), added later still: excluded too, so the
#: corpus stays the one first made.
FRESH = "hypnagogic,mu,lambda,phantom_sw,photic"
#: Medication beta (2026-11-28) and the wide alpha field (2026-11-29) came after this corpus too: excluded. (Arousals, added
#: 2026-11-26, are not, so a run since then draws them: its corpus is not the first one.)
LATER = "drug_beta,alpha_field"
#: 19 scalp electrodes + ears (the simulator's files also carry T1/T2, which TCP never uses).
E21 = "FP1,FP2,F3,F4,C3,C4,P3,P4,O1,O2,F7,F8,T3,T4,T5,T6,FZ,CZ,PZ,A1,A2"
E8 = "FP1,FP2,C3,C4,T3,T4,O1,O2"
#: name -> (what, corpus (None: the simulated one), degrade_corpus arguments, postprocess
#: override or None). The ``_k4`` rows are the reduced montage scored as before
#: ``top_k_reduced`` existed: the top 4 channels on every montage.
CONDITIONS: dict[str, tuple[str, str | None, list[str] | None, dict | None]] = {
    "full": ("22-channel TCP, 250 Hz (as simulated)", None, None, None),
    "e21_100": ("21 electrodes, 100 Hz", "e21_100", ["--electrodes", E21, "--sfreq", "100"], None),
    "e8_100_k4": ("8 electrodes, 100 Hz, top 4 of 11 channels", "e8_100", ["--electrodes", E8, "--sfreq", "100"],
                  {"top_k_reduced": 4}),
    "e8_250_k4": ("8 electrodes, 250 Hz, top 4 of 11 channels", "e8_250", ["--electrodes", E8], {"top_k_reduced": 4}),
    "e8_100": ("8 electrodes, 100 Hz, top 2 of 11 (top_k_reduced, default)", "e8_100",
               ["--electrodes", E8, "--sfreq", "100"], None),
    "e8_250": ("8 electrodes, 250 Hz, top 2 of 11 (top_k_reduced, default)", "e8_250", ["--electrodes", E8], None),
    # An experiment, not adopted: the decoder's background gate on the top 2 channels too.
    "e8_100_gate2": ("8 electrodes, 100 Hz, top 2 of 11, background gate on the top 2", "e8_100",
                     ["--electrodes", E8, "--sfreq", "100"], {"gate_top_k": 2}),
}  # fmt: skip


def model_with(model: Path, override: dict, where: Path) -> Path:
    """A copy of ``model`` whose ``postprocess.toml`` sets ``override`` (``gate_top_k`` goes
    into the manifest's decoder context instead); ``model.keras`` and ``features.toml`` are
    copied untouched, so their hashes still verify."""
    import shutil

    if not (where / "postprocess.toml").is_file():
        where.mkdir(parents=True, exist_ok=True)
        for f in model.iterdir():
            if f.is_file() and f.name != "postprocess.toml":
                shutil.copy2(f, where / f.name)
        post = {k: v for k, v in override.items() if k != "gate_top_k"}
        if "gate_top_k" in override:
            manifest = json.loads((where / "manifest.json").read_text())
            manifest["decoder"]["context"]["gate_top_k"] = override["gate_top_k"]
            write_json_atomic(where / "manifest.json", manifest)
        lines = [ln for ln in (model / "postprocess.toml").read_text().splitlines()
                 if ln.split("=")[0].strip() not in post]  # fmt: skip
        lines += [f"{k} = {v}" for k, v in post.items()]
        (where / "postprocess.toml").write_text("\n".join(lines) + "\n")
    return where


def feature_shift(full_edf: Path, low_edf: Path, seconds: float = 600.0) -> dict:
    """What a lower rate does to each feature: the same recording at 250 Hz and degraded,
    first ``seconds``, all channels: medians, interquartile ranges and the correlation."""
    import numpy as np

    from rt_eeg.features import FEATURE_NAMES, compute_features
    from rt_eeg.io.edf import open_recording

    feats = []
    for f in (full_edf, low_edf):
        with open_recording(f) as rec:
            feats.append(compute_features(rec.read()[: int(seconds * rec.sfreq)])[0])
    n = min(len(feats[0]), len(feats[1]))
    a, b = (x[:n].reshape(-1, x.shape[2]) for x in feats)

    def iqr(v):
        return float(np.subtract(*np.percentile(v, [75, 25])))

    return {name: {"median": [round(float(np.median(a[:, j])), 3), round(float(np.median(b[:, j])), 3)],
                   "iqr": [round(iqr(a[:, j]), 3), round(iqr(b[:, j]), 3)],
                   "corr": round(float(np.corrcoef(a[:, j], b[:, j])[0, 1]), 4)}
            for j, name in enumerate(FEATURE_NAMES)}  # fmt: skip


def _run(cmd: list[str]) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, help="folder for the corpora and evaluations")
    ap.add_argument("--model", default=str(ROOT / "models" / "default"))
    ap.add_argument("--hours", type=float, default=16.0)
    ap.add_argument("--patients", type=int, default=8)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "sparse_transfer.json"))
    ap.add_argument("--probe", default="aaaamccc_s003_t003",
                    help="recording whose features at 250 vs 100 Hz are compared (default: one that "
                    "gained a false alarm at 100 Hz)")  # fmt: skip
    args = ap.parse_args(argv)
    work = Path(args.work)
    py = sys.executable
    work.mkdir(parents=True, exist_ok=True)
    full = work / "full"
    sim_cmd = [py, "-m", "rt_eeg.cli", "simulate", "--out", str(full), "--hours", str(args.hours),
               "--patients", str(args.patients), "--seed", str(args.seed), "--sfreq", "250",
               "--montage", "01_tcp_ar", "--no-progress",
               "--exclude-families",
               f"{TRAIN_SEIZ},{SELECT_SEIZ},{SELECT_OTHER},{NEW_TRAIN},{FRESH},{LATER}"]  # fmt: skip
    if not (full / "edf").is_dir():
        _run(sim_cmd)
    rows: dict = {}
    for name, (what, cname, degrade, override) in CONDITIONS.items():
        corpus = full if cname is None else work / cname
        if degrade is not None and not (corpus / "degrade.json").is_file():
            _run([py, str(ROOT / "tools" / "degrade_corpus.py"), "--src", str(full), "--out", str(corpus), *degrade])
        listing = work / f"{cname or 'full'}.list"
        listing.write_text("".join(f"{p}\n" for p in sorted(corpus.rglob("*.edf"))))
        model = Path(args.model)
        if override:
            model = model_with(model, override, work / f"model_{name}")
        out = work / f"eval_{name}"
        if not (out / "report.json").is_file():
            _run([py, "-m", "rt_eeg.cli", "evaluate", "--list", str(listing), "--model", str(model),
                  "--out", str(out), "--workers", "1", "--quiet"])  # fmt: skip
        rep = json.loads((out / "report.json").read_text())
        rows[name] = {"what": what, "degrade": degrade, "postprocess_override": override,
                      "montages": rep.get("montages"), **_summary(rep), "per_family": per_family(rep)}  # fmt: skip
    real: dict = {}
    k4 = model_with(Path(args.model), {"top_k_reduced": 4}, work / "model_k4")
    for tag, model, extra in (
        ("full", args.model, []),
        ("full_100", args.model, ["--sfreq", "100"]),
        ("e8_k4", k4, ["--electrodes", E8]),
        ("e8", args.model, ["--electrodes", E8]),
        ("e8_100_k4", k4, ["--electrodes", E8, "--sfreq", "100"]),
        ("e8_100", args.model, ["--electrodes", E8, "--sfreq", "100"]),
    ):
        path = work / f"real_checks_{tag}.json"
        if not path.is_file():
            _run([py, str(ROOT / "tools" / "real_checks.py"), "--model", str(model), "--no-bonn",
                  "--out", str(path), *extra])  # fmt: skip
        doc = json.loads(path.read_text())
        real[tag] = {"electrodes": doc.get("electrodes"), "sfreq": doc.get("sfreq"),
                     "channels": doc["chbmit"]["channels_formed"], "top_k": doc["chbmit"].get("top_k"),
                     "chbmit": {p: {m: {"auc": round(v["auc"], 3), "ictal_pass": v["ictal_pass"],
                                        "preictal_pass": v["preictal_pass"], "n": v["n"]}
                                    for m, v in res.items()}
                                for p, res in doc["chbmit"]["patients"].items()}}  # fmt: skip
    # The recording the 100 Hz copy scored most differently on (most new false alarms).
    edf = sorted(full.rglob("*.edf"))[0]
    probe = [p for p in sorted(full.rglob("*.edf")) if p.stem == args.probe] or [edf]
    shift = feature_shift(probe[0], work / "e21_100" / probe[0].relative_to(full))
    result = {
        "model": args.model,
        "feature_shift_250_to_100hz": {"recording": probe[0].stem, "seconds": 600,
                                       "columns": "[250 Hz, 100 Hz]", "features": shift},
        "corpus": {"simulate": " ".join(sim_cmd[2:]), "held_out": "REPORT seizure families and "
                   "REPORT + TRAIN others (as corpus U of tools/make_default_model.sh), new patients, "
                   f"seed {args.seed}; nothing here was used to train, choose or tune the model"},
        "note": "top_k_reduced = 2 (the rows without _k4) was made the postprocessor's default after "
                "these figures were seen; the _k4 rows (top 4 on every montage, as before), the "
                "full and 100 Hz rows and the CHB-MIT *_k4 rows are the untouched measurement",
        "conditions": rows,
        "real_chbmit": real,
    }  # fmt: skip
    write_json_atomic(Path(args.out), result)
    print("| input | channels | OVLP sens. | OVLP FA/24 h | TAES sens. | onset latency median / p90 |")
    print("|---|---|---|---|---|---|")
    for r in rows.values():
        lat = r["onset_latency_s"]
        print(f"| {r['what']} | {', '.join(r['montages'] or {})} | {r['ovlp_sensitivity']} % "
              f"({round(r['ovlp_sensitivity'] * r['seizures'] / 100)}/{r['seizures']}) | {r['ovlp_fa_per_24h']} | "
              f"{r['taes_sensitivity']} % | {lat.get('median')} s / {lat.get('p90')} s |")  # fmt: skip
    for tag, r in real.items():
        c = r["chbmit"]
        print(f"CHB-MIT {tag}: " + "; ".join(f"{p} AUC {v['patient_context']['auc']} with context "
                                             f"({v['patient_context']['ictal_pass']}/{v['patient_context']['n']} ictal pass), "
                                             f"{v['no_history']['auc']} alone" for p, v in c.items()))  # fmt: skip
    changed = [k for k, v in shift.items() if v["corr"] < 0.99]
    print(f"features changed by 100 Hz (corr < 0.99 with 250 Hz): {', '.join(changed) or 'none'}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
