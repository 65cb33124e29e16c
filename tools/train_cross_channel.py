"""Train the cross-channel scorer (rt_eeg.cross_channel) on stored decoder outputs (issue #12).

Reads ``rt-eeg evaluate`` outputs (``NAME.probs.npz``: per-recording channel probabilities)
and the reference annotation beside each EDF of the list (``NAME.csv_bi``), builds one
(input, label) pair per decoded epoch with the postprocessor's own feature path (so training
and inference inputs are the same code), trains a tiny MLP in TensorFlow/Keras
deterministically, exports it to the numpy form, checks numpy == Keras on every training input,
and writes a complete ``postprocess.toml`` (the model's parameters plus the ``[cross_channel]``
table) atomically. Tune its thresholds afterwards with ``rt-eeg evaluate --sweep``.

Labels: an epoch is SEIZ when its midpoint lies in a reference seizure. Onset epochs (the first
``--onset-s`` seconds of a seizure) weigh ``--onset-weight`` times more (early detection);
then the classes are balanced (equal total weight).

Train only on decoder outputs of a corpus the decoder never trained on, holding only its
TRAIN families (never the SELECT or REPORT corpora)::

    python tools/train_cross_channel.py --eval /work/sim/x/eval_C --corpus /work/sim/x/C.list \\
        --model models/default --out /work/sim/x/model_cc/postprocess.toml --seed 0
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from rt_eeg.config import load_postprocess_config
from rt_eeg.cross_channel import CrossChannelConfig, CrossChannelScorer
from rt_eeg.errors import RtEegError
from rt_eeg.postprocess import PostprocessConfig, Postprocessor


def log(msg: str) -> None:
    print(f"train_cross_channel: {msg}", flush=True)


def untrained(epochs: int, top_m: int, hidden: int) -> CrossChannelConfig:
    """Zero weights of the given geometry (for computing inputs)."""
    n_in = epochs * (top_m + 2)
    return CrossChannelConfig.from_arrays(np.zeros((n_in, hidden)), np.zeros(hidden), np.zeros(hidden), 0.0,
                                          epochs=epochs, top_m=top_m)  # fmt: skip


def recording_inputs(epoch_starts: np.ndarray, probs: np.ndarray, ch_names: list[str],
                     post: PostprocessConfig) -> np.ndarray:  # fmt: skip
    """The scorer's input for every epoch, computed by the Postprocessor itself.

    Parameters
    ----------
    epoch_starts : np.ndarray
        ``(n_epochs,)`` epoch starts in seconds.
    probs : np.ndarray
        ``(n_epochs, n_channels)`` P(seizure) per channel.
    post : PostprocessConfig
        With a ``cross_channel`` table (its geometry matters, not its weights).

    Returns
    -------
    np.ndarray
        ``(n_epochs, n_inputs)`` float64.
    """
    pp = Postprocessor(ch_names, post)
    rows = []
    for t, p in zip(epoch_starts, probs, strict=True):
        pp.push(float(t), p)
        rows.append(pp.scorer.last_inputs)
    return np.array(rows, np.float64).reshape(len(rows), post.cross_channel.n_inputs)


def epoch_labels(epoch_starts: np.ndarray, events, epoch_s: float, onset_s: float):
    """``(label, onset)`` boolean arrays: epoch midpoint inside a seizure / its first onset_s."""
    mid = np.asarray(epoch_starts, np.float64) + epoch_s / 2
    lab = np.zeros(len(mid), bool)
    onset = np.zeros(len(mid), bool)
    for e in events:
        if e.label != "seiz":
            continue
        inside = (mid >= e.start) & (mid < e.stop)
        lab |= inside
        onset |= inside & (mid < e.start + onset_s)
    return lab, onset


def auc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    """Area under the ROC curve (rank statistic, ties averaged); None with one class only."""
    from scipy.stats import rankdata

    pos = labels.astype(bool)
    n1, n0 = int(pos.sum()), int((~pos).sum())
    if n1 == 0 or n0 == 0:
        return None
    r = rankdata(scores)
    return float((r[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def build_dataset(eval_dirs: list[Path], lists: list[Path], post: PostprocessConfig, onset_s: float):
    """Inputs, labels, onset flags and baseline (top-k mean) scores over every listed recording."""
    from rt_eeg.io.annotations import check_within_recording, read_csv_bi
    from rt_eeg.io.corpus import read_list
    from rt_eeg.postprocess import postprocess_recording

    edfs = [Path(e) for lst in lists for e in read_list(lst, "recordings")]
    xs, ys, onsets, base = [], [], [], []
    baseline = post.replace(cross_channel=None)
    for k, edf in enumerate(edfs):
        npz = next((d / f"{edf.stem}.probs.npz" for d in eval_dirs if (d / f"{edf.stem}.probs.npz").is_file()), None)
        if npz is None:
            raise RtEegError(f"no {edf.stem}.probs.npz in {', '.join(map(str, eval_dirs))} "
                             "(run rt-eeg evaluate on the list first)", edf)  # fmt: skip
        try:
            with np.load(npz, allow_pickle=False) as z:
                starts, probs = z["epoch_starts"], z["probs"]
                ch_names, duration = [str(c) for c in z["ch_names"]], float(z["duration"])
        except (OSError, KeyError, ValueError) as err:
            raise RtEegError(f"not an rt-eeg evaluate probabilities file ({err})", npz) from None
        ann = read_csv_bi(edf.with_suffix(".csv_bi"))
        check_within_recording(ann, duration, edf)
        xs.append(recording_inputs(starts, probs, ch_names, post))
        lab, on = epoch_labels(starts, ann.events, post.epoch_s, onset_s)
        ys.append(lab)
        onsets.append(on)
        base.append([d.score for d in postprocess_recording(starts, probs, ch_names, baseline) if d.label != "na"])
        if (k + 1) % 5 == 0 or k + 1 == len(edfs):
            log(f"inputs: {k + 1}/{len(edfs)} recordings, {sum(map(len, ys))} epochs")
    return (np.concatenate(xs), np.concatenate(ys), np.concatenate(onsets),
            np.concatenate([np.asarray(b, np.float64) for b in base]), edfs)  # fmt: skip


def keras_mlp(n_inputs: int, hidden: int):
    """The scorer's architecture in Keras: Dense(hidden, relu) -> Dense(1, sigmoid)."""
    import keras

    return keras.Sequential([keras.Input((n_inputs,)), keras.layers.Dense(hidden, activation="relu"),
                             keras.layers.Dense(1, activation="sigmoid")])  # fmt: skip


