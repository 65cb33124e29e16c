"""Real-signal checks of a model: what the decoder says on EEG that nobody on the team made.

Three checks, each on real recordings in ``../shared/data`` (never copied into the project):

1. **CHB-MIT ictal vs pre-ictal** (``real_seizure_snippets/chbmit``: chb01 and chb03, 7
   seizures each; a 10 s piece during each seizure and a 10 s piece before it, 23 bipolar
   channels at 256 Hz, not contiguous). Score of a piece: the mean over its full-window epochs
   (the last 4 of its 10) of the mean of the top-4 channel probabilities, the cross-channel
   score the postprocessor thresholds. Reported per patient as the ROC AUC of ictal against
   pre-ictal pieces, and how many of each pass the model's tuned ``threshold_on``. Two modes:
   ``no_history`` (each piece alone, as at the start of a recording) and ``patient_context``
   (for context models: the decoder first sees the patient's *other* pre-ictal pieces, 60 s of
   this patient's background, leave-one-seizure-out, then the piece; the window restarts at each
   piece because the pieces are not contiguous).
2. **TUH background** (``tuh_real_snippets``: two real recordings, 17 s and 22 s, background
   only): the whole detector with the model's postprocessor; must give no SEIZ.
3. **Bonn** (``real_seizure_snippets/bonn``, single channel, 173.61 Hz, 23.6 s segments):
   a coarse check: AUC of set E (intracranial, ictal) against A+B (scalp, healthy) and against
   D (intracranial, seizure-free), per-segment score = mean channel probability over the
   full-window epochs.

Usage::

    python tools/real_checks.py --model models/default [--shared ../shared] [--out F.json]
        [--electrodes FP1,FP2,C3,C4,T3,T4,O1,O2] [--sfreq 100]

``--electrodes`` reads the CHB-MIT pieces as a recording of only those electrodes would be
read (the bipolar channels re-derived into that subset's chain derivations, e.g. FP1-C3 =
FP1-F3 + F3-C3: the reduced montage); ``--sfreq`` first resamples them to that rate, as an
amplifier at that rate would have recorded them. Both apply to the CHB-MIT check only (the
TUH recordings and the Bonn sets are left out with either).

Writes JSON (default ``tools/results/real_checks_<model name>.json``) and prints a summary.
"""

from __future__ import annotations

import argparse
import io
import sys
import zipfile
from pathlib import Path

import numpy as np
from scipy.signal import resample, resample_poly

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.context import gate_score  # noqa: E402
from rt_eeg.dev_metrics import roc_auc  # noqa: E402
from rt_eeg.features import FeatureConfig, compute_features  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.io.channels import normalise_labels  # noqa: E402
from rt_eeg.montage import bipolar_rereference, tcp_montage  # noqa: E402

#: CHB-MIT channel order of the snippets (see their README).
CHB_LABELS = (
    "FP1-F7 F7-T7 T7-P7 P7-O1 FP1-F3 F3-C3 C3-P3 P3-O1 FP2-F4 F4-C4 C4-P4 P4-O2 FP2-F8 "
    "F8-T8 T8-P8 P8-O2 FZ-CZ CZ-PZ P7-T7 T7-FT9 FT9-FT10 FT10-T8 T8-P8"
).split()
#: Full-window epochs of a 10 s piece (epochs 6..9 see 7 s of the piece).
FULL_FROM = 6


def _features(signal_uv: np.ndarray, sfreq: float, cfg: FeatureConfig) -> np.ndarray:
    """``(n, n_ch)`` microvolts at ``sfreq`` -> features ``(n_frames, n_ch, 26)`` at 250 Hz."""
    if sfreq == 256.0:
        x = resample_poly(signal_uv, 125, 128, axis=0)
    elif sfreq == 100.0:
        x = resample_poly(signal_uv, 5, 2, axis=0)
    elif sfreq == cfg.sfreq:
        x = signal_uv
    else:
        x = resample(signal_uv, int(round(signal_uv.shape[0] * cfg.sfreq / sfreq)), axis=0)
    feats, _ = compute_features(np.ascontiguousarray(x, dtype=np.float32), cfg)
    return feats


def _piece_score(probs: np.ndarray, k: int = 4) -> float:
    full = probs[FULL_FROM:] if probs.shape[0] > FULL_FROM else probs
    return float(gate_score(full, k).mean())


