"""Vigilance over a recording: wakefulness with eyes open or closed, drowsiness, sleep stages.

A routine recording (under ~50 min) opens awake with the technologist's eye opening and
closing and may drift into drowsiness and light sleep; a long one cycles through sleep with
stage dwell times of minutes. The plan yields segments and smooth per-state memberships
(fast eye transitions, slow stage transitions) that the background rhythms' amplitudes and
the event rates follow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .signals import CTRL_FS

STATES = ("wake_ec", "wake_eo", "drowsy", "n2", "n3", "rem")
WAKE = ("wake_ec", "wake_eo")

# Median stage dwell (minutes) and the stage that may follow with its weight.
_DWELL = {"drowsy": 2.0, "n2": 9.0, "n3": 14.0, "rem": 11.0}
_NEXT = {
    "drowsy": {"n2": 0.75, "wake": 0.25},
    "n2": {"n3": 0.45, "rem": 0.2, "drowsy": 0.15, "wake": 0.2},
    "n3": {"n2": 0.85, "wake": 0.15},
    "rem": {"n2": 0.55, "drowsy": 0.2, "wake": 0.25},
}


@dataclass
class StatePlan:
    """Segments ``(t0, t1, state)`` and memberships (one control-rate array per state)."""

    segments: list[tuple[float, float, str]]
    member: dict[str, np.ndarray]

    def share(self, t: np.ndarray, states) -> np.ndarray:
        """Membership of ``states`` (summed) at times ``t`` (s)."""
        idx = np.clip((np.asarray(t) * CTRL_FS).astype(int), 0, len(self.member[STATES[0]]) - 1)
        return sum(self.member[s][idx] for s in states)

    def mix(self, weights: dict[str, float]) -> np.ndarray:
        """``sum_state weights[state] * membership`` at control rate."""
        out = np.zeros_like(self.member[STATES[0]])
        for s, w in weights.items():
            out += w * self.member[s]
        return out

    def rate(self, t: np.ndarray, weights: dict[str, float]) -> np.ndarray:
        """A rate at times ``t`` that follows the states (``weights`` per state)."""
        idx = np.clip((np.asarray(t) * CTRL_FS).astype(int), 0, len(self.member[STATES[0]]) - 1)
        return self.mix(weights)[idx]


def _wake_segments(t0, t1, rng, routine, out):
    """Alternating eyes closed / open between t0 and t1."""
    closed = rng.random() < (0.6 if routine else 0.3)
    t = t0
    while t < t1:
        if closed:
            d = rng.lognormal(np.log(40 if routine else 25), 0.6)
        else:
            d = rng.lognormal(np.log(30 if routine else 150), 0.7)
        d = max(d, 4.0)
        out.append((t, min(t + d, t1), "wake_ec" if closed else "wake_eo"))
        t += d
        closed = not closed


def plan_states(duration: float, patient: dict, rng: np.random.Generator) -> StatePlan:
    """Draw the vigilance course of one recording."""
    routine = duration < 50 * 60
    sleepy = float(np.clip(patient["sleep"]["sleepiness"] * rng.uniform(0.4, 1.6), 0.02, 1.0))
    if rng.random() < 0.15:  # some stay awake throughout (agitated, instructed, daytime)
        sleepy = 0.0
    segs: list[tuple[float, float, str]] = []
    if sleepy == 0.0:
        _wake_segments(0.0, duration, rng, routine, segs)
    else:
        first = (
            rng.uniform(3, 25) * 60 * (1.3 - sleepy)
            if routine
            else rng.lognormal(np.log(30 * 60), 0.7) * (1.3 - sleepy)
        )
        t = max(60.0, first)
        _wake_segments(0.0, min(t, duration), rng, routine, segs)
        stage = "drowsy"
        asleep_s = 0.0
        while t < duration:
            if stage == "wake":
                d = rng.lognormal(np.log(150 if sleepy > 0.5 else 400), 0.8)
                _wake_segments(t, min(t + d, duration), rng, routine, segs)
                t += d
                stage = "drowsy"
                continue
            med = _DWELL[stage] * 60
            if stage == "n3" and asleep_s > 3 * 3600:
                med *= 0.3  # little slow-wave sleep late in the night
            d = max(20.0, rng.lognormal(np.log(med), 0.5))
            segs.append((t, min(t + d, duration), stage))
            t += d
            asleep_s += d
            nxt = dict(_NEXT[stage])
            if stage == "n2" and (asleep_s < 3000 or not patient["sleep"]["has_rem"]):
                nxt.pop("rem")
            if stage == "drowsy":
                nxt["n2"] *= 0.5 + sleepy
            keys = list(nxt)
            p = np.array([nxt[k] for k in keys])
            stage = str(rng.choice(keys, p=p / p.sum()))
    return StatePlan(segs, _memberships(segs, duration))


def _width(a: str, b: str) -> float:
    """Crossfade (s) between two states: eyes are fast, sleep stages slow."""
    if a in WAKE and b in WAKE:
        return 0.6
    if "n3" in (a, b) or "rem" in (a, b):
        return 40.0
    return 12.0


def _memberships(segs, duration: float) -> dict[str, np.ndarray]:
    n_ctrl = int(np.ceil(duration * CTRL_FS)) + 2
    t = np.arange(n_ctrl) / CTRL_FS
    member = {s: np.zeros(n_ctrl) for s in STATES}
    ups = [np.ones(n_ctrl)]
    for k in range(1, len(segs)):
        b = segs[k][0]
        w = min(
            _width(segs[k - 1][2], segs[k][2]),
            segs[k - 1][1] - segs[k - 1][0],
            segs[k][1] - segs[k][0],
        )
        ups.append(np.clip((t - (b - w / 2)) / max(w, 1e-3), 0.0, 1.0))
    ups.append(np.zeros(n_ctrl))
    for k, (_a, _b, s) in enumerate(segs):
        member[s] += ups[k] - ups[k + 1]
    return member
