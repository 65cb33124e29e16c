"""The postprocessor's parameters (:class:`PostprocessConfig`): what each one means, their
checks and their TOML/JSON form. The decision rules themselves are :mod:`rt_eeg.postprocess`'s
(which re-exports this class; import it from either)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from rt_eeg.cross_channel import CrossChannelConfig


@dataclass(frozen=True)
class PostprocessConfig:
    """Postprocessor parameters (defaults documented; tuned per model by ``evaluate --sweep``).

    Attributes
    ----------
    epoch_s : float
        Decision epoch length in seconds (the decoder's epoch).
    buffer_epochs : int
        Posterior history kept, in epochs (8 s, as in the reference system).
    smooth_epochs : int
        Per-channel moving average length before combining channels.
    top_k : int
        Number of most-confident channels averaged into the cross-channel score.
    threshold_on : float
        Score at or above which an epoch counts towards an onset.
    threshold_off : float
        Score below which an epoch counts towards an offset (hysteresis, < threshold_on).
    onset_epochs : int
        Consecutive epochs at or above ``threshold_on`` needed to declare a seizure.
    offset_epochs : int
        Epochs over which the score is averaged to decide an offset (the hold time).
    min_duration_epochs : int
        A seizure event lasts at least this many epochs once declared.
    channel_threshold : float
        Smoothed channel probability at or above which a channel is listed as involved.
    rise_delta : float
        Rising-score onset: a rise of at least this much within ``rise_epochs`` epochs, to a
        score of at least ``threshold_off``, starts a seizure (0 disables it).
    rise_epochs : int
        Epochs over which the rise is measured.
    top_k_reduced : int
        ``top_k`` for a reduced montage (:func:`rt_eeg.montage.is_reduced`), when smaller: the top 4 of 22 TCP channels is the same share
        of the scalp as the top 2 of the 11 channels of an 8-electrode montage, so the
        operating point tuned on full montages keeps its meaning. Set it to ``top_k`` to
        use one ``top_k`` for every montage.
    early_threshold : float
        Dual-threshold onset: ``early_epochs`` consecutive epochs at or above this score, with
        a rise of at least ``early_rise`` within ``rise_epochs``, start a seizure (0 disables).
    early_epochs : int
        Consecutive epochs at or above ``early_threshold`` needed.
    early_rise : float
        Rise of the score within ``rise_epochs`` the early onset also needs (0: none).
    min_channels : int
        Minimum spatial extent of any onset: channels whose smoothed probability is at or
        above ``channel_level`` (1 with ``channel_level`` 0: no constraint).
    channel_level : float
        Level of the spatial-extent test.
    adapt_epochs : int
        Patient-relative onset gate: background epochs (decided BCKG) whose score logits are
        kept (0 disables the gate).
    adapt_quantile : float
        Quantile of those logits the epoch's score logit must exceed (nearest rank, 0..1).
    adapt_margin : float
        By how much (logit units) it must exceed it.
    adapt_min_epochs : int
        Background epochs needed before the gate acts (until then, the threshold alone).
    cusum_h : float
        Evidence-accumulating onset (logit units, 0 disables it): replaces the run of
        ``onset_epochs`` by Page's CUSUM of ``logit(score) - logit(threshold_on)``, capped at
        ``cusum_h``, which starts a seizure when it reaches ``cusum_h`` (module docstring).
    cross_channel : CrossChannelConfig or None
        A learned cross-channel scorer (:mod:`rt_eeg.cross_channel`) whose output replaces
        the top-k mean as the epoch's score; None (the default): the top-k mean.
    """

    epoch_s: float = 1.0
    buffer_epochs: int = 8
    smooth_epochs: int = 2
    top_k: int = 2
    threshold_on: float = 0.5
    threshold_off: float = 0.3
    onset_epochs: int = 2
    offset_epochs: int = 6
    min_duration_epochs: int = 5
    channel_threshold: float = 0.5
    rise_delta: float = 0.0
    rise_epochs: int = 3
    top_k_reduced: int = 2
    early_threshold: float = 0.0
    early_epochs: int = 1
    early_rise: float = 0.0
    min_channels: int = 1
    channel_level: float = 0.0
    adapt_epochs: int = field(default=0, metadata={"min": 0})  # 0: the gate is off
    adapt_quantile: float = 0.9
    adapt_margin: float = 0.0
    adapt_min_epochs: int = 60
    cusum_h: float = 0.0  # 0: the run of onset_epochs
    cross_channel: CrossChannelConfig | None = None

    def __post_init__(self):
        problems = []
        cc = self.cross_channel
        if cc is not None and not isinstance(cc, CrossChannelConfig):
            problems.append(f"cross_channel must be a CrossChannelConfig (got {type(cc).__name__})")
        elif cc is not None and cc.epochs > self.buffer_epochs:
            problems.append(
                f"cross_channel.epochs ({cc.epochs}) must be <= buffer_epochs ({self.buffer_epochs})"
            )
        for name in ("early_threshold", "early_rise", "channel_level"):
            if not 0 <= getattr(self, name) <= 1:
                problems.append(f"{name} must be within 0..1 (got {getattr(self, name)})")
        if not 0 <= self.cusum_h <= 50:
            problems.append(f"cusum_h must be within 0..50 logit units (got {self.cusum_h})")
        if self.adapt_epochs < 0:
            problems.append(f"adapt_epochs must be >= 0 (got {self.adapt_epochs})")
        if not 0 <= self.adapt_quantile <= 1:
            problems.append(f"adapt_quantile must be within 0..1 (got {self.adapt_quantile})")
        if not 0 <= self.adapt_margin <= 20:
            problems.append(
                f"adapt_margin must be within 0..20 logit units (got {self.adapt_margin})"
            )
        if self.adapt_epochs and not 1 <= self.adapt_min_epochs <= self.adapt_epochs:
            problems.append(
                f"adapt_min_epochs must be within 1..adapt_epochs ({self.adapt_epochs}) "
                f"(got {self.adapt_min_epochs})"
            )
        if not 0 < self.threshold_off <= self.threshold_on <= 1:
            problems.append(
                f"need 0 < threshold_off ({self.threshold_off}) <= threshold_on ({self.threshold_on}) <= 1"
            )
        for name in (
            "smooth_epochs",
            "top_k",
            "onset_epochs",
            "offset_epochs",
            "min_duration_epochs",
            "rise_epochs",
            "top_k_reduced",
            "early_epochs",
            "min_channels",
        ):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be >= 1 (got {getattr(self, name)})")
        if not 1 <= self.smooth_epochs <= self.buffer_epochs:
            problems.append(f"smooth_epochs must be within buffer_epochs ({self.buffer_epochs})")
        if problems:
            raise ValueError("; ".join(problems))

    def replace(self, **changes) -> PostprocessConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """Plain values (TOML/JSON); ``cross_channel`` only when set, the ``adapt_*`` gate
        only when any of it differs from the defaults and ``cusum_h`` only when set, so a
        config without them writes exactly what it did before those fields existed."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if all(d[k] == _ADAPT_DEFAULTS[k] for k in _ADAPT_DEFAULTS):
            for k in _ADAPT_DEFAULTS:
                del d[k]
        if d["cusum_h"] == 0:
            del d["cusum_h"]
        cc = d.pop("cross_channel")
        if cc is not None:
            d["cross_channel"] = cc.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> PostprocessConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown postprocess parameters: {', '.join(sorted(unknown))}")
        d = dict(d)
        cc = d.get("cross_channel")
        if cc is not None and not isinstance(cc, CrossChannelConfig):
            d["cross_channel"] = CrossChannelConfig.from_dict(cc)
        return cls(**d)


_ADAPT_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(PostprocessConfig) if f.name.startswith("adapt_")
}
