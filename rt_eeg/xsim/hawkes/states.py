"""The slow hidden brain state: which states exist, what each does to the patches' Hawkes
parameters, and the semi-Markov timeline of states over a recording.

Each state sets, per region (:data:`~rt_eeg.xsim.hawkes.leadfield.REGIONS`), the resonance
frequency ``f0`` of the delayed E-I loop, its closeness to criticality ``q``, the branching
ratio ``rho`` of excitatory self-excitation (near 1: slow waves) and the patch amplitude.
"""

from __future__ import annotations

import numpy as np

#: Background states, in the order of the state axis of every state-indexed array.
STATES = ("awake_eo", "awake_ec", "drowsy", "n1", "n2", "n3", "rem", "arousal",
          "postictal_suppressed", "postictal_slow")  # fmt: skip
SLEEP = ("n1", "n2", "n3", "rem")
AWAKE = ("awake_eo", "awake_ec")
#: Median dwell (s) of each state of the timeline.
_DWELL = {"awake_eo": 45.0, "awake_ec": 60.0, "drowsy": 70.0, "n1": 90.0, "n2": 300.0,
          "n3": 400.0, "rem": 300.0}  # fmt: skip
#: Successors: (state, weight, deeper?) - deeper weights scale with the sleep drive.
_NEXT = {
    "awake_eo": (("awake_ec", 0.7, False), ("drowsy", 0.3, True)),
    "awake_ec": (("awake_eo", 0.6, False), ("drowsy", 0.4, True)),
    "drowsy": (("awake_ec", 0.3, False), ("awake_eo", 0.2, False), ("n1", 0.5, True)),
    "n1": (("n2", 0.6, True), ("drowsy", 0.3, False), ("awake_ec", 0.1, False)),
    "n2": (("n3", 0.4, True), ("n1", 0.15, False), ("rem", 0.25, True),
           ("awake_eo", 0.2, False)),
    "n3": (("n2", 0.9, False), ("awake_eo", 0.1, False)),
    "rem": (("n2", 0.5, False), ("awake_eo", 0.3, False), ("n1", 0.2, False)),
}  # fmt: skip


def state_params(pt: dict) -> dict[str, np.ndarray]:
    """Per-state, per-region loop parameters of patient ``pt``.

    Returns
    -------
    dict
        ``f0``, ``q``, ``rho``, ``amp``: arrays of shape ``(n_states, 5)``.
    """
    a, b, th = pt["alpha_hz"], pt["beta_hz"], pt["theta_hz"]
    tab = {  # f0 per region (F, C, T, P, O), q, rho, amp
        "awake_eo": ([b, a + 1, a - 0.5, a, a], [0.35, 0.55, 0.4, 0.45, 0.45], 0.7,
                     [0.6, 0.7, 0.65, 0.6, 0.6]),
        "awake_ec": ([b, a + 1, a - 0.5, a, a], [0.35, 0.6, 0.5, 0.85, 0.92], 0.68,
                     [0.6, 0.75, 0.7, 1.1, 1.5]),
        "drowsy": ([th, th, th, a - 0.7, a - 0.7], [0.5, 0.5, 0.55, 0.35, 0.35], 0.8,
                   [0.8, 0.9, 0.9, 0.7, 0.6]),
        "n1": ([th - 1, th - 1, th - 1, th, th], [0.45] * 5, 0.85, [0.95, 1.0, 0.9, 0.8, 0.7]),
        "n2": ([4.0, 4.5, 4.0, 4.0, 4.0], [0.3] * 5, 0.9, [1.5, 1.5, 1.2, 1.2, 1.0]),
        "n3": ([1.5] * 5, [0.4] * 5, 0.965, [2.7, 2.4, 1.9, 1.9, 1.6]),
        "rem": ([5.0, 4.5, 5.0, a - 1.5, a - 1.5], [0.35, 0.5, 0.35, 0.3, 0.3], 0.78,
                [0.7, 0.75, 0.65, 0.6, 0.6]),
        "arousal": ([b, a + 1, a - 0.5, a, a], [0.45, 0.5, 0.45, 0.7, 0.8], 0.68,
                    [0.9, 0.85, 0.8, 1.0, 1.2]),
        "postictal_suppressed": ([2.0] * 5, [0.2] * 5, 0.9, [0.22] * 5),
        "postictal_slow": ([1.2] * 5, [0.3] * 5, 0.97, [1.1, 1.0, 1.0, 0.95, 0.9]),
    }  # fmt: skip
    out = {k: np.zeros((len(STATES), 5)) for k in ("f0", "q", "rho", "amp")}
    for i, s in enumerate(STATES):
        f0, q, rho, amp = tab[s]
        out["f0"][i], out["q"][i], out["rho"][i], out["amp"][i] = f0, q, rho, amp
    return out


