"""The transport-free decoder stage: :class:`Decoder` (loads a model folder, picks the
runtime, decodes streams and whole recordings) and :func:`predict_recording`."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rt_eeg.context import GATE, GATE_TOP_K, gate_score, recording_centers, window_mean
from rt_eeg.decoder.model import load_model, resolve_device
from rt_eeg.decoder.stream import DecoderStream
from rt_eeg.decoder.windows import (
    CONTEXT_NORMALISATIONS,
    EPOCH_S,
    FRAMES_PER_EPOCH,
    HISTORY_EPOCHS,
    HISTORY_NORMALISATIONS,
    NORMALISATIONS,
    WINDOW_EPOCHS,
    WINDOW_FRAMES,
    n_features_of,
    normalise_windows,
    recording_epoch_means,
    recording_history,
    recording_windows,
)
from rt_eeg.errors import RtEegError
from rt_eeg.model_files import (
    FEATURES_FILE,
    MANIFEST_FILE,
    MODEL_FILE,
    lite_model_path,
    verify_model_files,
)
from rt_eeg.runtime import LITERT, TENSORFLOW, LiteRunner, gpu_present

#: Windows per model call in batch inference (bounds memory: 8192 x 70 x 26 float32 = 60 MB).
BATCH_WINDOWS = 8192


def config_differences(saved: Any, running: Any) -> list[str]:
    """Names and values of the dataclass fields in which two feature configurations differ."""
    diffs = []
    for f in dataclasses.fields(saved):
        a, b = getattr(saved, f.name), getattr(running, f.name, None)
        if a != b:
            diffs.append(f"{f.name} (model {a!r}, running {b!r})")
    return diffs


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
    feature_config : rt_eeg.features.FeatureConfig or 'model', optional
        The running feature configuration (default ``FeatureConfig()``). A model whose
        ``features.toml`` differs is refused with an :class:`RtEegError` naming the keys.
        ``'model'`` adopts the model's own settings (refused if the system cannot run them:
        :func:`~rt_eeg.features.check_runnable`): for the in-process paths that compute their
        features from :attr:`feature_config` themselves (the batch detector, the real checks).
        The live stages pass the settings their run was started with (the model's, read once
        at pre-flight), so a folder changed since is refused.

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
        from rt_eeg.features import FeatureConfig, check_runnable

        self.model_dir = Path(model_dir)
        for name in (MODEL_FILE, FEATURES_FILE, MANIFEST_FILE):
            if not (self.model_dir / name).is_file():
                raise RtEegError(f"model folder has no {name}", self.model_dir)
        # before anything else in the folder is parsed; the manifest it checked is the one used
        verified = verify_model_files(self.model_dir)
        saved = FeatureConfig.load(self.model_dir / FEATURES_FILE)
        if isinstance(feature_config, str):
            if feature_config != "model":
                raise ValueError(f"feature_config must be a FeatureConfig or 'model', not {feature_config!r}")
            check_runnable(saved, self.model_dir / FEATURES_FILE)
            running = saved
        else:
            running = feature_config if feature_config is not None else FeatureConfig()
        if saved != running:
            diffs = config_differences(saved, running) or ["(unequal, no field differs)"]
            raise RtEegError(
                "model was trained with different feature settings: " + "; ".join(diffs),
                self.model_dir / FEATURES_FILE,
            )
        self.feature_config = running
        try:
            self.manifest = (
                verified
                if verified is not None
                else json.loads((self.model_dir / MANIFEST_FILE).read_text("utf-8"))
            )
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
            or (
                self.normalisation in HISTORY_NORMALISATIONS
                and dec.get("history_epochs") != HISTORY_EPOCHS
            )
        ):
            raise RtEegError(
                f"unsupported decoder settings {dec}; this decoder does "
                f"{FRAMES_PER_EPOCH} frames x {WINDOW_EPOCHS} epochs, {NORMALISATIONS}",
                self.model_dir / MANIFEST_FILE,
            )
        self.uses_context = self.normalisation in CONTEXT_NORMALISATIONS
        self.uses_history = self.normalisation in HISTORY_NORMALISATIONS
        self.scale: np.ndarray | None = None
        self.gate, self.gate_top_k = GATE, GATE_TOP_K
        self.gate_max_epochs = 0  # unbounded, as every model before amendment 11 was decoded
        if self.uses_context:
            try:
                ctx = dec["context"]
                self.scale = np.asarray(ctx["feature_scale"], np.float32)
                self.gate = float(ctx.get("gate", GATE))
                self.gate_top_k = int(ctx.get("gate_top_k", GATE_TOP_K))
                self.gate_max_epochs = int(ctx.get("gate_max_epochs", 0))
                if self.gate_max_epochs < 0:
                    raise ValueError(f"gate_max_epochs {self.gate_max_epochs} < 0")
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
            self._model, self._infer = load_model(self.model_dir / MODEL_FILE, self.device)
            width = int(self._model.input_shape[-1])
        self.n_features = n_features_of(self.normalisation, width)
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
        self,
        windows: np.ndarray,
        n_valid: np.ndarray,
        centers: np.ndarray | None = None,
        groups=None,
        history: np.ndarray | None = None,
        n_history: np.ndarray | None = None,
    ) -> np.ndarray:
        """P(seizure) of raw windows; ``groups``: channels per consecutive epoch group;
        ``history``, ``n_history``: their epoch-mean histories (history models)."""
        return self._run(
            normalise_windows(
                windows, n_valid, self.normalisation, centers, self.scale, groups, history, n_history
            )
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
        return DecoderStream(
            n_channels,
            self.n_features,
            context=self.uses_context,
            max_gated_epochs=self.gate_max_epochs,
            history=self.uses_history,
        )

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
                    groups=[ep[0].shape[0] for _, ep in rows],
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
                for i, (win, nv, *_) in rows:
                    ctx = items[i][0].context
                    centers.append(ctx.center(window_mean(win, nv)))
                hist = n_hist = None
                if self.uses_history:
                    hist = np.concatenate([ep[4] for _, ep in rows])
                    n_hist = np.concatenate([np.full(ep[4].shape[0], ep[5]) for _, ep in rows])
                p = self._probs(
                    np.concatenate([ep[0] for _, ep in rows]),
                    np.concatenate([np.full(ep[0].shape[0], ep[1]) for _, ep in rows]),
                    np.concatenate(centers),
                    [ep[0].shape[0] for _, ep in rows],
                    hist,
                    n_hist,
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
    def predict_recording(
        self, features: np.ndarray, accept: np.ndarray | None = None
    ) -> np.ndarray:
        """Whole-recording twin of :meth:`push`.

        Parameters
        ----------
        features : ndarray, shape (n_frames, n_channels, n_features)
        accept : ndarray of bool, shape (n_frames // 10,), optional
            Context models only: which epochs enter the background context, in place of the
            model's own calls (the labels, say, to measure what the gate costs: the training
            store's centres, :func:`rt_eeg.context.recording_centers`). With the model's own
            calls it gives :meth:`push`'s probabilities exactly.

        Returns
        -------
        probs : ndarray of float32, shape (n_frames // 10, n_channels)
        """
        features, _ = self._check(features, None)
        n_frames, n_ch, _ = features.shape
        n_epochs = n_frames // FRAMES_PER_EPOCH
        features = features[: n_epochs * FRAMES_PER_EPOCH]
        centers = None
        if self.uses_context:
            if accept is None:
                # Sequential by nature (the gate of each epoch feeds the context of the next).
                stream = self.open_stream(n_ch)
                return self.predict_many([(stream, features, None)])[0][1]
            accept = np.asarray(accept, bool).reshape(-1)
            if accept.size != n_epochs:
                raise ValueError(f"accept has {accept.size} epochs, the features {n_epochs}")
            centers = recording_centers(features, accept)  # (n_epochs, n_ch, F)
        elif accept is not None:
            raise ValueError("accept applies to context models only")
        means = recording_epoch_means(features) if self.uses_history else None
        out = np.zeros((n_epochs, n_ch), np.float32)
        step = max(1, BATCH_WINDOWS // max(n_ch, 1))
        for e0 in range(0, n_epochs, step):
            epochs = np.arange(e0, min(e0 + step, n_epochs))
            w, nv = recording_windows(features, epochs)
            c = None if centers is None else centers[epochs].reshape(len(epochs) * n_ch, -1)
            h, nh = (None, None) if means is None else recording_history(means, epochs)
            out[e0 : e0 + len(epochs)] = self._probs(w, nv, c, n_ch, h, nh).reshape(
                len(epochs), n_ch
            )
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
