"""Simulated corpora in the TUSZ v2 layout.

``OUT/edf/{train,dev,eval}/<patient>/<session>/<montage>/<patient>_<session>_<token>.edf``
with ``.csv_bi`` (TERM seizures), ``.csv`` (per-channel, TUSZ subtypes) and
``.families.json`` (signal families, see :mod:`rt_eeg.sim.families`) beside each EDF.
Patient ids are 8 lower-case letters (``aaaaaajy``), sessions ``s001_2003``, tokens ``t000``.
Patients are split across train/dev/eval without overlap. Everything is a pure function of
the seed: the same arguments write the same bytes.

:func:`plan_from_annotations` mirrors a real annotation tree instead: one simulated signal
per ``.csv_bi`` with its real duration, montage folder, split folder, sample rate (from the
EDF header beside it, when there is one) and seizure times.
"""

from __future__ import annotations

import math
import os
import re
import time
import zlib
from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import numpy as np

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import SEIZURE_LABELS, Annotation, read_csv, read_csv_bi
from rt_eeg.sim.families import (
    ALL_FAMILIES,
    choose_family,
    family_list,
    patient_family_weights,
    seizure_families,
)
from rt_eeg.sim.layout import EIDX, MONTAGES, TCP_PAIRS
from rt_eeg.sim.profile import PatientProfile
from rt_eeg.sim.recording import RecordingPlan, plan_recording
from rt_eeg.sim.seizures import LABEL_KINDS, SeizureSpec
from rt_eeg.sim.writer import SignalSpec, default_signals, signals_from_header, write_plan

#: Sample rates a corpus draws from, with their weights (TUSZ is mostly 250 and 256 Hz).
SFREQS: dict[int, float] = {250: 0.45, 256: 0.25, 200: 0.07, 400: 0.08, 500: 0.07, 512: 0.08}
#: Montage folders a corpus draws from, with their weights.
CORPUS_MONTAGES: dict[str, float] = {"01_tcp_ar": 0.7, "03_tcp_ar_a": 0.2, "02_tcp_le": 0.1}
SPLITS = ("train", "dev", "eval")


def optional_families() -> frozenset[str]:
    """Families a recording holds by chance, which ``require`` can make certain."""
    from rt_eeg.sim import (
        alpha_field,
        clinical_artifacts,
        drug_beta,
        fresh_families,
        steady_rhythms,
        variety,
    )

    chance = (variety.PRESENCE, clinical_artifacts.CLINICAL_PRESENCE, fresh_families.FRESH_PRESENCE,
              steady_rhythms.PRESENCE)  # fmt: skip
    return frozenset().union(*chance, {drug_beta.FAMILY, alpha_field.FAMILY})


def check_required(require, allowed) -> frozenset[str]:
    """``require`` as a set, after checking each is an optional and allowed family.

    Raises
    ------
    ValueError
        Naming the families that cannot be required, and why.
    """
    require = frozenset(require)
    if bad := require - optional_families():
        raise ValueError(f"cannot require {family_list(bad)}: only optional families can be "
                         f"required ({family_list(optional_families())})")  # fmt: skip
    if bad := require - frozenset(allowed):
        raise ValueError(f"required families {family_list(bad)} are excluded")
    return require


@dataclass
class Job:
    """One recording to write: where, what, and with which header."""

    rel: Path  # path of the .edf under OUT/edf/
    plan: RecordingPlan
    signals: list[SignalSpec]
    start_datetime: datetime


def patient_ids(n: int, rng: np.random.Generator) -> list[str]:
    """``n`` distinct TUSZ-style ids: 8 lower-case letters starting 'aaaa', sorted."""
    if n < 1:
        raise ValueError("at least one patient is needed")
    nums = np.sort(rng.choice(26**4, size=n, replace=False))
    out = []
    for v in nums:
        letters = []
        for _ in range(4):
            v, r = divmod(int(v), 26)
            letters.append(chr(ord("a") + r))
        out.append("aaaa" + "".join(reversed(letters)))
    return out


def split_patients(ids: list[str], rng: np.random.Generator) -> dict[str, str]:
    """Assign patients to train/dev/eval (about 60/20/20, dev and eval non-empty from 3)."""
    n = len(ids)
    n_dev = max(1, round(0.2 * n)) if n >= 3 else 0
    n_eval = max(1, round(0.2 * n)) if n >= 2 else 0
    order = rng.permutation(n)
    out = {}
    for rank, i in enumerate(order):
        out[ids[i]] = "dev" if rank < n_dev else "eval" if rank < n_dev + n_eval else "train"
    return out


