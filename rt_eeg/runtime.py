"""Inference runtimes of the decoder, and keeping native libraries quiet.

Two runtimes run the same TensorFlow-trained model:

- **LiteRT** (``ai-edge-litert``, TensorFlow's own light runtime) on the CPU. ``model.tflite``
  is converted from ``model.keras`` when the model is saved (:func:`export_tflite`); loading
  it takes milliseconds and never imports TensorFlow (whose import alone takes 3-5 s), so a
  pipeline's first decision is not held up. Measured in ``tools/bench_startup.py``.
- **TensorFlow** with XLA (:func:`rt_eeg.decoder.make_infer`) on a GPU, and on the CPU for a
  model folder that has no ``model.tflite`` (saved before it existed).

Which runtime runs is a function of the model folder and the device only, so every path that
makes decisions (``rt-eeg evaluate``, ``replay``, ``live``, the postprocessor's tuning) uses
the same one, and online equals offline bit for bit. The LiteRT model has a fixed batch size
(:data:`LITE_BATCH`, stored in the file): every call is padded to it, so a window's result
never depends on how many windows share its call (``tests/test_decoder.py`` proves it).

TensorFlow, XLA, CUDA and LiteRT print log lines from C++ straight to file descriptor 2,
some before any log level applies (``All log messages before absl::InitializeLog() ...``,
``cudart_stub.cc``, ``Created TensorFlow Lite XNNPACK delegate``). :func:`quiet_native_stderr`
holds them back around the calls that print them unless ``--debug`` (``RT_EEG_DEBUG``) asked
for them; what was held back is logged at debug level, and written out after all when the
call failed, so a real error stays visible.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from rt_eeg.errors import RtEegError

log = logging.getLogger("rt_eeg.runtime")

#: LiteRT model file in a model folder.
LITE_FILE = "model.tflite"
#: Windows per LiteRT call (fixed: calls are padded to it). 22 TCP channels fit one call.
LITE_BATCH = 32
#: Runtime names, as recorded in the manifest and reported by ``Decoder.runtime``.
LITERT, TENSORFLOW = "litert", "tensorflow"
#: fd 2 is process-wide: one redirection at a time (threads: Dask's in-process workers).
_STDERR_LOCK = threading.RLock()
_stderr_depth = 0


def debug_requested() -> bool:
    """``--debug`` (inherited by child processes through ``RT_EEG_DEBUG``)."""
    return bool(os.environ.get("RT_EEG_DEBUG"))


@contextlib.contextmanager
def quiet_native_stderr() -> Iterator[None]:
    """Hold back what native code writes to file descriptor 2 inside the block.

    Python's ``sys.stderr`` is the same descriptor, so it is held back too; the block should
    be short (an import, a model load). Afterwards the text is logged at debug level; if the
    block raised, it is written to stderr after all (it may say why). With ``RT_EEG_DEBUG``
    set this does nothing. Thread-safe (other threads wait); nested blocks redirect once.
    """
    global _stderr_depth
    if debug_requested():
        yield
        return
    with _STDERR_LOCK:
        if _stderr_depth:  # already redirected by an enclosing block of this thread
            yield
            return
        _stderr_depth += 1
        try:
            with _redirect_fd2():
                yield
        finally:
            _stderr_depth -= 1


@contextlib.contextmanager
def _redirect_fd2() -> Iterator[None]:
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no usable fd 2 (embedded interpreter): nothing to hide
        yield
        return
    failed = True
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
            failed = False
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            text = held.read().decode("utf-8", "replace")
            if text.strip():
                if failed:
                    sys.stderr.write(text)
                    sys.stderr.flush()
                for line in text.splitlines():
                    if line.strip():
                        log.debug("native: %s", line)


def import_tensorflow():
    """``import tensorflow`` without its start-up chatter (see :func:`quiet_native_stderr`).

    Every TensorFlow import in rt_eeg goes through here first (later imports are cached).
    """
    if not debug_requested():
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    with quiet_native_stderr():
        import tensorflow as tf
    return tf


def gpu_present() -> bool:
    """Whether this machine has an NVIDIA GPU driver loaded (cheap: no TensorFlow import)."""
    gpus = Path("/proc/driver/nvidia/gpus")
    try:
        return gpus.is_dir() and any(gpus.iterdir())
    except OSError:
        return False


# --------------------------------------------------------------------------- conversion


def export_tflite(model, path: str | os.PathLike, batch: int = LITE_BATCH) -> None:
    """Convert a Keras decoder model to a LiteRT flatbuffer with a fixed batch size.

    The weights are frozen into constants (the converter cannot read Keras 3's resource
    variables inside the LSTM's loop). Needs TensorFlow: done when a model is saved
    (``rt-eeg train``, :func:`rt_eeg.decoder.write_untrained_model`,
    ``tools/export_tflite.py`` for an existing folder). Written atomically.

    Parameters
    ----------
    model : keras.Model
        Input ``(batch, 70, F)`` float32, output ``(batch, 1)``.
    path : path-like
        The ``.tflite`` file to write.
    batch : int
        Windows per call, fixed in the file.
    """
    from rt_eeg.io.atomic import atomic_path

    tf = import_tensorflow()
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    spec = tf.TensorSpec([batch, *model.input_shape[1:]], tf.float32)
    fn = tf.function(lambda x: tf.reshape(model(x, training=False), [-1]), input_signature=[spec])
    with quiet_native_stderr():  # the MLIR converter logs every pass
        frozen = convert_variables_to_constants_v2(fn.get_concrete_function())
        data = tf.lite.TFLiteConverter.from_concrete_functions([frozen]).convert()
    with atomic_path(path, suffix=".tflite") as tmp, open(tmp, "wb") as fh:
        fh.write(data)


# --------------------------------------------------------------------------- LiteRT


class LiteRunner:
    """A LiteRT interpreter on one ``model.tflite``: ``(n, 70, F)`` windows -> ``(n,)``.

    Single-threaded (the pipeline's stages and evaluate's workers already use every core).
    Every call runs the interpreter on blocks of exactly ``batch`` windows, the last one
    zero-padded, so results do not depend on ``n``.

    Parameters
    ----------
    path : path-like
        The ``.tflite`` file.

    Attributes
    ----------
    batch : int
        Windows per interpreter call (from the file).
    width : int
        Features per frame the model takes.
    """

    def __init__(self, path: str | os.PathLike):
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError as err:
            raise RtEegError(
                f"LiteRT is not installed ({err}); pip install ai-edge-litert", path
            ) from None
        try:
            with quiet_native_stderr():  # "Created TensorFlow Lite XNNPACK delegate for CPU."
                self._it = Interpreter(model_path=str(path), num_threads=1)
                self._it.allocate_tensors()
        except (ValueError, RuntimeError) as err:
            raise RtEegError(f"not a valid LiteRT model ({str(err)[:200]})", path) from None
        inp, out = self._it.get_input_details(), self._it.get_output_details()
        shape = tuple(int(s) for s in inp[0]["shape"]) if len(inp) == 1 else ()
        if len(shape) != 3 or shape[1] != 70 or len(out) != 1 or tuple(out[0]["shape"]) != (shape[0],):
            raise RtEegError(
                f"LiteRT model must map (batch, 70, F) windows to (batch,), got input {shape}",
                path,
            )
        self.batch, self.width = shape[0], shape[2]
        self._frames = shape[1]
        self._in, self._out = inp[0]["index"], out[0]["index"]
        self._block = np.zeros(shape, np.float32)
        self._lock = threading.Lock()  # one interpreter: calls from threads take turns

    def __call__(self, windows: np.ndarray) -> np.ndarray:
        """P(seizure) of each window.

        Parameters
        ----------
        windows : ndarray of float32, shape (n, 70, width)
            Normalised windows.

        Returns
        -------
        probs : ndarray of float32, shape (n,)
        """
        windows = np.asarray(windows, np.float32)
        n = windows.shape[0]
        out = np.empty(n, np.float32)
        with self._lock:
            self._call(windows, out)
        return out

    def _call(self, windows: np.ndarray, out: np.ndarray) -> None:
        n = windows.shape[0]
        for i in range(0, n, self.batch):
            k = min(self.batch, n - i)
            block = self._block
            block[:k] = windows[i : i + k]
            block[k:] = 0.0  # padding rows: computed, discarded, never mixed into a real row
            self._it.set_tensor(self._in, block)
            self._it.invoke()
            out[i : i + k] = self._it.get_tensor(self._out)[:k]
