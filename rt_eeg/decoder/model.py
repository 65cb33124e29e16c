"""The decoder's Keras model (TensorFlow, imported lazily): building, loading, the traced
inference function and untrained model folders."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from rt_eeg.context import GATE, GATE_TOP_K
from rt_eeg.decoder.windows import (
    CONTEXT_NORMALISATIONS,
    FRAMES_PER_EPOCH,
    HISTORY_EPOCHS,
    HISTORY_NORMALISATIONS,
    NORMALISATIONS,
    WINDOW_EPOCHS,
    WINDOW_FRAMES,
    model_width,
)
from rt_eeg.errors import RtEegError
from rt_eeg.model_files import (
    FEATURES_FILE,
    MANIFEST_FILE,
    MODEL_FILE,
    lite_manifest_section,
    model_file_hashes,
)
from rt_eeg.runtime import LITE_FILE, import_tensorflow, quiet_native_stderr

#: Model architectures :func:`build_model` knows.
ARCHITECTURES = ("frame_lstm", "epoch_lstm", "frame_lstm_veto", "frame_lstm_3s")
#: The architectures trained from scratch (``rt-eeg train --arch compare`` compares them);
#: ``'frame_lstm_veto'`` starts from a trained ``'frame_lstm'`` (``--init-from``).
BASE_ARCHITECTURES = ("frame_lstm", "epoch_lstm")
#: Frames ``'frame_lstm_3s'`` reads: the last 3 s of the window (pilot 77, early onsets).
SHORT_FRAMES = 30
#: Units of the veto branch's LSTM (``'frame_lstm_veto'``).
VETO_UNITS = 16
#: The veto sigmoid's initial bias: v = 0.95 before training, so the untrained veto barely
#: moves the 7 s decoder's calls and its gradient is not yet saturated.
VETO_BIAS = 3.0


def build_model(
    arch: str = "frame_lstm",
    *,
    n_features: int = 26,
    units: int = 32,
    dense_units: int = 64,
    dropout: float = 0.0,
    seed: int = 0,
):
    """Build an (uncompiled) Keras model mapping one channel's window to P(seizure).

    Parameters
    ----------
    arch : {'frame_lstm', 'epoch_lstm', 'frame_lstm_veto', 'frame_lstm_3s'}
        ``'frame_lstm'`` (default): an LSTM runs over the 70 frames directly (7.6 k
        parameters with 32 units). ``'frame_lstm_3s'``: the same LSTM over only the last
        :data:`SHORT_FRAMES` frames (a crop inside the model, so windows, streaming and
        files are unchanged): a seizure fills its view 3 s after onset, not 7 s.
        ``'frame_lstm_veto'`` (two-half inputs, ``'context_history'``): ``'frame_lstm'``
        over the first half of the columns (the 7 s of frames; its layers are named as a
        ``'frame_lstm'``'s, so a trained one's weights load into them) times a veto v in
        (0, 1) read from the second half (the 70 epoch means) by a :data:`VETO_UNITS`-unit
        LSTM and a sigmoid: P = P_7s x v, so the 70 s view can only lower a probability, never
        raise one (it can still move a threshold crossing later).
        ``'epoch_lstm'``: the 10 x n_features block of each 1 s epoch is flattened and
        projected by a shared dense layer (tanh), then an LSTM runs over the 7 epochs (29 k
        parameters; twice as fast, but it overfits sooner). On a
        simulated corpus (12 train / 4 dev patients, 3 runs) frame_lstm had the lower dev
        loss every time (balanced BCE 0.229-0.238 vs 0.242-0.269, AUC +0.005-0.012); see
        the report in the model manifests (``rt-eeg train --arch compare``).
    n_features : int
        Features per frame.
    units : int
        LSTM units.
    dense_units : int
        Width of the per-epoch projection (``'epoch_lstm'`` only).
    dropout : float
        Dropout rate after the projection and after the LSTM (training only; seeded).
    seed : int
        Seeds every initializer explicitly (no reliance on global random state).

    Returns
    -------
    model : keras.Model
        Input ``(batch, 70, n_features)`` float32, output ``(batch, 1)`` in [0, 1].
    """
    import_tensorflow()
    import keras

    if arch not in ARCHITECTURES:
        raise RtEegError(f"unknown architecture {arch!r}; expected one of {ARCHITECTURES}")
    init = keras.initializers

    def glorot(k: int):
        return init.GlorotUniform(seed=seed * 1000 + k)

    inp = keras.Input(shape=(WINDOW_FRAMES, n_features), dtype="float32", name="window")
    if arch == "frame_lstm_veto":
        return _veto_model(keras, inp, n_features, units, seed, glorot)
    if arch == "epoch_lstm":
        x = keras.layers.Reshape((WINDOW_EPOCHS, FRAMES_PER_EPOCH * n_features), name="epochs")(inp)
        x = keras.layers.Dense(
            dense_units, activation="tanh", kernel_initializer=glorot(1), name="epoch_proj"
        )(x)
        if dropout:
            x = keras.layers.Dropout(dropout, seed=seed * 1000 + 5, name="proj_dropout")(x)
    elif arch == "frame_lstm_3s":
        x = keras.layers.Cropping1D((WINDOW_FRAMES - SHORT_FRAMES, 0), name="last_3s")(inp)
    else:
        x = inp
    x = _lstm(keras, units, glorot(2), seed * 1000 + 3, "lstm")(x)
    if dropout:
        x = keras.layers.Dropout(dropout, seed=seed * 1000 + 6, name="lstm_dropout")(x)
    out = keras.layers.Dense(1, activation="sigmoid", kernel_initializer=glorot(4), name="p_seiz")(
        x
    )
    return keras.Model(inp, out, name=f"rt_eeg_{arch}")


def _lstm(keras, units: int, kernel_init, recurrent_seed: int, name: str):
    """The decoder's LSTM layer: explicitly seeded initialisers; not unrolled (cuDNN-eligible
    on a GPU; unrolling measured no faster on the CPU)."""
    return keras.layers.LSTM(
        units,
        kernel_initializer=kernel_init,
        recurrent_initializer=keras.initializers.Orthogonal(seed=recurrent_seed),
        name=name,
    )


def _veto_model(keras, inp, n_features: int, units: int, seed: int, glorot):
    """``'frame_lstm_veto'``: P = P_7s(first half) x v(second half), built-in layers only (a
    model file loads in safe mode; the column split is a transpose, a crop and a transpose)."""
    if n_features % 2:
        raise RtEegError(f"frame_lstm_veto needs two-half inputs, got {n_features} columns")
    half = n_features // 2
    layers, init = keras.layers, keras.initializers

    def columns(crop: tuple[int, int], name: str):
        x = layers.Permute((2, 1), name=f"{name}_t")(inp)
        x = layers.Cropping1D(crop, name=f"{name}_crop")(x)
        return layers.Permute((2, 1), name=name)(x)

    frames, means = columns((0, half), "frames"), columns((half, 0), "epoch_means")
    # Named as build_model('frame_lstm') names them: a trained 7 s decoder's weights load by name.
    x = _lstm(keras, units, glorot(2), seed * 1000 + 3, "lstm")(frames)
    p_7s = layers.Dense(1, activation="sigmoid", kernel_initializer=glorot(4), name="p_seiz")(x)
    v = _lstm(keras, VETO_UNITS, glorot(7), seed * 1000 + 8, "veto_lstm")(means)
    v = layers.Dense(
        1,
        activation="sigmoid",
        kernel_initializer=glorot(9),
        bias_initializer=init.Constant(VETO_BIAS),
        name="veto",
    )(v)
    out = layers.Multiply(name="p_vetoed")([p_7s, v])
    return keras.Model(inp, out, name="rt_eeg_frame_lstm_veto")


#: Layers of a ``'frame_lstm_veto'`` model that hold the 7 s decoder (loaded, then frozen).
SEVEN_SECOND_LAYERS = ("lstm", "p_seiz")


def load_seven_second_decoder(model, init_dir: str | os.PathLike) -> dict:
    """Copy a trained ``'frame_lstm'`` model folder's weights into ``model``'s 7 s branch and
    freeze it (``'frame_lstm_veto'``: only the veto trains).

    Parameters
    ----------
    model : keras.Model
        A ``'frame_lstm_veto'`` model (:func:`build_model`).
    init_dir : path-like
        A trained model folder with a ``'frame_lstm'`` model and a ``'context'`` input of
        half the model's width.

    Returns
    -------
    info : dict
        ``path``, ``weights_sha256`` (of the copied weights) and ``feature_scale`` (the
        folder's context scale, which the frozen branch was trained with).

    Raises
    ------
    RtEegError
        The folder is not such a model, or its layers do not fit (e.g. other LSTM units).
    """
    import hashlib
    import json

    init_dir = Path(init_dir)
    try:
        manifest = json.loads((init_dir / MANIFEST_FILE).read_text())
    except (OSError, ValueError) as err:
        raise RtEegError(
            f"cannot read the model manifest ({err})", init_dir / MANIFEST_FILE
        ) from err
    dec = manifest.get("decoder", {})
    arch = manifest.get("architecture", {}).get("name")
    half = int(model.input_shape[-1]) // 2
    fits = dec.get("normalisation") == "context" and dec.get("n_features") == half
    if arch != "frame_lstm" or not fits:
        raise RtEegError(
            f"--init-from needs a trained frame_lstm model with 'context' inputs of {half} "
            f"features, got {arch} with {dec.get('normalisation')!r} inputs",
            init_dir,
        )
    src, _ = load_model(init_dir / MODEL_FILE, "/CPU:0")
    copied = []
    for name in SEVEN_SECOND_LAYERS:
        weights = src.get_layer(name).get_weights()
        layer = model.get_layer(name)
        if [w.shape for w in weights] != [w.shape for w in layer.get_weights()]:
            raise RtEegError(
                f"layer {name!r} does not fit the model being trained (other units?)", init_dir
            )
        layer.set_weights(weights)
        layer.trainable = False
        copied += weights
    return {
        "path": str(init_dir),
        "weights_sha256": hashlib.sha256(b"".join(w.tobytes() for w in copied)).hexdigest(),
        "feature_scale": [float(v) for v in dec["context"]["feature_scale"]],
    }


def resolve_device(device: str = "auto") -> str:
    """TensorFlow device string for ``'auto'``, ``'cpu'`` or ``'gpu'`` (imports TensorFlow).

    Raises
    ------
    RtEegError
        ``'gpu'`` requested but TensorFlow sees no GPU, or an unknown device name.
    """
    if device not in ("auto", "cpu", "gpu"):
        raise RtEegError(f"unknown device {device!r}; expected auto, cpu or gpu")
    tf = import_tensorflow()
    with quiet_native_stderr():  # cuInit errors on a machine without a usable GPU
        gpus = tf.config.list_physical_devices("GPU")
    if device == "auto":
        return "/GPU:0" if gpus else "/CPU:0"
    if device == "cpu":
        return "/CPU:0"
    if device == "gpu":
        if not gpus:
            raise RtEegError("device 'gpu' requested but TensorFlow sees no GPU on this machine")
        return "/GPU:0"
    raise RtEegError(f"unknown device {device!r}; expected auto, cpu or gpu")


def load_model(path: Path, device: str):
    """Load a Keras model and a traced inference function ``(n, 70, F) -> (n,)``.

    ``safe_mode=True`` (also Keras' default, stated so it cannot silently change): a model
    file cannot make loading run code (no lambda layers deserialised from bytecode).
    """
    import zipfile

    tf = import_tensorflow()
    import keras

    if not zipfile.is_zipfile(path):
        raise RtEegError("not a valid Keras model (not a .keras zip archive)", path)
    try:
        with tf.device(device), quiet_native_stderr():
            model = keras.saving.load_model(path, compile=False, safe_mode=True)
    except Exception as err:  # Keras reports a corrupt archive with many exception types
        text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        text = ". ".join(text.split(". ")[:2]).rstrip(".")[:300]  # Keras' advice would mislead
        raise RtEegError(f"not a valid Keras model ({text})", path) from err
    return model, make_infer(model, device)


def make_infer(model, device: str = "/CPU:0"):
    """Traced, fixed-rank inference function of ``model``: ``(n, 70, F)`` -> ``(n,)`` float32.

    One trace serves every batch size (the batch dimension is ``None`` in the signature), so
    per-epoch streaming calls pay no retracing or ``model.predict`` overhead. The function is
    compiled with XLA: measured here, a 22-channel epoch costs about a third of the graph
    executor's time (the 70-step LSTM loop is fused), and a window's result no longer depends
    on the batch it is computed in (bit-identical for 1 or 50 epochs per call), which the
    online/offline identity relies on. XLA compiles once per distinct batch size.
    """
    tf = import_tensorflow()

    n_feat = int(model.input_shape[-1])

    @tf.function(
        input_signature=[tf.TensorSpec([None, WINDOW_FRAMES, n_feat], tf.float32)],
        reduce_retracing=True,
        autograph=False,
        jit_compile=True,
    )
    def fn(x):
        return tf.reshape(model(x, training=False), [-1])

    def infer(windows: np.ndarray) -> np.ndarray:
        with tf.device(device):
            return fn(tf.constant(windows, dtype=tf.float32)).numpy()

    return infer


def write_untrained_model(
    model_dir: str | os.PathLike,
    *,
    arch: str = "frame_lstm",
    normalisation: str = "maxabs",
    seed: int = 0,
    feature_config=None,
    units: int = 32,
) -> Path:
    """Write a randomly initialised model folder (benchmarks, tests, pipeline smoke runs).

    Its probabilities are meaningless, but shapes, timing and the streaming/batch contract are
    those of a trained model.
    """
    from rt_eeg.features import FeatureConfig
    from rt_eeg.io.atomic import atomic_path, write_json_atomic

    if normalisation not in NORMALISATIONS:
        raise RtEegError(f"unknown normalisation {normalisation!r}; expected {NORMALISATIONS}")
    if arch == "frame_lstm_veto" and normalisation not in HISTORY_NORMALISATIONS:
        raise RtEegError(
            f"frame_lstm_veto reads {HISTORY_NORMALISATIONS} inputs, not {normalisation!r}"
        )
    model_dir = Path(model_dir)
    model_dir.mkdir(parents=True, exist_ok=True)
    cfg = feature_config if feature_config is not None else FeatureConfig()
    model = build_model(
        arch, n_features=model_width(normalisation, cfg.n_features), units=units, seed=seed
    )
    with atomic_path(model_dir / MODEL_FILE, suffix=".keras") as tmp:
        model.save(tmp)
    with atomic_path(model_dir / FEATURES_FILE) as tmp:
        cfg.save(tmp)
    from rt_eeg.runtime import export_tflite

    export_tflite(model, model_dir / LITE_FILE)
    write_json_atomic(
        model_dir / MANIFEST_FILE,
        {
            "format": "rt_eeg_model_v1",
            "files_sha256": model_file_hashes(model_dir),
            "litert": lite_manifest_section(model_dir),
            "trained": False,
            "seed": seed,
            "architecture": {"name": arch, "n_params": int(model.count_params())},
            "decoder": {
                "frames_per_epoch": FRAMES_PER_EPOCH,
                "window_epochs": WINDOW_EPOCHS,
                "n_features": cfg.n_features,
                "normalisation": normalisation,
                **(
                    {"history_epochs": HISTORY_EPOCHS}
                    if normalisation in HISTORY_NORMALISATIONS
                    else {}
                ),
                **(
                    {"context": {"feature_scale": [1.0] * cfg.n_features, "gate": GATE,
                                 "gate_top_k": GATE_TOP_K}}  # fmt: skip
                    if normalisation in CONTEXT_NORMALISATIONS
                    else {}
                ),
            },
        },
    )
    return model_dir
