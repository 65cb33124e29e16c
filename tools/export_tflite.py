"""Add the LiteRT twin (``model.tflite``) to an existing model folder.

``rt-eeg train`` writes it with every model; this converts the ``model.keras`` of a folder
saved before that (needs TensorFlow), records the manifest's ``litert`` section and the new
``files_sha256``. The folder's files are verified first: a modified model is not converted.

Usage: python tools/export_tflite.py --model models/default
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.model_files import add_tflite  # noqa: E402
from rt_eeg.runtime import LITE_BATCH  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="model folder (model.keras, manifest.json)")
    ap.add_argument("--batch", type=int, default=LITE_BATCH, help="windows per call (fixed)")
    args = ap.parse_args(argv)
    try:
        path = add_tflite(args.model, args.batch)
    except (RtEegError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {path} and updated {Path(args.model) / 'manifest.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
