"""The ward: many beds on one server (service, alarms, status, overview).

Qt is imported only by :mod:`rt_eeg.ward.overview`; the other modules stay Qt-free.
"""
