"""Channel-based LSTM decoder: per-channel P(seizure) for every 1 s epoch.

Each TCP channel is classified on its own, so one model serves 22-, 20- or 16-channel
recordings. The input of one decision is the LFCC features of one channel over a causal
7 s window: the epoch being decided and the 6 before it, 10 frames of 0.1 s each, i.e. a
``(70, 26)`` block. Epoch ``e`` covers frames ``10e .. 10e+9`` and starts at ``e * 1.0`` s
after the first frame; an incomplete trailing epoch is never scored.

Window-based normalisation (after the online system of Temple's NEDC): every feature of the
window is scaled by what was observed *in that window only* (``'maxabs'``: divided by its
maximum absolute value; ``'zscore'``: mean 0, standard deviation 1), so a decision never
depends on data after its epoch.

Start of a recording: epochs before the first frame do not exist. The window of epoch
``e < 6`` holds only ``10 (e + 1)`` observed frames; the missing leading frames are
*padding*: they are left out of the normalisation statistics and set to exactly 0 after it.
The batch path (:func:`predict_recording`) and the streaming path (:class:`Decoder`) both call
:func:`normalise_windows` with the same windows and valid-frame counts, so they agree.

Model (:func:`build_model`): ``'frame_lstm'``, an LSTM (32 units) over the 70 frames and a
sigmoid, 7.6 k parameters, is the default. On a simulated corpus (12 train / 4 dev patients,
36 + 12 ten-minute recordings) it beat ``'epoch_lstm'`` (a dense projection of each 1 s block,
then an LSTM over the 7 epochs) on dev loss in all three runs; max-abs normalisation beat
z-score clearly (dev AUC 0.957 vs 0.915). ``rt-eeg train --arch compare`` repeats the
comparison on any corpus and records it in the manifest.

A model folder holds ``model.keras``, ``model.tflite`` (its LiteRT twin, for the CPU),
``features.toml`` (the exact :class:`rt_eeg.features.FeatureConfig`) and ``manifest.json``
(its ``decoder`` section gives the window geometry and normalisation); see
:mod:`rt_eeg.model_files`.

Runtimes (:mod:`rt_eeg.runtime`): on the CPU the model runs in LiteRT, which loads in
milliseconds and never imports TensorFlow; on a GPU, and for a folder saved before
``model.tflite`` existed, in TensorFlow with XLA. TensorFlow is imported lazily (inside
functions), so ``import rt_eeg.decoder`` is cheap.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rt_eeg.context import GATE, GATE_TOP_K, BackgroundContext, gate_score, window_mean
from rt_eeg.errors import RtEegError
from rt_eeg.model_files import (  # noqa: F401 - re-exported: the decoder's public names
    FEATURES_FILE,
    HASHED_FILES,
    MANIFEST_FILE,
    MODEL_FILE,
    lite_manifest_section,
    lite_model_path,
    model_file_hashes,
    rehash_model,
    verify_model_files,
)
from rt_eeg.runtime import (
    LITE_FILE,
    LITERT,
    TENSORFLOW,
    LiteRunner,
    gpu_present,
    import_tensorflow,
    quiet_native_stderr,
)

#: Frames of 0.1 s per 1 s decision epoch.
FRAMES_PER_EPOCH = 10
#: Epochs per causal window (the decided epoch and the 6 before it).
WINDOW_EPOCHS = 7
#: Frames per window.
WINDOW_FRAMES = FRAMES_PER_EPOCH * WINDOW_EPOCHS
#: Epoch length in seconds.
EPOCH_S = 1.0
#: Input normalisations the decoder knows (see :func:`normalise_windows`).
NORMALISATIONS = ("maxabs", "zscore", "context", "context_maxabs")
#: Normalisations that need the patient's background context (:mod:`rt_eeg.context`).
CONTEXT_NORMALISATIONS = ("context", "context_maxabs")
#: Model architectures :func:`build_model` knows.
ARCHITECTURES = ("frame_lstm", "epoch_lstm")
#: Windows per model call in batch inference (bounds memory: 8192 x 70 x 26 float32 = 60 MB).
BATCH_WINDOWS = 8192

_EPS = np.float32(1e-6)


# --------------------------------------------------------------------------- windows (numpy)


def n_valid_frames(epochs: np.ndarray | int) -> np.ndarray:
    """Observed frames in the window of each epoch index: ``min(10 (e + 1), 70)``.

    Parameters
    ----------
    epochs : int or array of int, shape (n,)
        Epoch indices counted from the start of the recording (0 = first epoch).

    Returns
    -------
    n_valid : ndarray of int64, shape (n,)
    """
    e = np.atleast_1d(np.asarray(epochs, dtype=np.int64))
    return np.minimum(FRAMES_PER_EPOCH * (e + 1), WINDOW_FRAMES)


def model_width(method: str, n_features: int) -> int:
    """Features per frame the model sees: ``2 n_features`` for ``'context_maxabs'``."""
    return 2 * n_features if method == "context_maxabs" else n_features


def normalise_windows(
    windows: np.ndarray,
    n_valid: np.ndarray,
    method: str = "maxabs",
    centers: np.ndarray | None = None,
    scale: np.ndarray | None = None,
) -> np.ndarray:
    """Normalise raw feature windows into model inputs.

    Parameters
    ----------
    windows : ndarray, shape (n, 70, n_features)
        Raw features, time-first; the first ``70 - n_valid[i]`` frames of row ``i`` are
        padding (their values are ignored).
    n_valid : ndarray of int, shape (n,)
        Observed (trailing) frames per window, 1..70.
    method : {'maxabs', 'zscore', 'context', 'context_maxabs'}
        ``'maxabs'``: each feature divided by its maximum absolute value over the observed
        frames (a feature that is 0 throughout stays 0). ``'zscore'``: each feature minus its
        mean, divided by its standard deviation (+1e-6) over the observed frames.
        ``'context'``: each feature minus the patient's background centre (``centers``, see
        :mod:`rt_eeg.context`), divided by the fixed per-feature ``scale``.
        ``'context_maxabs'``: both ``'context'`` and ``'maxabs'`` inputs, concatenated along
        the feature axis (``2 n_features`` per frame).
    centers : ndarray, shape (n, n_features), optional
        Background centre of each window's channel (context methods only).
    scale : ndarray, shape (n_features,), optional
        Per-feature scale of the context inputs (context methods only).

    Returns
    -------
    out : ndarray of float32, shape (n, 70, n_features) or (n, 70, 2 n_features)
        Normalised windows; padding frames are exactly 0.
    """
    x = np.array(windows, dtype=np.float32)  # own copy: normalised in place
    if x.ndim != 3 or x.shape[1] != WINDOW_FRAMES:
        raise ValueError(f"windows must have shape (n, {WINDOW_FRAMES}, n_features), got {x.shape}")
    n_valid = np.asarray(n_valid, dtype=np.int64).reshape(-1)
    short = np.flatnonzero(n_valid < WINDOW_FRAMES)  # only windows at a recording's start
    pad = None
    if short.size:
        pad = np.arange(WINDOW_FRAMES)[None, :] < (WINDOW_FRAMES - n_valid[short])[:, None]
        sub = x[short]
        sub[pad] = 0.0
        x[short] = sub
    if method in CONTEXT_NORMALISATIONS:
        if centers is None or scale is None:
            raise ValueError(f"normalisation {method!r} needs centers and scale")
        rel = x - np.asarray(centers, np.float32)[:, None, :]
        rel /= np.asarray(scale, np.float32)[None, None, :]
        if pad is not None:
            sub = rel[short]
            sub[pad] = 0.0
            rel[short] = sub
        if method == "context":
            return rel
        return np.concatenate([rel, normalise_windows(x, n_valid, "maxabs")], axis=2)
    if method == "maxabs":
        scale = np.abs(x).max(axis=1, keepdims=True)
        np.maximum(scale, _EPS, out=scale)
        x /= scale
        return x
    if method == "zscore":
        count = n_valid.astype(np.float32)[:, None, None]
        mean = x.sum(axis=1, keepdims=True) / count
        x -= mean
        if pad is not None:
            sub = x[short]
            sub[pad] = 0.0
            x[short] = sub
        std = np.sqrt(np.square(x).sum(axis=1, keepdims=True) / count)
        x /= std + _EPS
        return x
    raise ValueError(f"unknown normalisation {method!r}; expected one of {NORMALISATIONS}")


def recording_windows(features: np.ndarray, epochs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Raw windows of the given epochs of one recording, all channels.

    Parameters
    ----------
    features : ndarray, shape (n_frames, n_channels, n_features)
    epochs : ndarray of int, shape (m,)
        Complete epochs (``10 e + 10 <= n_frames``).

    Returns
    -------
    windows : ndarray of float32, shape (m * n_channels, 70, n_features)
        Epoch-major, channel-minor rows; padding frames are 0.
    n_valid : ndarray of int64, shape (m * n_channels,)
    """
    n_frames, n_ch, n_feat = features.shape
    epochs = np.asarray(epochs, dtype=np.int64)
    # Frame index of every window position; negative = before the first frame (padding).
    idx = (FRAMES_PER_EPOCH * (epochs + 1) - WINDOW_FRAMES)[:, None] + np.arange(WINDOW_FRAMES)
    win = features[np.maximum(idx, 0)]  # (m, 70, n_ch, n_feat)
    win[idx < 0] = 0.0
    win = win.transpose(0, 2, 1, 3).reshape(-1, WINDOW_FRAMES, n_feat)
    return np.ascontiguousarray(win, dtype=np.float32), np.repeat(n_valid_frames(epochs), n_ch)


