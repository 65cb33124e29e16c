"""Each training source's loss under a trained model: what ``--source-dro`` would weigh.

Group DRO (``rt-eeg train --source-dro ETA``) multiplies each balanced source's share of the next
epoch's draws by ``exp(ETA x loss)``, the loss being the source's balanced cross-entropy on a
fixed probe of its own training rows. A sensible ETA depends on how far apart those losses are,
so this scores the probe that training with ``--seed S`` would draw, under finished models (e.g.
K15's seeds), and prints, or writes as JSON, each source's loss. It chooses nothing.

Usage::

    python tools/source_losses.py --store $WORK/storeX5 --sources A+A3+B,XT1,XT2,XE,XH \\
        --seed 3 $WORK/model $WORK/k15ps12a [--out losses.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402


def context_model(folder: str):
    """A context-normalised model folder's Keras model, normalisation and feature scale
    (shape (n_features,)); any other model is refused, naming the folder."""
    import keras

    dec = json.loads((Path(folder) / "manifest.json").read_text())["decoder"]
    if "context" not in dec:
        raise RtEegError("not a context-normalised model (no feature scale)", folder)
    scale = np.asarray(dec["context"]["feature_scale"], np.float32)
    model = keras.saving.load_model(Path(folder) / "model.keras", compile=False)
    return model, dec["normalisation"], scale


def source_losses(store_dir: str, sources: str, seed: int, models: list[str]) -> dict:
    """``{model folder: {source: balanced cross-entropy}}`` on training seed ``seed``'s probe.

    Parameters
    ----------
    store_dir : str
        The feature store the models were trained on.
    sources : str
        ``--balance-sources`` as given to ``rt-eeg train``.
    seed : int
        The training seed whose probe is scored (``np.random.default_rng([seed, 5])``).
    models : list of str
        Model folders trained with a context normalisation.
    """

    from rt_eeg.decoder import make_infer
    from rt_eeg.store import FeatureStore
    from rt_eeg.train import DRO_PROBE, probe_losses, row_scorer
    from rt_eeg.train_data import dro_probe, parse_sources, row_sources

    store = FeatureStore(store_dir)
    rows = store.rows("train")
    y = np.asarray(store.labels[rows])
    pos, neg = rows[y == 1], rows[y == 0]
    src, names = row_sources(store, np.concatenate([pos, neg]), parse_sources(sources))
    rng = np.random.default_rng([seed, 5])  # as train_from_store draws it
    probes = tuple(
        dro_probe(rng, r, s, len(names), DRO_PROBE)
        for r, s in ((pos, src[: pos.size]), (neg, src[pos.size :]))
    )
    out = {}
    for folder in models:
        model, norm, scale = context_model(folder)
        score = row_scorer(make_infer(model), store, norm, scale)
        losses = probe_losses(score, probes)
        out[str(folder)] = {n: round(float(v), 4) for n, v in zip(names, losses, strict=True)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", help="model folders")
    ap.add_argument("--store", required=True, help="the feature store the models trained on")
    ap.add_argument("--sources", required=True, help="--balance-sources, as given to train")
    ap.add_argument("--seed", type=int, default=3, help="whose probe (default 3)")
    ap.add_argument("--out", help="write the losses as JSON here (atomically)")
    args = ap.parse_args(argv)
    try:
        result = source_losses(args.store, args.sources, args.seed, args.models)
    except RtEegError as exc:
        print(f"source_losses: {exc}", file=sys.stderr)
        return 2
    for folder, losses in result.items():
        print(folder, " ".join(f"{n} {v:.3f}" for n, v in losses.items()))
    if args.out:
        write_json_atomic(args.out, {"store": args.store, "seed": args.seed, "losses": result})
    return 0


if __name__ == "__main__":
    sys.exit(main())