def draw_durations(total_s: int, rng: np.random.Generator) -> list[int]:
    """Recording lengths (whole seconds) summing to ``total_s``: mostly 5-30 min, a few
    an hour or more, as in TUSZ."""
    out: list[int] = []
    left = total_s
    while left > 0:
        kind = rng.random()
        if kind < 0.6:
            d = rng.uniform(300, 1800)
        elif kind < 0.9:
            d = rng.uniform(1800, 3600)
        else:
            d = rng.uniform(3600, 3 * 3600)
        if kind < 0.05:
            d = rng.uniform(60, 300)  # a few short ones
        d = int(d)
        if left - d < 120:
            d = left
        out.append(d)
        left -= d
    return out


def _draw_seizures(duration: int, profile: PatientProfile, rng) -> list[SeizureSpec]:
    """Seizure intervals of a recording that has seizures (1 + a few per hour)."""
    n = 1 + int(rng.poisson(1.2 * duration / 3600.0))
    out: list[SeizureSpec] = []
    for _ in range(n):
        for _attempt in range(40):
            if profile.syndrome == "absence" and rng.random() < 0.8:
                d = float(np.clip(rng.lognormal(math.log(14.0), 0.35), 10.0, 35.0))
            else:
                d = float(np.clip(rng.lognormal(math.log(55.0), 0.7), 10.0, 300.0))
            if duration - d - 20.0 <= 10.0:
                d = max(10.0, 0.5 * (duration - 30.0))
                if d < 10.0:
                    return out
            start = float(rng.uniform(10.0, duration - d - 10.0))
            start, stop = round(start, 4), round(start + d, 4)
            if all(stop + 60.0 < s.start or start > s.stop + 60.0 for s in out):
                out.append(SeizureSpec(start, stop))
                break
    return sorted(out, key=lambda s: s.start)


def plan_corpus(
    hours: float,
    patients: int,
    seed: int,
    *,
    sfreq: float | None = None,
    montage: str | None = None,
    families=None,
    require=(),
) -> list[Job]:
    """Plan a corpus of ``hours`` hours over ``patients`` patients.

    Seizure times are drawn per patient as before families existed; each seizure's family
    is drawn from a separate stream (patients have one to three usual families), so a
    corpus with other ``families`` has the same recordings and seizure times.

    Parameters
    ----------
    hours : float
        Total recorded time.
    patients : int
    seed : int
    sfreq : float, optional
        Force one sample rate (default: drawn per session from :data:`SFREQS`).
    montage : str, optional
        Force one montage folder (default: drawn per session).
    families : collection of str, optional
        Allowed families (default: every family); with no seizure family allowed, the corpus
        has no seizures.
    require : collection of str
        Optional families (slowing, benign variants, rarer artifacts, ``drug_beta``) every
        recording holds; each must be allowed.
    """
    allowed = frozenset(ALL_FAMILIES if families is None else families)
    require = check_required(require, allowed)
    if not hours > 0:
        raise ValueError(f"hours {hours} is not positive")
    total_s = int(round(hours * 3600))
    if total_s < 60 * patients:
        raise ValueError(f"{hours} h is too little for {patients} patients (at least 1 min each)")
    rng = np.random.default_rng([int(seed), 0xC0])
    ids = patient_ids(patients, rng)
    splits = split_patients(ids, rng)
    share = rng.dirichlet(np.full(patients, 2.0)) * 0.8 + 0.2 / patients
    secs = np.floor(share * total_s).astype(int)
    secs[0] += total_s - int(secs.sum())
    jobs: list[Job] = []
    rates, rate_p = list(SFREQS), np.array(list(SFREQS.values()))
    monts, mont_p = list(CORPUS_MONTAGES), np.array(list(CORPUS_MONTAGES.values()))
    for pi, pid in enumerate(ids):
        prng = np.random.default_rng([int(seed), 0xBA7, pi])
        profile = PatientProfile.draw(int(prng.integers(2**31)))
        fam_rng = np.random.default_rng([int(seed), 0xFA5, pi])
        fam_w = patient_family_weights(profile.syndrome, fam_rng)
        fav_rate = int(prng.choice(rates, p=rate_p))
        fav_mont = str(prng.choice(monts, p=mont_p))
        year = int(prng.integers(2002, 2015))
        session, token, left_in_session = 0, 0, 0
        for dur in draw_durations(int(secs[pi]), prng):
            if left_in_session == 0:
                session += 1
                token = 0
                left_in_session = int(prng.integers(1, 6))
                year += int(prng.random() < 0.4)
                ses_rate = fav_rate if prng.random() < 0.75 else int(prng.choice(rates, p=rate_p))
                ses_mont = fav_mont if prng.random() < 0.8 else str(prng.choice(monts, p=mont_p))
            left_in_session -= 1
            seizures = (
                _draw_seizures(dur, profile, prng) if prng.random() < profile.seizure_rate else []
            )
            u = fam_rng.random(len(seizures))
            if seizure_families(allowed):
                seizures = [replace(sz, family=choose_family(allowed, float(x), weights=fam_w))
                            for sz, x in zip(seizures, u, strict=True)]  # fmt: skip
            else:
                seizures = []
            ses = f"s{session:03d}_{year}"
            m = montage or ses_mont
            fs = float(sfreq or ses_rate)
            plan = plan_recording(dur, fs, seed=int(prng.integers(2**31)), seizures=seizures,
                                  montage=m, profile=profile, families=allowed, require=require)  # fmt: skip
            rel = Path(splits[pid], pid, ses, m, f"{pid}_s{session:03d}_t{token:03d}.edf")
            jobs.append(Job(rel, plan, default_signals(plan), datetime(year, 1, 1)))
            token += 1
    return jobs


