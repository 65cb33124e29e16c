"""Deep ensembles: one model folder whose P(seizure) pools several trained members.

Members are model folders trained on the same corpus with the same feature settings and
decoder inputs, differing in seed (and optionally variant). Averaging independently trained
networks is the cheapest known defence against confident mistakes on data unlike the training
set (Lakshminarayanan et al. 2017; Ovadia et al. 2019): one member's idiosyncratic response to
an unseen artifact is outvoted by the others, while a seizure that all of them learned stays.

Two poolings (``combine``): ``'mean'``, the mean of the members' P(seizure); ``'logit'``, the
sigmoid of the mean of their pre-sigmoid outputs (the geometric mean of their odds). The mean
of probabilities is pulled below the consensus by any one member that lags (five members at
0.999 and one at 0.9 give 0.983), which is what a strict operating point is most sensitive to;
the logit mean keeps the consensus (0.998) and still outvotes one member's lone spike (0.999
against five at 0.01 gives 0.06, the probability mean 0.18).

The result is an ordinary model folder (``model.keras`` holding every member as a nested
Keras model, its LiteRT twin, ``features.toml`` and a manifest), so the decoder, the ward and
``rt-eeg evaluate`` run it unchanged; online == offline and bit-identity per seed carry over
because each member's are kept.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from rt_eeg.decoder.windows import departure_width
from rt_eeg.errors import RtEegError
from rt_eeg.model_files import (
    FEATURES_FILE,
    MANIFEST_FILE,
    MODEL_FILE,
    lite_manifest_section,
    model_file_hashes,
    verify_model_files,
)
from rt_eeg.runtime import LITE_FILE

#: How members can be pooled, as recorded in the manifest.
COMBINE = {
    "mean": "mean of the members' P(seizure)",
    "logit": "sigmoid of the mean of the members' logits (pre-sigmoid outputs)",
}


def member_manifest(path: Path) -> dict:
    """One member's manifest, its files verified (RtEegError naming the folder)."""
    for name in (MODEL_FILE, FEATURES_FILE, MANIFEST_FILE):
        if not (path / name).is_file():
            raise RtEegError(f"ensemble member has no {name}", path)
    manifest = verify_model_files(path)  # the manifest it checked, or None when unreadable
    try:
        if manifest is None:
            manifest = json.loads((path / MANIFEST_FILE).read_text("utf-8"))
        manifest["decoder"]["normalisation"]
    except (ValueError, KeyError, TypeError) as err:
        raise RtEegError(f"ensemble member manifest is not valid ({err})", path) from err
    if "ensemble" in manifest:
        raise RtEegError("ensemble member is itself an ensemble (list its members)", path)
    return manifest


def check_members(member_dirs) -> list[dict]:
    """Read and cross-check the members' manifests.

    Parameters
    ----------
    member_dirs : sequence of path-like
        Two or more model folders.

    Returns
    -------
    list of dict
        Each member's manifest, in order.

    Raises
    ------
    RtEegError
        Fewer than two members, a member listed twice, a folder that is not a valid model, or
        members whose feature settings or decoder inputs differ (naming the member and field).
    """
    paths = [Path(p) for p in member_dirs]
    if len(paths) < 2:
        raise RtEegError(f"an ensemble needs at least two members, got {len(paths)}")
    if len({p.resolve() for p in paths}) != len(paths):
        raise RtEegError("an ensemble member is listed twice")
    manifests = [member_manifest(p) for p in paths]
    first_features = (paths[0] / FEATURES_FILE).read_bytes()
    for path, man in zip(paths[1:], manifests[1:], strict=True):
        if (path / FEATURES_FILE).read_bytes() != first_features:
            raise RtEegError(f"features.toml differs from {paths[0]}'s", path)
        mine, first = _comparable(man["decoder"]), _comparable(manifests[0]["decoder"])
        for key in sorted(set(mine) | set(first)):
            if mine.get(key) != first.get(key):
                raise RtEegError(
                    f"decoder setting {key!r} differs from {paths[0]}'s (members must share "
                    "their inputs: same features and normalisation)",
                    path,
                )
    return manifests


def _comparable(decoder: dict) -> dict:
    """A decoder section without the context ``feature_scale``, which members may differ in
    (it is estimated from a seeded sample of the training set; :func:`fold_input_scale`)."""
    out = dict(decoder)
    if isinstance(out.get("context"), dict):
        out["context"] = {k: v for k, v in out["context"].items() if k != "feature_scale"}
    return out


