"""EDF+ output of simulated recordings: TUH-like signal lists, the EDF, its ``.csv_bi`` /
``.csv`` annotations and, for family-mode plans, the ``.families.json`` sidecar (all written
atomically)."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from rt_eeg.io.annotations import Event, write_csv, write_csv_bi
from rt_eeg.io.atomic import atomic_path
from rt_eeg.sim.artifacts import Ecg, _ecg_template, derived_weights
from rt_eeg.sim.layout import EIDX, POSITIONS_DEG, eeg_label, reference_suffix
from rt_eeg.sim.profile import PatientProfile
from rt_eeg.sim.recording import RecordingGenerator, RecordingPlan, plan_recording


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
    "SignalSpec",
    "default_signals",
    "signals_from_header",
    "write_annotations",
    "write_families",
    "write_plan",
    "write_recording",
]
