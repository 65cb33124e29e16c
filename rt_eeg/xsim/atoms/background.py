"""Background activity: dense atom processes whose rates and amplitudes follow the state.

* aperiodic activity: Gabor atoms of every frequency (0.5-45 Hz) on many broad and local
  fields, amplitudes set so that their sum has a ``1/f**chi`` spectrum (steeper in sleep);
* the posterior dominant rhythm: long alpha atoms posteriorly, overlapping in waxing and
  waning trains, blocked by eye opening, slowing and dropping out in drowsiness;
* mu (arciform central alpha), frontocentral beta, theta of drowsiness, delta of sleep;
* focal polymorphic slowing or diffuse slowing where the patient has it.
"""

from __future__ import annotations

import numpy as np

from rt_eeg.xsim.atoms import fields as F
from rt_eeg.xsim.atoms.render import GABOR, Scene
from rt_eeg.xsim.atoms.states import Timeline, poisson_times

#                    EO    EC   DROWSY  N2    N3   REM
_APER_AMP = np.array([1.0, 0.95, 1.1, 1.25, 1.4, 0.85])
_APER_CHI = np.array([0.0, 0.0, 0.15, 0.35, 0.6, 0.05])
_APER_KNEE = np.array([3.0, 3.0, 2.0, 1.0, 0.4, 2.0])  # Hz: awake spectra flatten below it
_PDR_RATE = np.array([1.0, 2.2, 0.9, 0.15, 0.0, 0.25])
_PDR_AMP = np.array([0.25, 1.0, 0.45, 0.25, 0.0, 0.25])
_PDR_SHIFT = np.array([0.15, 0.0, -0.8, -1.2, -1.2, -0.6])
_MU_RATE = np.array([1.2, 1.0, 0.4, 0.0, 0.0, 0.3])
_BETA_RATE = np.array([3.0, 3.0, 3.5, 2.0, 1.0, 3.0])
_BETA_AMP = np.array([1.0, 1.0, 1.3, 0.8, 0.6, 0.9])
_THETA_RATE = np.array([0.4, 0.5, 2.2, 1.4, 0.8, 1.8])
_DELTA_RATE = np.array([0.1, 0.1, 0.5, 1.6, 3.5, 0.4])
_DELTA_AMP = np.array([15.0, 15.0, 22.0, 45.0, 110.0, 18.0])
_SLOW_RATE = np.array([1.0, 1.0, 1.6, 1.6, 1.3, 1.0])


def _log_power_freqs(n: int, fmin: float, fmax: float, g: float, rng) -> np.ndarray:
    """Frequencies with density per octave proportional to ``f**g``."""
    u = rng.random(n)
    if abs(g) < 1e-6:
        return fmin * (fmax / fmin) ** u
    return (fmin**g + u * (fmax**g - fmin**g)) ** (1.0 / g)


def _cycles(n: int, median: float, sigma: float, lo: float, hi: float, rng) -> np.ndarray:
    """Envelope widths in cycles (``sigma_t * f``), log-normal and clipped."""
    return np.clip(median * np.exp(sigma * rng.standard_normal(n)), lo, hi)


def _gabors(scene, t, amp, f, ncyc, ids, rng, *, k=0.0, phase=None) -> None:
    n = len(t)
    ph = rng.uniform(0.0, 2.0 * np.pi, n) if phase is None else phase
    scene.add(GABOR, t, amp, f, ncyc / f, ph, k, topo=ids, brain=True)


