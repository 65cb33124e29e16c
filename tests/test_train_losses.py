"""Training objectives: label smoothing, the background focal and hinge losses."""

from __future__ import annotations

import numpy as np
import pytest
from train_helpers import TINY, fit, weights

from rt_eeg.decoder import WINDOW_FRAMES
from rt_eeg.errors import RtEegError
from rt_eeg.train_config import TrainConfig

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def test_label_smoothing_reaches_the_loss_and_is_folded_into_the_output(store_and_recs, tmp_path):
    """label_smoothing=eps trains against eps/2 and 1-eps/2 (no training loss can fall below
    the binary entropy of eps/2), and the exported model's output logit is the trained one times
    smoothing_logit_scale(eps): a monotone fold, so the dev AUC of the last epoch is kept while
    the dev cross-entropy, scored on the folded outputs, changes."""
    import math

    from rt_eeg.train_config import smoothing_logit_scale

    store, _ = store_and_recs
    eps = 0.4
    quick = dict(TINY, learning_rate=0.03)  # fast enough that a 0/1 target's loss drops below
    runs = {
        name: fit(
            store,
            tmp_path / name,
            seed=8,
            keep="last",
            label_smoothing=ls,
            smoothed_top=top,
            **quick,
        )
        for name, ls, top in (
            ("plain", 0.0, 0.9998),
            ("smooth", eps, 0.9998),
            ("again", eps, 0.9998),
            ("middle", eps, 0.995),
        )
    }
    plain, smooth = runs["plain"], runs["smooth"]
    floor = -(eps / 2 * math.log(eps / 2) + (1 - eps / 2) * math.log(1 - eps / 2))  # 0.5004
    assert min(h["train_loss"] for h in smooth["history"]) >= floor - 1e-4
    assert min(h["train_loss"] for h in plain["history"]) < floor  # the bound is not vacuous
    assert smooth["label_smoothing"]["logit_scale"] == pytest.approx(smoothing_logit_scale(eps))
    assert smooth["label_smoothing"]["eps"] == eps and "label_smoothing" not in plain
    assert smooth["train_config"]["label_smoothing"] == eps
    assert smooth["weights_sha256"] == runs["again"]["weights_sha256"] != plain["weights_sha256"]
    # another fold target: the same trained weights but the output layer's, scaled by the ratio
    mid = runs["middle"]
    assert mid["label_smoothing"]["smoothed_top"] == 0.995
    assert mid["label_smoothing"]["logit_scale"] == pytest.approx(smoothing_logit_scale(eps, 0.995))
    w_top, w_mid = weights(tmp_path / "smooth"), weights(tmp_path / "middle")
    for a, b in zip(w_top[:-2], w_mid[:-2], strict=True):
        np.testing.assert_array_equal(a, b)
    ratio = smoothing_logit_scale(eps) / smoothing_logit_scale(eps, 0.995)
    for a, b in zip(w_top[-2:], w_mid[-2:], strict=True):  # the output layer's kernel and bias
        np.testing.assert_allclose(a, b * ratio, rtol=1e-5, atol=1e-6)
    last = smooth["history"][-1]
    assert smooth["dev_scores"]["auc"] == pytest.approx(last["dev_auc"], abs=1e-6)
    assert smooth["dev_scores"]["balanced_bce"] != pytest.approx(last["dev_balanced_bce"])
    # the fold sits in the saved model's output layer alone: undoing it gives the unfolded
    # model's probabilities, bounded away from 0/1 as the smoothed targets are
    import keras

    model = keras.saving.load_model(tmp_path / "smooth" / "model.keras", compile=False)
    k = smoothing_logit_scale(eps)
    x = np.random.default_rng(0).normal(size=(64, WINDOW_FRAMES, store.n_features))
    x = x.astype(np.float32)
    p = model.predict(x, verbose=0).ravel().astype(np.float64)
    kernel, bias = model.get_layer("p_seiz").get_weights()
    model.get_layer("p_seiz").set_weights([kernel / np.float32(k), bias / np.float32(k)])
    q = model.predict(x, verbose=0).ravel().astype(np.float64)
    logit = lambda v: np.log(v / (1 - v))  # noqa: E731
    np.testing.assert_allclose(logit(p), k * logit(q), rtol=1e-3, atol=1e-3)
    with pytest.raises(RtEegError, match="label_smoothing"):
        TrainConfig(label_smoothing=0.5)
    with pytest.raises(RtEegError, match="smoothed_top"):
        TrainConfig(label_smoothing=0.1, smoothed_top=1.0)
    with pytest.raises(RtEegError, match="needs label_smoothing"):
        TrainConfig(smoothed_top=0.995)
    with pytest.raises(RtEegError, match="frame_lstm_veto"):
        TrainConfig(arch="frame_lstm_veto", normalisation="context_history", label_smoothing=0.1,
                    init_from="x")  # fmt: skip