def fold_input_scale(model, ratio: np.ndarray) -> None:
    """Make ``model`` take inputs scaled by ``1 / ratio`` per feature, in place.

    A context member was trained on ``rel / s_i``; the ensemble feeds every member
    ``rel / s_0`` (member 0's scale), which is ``(rel / s_i) / ratio`` with
    ``ratio = s_0 / s_i``. Multiplying the rows of the first layer's input kernel by ``ratio``
    restores the member's own inputs exactly (up to float rounding).

    Parameters
    ----------
    model : keras.Model
        A decoder model (``frame_lstm``: first layer ``lstm``; ``epoch_lstm``: ``epoch_proj``).
    ratio : ndarray, shape (n_inputs,)
        Per input feature: the scale ratio on the departure columns
        (:func:`rt_eeg.decoder.departure_width`), 1 on the window-normalised ones.
    """
    names = {layer.name for layer in model.layers}
    layer = model.get_layer("lstm" if "epoch_proj" not in names else "epoch_proj")
    weights = layer.get_weights()
    kernel = weights[0]
    rows = np.tile(np.asarray(ratio, np.float32), kernel.shape[0] // len(ratio))
    if len(rows) != kernel.shape[0]:
        raise RtEegError(f"cannot fold {len(ratio)} input scales into a kernel of "
                         f"{kernel.shape[0]} rows")  # fmt: skip
    weights[0] = (kernel * rows[:, None]).astype(kernel.dtype)
    layer.set_weights(weights)


def scale_ratio(base: dict, member: dict, width: int) -> np.ndarray | None:
    """``s_0 / s_i`` per model input (None when the member needs none)."""
    s0 = (base.get("context") or {}).get("feature_scale")
    si = (member.get("context") or {}).get("feature_scale")
    if s0 is None or si is None or s0 == si:
        return None
    ratio = np.asarray(s0, np.float64) / np.asarray(si, np.float64)
    k = departure_width(str(base.get("normalisation", "context")), len(ratio))
    return np.concatenate([np.tile(ratio, k // len(ratio)), np.ones(width - k)]).astype(np.float32)


def build_ensemble_model(members, combine: str = "mean"):
    """A Keras model pooling ``members``' outputs.

    Parameters
    ----------
    members : sequence of keras.Model
        Each maps ``(batch, 70, F)`` to ``(batch, 1)``, with the same ``F``; for ``'logit'``
        each ends in the decoder's sigmoid layer ``p_seiz`` (:func:`rt_eeg.decoder.build_model`).
    combine : {'mean', 'logit'}
        ``'mean'``: the mean of the members' P(seizure). ``'logit'``: the sigmoid of the mean
        of their logits, read exactly (the input of each member's ``p_seiz`` layer through
        the same weights, without the sigmoid), never as ``log(p / (1 - p))`` of a saturated
        float32 probability.

    Returns
    -------
    keras.Model
        ``(batch, 70, F)`` -> ``(batch, 1)``; every member is a nested model ``member_<i>``.
    """
    import keras

    _check_combine(combine)
    width = int(members[0].input_shape[-1])
    inp = keras.Input(shape=tuple(members[0].input_shape[1:]), dtype="float32", name="window")
    outs = []
    for i, member in enumerate(members):
        if int(member.input_shape[-1]) != width:
            raise RtEegError(f"ensemble member {i} takes {member.input_shape[-1]} features, "
                             f"member 0 takes {width}")  # fmt: skip
        if combine == "mean":
            nested = keras.Model(member.inputs[0], member.outputs[0], name=f"member_{i}")
            outs.append(nested(inp))
            continue
        head = _sigmoid_head(member, i)
        nested = keras.Model(member.inputs[0], head.input, name=f"member_{i}")
        logit = keras.layers.Dense(1, name=f"logit_{i}")
        outs.append(logit(nested(inp)))
        logit.set_weights(head.get_weights())
    if combine == "mean":
        out = keras.layers.Average(name="p_seiz")(outs)
    else:
        out = keras.layers.Activation("sigmoid", name="p_seiz")(
            keras.layers.Average(name="mean_logit")(outs)
        )
    return keras.Model(inp, out, name=f"rt_eeg_ensemble{len(members)}")


def _check_combine(combine: str) -> None:
    if combine not in COMBINE:
        raise RtEegError(f"unknown ensemble pooling {combine!r}; expected one of {sorted(COMBINE)}")


def _sigmoid_head(member, i: int):
    """Member ``i``'s last layer, checked to be a one-unit sigmoid Dense (``p_seiz``)."""
    import keras

    head = member.layers[-1]
    if not (isinstance(head, keras.layers.Dense) and head.units == 1
            and head.activation is keras.activations.sigmoid):  # fmt: skip
        raise RtEegError(f"ensemble member {i} does not end in a one-unit sigmoid layer, so its "
                         "logits cannot be pooled (use --combine mean)")  # fmt: skip
    return head


def write_ensemble(
    member_dirs, out_dir: str | os.PathLike, *, combine: str = "mean", command_line: str = ""
) -> Path:
    """Combine trained model folders into one model folder pooling their P(seizure).

    Parameters
    ----------
    member_dirs : sequence of path-like
        Two or more model folders trained with the same features and decoder inputs.
    out_dir : path-like
        The folder to write (created); ``model.keras``, ``model.tflite``, ``features.toml``
        and ``manifest.json`` are each written atomically.
    combine : {'mean', 'logit'}
        How the members are pooled (:func:`build_ensemble_model`).
    command_line : str
        Recorded in the manifest.

    Returns
    -------
    Path
        ``out_dir``.

    Raises
    ------
    RtEegError
        See :func:`check_members`; also when ``out_dir`` is one of the members.
    """
    from rt_eeg.io.atomic import atomic_path, write_json_atomic
    from rt_eeg.runtime import export_tflite, import_tensorflow

    _check_combine(combine)  # before any member is loaded or anything written
    paths = [Path(p) for p in member_dirs]
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.resolve() == p.resolve() for p in paths):
        raise RtEegError("the ensemble's --out is one of its members", out_dir)
    manifests = check_members(paths)
    import_tensorflow()
    import hashlib

    import keras

    members = [
        keras.saving.load_model(p / MODEL_FILE, compile=False, safe_mode=True) for p in paths
    ]
    folded = []
    for member, man in zip(members, manifests, strict=True):
        ratio = scale_ratio(manifests[0]["decoder"], man["decoder"], int(member.input_shape[-1]))
        if ratio is not None:
            fold_input_scale(member, ratio)
        folded.append(ratio is not None)
    model = build_ensemble_model(members, combine)
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_path(out_dir / MODEL_FILE, suffix=".keras") as tmp:
        model.save(tmp)
    with atomic_path(out_dir / FEATURES_FILE) as tmp:
        shutil.copyfile(paths[0] / FEATURES_FILE, tmp)
    export_tflite(model, out_dir / LITE_FILE)
    weights = b"".join(np.asarray(v).tobytes() for v in model.get_weights())
    base = manifests[0]
    rows = []
    for path, man, fold in zip(paths, manifests, folded, strict=True):
        cfg = man.get("train_config", {})
        rows.append({
            "path": str(path),
            "seed": man.get("seed"),
            "variant": (man.get("comparison") or {}).get("chosen"),
            "arch": (man.get("architecture") or {}).get("name"),
            "onset_weight": cfg.get("onset_weight"),
            "hard_negatives": cfg.get("hard_negatives"),
            "corpus": man.get("corpus"),
            "dev_scores": man.get("dev_scores"),
            "weights_sha256": man.get("weights_sha256"),
            "input_scale_folded": fold,
        })  # fmt: skip
    manifest = {
        key: base[key]
        for key in ("format", "corpus", "file_list_sha256", "n_recordings", "dev_source",
                    "libraries", "determinism", "train_config", "decoder")  # fmt: skip
        if key in base
    }
    manifest.update({
        "command_line": command_line,
        "seed": [m.get("seed") for m in manifests],
        "architecture": {
            "name": f"ensemble of {len(paths)} x {(base.get('architecture') or {}).get('name')}",
            "n_params": int(model.count_params()),
            "members": len(paths),
        },
        "ensemble": {
            "combine": COMBINE[combine],
            "pooling": combine,
            "inputs": "member 0's context feature_scale; other members' scales are folded into "
            "their first layer (rt_eeg.ensemble.fold_input_scale)",
            "members": rows,
        },
        "weights_sha256": hashlib.sha256(weights).hexdigest(),
        "litert": lite_manifest_section(out_dir),
        "files_sha256": model_file_hashes(out_dir),
    })  # fmt: skip
    write_json_atomic(out_dir / MANIFEST_FILE, manifest)
    return out_dir
