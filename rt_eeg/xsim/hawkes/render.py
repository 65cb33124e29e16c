"""Assembly of one recording: geometry, state timeline, seizures, background synthesis,
transients and artifacts."""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.base import ELECTRODES, Rendered
from rt_eeg.xsim.hawkes import network, states
from rt_eeg.xsim.hawkes.artifacts import Continuous, draw_artifacts
from rt_eeg.xsim.hawkes.ictal import render_seizure
from rt_eeg.xsim.hawkes.leadfield import angles, lead_field, patch_positions, patch_regions
from rt_eeg.xsim.hawkes.transients import draw_transients

#: Share of a patch's innovation that comes from the smooth common (thalamic) inputs.
COHERENCE = 0.45


def _patch_amp(pt: dict, params: dict, xyz, region, side) -> tuple[np.ndarray, np.ndarray]:
    """RMS (n_states, n_patches) and extra self-excitation (focal slowing) of every patch."""
    amp = params["amp"][:, region].copy()
    amp *= float(pt["left_right"]) ** (0.5 * side)[None, :]
    post = np.isin(region, (3, 4))
    amp[:, post] *= float(pt["alpha_asym"]) ** (0.5 * side[post])[None, :]
    th = angles(xyz, np.asarray(pt["focus"])[None, :])[:, 0]
    rho_add = np.zeros_like(amp)
    awake = [states.STATES.index(s) for s in ("awake_eo", "awake_ec", "drowsy", "arousal")]
    near = np.exp(-0.5 * (th / 0.35) ** 2)
    rho_add[awake] = float(pt["focal_slowing"]) * near[None, :]
    return amp, rho_add


def _calibrate(lf, amp_ec, mixing, target_uv: float) -> float:
    """Gain that makes the median electrode RMS of eyes-closed wakefulness ``target_uv``."""
    corr = (1.0 - COHERENCE) * np.eye(lf.shape[1]) + mixing.astype(np.float64) @ mixing.T
    cov = corr * np.outer(amp_ec, amp_ec)
    var = np.einsum("ep,pq,eq->e", lf, cov, lf)
    return target_uv / float(np.median(np.sqrt(var)))


def render(patient: dict, duration_s: float, sfreq: float, seizures, rng) -> Rendered:
    """Render one recording.

    Parameters
    ----------
    patient : dict
        From :func:`rt_eeg.xsim.hawkes.patient.draw_patient`.
    duration_s : float
    sfreq : float
        Sample rate, 100-1024 Hz.
    seizures : list of (start_s, stop_s)
        Sorted, disjoint intervals that get seizure activity (and nothing else does).
    rng : numpy.random.Generator

    Returns
    -------
    Rendered
        21 x round(duration_s * sfreq) float32 microvolts, one type from
        :data:`~rt_eeg.xsim.hawkes.patient.SEIZURE_TYPES` per seizure, and the drawn events
        (states, transients, artifacts).
    """
    pt = patient
    sfreq = float(sfreq)
    n = int(round(duration_s * sfreq))
    duration = n / sfreq
    seizures = [(float(a), float(b)) for a, b in seizures]
    xyz = patch_positions(int(pt["n_patches"]), int(pt["geometry_seed"]))
    region, side = patch_regions(xyz)
    lf = lead_field(xyz, float(pt["leadfield_sigma"]), pt["electrode_gain"])

    # independent streams, so that the seizures drawn change nothing but the seizures
    r_state, r_ictal, r_trans, r_art, r_bg = (
        np.random.default_rng(int(s)) for s in rng.integers(0, 2**62, size=5)
    )
    segs = states.draw_timeline(duration, pt, r_state)
    events = [(a, b, f"state_{s}") for a, b, s in segs]
    for (_a0, _b0, s0), (a1, _b1, s1) in zip(segs[:-1], segs[1:], strict=True):
        if s0 in states.SLEEP and s1 in states.AWAKE:
            events.append((a1, round(min(duration, a1 + 5.0), 3), "awakening"))

    types = [str(t) for t in pt["seizure_types"]]
    tw = np.asarray(pt["seizure_type_weights"], dtype=np.float64)
    ictal, kinds, ends = [], [], []
    params = states.state_params(pt)
    awake_amp = params["amp"][states.STATES.index("awake_ec")].mean()
    for a, b in seizures:
        kind = types[int(r_ictal.choice(len(types), p=tw / tw.sum()))]
        # a seizure out of deep sleep stands out of the larger sleep background too
        s_amp = params["amp"][states.STATES.index(states.state_at(segs, a))].mean()
        scale = max(1.0, s_amp / awake_amp) ** 0.8
        sz = render_seizure(a, b, kind, pt, xyz, lf, sfreq, r_ictal, scale=scale)
        ictal.append(sz)
        kinds.append(kind)
        tau_sup, tau_slow = sz["post"]
        ends.append((b, tau_sup, tau_slow))
        if tau_sup > 0 or tau_slow > 0:
            post_end = min(duration, b + 2.0 * tau_sup + tau_slow)
            if post_end > b:
                events.append((round(b, 3), round(post_end, 3), "postictal"))

    pieces, ev = draw_transients(segs, duration, pt, sfreq, xyz, lf, seizures, r_trans)
    events += ev
    art, ev = draw_artifacts(segs, duration, pt, sfreq, r_art)
    pieces += art
    events += ev
    cont = Continuous(pt, n, sfreq, r_art)
    events += cont.events

    amp, rho_add = _patch_amp(pt, params, xyz, region, side)
    power = network.state_power(params, region, amp, rho_add, sfreq)
    mixing = network.thalamic_inputs(xyz, COHERENCE)
    lf_bg = lf * _calibrate(lf, amp[states.STATES.index("awake_ec")], mixing,
                            float(pt["amplitude_uv"]))  # fmt: skip
    h = network.frame_len(sfreq)
    times = np.arange(int(np.ceil(n / h)) + 2) * h / sfreq
    weights = states.frame_weights(segs, ends, times)

    eeg = np.full((len(ELECTRODES), n), np.nan, np.float32)  # every sample gets written
    lf32 = lf_bg.astype(np.float32)
    for i0, src in network.synthesize(power, weights, mixing, COHERENCE, n, sfreq, r_bg):
        m = src.shape[1]
        for sz in ictal:  # background suppression of the involved patches
            j0, j1 = max(i0, sz["i0"]), min(i0 + m, sz["i0"] + sz["mult"].shape[1])
            if j1 > j0:
                src[sz["idx"], j0 - i0 : j1 - i0] *= sz["mult"][:, j0 - sz["i0"] : j1 - sz["i0"]]
        eeg[:, i0 : i0 + m] = lf32 @ src
        eeg[:, i0 : i0 + m] += cont.chunk(i0, m, r_art)
    for sz in ictal:
        sc = sz["scalp"][:, : n - sz["i0"]]
        eeg[:, sz["i0"] : sz["i0"] + sc.shape[1]] += sc
    for i0, pat, w in pieces:
        w = w[: n - i0]
        eeg[:, i0 : i0 + w.size] += (pat[:, None] * w[None, :]).astype(np.float32)
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    return Rendered(eeg=eeg, seizure_types=kinds, events=events)