def test_background_focal_loss_weighs_the_background_scored_highest():
    """The focal loss is Keras' cross-entropy when gamma is ~0; with gamma = 1 the background's
    weights are p / mean(p) over the batch's background, so the two classes keep their shares
    and a background sample at 0.9 pulls its logit down 9x harder than one at 0.1 (relative
    to the plain loss), while seizure samples' gradients are untouched."""
    import keras
    import tensorflow as tf

    from rt_eeg.train_losses import background_focal_loss

    y = tf.constant([1, 1, 0, 0, 0, 0], tf.float32)
    p = tf.constant([0.7, 0.95, 0.1, 0.1, 0.5, 0.9], tf.float32)
    plain = float(keras.losses.BinaryCrossentropy()(y, p))
    assert float(background_focal_loss(tf, 1e-9)(y, p)) == pytest.approx(plain, rel=1e-5)
    yn, pn = y.numpy().astype(np.float64), p.numpy().astype(np.float64)
    bce = -(yn * np.log(pn) + (1 - yn) * np.log(1 - pn))
    w = np.where(yn == 1, 1.0, pn / pn[yn == 0].mean())
    assert w[yn == 0].mean() == pytest.approx(1.0)
    assert float(background_focal_loss(tf, 1.0)(y, p)) == pytest.approx((w * bce).mean(), rel=1e-5)
    logit = tf.Variable(np.log(pn / (1 - pn)).astype(np.float32))
    grads = {}
    for name, fn in (("plain", keras.losses.BinaryCrossentropy()),
                     ("focal", background_focal_loss(tf, 1.0))):  # fmt: skip
        with tf.GradientTape() as tape:
            loss = fn(y, tf.sigmoid(logit))
        grads[name] = tape.gradient(loss, logit).numpy()
    ratio = grads["focal"] / grads["plain"]
    np.testing.assert_allclose(ratio[:2], 1.0, rtol=1e-4)  # seizure samples untouched
    assert ratio[5] / ratio[2] == pytest.approx(9.0, rel=1e-3)
    np.testing.assert_allclose(ratio[2:], w[2:], rtol=1e-4)


@pytest.mark.parametrize("field, value", [("background_focal", 1.0), ("background_hinge", 0.6)])
def test_background_loss_training_is_reproducible_and_recorded(store_and_recs, tmp_path, field,
                                                                value):  # fmt: skip
    """A background loss (focal weighting, hinge) trains bit-identically for a seed, differs
    from the plain loss and is recorded in the manifest."""

    store, _ = store_and_recs
    runs = {
        name: fit(store, tmp_path / name, seed=6, **{field: v}, **TINY)
        for name, v in (("a", value), ("b", value), ("plain", 0.0))
    }
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    assert runs["a"]["weights_sha256"] != runs["plain"]["weights_sha256"]
    assert runs["a"]["train_config"][field] == value
    assert runs["plain"]["train_config"][field] == 0.0