# --------------------------------------------------------------------------- model (TF, lazy)


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
    arch : {'frame_lstm', 'epoch_lstm'}
        ``'frame_lstm'`` (default): an LSTM runs over the 70 frames directly (7.6 k
        parameters with 32 units). ``'epoch_lstm'``: the 10 x n_features block of each 1 s
        epoch is flattened and projected by a shared dense layer (tanh), then an LSTM runs
        over the 7 epochs (29 k parameters; twice as fast, but it overfits sooner). On a
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
        Input ``(batch, 70, n_features)`` float32, output ``(batch, 1)`` sigmoid.
    """
    import_tensorflow()
    import keras

    if arch not in ARCHITECTURES:
        raise RtEegError(f"unknown architecture {arch!r}; expected one of {ARCHITECTURES}")
    init = keras.initializers

    def glorot(k: int):
        return init.GlorotUniform(seed=seed * 1000 + k)

    inp = keras.Input(shape=(WINDOW_FRAMES, n_features), dtype="float32", name="window")
    if arch == "epoch_lstm":
        x = keras.layers.Reshape((WINDOW_EPOCHS, FRAMES_PER_EPOCH * n_features), name="epochs")(inp)
        x = keras.layers.Dense(
            dense_units, activation="tanh", kernel_initializer=glorot(1), name="epoch_proj"
        )(x)
        if dropout:
            x = keras.layers.Dropout(dropout, seed=seed * 1000 + 5, name="proj_dropout")(x)
    else:
        x = inp
    x = keras.layers.LSTM(
        units,
        kernel_initializer=glorot(2),
        recurrent_initializer=init.Orthogonal(seed=seed * 1000 + 3),
        # Not unrolled: cuDNN-eligible on a GPU; unrolling measured no faster on the CPU.
        name="lstm",
    )(x)
    if dropout:
        x = keras.layers.Dropout(dropout, seed=seed * 1000 + 6, name="lstm_dropout")(x)
    out = keras.layers.Dense(1, activation="sigmoid", kernel_initializer=glorot(4), name="p_seiz")(
        x
    )
    return keras.Model(inp, out, name=f"rt_eeg_{arch}")


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


def config_differences(saved: Any, running: Any) -> list[str]:
    """Names and values of the dataclass fields in which two feature configurations differ."""
    diffs = []
    for f in dataclasses.fields(saved):
        a, b = getattr(saved, f.name), getattr(running, f.name, None)
        if a != b:
            diffs.append(f"{f.name} (model {a!r}, running {b!r})")
    return diffs


# --------------------------------------------------------------------------- streaming


class DecoderStream:
    """Streaming state of one recording: the last 7 s of features, the pending epoch and (for
    context models) the patient's background context.

    Created by :meth:`Decoder.open_stream`; fed through :meth:`Decoder.push` (default
    stream) or :meth:`Decoder.predict_many` (several streams in one model call).
    """

    def __init__(self, n_channels: int, n_features: int, *, context: bool = False):
        self.n_channels = int(n_channels)
        self.n_features = int(n_features)
        self.context = BackgroundContext(self.n_channels, self.n_features) if context else None
        self.reset_window()

    def reset_window(self) -> None:
        """Start the 7 s window afresh (a new recording, or after a gap in the signal).

        The background context is kept: the patient is the same.
        """
        # The last 70 frames at the latest epoch boundary, channel-first for cheap windows.
        self._window = np.zeros((self.n_channels, WINDOW_FRAMES, self.n_features), np.float32)
        self._pending = np.zeros((self.n_channels, FRAMES_PER_EPOCH, self.n_features), np.float32)
        self._n_pending = 0
        self._pending_t0 = 0.0
        self.n_epochs = 0  # completed epochs since the window started

    def _advance(self, features: np.ndarray, times: np.ndarray) -> list[tuple]:
        """Consume frames; return one ``(window, n_valid, t0, epoch_mean)`` per new epoch.

        ``window`` is ``(n_channels, 70, F)`` (a copy), ``epoch_mean`` ``(n_channels, F)``.
        """
        done = []
        k = features.shape[0]
        i = 0
        while i < k:
            take = min(FRAMES_PER_EPOCH - self._n_pending, k - i)
            if self._n_pending == 0:
                self._pending_t0 = float(times[i])
            self._pending[:, self._n_pending : self._n_pending + take] = features[
                i : i + take
            ].transpose(1, 0, 2)
            self._n_pending += take
            i += take
            if self._n_pending == FRAMES_PER_EPOCH:
                # Shift once per epoch (not per frame): drop the oldest 10 frames.
                self._window[:, :-FRAMES_PER_EPOCH] = self._window[:, FRAMES_PER_EPOCH:]
                self._window[:, -FRAMES_PER_EPOCH:] = self._pending
                emean = None
                if self.context is not None:
                    emean = self._pending.mean(axis=1, dtype=np.float64).astype(np.float32)
                done.append(
                    (
                        self._window.copy(),
                        int(n_valid_frames(self.n_epochs)[0]),
                        self._pending_t0,
                        emean,
                    )
                )
                self.n_epochs += 1
                self._n_pending = 0
        return done


class FrameFeed:
    """Feature frames of one live stream into a :class:`DecoderStream`, as they arrive.

    A window never bridges a gap: a ``reset`` frame, a jump in ``t0`` or a new channel count
    starts the 7 s window afresh (keeping the patient's background context when the channels
    are the same), and frames are taken from the next whole epoch on. Shared by the
    pipeline's decoder stage and the ward's batched decoder, so both cut streams alike.

    Parameters
    ----------
    decoder : Decoder
        Opens the stream.
    """

    def __init__(self, decoder: Decoder):
        self.decoder = decoder
        self.stream: DecoderStream | None = None
        self.next_t: float | None = None  # signal time the next frame should start at
        self.aligned = False

    def take(
        self, features: np.ndarray, t0: float, reset: bool = False
    ) -> tuple[np.ndarray, np.ndarray, bool, bool]:
        """Accept one block of frames.

        Parameters
        ----------
        features : ndarray, shape (n_frames, n_channels, n_features)
        t0 : float
            Signal time of the first frame (frames are 0.1 s apart).
        reset : bool
            The sender restarted or its stream had a gap.

        Returns
        -------
        features, times : ndarray, shapes (k, n_channels, n_features) and (k,)
            The frames to decode (``k = 0`` until the first whole epoch).
        fresh : bool
            A fresh window was started by this block.
        interrupted : bool
            ``fresh`` after earlier frames: the time in between was not analysed.
        """
        times = t0 + 0.1 * np.arange(len(features))
        gap = self.next_t is not None and abs(t0 - self.next_t) > 1e-3
        fresh = self.stream is None or reset or gap
        interrupted = fresh and self.next_t is not None
        if fresh:
            if self.stream is not None and self.stream.n_channels == features.shape[1]:
                self.stream.reset_window()
            else:
                self.stream = self.decoder.open_stream(features.shape[1])
            self.aligned = False
        self.next_t = float(times[-1]) + 0.1
        if not self.aligned:
            keep = np.flatnonzero(np.abs(times - np.round(times)) < 1e-3)
            if len(keep) == 0:
                return features[:0], times[:0], fresh, interrupted
            features, times = features[keep[0] :], times[keep[0] :]
            self.aligned = True
        return features, times, fresh, interrupted


class Decoder:
    """Transport-free decoder stage: LFCC frames in, per-channel P(seizure) per epoch out.

    Parameters
    ----------
    model_dir : path-like
        Folder with ``model.keras``, ``features.toml`` and ``manifest.json``.
    device : {'auto', 'cpu', 'gpu'}
        Where inference runs; ``'auto'`` takes the GPU when TensorFlow sees one (TensorFlow
        is only imported when the machine has a GPU driver). On the CPU the model runs in
        LiteRT (``model.tflite``), or in TensorFlow for a folder without one.
    feature_config : rt_eeg.features.FeatureConfig, optional
        The running feature configuration (default ``FeatureConfig()``). A model whose
        ``features.toml`` differs is refused with an :class:`RtEegError` naming the keys.

    Attributes
    ----------
    device : str
        ``'/CPU:0'`` or ``'/GPU:0'``.
    runtime : str
        ``'litert'`` or ``'tensorflow'``: a function of the model folder and the device, so
        every path that decides (evaluate, replay, live) runs the same one.
    normalisation : str
        Window normalisation the model was trained with.
    manifest : dict
        The model's manifest.
    """

    def __init__(self, model_dir: str | os.PathLike, *, device: str = "auto", feature_config=None):
        from rt_eeg.features import FeatureConfig

        self.model_dir = Path(model_dir)
        for name in (MODEL_FILE, FEATURES_FILE, MANIFEST_FILE):
            if not (self.model_dir / name).is_file():
                raise RtEegError(f"model folder has no {name}", self.model_dir)
        verify_model_files(self.model_dir)  # before anything in the folder is parsed
        running = feature_config if feature_config is not None else FeatureConfig()
        saved = FeatureConfig.load(self.model_dir / FEATURES_FILE)
        if saved != running:
            diffs = config_differences(saved, running) or ["(unequal, no field differs)"]
            raise RtEegError(
                "model was trained with different feature settings: " + "; ".join(diffs),
                self.model_dir / FEATURES_FILE,
            )
        self.feature_config = running
        try:
            self.manifest = json.loads((self.model_dir / MANIFEST_FILE).read_text("utf-8"))
            dec = self.manifest["decoder"]
            self.normalisation = str(dec["normalisation"])
            geometry = (int(dec["frames_per_epoch"]), int(dec["window_epochs"]))
        except (ValueError, KeyError, TypeError) as err:
            raise RtEegError(
                f"manifest is not valid (missing or bad decoder section: {err})",
                self.model_dir / MANIFEST_FILE,
            ) from err
        if (
            geometry != (FRAMES_PER_EPOCH, WINDOW_EPOCHS)
            or self.normalisation not in NORMALISATIONS
        ):
            raise RtEegError(
                f"unsupported decoder settings {dec}; this decoder does "
                f"{FRAMES_PER_EPOCH} frames x {WINDOW_EPOCHS} epochs, {NORMALISATIONS}",
                self.model_dir / MANIFEST_FILE,
            )
        self.uses_context = self.normalisation in CONTEXT_NORMALISATIONS
        self.scale: np.ndarray | None = None
        self.gate, self.gate_top_k = GATE, GATE_TOP_K
        if self.uses_context:
            try:
                ctx = dec["context"]
                self.scale = np.asarray(ctx["feature_scale"], np.float32)
                self.gate = float(ctx.get("gate", GATE))
                self.gate_top_k = int(ctx.get("gate_top_k", GATE_TOP_K))
            except (KeyError, TypeError, ValueError) as err:
                raise RtEegError(
                    f"manifest of a context model has no valid decoder.context section ({err})",
                    self.model_dir / MANIFEST_FILE,
                ) from err
        if device not in ("auto", "cpu", "gpu"):
            raise RtEegError(f"unknown device {device!r}; expected auto, cpu or gpu")
        # Only a GPU needs TensorFlow; 'auto' without an NVIDIA driver is the CPU at once.
        use_tf = device == "gpu" or (device == "auto" and gpu_present())
        self.device = resolve_device(device) if use_tf else "/CPU:0"
        lite = lite_model_path(self.model_dir, self.manifest) if self.device == "/CPU:0" else None
        self._model = None
        if lite is not None:
            self.runtime = LITERT
            self._infer = LiteRunner(lite)
            width = self._infer.width
        else:
            self.runtime = TENSORFLOW
            self._model, self._infer = _load_model(self.model_dir / MODEL_FILE, self.device)
            width = int(self._model.input_shape[-1])
        self.n_features = width // 2 if self.normalisation == "context_maxabs" else width
        if self.scale is not None and self.scale.shape != (self.n_features,):
            raise RtEegError(
                f"decoder.context.feature_scale has {self.scale.size} values, the model "
                f"takes {self.n_features} features",
                self.model_dir / MANIFEST_FILE,
            )
        self._stream: DecoderStream | None = None
        # Warm-up: trace the function and touch the device once before the first real frame.
        self._run(np.zeros((22, WINDOW_FRAMES, width), np.float32))

    # ---------------------------------------------------------------- model calls
    #: Run every model call on power-of-two batch shapes (>= 32 windows), so that XLA
    #: compiles a handful of shapes instead of one per size (about 0.5 s each): the ward's
    #: batches vary with the beds that are due. A batch is split into power-of-two pieces
    #: while 1024 or more windows are left and the rest is zero-padded (at most 1023 wasted
    #: windows). Results are unchanged: inference is batch-invariant. Only TensorFlow
    #: compiles per shape; LiteRT always runs fixed blocks, so it is not padded here.
    pad_batches = False

    def _run(self, windows: np.ndarray) -> np.ndarray:
        """Model on raw-normalised windows ``(n, 70, F)`` -> ``(n,)`` float32 P(seizure)."""
        n_all = windows.shape[0]
        if n_all == 0:
            return np.zeros(0, np.float32)
        out = []
        i = 0
        while i < n_all:
            left = n_all - i
            if not self.pad_batches or self.runtime != TENSORFLOW:
                take = m = min(left, BATCH_WINDOWS)
            elif left >= 1024:
                take = m = min(1 << (left.bit_length() - 1), BATCH_WINDOWS)
            else:
                take, m = left, max(32, 1 << (left - 1).bit_length())
            chunk = windows[i : i + take]
            if m > take:
                chunk = np.concatenate([chunk, np.zeros((m - take, *chunk.shape[1:]), chunk.dtype)])
            out.append(self._infer(chunk)[:take])
            i += take
        return np.concatenate(out)

    def warm_batches(self, max_windows: int) -> None:
        """Compile the padded batch shapes up to ``max_windows`` now, not on first use.

        A no-op on LiteRT (nothing is compiled per shape)."""
        if self.runtime != TENSORFLOW:
            return
        width = int(self._model.input_shape[-1])
        m = 32
        while m <= min(max_windows, BATCH_WINDOWS):
            self._infer(np.zeros((m, WINDOW_FRAMES, width), np.float32))
            m *= 2

    def _probs(
        self, windows: np.ndarray, n_valid: np.ndarray, centers: np.ndarray | None = None
    ) -> np.ndarray:
        return self._run(
            normalise_windows(windows, n_valid, self.normalisation, centers, self.scale)
        )

    def _check(
        self, features: np.ndarray, times: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        features = np.asarray(features, dtype=np.float32)
        if features.ndim != 3 or features.shape[2] != self.n_features:
            raise RtEegError(
                f"features must have shape (n_frames, n_channels, {self.n_features}), "
                f"got {features.shape}"
            )
        if not np.isfinite(features).all():
            raise RtEegError("features contain NaN or infinite values")
        if times is None:
            times = np.arange(features.shape[0]) * (EPOCH_S / FRAMES_PER_EPOCH)
        times = np.asarray(times, dtype=np.float64).reshape(-1)
        if times.shape[0] != features.shape[0]:
            raise RtEegError(f"{features.shape[0]} feature frames but {times.shape[0]} times")
        return features, times

    # ---------------------------------------------------------------- streaming
    def open_stream(self, n_channels: int) -> DecoderStream:
        """A new, independent stream state (for :meth:`predict_many`)."""
        return DecoderStream(n_channels, self.n_features, context=self.uses_context)

    def predict_many(
        self, items: Sequence[tuple[DecoderStream, np.ndarray, np.ndarray]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Push frames into several streams and decode all completed epochs.

        Without context, every completed epoch of every stream goes into one model call.
        With context, epoch ``r`` of a stream depends on the decisions of its epochs before
        ``r`` (the gate), so the epochs are decoded in rounds: round ``r`` holds the ``r``-th
        new epoch of every stream, one model call per round. Both runtimes are
        batch-invariant (XLA by construction, LiteRT by its fixed, padded batch), so the
        grouping never changes a result.

        Parameters
        ----------
        items : sequence of (stream, features (k, n_ch, F), times (k,))

        Returns
        -------
        results : list of (epoch_starts (m,), probs (m, n_ch)), one per item
        """
        done = []
        for stream, feats, times in items:
            feats, times = self._check(feats, times)
            if feats.shape[1] != stream.n_channels:
                raise RtEegError(
                    f"stream has {stream.n_channels} channels but {feats.shape[1]} were pushed"
                )
            done.append(stream._advance(feats, times))
        probs: list[list[np.ndarray]] = [[] for _ in items]
        if not self.uses_context:
            rows = [(i, ep) for i, eps in enumerate(done) for ep in eps]
            if rows:
                p = self._probs(
                    np.concatenate([ep[0] for _, ep in rows]),
                    np.concatenate([np.full(ep[0].shape[0], ep[1]) for _, ep in rows]),
                )
                pos = 0
                for i, ep in rows:
                    n = ep[0].shape[0]
                    probs[i].append(p[pos : pos + n])
                    pos += n
        else:
            for r in range(max((len(eps) for eps in done), default=0)):
                rows = [(i, eps[r]) for i, eps in enumerate(done) if r < len(eps)]
                centers = []
                for i, (win, nv, _, _) in rows:
                    ctx = items[i][0].context
                    centers.append(ctx.center(window_mean(win, nv)))
                p = self._probs(
                    np.concatenate([ep[0] for _, ep in rows]),
                    np.concatenate([np.full(ep[0].shape[0], ep[1]) for _, ep in rows]),
                    np.concatenate(centers),
                )
                pos = 0
                for i, ep in rows:
                    n = ep[0].shape[0]
                    pi = p[pos : pos + n]
                    pos += n
                    probs[i].append(pi)
                    score = gate_score(pi[None], self.gate_top_k)[0]
                    items[i][0].context.update(ep[3], bool(score < self.gate))
        results = []
        for (stream, _, _), eps, ps in zip(items, done, probs, strict=True):
            starts = np.asarray([ep[2] for ep in eps], np.float64)
            out = (
                np.stack(ps).astype(np.float32, copy=False)
                if ps
                else np.zeros((0, stream.n_channels), np.float32)
            )
            results.append((starts, out))
        return results

    def push(
        self, features: np.ndarray, times: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Push feature frames; decode every epoch they complete.

        Parameters
        ----------
        features : ndarray, shape (k, n_channels, n_features)
            Consecutive 0.1 s frames (any k >= 0).
        times : ndarray, shape (k,), optional
            Start time in seconds of each frame (default: counted from 0).

        Returns
        -------
        epoch_starts : ndarray of float64, shape (m,)
            Start time of each completed epoch (time of its first frame).
        probs : ndarray of float32, shape (m, n_channels)
            P(seizure) per channel.
        """
        features = np.asarray(features, dtype=np.float32)
        if self._stream is None:
            if features.ndim != 3:
                self._check(features, times)
            self._stream = self.open_stream(features.shape[1])
        return self.predict_many([(self._stream, features, times)])[0]

    def flush(self) -> tuple[np.ndarray, np.ndarray]:
        """End of stream: an incomplete trailing epoch is not scored; state is reset."""
        n_ch = self._stream.n_channels if self._stream is not None else 0
        self._stream = None
        return np.zeros(0, np.float64), np.zeros((0, n_ch), np.float32)

    # ---------------------------------------------------------------- batch
    def predict_recording(self, features: np.ndarray) -> np.ndarray:
        """Whole-recording twin of :meth:`push`.

        Parameters
        ----------
        features : ndarray, shape (n_frames, n_channels, n_features)

        Returns
        -------
        probs : ndarray of float32, shape (n_frames // 10, n_channels)
        """
        features, _ = self._check(features, None)
        n_frames, n_ch, _ = features.shape
        n_epochs = n_frames // FRAMES_PER_EPOCH
        if self.uses_context:
            # Sequential by nature (the gate of each epoch feeds the context of the next).
            stream = self.open_stream(n_ch)
            return self.predict_many([(stream, features[: n_epochs * FRAMES_PER_EPOCH], None)])[
                0
            ][1]
        out = np.zeros((n_epochs, n_ch), np.float32)
        step = max(1, BATCH_WINDOWS // max(n_ch, 1))
        for e0 in range(0, n_epochs, step):
            epochs = np.arange(e0, min(e0 + step, n_epochs))
            w, nv = recording_windows(features, epochs)
            out[e0 : e0 + len(epochs)] = self._probs(w, nv).reshape(len(epochs), n_ch)
        return out


def predict_recording(model: Decoder | str | os.PathLike, features: np.ndarray) -> np.ndarray:
    """P(seizure) per epoch and channel of a whole recording.

    Parameters
    ----------
    model : Decoder or path-like
        A loaded decoder, or a model folder (loaded with ``device='auto'``).
    features : ndarray, shape (n_frames, n_channels, n_features)

    Returns
    -------
    probs : ndarray of float32, shape (n_frames // 10, n_channels)
        Equal (to 1e-5) to what :meth:`Decoder.push` gives for any chunking.
    """
    decoder = model if isinstance(model, Decoder) else Decoder(model)
    return decoder.predict_recording(features)


def _load_model(path: Path, device: str):
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
    from rt_eeg.features import N_FEATURES, FeatureConfig
    from rt_eeg.io.atomic import atomic_path, write_json_atomic

    if normalisation not in NORMALISATIONS:
        raise RtEegError(f"unknown normalisation {normalisation!r}; expected {NORMALISATIONS}")
    model_dir = Path(model_dir)
    model_dir.mkdir(parents=True, exist_ok=True)
    model = build_model(
        arch, n_features=model_width(normalisation, N_FEATURES), units=units, seed=seed
    )
    with atomic_path(model_dir / MODEL_FILE, suffix=".keras") as tmp:
        model.save(tmp)
    cfg = feature_config if feature_config is not None else FeatureConfig()
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
                "n_features": N_FEATURES,
                "normalisation": normalisation,
                **(
                    {"context": {"feature_scale": [1.0] * N_FEATURES, "gate": GATE,
                                 "gate_top_k": GATE_TOP_K}}  # fmt: skip
                    if normalisation in CONTEXT_NORMALISATIONS
                    else {}
                ),
            },
        },
    )
    return model_dir
