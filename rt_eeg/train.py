"""Reproducible training of the channel-based LSTM decoder.

Pipeline: corpus discovery (:func:`rt_eeg.io.corpus.find_recordings`) -> features computed
once into one memory-mapped store (:mod:`rt_eeg.store`, reused when the file list and the
feature settings are unchanged) -> balanced sampling of (channel, epoch) samples by index ->
a custom Keras/TensorFlow training loop with early stopping on the dev split.

Reproducibility (after "Issues in the Reproducibility of Deep Learning Results", NEDC):

- every random source is seeded: ``keras.utils.set_random_seed(seed)``, explicit initializer
  seeds in :func:`rt_eeg.decoder.build_model`, one ``np.random.default_rng(seed)`` for the
  data order (no global numpy state);
- ``tf.config.experimental.enable_op_determinism()``; float32 throughout;
- the data order is fixed by the seed and *saved*: ``data_order.npy`` holds, for every
  training epoch, the store sample rows in the order they were presented;
- TensorFlow thread pools can be fixed (``threads``); the manifest records them.

Two trainings with the same seed, corpus and thread settings on the CPU give bit-identical
weights (tests/test_train.py). GPU kernels (cuDNN LSTM) are not guaranteed bit-identical
to the CPU ones.

TensorFlow is imported inside functions only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from pathlib import Path

import numpy as np

from rt_eeg.context import BLOCK_EPOCHS, GATE, GATE_TOP_K, N_BLOCKS
from rt_eeg.decoder import (
    CONTEXT_NORMALISATIONS,
    FEATURES_FILE,
    FRAMES_PER_EPOCH,
    HISTORY_EPOCHS,
    HISTORY_NORMALISATIONS,
    MANIFEST_FILE,
    MODEL_FILE,
    SEVEN_SECOND_LAYERS,
    WINDOW_EPOCHS,
    build_model,
    load_seven_second_decoder,
    make_infer,
    model_file_hashes,
    model_width,
    resolve_device,
)
from rt_eeg.dev_metrics import dev_scores
from rt_eeg.distill import load_teacher, soft_targets
from rt_eeg.errors import RtEegError
from rt_eeg.hard_negatives import CALL_POOL, called_rows, minable_negatives, mine_order
from rt_eeg.io.atomic import atomic_path, write_json_atomic
from rt_eeg.model_files import lite_manifest_section
from rt_eeg.numeric_env import configure_tensorflow, library_versions, numeric_environment
from rt_eeg.runtime import LITE_FILE, export_tflite, import_tensorflow
from rt_eeg.source_adversary import adversarial_step, epoch_summary, reversal_strength
from rt_eeg.store import FeatureStore
from rt_eeg.train_config import TrainConfig, smoothing_logit_scale
from rt_eeg.train_data import (
    balanced_order,
    batches,
    context_scale,
    dro_probe,
    dro_shares,
    model_inputs,
    row_sources,
    seizure_weights,
)
from rt_eeg.train_losses import background_focal_loss, background_hinge_loss, margin_hinge_loss
from rt_eeg.weight_average import TailAverage

DATA_ORDER_FILE = "data_order.npy"
DRO_PROBE = 2048  # probe rows a source and half for group DRO's losses (source_dro)


# --------------------------------------------------------------------------- training


def train_from_store(
    store: FeatureStore,
    out_dir: str | os.PathLike,
    cfg: TrainConfig,
    *,
    feature_config,
    device: str = "auto",
    manifest_extra: dict | None = None,
    log=print,
) -> dict:
    """Train on the store's ``train`` split, select on ``dev``, write the model folder.

    Parameters
    ----------
    store : FeatureStore
    out_dir : path-like
        Model folder: ``model.keras``, ``features.toml``, ``manifest.json``, ``data_order.npy``.
    cfg : TrainConfig
    feature_config : rt_eeg.features.FeatureConfig
        The settings the store was computed with (saved as features.toml).
    device : {'auto', 'cpu', 'gpu'}
    manifest_extra : dict, optional
        Entries merged into the manifest (corpus, file-list hash, command line...).
    log : callable
        Progress lines.

    Returns
    -------
    manifest : dict
    """
    tf = import_tensorflow()
    import keras

    t_start = time.perf_counter()
    out_dir = Path(out_dir)
    determinism = configure_tensorflow(cfg.seed, cfg.threads)
    dev_name = resolve_device(device)
    rng = np.random.default_rng(cfg.seed)

    train_rows, dev_rows = store.rows("train"), store.rows("dev")
    if train_rows.size == 0 or dev_rows.size == 0:
        raise RtEegError(
            f"need train and dev samples (train {train_rows.size}, dev {dev_rows.size})", store.path
        )
    train_y = np.asarray(store.labels[train_rows])
    pos, neg = train_rows[train_y == 1], train_rows[train_y == 0]
    if pos.size == 0 or neg.size == 0:
        raise RtEegError(
            f"train split needs seizure and background epochs (seiz {pos.size}, bckg {neg.size})",
            store.path,
        )
    dev_y = np.asarray(store.labels[dev_rows])
    dev_pos, dev_neg = dev_rows[dev_y == 1], dev_rows[dev_y == 0]
    n_dev_neg = max(0, min(dev_neg.size, cfg.max_dev_samples - dev_pos.size))
    dev_rng = np.random.default_rng([cfg.seed, 1])  # own stream: the dev draw never shifts training
    dev_sel = np.sort(np.concatenate([dev_pos, dev_rng.choice(dev_neg, n_dev_neg, replace=False)]))
    n_feat = store.n_features
    width = model_width(cfg.normalisation, n_feat)
    with tf.device(dev_name):
        model = build_model(
            cfg.arch,
            n_features=width,
            units=cfg.units,
            dense_units=cfg.dense_units,
            dropout=cfg.dropout,
            seed=cfg.seed,
        )
    init = load_seven_second_decoder(model, cfg.init_from) if cfg.init_from else None
    scale = None
    if init is not None:  # the frozen branch reads the inputs it was trained on
        scale = np.asarray(init.pop("feature_scale"), np.float32)
        log(f"7 s decoder from {cfg.init_from} (frozen; weights {init['weights_sha256'][:12]})")
    elif cfg.normalisation in CONTEXT_NORMALISATIONS:
        scale_rng = np.random.default_rng([cfg.seed, 2])
        scale = context_scale(
            store, np.sort(scale_rng.choice(train_rows, min(20000, train_rows.size), replace=False))
        )
    dev_x, dev_labels = model_inputs(store, dev_sel, cfg.normalisation, scale)
    pos_weight = seizure_weights(store, pos, cfg)
    minable = (
        minable_negatives(store, neg, cfg.hard_margin_epochs) if cfg.hard_negatives > 0 else None
    )
    sources, source_counts = None, None
    if cfg.balance_sources:
        src, names = row_sources(store, np.concatenate([pos, neg]), tuple(cfg.balance_sources))
        pos_src, neg_src = src[: pos.size], src[pos.size :]
        sources = (pos_src, neg_src if cfg.balance_halves == "both" else None)
        source_counts = {
            n: {"seizure": int((pos_src == i).sum()), "background": int((neg_src == i).sum())}
            for i, n in enumerate(names)
        }
        log("balanced sources (seizure / background samples): " + ", ".join(
            f"{n} {c['seizure']} / {c['background']}" for n, c in source_counts.items()
        ))  # fmt: skip
    shares, probes = None, None
    if cfg.source_dro:  # group DRO: a fixed probe of each source's rows, equal shares to start
        probe_rng = np.random.default_rng([cfg.seed, 5])
        probes = tuple(dro_probe(probe_rng, r, s, len(names), DRO_PROBE)
                       for r, s in ((pos, pos_src), (neg, neg_src)))  # fmt: skip
        shares = np.full(len(names), 1.0 / len(names))
    minable_source = None
    if cfg.balance_mining and minable is not None:  # minable: a subset of neg, in its order
        minable_source = neg_src[np.isin(neg, minable)]
    called = None
    if cfg.veto_called:  # the frozen 7 s decoder's calls, fixed before training (amendment 46)
        all_minable = minable_negatives(store, neg, cfg.hard_margin_epochs)
        log(f"scoring the 7 s decoder's calls: {pos.size} seizure rows and a pool of background")
        pos_called, neg, neg_called_src, called = called_rows(
            np.random.default_rng([cfg.seed, 4]),
            pos,
            all_minable,
            _seven_second_score(model, store, scale, cfg.units, dev_name),
            cfg.veto_called,
            CALL_POOL,
            neg_src[np.isin(neg, all_minable)] if sources is not None else None,
        )
        pos = pos[pos_called]
        pos_weight = None if pos_weight is None else pos_weight[pos_called]
        if sources is not None:
            sources = (
                sources[0][pos_called],
                neg_called_src if cfg.balance_halves == "both" else None,
            )
        log(
            f"the veto trains on the calls at {cfg.veto_called}: {called['seizure_called']} of "
            f"{called['seizure_total']} seizure rows, {called['background_called']} of "
            f"{called['background_scored']} background rows scored"
        )

    with tf.device(dev_name):
        opt = keras.optimizers.Adam(learning_rate=cfg.learning_rate, clipnorm=1.0)
        opt.build(model.trainable_variables)
        loss_fn = keras.losses.BinaryCrossentropy(label_smoothing=cfg.label_smoothing)
        bg_loss = None  # a background loss of its own (TrainConfig refuses both at once)
        if cfg.background_focal:
            bg_loss = background_focal_loss(tf, cfg.background_focal)
        elif cfg.seizure_hinge:  # TrainConfig: only with the background hinge
            bg_loss = margin_hinge_loss(tf, cfg.background_hinge, cfg.hinge_weight,
                                        cfg.seizure_hinge, cfg.seizure_hinge_weight)  # fmt: skip
        elif cfg.background_hinge:
            bg_loss = background_hinge_loss(tf, cfg.background_hinge, cfg.hinge_weight)

        @tf.function(
            input_signature=[
                tf.TensorSpec([None, model.input_shape[1], width], tf.float32),
                tf.TensorSpec([None], tf.float32),
            ],
            autograph=False,  # straight-line code; avoids AutoGraph closure warnings
        )
        def train_step(x, y):
            with tf.GradientTape() as tape:
                p = tf.reshape(model(x, training=True), [-1])
                loss = loss_fn(y, p) if bg_loss is None else bg_loss(y, p)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            return loss

        adv_step = None
        if cfg.source_adversary:  # the head reads the sources balance_sources names
            adv_step = adversarial_step(
                tf, keras, model,
                (lambda y, p: loss_fn(y, p)) if bg_loss is None else bg_loss,
                opt, len(names), cfg.seed, width,
            )  # fmt: skip

        infer = make_infer(model, dev_name)
        teacher, teacher_weights = None, []
        if cfg.distill_from:  # the teachers' mean on each batch, read at the student's scale
            teacher, teacher_weights = load_teacher(cfg.distill_from, scale, cfg.normalisation, n_feat,
                                                    width, dev_name)  # fmt: skip
            log(f"distilling from {len(cfg.distill_from)} teacher(s) at weight {cfg.distill_weight} "
                f"({cfg.distill_rows} rows)")

        # P(seizure) of the current model for store rows (hard-negative mining)
        score = row_scorer(infer, store, cfg.normalisation, scale)

        def predict_dev() -> np.ndarray:
            return np.concatenate([infer(dev_x[i : i + 8192]) for i in range(0, len(dev_x), 8192)])

        orders, history = [], []
        best = (np.inf, -1, None)
        n_samples_seen, data_seconds, fit_seconds = 0, 0.0, 0.0
        steady = [0, 0.0]  # samples, seconds after the first epoch
        tail = TailAverage() if cfg.average_epochs else None
        for epoch in range(cfg.epochs):
            averaging = tail is not None and epoch >= cfg.epochs - cfg.average_epochs
            order = balanced_order(
                rng, pos, neg, cfg.samples_per_epoch, pos_weight, sources, shares
            )
            mined = {}
            if minable is not None and epoch > 0:  # the first epoch's model knows nothing yet
                order, mined = mine_order(
                    order, store.labels[order], rng, minable, cfg.hard_negatives, cfg.hard_pool,
                    score, minable_source,
                )
                log(
                    f"mined {mined['mined']} hard background samples of {mined['candidates']} "
                    f"(P(seizure) median {mined.get('score_median', 0.0):.3f})"
                )
            orders.append(order)
            t0 = time.perf_counter()
            losses, n_stale, n_mixed, adv = [], 0, 0, []
            order_src = row_sources(store, order, names)[0] if adv_step is not None else None
            feed = batches(
                store, order, cfg.batch_size, cfg.normalisation, scale,
                jitter=cfg.contrast_jitter, stale=cfg.stale_context, seed=(cfg.seed, 3, epoch),
                warp=cfg.freq_warp, feature_config=feature_config, warp_on=cfg.freq_warp_on,
                mix=cfg.seizure_mix,
            )
            for b, (x, y, t_data, augmented) in enumerate(feed):
                n_stale += augmented["stale"]
                n_mixed += augmented["mixed"]
                if teacher is not None:
                    y = soft_targets(y, teacher(x), cfg.distill_weight, cfg.distill_rows)
                if adv_step is None:
                    losses.append(float(train_step(x, y)))
                else:
                    lo = b * cfg.batch_size
                    lam = reversal_strength((epoch + lo / len(order)) / cfg.epochs,
                                            cfg.source_adversary)  # fmt: skip
                    s_b = order_src[lo : lo + len(y)].astype(np.int32)
                    loss, head_loss, head_acc = adv_step(x, y, s_b, np.float32(lam))
                    losses.append(float(loss))
                    adv.append((float(head_loss), float(head_acc), len(y)))
                if averaging:
                    tail.add(model.get_weights())
                data_seconds += t_data
                n_samples_seen += len(y)
            t_fit = time.perf_counter() - t0
            fit_seconds += t_fit
            if epoch > 0:  # steady state: the first epoch includes tracing
                steady[0] += len(order)
                steady[1] += t_fit
            dro, head = {}, {}
            if adv:  # how well the head still tells the sources apart
                head["source_adversary"] = epoch_summary(
                    adv, reversal_strength((epoch + 1) / cfg.epochs, cfg.source_adversary)
                )
                log("source head: loss {head_loss:.3f}, accuracy {head_accuracy:.3f}, "
                    "reversal {reversal:.3f}".format(**head["source_adversary"]))  # fmt: skip
            if shares is not None:  # this epoch's shares, then the next epoch's from the probe
                source_loss = probe_losses(score, probes)
                dro = {
                    "source_shares": dict(zip(names, np.round(shares, 4).tolist(), strict=True)),
                    "source_losses": dict(
                        zip(names, np.round(source_loss, 4).tolist(), strict=True)
                    ),
                }
                shares = dro_shares(shares, source_loss, cfg.source_dro)
                log("group DRO: next epoch's source shares " + ", ".join(
                    f"{n} {q:.3f} (loss {lo:.3f})"
                    for n, q, lo in zip(names, shares, source_loss, strict=True)
                ))  # fmt: skip
            scores = dev_scores(dev_labels, predict_dev())
            history.append(
                {
                    "epoch": epoch + 1,
                    "train_loss": float(np.mean(losses)),
                    **dro,
                    **head,
                    **({"stale_centres": n_stale} if cfg.stale_context > 0 else {}),
                    **({"seizures_mixed": n_mixed} if cfg.seizure_mix > 0 else {}),
                    "seconds": round(t_fit, 3),
                    **({"hard_negatives": mined} if mined else {}),
                    **{f"dev_{k}": v for k, v in scores.items() if k.startswith(("b", "a", "s"))},
                }
            )
            log(
                f"epoch {epoch + 1}/{cfg.epochs}: train loss {np.mean(losses):.4f}, dev balanced "
                f"bce {scores['balanced_bce']:.4f}, auc {scores['auc']:.4f}, {t_fit:.1f} s "
                f"({len(order) / max(t_fit, 1e-9):.0f} samples/s)"
                + (f", {n_stale} stale centres" if cfg.stale_context > 0 else "")
                + (f", {n_mixed} seizures mixed" if cfg.seizure_mix > 0 else "")
            )
            if scores["balanced_bce"] < best[0]:
                best = (
                    scores["balanced_bce"],
                    epoch,
                    [v.copy() for v in model.get_weights()],
                    scores,
                )
            elif epoch - best[1] >= cfg.patience and cfg.keep == "best":
                log(f"early stop: no dev improvement for {cfg.patience} epochs")
                break
        if cfg.keep == "best":
            model.set_weights(best[2])
        else:
            if tail is not None:
                model.set_weights(tail.mean())
                scores = dev_scores(dev_labels, predict_dev())
                log(
                    f"kept the mean of the weights after {tail.count} steps (last "
                    f"{cfg.average_epochs} epochs): dev balanced bce "
                    f"{scores['balanced_bce']:.4f}, auc {scores['auc']:.4f}"
                )
            best = (scores["balanced_bce"], len(history) - 1, None, scores)
        logit_scale = None
        if cfg.label_smoothing:  # fold the scale into the output layer (see TrainConfig)
            logit_scale = smoothing_logit_scale(cfg.label_smoothing, cfg.smoothed_top)
            kernel, bias = model.get_layer("p_seiz").get_weights()
            model.get_layer("p_seiz").set_weights(
                [kernel * np.float32(logit_scale), bias * np.float32(logit_scale)]
            )
            scores = dev_scores(dev_labels, predict_dev())
            best = (scores["balanced_bce"], best[1], None, scores)
            log(
                f"label smoothing {cfg.label_smoothing}: output logit x {logit_scale:.4f}; dev "
                f"balanced bce {scores['balanced_bce']:.4f}, auc {scores['auc']:.4f}"
            )

    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_path(out_dir / MODEL_FILE, suffix=".keras") as tmp:
        model.save(tmp)
    with atomic_path(out_dir / DATA_ORDER_FILE, suffix=".npy") as tmp:
        order = np.stack(orders)
        # uint32 halves the file when the indices fit (they do for any corpus below 4e9 windows)
        np.save(tmp, order.astype(np.uint32 if order.max(initial=0) < 2**32 else np.int64))
    with atomic_path(out_dir / FEATURES_FILE) as tmp:
        feature_config.save(tmp)
    # The CPU runtime's twin of the model (LiteRT: loads without importing TensorFlow).
    export_tflite(model, out_dir / LITE_FILE)
    weights_hash = hashlib.sha256(b"".join(v.tobytes() for v in model.get_weights())).hexdigest()

    manifest = {
        "format": "rt_eeg_model_v1",
        **(manifest_extra or {}),
        "seed": cfg.seed,
        "data_order_file": DATA_ORDER_FILE,
        "data_order_shape": [len(orders), len(orders[0])],
        "store": {
            "path": str(store.path),
            "key": store.index.get("key"),
            # trained on a view of a larger store (rows numbered as in a store of `key`)
            **({"subset_of": store.index["subset_of"]} if "subset_of" in store.index else {}),
        },
        "libraries": library_versions(),
        "determinism": determinism,
        "numeric_environment": numeric_environment(),  # what reproduces it on another CPU
        "device": dev_name,
        "train_config": dataclasses.asdict(cfg),
        **({"balanced_sources": source_counts} if source_counts else {}),
        **({"distillation": {"teachers": list(cfg.distill_from), "weights_sha256": teacher_weights,
                             "weight": cfg.distill_weight, "rows": cfg.distill_rows}}
           if cfg.distill_from else {}),  # fmt: skip
        **({"init_from": init} if init is not None else {}),
        **({"veto_training_rows": called} if called is not None else {}),
        "architecture": {
            "name": cfg.arch,
            "n_params": int(model.count_params()),
            "summary": _summary(model),
        },
        "decoder": {
            "frames_per_epoch": FRAMES_PER_EPOCH,
            "window_epochs": WINDOW_EPOCHS,
            "n_features": n_feat,
            "normalisation": cfg.normalisation,
            **(
                {"history_epochs": HISTORY_EPOCHS}
                if cfg.normalisation in HISTORY_NORMALISATIONS
                else {}
            ),
            "padding": "frames before the recording start: excluded from the window statistics, 0 after normalisation",
            "output": "P(seizure) per channel per 1 s epoch; trained on a balanced (50/50) prior",
            **(
                {
                    "context": {
                        "feature_scale": [float(v) for v in scale],
                        "block_epochs": BLOCK_EPOCHS,
                        "n_blocks": N_BLOCKS,
                        "gate": GATE,
                        "gate_top_k": GATE_TOP_K,
                        "training_gate": "epochs with any seizure channel (labels) kept out",
                    }
                }
                if scale is not None
                else {}
            ),
        },
        "samples": {
            "train_seiz": int(pos.size),
            "train_bckg": int(neg.size),
            "dev_scored": int(dev_sel.size),
            "dev_total": int(dev_rows.size),
        },
        "throughput": {
            "train_samples_per_second": round(
                (steady[0] / steady[1]) if steady[1] else n_samples_seen / max(fit_seconds, 1e-9), 1
            ),
            "data_path_samples_per_second": round(n_samples_seen / max(data_seconds, 1e-9), 1),
            "seconds_per_epoch": round(
                (steady[1] / (len(orders) - 1)) if steady[1] else fit_seconds, 3
            ),
            "note": "training rates exclude the first epoch (graph tracing) when more than one ran",
            "store_build_frames_per_second": store.index.get("build_frames_per_second"),
        },
        **(
            {"weight_average": {"epochs": cfg.average_epochs, "steps": tail.count}}
            if tail is not None
            else {}
        ),
        **(
            {"label_smoothing": {"eps": cfg.label_smoothing, "logit_scale": logit_scale,
                                 "smoothed_top": cfg.smoothed_top}}
            if logit_scale is not None
            else {}
        ),  # fmt: skip
        "epochs_run": len(orders),
        "best_epoch": best[1] + 1,
        "dev_scores": best[3],
        "history": history,
        "weights_sha256": weights_hash,
        "litert": lite_manifest_section(out_dir),
        "files_sha256": model_file_hashes(out_dir),  # verified at load (tamper check)
        "training_seconds": round(time.perf_counter() - t_start, 3),
    }
    write_json_atomic(out_dir / MANIFEST_FILE, manifest)
    return manifest


def probe_losses(score, probes) -> np.ndarray:
    """Each source's balanced cross-entropy on its probe: the mean of its seizure rows' and its
    background rows' mean BCE (one half alone where the source has no rows of the other).

    Parameters
    ----------
    score : callable
        Store rows -> P(seizure), shape (n,).
    probes : (list of ndarray, list of ndarray)
        Seizure and background probe rows, one array a source (:func:`dro_probe`).

    Returns
    -------
    ndarray of float64, shape (n_sources,)
    """
    out = []
    for pos_rows, neg_rows in zip(*probes, strict=True):
        # Scored a half at a time, as the probe is drawn; dev_scores balances the two halves.
        p = np.concatenate([np.empty(0)] + [score(r) for r in (pos_rows, neg_rows) if len(r)])
        y = np.repeat([1.0, 0.0], [len(pos_rows), len(neg_rows)])
        out.append(dev_scores(y, p)["balanced_bce"])
    return np.asarray(out)


def _seven_second_score(model, store: FeatureStore, scale, units: int, device: str):
    """``rows -> P_7s`` of a ``'frame_lstm_veto'`` model's (frozen) 7 s branch, from the
    ``'context'`` inputs alone (no history gathered), shape ``(len(rows),)``."""
    seven = build_model("frame_lstm", n_features=store.n_features, units=units)
    for name in SEVEN_SECOND_LAYERS:
        seven.get_layer(name).set_weights(model.get_layer(name).get_weights())
    return row_scorer(make_infer(seven, device), store, "context", scale)


def row_scorer(infer, store: FeatureStore, norm: str, scale, chunk: int = 8192):
    """``rows -> P(seizure)`` of ``infer`` on the store rows' inputs, ``chunk`` rows a call,
    shape ``(len(rows),)``."""

    def score(rows: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [
                infer(model_inputs(store, rows[i : i + chunk], norm, scale)[0])
                for i in range(0, len(rows), chunk)
            ]
        )

    return score


def _summary(model) -> list[str]:
    return [
        f"{layer.name}: {type(layer).__name__} {tuple(layer.output.shape)}"
        for layer in model.layers
    ]
