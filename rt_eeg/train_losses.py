"""The training losses beside Keras' binary cross-entropy (``TrainConfig.background_focal``,
``TrainConfig.background_hinge`` and its seizure-side mirror ``TrainConfig.seizure_hinge``), each
a function of ``y, p`` built around a TensorFlow module.

Targets may be soft (:mod:`rt_eeg.distill`): both losses read ``1 - y`` as a sample's background
share.
"""

from __future__ import annotations

import numpy as np


def background_focal_loss(tf, gamma: float):
    """The batch loss of ``TrainConfig.background_focal``: binary cross-entropy whose
    background terms are weighted by ``p ** gamma`` (no gradient through the weight) and
    normalised to mean 1 over the batch's background; seizure terms keep weight 1.

    Returns a function of ``y, p`` (shape ``(batch,)`` each, float32) -> scalar. Probabilities
    are clipped as Keras' cross-entropy clips them (1e-7), so a batch without background, or
    ``gamma`` near 0, gives Keras' mean binary cross-entropy.
    """
    eps = 1e-7

    def loss(y, p):
        q = tf.clip_by_value(p, eps, 1.0 - eps)
        bce = -(y * tf.math.log(q) + (1.0 - y) * tf.math.log(1.0 - q))
        neg = 1.0 - y
        w = tf.stop_gradient(tf.pow(q, gamma)) * neg
        w = w * (tf.reduce_sum(neg) / tf.maximum(tf.reduce_sum(w), eps))
        return tf.reduce_mean((y + w) * bce)

    return loss


def background_hinge_loss(tf, level: float, weight: float):
    """The batch loss of ``TrainConfig.background_hinge``: Keras' binary cross-entropy plus
    ``weight * mean((1 - y) * relu(z - logit(level)) ** 2)``, ``z`` the logit of the clipped
    probability.

    Returns a function of ``y, p`` (shape ``(batch,)`` each, float32) -> scalar. Below the
    level the loss is Keras' exactly; above it a background logit's gradient is the
    cross-entropy's (``p``) plus ``2 * weight * (z - logit(level)) / batch``, so the pull grows
    with the distance above the level where the cross-entropy's saturates.
    """
    import keras

    z0 = float(np.log(level / (1.0 - level)))
    bce = keras.losses.BinaryCrossentropy()

    def loss(y, p):
        over = tf.nn.relu(_clipped_logit(tf, p) - z0)
        return bce(y, p) + weight * tf.reduce_mean((1.0 - y) * over * over)

    return loss


def _clipped_logit(tf, p):
    """The logit of ``p`` clipped as Keras' cross-entropy clips it (1e-7)."""
    eps = 1e-7
    q = tf.clip_by_value(p, eps, 1.0 - eps)
    return tf.math.log(q) - tf.math.log(1.0 - q)


def margin_hinge_loss(tf, level: float, weight: float, seizure_level: float, seizure_weight: float):
    """:func:`background_hinge_loss` plus its mirror on the seizure side
    (``TrainConfig.seizure_hinge``): ``seizure_weight * mean(y * relu(logit(seizure_level) -
    z) ** 2)``. Between the two levels both classes keep the plain cross-entropy; a seizure
    logit under ``seizure_level`` is pulled up by ``2 * seizure_weight * (logit(level) - z) /
    batch`` beside the cross-entropy's ``1 - p``.

    Returns a function of ``y, p`` (shape ``(batch,)`` each, float32) -> scalar.
    """
    background = background_hinge_loss(tf, level, weight)
    z1 = float(np.log(seizure_level / (1.0 - seizure_level)))

    def loss(y, p):
        under = tf.nn.relu(z1 - _clipped_logit(tf, p))
        return background(y, p) + seizure_weight * tf.reduce_mean(y * under * under)

    return loss
