"""One simulated recording: plan it, generate it block by block, write it as TUH EDF.

The Python API other engineers and tests use:

>>> data, ch_labels, events = simulate_recording(120.0, 250.0, seed=1,
...                                              seizures=[(40.0, 90.0, "focal")])
>>> write_recording("x/aaaaaaaa_s001_t000.edf", 600.0, 256.0, seed=3)  # .edf, .csv_bi, .csv
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

import numpy as np

from rt_eeg.io.annotations import Event, write_csv, write_csv_bi
from rt_eeg.io.atomic import atomic_path
from rt_eeg.sim.artifacts import (
    ARTIFACT_RENDERERS,
    Ecg,
    Fault,
    LineNoise,
    _ecg_template,
    derived_weights,
    draw_artifacts,
    draw_faults,
    draw_more_artifacts,
)
from rt_eeg.sim.background import (
    CTRL_SFREQ,
    SLEEP_RENDERERS,
    Background,
    Timeline,
    draw_sleep_transients,
)
from rt_eeg.sim.benign import BENIGN_RENDERERS, draw_benign
from rt_eeg.sim.families import choose_family
from rt_eeg.sim.layout import (
    EIDX,
    ELECTRODES,
    POSITIONS_DEG,
    check_montage,
    eeg_label,
    montage_electrodes,
    reference_suffix,
    tcp_names,
)
from rt_eeg.sim.profile import PatientProfile
from rt_eeg.sim.seizures import Seizure, SeizureSpec, plan_seizure
from rt_eeg.sim.transients import TransientTrack
from rt_eeg.sim.variety import KIND_FAMILY, Variety, families_present

#: Samples are generated in blocks of this many seconds (bounded memory for long files).
BLOCK_S = 60
#: White amplifier noise (uV rms) on every EEG channel.
AMP_NOISE_UV = 0.7


@dataclass
class RecordingPlan:
    """Everything that defines a recording (the signal is a pure function of it).

    Attributes
    ----------
    duration : float
        Seconds.
    sfreq : float
        Sample rate of the EEG channels (Hz).
    montage : str
        '01_tcp_ar', '02_tcp_le' or '03_tcp_ar_a'.
    profile : PatientProfile
    seed : int
    seizures : list of Seizure
    artifacts : bool
        Whether artifacts (eye, muscle, chewing, pops, line noise, faults) are added.
    state : str or None
        Force one behavioural state ('awake', 'drowsy', 'sleep') for the whole recording.
    variety : Variety or None
        Family mode: the allowed families and this recording's gain, impedances, background
        abnormalities, benign variants and extra artifacts. None: a classic recording.
    """

    duration: float
    sfreq: float
    montage: str
    profile: PatientProfile
    seed: int
    seizures: list[Seizure] = field(default_factory=list)
    artifacts: bool = True
    state: str | None = None
    variety: Variety | None = None

    @property
    def electrodes(self) -> list[str]:
        """Electrodes in the file, in file order."""
        return montage_electrodes(self.montage)

    @property
    def ch_labels(self) -> list[str]:
        """TUH labels of the EEG channels (``EEG FP1-REF`` ...)."""
        return [eeg_label(e, self.montage) for e in self.electrodes]

    def term_events(self) -> list[Event]:
        """csv_bi events: the TERM seizures ('seiz'), sorted."""
        return sorted((sz.term_event() for sz in self.seizures), key=lambda e: e.start)

    def channel_events(self, *, fill: bool = False) -> list[Event]:
        """Per-channel events with TUSZ subtypes, in TCP channel order.

        Parameters
        ----------
        fill : bool
            Add 'bckg' events so every channel covers [0, duration] (as TUSZ csv files do).
        """
        by_ch: dict[str, list[Event]] = {name: [] for name in tcp_names(self.montage)}
        for sz in self.seizures:
            for ev in sz.channel_events(self.montage):
                by_ch[ev.channel].append(ev)
        out: list[Event] = []
        for ch, evs in by_ch.items():
            evs = _merge(sorted(evs, key=lambda e: e.start))
            if not fill:
                out += evs
                continue
            t = 0.0
            for ev in evs:
                if ev.start > t:
                    out.append(Event(t, ev.start, "bckg", 1.0, ch))
                out.append(ev)
                t = ev.stop
            if t < self.duration:
                out.append(Event(t, round(self.duration, 4), "bckg", 1.0, ch))
        return out


def _merge(evs: list[Event]) -> list[Event]:
    """Join overlapping events of one channel (keeps the first label)."""
    out: list[Event] = []
    for ev in evs:
        if out and ev.start <= out[-1].stop:
            last = out[-1]
            out[-1] = Event(last.start, max(last.stop, ev.stop), last.label, 1.0, last.channel)
        else:
            out.append(ev)
    return out


def _as_spec(s) -> SeizureSpec:
    if isinstance(s, SeizureSpec):
        return s
    if isinstance(s, (tuple, list)) and len(s) in (2, 3):
        return SeizureSpec(float(s[0]), float(s[1]), s[2] if len(s) == 3 else None)
    raise ValueError(f"a seizure must be a SeizureSpec or (start, stop[, kind]); got {s!r}")


def plan_recording(
    duration_s: float,
    sfreq: float,
    *,
    seed: int,
    seizures: Sequence | None = None,
    montage: str = "01_tcp_ar",
    profile: PatientProfile | None = None,
    artifacts: bool = True,
    state: str | None = None,
    families=None,
    require=(),
) -> RecordingPlan:
    """Plan a recording: draw every seizure detail not given.

    Parameters
    ----------
    duration_s, sfreq : float
    seed : int
    seizures : sequence of SeizureSpec or (start, stop[, kind]), optional
        Seizure intervals (s); none when omitted.
    montage : str
    profile : PatientProfile, optional
        Drawn from ``seed`` when omitted.
    artifacts : bool
    state : str, optional
        Force 'awake', 'drowsy' or 'sleep' throughout.
    families : collection of str, optional
        Family mode (see :mod:`rt_eeg.sim.families`): the recording draws only from these
        families, and each seizure without a family gets one of the allowed ones (fitting
        its label when it has one). None: a classic recording.
    require : collection of str
        Optional families (benign variants, slowing, breach, rarer artifacts) this recording
        holds for sure (family mode; for tests and figures).
    """
    if not (math.isfinite(duration_s) and duration_s > 0):
        raise ValueError(f"duration {duration_s} is not positive")
    if not (math.isfinite(sfreq) and sfreq >= 50):
        raise ValueError(f"sample rate {sfreq} Hz is below 50 Hz")
    check_montage(montage)
    profile = profile or PatientProfile.draw(seed)
    specs = sorted((_as_spec(s) for s in (seizures or [])), key=lambda s: s.start)
    for a, b in zip(specs, specs[1:], strict=False):
        if b.start < a.stop:
            raise ValueError(f"seizures [{a.start}, {a.stop}] and [{b.start}, {b.stop}] overlap")
    for s in specs:
        if s.start < 0 or s.stop > duration_s + 1e-6:
            raise ValueError(f"seizure [{s.start}, {s.stop}] is outside [0, {duration_s}]")
    variety = None
    if families is not None:
        frng = np.random.default_rng([int(seed), 0xFA3])
        variety = Variety.draw(families, frng, require)
        specs = [_with_family(s, variety.allowed, frng) for s in specs]
    rng = np.random.default_rng([int(seed), 0x51])
    planned = []
    for i, s in enumerate(specs):
        gap = (specs[i + 1].start - s.stop) if i + 1 < len(specs) else math.inf
        planned.append(plan_seizure(s, profile, rng, gap_after=gap))
    return RecordingPlan(float(duration_s), float(sfreq), montage, profile, int(seed), planned,
                         bool(artifacts), state, variety)  # fmt: skip


def _with_family(spec: SeizureSpec, allowed, rng) -> SeizureSpec:
    """``spec`` with a family among ``allowed`` (ValueError if its own is not allowed)."""
    u = float(rng.random())
    if spec.family is not None:
        if spec.family not in allowed:
            raise ValueError(f"seizure family {spec.family!r} is not among the allowed families")
        return spec
    return replace(spec, family=choose_family(allowed, u, label=spec.label))


class RecordingGenerator:
    """Generates a planned recording block by block.

    Parameters
    ----------
    plan : RecordingPlan

    Attributes
    ----------
    n_samples : int
    timeline : Timeline
    """

    def __init__(self, plan: RecordingPlan):
        self.plan = plan
        p = plan
        v = p.variety
        seeds = np.random.SeedSequence([p.seed, 0xEE6]).spawn(8)
        rngs = [np.random.default_rng(s) for s in seeds]
        self.sfreq = p.sfreq
        self.n_samples = int(round(p.duration * p.sfreq))
        if v is None:
            self.timeline = Timeline.draw(p.duration, p.profile, rngs[0], state=p.state)
        else:
            self.timeline = Timeline.draw(p.duration, p.profile, rngs[0], state=p.state,
                                          states=v.states, awake_alpha=v.allows("awake_alpha"))  # fmt: skip
        for sz in p.seizures:  # family mode: alpha fades with recruitment, not in one step
            self.timeline.attenuate("alpha", sz.start, sz.stop, 0.85, max(sz.postictal_s, 5.0),
                                    onset_s=0.0 if v is None else 4.0)  # fmt: skip
        frngs = [np.random.default_rng(s) for s in np.random.SeedSequence([p.seed, 0xFA4]).spawn(4)]
        if v is not None:
            v.add_envelopes(self.timeline, frngs[0])
        self.background = Background(p.profile, p.sfreq, rngs[1], extra=v)
        transients = draw_sleep_transients(p.duration, p.profile, self.timeline, rngs[2])
        if p.artifacts:
            transients += draw_artifacts(p.duration, p.profile, self.timeline, rngs[3])
        if v is not None:
            if p.artifacts:
                transients += draw_more_artifacts(p.duration, self.timeline, v, frngs[1])
            transients += draw_benign(p.duration, self.timeline, v, frngs[2])
            transients = [tr for tr in transients if v.allows(KIND_FAMILY[tr.kind])]
        self.transients = transients
        self.track = TransientTrack(transients, {**SLEEP_RENDERERS, **ARTIFACT_RENDERERS,
                                                 **BENIGN_RENDERERS}, p.sfreq)  # fmt: skip
        self.ecg = Ecg(p.duration, p.profile, p.sfreq, rngs[4])
        if v is not None and not (p.artifacts and v.allows("ecg")):
            self.ecg.leak[:] = 0.0
        line_on = p.artifacts and (v is None or v.allows("line_noise"))
        freq = 60.0 if v is None else v.line_freq
        self.line = LineNoise(p.duration, p.profile, p.sfreq, rngs[5], freq) if line_on else None
        self.faults: list[Fault] = (
            draw_faults(p.duration, p.profile, rngs[6]) if p.artifacts else []
        )
        if v is not None:
            if not v.allows("electrode_pop"):
                self.faults = []
            if self.line is not None:  # poorly attached electrodes pick up more mains
                self.line.amp = self.line.amp * np.sqrt(1.0 + np.asarray(v.elec_noise, np.float32))
            self._elec_gain = np.asarray(v.elec_gain, dtype=np.float32)
            self._noise_uv = np.sqrt(AMP_NOISE_UV**2 + np.asarray(v.elec_noise) ** 2).astype(
                np.float32
            )
        self._noise_rng = rngs[7]
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        file_idx = [EIDX[e] for e in p.electrodes]
        self._file_idx = np.array(file_idx)
        self._le = reference_suffix(p.montage) == "LE"

    def blocks(self, block_s: int = BLOCK_S) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Yield ``(start_sample, eeg, ekg)`` in order.

        ``eeg`` is ``(n, 21)`` float32 microvolts, referenced as the montage says, in
        :data:`ELECTRODES` order (electrodes a file lacks are still present); ``ekg`` is the
        ``(n,)`` EKG lead.
        """
        step = int(round(block_s * self.sfreq))
        for s0 in range(0, self.n_samples, step):
            n = min(step, self.n_samples - s0)
            yield s0, *self._block(s0, n)

    def _block(self, s0: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        sf = self.sfreq
        t = (s0 + np.arange(n)) / sf
        v = self.background.render(self.timeline, t)
        active = []
        for i, sz in enumerate(self.plan.seizures):
            a = int(math.floor(sz.start * sf))
            end = sz.stop + sz.postictal_s
            if sz.start * sf >= s0 + n:
                continue
            if end * sf < s0:
                self._cache.pop(i, None)
                continue
            if i not in self._cache:
                self._cache[i] = sz.render(sf)
            active.append((a, sz, *self._cache[i]))
        for a, sz, _, gain in active:  # every gain first, then the discharges
            i0, i1 = max(s0, a), min(s0 + n, a + int(round((sz.duration + sz.postictal_s) * sf)))
            if i1 <= i0:
                continue
            pos = ((np.arange(i0, i1) - a) / sf) * CTRL_SFREQ
            k = np.clip(pos.astype(np.int64), 0, len(gain) - 2)
            frac = (pos - k).astype(np.float32)[:, None]
            v[i0 - s0 : i1 - s0] *= gain[k] * (1 - frac) + gain[k + 1] * frac
        for a, _, wave, _ in active:
            i0, i1 = max(s0, a), min(s0 + n, a + wave.shape[0])
            if i1 > i0:
                v[i0 - s0 : i1 - s0] += wave[i0 - a : i1 - a]
        self.track.add_to(v, s0)
        ekg = self.ecg.lead(s0, n)
        v += ekg[:, None] * self.ecg.leak[None, :]
        var = self.plan.variety
        if var is not None:  # contact impedance scales what each electrode picks up
            v *= self._elec_gain[None, :]
        if self._le:
            v -= 0.5 * (v[:, EIDX["A1"]] + v[:, EIDX["A2"]])[:, None]
        else:
            v -= v[:, self._file_idx].mean(axis=1, keepdims=True)
        if self.line is not None:
            v += self.line.block(s0, n)
        if var is not None:  # amplifier and electrode noise in one draw
            v *= np.float32(var.gain)
            v += self._noise_rng.standard_normal(v.shape, dtype=np.float32) * self._noise_uv
        else:
            v += AMP_NOISE_UV * self._noise_rng.standard_normal(v.shape, dtype=np.float32)
        for f in self.faults:
            i0, i1 = max(s0, int(f.start * sf)), min(s0 + n, int(f.stop * sf))
            if i1 > i0:
                v[i0 - s0 : i1 - s0, EIDX[f.electrode]] = f.level
        return v, ekg

    def families_present(self) -> list[str]:
        """Families this (family-mode) recording holds, in :data:`FAMILIES` order."""
        if self.plan.variety is None:
            raise ValueError("a classic recording (no variety) has no family list")
        # a line notch-filtered at acquisition (a few tenths of a microvolt) is not there
        line_on = self.line is not None and self.line.freq > 0 and self.line.amp.max() > 0.5
        return families_present(self.plan, self.timeline, self.transients, self.faults,
                                bool(self.ecg.leak.any()), line_on)  # fmt: skip


def simulate_recording(
    duration_s: float,
    sfreq: float,
    *,
    seed: int,
    seizures: Sequence | None = None,
    montage: str = "01_tcp_ar",
    profile: PatientProfile | None = None,
    artifacts: bool = True,
    state: str | None = None,
    families=None,
) -> tuple[np.ndarray, list[str], list[Event]]:
    """Simulate one referential recording in memory.

    Parameters
    ----------
    duration_s : float
        Seconds.
    sfreq : float
        Hz.
    seed : int
        Same seed and arguments, same samples.
    seizures : sequence of SeizureSpec or (start, stop[, kind]), optional
        E.g. ``[(40, 90, "focal"), (200, 212, "absence")]``; kinds in
        :data:`rt_eeg.sim.profile.SEIZURE_KINDS`; a missing kind is drawn for the patient.
    montage : str
        '01_tcp_ar' (21 electrodes), '02_tcp_le' (21) or '03_tcp_ar_a' (19, no A1/A2).
    profile : PatientProfile, optional
        Drawn from ``seed`` when omitted.
    artifacts : bool
        Add artifacts (eye, muscle, chewing, pops, 60 Hz, flat/railing electrode).
    state : str, optional
        Force 'awake', 'drowsy' or 'sleep' throughout.
    families : collection of str, optional
        Family mode: draw only from these families (see :func:`plan_recording`).

    Returns
    -------
    data : np.ndarray
        ``(n_samples, n_electrodes)`` float32 microvolts, file channel order.
    ch_labels : list of str
        TUH labels (``EEG FP1-REF`` ...).
    events : list of Event
        TERM 'seiz' events followed by per-channel events (TUSZ subtypes), seizures only.
    """
    plan = plan_recording(duration_s, sfreq, seed=seed, seizures=seizures, montage=montage,
                          profile=profile, artifacts=artifacts, state=state, families=families)  # fmt: skip
    gen = RecordingGenerator(plan)
    idx = [EIDX[e] for e in plan.electrodes]
    data = np.empty((gen.n_samples, len(idx)), dtype=np.float32)
    for s0, eeg, _ in gen.blocks():
        data[s0 : s0 + len(eeg)] = eeg[:, idx]
    return data, plan.ch_labels, plan.term_events() + plan.channel_events()


# --------------------------------------------------------------------------------------------
# EDF output


@dataclass(frozen=True)
class SignalSpec:
    """One EDF signal and where its samples come from.

    ``source``: 'electrode' (one of the 21, ``site``), 'derived' (an electrode outside the
    21 interpolated from its neighbours, ``site``), 'ekg', 'noise' (an unconnected input)
    or 'zero'.
    """

    label: str
    sfreq: int
    source: str
    site: str = ""
    dimension: str = "uV"
    physical_min: float = -4999.84
    physical_max: float = 4999.847
    digital_min: int = -32767
    digital_max: int = 32767
    prefilter: str = "HP:0.000 Hz LP:0.0 Hz N:0.0"
    transducer: str = "Unknown"

    def header(self) -> dict:
        return {
            "label": self.label, "dimension": self.dimension, "sample_frequency": self.sfreq,
            "physical_min": self.physical_min, "physical_max": self.physical_max,
            "digital_min": self.digital_min, "digital_max": self.digital_max,
            "prefilter": self.prefilter, "transducer": self.transducer,
        }  # fmt: skip


def default_signals(plan: RecordingPlan, extras: str = "tuh", rng=None) -> list[SignalSpec]:
    """EDF signals of a simulated file: the EEG electrodes, then TUH-like extra channels.

    Parameters
    ----------
    plan : RecordingPlan
    extras : str
        'tuh' (EKG, PHOTIC at the EEG rate, sometimes T1/T2 and eye leads, IBI / BURSTS /
        SUPPR at 1 Hz), 'ekg50' (one EKG lead at 50 Hz, for small files) or 'none'.
    rng : np.random.Generator, optional
        Picks the optional leads; derived from the plan's seed when omitted.
    """
    fs = int(round(plan.sfreq))
    if abs(fs - plan.sfreq) > 1e-9:
        raise ValueError(f"EDF output needs an integer sample rate, not {plan.sfreq}")
    rng = rng or np.random.default_rng([plan.seed, 0xED5])
    suffix = reference_suffix(plan.montage)
    eeg = [SignalSpec(eeg_label(e, plan.montage), fs, "electrode", e) for e in plan.electrodes]
    if extras == "none":
        return eeg
    if extras == "ekg50":
        return eeg + [SignalSpec(f"EEG EKG1-{suffix}", 50, "ekg")]
    if extras != "tuh":
        raise ValueError(f"unknown extras {extras!r} (expected 'tuh', 'ekg50' or 'none')")
    out = list(eeg)
    if rng.random() < 0.4:
        out += [SignalSpec(f"EEG {e}-{suffix}", fs, "derived", e) for e in ("T1", "T2")]
    if rng.random() < 0.25:
        out += [SignalSpec(f"EEG {e}-{suffix}", fs, "derived", e) for e in ("ROC", "LOC")]
    if suffix == "LE":
        out += [SignalSpec("EEG EKG-LE", fs, "ekg"),
                SignalSpec("PHOTIC PH", fs, "zero", dimension="mm", physical_min=-32767.0,
                           physical_max=32767.0, transducer="EEG")]  # fmt: skip
    else:
        out += [SignalSpec("EEG EKG1-REF", fs, "ekg"),
                SignalSpec("PHOTIC-REF", fs, "zero", physical_min=-32767.0, physical_max=32767.0)]  # fmt: skip
    out += [
        SignalSpec(name, 1, "zero", dimension=dim, physical_min=-3276.7, physical_max=3276.7,
                   prefilter="HP:0.000 Hz LP:0.0 Hz N:0.0", transducer="")
        for name, dim in (("IBI", "sec"), ("BURSTS", "brst/min"), ("SUPPR", "%"))
    ]  # fmt: skip
    return out


def signals_from_header(labels, rates, headers, plan: RecordingPlan) -> list[SignalSpec]:
    """Mirror a real EDF's signal list: same labels, rates and ranges, simulated content.

    Parameters
    ----------
    labels : list of str
    rates : list of float
    headers : list of dict
        pyedflib signal headers.
    plan : RecordingPlan
        The EEG electrodes' rate must equal ``plan.sfreq``.
    """
    out = []
    for label, rate, h in zip(labels, rates, headers, strict=True):
        name = label.strip()
        core = name[4:] if name.upper().startswith("EEG ") else name
        core = core.split("-")[0].strip().upper()
        fs = int(round(rate))
        if core in EIDX and abs(rate - plan.sfreq) < 1e-6:
            src, site = "electrode", core
        elif core in POSITIONS_DEG and core not in EIDX and abs(rate - plan.sfreq) < 1e-6:
            src, site = "derived", core
        elif ("EKG" in core or "ECG" in core) and fs >= 50:
            src, site = "ekg", ""
        elif name.upper().startswith("EEG ") and core.isdigit() and abs(rate - plan.sfreq) < 1e-6:
            src, site = "noise", ""
        else:
            src, site = "zero", ""
        out.append(SignalSpec(
            label=name, sfreq=fs, source=src, site=site, dimension=h.get("dimension", "uV"),
            physical_min=float(h["physical_min"]), physical_max=float(h["physical_max"]),
            digital_min=int(h["digital_min"]), digital_max=int(h["digital_max"]),
            prefilter=h.get("prefilter", ""), transducer=h.get("transducer", ""),
        ))  # fmt: skip
    return out


class _EkgAtRate:
    """The EKG lead rendered at another rate from the same beats."""

    def __init__(self, ecg: Ecg, sfreq: int):
        self.ecg, self.sfreq = ecg, sfreq
        self.template, self.r_index = _ecg_template(sfreq)

    def lead(self, s0: int, n: int) -> np.ndarray:
        out = np.zeros(n, dtype=np.float32)
        m = len(self.template)
        lo, hi = np.searchsorted(self.ecg.beats, [(s0 - m) / self.sfreq, (s0 + n + m) / self.sfreq])
        for b in self.ecg.beats[lo:hi]:
            a = int(round(b * self.sfreq)) - self.r_index
            i0, i1 = max(a, s0), min(a + m, s0 + n)
            if i1 > i0:
                out[i0 - s0 : i1 - s0] += self.template[i0 - a : i1 - a]
        return out * self.ecg.r_uv


def _to_digital(x: np.ndarray, spec: SignalSpec) -> np.ndarray:
    scale = (spec.digital_max - spec.digital_min) / (spec.physical_max - spec.physical_min)
    d = np.rint((x - spec.physical_min) * scale + spec.digital_min)
    return np.clip(d, spec.digital_min, spec.digital_max).astype(np.int16)


def write_plan(
    path: str | os.PathLike,
    plan: RecordingPlan,
    *,
    signals: list[SignalSpec] | None = None,
    start_datetime: datetime | None = None,
    annotations: bool = True,
    progress=None,
) -> Path:
    """Write a planned recording as an EDF+ file with its ``.csv_bi`` and ``.csv`` beside it
    (and, for family-mode plans, ``.families.json``: see :func:`write_families`).

    Samples are generated and written one block at a time (1 s data records), so an
    hours-long file never sits whole in memory. Every file is written atomically.

    Parameters
    ----------
    path : path-like
        The ``.edf`` path; annotations take its stem.
    plan : RecordingPlan
        Its duration must be a whole number of seconds.
    signals : list of SignalSpec, optional
        Default: :func:`default_signals` with TUH-like extras.
    start_datetime : datetime, optional
        Header start date (default 2003-01-01 00:00:00, fixed for reproducible bytes).
    annotations : bool
        Write the ``.csv_bi`` and ``.csv`` files.
    progress : callable, optional
        Called with the number of seconds generated after each block.

    Returns
    -------
    Path
        The EDF written.
    """
    import pyedflib

    path = Path(path)
    n_records = int(round(plan.duration))
    if abs(n_records - plan.duration) > 1e-6 or n_records < 1:
        raise ValueError(f"EDF output needs a whole number of seconds, not {plan.duration}")
    signals = signals if signals is not None else default_signals(plan)
    gen = RecordingGenerator(plan)
    noise_rng = np.random.default_rng([plan.seed, 0x0FF])
    spr = [s.sfreq for s in signals]
    offsets = np.concatenate([[0], np.cumsum(spr)])
    ekg_at = {s.sfreq: _EkgAtRate(gen.ecg, s.sfreq) for s in signals if s.source == "ekg"}
    derived = {s.site: derived_weights(s.site) for s in signals if s.source == "derived"}
    start = start_datetime or datetime(2003, 1, 1)
    with atomic_path(path, suffix=".edf") as tmp, warnings.catch_warnings():
        # mirrored TUH headers carry ranges pyedflib shortens to 8 characters, as the
        # original files were; pyedflib warns about it at every header update
        warnings.filterwarnings("ignore", "Physical (minimum|maximum) for channel", UserWarning)
        writer = pyedflib.EdfWriter(str(tmp), len(signals), file_type=pyedflib.FILETYPE_EDFPLUS)
        try:
            writer.setSignalHeaders([s.header() for s in signals])
            writer.setStartdatetime(start)
            writer.setPatientName("X")
            for s0, eeg, ekg in gen.blocks():
                r0 = s0 // int(round(plan.sfreq))
                nrec = len(eeg) // int(round(plan.sfreq))
                buf = np.empty((nrec, offsets[-1]), dtype=np.int16)
                for j, s in enumerate(signals):
                    n = nrec * s.sfreq
                    if s.source == "electrode":
                        x = eeg[:, EIDX[s.site]]
                    elif s.source == "derived":
                        x = eeg @ derived[s.site]
                        x += noise_rng.standard_normal(n, dtype=np.float32) * 3.0
                    elif s.source == "ekg":
                        x = (
                            ekg
                            if s.sfreq == int(round(plan.sfreq))
                            else ekg_at[s.sfreq].lead(r0 * s.sfreq, n)
                        )
                        x = x + noise_rng.standard_normal(n, dtype=np.float32) * 8.0
                    elif s.source == "noise":
                        x = noise_rng.standard_normal(n, dtype=np.float32) * 2.0
                    else:
                        x = np.zeros(n, dtype=np.float32)
                    buf[:, offsets[j] : offsets[j + 1]] = _to_digital(x, s).reshape(nrec, s.sfreq)
                for r in range(nrec):
                    if writer.blockWriteDigitalShortSamples(buf[r]) < 0:
                        raise OSError(f"pyedflib could not write data record {r0 + r}")
                if progress is not None:
                    progress(nrec)
        finally:
            writer.close()
    if annotations:
        write_annotations(path, plan)
        if plan.variety is not None:
            write_families(path, plan, gen.families_present())
    return path


def write_families(edf_path: str | os.PathLike, plan: RecordingPlan, present: list[str]) -> Path:
    """Write ``<stem>.families.json``: the family of each seizure in time order, every
    family present, sample rate, montage and gain (atomically)."""
    out = Path(edf_path).with_suffix(".families.json")
    doc = {
        "seizure": [sz.family for sz in sorted(plan.seizures, key=lambda s: s.start)],
        "present": present,
        "sfreq": plan.sfreq,
        "montage": plan.montage,
        "gain": round(plan.variety.gain, 4),
    }
    with atomic_path(out, suffix=".json") as tmp:
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
    return out


def write_annotations(edf_path: str | os.PathLike, plan: RecordingPlan) -> None:
    """Write ``<stem>.csv_bi`` (TERM seiz, or one bckg row) and ``<stem>.csv`` (per channel)."""
    edf_path = Path(edf_path)
    stem = edf_path.with_suffix("")
    bname = edf_path.stem
    term = plan.term_events() or [Event(0.0, round(plan.duration, 4), "bckg", 1.0, "TERM")]
    write_csv_bi(stem.with_suffix(".csv_bi"), term, plan.duration, bname=bname)
    write_csv(stem.with_suffix(".csv"), plan.channel_events(fill=True), plan.duration, bname=bname)


def write_recording(
    path: str | os.PathLike,
    duration_s: float,
    sfreq: float,
    *,
    seed: int,
    seizures: Sequence | None = None,
    montage: str = "01_tcp_ar",
    profile: PatientProfile | None = None,
    artifacts: bool = True,
    state: str | None = None,
    extras: str = "tuh",
    start_datetime: datetime | None = None,
) -> RecordingPlan:
    """Simulate a recording straight to ``path`` (EDF+) plus ``.csv_bi`` and ``.csv``.

    Parameters as :func:`simulate_recording`, plus ``extras`` (see :func:`default_signals`)
    and ``start_datetime``. Returns the plan (its ``seizures`` hold every drawn detail).
    """
    plan = plan_recording(duration_s, sfreq, seed=seed, seizures=seizures, montage=montage,
                          profile=profile, artifacts=artifacts, state=state)  # fmt: skip
    write_plan(path, plan, signals=default_signals(plan, extras), start_datetime=start_datetime)
    return plan


__all__ = [
    "ELECTRODES",
    "RecordingGenerator",
    "RecordingPlan",
    "SignalSpec",
    "default_signals",
    "plan_recording",
    "signals_from_header",
    "simulate_recording",
    "write_annotations",
    "write_plan",
    "write_recording",
]