def chb_reader(electrodes: list[str] | None, sfreq: float | None):
    """``(channel names, piece -> (n, n_ch) microvolts at the rate it is delivered, rate)``.

    The full TCP montage of the pieces, or (``electrodes``) the chain derivations of that
    subset re-derived from the bipolar channels; ``sfreq`` resamples the 256 Hz pieces first.
    """
    from fractions import Fraction

    if electrodes:
        info = normalise_labels(list(CHB_LABELS))
        first = {}
        for k, c in enumerate(info):
            first.setdefault((c.electrode, c.electrode2), k)
        pairs = list(first)
        derived, matrix = bipolar_rereference(pairs, set(electrodes))
        if len(derived) < 4:  # as the detector: fewer than 4 channels is refused, not scored
            known = sorted({e for p in pairs for e in p})
            raise SystemExit(f"real_checks: --electrodes {','.join(electrodes)} gives "
                             f"{len(derived)} channels from the CHB-MIT pieces (need >= 4; "
                             f"electrodes there: {','.join(known)})")
        names = [f"{a}-{b}" for a, b in derived]
        idx = list(first.values())
    else:
        montage = tcp_montage(normalise_labels(list(CHB_LABELS)))
        names = list(montage.ch_names)
        idx = [CHB_LABELS.index(lab) for lab in montage.input_labels]
        matrix = montage.matrix
    rate = float(sfreq or 256.0)
    ratio = Fraction(rate / 256.0).limit_denominator(1000)

    def read(piece: np.ndarray) -> np.ndarray:
        x = piece.T[:, idx]  # (n, n_inputs), as stored
        if ratio != 1:
            x = resample_poly(x.astype(np.float64), ratio.numerator, ratio.denominator, axis=0)
        return np.ascontiguousarray(x @ matrix, dtype=np.float32)  # as Montage.apply

    return names, read, rate


def chbmit(decoder, shared: Path, post, electrodes=None, sfreq=None) -> dict:
    """Ictal vs pre-ictal separation per patient, with and without the patient's context.

    ``post`` is the model's PostprocessConfig: a piece's score averages the channels its
    postprocessor would (``top_k``, or ``top_k_reduced`` on a reduced montage).
    """
    from rt_eeg.postprocess import effective_top_k

    base = shared / "data" / "real_seizure_snippets" / "chbmit"
    names, read, rate = chb_reader(electrodes, sfreq)
    cfg = decoder.feature_config
    threshold, k = post.threshold_on, effective_top_k(post, names)
    out: dict = {"channels_formed": names, "sfreq": rate, "top_k": k, "patients": {}}
    for pdir in sorted(p for p in base.iterdir() if p.is_dir()):
        pieces = {}
        for kind, sub, suffix in (("ictal", "ictal", "_ictal.npy"), ("pre", "preictal_10s", "_preictal10s.npy")):
            for f in sorted((pdir / sub).glob(f"*{suffix}")):
                rec = f.name[: -len(suffix)]
                pieces[(rec, kind)] = _features(read(np.load(f, allow_pickle=False)), rate, cfg)
        recs = sorted({r for r, _ in pieces})
        res: dict = {}
        modes = ["no_history"] + (["patient_context"] if decoder.uses_context else [])
        for mode in modes:
            scores = {"ictal": [], "pre": []}
            for rec in recs:
                for kind in ("ictal", "pre"):
                    stream = decoder.open_stream(len(names))
                    if mode == "patient_context":
                        for other in recs:
                            if other == rec:
                                continue
                            decoder.predict_many([(stream, pieces[(other, "pre")], None)])
                            stream.reset_window()
                    _, probs = decoder.predict_many([(stream, pieces[(rec, kind)], None)])[0]
                    scores[kind].append(_piece_score(probs, k))
            y = np.r_[np.ones(len(scores["ictal"])), np.zeros(len(scores["pre"]))]
            p = np.r_[scores["ictal"], scores["pre"]]
            res[mode] = {
                "auc": roc_auc(y, p),
                "ictal_scores": [round(v, 4) for v in scores["ictal"]],
                "preictal_scores": [round(v, 4) for v in scores["pre"]],
                "ictal_pass": int(np.sum(np.asarray(scores["ictal"]) >= threshold)),
                "preictal_pass": int(np.sum(np.asarray(scores["pre"]) >= threshold)),
                "n": len(recs),
            }
        out["patients"][pdir.name] = res
    return out


def tuh_background(model_dir: Path, decoder, shared: Path) -> dict:
    """The whole detector on the real TUH background recordings: SEIZ events found."""
    from rt_eeg.config import load_postprocess_config
    from rt_eeg.detector import detect_recording

    post = load_postprocess_config(model_dir)
    out = {}
    for edf in sorted((shared / "data" / "tuh_real_snippets").glob("*.edf")):
        r = detect_recording(edf, decoder, post)
        events = [d for d in r.decisions if d.label == "seiz"]
        out[edf.name] = {
            "duration_s": round(float(r.duration), 2),
            "epochs": len(r.decisions),
            "seiz_epochs": len(events),
            "max_score": round(float(gate_score(r.probs).max(initial=0.0)), 4),
        }
    out["total_seiz_epochs"] = sum(v["seiz_epochs"] for v in out.values())
    return out


