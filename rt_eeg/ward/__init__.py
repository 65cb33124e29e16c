"""The ward service: many beds on one server, one batched decoder process.

``rt-eeg serve --config ward.toml`` runs :class:`rt_eeg.ward.service.WardService`: one
process per bed (source + features + postprocessor, :mod:`rt_eeg.ward.bed`), one decoder
process for every bed (:mod:`rt_eeg.ward.batcher`), a control socket
(:mod:`rt_eeg.ward.control`) and a ward status publisher. See ``docs/architecture.md``.
"""