def aperiodic(scene: Scene, tl: Timeline, patient: dict, rng, amp_scale: float) -> None:
    """Broadband atoms on ~14 broad fields and 21 electrode-local fields."""
    fmax = min(45.0, 0.4 * scene.fs)
    n_broad = 14
    centres = F.random_centres(n_broad, rng)
    widths = rng.uniform(25.0, 48.0, n_broad)
    broad = F.gauss(centres, widths)
    dip = rng.random(n_broad) < 0.25
    if dip.any():
        broad[dip] = F.dipole(centres[dip], rng.standard_normal((int(dip.sum()), 3)), widths[dip])
    broad_ids = scene.fields(F.roughen(broad, 0.1, rng))
    local_ids = scene.fields(F.roughen(F.local(rng.uniform(12.0, 17.0)), 0.15, rng))
    chi0 = patient["chi"]
    for ids, rate, g, amp0 in ((broad_ids, 6.0, 0.5, 7.0), (local_ids, 4.0, 0.8, 3.5)):
        n = rng.poisson(rate * len(ids) * (tl.duration + 4.0))
        t = rng.uniform(-2.0, tl.duration + 2.0, n)
        f = _log_power_freqs(n, 0.5, fmax, g, rng)
        w = tl.weights(np.clip(t, 0, tl.duration))
        chi = chi0 + _APER_CHI @ w
        a = amp0 * amp_scale * (_APER_AMP @ w) * (f / 10.0) ** ((2.0 - g - chi) / 2.0)
        a /= np.sqrt(1.0 + ((_APER_KNEE @ w) / f) ** 2)
        a *= np.exp(0.45 * rng.standard_normal(n))
        field_w = np.exp(0.3 * rng.standard_normal(len(ids)))  # some sources are stronger
        pick = rng.integers(0, len(ids), n)
        _gabors(
            scene,
            t,
            a * field_w[pick],
            f,
            _cycles(n, 0.6, 0.35, 0.3, 2.0, rng),
            ids[pick],
            rng,
            k=rng.choice([0.0, 0.4, 1.0], n, p=[0.7, 0.2, 0.1]),
        )


def posterior_rhythm(scene: Scene, tl: Timeline, patient: dict, rng, amp_scale: float) -> None:
    """Alpha atoms (0.3-1 s envelopes) over the occipital regions; they overlap into trains."""
    pdr = patient["pdr"]
    if not pdr["present"]:
        return
    w = pdr["width"]
    lc = F.unit(F.region_centre("L_occipital") + pdr["spread"] * F.region_centre("L_parietal"))
    rc = F.mirror(lc)
    mid = F.unit(lc + rc)
    flds = F.gauss(np.vstack([lc, rc, mid]), [w, w, w + 6.0])
    ids = scene.fields(F.roughen(flds, 0.08, rng))
    side_amp = np.array([1.0, pdr["asym"], 1.1]) / np.sqrt(pdr["asym"])
    t = poisson_times(tl, _PDR_RATE, rng)
    n = len(t)
    if n == 0:
        return
    wts = tl.weights(t)
    f = pdr["freq"] + _PDR_SHIFT @ wts + 0.25 * rng.standard_normal(n)
    # waxing and waning: a slow modulation besides the overlap of atoms of random phase
    wax = 1.0 + 0.35 * np.sin(2 * np.pi * t / rng.uniform(3.0, 8.0) + rng.uniform(0, 6.3))
    pick = rng.choice(3, n, p=[0.3, 0.3, 0.4])
    a = pdr["amp"] * amp_scale * (_PDR_AMP @ wts) * wax * np.exp(0.3 * rng.standard_normal(n))
    _gabors(
        scene,
        t,
        a * side_amp[pick],
        f,
        _cycles(n, 4.0, 0.4, 2.0, 9.0, rng),
        ids[pick],
        rng,
        k=rng.uniform(0.0, 0.6, n),
    )


def mu_rhythm(scene: Scene, tl: Timeline, patient: dict, rng, amp_scale: float) -> None:
    """Arciform central rhythm (sharp negative, rounded positive phases) at C3/C4."""
    amp = patient["variants"]["mu"]
    if not amp:
        return
    c = F.jitter(F.region_centre("L_central"), 5.0, rng)
    ids = scene.fields(F.gauss(np.vstack([c, F.mirror(c)]), rng.uniform(20.0, 28.0)))
    t = poisson_times(tl, _MU_RATE, rng)
    n = len(t)
    f = patient["pdr"]["freq"] + rng.uniform(-0.5, 1.5) + 0.3 * rng.standard_normal(n)
    a = -amp * amp_scale * np.exp(0.3 * rng.standard_normal(n))
    _gabors(
        scene,
        t,
        a,
        f,
        _cycles(n, 3.0, 0.3, 1.5, 6.0, rng),
        ids[rng.integers(0, 2, n)],
        rng,
        k=rng.uniform(1.5, 3.0, n),
        phase=np.zeros(n),
    )


