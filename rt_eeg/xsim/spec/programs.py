"""Ictal programs: the oscillators, fields, artifacts and post-ictal course of each seizure
type (see :mod:`rt_eeg.xsim.spec.seizures` for how they are rendered).

Times inside a program are normalised to the seizure (0 = onset, 1 = end); trajectories are
knot lists ``((u, value), ...)`` interpolated linearly.
"""

from __future__ import annotations

import numpy as np

from . import geometry as geo

FOCAL = (
    "focal_evolving_theta",
    "focal_lvfa",
    "focal_rhythmic_delta",
    "focal_periodic_evolving",
    "subtle_focal",
    "hypermotor_frontal",
    "focal_to_bilateral_tc",
)
GENERALIZED = ("absence_spike_wave", "atypical_spike_wave", "gtc", "tonic_fast", "polyspike_wave")
ALL_TYPES = FOCAL + GENERALIZED


def _osc(
    t0,
    t1,
    f,
    amp,
    field,
    sharp=((0, 0.1), (1, 0.1)),
    sw=((0, 0.0), (1, 0.0)),
    skew=0.0,
    poly=1,
    spike_sd=0.02,
    wave_sd=0.07,
    fj=0.07,
    cj=0.22,
    lag=0.04,
    emg_locked=False,
    noise=0.3,
):
    return dict(
        t=(t0, t1),
        f=f,
        amp=amp,
        field=field,
        sharp=sharp,
        sw=sw,
        skew=skew,
        poly=poly,
        spike_sd=spike_sd,
        wave_sd=wave_sd,
        fj=fj,
        cj=cj,
        lag=lag,
        emg_locked=emg_locked,
        noise=noise,
    )


def _focal_field(focus, r0, r1, spread_until=0.5, contra=0.0, contra_at=0.6):
    fc = np.asarray(focus)
    return dict(
        kind="focal",
        focus=fc,
        r=((0, r0), (spread_until, r1), (1, r1 * 1.1)),
        contra=((0, 0.0), (contra_at, 0.0), (min(contra_at + 0.2, 1), contra), (1, contra)),
    )


def _gen_field(rng, radius=0.65):
    return dict(
        kind="generalized",
        centre=geo.jitter(rng, geo.site("FZ", "F3", "F4", "CZ"), 0.05),
        radius=radius,
        asym=rng.normal(0, 0.15),
    )