# --------------------------------------------------------------------------------------------
# mirroring a real annotation tree


_SESSION_RE = re.compile(r"^s\d{3}_(\d{4})$")


def seizure_events(ann: Annotation) -> list[tuple[float, float, str]]:
    """Merged seizure intervals (start, stop, label) of an annotation's TERM events."""
    evs = sorted((e.start, e.stop, e.label) for e in ann.events if e.label in SEIZURE_LABELS)
    out: list[list] = []
    for a, b, lab in evs:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b, lab])
    return [tuple(x) for x in out]


def _onsets_from_channels(ann: Annotation, start: float, stop: float):
    """Electrode onsets and the subtype of a seizure from per-channel events.

    An electrode carries the seizure when every TCP channel it is in is annotated, or when
    it is needed to explain an annotated channel whose other electrode does not.
    """
    first: dict[str, float] = {}
    labels = Counter()
    for e in ann.events:
        if e.channel == "TERM" or e.label not in SEIZURE_LABELS:
            continue
        if e.stop <= start or e.start >= stop:
            continue
        first[e.channel.upper()] = min(first.get(e.channel.upper(), math.inf), e.start)
        labels[e.label] += 1
    if not first:
        return None, None
    pairs = [(a, b) for a, b in TCP_PAIRS if f"{a}-{b}" in first]
    chans_of = {el: [f"{a}-{b}" for a, b in TCP_PAIRS if el in (a, b)] for el in EIDX}
    chosen = {el for el, chs in chans_of.items() if chs and all(c in first for c in chs)}
    for a, b in pairs:
        if a not in chosen and b not in chosen:
            na = sum(c in first for c in chans_of[a])
            nb = sum(c in first for c in chans_of[b])
            chosen.add(a if na >= nb else b)
    onsets = {}
    for el in chosen:
        ts = [first[c] for c in chans_of[el] if c in first]
        onsets[el] = max(0.0, (min(ts) if ts else start) - start)
    label = labels.most_common(1)[0][0]
    return onsets, (label if label != "seiz" else None)


def montage_of(rel: Path, labels: list[str] | None) -> str:
    for part in reversed(rel.parts[:-1]):
        if part in MONTAGES:
            return part
    if labels:
        le = sum(lab.upper().endswith("-LE") for lab in labels)
        ears = any(re.search(r"\bA[12]-", lab.upper()) for lab in labels)
        return (
            ("02_tcp_le" if ears else "04_tcp_le_a")
            if le
            else ("01_tcp_ar" if ears else "03_tcp_ar_a")
        )
    return "01_tcp_ar"


