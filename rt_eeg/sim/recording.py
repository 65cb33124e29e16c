"""One simulated recording: plan it and generate it block by block (EDF output:
:mod:`rt_eeg.sim.writer`).

The Python API other engineers and tests use:

>>> data, ch_labels, events = simulate_recording(120.0, 250.0, seed=1,
...                                              seizures=[(40.0, 90.0, "focal")])
>>> from rt_eeg.sim.writer import write_recording
>>> write_recording("x/aaaaaaaa_s001_t000.edf", 600.0, 256.0, seed=3)  # .edf, .csv_bi, .csv
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from rt_eeg.io.annotations import Event
from rt_eeg.sim import alpha_field, drug_beta
from rt_eeg.sim.arousals import apply_arousals, burst_transients, draw_arousals
from rt_eeg.sim.artifacts import (
    ARTIFACT_RENDERERS,
    Ecg,
    Fault,
    LineNoise,
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
from rt_eeg.sim.clinical_artifacts import CLINICAL_RENDERERS, draw_clinical_artifacts
from rt_eeg.sim.families import choose_family
from rt_eeg.sim.fresh_families import FRESH_RENDERERS, draw_fresh_families
from rt_eeg.sim.layout import (
    EIDX,
    ELECTRODES,
    check_montage,
    eeg_label,
    montage_electrodes,
    reference_suffix,
    tcp_names,
)
from rt_eeg.sim.profile import PatientProfile
from rt_eeg.sim.seizures import Seizure, SeizureSpec, plan_seizure
from rt_eeg.sim.steady_rhythms import STEADY_RENDERERS, draw_steady_rhythms
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
            # an arousal is a brief awakening: only where waking is allowed; its own stream
            if v.allows("arousal") and "awake" in v.states and p.state is None:
                arng = np.random.default_rng(np.random.SeedSequence([p.seed, 0xA20]))
                apply_arousals(self.timeline, draw_arousals(self.timeline, p.duration, arng))
        for sz in p.seizures:  # family mode: alpha fades with recruitment, not in one step
            self.timeline.attenuate("alpha", sz.start, sz.stop, 0.85, max(sz.postictal_s, 5.0),
                                    onset_s=0.0 if v is None else 4.0)  # fmt: skip
        frngs = [np.random.default_rng(s) for s in np.random.SeedSequence([p.seed, 0xFA4]).spawn(4)]
        if v is not None:
            v.add_envelopes(self.timeline, frngs[0])
        self.background = Background(p.profile, p.sfreq, rngs[1], extra=v)
        # medication beta: a stream of its own (presence drawn there too); None without it
        self.drug_beta = (None if v is None else
                          drug_beta.draw_drug_beta(p.seed, self.timeline, p.sfreq, p.profile.elec_gain, v))  # fmt: skip
        # a wide alpha field: a stream of its own too (presence drawn there); None without it
        self.alpha_field = (None if v is None else
                            alpha_field.draw_alpha_field(p.seed, self.timeline, p.sfreq, p.profile,
                                                         self.background.alpha_freq, v))  # fmt: skip
        transients = draw_sleep_transients(p.duration, p.profile, self.timeline, rngs[2])
        if p.artifacts:
            transients += draw_artifacts(p.duration, p.profile, self.timeline, rngs[3])
        if v is not None:
            if p.artifacts:
                transients += draw_more_artifacts(p.duration, self.timeline, v, frngs[1])
            transients += draw_benign(p.duration, self.timeline, v, frngs[2])
            if p.artifacts:  # the arousals' muscle bursts (none when arousal is not allowed)
                transients += burst_transients(self.timeline.arousals)
            transients = [tr for tr in transients if v.allows(KIND_FAMILY[tr.kind])]
            if p.artifacts:  # a stream nothing else reads: without them, the same samples
                transients += draw_clinical_artifacts(p.duration, p.profile, self.timeline, v,
                                                      frngs[3])  # fmt: skip
            # the fresh families: last, on a stream of their own (presence drawn there too)
            fresh = np.random.default_rng(np.random.SeedSequence([p.seed, 0xFA7]))
            transients += draw_fresh_families(p.duration, p.profile, self.timeline, v, fresh,
                                              artifacts=p.artifacts)  # fmt: skip
            # steady rhythms: opt-in (a corpus that does not require them draws nothing)
            steady = np.random.default_rng(np.random.SeedSequence([p.seed, 0x57D]))
            transients += draw_steady_rhythms(p.duration, self.timeline, v, steady)
        self.transients = transients
        self.track = TransientTrack(transients, {**SLEEP_RENDERERS, **ARTIFACT_RENDERERS,
                                                 **CLINICAL_RENDERERS, **BENIGN_RENDERERS,
                                                 **FRESH_RENDERERS, **STEADY_RENDERERS},
                                    p.sfreq)  # fmt: skip
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
        for src in self._fields():  # before the seizures: an electrodecrement suppresses them
            v += src.render(t)
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
                                bool(self.ecg.leak.any()), line_on,
                                extra=tuple(src.family for src in self._fields()))  # fmt: skip

    def _fields(self) -> list:
        """The continuous band fields this recording holds (``drug_beta``, ``alpha_field``),
        in the order they are added to the background."""
        return [src for src in (self.drug_beta, self.alpha_field) if src is not None]


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


_MOVED = {"SignalSpec", "default_signals", "signals_from_header", "write_annotations",
          "write_families", "write_plan", "write_recording"}  # fmt: skip


def __getattr__(name: str):
    """The EDF writer moved to :mod:`rt_eeg.sim.writer`; old imports keep working."""
    if name in _MOVED:
        from rt_eeg.sim import writer

        return getattr(writer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ELECTRODES",
    "RecordingGenerator",
    "RecordingPlan",
    "plan_recording",
    "simulate_recording",
]