def program(rng, t: str, prof: dict, dur: float) -> dict:
    """Oscillators, background attenuation, artifacts and post-ictal state for one seizure."""
    j = lambda sd: float(np.exp(rng.normal(0, sd)))  # noqa: E731
    A = prof["amp_uv"] * j(0.2)
    if t in GENERALIZED:
        A = prof["gen_amp_uv"] * j(0.15)
    f_hi, f_lo = prof["f_hi"] * j(0.07), prof["f_lo"] * j(0.07)
    focus = geo.jitter(rng, prof["focus"], 0.03)
    r0, r1 = prof["r0"] * j(0.1), prof["r1"] * j(0.15)
    contra = rng.uniform(0.4, 0.9) if rng.uniform() < prof["p_contra"] else 0.0
    sm = prof["sharp_max"]
    e = min(1.5 / dur, 0.1)  # offset taper
    osc, arts = [], []
    atten = dict(depth=((0, 0.35), (1, 0.35)), field=None)
    post = dict(
        depth=0.3 * prof["postictal"],
        tau=rng.uniform(5, 30),
        delta_uv=25 * prof["postictal"],
        delta_tau=rng.uniform(40, 240),
        general=False,
    )

    def focal_theta(t0, t1, onset):
        ramp = {
            "abrupt": min(2.0 / dur, 0.1),
            "gradual": min(0.35, 15.0 / dur),
            "decremental": 0.2,
        }[onset]
        fs = f_hi + (1.5 if onset == "gradual" else 0.0)
        fld = _focal_field(focus, r0, r1, 0.45, contra, rng.uniform(0.4, 0.8))
        start = 0.0
        if onset == "decremental":
            start = min(0.25, 8.0 / dur)
            osc.append(
                _osc(
                    t0,
                    t0 + (t1 - t0) * (start + 0.1),
                    ((0, rng.uniform(18, 26)), (1, 11.0)),
                    ((0, 0), (0.15, 8), (0.8, 25), (1, 0)),
                    fld,
                    fj=0.03,
                )
            )
            atten["depth"] = ((0, 0.8), (start * 0.8, 0.8), (start + 0.1, 0.4), (1, 0.4))
        k = rng.uniform(0.6, 1.6)
        uu = np.linspace(0, 1, 6)
        fk = tuple((x, f_lo + (fs - f_lo) * (1 - x) ** k) for x in uu)
        amp = ((0, 0), (ramp, 0.5 * A), (0.6, A), (1 - e, 0.9 * A), (1, 0))
        osc.append(
            _osc(
                t0 + (t1 - t0) * start,
                t1,
                fk,
                amp,
                fld,
                skew=prof["skew"],
                sharp=((0, 0.15), (0.5, 0.5 * sm), (1, sm)),
                sw=((0, 0), (0.65, 0), (1, prof["sw_late"])),
                poly=prof["poly"],
                spike_sd=prof["spike_sd"],
            )
        )
        return fld

    if t == "focal_evolving_theta":
        onset = ("abrupt", "gradual", "decremental")[
            rng.choice(3, p=np.asarray(prof["onset"]) / np.sum(prof["onset"]))
        ]
        focal_theta(0.0, 1.0, onset)
        if rng.uniform() < prof["p_automatism"] and dur > 15:
            arts.append(dict(kind="chewing", u=(rng.uniform(0.2, 0.4), rng.uniform(0.6, 0.95))))
        if rng.uniform() < prof["p_emg"]:
            arts.append(
                dict(
                    kind="emg",
                    u=(rng.uniform(0.3, 0.7), 0.98),
                    uv=rng.uniform(10, 40),
                    sites="side",
                )
            )
    elif t == "focal_lvfa":
        u1 = min(0.3, 10.0 / dur)
        fld = _focal_field(focus, r0 * 0.9, r1, 0.5, contra, rng.uniform(0.5, 0.8))
        atten["depth"] = ((0, 0.85), (u1, 0.85), (u1 + 0.1, 0.4), (1, 0.4))
        atten["field"] = _focal_field(focus, 0.6, 0.8)
        osc.append(
            _osc(
                0.0,
                min(1.0, 2 * u1 + 0.1),
                ((0, rng.uniform(20, 30)), (1, rng.uniform(10, 14))),
                ((0, 0), (0.1, 5), (0.7, 15), (1, 0)),
                fld,
                fj=0.03,
                cj=0.1,
            )
        )
        osc.append(
            _osc(
                u1,
                1.0,
                ((0, rng.uniform(6, 9)), (0.5, (f_hi + f_lo) / 2), (1, f_lo)),
                ((0, 0), (0.3, 0.7 * A), (0.7, A), (1 - e, A), (1, 0)),
                fld,
                skew=prof["skew"],
                sharp=((0, 0.3), (1, max(sm, 0.6))),
                sw=((0, 0), (0.6, 0), (1, prof["sw_late"])),
                poly=prof["poly"],
                spike_sd=prof["spike_sd"],
            )
        )
    elif t == "focal_rhythmic_delta":
        fa, fb = rng.uniform(1.6, 3.0), rng.uniform(1.4, 3.0)
        ramp = min(0.25, 6.0 / dur)
        fld = _focal_field(focus, r0 * 1.2, r1, 0.5, contra)
        osc.append(
            _osc(
                0,
                1,
                ((0, fa), (1, fb)),
                ((0, 0), (ramp, 0.8 * A), (0.6, 1.3 * A), (1 - e, 1.2 * A), (1, 0)),
                fld,
                sharp=((0, 0.3), (1, 0.6)),
                skew=0.5 * np.sign(prof["skew"] + 1e-3),
                sw=((0, 0), (0.5, 0.0), (1, 0.3)),
                spike_sd=0.04,
                wave_sd=0.1,
                fj=0.06,
            )
        )
    elif t == "focal_periodic_evolving":
        fld = _focal_field(focus, 0.4, 0.6, 0.6, contra * 0.5)
        fm = rng.uniform(2.2, 3.5)
        osc.append(
            _osc(
                0,
                1,
                ((0, rng.uniform(0.8, 1.3)), (0.5, fm), (0.8, fm), (1, fm * 0.7)),
                ((0, 0), (0.05, 0.7 * A), (0.5, A), (1 - e, A), (1, 0)),
                fld,
                sharp=((0, 0.8), (1, 0.8)),
                sw=((0, 0.85), (1, 0.85)),
                spike_sd=0.035,
                wave_sd=0.09,
                fj=0.05,
                cj=0.2,
            )
        )
        post["depth"] *= 0.5
    elif t == "subtle_focal":
        f0 = rng.uniform(4.0, 9.0)
        fld = _focal_field(focus, r0 * 0.8, r0 * 1.1, 0.5)
        ramp = min(0.3, 4.0 / dur)
        osc.append(
            _osc(
                0,
                1,
                ((0, f0), (1, f0 * rng.uniform(0.8, 1.0))),
                ((0, 0), (ramp, rng.uniform(10, 30)), (1 - e, rng.uniform(12, 35)), (1, 0)),
                fld,
                sharp=((0, 0.1), (1, 0.3)),
                fj=0.03,
            )
        )
        atten["depth"] = ((0, 0.15), (1, 0.15))
        post.update(depth=0.1, delta_uv=6.0)
    elif t == "hypermotor_frontal":
        fld = _focal_field(focus, 0.45, 0.8, 0.3, 0.8, 0.1)
        osc.append(
            _osc(
                0,
                0.4,
                ((0, rng.uniform(15, 25)), (1, 10)),
                ((0, 0), (0.1, 10), (0.8, 20), (1, 0)),
                fld,
                fj=0.04,
            )
        )
        osc.append(
            _osc(
                0.15,
                1,
                ((0, rng.uniform(5, 8)), (1, rng.uniform(3, 5))),
                ((0, 0), (0.3, 0.5 * A), (1 - e, 0.6 * A), (1, 0)),
                fld,
                sharp=((0, 0.2), (1, 0.6)),
            )
        )
        atten["depth"] = ((0, 0.7), (0.2, 0.5), (1, 0.4))
        d0 = min(0.15, rng.uniform(0.5, 3.0) / dur)
        arts.append(dict(kind="emg", u=(d0, 1.0), uv=rng.uniform(30, 90), sites="all"))
        arts.append(dict(kind="movement", u=(d0, 1.0), per_min=rng.uniform(10, 30)))
        post.update(depth=0.2)
    elif t == "focal_to_bilateral_tc":
        ub = rng.uniform(0.3, 0.5)
        focal_theta(
            0.0,
            ub + 0.05,
            ("abrupt", "gradual", "decremental")[
                rng.choice(3, p=np.asarray(prof["onset"]) / np.sum(prof["onset"]))
            ],
        )
        _gtc_phases(rng, osc, arts, ub, A, e)
        atten["depth"] = ((0, 0.35), (ub, 0.35), (ub + 0.05, 0.7), (1, 0.7))
        atten["field"] = dict(kind="generalized", centre=geo.site("CZ"), radius=1.2, asym=0.0)
        post.update(
            depth=rng.uniform(0.6, 0.95),
            tau=rng.uniform(20, 90),
            delta_uv=50,
            general=True,
            delta_tau=rng.uniform(200, 700),
        )
    elif t == "absence_spike_wave":
        f0 = prof["sw_hz"] * j(0.05)
        fld = _gen_field(rng, rng.uniform(0.55, 0.75))
        rr = min(0.4 / dur, 0.1)
        osc.append(
            _osc(
                0,
                1,
                ((0, f0), (0.3, f0 * 0.92), (1, f0 * rng.uniform(0.7, 0.85))),
                ((0, 0), (rr, 1.1 * A), (0.5, 1.2 * A), (1 - rr, A), (1, 0)),
                fld,
                sw=((0, 0.95), (1, 0.95)),
                sharp=((0, 0.5), (1, 0.5)),
                poly=min(prof["poly"], 2),
                spike_sd=prof["spike_sd"],
                wave_sd=rng.uniform(0.07, 0.1),
                fj=0.03,
                cj=0.08,
                lag=0.02,
                noise=0.1,
            )
        )
        atten["depth"] = ((0, 0.6), (1, 0.6))
        atten["field"] = fld
        if rng.uniform() < 0.3:
            arts.append(dict(kind="eyelid", u=(rr, 1 - rr), hz=f0))
        post.update(depth=0.0, delta_uv=0.0)
    elif t == "atypical_spike_wave":
        f0 = rng.uniform(1.8, 2.6)
        fld = _gen_field(rng, 0.75)
        rr = min(2.0 / dur, 0.2)
        osc.append(
            _osc(
                0,
                1,
                ((0, f0), (1, f0 * rng.uniform(0.7, 1.0))),
                ((0, 0), (rr, A), (1 - rr, A), (1, 0)),
                fld,
                sw=((0, 0.7), (1, 0.7)),
                sharp=((0, 0.5), (1, 0.6)),
                spike_sd=rng.uniform(0.03, 0.05),
                wave_sd=0.1,
                fj=0.1,
                cj=0.25,
                lag=0.05,
            )
        )
        atten["depth"] = ((0, 0.5), (1, 0.5))
        atten["field"] = fld
        post.update(depth=0.1, delta_uv=10.0, general=True)
    elif t == "tonic_fast":
        fld = _gen_field(rng, 0.75)
        u1 = min(0.15, 1.5 / dur)
        osc.append(
            _osc(
                0,
                1,
                ((0, rng.uniform(16, 25)), (1, rng.uniform(9, 13))),
                ((0, 0), (u1, 8), (0.6, 0.6 * A), (1 - e, 0.7 * A), (1, 0)),
                fld,
                sharp=((0, 0.1), (1, 0.4)),
                fj=0.04,
                cj=0.1,
                lag=0.01,
            )
        )
        atten["depth"] = ((0, 0.85), (u1, 0.85), (0.5, 0.5), (1, 0.5))
        atten["field"] = fld
        arts.append(
            dict(
                kind="emg",
                u=(min(0.2, rng.uniform(0.5, 2.0) / dur), 1.0),
                uv=rng.uniform(30, 100),
                sites="all",
            )
        )
        post.update(depth=rng.uniform(0.3, 0.7), general=True)
    elif t == "gtc":
        fld = _gen_field(rng, 0.75)
        osc.append(
            _osc(
                0,
                0.12,
                ((0, rng.uniform(18, 26)), (1, 14)),
                ((0, 0), (0.2, 8), (0.9, 20), (1, 0)),
                fld,
                fj=0.03,
            )
        )
        _gtc_phases(rng, osc, arts, 0.06, A, e)
        atten["depth"] = ((0, 0.85), (0.1, 0.85), (0.2, 0.7), (1, 0.7))
        atten["field"] = fld
        post.update(
            depth=rng.uniform(0.7, 0.95),
            tau=rng.uniform(20, 90),
            delta_uv=55,
            general=True,
            delta_tau=rng.uniform(200, 900),
        )
    elif t == "polyspike_wave":
        f0 = rng.uniform(3.5, 5.5)
        fld = _gen_field(rng, 0.65)
        rr = min(0.5 / dur, 0.1)
        osc.append(
            _osc(
                0,
                1,
                ((0, f0), (1, f0 * rng.uniform(0.7, 0.95))),
                ((0, 0), (rr, A), (1 - rr, A), (1, 0)),
                fld,
                sw=((0, 1.0), (1, 1.0)),
                poly=int(rng.integers(2, 5)),
                spike_sd=0.012,
                wave_sd=0.07,
                fj=0.18,
                cj=0.4,
                lag=0.02,
                emg_locked=True,
            )
        )
        atten["depth"] = ((0, 0.5), (1, 0.5))
        atten["field"] = fld
        arts.append(dict(kind="emg_locked", uv=rng.uniform(20, 70), p=rng.uniform(0.15, 0.5)))
        post.update(depth=0.2, general=True)
    if atten["field"] is None:
        atten["field"] = osc[-1]["field"]
    return dict(type=t, osc=osc, atten=atten, arts=arts, post=post)


