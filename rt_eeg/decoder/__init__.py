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
comparison on any corpus and records it in the manifest. ``'frame_lstm_veto'`` (inputs
``'context_history'``) is a trained ``'frame_lstm'`` frozen, times a veto read from the 70 s
history that can only lower its calls (:func:`load_seven_second_decoder`, ``rt-eeg train
--init-from``). ``'frame_lstm_3s'`` is ``'frame_lstm'`` over the window's last 3 s only (a crop
inside the model; pilot 77 asks whether the 7 s view is what delays the decoder's rise).

A model folder holds ``model.keras``, ``model.tflite`` (its LiteRT twin, for the CPU),
``features.toml`` (the exact :class:`rt_eeg.features.FeatureConfig`) and ``manifest.json``
(its ``decoder`` section gives the window geometry and normalisation); see
:mod:`rt_eeg.model_files`.

Runtimes (:mod:`rt_eeg.runtime`): on the CPU the model runs in LiteRT, which loads in
milliseconds and never imports TensorFlow; on a GPU, and for a folder saved before
``model.tflite`` existed, in TensorFlow with XLA. TensorFlow is imported lazily (inside
functions), so ``import rt_eeg.decoder`` is cheap.

This package is the public face: import from ``rt_eeg.decoder``. Each module owns one part:

- :mod:`~rt_eeg.decoder.windows`: window geometry, :func:`normalise_windows`,
  :func:`recording_windows` (numpy only)
- :mod:`~rt_eeg.decoder.model`: the Keras model: :func:`build_model`, loading,
  :func:`make_infer`, :func:`resolve_device`, :func:`write_untrained_model`
- :mod:`~rt_eeg.decoder.stream`: :class:`DecoderStream`, :class:`FrameFeed`
- :mod:`~rt_eeg.decoder.stage`: :class:`Decoder` (the stage; picks the runtime),
  :func:`predict_recording`
"""

from __future__ import annotations

# Every name the former single module defined or imported is imported here, so existing
# imports keep working; F401 is off for this file in pyproject.toml.
from rt_eeg.context import GATE, GATE_TOP_K, BackgroundContext, gate_score, window_mean
from rt_eeg.decoder.model import (
    ARCHITECTURES,
    BASE_ARCHITECTURES,
    SEVEN_SECOND_LAYERS,
    VETO_BIAS,
    VETO_UNITS,
    build_model,
    load_model,
    load_seven_second_decoder,
    make_infer,
    resolve_device,
    write_untrained_model,
)
from rt_eeg.decoder.stage import BATCH_WINDOWS, Decoder, config_differences, predict_recording
from rt_eeg.decoder.stream import DecoderStream, FrameFeed
from rt_eeg.decoder.windows import (
    _EPS,
    CONTEXT_NORMALISATIONS,
    DOUBLE_NORMALISATIONS,
    EPOCH_S,
    FRAMES_PER_EPOCH,
    HISTORY_EPOCHS,
    HISTORY_NORMALISATIONS,
    NORMALISATIONS,
    WINDOW_EPOCHS,
    WINDOW_FRAMES,
    departure_width,
    epoch_means,
    model_width,
    montage_departure,
    n_features_of,
    n_history_epochs,
    n_valid_frames,
    normalise_windows,
    recording_epoch_means,
    recording_history,
    recording_windows,
)
from rt_eeg.errors import RtEegError
from rt_eeg.model_files import (
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