def bonn(decoder, shared: Path) -> dict:
    """Coarse single-channel check on the Bonn sets (per-segment mean channel probability)."""
    path = shared / "data" / "real_seizure_snippets" / "bonn" / "bonn_sets_A-E.zip"
    if not path.is_file():
        return {"skipped": f"{path} not found"}
    cfg = decoder.feature_config
    sets: dict[str, list[float]] = {}

    def walk(zf: zipfile.ZipFile, prefix: str = "") -> None:
        for name in zf.namelist():
            if name.lower().endswith(".zip"):
                walk(zipfile.ZipFile(io.BytesIO(zf.read(name))), Path(name).stem)
            elif name.lower().endswith(".txt"):
                letter = (prefix or Path(name).parent.name or Path(name).stem)[:1].upper()
                key = {"Z": "A", "O": "B", "N": "C", "F": "D", "S": "E"}.get(letter, letter)
                x = np.loadtxt(io.BytesIO(zf.read(name)), dtype=np.float64)
                feats = _features(x[:, None], 173.61, cfg)
                stream = decoder.open_stream(1)
                _, probs = decoder.predict_many([(stream, feats, None)])[0]
                sets.setdefault(key, []).append(float(probs[FULL_FROM:, 0].mean()))

    with zipfile.ZipFile(path) as zf:
        walk(zf)
    out: dict = {k: {"n": len(v), "mean_score": round(float(np.mean(v)), 4)} for k, v in sorted(sets.items())}
    if "E" in sets:
        for neg in (("A", "B"), ("D",)):
            negs = [v for k in neg for v in sets.get(k, [])]
            if negs:
                y = np.r_[np.ones(len(sets["E"])), np.zeros(len(negs))]
                out["auc_E_vs_" + "".join(neg)] = roc_auc(y, np.r_[sets["E"], negs])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(ROOT / "models" / "default"))
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-bonn", action="store_true", help="skip the Bonn sets (500 segments)")
    ap.add_argument("--electrodes", help="CHB-MIT only, read as a recording of these electrodes "
                    "(comma list, e.g. FP1,FP2,C3,C4,T3,T4,O1,O2: the reduced montage)")  # fmt: skip
    ap.add_argument("--sfreq", type=float, help="CHB-MIT only, resampled to this rate first (Hz)")
    args = ap.parse_args(argv)
    electrodes = [e.strip().upper() for e in args.electrodes.split(",")] if args.electrodes else None
    degraded = bool(electrodes or args.sfreq)
    shared = Path(args.shared)
    if not (shared / "data").is_dir():
        print(f"real_checks: {shared}/data not found (the real recordings live there)", file=sys.stderr)
        return 2
    from rt_eeg.config import load_postprocess_config
    from rt_eeg.decoder import Decoder

    model_dir = Path(args.model)
    decoder = Decoder(model_dir, device="cpu", feature_config="model")  # features computed here
    post = load_postprocess_config(model_dir)
    threshold = post.threshold_on
    result = {
        "model": str(model_dir),
        "normalisation": decoder.normalisation,
        "threshold_on": threshold,
        "electrodes": electrodes,
        "sfreq": args.sfreq,
        "chbmit": chbmit(decoder, shared, post, electrodes, args.sfreq),
    }
    if not degraded:
        result["tuh_background"] = tuh_background(model_dir, decoder, shared)
    if not args.no_bonn and not degraded:
        result["bonn"] = bonn(decoder, shared)
    tag = model_dir.name + (f"_{len(electrodes)}e" if electrodes else "") + (f"_{args.sfreq:g}hz" if args.sfreq else "")
    out = Path(args.out) if args.out else ROOT / "tools" / "results" / f"real_checks_{tag}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out, result)
    for pat, res in result["chbmit"]["patients"].items():
        for mode, r in res.items():
            print(f"CHB-MIT {pat} {mode}: AUC {r['auc']:.3f}; pass {r['ictal_pass']}/{r['n']} ictal, "
                  f"{r['preictal_pass']}/{r['n']} pre-ictal")
    if "tuh_background" in result:
        print(f"TUH background: {result['tuh_background']['total_seiz_epochs']} SEIZ epochs")
    if "bonn" in result:
        b = result["bonn"]
        print("Bonn: " + ", ".join(f"{k} {v:.3f}" for k, v in b.items() if k.startswith("auc")))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