def _gtc_phases(rng, osc, arts, u0, A, e):
    """Tonic (fast, muscle-obscured) then clonic (slowing polyspike-wave) phases from u0."""
    fld = _gen_field(rng, 0.8)
    uc = u0 + (1 - u0) * rng.uniform(0.3, 0.5)
    osc.append(
        _osc(
            u0,
            uc + 0.03,
            ((0, rng.uniform(9, 12)), (1, rng.uniform(5, 7))),
            ((0, 0), (0.2, 0.4 * A), (0.9, 1.1 * A), (1, 0)),
            fld,
            sharp=((0, 0.2), (1, 0.6)),
            fj=0.05,
            lag=0.01,
        )
    )
    osc.append(
        _osc(
            uc,
            1,
            ((0, rng.uniform(3, 4.5)), (0.6, 2.0), (1, rng.uniform(0.6, 1.1))),
            ((0, 0), (0.05, 1.3 * A), (1 - e, 1.4 * A), (1, 0)),
            fld,
            sw=((0, 1), (1, 1)),
            poly=int(rng.integers(2, 5)),
            spike_sd=0.012,
            wave_sd=0.08,
            fj=0.08,
            cj=0.2,
            lag=0.01,
            emg_locked=True,
        )
    )
    arts.append(dict(kind="emg", u=(u0 + 0.02, uc), uv=rng.uniform(30, 100), sites="all"))
    arts.append(dict(kind="emg_locked", uv=rng.uniform(40, 120), p=1.0))
    arts.append(dict(kind="movement", u=(uc, 0.98), per_min=rng.uniform(2, 10)))
