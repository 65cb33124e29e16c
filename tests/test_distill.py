"""Knowledge distillation (rt_eeg.distill): the teachers read the student's inputs at their own
scale, the targets mix as stated, training with a teacher is reproducible, moves the weights,
and is recorded; bad settings and teachers are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
from train_helpers import TINY, fit

from rt_eeg.distill import soft_targets
from rt_eeg.errors import RtEegError
from rt_eeg.train_config import TrainConfig

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def test_soft_targets_mix_label_and_teacher():
    y = np.array([0.0, 1.0, 1.0, 0.0], np.float32)
    t = np.array([0.2, 0.6, 1.0, 0.0], np.float32)
    got = soft_targets(y, t, 0.25)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [0.05, 0.9, 1.0, 0.0], rtol=0, atol=1e-7)
    np.testing.assert_array_equal(soft_targets(y, t, 1.0), t)


def test_soft_targets_mix_only_the_rows_chosen():
    """Seizure rows only: background targets stay 0; background rows only: a seizure's target
    stays 1 whatever the teachers say (the student's scale is not capped under their mean)."""
    y = np.array([0.0, 1.0, 1.0, 0.0], np.float32)
    t = np.array([0.2, 0.6, 1.0, 0.8], np.float32)
    np.testing.assert_allclose(soft_targets(y, t, 0.5, "seizure"), [0.0, 0.8, 1.0, 0.0], rtol=0, atol=1e-7)
    np.testing.assert_allclose(soft_targets(y, t, 0.5, "background"), [0.1, 1.0, 1.0, 0.4], rtol=0, atol=1e-7)
    np.testing.assert_array_equal(soft_targets(y, t, 0.5, "all"), soft_targets(y, t, 0.5))
    with pytest.raises(RtEegError, match="distill_rows must be one of all, seizure, background"):
        soft_targets(y, t, 0.5, "both")


def test_teachers_read_the_students_inputs_at_their_own_scale(store_and_recs, tmp_path):
    """A context teacher's feature scale is not the student's (each drawn with its seed; here
    the student's is set 30 % apart): fed the student's batch, its first layer folded by the
    ratio, it scores what it scores on its own inputs; two teachers give the mean of the two."""
    import json

    from rt_eeg.decoder import model_width
    from rt_eeg.decoder.model import load_model
    from rt_eeg.distill import load_teacher
    from rt_eeg.train_data import model_inputs

    store, _ = store_and_recs
    teachers = [tmp_path / f"t{s}" for s in (1, 2)]
    for s, path in zip((1, 2), teachers, strict=True):
        fit(store, path, seed=s, normalisation="context", **TINY)
    scales = [np.asarray(json.loads((p / "manifest.json").read_text())["decoder"]["context"]["feature_scale"],
                         np.float32) for p in teachers]  # fmt: skip
    student_scale = scales[0] * np.float32(1.3)
    rows = store.rows("dev")[:64]
    width = model_width("context", store.n_features)
    x_student, _ = model_inputs(store, rows, "context", student_scale)
    own = []
    for path, scale in zip(teachers, scales, strict=True):
        _, infer = load_model(path / "model.keras", "/CPU:0")
        own.append(infer(model_inputs(store, rows, "context", scale)[0]))
    one, _ = load_teacher([teachers[1]], student_scale, "context", store.n_features, width, "/CPU:0")
    np.testing.assert_allclose(one(x_student), own[1], rtol=0, atol=2e-5)
    both, shas = load_teacher(teachers, student_scale, "context", store.n_features, width, "/CPU:0")
    np.testing.assert_allclose(both(x_student), (own[0] + own[1]) / 2, rtol=0, atol=2e-5)
    assert len(shas) == 2 and all(len(s) == 64 for s in shas)
    with pytest.raises(RtEegError, match="trained on 'context' inputs, the student on 'maxabs'"):
        load_teacher([teachers[0]], None, "maxabs", store.n_features, width, "/CPU:0")


def test_distilled_training_is_reproducible_moves_the_weights_and_is_recorded(store_and_recs, tmp_path):
    store, _ = store_and_recs
    fit(store, tmp_path / "teacher", seed=3, normalisation="context", **TINY)
    cfg = dict(seed=4, normalisation="context", **TINY)
    runs = {name: fit(store, tmp_path / name, distill_from=(str(tmp_path / "teacher"),), distill_weight=0.5, **cfg)
            for name in ("a", "b")}  # fmt: skip
    plain = fit(store, tmp_path / "plain", **cfg)
    bckg = fit(store, tmp_path / "bckg", distill_from=(str(tmp_path / "teacher"),), distill_weight=0.5,
               distill_rows="background", **cfg)  # fmt: skip
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    assert runs["a"]["weights_sha256"] != plain["weights_sha256"]
    assert bckg["weights_sha256"] not in (plain["weights_sha256"], runs["a"]["weights_sha256"])
    d = runs["a"]["distillation"]
    assert d["teachers"] == [str(tmp_path / "teacher")] and d["weight"] == 0.5 and d["rows"] == "all"
    assert bckg["distillation"]["rows"] == "background"
    assert len(d["weights_sha256"]) == 1 and "distillation" not in plain


@pytest.mark.parametrize("kw, message", [
    (dict(distill_from=("m",)), "distill_from and distill_weight go together"),
    (dict(distill_weight=0.5), "distill_from and distill_weight go together"),
    (dict(distill_from=("m",), distill_weight=1.5), "distill_weight must be in"),
    (dict(distill_from=("m",), distill_weight=0.5, label_smoothing=0.1), "soft targets are not for"),
    (dict(distill_from=("m",), distill_weight=0.5, distill_rows="ictal"), "distill_rows must be one of"),
    (dict(distill_rows="seizure"), "distill_rows needs teachers"),
])  # fmt: skip
def test_bad_distillation_settings_are_refused(kw, message):
    with pytest.raises(RtEegError, match=message):
        TrainConfig(**kw)


def test_a_folder_that_is_not_a_model_is_refused_as_a_teacher(tmp_path):
    from rt_eeg.distill import teacher_manifests

    (tmp_path / "x").mkdir()
    with pytest.raises(RtEegError, match="has no model.keras"):
        teacher_manifests([tmp_path / "x"])
    with pytest.raises(RtEegError, match="at least one teacher"):
        teacher_manifests([])
