"""What the context gate costs: decode a corpus with the labels as the gate (issue #12).

A context model's background centre leaves out the epochs it *calls* seizure (the gate, see
:mod:`rt_eeg.context`). In training the labels stand in for the calls; live the model's own
calls do. If the live gate cost much, a decode gated by the labels (the oracle: every true
seizure epoch left out, nothing else) would score much better than the model's own decode,
and a better gate (two-pass training, a bounded or second context) would be worth building.
This decodes a corpus two ways beside the stored model-gated run:

- ``oracle``: the centre gated by the labels (an epoch with any seizure channel is left out),
  exactly as the training store computes it (``Decoder.predict_recording(features, accept)``);
- ``ungated``: every epoch enters the centre (no gate at all).

Each writes ``NAME.probs.npz`` as ``rt-eeg evaluate`` does (epochs, channels, duration and
montage copied from the stored model-gated run, whose epoch count must match), so
``tools/operating_point.py`` tunes and scores them like any run.

Usage::

    python tools/gate_oracle.py --model models/default --list SEL.list \\
        --gated EVAL_DIR --out-oracle DIR --out-ungated DIR [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import save_npz_atomic  # noqa: E402

_DECODER = {}


def _one(args: tuple) -> str:
    edf, model, gated, out_oracle, out_ungated = args
    from rt_eeg.decoder import Decoder
    from rt_eeg.features import compute_features
    from rt_eeg.io.edf import open_recording
    from rt_eeg.store import channel_labels

    if model not in _DECODER:
        _DECODER[model] = Decoder(model, device="cpu")
    dec = _DECODER[model]
    edf = Path(edf)
    with np.load(Path(gated) / f"{edf.stem}.probs.npz", allow_pickle=False) as z:
        stored = {k: z[k] for k in z.files}
    with open_recording(edf) as rec:
        signal, ch = rec.read(), list(rec.ch_names)
    feats, _ = compute_features(signal, dec.feature_config)
    n_ep = stored["probs"].shape[0]
    if feats.shape[0] // 10 != n_ep or ch != [str(c) for c in stored["ch_names"]]:
        raise RtEegError(f"epochs or channels differ from the stored run ({n_ep} epochs)", edf)
    labels = channel_labels(edf, edf.with_suffix(".csv_bi"), ch, n_ep)
    for out, accept in ((out_oracle, ~labels.any(axis=1)), (out_ungated, np.ones(n_ep, bool))):
        probs = dec.predict_recording(feats[: n_ep * 10], accept)
        save_npz_atomic(Path(out) / f"{edf.stem}.probs.npz", **(stored | {"probs": probs}))
    return edf.stem


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--list", required=True, help="EDF list (as rt-eeg evaluate --list)")
    ap.add_argument("--gated", required=True, help="the model's own evaluate folder (probs.npz)")
    ap.add_argument("--out-oracle", required=True)
    ap.add_argument("--out-ungated", required=True)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    from rt_eeg.decoder import Decoder

    if not Decoder(args.model, device="cpu").uses_context:
        raise SystemExit(f"{args.model}: not a context model; the gate does not apply")
    for d in (args.out_oracle, args.out_ungated):
        Path(d).mkdir(parents=True, exist_ok=True)
    edfs = Path(args.list).read_text().split()
    todo = [(e, args.model, args.gated, args.out_oracle, args.out_ungated) for e in edfs]
    try:
        with ProcessPoolExecutor(args.workers) as ex:
            for i, name in enumerate(ex.map(_one, todo), 1):
                print(f"[{i}/{len(todo)}] {name}", flush=True)
    except (RtEegError, OSError, KeyError) as err:
        print(f"gate_oracle: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
