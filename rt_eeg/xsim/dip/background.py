"""Ongoing cortical rhythms as fields of spatially correlated dipoles.

Each rhythm is a distributed source: every cortical dipole carries Gaussian noise with the
rhythm's spectrum, weighted by a regional profile (occipital for the alpha rhythm, central
for mu, frontal for drowsy theta, ...) and correlated along the cortex over a length
``ell`` (plus a share ``rho`` with the homologous dipole of the other hemisphere). Through
the lead field this gives the scalp covariance ``C = L W K W L^T``; its eigenvectors mix a
handful of independent noise rows into the 21 electrodes, which is the same Gaussian field
as simulating the hundreds of dipoles one by one, at a fraction of the cost. Amplitudes are
set on the reference adult head and carried to each patient through its own lead field, so
head size and skull change them as physics would. The rhythms' amplitudes follow the
vigilance states and wax and wane.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from .head import Head, average_reference, landmark, standard_head
from .recording import Recording
from .signals import add_mixed_noise, ctrl_to_samples, lognormal_mod, slow_noise, sos


def region_weights(head: Head, centers) -> np.ndarray:
    """Regional profile over the dipoles: sum of Gaussian caps ``(direction, sd_deg, amp)``.

    Returns mm^2 of cortex per dipole times the profile (dimension of a moment density
    multiplier).
    """
    w = np.zeros(head.n_src)
    for c, sd, amp in centers:
        ang = np.rad2deg(np.arccos(np.clip(head.src @ c, -1, 1)))
        w += amp * np.exp(-0.5 * (ang / sd) ** 2)
    return w * head.area_mm2


def _kernel(head: Head, ell: float, rho: float) -> np.ndarray:
    k = np.exp(-0.5 * (head.dist / ell) ** 2)
    if rho > 0:
        k += rho * np.exp(-0.5 * (head.dist[:, head.mirror] / ell) ** 2)
    return k


def mixing(head: Head, w: np.ndarray, ell: float, rho: float, target_uv: float) -> np.ndarray:
    """Mixing matrix (21, r) of a distributed rhythm.

    Parameters
    ----------
    w : ndarray, shape (S,)
        Regional weights.
    ell : float
        Correlation length along the cortex, cm.
    rho : float
        Correlation with the homologous dipole (0-1).
    target_uv : float
        RMS (average reference) at the most involved electrode on the reference head.
    """
    std = standard_head()
    kw = _kernel(head, ell, rho) * w[None, :] * w[:, None]
    c0 = std.lead @ kw @ std.lead.T
    c0 = average_reference(average_reference(c0).T)
    scale = target_uv / np.sqrt(max(float(np.max(np.diag(c0))), 1e-12))
    c = head.lead @ kw @ head.lead.T * scale**2
    lam, vec = np.linalg.eigh(0.5 * (c + c.T))
    lam, vec = np.clip(lam[::-1], 0, None), vec[:, ::-1]
    # Keep (nearly) every direction: bipolar derivations see the small ones.
    keep = int(np.sum(lam > 1e-5 * max(lam[0], 1e-12)))
    return vec[:, :keep] * np.sqrt(lam[:keep])


def _both(name: str, sd: float, amp_left: float = 1.0, amp_right: float = 1.0):
    return [(landmark(name, "left"), sd, amp_left), (landmark(name, "right"), sd, amp_right)]


def _focus_dir(patient: dict, which: str = "focus") -> np.ndarray:
    epi = patient["epilepsy"]
    base = landmark(epi[which] if which in epi else epi["focus"], epi["side"])
    return base


def components(rec: Recording) -> list[dict]:
    """The background rhythms of this patient: spatial profile, spectrum, amplitude, how
    they follow the states, how they wax and wane."""
    p = rec.patient
    bg = p["background"]
    head = rec.head
    enc = bg["enceph"]
    out = []
    # Broadband (1/f) activity everywhere, a little stronger frontally and posteriorly.
    out.append(
        {
            "name": "broadband",
            "w": region_weights(
                head,
                [
                    (landmark("vertex"), 180.0, 1.0),
                    *_both("dorsolateral_frontal", 40.0, 0.3, 0.3),
                    *_both("occipital", 40.0, 0.3, 0.3),
                ],
            ),
            "ell": 0.8,
            "rho": 0.0,
            "uv": bg["broad_uv"],
            "filt": ("power", bg["broad_slope"], 0.7),
            "tier": "full",
            "states": {
                "wake_ec": 1.0,
                "wake_eo": 1.0,
                "drowsy": 1.05,
                "n2": 1.15,
                "n3": 1.3,
                "rem": 0.95,
            },
            "mod": (3.0, 0.15),
        }
    )
    rl = bg["pdr_right_left"]
    ant = bg["pdr_anterior"]
    block = bg["pdr_block"]
    out.append(
        {
            "name": "alpha",
            "w": region_weights(
                head,
                [
                    *_both("occipital", 26.0, 1.0, rl),
                    *_both("parietal", 28.0, 0.45 + ant * 0.4, (0.45 + ant * 0.4) * rl),
                    *_both("posterior_temporal", 22.0, 0.3, 0.3 * rl),
                ],
            ),
            "ell": 2.2,
            "rho": 0.6,
            "uv": bg["pdr_uv"],
            "filt": ("band", bg["pdr_hz"] - bg["pdr_bw"] / 2, bg["pdr_hz"] + bg["pdr_bw"] / 2),
            "states": {
                "wake_ec": 1.0,
                "wake_eo": block,
                "drowsy": 0.25,
                "n2": 0.02,
                "n3": 0.0,
                "rem": 0.12,
            },
            "mod": (1.2, 0.35 + 0.2 * enc),
        }
    )
    out.append(
        {
            "name": "alpha_drowsy",
            "w": region_weights(
                head,
                [
                    *_both("central", 35.0),
                    *_both("parietal", 35.0),
                    (landmark("frontal_midline"), 35.0, 0.6),
                ],
            ),
            "ell": 2.5,
            "rho": 0.6,
            "uv": 0.55 * bg["pdr_uv"],
            "filt": ("band", bg["pdr_hz"] - 1.6, bg["pdr_hz"] - 0.4),
            "states": {"drowsy": 1.0, "rem": 0.3},
            "mod": (2.5, 0.8),
        }
    )
    if bg["mu_uv"] > 0:

        def arcs(z):
            return z + 0.35 * (z * z - 1.0)

        out.append(
            {
                "name": "mu",
                "w": region_weights(head, _both("central", 14.0)),
                "ell": 1.4,
                "rho": 0.3,
                "uv": bg["mu_uv"],
                "filt": ("band", bg["mu_hz"] - 0.5, bg["mu_hz"] + 0.5),
                "states": {"wake_eo": 1.0, "wake_ec": 0.7, "drowsy": 0.3},
                "mod": (2.0, 0.9),
                "shaper": arcs,
            }
        )
    out.append(
        {
            "name": "beta",
            "w": region_weights(
                head,
                [
                    (landmark("frontal_midline"), 45.0, 1.0),
                    *_both("dorsolateral_frontal", 35.0, 0.7, 0.7),
                    *_both("central", 35.0, 0.6, 0.6),
                ],
            ),
            "ell": 0.8,
            "rho": 0.0,
            "uv": bg["beta_uv"],
            "filt": ("band", bg["beta_hz"] - 4.0, bg["beta_hz"] + 5.0),
            "tier": "full",
            "states": {
                "wake_ec": 1.0,
                "wake_eo": 1.0,
                "drowsy": 1.6,
                "n2": 1.3,
                "n3": 0.6,
                "rem": 1.0,
            },
            "mod": (1.5, 0.35),
        }
    )
    out.append(
        {
            "name": "theta",
            "w": region_weights(
                head,
                [
                    (landmark("frontal_midline"), 40.0, 1.0),
                    *_both("central", 40.0, 0.6, 0.6),
                    *_both("mid_temporal", 30.0, 0.4, 0.4),
                ],
            ),
            "ell": 1.8,
            "rho": 0.5,
            "uv": bg["theta_uv"],
            "filt": ("band", 4.0, 7.5),
            "states": {
                "wake_ec": 0.6,
                "wake_eo": 0.5,
                "drowsy": 2.0,
                "n2": 1.3,
                "n3": 0.9,
                "rem": 1.5,
            },
            "mod": (2.0, 0.45),
        }
    )
    out.append(
        {
            "name": "delta",
            "w": region_weights(
                head, [(landmark("vertex"), 180.0, 0.6), (landmark("frontal_midline"), 50.0, 1.0)]
            ),
            "ell": 2.0,
            "rho": 0.5,
            "uv": bg["delta_uv"],
            "filt": ("band", 0.5, 3.5),
            "states": {
                "wake_ec": 1.0,
                "wake_eo": 1.0,
                "drowsy": 1.4,
                "n2": 1.5,
                "n3": 1.5,
                "rem": 1.3,
            },
            "mod": (4.0, 0.4),
        }
    )
    out.append(
        {
            "name": "slow_wave_sleep",
            "w": region_weights(
                head,
                [
                    (landmark("vertex"), 180.0, 0.5),
                    (landmark("frontal_midline"), 45.0, 1.0),
                    *_both("dorsolateral_frontal", 35.0, 0.5, 0.5),
                ],
            ),
            "ell": 2.0,
            "rho": 0.6,
            "uv": bg["sws_delta_uv"],
            "filt": ("band", 0.4, 2.2),
            "states": {"n3": 1.0, "n2": 0.15, "drowsy": 0.04, "rem": 0.04},
            "mod": (8.0, 0.3),
        }
    )
    if enc > 0:
        out.append(
            {
                "name": "diffuse_slowing",
                "w": region_weights(
                    head,
                    [(landmark("vertex"), 180.0, 1.0), (landmark("frontal_midline"), 60.0, 0.5)],
                ),
                "ell": 2.5,
                "rho": 0.6,
                "uv": 30.0 * enc,
                "filt": ("band", 1.5, 6.0),
                "states": {
                    "wake_ec": 1.0,
                    "wake_eo": 1.0,
                    "drowsy": 1.1,
                    "n2": 1.0,
                    "n3": 0.8,
                    "rem": 0.9,
                },
                "mod": (6.0, 0.35),
            }
        )
    if bg["focal_slow_uv"] > 0:
        epi = p["epilepsy"]
        if bg["focal_slow_same_as_focus"]:
            c = landmark(epi["focus"], epi["side"])
        else:
            c = landmark(
                "mid_temporal" if epi["focus"] != "mid_temporal" else "parietal",
                "left" if epi["side"] == "right" else "right",
            )
        out.append(
            {
                "name": "focal_slowing",
                "w": region_weights(head, [(c, 16.0, 1.0)]),
                "ell": 1.2,
                "rho": 0.0,
                "uv": bg["focal_slow_uv"],
                "filt": ("band", 0.7, 3.5, 1),
                "states": {
                    "wake_ec": 1.0,
                    "wake_eo": 0.9,
                    "drowsy": 1.3,
                    "n2": 1.2,
                    "n3": 1.0,
                    "rem": 1.1,
                },
                "mod": (5.0, 0.7),
            }
        )
    return out


def render_background(rec: Recording, rng: np.random.Generator) -> None:
    """Add every background rhythm into ``rec.bg``.

    Rhythms below ~25 Hz are synthesised at a quarter-ish rate (about 64 Hz) and brought up
    to the recording's rate by one polyphase interpolation: a rhythm's field needs all 21
    noise rows (bipolar chains see its small eigen-directions), so this is where the time
    goes.
    """
    fs, n = rec.fs, rec.n
    q = max(1, int(fs // 64))
    fs_lo = fs / q
    n_lo = n // q + 2
    lo = np.zeros((rec.bg.shape[0], n_lo), dtype=np.float32)
    n_ctrl = rec.n_ctrl
    for comp in components(rec):
        full = comp.get("tier") == "full" or q == 1
        mix = mixing(rec.head, comp["w"], comp["ell"], comp["rho"], comp["uv"])
        tau, sd = comp["mod"]
        env = rec.plan.mix(comp["states"])
        env *= lognormal_mod(rng, n_ctrl, tau, sd) * lognormal_mod(rng, n_ctrl, 30.0, 0.15)
        if comp["name"] == "alpha_drowsy":
            # Drowsy alpha comes and goes in runs of seconds (fragmentation).
            env *= 1 / (1 + np.exp(-2.5 * slow_noise(rng, n_ctrl, 3.0)))
        kind, a, b, *order = comp["filt"]
        f_s, out = (fs, rec.bg) if full else (fs_lo, lo)
        filt = sos(kind, f_s, a, b, *order)
        add_mixed_noise(
            out, mix, filt, ctrl_to_samples(env, out.shape[1], f_s), rng, f_s, comp.get("shaper")
        )
    if q > 1:
        for r in range(lo.shape[0]):  # row by row: no second full-size buffer
            rec.bg[r] += signal.resample_poly(lo[r], q, 1)[:n].astype(np.float32)
