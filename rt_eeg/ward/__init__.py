"""The ward: many beds on one server (service, alarms, status, overview).

``rt-eeg serve --config ward.toml`` runs :class:`rt_eeg.ward.service.WardService`: one
process per bed (source + features + postprocessor, :mod:`rt_eeg.ward.bed`), one decoder
process for every bed (:mod:`rt_eeg.ward.batcher`), a control socket
(:mod:`rt_eeg.ward.control`), the ward status publisher (:mod:`rt_eeg.ward.status`) and the
alarms (:mod:`rt_eeg.ward.alarms`). Qt is imported only by :mod:`rt_eeg.ward.overview` and
its widgets (:mod:`rt_eeg.ward.overview_widgets`); the other modules stay Qt-free. See
``docs/architecture.md``.
"""
