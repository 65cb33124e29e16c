"""How much of *which generator made a window* a trained decoder's summary still holds.

A probe: the decoder's LSTM output (its summary of the 7 s window, the layer the source
adversary of ``rt-eeg train --source-adversary`` reads) is computed for a balanced sample of
training windows (per source, as many seizure as background windows), and a fresh head of the
adversary's shape is fitted to name the source on one half and scored on the other. Accuracy
near chance (1 / sources) says the summary is source-blind to such a head; a decoder trained
without the adversary shows how much there was to remove. Per class too: a generator's
background may be recognisable where its seizures are not. It chooses nothing.

Usage::

    python tools/source_probe.py --store $WORK/storeX5 --sources A+A3+B,XT1,XT2,XE,XH \\
        $WORK/k39s12a $WORK/k51s12a [--per-source 2000] [--out probe.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from source_losses import context_model  # noqa: E402

from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

#: Adam steps of the probe head (batches of 256 drawn from its half of the sample).
PROBE_STEPS = 1000


def balanced_sample(store, sources: str, per_source: int, seed: int):
    """Train rows, ``per_source`` seizure and ``per_source`` background windows of each source
    (fewer where a source has fewer), shuffled.

    Returns
    -------
    rows : ndarray of int64, shape (n,)
    source : ndarray of int32, shape (n,)
    seizure : ndarray of bool, shape (n,)
    names : tuple of str
    """
    from rt_eeg.train_data import parse_sources, row_sources

    rows = store.rows("train")
    y = np.asarray(store.labels[rows]) == 1
    src, names = row_sources(store, rows, parse_sources(sources))
    rng = np.random.default_rng([seed, 11])
    picked = []  # positions in rows, so each pick's source and label come along
    for s in range(len(names)):
        for cls in (True, False):
            pool = np.flatnonzero((src == s) & (y == cls))
            picked.append(rng.choice(pool, min(per_source, pool.size), replace=False))
    at = rng.permutation(np.concatenate(picked))
    return rows[at], src[at].astype(np.int32), y[at], names


def fit_head(tf, keras, head, h: np.ndarray, src: np.ndarray, rng) -> None:
    """:data:`PROBE_STEPS` Adam steps of the head's cross-entropy on batches drawn from
    ``h`` (shape (n, units)) and its sources ``src`` (shape (n,))."""
    opt = keras.optimizers.Adam(1e-3)
    opt.build(head.trainable_variables)

    @tf.function(autograph=False)
    def step(x, s):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=s, logits=head(x))
            )
        grads = tape.gradient(loss, head.trainable_variables)
        opt.apply_gradients(zip(grads, head.trainable_variables, strict=True))

    for _ in range(PROBE_STEPS):
        i = rng.integers(0, len(h), 256)
        step(tf.constant(h[i]), tf.constant(src[i]))


def probe(store_dir: str, sources: str, models: list[str], per_source: int, seed: int) -> dict:
    """``{model folder: {'accuracy', 'seizure_accuracy', 'background_accuracy', 'chance'}}``."""
    import keras

    from rt_eeg.numeric_env import configure_tensorflow
    from rt_eeg.runtime import import_tensorflow
    from rt_eeg.source_adversary import build_head
    from rt_eeg.store import FeatureStore
    from rt_eeg.train_data import model_inputs

    tf = import_tensorflow()
    store = FeatureStore(store_dir)
    rows, src, seiz, names = balanced_sample(store, sources, per_source, seed)
    half = rows.size // 2
    out = {}
    for folder in models:
        model, norm, scale = context_model(folder)
        summary = keras.Model(model.inputs, model.get_layer("lstm").output)
        h = np.concatenate([
            summary.predict(model_inputs(store, rows[i : i + 4096], norm, scale)[0],
                            batch_size=1024, verbose=0)
            for i in range(0, rows.size, 4096)
        ])  # fmt: skip
        configure_tensorflow(seed, 0)
        head = build_head(keras, h.shape[1], len(names), seed)
        fit_head(tf, keras, head, h[:half], src[:half], np.random.default_rng([seed, 12]))
        pred = np.argmax(head(h[half:]).numpy(), axis=1)
        hit = pred == src[half:]
        out[str(folder)] = {
            "accuracy": round(float(hit.mean()), 4),
            "seizure_accuracy": round(float(hit[seiz[half:]].mean()), 4),
            "background_accuracy": round(float(hit[~seiz[half:]].mean()), 4),
            "chance": round(1.0 / len(names), 4),
        }
    return {"sources": list(names), "windows": int(rows.size), "models": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", help="model folders (context-normalised)")
    ap.add_argument("--store", required=True, help="the feature store the models trained on")
    ap.add_argument("--sources", required=True, help="--balance-sources, as given to train")
    ap.add_argument("--per-source", type=int, default=2000,
                    help="seizure and background windows of each source (default 2000)")
    ap.add_argument("--seed", type=int, default=0, help="the sample's and the head's seed")
    ap.add_argument("--out", help="write the result as JSON here (atomically)")
    args = ap.parse_args(argv)
    try:
        result = probe(args.store, args.sources, args.models, args.per_source, args.seed)
    except RtEegError as exc:
        print(f"source_probe: {exc}", file=sys.stderr)
        return 2
    for folder, r in result["models"].items():
        print(f"{folder}: source named {r['accuracy']:.3f} (seizure {r['seizure_accuracy']:.3f}, "
              f"background {r['background_accuracy']:.3f}; chance {r['chance']:.3f})")
    if args.out:
        write_json_atomic(args.out, {"store": args.store, **result})
    return 0


if __name__ == "__main__":
    sys.exit(main())