def edf_header_summary(path: Path):
    """(labels, rates, signal headers, start datetime, eeg rate) of a real EDF, or None."""
    import pyedflib

    try:
        with pyedflib.EdfReader(str(path)) as r:
            labels = r.getSignalLabels()
            rates = [float(x) for x in r.getSampleFrequencies()]
            headers = r.getSignalHeaders()
            start = r.getStartdatetime()
    except OSError as err:
        raise RtEegError(f"cannot read the EDF header ({err})", path) from None
    eeg = [rates[i] for i, lab in enumerate(labels)
           if lab.upper().startswith("EEG ") and lab.upper()[4:].split("-")[0].strip() in EIDX]  # fmt: skip
    if not eeg:
        return None
    return labels, rates, headers, start, Counter(eeg).most_common(1)[0][0]


def plan_from_annotations(
    tree: str | os.PathLike, seed: int, *, include=None, families=None, require=()
) -> list[Job]:
    """Plan one simulated recording per ``.csv_bi`` under ``tree``, mirroring the tree.

    Each annotated seizure keeps its times and subtype; its family is drawn among the
    allowed ones that can carry the subtype (any allowed one when none can).

    Parameters
    ----------
    tree : path-like
        An annotation tree in the TUSZ v2 layout (``[edf/]split/patient/session/montage/``).
    seed : int
    include : callable, optional
        ``Path -> bool`` on each ``.csv_bi`` path; only those for which it is true.
    families : collection of str, optional
        Allowed families (default: every family).
    require : collection of str
        Optional families every recording holds (see :func:`plan_corpus`).

    Raises
    ------
    RtEegError
        When the tree holds no ``.csv_bi`` file, an annotation cannot be read, or a file
        has seizures while no seizure family is allowed.
    """
    allowed = frozenset(ALL_FAMILIES if families is None else families)
    require = check_required(require, allowed)
    tree = Path(tree)
    if not tree.is_dir():
        raise RtEegError("annotation tree not found (expected a folder)", tree)
    files = sorted(tree.rglob("*.csv_bi"))
    if include is not None:
        files = [f for f in files if include(f)]
    if not files:
        raise RtEegError("no .csv_bi annotation files found", tree)
    jobs = []
    for f in files:
        rel = f.relative_to(tree)
        if rel.parts[0] == "edf" and len(rel.parts) > 1:
            rel = Path(*rel.parts[1:])
        pid = rel.parts[-4] if len(rel.parts) >= 4 else f.stem.split("_")[0]
        prng = np.random.default_rng([int(seed), zlib.crc32(str(rel).encode())])
        profile = PatientProfile.draw(
            int(np.random.default_rng([int(seed), zlib.crc32(pid.encode())]).integers(2**31))
        )
        fam_w = patient_family_weights(
            profile.syndrome, np.random.default_rng([int(seed), 0xFA5, zlib.crc32(pid.encode())])
        )
        fam_rng = np.random.default_rng([int(seed), 0xFA6, zlib.crc32(str(rel).encode())])
        ann = read_csv_bi(f)
        csv = f.with_suffix(".csv")
        per_channel = read_csv(csv) if csv.exists() else None
        edf = f.with_suffix(".edf")
        header = edf_header_summary(edf) if edf.exists() else None
        duration = ann.duration
        if duration is None:
            raise RtEegError("no '# duration' header and no events: length unknown", f)
        duration = max(1, int(round(duration)))
        montage = montage_of(rel, header[0] if header else None)
        if header:
            sfreq = header[4]
        else:
            sfreq = float(prng.choice(list(SFREQS), p=list(SFREQS.values())))
        specs = []
        for a, b, lab in seizure_events(ann):
            a, b = max(0.0, a), min(float(duration), b)
            if b - a <= 0:
                continue
            onsets, sub = _onsets_from_channels(per_channel, a, b) if per_channel else (None, None)
            label = sub or (lab if lab != "seiz" else None)
            kind = LABEL_KINDS.get(label) if label else None
            if not seizure_families(allowed):
                raise RtEegError("has seizures, but no seizure family is allowed", f)
            fam = choose_family(allowed, float(fam_rng.random()), weights=fam_w, label=label)
            specs.append(SeizureSpec(a, b, kind=kind, label=label, onsets=onsets, family=fam))
        plan = plan_recording(duration, sfreq, seed=int(prng.integers(2**31)), seizures=specs,
                              montage=montage, profile=profile, families=allowed,
                              require=require)  # fmt: skip
        if header:
            signals = signals_from_header(header[0], header[1], header[2], plan)
            start = header[3]
        else:
            signals = default_signals(plan)
            m = _SESSION_RE.match(rel.parts[-3]) if len(rel.parts) >= 3 else None
            start = datetime(int(m.group(1)), 1, 1) if m else datetime(2003, 1, 1)
        jobs.append(Job(rel.with_suffix(".edf"), plan, signals, start))
    return jobs


