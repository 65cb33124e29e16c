"""Neural-mass EEG generator: cortical patches of Wendling-Chauvel-Bartolomei masses.

Twenty-four cortical patches, each a Wendling neural mass (pyramidal cells, excitatory
interneurons, slow dendritic and fast somatic inhibition) driven by noisy afferent input,
coupled to their neighbours and homologues, are projected to the 21 electrodes through a
smooth lead field. Vigilance states are parameter regimes of the masses (posterior alpha
generators, beta, slowing with sleep) plus thalamocortical drives (spindles, K-complexes,
vertex waves, slow oscillation). Seizures are slow changes of excitation and inhibition in
the onset zone during the requested interval that spread to coupled patches; generalised
spike-wave is paced by thalamocortical volleys. Artifacts are added on the scalp.

The model code lives in :mod:`rt_eeg.xsim.nmm`; this module is the registry entry point.
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import interp1d
from scipy.ndimage import median_filter
from scipy.signal import butter, sosfilt, sosfilt_zi

from rt_eeg.xsim.base import Rendered
from rt_eeg.xsim.nmm import artifacts, background, head, mass, seizures

NAME = "nmm"
DESCRIPTION = (
    "Wendling neural-mass cortical patches (noise-driven, coupled) through a smooth lead "
    "field; seizures as E/I parameter paths with spread; scalp artifacts"
)


def draw_patient(rng: np.random.Generator) -> dict:
    """Draw one patient's fixed traits (JSON-serialisable)."""
    age = float(
        rng.choice(
            [rng.uniform(1, 12), rng.uniform(12, 20), rng.uniform(20, 65), rng.uniform(65, 90)],
            p=[0.18, 0.12, 0.55, 0.15],
        )
    )
    bg = background.draw_traits(rng, age)
    ep = seizures.draw_epilepsy(rng, age)
    if bg["focal_slowing"]:
        foc = seizures.focus_patches(ep)
        slowing_patch = foc[-1] if not ep["generalised"] and rng.random() < 0.7 else None
        if slowing_patch is None:
            slowing_patch = str(rng.choice([n for n in head.PATCH_NAMES if head.side(n) != "M"]))
    else:
        slowing_patch = None
    role_gain = {"posterior": 1.3, "rolandic": 0.7, "frontal": 0.35, "temporal": 0.9, "mesial": 1.0}
    gains = [role_gain[r] * float(rng.lognormal(0, 0.15)) for r in head.ROLES]
    return {
        "age": age,
        "background": bg,
        "epilepsy": ep,
        "artifacts": artifacts.draw_traits(rng),
        "slowing_patch": slowing_patch,
        "head": {
            "jitter": rng.normal(0, 4.0, (head.N_PATCH, 2)).tolist(),
            "width": rng.uniform(0.85, 1.2, head.N_PATCH).tolist(),
            "gains": gains,
            "coupling": float(rng.uniform(3.0, 6.0)),
            "callosal": float(rng.uniform(0.2, 0.5)),
            "delay_ms": float(rng.uniform(6.0, 14.0)),
        },
    }


def _remove_baseline(v: np.ndarray, fs: float) -> None:
    """Subtract each patch's slow level (regime-dependent DC) in place.

    A running median of 1/8 s block means over 4 s follows level changes between parameter
    regimes (which would otherwise leave large slow transients after the amplifier's
    high-pass) while leaving rhythms above ~0.3 Hz alone.
    """
    bs = max(1, int(round(fs / 8)))
    nb = v.shape[1] // bs
    if nb < 2:
        v -= v.mean(axis=1, keepdims=True)
        return
    means = v[:, : nb * bs].reshape(v.shape[0], nb, bs).mean(axis=2)
    med = median_filter(means, size=(1, 33), mode="nearest")
    tb = (np.arange(nb) + 0.5) * bs
    ts = np.arange(v.shape[1])
    for i in range(v.shape[0]):
        v[i] -= np.interp(ts, tb, med[i]).astype(v.dtype)