def _pick(state: str, drive: float, rng) -> str:
    names = [n for n, _w, _d in _NEXT[state]]
    w = np.array([wt * (2.0 * drive if deep else 1.0) for _n, wt, deep in _NEXT[state]])
    w = np.maximum(w, 1e-6)
    return names[int(rng.choice(len(names), p=w / w.sum()))]


def draw_timeline(duration: float, pt: dict, rng) -> list[tuple[float, float, str]]:
    """Semi-Markov sequence of states covering ``[0, duration]``, with brief arousals
    inserted into sleep.

    Returns
    -------
    list of (start_s, stop_s, state)
    """
    drive = float(pt["sleep_drive"])
    p0 = np.array([0.4, 0.35, 0.15 + 0.2 * drive, 0.15 * drive, 0.2 * drive, 0.02, 0.02])
    names = ["awake_eo", "awake_ec", "drowsy", "n1", "n2", "n3", "rem"]
    state = names[int(rng.choice(len(names), p=p0 / p0.sum()))]
    t, segs = 0.0, []
    # the first state has been going on for a while: a shorter residual dwell
    dwell = float(rng.lognormal(np.log(_DWELL[state]), 0.6)) * float(rng.uniform(0.2, 1.0))
    while t < duration:
        stop = min(duration, t + max(dwell, 5.0))
        if state in SLEEP:
            n_ar = int(rng.poisson(6.0 / 3600.0 * (stop - t)))
            cuts = np.sort(rng.uniform(t, stop, n_ar))
            for c in cuts:
                d = float(rng.uniform(3.0, 15.0))
                if c - t > 5.0 and c + d < stop - 5.0:
                    segs += [(t, float(c), state), (float(c), c + d, "arousal")]
                    t = c + d
        segs.append((t, stop, state))
        t = stop
        state = _pick(state, drive, rng)
        dwell = float(rng.lognormal(np.log(_DWELL[state]), 0.6))
    return [(round(float(a), 3), round(float(b), 3), s) for a, b, s in segs if b > a]


def frame_weights(segs, seizure_ends, times: np.ndarray) -> np.ndarray:
    """State weights of each synthesis frame, shape ``(len(times), n_states)``.

    One-hot at the frame centres ``times``, cross-faded over ~6 s at transitions, with the
    postictal states overlaid after every seizure end ``(t_end, tau_sup, tau_slow)``.
    """
    idx = np.zeros(times.size, dtype=int)
    for a, _b, s in segs:
        idx[times >= a] = STATES.index(s)
    w = np.zeros((times.size, len(STATES)))
    w[np.arange(times.size), idx] = 1.0
    if times.size > 2:
        k = np.array([0.25, 0.5, 0.25])
        pad = np.concatenate([w[:1], w, w[-1:]])
        w = k[0] * pad[:-2] + k[1] * pad[1:-1] + k[2] * pad[2:]
    i_sup, i_slow = STATES.index("postictal_suppressed"), STATES.index("postictal_slow")
    for t_end, tau_sup, tau_slow in seizure_ends:
        dt = np.maximum(times - t_end, 0.0)
        on = times >= t_end - 1.0
        sup = np.where(on, np.exp(-dt / tau_sup), 0.0) if tau_sup > 0 else np.zeros(times.size)
        slow = np.zeros(times.size)
        if tau_slow > 0:
            slow = np.where(on, (1.0 - sup) * np.exp(-dt / tau_slow), 0.0)
        w *= (1.0 - sup - slow)[:, None]
        w[:, i_sup] += sup
        w[:, i_slow] += slow
    return w


def state_at(segs, t: float) -> str:
    """The timeline state at time ``t``."""
    for a, b, s in segs:
        if a <= t < b:
            return s
    return segs[-1][2]
