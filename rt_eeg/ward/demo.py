"""A made-up ward for the overview's screenshot and tests: beds, alarms and traces that look
like what the service publishes, with no service running."""

from __future__ import annotations

import numpy as np

from rt_eeg.ward.status import N_TRACE, TRACE_SFREQ, bed_record

#: States given to the beds that are not in seizure, in turn (mostly background).
OTHER_STATES = ("BCKG",) * 9 + ("STALE", "BCKG", "PAUSED", "BCKG", "NO DATA", "BCKG", "ERROR")


def demo_trace(rng: np.random.Generator, seizure: bool, *, n: int = N_TRACE) -> np.ndarray:
    """``(n,)`` float32 microvolts at 25 Hz: background noise, or a 3 Hz rhythm when seizing."""
    t = np.arange(n) / TRACE_SFREQ
    x = np.convolve(rng.normal(0, 18, n + 4), np.ones(5) / 2.2, mode="valid")[:n]
    if seizure:
        ramp = np.clip((t - 2.0) / 3.0, 0, 1)
        x = (
            x
            + ramp
            * 140
            * np.sign(np.sin(2 * np.pi * 3.0 * t))
            * np.abs(np.sin(2 * np.pi * 3.0 * t)) ** 3
        )
    return x.astype(np.float32)


def demo_ward(
    n_beds: int,
    *,
    seizure_beds: tuple[int, ...] = (4,),
    wall: float = 1_763_906_400.0,
    rng: np.random.Generator | None = None,
    others: tuple[str, ...] = OTHER_STATES,
) -> tuple[list[dict], list[dict], np.ndarray]:
    """Beds, alarms and traces of a ward status.

    Parameters
    ----------
    n_beds : int
        Beds, named ``Bed 01`` ...
    seizure_beds : tuple of int
        Indices of the beds in seizure, each with an active, unacknowledged alarm.
    wall : float
        Wall time of the status (alarms were raised shortly before).
    others : tuple of str
        States of the other beds, cycled (``("BCKG",)`` for an all-quiet ward).

    Returns
    -------
    beds : list of dict
    alarms : list of dict
    traces : np.ndarray
        ``(n_beds, N_TRACE)`` float32.
    """
    rng = rng or np.random.default_rng(7)
    beds, alarms, traces = [], [], []
    details = {"STALE": "no samples for 12 s", "ERROR": "stream rate changed (256 -> 200 Hz)",
               "PAUSED": "paused by nurse.kim", "NO DATA": "waiting for the amplifier"}  # fmt: skip
    for i in range(n_beds):
        name = f"Bed {i + 1:02d}"
        mon = {"signal": f"ipc:///tmp/rt-eeg-ward/bed{i + 1}/display_signal",
               "decision": f"ipc:///tmp/rt-eeg-ward/bed{i + 1}/display_decision"}  # fmt: skip
        t_sig = 3600.0 + 97 * i
        if i in seizure_beds:
            k = len(alarms)
            onset, dur = t_sig - 42.0 - 20 * k, 42.0 + 20 * k
            aid = f"A{k + 1}"
            alarms.append({"id": aid, "bed": name, "onset": onset, "wall": wall - dur + 3.0,
                           "channels": ["T3-T5", "T5-O1", "F7-T3"], "confidence": 0.91 - 0.05 * k,
                           "state": "active", "acknowledged_by": None, "acknowledged_at": None})  # fmt: skip
            beds.append(bed_record(name, "SEIZ", confidence=0.91 - 0.05 * k, signal_time=t_sig,
                                   since_data_s=0.2, seiz_onset=onset, seiz_duration_s=dur,
                                   alarm=aid, detail="22 ch · 256 Hz", monitor=mon))  # fmt: skip
            traces.append(demo_trace(rng, True))
            continue
        state = others[i % len(others)]
        since = {"STALE": 12.4, "NO DATA": None, "ERROR": 3.1, "PAUSED": 1520.0}.get(state, 0.2)
        conf = 0.93 - 0.01 * (i % 7) if state == "BCKG" else None
        beds.append(bed_record(name, state, confidence=conf, signal_time=t_sig, since_data_s=since,
                               detail=details.get(state, "22 ch · 256 Hz"), monitor=mon))  # fmt: skip
        quiet = state in ("NO DATA", "PAUSED")
        traces.append(np.zeros(N_TRACE, np.float32) if quiet else demo_trace(rng, False))
    return beds, alarms, np.stack(traces) if traces else np.zeros((0, N_TRACE), np.float32)
