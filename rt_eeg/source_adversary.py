"""Domain-adversarial training over the training sources (``TrainConfig.source_adversary``).

The decoder trains on several generators of EEG (our simulator's families and independently
written ones) and is judged on generators it never saw. Whatever in its summary of a window
says *which generator made it* is useless there at best, and a false alarm at worst. Here a
small head learns to name the source of each training window from the LSTM's last output; the
gradient reaching the LSTM through it is reversed (Ganin et al. 2016, DANN), so the decoder is
pushed to summarise windows in a way the sources share, while the seizure loss keeps what
tells seizure from background.

The sources are balanced in every epoch (``balance_sources``: equal seizure and background
shares per source), so the label mix is the same in each and a source-invariant summary does
not have to give up the seizure/background split. The head is not part of the saved model:
inference, streaming and the model files are unchanged.

Judged as K51 (pilot 91, strength 0.3): the decoder's seizure summaries became much less
generator-specific (``tools/source_probe.py``: 37-40 % against 61-62 %), its dev ranking held,
but the top of its score range flattened and the unseen generators' sensitivity at the
operating point fell by 13-15 points. Off by default.
"""

from __future__ import annotations

import math

import numpy as np

#: The head's hidden layer.
HEAD_UNITS = 32


def reversal_strength(progress: float, top: float) -> float:
    """DANN's schedule: ``top * (2 / (1 + exp(-10 p)) - 1)``, 0 at the start, ``top`` at the end.

    Parameters
    ----------
    progress : float
        Fraction of training done, in [0, 1].
    top : float
        The strength at the end of training.
    """
    p = min(max(float(progress), 0.0), 1.0)
    return float(top) * (2.0 / (1.0 + math.exp(-10.0 * p)) - 1.0)


def gradient_reversal(tf):
    """``rev(x, lam)``: the identity forward; backward, the gradient times ``-lam``."""

    @tf.custom_gradient
    def rev(x, lam):
        def grad(dy):
            return -lam * dy, tf.zeros_like(lam)

        return tf.identity(x), grad

    return rev


def build_head(keras, n_in: int, n_sources: int, seed: int):
    """The source classifier: ``(batch, n_in)`` -> ``(batch, n_sources)`` logits, seeded."""
    init = keras.initializers
    return keras.Sequential(
        [
            keras.Input(shape=(n_in,), dtype="float32"),
            keras.layers.Dense(
                HEAD_UNITS, activation="relu",
                kernel_initializer=init.GlorotUniform(seed=seed * 1000 + 7),
            ),
            keras.layers.Dense(n_sources, kernel_initializer=init.GlorotUniform(seed=seed * 1000 + 8)),
        ],
        name="source_head",
    )  # fmt: skip


def adversarial_step(tf, keras, model, main_loss, opt, n_sources: int, seed: int, width: int):
    """A training step with the source head beside the decoder.

    Parameters
    ----------
    tf, keras : modules
    model : keras.Model
        The decoder; its layer ``'lstm'`` is the summary the head reads.
    main_loss : callable
        ``(y, p) -> scalar``: the decoder's own loss (plain, focal or hinge).
    opt : keras optimizer
        The decoder's optimizer (the head has its own Adam).
    n_sources, seed, width : int
        Sources to tell apart, the training seed, the inputs' feature width.

    Returns
    -------
    step : callable
        ``step(x, y, s, lam) -> (loss, head_loss, head_accuracy)`` with ``x`` of shape
        ``(batch, frames, width)``, ``y`` ``(batch,)`` float32, ``s`` ``(batch,)`` int32
        source indices and ``lam`` the reversal's strength; ``loss`` is the decoder's own.
    """
    summary = model.get_layer("lstm").output
    both = keras.Model(model.inputs, [model.output, summary], name="decoder_and_summary")
    head = build_head(keras, int(summary.shape[-1]), n_sources, seed)
    head_opt = keras.optimizers.Adam(learning_rate=1e-3)
    head_opt.build(head.trainable_variables)
    rev = gradient_reversal(tf)
    mine, theirs = model.trainable_variables, head.trainable_variables

    @tf.function(
        input_signature=[
            tf.TensorSpec([None, model.input_shape[1], width], tf.float32),
            tf.TensorSpec([None], tf.float32),
            tf.TensorSpec([None], tf.int32),
            tf.TensorSpec([], tf.float32),
        ],
        autograph=False,
    )
    def step(x, y, s, lam):
        with tf.GradientTape() as tape:
            p, h = both(x, training=True)
            loss = main_loss(y, tf.reshape(p, [-1]))
            logits = head(rev(h, lam), training=True)
            head_loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=s, logits=logits)
            )
            total = loss + head_loss
        grads = tape.gradient(total, mine + theirs)
        opt.apply_gradients(zip(grads[: len(mine)], mine, strict=True))
        head_opt.apply_gradients(zip(grads[len(mine) :], theirs, strict=True))
        hit = tf.cast(tf.equal(tf.argmax(logits, axis=-1, output_type=tf.int32), s), tf.float32)
        return loss, head_loss, tf.reduce_mean(hit)

    return step


def epoch_summary(records: list[tuple[float, float, int]], lam: float) -> dict:
    """The head's mean loss and accuracy over an epoch's batches (weighted by batch size).

    Parameters
    ----------
    records : list of (head_loss, head_accuracy, batch_size)
    lam : float
        The reversal's strength at the epoch's end.
    """
    r = np.asarray(records, dtype=np.float64).reshape(-1, 3)
    n = max(r[:, 2].sum(), 1.0)
    return {
        "head_loss": round(float((r[:, 0] * r[:, 2]).sum() / n), 4),
        "head_accuracy": round(float((r[:, 1] * r[:, 2]).sum() / n), 4),
        "reversal": round(float(lam), 4),
    }