def beta(scene: Scene, tl: Timeline, patient: dict, rng, amp_scale: float) -> None:
    """Frontocentral beta in spindly bursts (benzodiazepine patients have much more)."""
    names = ("F3", "F4", "FZ", "C3", "C4", "CZ", "FP1", "FP2")
    cs = F.jitter(F.XYZ[[F.IDX[e] for e in names]], 8.0, rng)
    ids = scene.fields(F.gauss(cs, rng.uniform(20.0, 35.0, len(cs))))
    t = poisson_times(tl, _BETA_RATE, rng)
    n = len(t)
    f = np.clip(rng.normal(19.0, 4.0, n), 13.0, min(32.0, 0.35 * scene.fs))
    a = (
        patient["beta"]
        * amp_scale
        * (_BETA_AMP @ tl.weights(t))
        * np.exp(0.4 * rng.standard_normal(n))
    )
    _gabors(
        scene, t, a, f, _cycles(n, 4.0, 0.4, 2.0, 10.0, rng), ids[rng.integers(0, len(ids), n)], rng
    )


def theta_delta(scene: Scene, tl: Timeline, patient: dict, rng, amp_scale: float) -> None:
    """Frontocentral theta of drowsiness and frontal-predominant delta of sleep."""
    th_c = F.jitter(F.XYZ[[F.IDX[e] for e in ("FZ", "CZ", "F3", "F4", "T3", "T4")]], 10.0, rng)
    th_ids = scene.fields(F.gauss(th_c, rng.uniform(30.0, 45.0, len(th_c))))
    t = poisson_times(tl, _THETA_RATE, rng, scale=patient["theta"])
    n = len(t)
    f = rng.uniform(4.0, 7.5, n)
    a = 18.0 * amp_scale * patient["theta"] ** 0.5 * np.exp(0.35 * rng.standard_normal(n))
    _gabors(
        scene,
        t,
        a,
        f,
        _cycles(n, 1.2, 0.4, 0.5, 3.0, rng),
        th_ids[rng.integers(0, len(th_c), n)],
        rng,
        k=rng.uniform(0.0, 1.0, n),
    )
    de_c = F.jitter(F.XYZ[[F.IDX[e] for e in ("FZ", "F3", "F4", "FP1", "FP2", "CZ")]], 10.0, rng)
    de_ids = scene.fields(F.gauss(de_c, rng.uniform(35.0, 55.0, len(de_c))))
    t = poisson_times(tl, _DELTA_RATE, rng)
    n = len(t)
    f = np.exp(rng.uniform(np.log(0.6), np.log(3.5), n))
    a = amp_scale * (_DELTA_AMP @ tl.weights(t)) * np.exp(0.35 * rng.standard_normal(n))
    _gabors(
        scene,
        t,
        a,
        f,
        _cycles(n, 0.6, 0.3, 0.35, 1.2, rng),
        de_ids[rng.integers(0, len(de_c), n)],
        rng,
        k=rng.uniform(0.0, 1.0, n),
    )


def slowing(scene: Scene, tl: Timeline, patient: dict, rng, amp_scale: float) -> None:
    """Focal polymorphic delta (irregular shapes, continuous) or diffuse theta-delta."""
    slow = patient["slowing"]
    if slow["kind"] == "none":
        return
    if slow["kind"] == "focal":
        c = np.asarray(slow["centre"])
        ids = scene.fields(F.gauss(F.jitter(np.vstack([c, c, c]), 6.0, rng), slow["width"]))
        rate = _SLOW_RATE
        fmin, fmax = 0.8, 4.0
    else:
        ids = scene.fields(F.gauss(F.random_centres(8, rng, 0.2), rng.uniform(40.0, 70.0, 8)))
        rate = 2.0 * _SLOW_RATE
        fmin, fmax = 1.0, 6.5
    t = poisson_times(tl, rate, rng)
    n = len(t)
    f = np.exp(rng.uniform(np.log(fmin), np.log(fmax), n))
    a = slow["amp"] * amp_scale * np.exp(0.35 * rng.standard_normal(n)) * (f / 2.0) ** -0.3
    _gabors(
        scene,
        t,
        a,
        f,
        _cycles(n, 0.6, 0.35, 0.35, 1.5, rng),
        ids[rng.integers(0, len(ids), n)],
        rng,
        k=rng.uniform(0.0, 1.0, n),
    )


def add_background(scene: Scene, tl: Timeline, patient: dict, rng, amp_scale: float) -> None:
    """Every background process of this module."""
    for proc in (aperiodic, posterior_rhythm, mu_rhythm, beta, theta_delta, slowing):
        proc(scene, tl, patient, rng, amp_scale)
