"""The vigilance timeline: wake (eyes open / closed), drowsiness, N2, N3, REM, post-ictal.

A semi-Markov chain with state-specific dwell times (a night is mostly N2/N3/REM cycles, a
day mostly wake with naps); transitions cross-fade over seconds (eye opening over a fraction
of a second). Each page of the atlas reads its amount from :data:`TABLE` mixed by the state
weights, so alpha blocks on eye opening, spindles come with N2, blinks only with open eyes.
"""

from __future__ import annotations

import numpy as np

from .context import Ctx

STATES = ("wake_eo", "wake_ec", "drowsy", "n2", "n3", "rem", "postictal")
_S = {s: i for i, s in enumerate(STATES)}

#: Relative amount of each component per state (columns in :data:`STATES` order).
TABLE: dict[str, tuple[float, ...]] = {
    "broad": (1.0, 1.0, 1.0, 1.15, 1.3, 0.9, 1.1),
    "delta": (0.12, 0.12, 0.3, 0.75, 1.6, 0.22, 1.2),
    "theta": (0.35, 0.4, 1.0, 0.7, 0.6, 0.8, 0.9),
    "alpha": (0.18, 1.0, 0.35, 0.0, 0.0, 0.05, 0.0),
    "beta": (1.0, 0.9, 0.9, 0.6, 0.4, 0.7, 0.5),
    "emg": (1.0, 0.7, 0.3, 0.1, 0.05, 0.0, 0.4),
    "blink": (1.0, 0.0, 0.12, 0.0, 0.0, 0.0, 0.3),
    "saccade": (1.0, 0.08, 0.0, 0.0, 0.0, 0.0, 0.1),
    "sem": (0.0, 0.15, 1.0, 0.1, 0.0, 0.0, 0.2),
    "rem_eye": (0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0),
    "spindle": (0.0, 0.0, 0.08, 1.0, 0.45, 0.0, 0.0),
    "kcomplex": (0.0, 0.0, 0.1, 1.0, 0.5, 0.0, 0.0),
    "vertex": (0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 0.0),
    "posts": (0.0, 0.0, 0.3, 1.0, 0.4, 0.0, 0.0),
    "mu": (0.7, 1.0, 0.3, 0.0, 0.0, 0.0, 0.0),
    "ied": (1.0, 1.0, 1.8, 2.5, 3.0, 0.6, 2.0),
    "movement": (1.0, 0.6, 0.4, 0.15, 0.05, 0.1, 0.8),
    "drowsy": (0.0, 0.0, 1.0, 0.3, 0.0, 0.0, 0.0),
    "sleep": (0.0, 0.0, 0.2, 1.0, 1.0, 0.8, 0.0),
    "wake": (1.0, 1.0, 0.3, 0.0, 0.0, 0.0, 0.5),
}

# Median dwell time (s) and next-state weights before the sleepiness tilt.
_DWELL = {"wake_eo": 150, "wake_ec": 40, "drowsy": 100, "n2": 700, "n3": 900, "rem": 600}


def _next(rng, cur: str, night: bool, sleepy: float, enc: int) -> str:
    s = sleepy
    opts = {
        "wake_eo": {"wake_ec": 1.0 - 0.5 * s, "drowsy": 0.2 + 0.8 * s},
        "wake_ec": {"wake_eo": 1.0 - 0.4 * s, "drowsy": 0.3 + 0.8 * s},
        "drowsy": {"n2": 0.2 + 0.8 * s, "wake_eo": 0.7 * (1 - s), "wake_ec": 0.4 * (1 - s)},
        "n2": {"n3": 0.5 if night else 0.2, "rem": 0.35 if night else 0.05,
               "drowsy": 0.15, "wake_eo": 0.3 * (1 - s)},
        "n3": {"n2": 0.85, "wake_eo": 0.15},
        "rem": {"n2": 0.6, "wake_eo": 0.3, "drowsy": 0.1},
    }[cur]  # fmt: skip
    if enc >= 2:
        opts.pop("rem", None)
    keys = list(opts)
    w = np.array([opts[k] for k in keys], dtype=float)
    return keys[int(rng.choice(len(keys), p=w / w.sum()))]


def build_states(ctx: Ctx) -> list[tuple[float, float, str]]:
    """Draw the timeline, set ``ctx.weights`` and return the segments."""
    rng, p = ctx.rng, ctx.patient
    enc = p["background"]["enc"]
    night = bool(rng.random() < p["night_p"])
    sleepy = float(np.clip(p["sleepiness"] + (0.35 if night else 0.0), 0, 1))
    if night:
        cur = str(rng.choice(["n2", "wake_eo", "drowsy", "n3"], p=[0.45, 0.2, 0.2, 0.15]))
    else:
        cur = str(rng.choice(["wake_eo", "wake_ec", "drowsy"], p=[0.6, 0.2, 0.2]))
    # ICU sleep is fragmented: shorter stays.
    dwell_scale = 0.5 if p["setting"] == "icu" else 1.0
    segs: list[tuple[float, float, str]] = []
    t = 0.0
    while t < ctx.duration:
        d = rng.lognormal(np.log(_DWELL[cur] * dwell_scale), 0.7)
        segs.append((t, min(ctx.duration, t + d), cur))
        t += d
        cur = _next(rng, cur, night, sleepy, enc)
    # After a seizure: post-ictal state, then drowsiness or wake.
    for _a, b in ctx.seizures:
        post = float(rng.uniform(40, 240) * p["seizure"]["postictal"])
        after = "drowsy" if rng.random() < 0.6 else "wake_eo"
        segs = _override(segs, b, b + post, "postictal")
        segs = _override(segs, b + post, b + post + rng.uniform(60, 300), after)
    segs = [(a, min(b, ctx.duration), s) for a, b, s in segs if a < ctx.duration]

    w = np.zeros((len(STATES), ctx.n_ctrl))
    for a, b, s in segs:
        w[_S[s], ctx.ctrl_slice(a, b)] = 1.0
    w[:, -1] = w[:, -2]
    for (_, b, s0), (_, _, s1) in zip(segs[:-1], segs[1:], strict=True):
        eyes = {s0, s1} == {"wake_eo", "wake_ec"}
        h = 0.4 if eyes else float(rng.uniform(4, 20))
        sl = ctx.ctrl_slice(b - h, b + h)
        m = sl.stop - sl.start
        if m > 1:
            r = np.linspace(0, 1, m)
            w[:, sl] = 0.0
            w[_S[s0], sl] += 1 - r
            w[_S[s1], sl] += r
    ctx.weights = w
    return segs


def _override(segs, a, b, state):
    """Replace ``[a, b)`` of the timeline with ``state``."""
    out = []
    for x, y, s in segs:
        if y <= a or x >= b:
            out.append((x, y, s))
            continue
        if x < a:
            out.append((x, a, s))
        if y > b:
            out.append((b, y, s))
    out.append((a, b, state))
    return sorted(out)


def env(ctx: Ctx, name: str) -> np.ndarray:
    """Amount of component ``name`` on the control grid (state mix, encephalopathy-damped)."""
    col = np.asarray(TABLE[name])
    enc = ctx.patient["background"]["enc"]
    if enc >= 2 and name in ("broad", "delta", "theta", "beta"):
        # Severe encephalopathy flattens state differences.
        col = 0.5 * col + 0.5 * col.mean()
    return col @ ctx.weights