def export(model, mean: np.ndarray, std: np.ndarray, *, epochs: int, top_m: int, trained_on: str):
    """Fold the input standardisation ``(x - mean) / std`` into the first layer; float32."""
    (w1, b1), (w2, b2) = model.layers[0].get_weights(), model.layers[1].get_weights()
    w1, b1 = w1.astype(np.float64), b1.astype(np.float64)
    b1 = b1 - (mean / std) @ w1
    w1 = w1 / std[:, None]
    return CrossChannelConfig.from_arrays(w1, b1, w2, b2, epochs=epochs, top_m=top_m, trained_on=trained_on)


def keras_forward(cc: CrossChannelConfig, x: np.ndarray) -> np.ndarray:
    """The exported weights run by Keras (float32): what numpy must reproduce."""
    m = keras_mlp(cc.n_inputs, cc.hidden)
    m.layers[0].set_weights([np.array(cc.w1, np.float32), np.array(cc.b1, np.float32)])
    m.layers[1].set_weights([np.array(cc.w2, np.float32)[:, None], np.array([cc.b2], np.float32)])
    return m.predict(np.asarray(x, np.float32), batch_size=4096, verbose=0)[:, 0].astype(np.float64)


def train(x, y, w, *, hidden: int, seed: int, epochs: int, lr: float, batch: int):
    """Fit the MLP on standardised inputs; returns (model, mean, std)."""
    import keras

    from rt_eeg.numeric_env import configure_tensorflow

    configure_tensorflow(seed)
    mean, std = x.mean(0), np.maximum(x.std(0), 1e-3)
    xn = ((x - mean) / std).astype(np.float32)
    model = keras_mlp(x.shape[1], hidden)
    model.compile(optimizer=keras.optimizers.Adam(lr), loss="binary_crossentropy")

    class Progress(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if (epoch + 1) % 5 == 0 or epoch + 1 == epochs:
                log(f"epoch {epoch + 1}/{epochs}: weighted loss {logs['loss']:.4f}")

    model.fit(xn, y.astype(np.float32), sample_weight=w.astype(np.float32), epochs=epochs,
              batch_size=batch, shuffle=True, verbose=0, callbacks=[Progress()])  # fmt: skip
    return model, mean, std


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--eval", required=True, help="rt-eeg evaluate output folder(s), comma-separated")
    p.add_argument("--corpus", required=True, help="EDF list file(s), comma-separated (.csv_bi beside each)")
    p.add_argument("--model", required=True, help="model folder: its postprocess.toml is the base")
    p.add_argument("--out", required=True, help="postprocess TOML to write (base + [cross_channel])")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--window", type=int, default=4,
                   help="epochs of history (T; 4 chosen on S over 8, tools/cross_channel_variants.py)")
    p.add_argument("--top-m", type=int, default=4)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--epochs", type=int, default=40, help="training passes")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--onset-s", type=float, default=10.0)
    p.add_argument("--onset-weight", type=float, default=4.0)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    try:
        base = load_postprocess_config(args.model).replace(cross_channel=None)
        if not 1 <= args.window <= base.buffer_epochs:
            raise RtEegError(f"--window must be within 1..buffer_epochs ({base.buffer_epochs}), got {args.window}")
        geom = base.replace(cross_channel=untrained(args.window, args.top_m, args.hidden))
        eval_dirs = [Path(d) for d in args.eval.split(",") if d]
        for d in eval_dirs:
            if not d.is_dir():
                raise RtEegError("not a folder (expected rt-eeg evaluate outputs)", d)
        x, y, onset, base_scores, edfs = build_dataset(eval_dirs, [Path(c) for c in args.corpus.split(",") if c],
                                                       geom, args.onset_s)  # fmt: skip
        if y.all() or not y.any():
            raise RtEegError("training data needs both seizure and background epochs", args.corpus)
        w = np.where(onset, args.onset_weight, 1.0)
        w[y] *= w[~y].sum() / w[y].sum()  # balance the classes' total weight
        log(f"{len(y)} epochs ({len(y) / 3600:.2f} h), {int(y.sum())} seizure epochs "
            f"({int(onset.sum())} onset), {len(edfs)} recordings; training")  # fmt: skip
        model, mean, std = train(x, y, w, hidden=args.hidden, seed=args.seed, epochs=args.epochs,
                                 lr=args.lr, batch=args.batch)  # fmt: skip
        sha = hashlib.sha256(Path(args.corpus.split(",")[0]).read_bytes()).hexdigest()[:12]
        trained_on = (f"tools/train_cross_channel.py seed {args.seed}, {args.epochs} passes, lr {args.lr}, "
                      f"batch {args.batch}, onset weight {args.onset_weight} over {args.onset_s} s, on {len(edfs)} "
                      f"recordings ({len(y) / 3600:.2f} h, {int(y.sum())} seizure epochs) of {args.corpus} "
                      f"(sha256 {sha}), decoder outputs {args.eval}")  # fmt: skip
        cc = export(model, mean, std, epochs=args.window, top_m=args.top_m, trained_on=trained_on)
        ours = CrossChannelScorer(cc).forward(x)
        theirs = keras_forward(cc, x)
        diff = float(np.max(np.abs(ours - theirs)))
        log(f"numpy vs Keras on {len(x)} inputs: max |diff| {diff:.2e}")
        if diff > 1e-5:
            raise RtEegError(f"numpy forward differs from Keras by {diff:.2e} (> 1e-5)")
        fitted = model.predict(((x - mean) / std).astype(np.float32), batch_size=4096, verbose=0)[:, 0]
        stats = {"epochs": len(y), "seizure_epochs": int(y.sum()), "auc_epoch": auc(ours, y),
                 "auc_epoch_onset": auc(ours[onset | ~y], y[onset | ~y]),
                 "auc_epoch_topk_mean": auc(base_scores, y),
                 "auc_epoch_onset_topk_mean": auc(base_scores[onset | ~y], y[onset | ~y]),
                 "export_vs_trained_max_diff": float(np.max(np.abs(ours - fitted))),
                 "numpy_vs_keras_max_diff": diff, "wall_s": round(time.perf_counter() - t0, 1)}  # fmt: skip
        log(f"training-data epoch AUC: cross-channel {stats['auc_epoch']:.4f} "
            f"(onset epochs {stats['auc_epoch_onset']:.4f}); top-k mean {stats['auc_epoch_topk_mean']:.4f} "
            f"(onset epochs {stats['auc_epoch_onset_topk_mean']:.4f})")  # fmt: skip
    except RtEegError as err:
        print(f"train_cross_channel: {err}", file=sys.stderr)
        return 2
    import tomli_w

    from rt_eeg.io.atomic import write_text_atomic

    cfg = base.replace(cross_channel=cc)
    head = (f"Cross-channel scorer trained by: {' '.join(sys.argv)}\n"
            f"Training-data figures: {json.dumps(stats)}\n"
            "Thresholds are the base model's: tune them with rt-eeg evaluate --sweep.")  # fmt: skip
    write_text_atomic(args.out, "".join(f"# {x}\n" for x in head.splitlines()) + tomli_w.dumps(cfg.to_dict()))
    log(f"wrote {args.out} ({cc.n_inputs * cc.hidden + 2 * cc.hidden + 1} weights) in {stats['wall_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