def test_background_losses_refuse_bad_values_and_combinations():
    """The focal weighting and the hinge refuse values out of range and what they cannot be
    combined with, each in one line naming the setting."""
    with pytest.raises(RtEegError, match="background_focal must be"):
        TrainConfig(background_focal=-1.0)
    with pytest.raises(RtEegError, match="label_smoothing"):
        TrainConfig(background_focal=1.0, label_smoothing=0.1)
    for bad in (0.3, 1.0):
        with pytest.raises(RtEegError, match="background_hinge must be"):
            TrainConfig(background_hinge=bad)
    with pytest.raises(RtEegError, match="hinge_weight must be"):
        TrainConfig(background_hinge=0.99, hinge_weight=0.0)
    for other in ({"label_smoothing": 0.1}, {"background_focal": 1.0}):
        with pytest.raises(RtEegError, match="not with label_smoothing, background_focal"):
            TrainConfig(background_hinge=0.99, **other)
    assert TrainConfig(background_hinge=0.99).hinge_weight == 1.0


def _logit_grads(tf, losses: dict, y, logit) -> dict:
    """Each named loss's gradient with respect to the output logits ``logit`` (a Variable)."""
    grads = {}
    for name, fn in losses.items():
        with tf.GradientTape() as tape:
            loss = fn(y, tf.sigmoid(logit))
        grads[name] = tape.gradient(loss, logit).numpy()
    return grads


def test_background_hinge_loss_pulls_only_the_background_above_its_level():
    """The hinge loss is Keras' cross-entropy while every background sample is at or below
    the level; above it, it adds weight * relu(z - logit(level))**2 per background sample
    (numpy check), and only those samples' gradients change: seizure samples scored above
    the level, and background below it, keep the plain gradient exactly."""
    import keras
    import tensorflow as tf

    from rt_eeg.train_losses import background_hinge_loss

    plain = keras.losses.BinaryCrossentropy()
    hinge = background_hinge_loss(tf, 0.99, 1.0)
    y = tf.constant([1, 1, 0, 0, 0, 0], tf.float32)
    low = tf.constant([0.7, 0.9999, 0.1, 0.5, 0.9, 0.985], tf.float32)
    assert float(hinge(y, low)) == pytest.approx(float(plain(y, low)), rel=1e-6)
    z = np.array([0.8, 9.0, -2.0, 0.0, 6.0, 9.0])  # background 6.0 and 9.0 over logit(0.99)
    logit = tf.Variable(z.astype(np.float32))
    over = np.maximum(z - np.log(99.0), 0.0) * (np.arange(6) >= 2)
    p = tf.sigmoid(logit)
    assert float(hinge(y, p)) == pytest.approx(float(plain(y, p)) + (over**2).mean(), rel=1e-4)
    grads = _logit_grads(tf, {"plain": plain, "hinge": hinge}, y, logit)
    extra = grads["hinge"] - grads["plain"]
    np.testing.assert_allclose(extra[:4], 0.0, atol=1e-7)  # seizures; background below level
    np.testing.assert_allclose(extra[4:], 2 * over[4:] / 6, rtol=1e-3)
    # at the grid's top (0.9998) one background sample's pull is ~9x the cross-entropy's
    top = tf.Variable(np.array([np.log(0.9998 / 0.0002)], np.float32))
    pulls = []
    for fn in (plain, hinge):
        with tf.GradientTape() as tape:
            loss = fn(tf.constant([0.0]), tf.sigmoid(top))
        pulls.append(float(tape.gradient(loss, top)[0]))
    assert pulls[1] / pulls[0] == pytest.approx(8.8, abs=0.1)


def test_background_hinge_option_parses_level_and_weight():
    """``--background-hinge LEVEL[:WEIGHT]`` reaches TrainConfig; a malformed one is a usage
    error naming what was expected."""
    import argparse

    from rt_eeg.commands.train import _hinge_spec

    assert _hinge_spec("0.99") == (0.99, 1.0)
    assert _hinge_spec("0.995:0.5") == (0.995, 0.5)
    for bad in ("x", "0.99:1:2", "0.99:"):
        with pytest.raises(argparse.ArgumentTypeError, match="LEVEL\\[:WEIGHT\\]"):
            _hinge_spec(bad)


