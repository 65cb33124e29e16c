"""The hyper-parameters of one training run (:class:`TrainConfig`), checked when made.

Every field is recorded in the trained model's manifest (``train_config``); the training
loop itself is :func:`rt_eeg.train.train_from_store`.
"""

from __future__ import annotations

import dataclasses
import math

from rt_eeg.augment import WARP_ON
from rt_eeg.decoder import (
    ARCHITECTURES,
    CONTEXT_NORMALISATIONS,
    HISTORY_NORMALISATIONS,
    NORMALISATIONS,
)
from rt_eeg.distill import DISTILL_ROWS
from rt_eeg.errors import RtEegError

#: Where a label-smoothed model's seizure target lands after the logit fold, by default: the
#: top of the operating-point grid (``tools/operating_point.py``'s 0.98-0.9998; amendment 58).
SMOOTHED_TOP = 0.9998


def smoothing_logit_scale(eps: float, top: float = SMOOTHED_TOP) -> float:
    """The factor a model trained with label smoothing ``eps`` has its output logit multiplied
    by: ``logit(top) / logit(1 - eps / 2)`` (2.893 at ``eps = 0.1``, 1.798 with ``top = 0.995``).

    Examples
    --------
    >>> round(smoothing_logit_scale(0.1), 3), round(smoothing_logit_scale(0.1, 0.995), 3)
    (2.893, 1.798)
    """
    if not 0.0 < eps < 0.5:
        raise RtEegError(f"label smoothing must be in (0, 0.5), got {eps}")
    if not 0.5 < top < 1.0:
        raise RtEegError(f"smoothed_top must be in (0.5, 1), got {top}")
    target = 1.0 - eps / 2.0
    return math.log(top / (1.0 - top)) / math.log(target / (1.0 - target))


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of one training run (all recorded in the manifest).

    Attributes
    ----------
    arch : str
        ``'epoch_lstm'``, ``'frame_lstm'`` or ``'frame_lstm_veto'`` (see
        :func:`rt_eeg.decoder.build_model`).
    units, dense_units : int
        LSTM units; per-epoch projection width.
    dropout : float
        Dropout after the projection and after the LSTM (seeded).
    normalisation : str
        Window normalisation, ``'maxabs'`` (as the reference online system) or ``'zscore'``.
    epochs : int
        Maximum training epochs (passes of ``samples_per_epoch`` balanced samples).
    batch_size : int
    learning_rate : float
        Adam, gradient norm clipped to 1.
    patience : int
        Early stopping: epochs without a lower dev loss before stopping; best weights kept.
    samples_per_epoch : int
        Samples per training epoch, half seizure and half background (seizure samples are
        repeated when there are fewer than half).
    max_dev_samples : int
        Dev samples scored per epoch: every seizure sample plus background samples drawn once
        (seeded) up to this total; the loss is class-balanced so the draw does not bias it.
    seed : int
    threads : int
        TensorFlow intra- and inter-op threads (0: TensorFlow's default).
    onset_weight : float
        How much more often a seizure sample from the first ``onset_epochs`` seconds of a
        seizure (on its channel) is drawn than a later one: early detection is learnt from
        onsets, which are a small minority of seizure epochs.
    onset_epochs : int
        Seizure epochs counted as the onset.
    seizure_balance : float
        Exponent ``a`` of a draw weight ``L ** -a`` on every seizure sample, ``L`` the length
        in epochs of its run of seizure epochs on that channel. Scoring counts seizures, not
        seconds, yet a 10 s seizure gives a tenth of a 100 s one's samples; ``a = 1`` draws
        every run equally often in total, 0 (default) in proportion to its length. Multiplies
        the onset weight.
    hard_negatives : float
        Share of each epoch's background half drawn from the hardest background (highest
        current P(seizure)) of a random candidate pool, from the second epoch on
        (:mod:`rt_eeg.hard_negatives`); 0 disables mining.
    hard_pool : int
        Candidates scored per mined sample.
    hard_margin_epochs : int
        Background within this many epochs of a seizure of the same recording is never mined.
    seizure_mix : float
        Training-time augmentation (:func:`rt_eeg.augment.mix_seizures`): each seizure sample of
        a batch is, with this probability, replaced by a convex mix of itself and another
        seizure sample of the batch (its own share ``U(0.25, 0.75)``), so the decoder sees
        seizure morphologies between its generators'. Background is never mixed; 0 disables it.
    contrast_jitter : float
        Training-time augmentation of the context inputs (context normalisations only): each
        training sample's background-relative features are multiplied by ``exp(u)``,
        ``u ~ U(-contrast_jitter, contrast_jitter)`` (seeded per epoch and batch). How far a
        seizure stands out from the patient's background differs between patients, amplifiers
        and generators; jittering it makes the model read the shape of a departure rather than
        its size. Dev scores, mining and inference see the inputs unchanged; 0 disables it.
    stale_context : float
        Training-time augmentation (context normalisations only): the probability that a
        background sample's centre is replaced by its channel's centre 1-20 min earlier
        (:func:`rt_eeg.augment.stale_centers`), as a patient who changed state is read
        live against the old state's background; 0 disables it.
    freq_warp : float
        Training-time augmentation (context normalisations only): each training sample's
        spectrum is moved along frequency by ``alpha = exp(u)``, ``u ~ U(-freq_warp,
        freq_warp)`` (:func:`rt_eeg.augment.warp_frequency`: an exact linear map of the
        cepstra, their deltas and accelerations), so where a rhythm sits does not make a
        seizure; 0 disables it.
    freq_warp_on : str
        Which samples the warp moves: ``'all'``, ``'background'`` (label 0 only: a background
        rhythm moved in frequency is still background, seizures stay as recorded) or
        ``'seizure'``.
    balance_sources : tuple of str
        Training domains, each a ``+``-joined group of top-level corpus folders (``('folders',)``:
        every folder its own): each epoch's seizure half and background half are then split
        equally between them, so a large corpus of one generator does not teach its seizures
        as *the* seizures (:func:`rt_eeg.train_data.source_balanced_half`); hard-negative
        mining replaces its share afterwards, from every source. Empty: rows are drawn from
        the whole training split, in proportion to its composition.
    balance_halves : str
        ``'both'``: ``balance_sources`` splits the seizure and the background half;
        ``'seizure'``: only the seizure half, the background drawn in proportion (the largest
        source's sleep, waking and artifacts stay most of what background is).
    balance_mining : bool
        With ``balance_sources`` and mining: the hard-negative candidate pool is drawn equally
        from each source's minable background (:func:`rt_eeg.hard_negatives.balanced_candidates`)
        instead of from the whole pool, so every source's hardest background can be mined
        (no effect without mining).
    source_dro : float
        With ``balance_sources``: online group DRO over the sources (Sagawa et al. 2020, by
        sampling). After every epoch each source's balanced cross-entropy on a fixed probe of its
        own training rows multiplies its share of the next epoch's draws by ``exp(source_dro *
        loss)`` (shares renormalised, none below half an equal share), so the generators the model
        fits worst are drawn more; both halves follow the shares, mining is unchanged. 0 (off):
        equal shares every epoch.
    source_adversary : float
        With ``balance_sources``: domain-adversarial training (Ganin et al. 2016). A small head
        (not saved with the model) learns to tell the sources apart from the LSTM's last
        output, through a gradient reversal, so the decoder is pushed towards a summary of
        the window the generators share. The reversal's strength rises over training from 0
        to this value on DANN's schedule, ``2 / (1 + exp(-10 p)) - 1`` at progress ``p``. 0:
        off.
    keep : str
        ``'best'``: the weights of the epoch with the lowest dev loss (early stopping after
        ``patience``); ``'last'``: all ``epochs`` run and the final weights are kept (for a
        dev loss too flat or noisy to choose an epoch; it is still logged every epoch).
    average_epochs : int
        With ``keep='last'``: the weights kept are the uniform mean of the weights after every
        training step of the last ``average_epochs`` epochs (tail averaging,
        :mod:`rt_eeg.weight_average`), not the last step's; 0 disables it.
    distill_from : tuple of str
        Teacher model folders (knowledge distillation, :mod:`rt_eeg.distill`): each training
        target becomes ``(1 - distill_weight) * y + distill_weight * p_T``, ``p_T`` the
        teachers' mean P(seizure) on the same input window; () disables it.
    distill_weight : float
        The teachers' share of each target, in (0, 1] with ``distill_from`` (0 without).
    distill_rows : str
        Which rows take the teachers' share (:data:`rt_eeg.distill.DISTILL_ROWS`): ``'all'``,
        ``'seizure'`` (background targets stay 0) or ``'background'`` (seizure targets stay 1).
    label_smoothing : float
        Binary cross-entropy against targets ``eps / 2`` and ``1 - eps / 2`` instead of 0
        and 1 (0: off), so the loss stops rewarding logits pushed to the extremes on the
        training generators. The trained logit is then multiplied by
        :func:`smoothing_logit_scale` (folded into the output layer's weights), so a
        training seizure's target maps to ``smoothed_top``. The fold is monotone, but the
        decoder's context gate (:data:`rt_eeg.context.GATE`) reads the folded output, so a
        streamed decode is not the unfolded one's. Not with ``'frame_lstm_veto'`` (its output
        is a product of two sigmoids).
    smoothed_top : float
        With ``label_smoothing``: the level a training seizure's target reads after the fold.
        The default, 0.9998 (the grid's top; amendment 58), put the levels where unseen
        generators' background gives few false alarms above the grid; 0.995 (the grid's
        middle) is amendment 59's.
    background_focal : float
        Focal weighting of the background half's loss (0: off): each background sample's
        cross-entropy in a batch is weighted by ``p ** background_focal`` (its current
        P(seizure), no gradient through the weight), normalised to mean 1 over the batch's
        background, so the two classes keep their shares of the loss and the background's
        share moves onto what the model already scores highest. Seizure samples keep weight 1.
        Aims at the top of the output range, where unseen generators' background sits as high
        as seizures (amendment 66). Not with ``label_smoothing`` or ``'frame_lstm_veto'``.
    background_hinge : float
        A squared hinge on the background's logits above ``logit(background_hinge)`` (0: off;
        e.g. 0.99), added to the cross-entropy with weight ``hinge_weight``: the batch loss
        gains ``hinge_weight * mean((1 - y) * max(0, z - logit(level)) ** 2)``. Background at or
        below the level and every seizure sample keep the plain loss and gradient; above it, the
        pull on a background logit grows with its distance from the level instead of
        saturating at 1 (amendment 68). Not with ``label_smoothing``, ``background_focal`` or
        ``'frame_lstm_veto'``.
    hinge_weight : float
        The hinge's weight (with ``background_hinge``; default 1: at the grid's top, 0.9998, a
        background logit is pulled about 9x as hard as by the cross-entropy alone).
    seizure_hinge : float
        The mirror of ``background_hinge`` on the seizure side (0: off; e.g. 0.995): the batch
        loss gains ``seizure_hinge_weight * mean(y * max(0, logit(level) - z) ** 2)``, a pull on
        every seizure logit under the level that grows with its distance below it where the
        cross-entropy's fades (pilot 107: the operating points sit at 0.99-0.995, and a seizure
        is called when its scores clear them). Needs ``background_hinge`` (the two hold a
        margin between them), at a level at or above it.
    seizure_hinge_weight : float
        The seizure hinge's weight (default 0.1: seizure rows under the level far outnumber
        background rows over the background's).
    init_from : str
        ``'frame_lstm_veto'`` only, and required there: a trained ``'frame_lstm'`` model
        folder (``'context'`` inputs) whose weights become the 7 s branch, frozen, and whose
        context scale the inputs use; only the veto trains.
    veto_called : float
        ``'frame_lstm_veto'`` only: when > 0, the veto trains on the rows the frozen 7 s
        decoder calls at this level (every seizure row and a pool of background rows scored
        once; :func:`rt_eeg.hard_negatives.called_rows`) instead of the whole store; no
        further mining (``hard_negatives`` must be 0). 0: off.
    """

    arch: str = "frame_lstm"
    units: int = 32
    dense_units: int = 64
    dropout: float = 0.0
    normalisation: str = "maxabs"
    epochs: int = 20
    batch_size: int = 256
    learning_rate: float = 1e-3
    patience: int = 4
    samples_per_epoch: int = 65536
    max_dev_samples: int = 65536
    seed: int = 0
    threads: int = 0
    onset_weight: float = 1.0
    onset_epochs: int = 10
    seizure_balance: float = 0.0
    hard_negatives: float = 0.0
    hard_pool: int = 4
    hard_margin_epochs: int = 10
    seizure_mix: float = 0.0
    contrast_jitter: float = 0.0
    stale_context: float = 0.0
    freq_warp: float = 0.0
    freq_warp_on: str = "all"
    balance_sources: tuple[str, ...] = ()
    balance_halves: str = "both"
    balance_mining: bool = False
    source_dro: float = 0.0
    source_adversary: float = 0.0
    keep: str = "best"
    average_epochs: int = 0
    distill_from: tuple[str, ...] = ()
    distill_weight: float = 0.0
    distill_rows: str = "all"
    label_smoothing: float = 0.0
    smoothed_top: float = SMOOTHED_TOP
    background_focal: float = 0.0
    background_hinge: float = 0.0
    hinge_weight: float = 1.0
    seizure_hinge: float = 0.0
    seizure_hinge_weight: float = 0.1
    init_from: str = ""
    veto_called: float = 0.0

    def __post_init__(self) -> None:
        if self.arch not in ARCHITECTURES:
            raise RtEegError(f"unknown architecture {self.arch!r}; expected one of {ARCHITECTURES}")
        if self.normalisation not in NORMALISATIONS:
            raise RtEegError(
                f"unknown normalisation {self.normalisation!r}; expected {NORMALISATIONS}"
            )
        if not self.onset_weight >= 1.0:
            raise RtEegError(f"onset_weight must be >= 1, got {self.onset_weight}")
        if not 0.0 <= self.seizure_balance <= 1.0:
            raise RtEegError(f"seizure_balance must be in [0, 1], got {self.seizure_balance}")
        if not 0.0 <= self.hard_negatives <= 1.0:
            raise RtEegError(f"hard_negatives must be in [0, 1], got {self.hard_negatives}")
        if self.keep not in ("best", "last"):
            raise RtEegError(f"keep must be 'best' or 'last', got {self.keep!r}")
        if not 0.0 <= self.seizure_mix <= 1.0:
            raise RtEegError(f"seizure_mix must be in [0, 1], got {self.seizure_mix}")
        if not 0.0 <= self.contrast_jitter <= 2.0:
            raise RtEegError(f"contrast_jitter must be in [0, 2], got {self.contrast_jitter}")
        if not 0.0 <= self.stale_context <= 1.0:
            raise RtEegError(f"stale_context must be in [0, 1], got {self.stale_context}")
        if not 0.0 <= self.freq_warp <= 0.5:
            raise RtEegError(f"freq_warp must be in [0, 0.5], got {self.freq_warp}")
        if self.freq_warp_on not in WARP_ON:
            raise RtEegError(f"freq_warp_on must be one of {', '.join(WARP_ON)}, got {self.freq_warp_on!r}")
        if self.freq_warp_on != "all" and self.freq_warp == 0:
            raise RtEegError(f"freq_warp_on={self.freq_warp_on!r} needs a frequency warp (freq_warp > 0)")
        for name in ("contrast_jitter", "stale_context", "freq_warp"):
            if getattr(self, name) > 0 and self.normalisation not in CONTEXT_NORMALISATIONS:
                raise RtEegError(
                    f"{name} needs a context normalisation, not {self.normalisation!r}"
                )
        if any(not g or "," in g for g in self.balance_sources):
            raise RtEegError(f"balance_sources must be folder groups, got {self.balance_sources}")
        if self.balance_halves not in ("both", "seizure"):
            raise RtEegError(
                f"balance_halves must be 'both' or 'seizure', got {self.balance_halves!r}"
            )
        if self.balance_mining and not self.balance_sources:
            raise RtEegError("balance_mining needs balance_sources (the sources to balance)")
        if not 0.0 <= self.source_dro <= 20.0:
            raise RtEegError(f"source_dro must be in [0, 20], got {self.source_dro}")
        if self.source_dro and not self.balance_sources:
            raise RtEegError("source_dro needs balance_sources (the sources to weigh)")
        if self.source_dro and self.veto_called:
            raise RtEegError("source_dro does not apply to veto training (veto_called)")
        if not 0.0 <= self.source_adversary <= 10.0:
            raise RtEegError(f"source_adversary must be in [0, 10], got {self.source_adversary}")
        if self.source_adversary and not self.balance_sources:
            raise RtEegError("source_adversary needs balance_sources (the sources to tell apart)")
        if self.source_adversary and self.arch == "frame_lstm_veto":
            raise RtEegError("source_adversary does not apply to frame_lstm_veto (its LSTM is frozen)")
        if not 0 <= self.average_epochs <= self.epochs:
            raise RtEegError(
                f"average_epochs must be in [0, epochs={self.epochs}], got {self.average_epochs}"
            )
        if not 0.0 <= self.label_smoothing < 0.5:
            raise RtEegError(f"label_smoothing must be in [0, 0.5), got {self.label_smoothing}")
        if self.label_smoothing:
            smoothing_logit_scale(self.label_smoothing, self.smoothed_top)  # checks smoothed_top
        elif self.smoothed_top != SMOOTHED_TOP:
            raise RtEegError(
                "smoothed_top places a label-smoothed model's fold: it needs label_smoothing > 0"
            )
        if self.label_smoothing and self.arch == "frame_lstm_veto":
            raise RtEegError(
                "label_smoothing does not apply to frame_lstm_veto (its output is P_7s x v)"
            )
        if not 0.0 <= self.background_focal <= 4.0:
            raise RtEegError(f"background_focal must be in [0, 4], got {self.background_focal}")
        if self.background_focal and (self.label_smoothing or self.arch == "frame_lstm_veto"):
            raise RtEegError(
                "background_focal weighs a 0/1 cross-entropy: not with label_smoothing or "
                "frame_lstm_veto"
            )
        if not (self.background_hinge == 0.0 or 0.5 <= self.background_hinge < 1.0):
            raise RtEegError(
                f"background_hinge must be 0 (off) or a level in [0.5, 1), got "
                f"{self.background_hinge}"
            )
        if not 0.0 < self.hinge_weight <= 100.0:
            raise RtEegError(f"hinge_weight must be in (0, 100], got {self.hinge_weight}")
        if self.background_hinge and (
            self.label_smoothing or self.background_focal or self.arch == "frame_lstm_veto"
        ):
            raise RtEegError(
                "background_hinge adds to a plain 0/1 cross-entropy: not with label_smoothing, "
                "background_focal or frame_lstm_veto"
            )
        if self.seizure_hinge and not (
            self.background_hinge and self.background_hinge <= self.seizure_hinge < 1.0
        ):
            raise RtEegError(
                f"seizure_hinge must be 0 (off) or a level in [background_hinge, 1) with "
                f"background_hinge set; got {self.seizure_hinge} (background_hinge "
                f"{self.background_hinge})"
            )
        if not 0.0 < self.seizure_hinge_weight <= 100.0:
            raise RtEegError(
                f"seizure_hinge_weight must be in (0, 100], got {self.seizure_hinge_weight}"
            )
        if bool(self.distill_from) != (self.distill_weight > 0):
            raise RtEegError("distill_from and distill_weight go together (teachers and their share)")
        if not 0.0 <= self.distill_weight <= 1.0:
            raise RtEegError(f"distill_weight must be in [0, 1], got {self.distill_weight}")
        if self.distill_rows not in DISTILL_ROWS:
            raise RtEegError(f"distill_rows must be one of {', '.join(DISTILL_ROWS)}, got {self.distill_rows!r}")
        if self.distill_rows != "all" and not self.distill_from:
            raise RtEegError("distill_rows needs teachers (distill_from)")
        if self.distill_from and (self.arch == "frame_lstm_veto" or self.label_smoothing):
            raise RtEegError("distillation's soft targets are not for frame_lstm_veto or label_smoothing")
        if self.average_epochs and self.keep != "last":
            raise RtEegError(
                "average_epochs needs keep='last' (the average replaces the last weights)"
            )
        if self.arch == "frame_lstm_veto":
            if self.normalisation not in HISTORY_NORMALISATIONS:
                raise RtEegError(
                    f"frame_lstm_veto reads the 70 s history: normalisation must be one of "
                    f"{HISTORY_NORMALISATIONS}, not {self.normalisation!r}"
                )
            if not self.init_from:
                raise RtEegError("frame_lstm_veto needs init_from (the trained 7 s decoder)")
            if self.dropout:
                raise RtEegError("frame_lstm_veto takes no dropout (its 7 s branch is frozen)")
            if not 0.0 <= self.veto_called < 1.0:
                raise RtEegError(f"veto_called must be in [0, 1), got {self.veto_called}")
            if self.veto_called and self.hard_negatives:
                raise RtEegError(
                    "veto_called trains on the 7 s decoder's calls, already the hard "
                    "negatives: set hard_negatives to 0"
                )
        elif self.init_from or self.veto_called:
            raise RtEegError(
                f"init_from and veto_called are for frame_lstm_veto only, not {self.arch!r}"
            )
        if self.hard_margin_epochs < 0:
            raise RtEegError(f"hard_margin_epochs must be >= 0, got {self.hard_margin_epochs}")
        for name in ("epochs", "batch_size", "samples_per_epoch", "max_dev_samples", "units",
                     "hard_pool"):
            if getattr(self, name) < 1:
                raise RtEegError(f"{name} must be >= 1, got {getattr(self, name)}")
