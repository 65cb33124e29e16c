"""Choose the model among the variants ``rt-eeg train --keep-variants`` trained.

The rule, in order (recorded in the manifest's ``comparison``):

1. **Real-signal veto.** ``tools/real_checks.py`` is run on every variant; a variant whose
   CHB-MIT ictal vs pre-ictal AUC on the *choosing* patient (``--choose-on``, default chb01)
   is below 0.5 (worse than chance: it ranks pre-ictal EEG above seizures) is rejected. Context
   models are judged with the patient's context, window-only models without. The other
   patient takes no part in the choice and is the held-out report.
2. **Unseen families.** Among the rest, the lowest dev balanced BCE, where dev is the SELECT
   families corpus (never trained on).

When every variant is vetoed nothing is chosen and the script exits 3: the recipe stops rather
than ship a model that fails the one real-EEG check it is allowed to choose by.

The chosen variant's files are copied into the model folder (atomically) and the manifest is
rewritten with the rule, every variant's figures and the choice. ``variants/`` is removed
unless ``--keep``.

Usage::

    python tools/select_variant.py --model DIR [--choose-on chb01] [--shared ../shared]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.io.atomic import atomic_path, write_json_atomic  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--choose-on", default="chb01")
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--keep", action="store_true", help="keep the variants/ folder")
    args = ap.parse_args(argv)
    import real_checks  # tools/ is on sys.path as the script's folder

    model = Path(args.model)
    manifest = json.loads((model / "manifest.json").read_text("utf-8"))
    rows = manifest["comparison"]["variants"]
    for row in rows:
        vdir = model / "variants" / row["variant"]
        out = vdir / "real_checks.json"
        if real_checks.main(["--model", str(vdir), "--shared", args.shared, "--out", str(out),
                             "--no-bonn"]) != 0:  # fmt: skip
            return 2
        rc = json.loads(out.read_text("utf-8"))
        per = {}
        for patient, res in rc["chbmit"]["patients"].items():
            mode = "patient_context" if "patient_context" in res else "no_history"
            per[patient] = {"mode": mode, "auc": round(float(res[mode]["auc"]), 3)}
        row["real_chbmit"] = per
        choose = per.get(args.choose_on)
        row["vetoed"] = bool(choose is not None and choose["auc"] < 0.5)
    ok = [r for r in rows if not r["vetoed"]]
    if not ok:
        for r in rows:
            print(f"{r['variant']}: chb-mit {r['real_chbmit']}, VETOED", file=sys.stderr)
        print(f"select_variant: every variant is vetoed by the real-EEG check on "
              f"{args.choose_on}; nothing chosen (train more variants or seeds)", file=sys.stderr)
        return 3
    best = min(ok, key=lambda r: r["dev_scores"]["balanced_bce"])["variant"]
    for name in ("model.keras", "model.tflite", "features.toml", "data_order.npy"):
        if not (model / "variants" / best / name).is_file():  # model.tflite: saved since LiteRT
            continue
        with atomic_path(model / name, suffix=Path(name).suffix) as tmp:
            shutil.copyfile(model / "variants" / best / name, tmp)
    chosen = json.loads((model / "variants" / best / "manifest.json").read_text("utf-8"))
    for key in ("corpus", "file_list_sha256", "n_recordings", "dev_source", "command_line"):
        if key in manifest:
            chosen[key] = manifest[key]
    chosen["comparison"] = {
        "criterion": (
            f"veto: CHB-MIT ictal vs pre-ictal AUC < 0.5 on {args.choose_on} (real EEG; the other "
            "patient is held out); then lowest dev balanced_bce, dev = SELECT families corpus "
            "(never trained on)"
        ),
        "chosen": best,
        "variants": rows,
    }
    write_json_atomic(model / "manifest.json", chosen)
    if not args.keep:
        shutil.rmtree(model / "variants", ignore_errors=True)
    for r in rows:
        print(f"{r['variant']}: dev bce {r['dev_scores']['balanced_bce']:.4f}, "
              f"chb-mit {r['real_chbmit']}, {'VETOED' if r['vetoed'] else 'ok'}")  # fmt: skip
    print(f"chosen: {best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