def test_train_command_default_smoothed_top_is_the_configs():
    """``--smoothed-top``'s default is spelt out in the command (importing train_config there
    costs every command start-up time); it must stay the config's :data:`SMOOTHED_TOP`."""
    import argparse

    from rt_eeg.commands.train import add_arguments
    from rt_eeg.train_config import SMOOTHED_TOP

    p = argparse.ArgumentParser()
    add_arguments(p)
    top = next(a for a in p._actions if a.dest == "smoothed_top")
    assert top.default == SMOOTHED_TOP == TrainConfig().smoothed_top


def test_seizure_hinge_pulls_only_the_seizures_under_its_level():
    """margin_hinge_loss is the background hinge's loss exactly while every seizure sample is at
    or above the seizure level; under it, it adds seizure_weight * relu(logit(level) - z)**2 per
    seizure sample (numpy check), and only those samples' gradients change."""
    import tensorflow as tf

    from rt_eeg.train_losses import background_hinge_loss, margin_hinge_loss

    bg = background_hinge_loss(tf, 0.99, 1.0)
    both = margin_hinge_loss(tf, 0.99, 1.0, 0.995, 0.1)
    y = tf.constant([1, 1, 1, 0, 0, 0], tf.float32)
    high = tf.constant([0.996, 0.9999, 0.999, 0.1, 0.5, 0.9995], tf.float32)
    assert float(both(y, high)) == pytest.approx(float(bg(y, high)), rel=1e-6)
    z = np.array([0.0, 3.0, 9.0, -2.0, 2.0, 8.0])  # seizures 0.0 and 3.0 under logit(0.995)
    logit = tf.Variable(z.astype(np.float32))
    under = np.maximum(np.log(199.0) - z, 0.0) * (np.arange(6) < 3)
    p = tf.sigmoid(logit)
    assert float(both(y, p)) == pytest.approx(float(bg(y, p)) + 0.1 * (under**2).mean(), rel=1e-4)
    grads = _logit_grads(tf, {"bg": bg, "both": both}, y, logit)
    extra = grads["both"] - grads["bg"]
    np.testing.assert_allclose(extra[2:], 0.0, atol=1e-7)  # a seizure above; the background
    np.testing.assert_allclose(extra[:2], -2 * 0.1 * under[:2] / 6, rtol=1e-3)


def test_seizure_hinge_training_is_reproducible_recorded_and_refused_alone(store_and_recs, tmp_path):
    """The seizure hinge trains bit-identically for a seed, differs from the background hinge
    alone, is recorded; it needs the background hinge at or under its level, and parses as
    ``--seizure-hinge LEVEL[:WEIGHT]`` with weight 0.1 by default."""
    import argparse

    from rt_eeg.commands.train import add_arguments

    store, _ = store_and_recs
    kw = dict(seed=6, background_hinge=0.6, **TINY)
    runs = {name: fit(store, tmp_path / name, seizure_hinge=lvl, **kw)
            for name, lvl in (("a", 0.9), ("b", 0.9), ("bg", 0.0))}  # fmt: skip
    assert runs["a"]["weights_sha256"] == runs["b"]["weights_sha256"]
    assert runs["a"]["weights_sha256"] != runs["bg"]["weights_sha256"]
    assert runs["a"]["train_config"]["seizure_hinge"] == 0.9
    assert runs["a"]["train_config"]["seizure_hinge_weight"] == 0.1
    for bad in ({"seizure_hinge": 0.995},  # no background hinge
                {"seizure_hinge": 0.98, "background_hinge": 0.99},  # under it
                {"seizure_hinge": 1.0, "background_hinge": 0.99}):  # fmt: skip
        with pytest.raises(RtEegError, match="seizure_hinge must be"):
            TrainConfig(**bad)
    with pytest.raises(RtEegError, match="seizure_hinge_weight must be"):
        TrainConfig(background_hinge=0.99, seizure_hinge=0.995, seizure_hinge_weight=0.0)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    options = {a.dest: a for a in parser._actions}
    assert options["seizure_hinge"].default == (0.0, TrainConfig().seizure_hinge_weight)
    assert options["seizure_hinge"].type("0.995") == (0.995, 0.1)
    assert options["seizure_hinge"].type("0.995:0.5") == (0.995, 0.5)