def render(
    patient: dict,
    duration_s: float,
    sfreq: float,
    seizures_: list[tuple[float, float]],
    rng: np.random.Generator,
) -> Rendered:
    """Render one recording (see :mod:`rt_eeg.xsim.base`)."""
    n_out = int(round(duration_s * sfreq))
    lay = mass.make_layout(sfreq, n_out)
    bg, ep, hd = patient["background"], patient["epilepsy"], patient["head"]
    events: list[tuple[float, float, str]] = []

    t_ctrl = lay.t0 + np.arange(lay.n_ctrl()) / lay.fs_ctrl
    t_drive = lay.t0 + np.arange(lay.n_drive()) / lay.fs_drive
    states = background.schedule(rng, duration_s, bg)
    for t0, t1, st in states:
        events.append((float(t0), float(t1), f"state_{st}"))
    ec = background.eyes_closed_mask(rng, t_ctrl, states)
    params = background.role_params(bg, patient["slowing_patch"])
    ctrl = background.build_ctrl(t_ctrl, states, ec, params, lay.fs_ctrl)
    vis = np.ones((head.N_PATCH, len(t_ctrl)))
    drive = np.zeros((head.N_PATCH, len(t_drive)), dtype=np.float32)
    background.pink_drive(rng, drive, lay.fs_drive, bg["pink_level"])
    background.sleep_drive(rng, drive, t_drive, lay.fs_drive, states, bg, events)

    def state_at(t: float) -> str:
        for t0, t1, st in states:
            if t0 <= t < t1:
                return st
        return states[-1][2]

    plans = []
    for a, b in seizures_:
        sz = seizures.plan_seizure(rng, ep, float(a), float(b), state_at(a))
        seizures.apply_seizure(rng, sz, ctrl, t_ctrl, vis, drive, t_drive, lay.fs_drive)
        plans.append(sz)
    seizures.interictal(rng, ep, states, list(seizures_), drive, t_drive, lay.fs_drive, events)

    # Autonomous ictal limit cycles keep their phase, so those stretches are integrated as
    # single segments; paced discharges in excitable cortex forget their start and need not.
    protected = [
        (int(np.floor((a - 2.0) / lay.chunk_s)), int(np.ceil((b + 4.0) / lay.chunk_s)))
        for a, b in (seizures.limit_cycle_span(sz) for sz in plans)
        if b > a
    ]
    coupling = head.coupling_matrix(hd["coupling"], hd["callosal"])
    delay = max(1, int(round(hd["delay_ms"] * 1e-3 * lay.fs_int)))
    seed = int(rng.integers(0, 2**31 - 1))
    v = mass.run(lay, protected, ctrl, drive, coupling, delay, seed)[:, :n_out]
    _remove_baseline(v, sfreq)

    # Surface-negative convention: pyramidal depolarisation appears negative on the scalp.
    t_out = np.arange(n_out) / sfreq
    scale = -bg["gain_uv_per_mv"]
    for i in range(head.N_PATCH):
        if np.all(vis[i] == 1.0):
            v[i] *= np.float32(scale)
        else:
            v[i] *= (scale * np.interp(t_out, t_ctrl, vis[i])).astype(np.float32)
    lf = head.lead_field(hd["jitter"], hd["width"], hd["gains"]).astype(np.float32)
    eeg = lf @ v
    del v

    load = float(
        rng.choice(
            [rng.uniform(0.3, 0.8), rng.uniform(0.8, 1.5), rng.uniform(2.0, 4.0)],
            p=[0.3, 0.45, 0.25],
        )
    )
    closed = interp1d(t_ctrl, ec, kind="previous", assume_sorted=True)
    awake = [(t0, t1) for t0, t1, st in states if st == "awake"]

    def eyes_open(t: float) -> bool:
        return any(t0 <= t < t1 for t0, t1 in awake) and float(closed(t)) < 0.5

    artifacts.add_artifacts(
        rng, eeg, sfreq, states, eyes_open, plans, patient["artifacts"], load, events
    )
    artifacts.bad_channels(rng, eeg, sfreq, load, events)

    # Amplifier: first-order-like high-pass (0.3 Hz) started at the first sample's level.
    sos = butter(1, 0.3, btype="highpass", fs=sfreq, output="sos")
    zi0 = sosfilt_zi(sos)
    for ch in range(eeg.shape[0]):
        eeg[ch] = sosfilt(sos, eeg[ch], zi=zi0 * eeg[ch, 0])[0]
    events.sort(key=lambda e: e[0])
    return Rendered(
        eeg=np.ascontiguousarray(eeg, dtype=np.float32),
        seizure_types=[p["label"] for p in plans],
        events=events,
    )