# --------------------------------------------------------------------------------------------
# writing


def write_jobs(out: str | os.PathLike, jobs: list[Job], *, progress: bool = True) -> dict:
    """Write every job under ``OUT/edf/``; returns a summary (files, hours, seizures, rate).

    Parameters
    ----------
    out : path-like
    jobs : list of Job
    progress : bool
        Show a tqdm progress bar over recorded seconds.
    """
    from tqdm import tqdm

    out = Path(out)
    total = sum(j.plan.duration for j in jobs)
    t0 = time.perf_counter()
    bar = tqdm(total=int(total), unit="s", unit_scale=True, desc="simulate", disable=not progress,
               dynamic_ncols=True, smoothing=0.1)  # fmt: skip
    try:
        for j in jobs:
            bar.set_postfix_str(j.rel.name, refresh=False)
            write_plan(out / "edf" / j.rel, j.plan, signals=j.signals,
                       start_datetime=j.start_datetime, progress=bar.update)  # fmt: skip
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    splits = Counter(j.rel.parts[0] for j in jobs)
    patients = {j.rel.parts[1] for j in jobs}
    n_sz = sum(len(j.plan.seizures) for j in jobs)
    return {
        "out": str(out),
        "files": len(jobs),
        "patients": len(patients),
        "hours": total / 3600.0,
        "seizures": n_sz,
        "files_with_seizures": sum(bool(j.plan.seizures) for j in jobs),
        "seizure_hours": sum(s.duration for j in jobs for s in j.plan.seizures) / 3600.0,
        "splits": {s: splits.get(s, 0) for s in sorted(splits)},
        "kinds": dict(Counter(s.label for j in jobs for s in j.plan.seizures)),
        "families": dict(Counter(s.family for j in jobs for s in j.plan.seizures if s.family)),
        "wall_s": wall,
        "x_realtime": total / wall if wall > 0 else math.inf,
    }


def simulate_corpus(
    out: str | os.PathLike,
    hours: float,
    patients: int,
    seed: int,
    *,
    sfreq: float | None = None,
    montage: str | None = None,
    families=None,
    progress: bool = True,
    require=(),
) -> dict:
    """Plan and write a corpus; see :func:`plan_corpus` and :func:`write_jobs`."""
    jobs = plan_corpus(hours, patients, seed, sfreq=sfreq, montage=montage, families=families,
                       require=require)  # fmt: skip
    return write_jobs(out, jobs, progress=progress)


#: The bundled sample (data_samples/): file stem, seed and its two seizures.
SAMPLE_STEM = "sample_s001_t000"
SAMPLE_SEED = 8
SAMPLE_SEIZURES = (
    SeizureSpec(170.0, 262.0, kind="focal", focus="T4", subtle=False, amplitude=170.0),
    SeizureSpec(455.0, 470.0, kind="absence", amplitude=520.0),
)


def write_sample(
    out_dir: str | os.PathLike, *, sfreq: float = 200.0, seed: int = SAMPLE_SEED
) -> RecordingPlan:
    """Write the 10-minute sample: a right temporal focal seizure evolving 6 -> 3 Hz and a
    3 Hz absence, awake patient with artifacts; 21 EEG electrodes and an EKG at 50 Hz.

    Returns the plan (seizure details in ``plan.seizures``).
    """
    profile = PatientProfile.draw(seed, syndrome="focal")
    plan = plan_recording(600.0, sfreq, seed=seed, seizures=list(SAMPLE_SEIZURES),
                          montage="01_tcp_ar", profile=profile, state="awake")  # fmt: skip
    write_plan(Path(out_dir) / f"{SAMPLE_STEM}.edf", plan, signals=default_signals(plan, "ekg50"),
               start_datetime=datetime(2003, 1, 1))  # fmt: skip
    return plan
