"""Soft training targets from a teacher ensemble (knowledge distillation; issue #12, pilot 101).

The mean of several trained decoders behaves better on generators none of them saw than any one
of them (protocol pilot 98: calmer background at the top of the scale, earlier calls), but a
bedside server runs one decoder per channel stream. Distillation trains one model towards the
ensemble: each training sample's target becomes ``(1 - w) * y + w * p_T``, ``y`` its label and
``p_T`` the teachers' mean P(seizure) on the very window the student sees.

The teachers are decoder folders trained on the same feature settings and inputs (the
ensemble's checks, :func:`rt_eeg.ensemble.check_members`). A context decoder's inputs are divided
by its own per-feature scale (drawn with its seed); each teacher's first layer is folded to read
the student's inputs (:func:`rt_eeg.ensemble.fold_input_scale`), exactly as ``rt-eeg ensemble``
folds its members, so the teachers score the student's batch as they would their own.

TensorFlow is imported inside functions only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rt_eeg.errors import RtEegError


def teacher_manifests(member_dirs) -> list[dict]:
    """The teachers' manifests, cross-checked as an ensemble's members (one teacher: its own).

    Raises
    ------
    RtEegError
        No teacher, a folder that is not a model, or teachers whose inputs differ.
    """
    from rt_eeg.ensemble import check_members, member_manifest

    paths = [Path(p) for p in member_dirs]
    if not paths:
        raise RtEegError("distillation needs at least one teacher model folder")
    return check_members(paths) if len(paths) > 1 else [member_manifest(paths[0])]


def check_student(member_dirs, manifests: list[dict], normalisation: str, n_features: int) -> None:
    """Refuse teachers whose inputs the student's batches cannot feed (one line, naming it)."""
    for path, man in zip(member_dirs, manifests, strict=True):
        dec = man["decoder"]
        if dec.get("normalisation") != normalisation:
            raise RtEegError(f"the teacher was trained on {dec.get('normalisation')!r} inputs, the "
                             f"student on {normalisation!r}", path)  # fmt: skip
        if int(dec.get("n_features", -1)) != n_features:
            raise RtEegError(f"the teacher reads {dec.get('n_features')} features per frame, the "
                             f"student's store {n_features}", path)  # fmt: skip


def load_teacher(member_dirs, scale, normalisation: str, n_features: int, width: int, device: str):
    """The teachers' mean P(seizure) as a function of the student's input batch.

    Parameters
    ----------
    member_dirs : sequence of path-like
        Teacher model folders.
    scale : ndarray of float32, shape (n_features,), or None
        The student's context scale (None without context inputs).
    normalisation : str
        The student's input normalisation (the teachers' must be the same).
    n_features : int
        Features per frame in the student's store.
    width : int
        The model's input width per frame.
    device : str
        TensorFlow device of the teachers.

    Returns
    -------
    (infer, weights) : (callable, list of str)
        ``infer(x)``: ``(n, 70, width)`` float32 -> ``(n,)`` float32, the teachers' mean;
        ``weights``: each teacher's ``weights_sha256`` (for the manifest).
    """
    from rt_eeg.decoder.model import make_infer
    from rt_eeg.ensemble import MODEL_FILE, build_ensemble_model, fold_input_scale, scale_ratio
    from rt_eeg.runtime import import_tensorflow

    manifests = teacher_manifests(member_dirs)
    check_student(member_dirs, manifests, normalisation, n_features)
    tf = import_tensorflow()
    import keras

    student = {"normalisation": normalisation,
               "context": {"feature_scale": [float(v) for v in scale]} if scale is not None else {}}  # fmt: skip
    members = []
    with tf.device(device):
        for path, man in zip(member_dirs, manifests, strict=True):
            member = keras.saving.load_model(Path(path) / MODEL_FILE, compile=False, safe_mode=True)
            member.trainable = False
            ratio = scale_ratio(student, man["decoder"], width)
            if ratio is not None:
                fold_input_scale(member, ratio)
            members.append(member)
        model = members[0] if len(members) == 1 else build_ensemble_model(members, "mean")
    return make_infer(model, device), [str(m.get("weights_sha256", "")) for m in manifests]


#: Which training rows take the teachers' share (``TrainConfig.distill_rows``): every row, only
#: the seizure rows (a seizure-labelled window the teachers read as background is not forced to
#: 1), or only the background rows (a seizure's target stays 1, so the student's scale is not
#: capped under the teachers' mean; pilot 104).
DISTILL_ROWS = ("all", "seizure", "background")


def soft_targets(y: np.ndarray, teacher_p: np.ndarray, weight: float, rows: str = "all") -> np.ndarray:
    """``(1 - weight) * y + weight * teacher_p`` on the ``rows`` chosen, ``y`` elsewhere.

    Parameters
    ----------
    y : ndarray, shape (n,)
        Labels (1 seizure, 0 background; a row counts as seizure from 0.5).
    teacher_p : ndarray, shape (n,)
        The teachers' mean P(seizure) on the same windows.
    weight : float
        The teachers' share, in [0, 1].
    rows : {'all', 'seizure', 'background'}
        Which rows are mixed (:data:`DISTILL_ROWS`).

    Returns
    -------
    ndarray of float32, shape (n,)
    """
    if rows not in DISTILL_ROWS:
        raise RtEegError(f"distill_rows must be one of {', '.join(DISTILL_ROWS)}, got {rows!r}")
    y = np.asarray(y, np.float32)
    w = np.float32(weight)
    mixed = ((np.float32(1.0) - w) * y + w * np.asarray(teacher_p, np.float32)).astype(np.float32)
    if rows == "all":
        return mixed
    keep = y < 0.5 if rows == "seizure" else y >= 0.5
    return np.where(keep, y, mixed).astype(np.float32)
