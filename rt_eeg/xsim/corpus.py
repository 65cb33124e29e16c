"""Corpora of an independently written generator, in the TUSZ v2 layout.

The planner (this module) decides the layout, the recordings' lengths, rates, montages and
**where the seizures are**; the generator (``rt_eeg/xsim/gen_<name>.py``) decides everything
the signal holds. The planner is shared by every generator and by no signal model, so a
corpus of another generator differs only in its signal.

``OUT/edf/{train,dev,eval}/<patient>/<session>/<montage>/<patient>_<session>_<token>.edf``
with ``.csv_bi`` (TERM seizures and background), ``.csv`` (per-channel labels read off the
signal: :mod:`rt_eeg.xsim.labels`) and ``.xsim.json`` (generator, the seizure types it chose,
the other events it drew) beside each EDF. Everything is a pure function of
the generator, its arguments and the seed.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import time
import zlib
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import ModuleType

import numpy as np

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import Event, fill_background, read_csv_bi, write_csv_bi
from rt_eeg.io.atomic import atomic_path
from rt_eeg.sim.corpus import (
    CORPUS_MONTAGES,
    SFREQS,
    draw_durations,
    edf_header_summary,
    montage_of,
    patient_ids,
    seizure_events,
    split_patients,
)
from rt_eeg.xsim.base import ELECTRODES, Rendered
from rt_eeg.xsim.labels import label_recording

#: The independently written generators (module ``rt_eeg.xsim.gen_<name>``).
GENERATORS: tuple[str, ...] = (
    "nmm", "spec", "dip", "atlas", "simple", "atoms", "mvar", "epileptor", "hopf", "tide",
    "hawkes",
)  # fmt: skip

#: EDF physical range of the EEG signals (microvolts), as TUH files carry it.
PHYS_MAX = 4999.84


def load_generator(name: str) -> ModuleType:
    """The generator module ``rt_eeg.xsim.gen_<name>``.

    Raises
    ------
    RtEegError
        Unknown name, or a module that does not define the contract.
    """
    if name not in GENERATORS:
        raise RtEegError(
            f"unknown generator {name!r}; expected one of rt_eeg, {', '.join(GENERATORS)}"
        )
    mod = importlib.import_module(f"rt_eeg.xsim.gen_{name}")
    for attr in ("NAME", "DESCRIPTION", "draw_patient", "render"):
        if not hasattr(mod, attr):
            raise RtEegError(f"generator {name!r} does not define {attr}")
    return mod


@dataclass(frozen=True)
class XJob:
    """One recording to write."""

    rel: Path  # the .edf path under OUT/edf/
    generator: str
    patient_key: int  # seeds the patient's traits: equal for every file of a patient
    duration: int  # seconds
    sfreq: int
    montage: str
    seizures: tuple[tuple[float, float], ...]
    seed: int
    start_datetime: datetime


def draw_seizure_times(duration: int, rate_per_h: float, rng) -> list[tuple[float, float]]:
    """Seizure intervals of a recording that has seizures: ``1 + Poisson(rate * hours)``
    seizures, lengths log-normal around 50 s (6-400 s), at least 60 s apart.

    Parameters
    ----------
    duration : int
        Recording length, seconds.
    rate_per_h : float
    rng : numpy.random.Generator

    Returns
    -------
    list of (start, stop)
        Sorted, disjoint, inside ``[5, duration - 5]``; empty when the recording is too short.
    """
    n = 1 + int(rng.poisson(rate_per_h * duration / 3600.0))
    out: list[tuple[float, float]] = []
    for _ in range(n):
        for _attempt in range(40):
            d = float(np.clip(rng.lognormal(math.log(50.0), 0.8), 6.0, 400.0))
            if duration - d - 10.0 < 5.0:
                d = 0.5 * (duration - 10.0)
                if d < 6.0:
                    return sorted(out)
            start = round(float(rng.uniform(5.0, duration - d - 5.0)), 4)
            stop = round(start + d, 4)
            if all(stop + 60.0 < a or start > b + 60.0 for a, b in out):
                out.append((start, stop))
                break
    return sorted(out)


def plan_xcorpus(
    generator: str,
    hours: float,
    patients: int,
    seed: int,
    *,
    sfreq: int | None = None,
    montage: str | None = None,
) -> list[XJob]:
    """Plan a corpus of ``hours`` hours over ``patients`` patients for ``generator``.

    A quarter of the patients have no seizure (their hours are seizure-free background and
    artifacts); the others have seizures in 30-90 % of their recordings.

    Parameters
    ----------
    generator : str
        One of :data:`GENERATORS`.
    hours : float
    patients : int
    seed : int
    sfreq : int, optional
        Force one sample rate (default: drawn per session, TUSZ-like).
    montage : str, optional
        Force one montage folder (default: drawn per session).
    """
    load_generator(generator)
    if not hours > 0:
        raise ValueError(f"hours {hours} is not positive")
    if patients < 1:
        raise ValueError(f"patients {patients} must be at least 1")
    total_s = int(round(hours * 3600))
    if total_s < 60 * patients:
        raise ValueError(f"{hours} h is too little for {patients} patients (at least 1 min each)")
    # The planner's streams do not depend on the generator: two generators get the same
    # recordings and seizure times for the same seed.
    rng = np.random.default_rng([int(seed), 0x5EED])
    ids = patient_ids(patients, rng)
    splits = split_patients(ids, rng)
    share = rng.dirichlet(np.full(patients, 2.0)) * 0.8 + 0.2 / patients
    secs = np.floor(share * total_s).astype(int)
    secs[0] += total_s - int(secs.sum())
    rates, rate_p = list(SFREQS), np.array(list(SFREQS.values()))
    monts, mont_p = list(CORPUS_MONTAGES), np.array(list(CORPUS_MONTAGES.values()))
    jobs: list[XJob] = []
    for pi, pid in enumerate(ids):
        prng = np.random.default_rng([int(seed), 0x9A7, pi])
        p_file = 0.0 if prng.random() < 0.25 else float(prng.uniform(0.3, 0.9))
        rate_h = float(prng.uniform(0.3, 2.0))
        fav_rate = int(prng.choice(rates, p=rate_p))
        fav_mont = str(prng.choice(monts, p=mont_p))
        year = int(prng.integers(2002, 2015))
        key = int(prng.integers(2**31))
        session, token, left = 0, 0, 0
        ses_rate, ses_mont = fav_rate, fav_mont
        for dur in draw_durations(int(secs[pi]), prng):
            if left == 0:
                session, token = session + 1, 0
                left = int(prng.integers(1, 6))
                year += int(prng.random() < 0.4)
                ses_rate = fav_rate if prng.random() < 0.75 else int(prng.choice(rates, p=rate_p))
                ses_mont = fav_mont if prng.random() < 0.8 else str(prng.choice(monts, p=mont_p))
            left -= 1
            seizures = draw_seizure_times(dur, rate_h, prng) if prng.random() < p_file else []
            m = montage or ses_mont
            rel = Path(splits[pid], pid, f"s{session:03d}_{year}", m,
                       f"{pid}_s{session:03d}_t{token:03d}.edf")  # fmt: skip
            jobs.append(XJob(rel, generator, key, int(dur), int(sfreq or ses_rate), m,
                             tuple(seizures), int(prng.integers(2**31)),
                             datetime(year, 1, 1)))  # fmt: skip
            token += 1
    return jobs


def plan_xfrom_annotations(generator: str, tree: str | os.PathLike, seed: int) -> list[XJob]:
    """One recording per ``.csv_bi`` under ``tree``: its real duration, split, montage
    folder, sample rate (from the EDF header beside it, when there is one) and seizure times.

    Raises
    ------
    RtEegError
        No ``.csv_bi`` under ``tree``, or one that cannot be read.
    """
    load_generator(generator)
    tree = Path(tree)
    if not tree.is_dir():
        raise RtEegError("annotation tree not found (expected a folder)", tree)
    files = sorted(tree.rglob("*.csv_bi"))
    if not files:
        raise RtEegError("no .csv_bi annotation files found", tree)
    jobs = []
    for f in files:
        rel = f.relative_to(tree)
        if rel.parts[0] == "edf" and len(rel.parts) > 1:
            rel = Path(*rel.parts[1:])
        pid = rel.parts[-4] if len(rel.parts) >= 4 else f.stem.split("_")[0]
        prng = np.random.default_rng([int(seed), 0x9A8, zlib.crc32(str(rel).encode())])
        ann = read_csv_bi(f)
        if ann.duration is None:
            raise RtEegError("no '# duration' header and no events: length unknown", f)
        duration = max(1, int(round(ann.duration)))
        edf = f.with_suffix(".edf")
        header = edf_header_summary(edf) if edf.exists() else None
        montage = montage_of(rel, header[0] if header else None)
        if montage == "04_tcp_le_a":
            montage = "02_tcp_le"  # the LE montage without ears is written as LE
        fs = header[4] if header else float(prng.choice(list(SFREQS), p=list(SFREQS.values())))
        seizures = []
        for a, b, _lab in seizure_events(ann):
            a, b = max(0.0, float(a)), min(float(duration), float(b))
            if b - a > 0:
                seizures.append((round(a, 4), round(b, 4)))
        key = int(
            np.random.default_rng([int(seed), 0x9A9, zlib.crc32(pid.encode())]).integers(2**31)
        )
        start = header[3] if header else datetime(2003, 1, 1)
        jobs.append(XJob(rel.with_suffix(".edf"), generator, key, duration, int(round(fs)),
                         montage, tuple(seizures), int(prng.integers(2**31)), start))  # fmt: skip
    return jobs


def render_job(job: XJob) -> Rendered:
    """Render one planned recording with its generator (contract checked)."""
    gen = load_generator(job.generator)
    patient = gen.draw_patient(np.random.default_rng([job.patient_key, 0x9A7]))
    out = gen.render(patient, float(job.duration), float(job.sfreq), list(job.seizures),
                     np.random.default_rng([job.seed, 0x9A7]))  # fmt: skip
    out.check(job.duration, job.sfreq, len(job.seizures))
    return out


def eeg_signals(eeg: np.ndarray, montage: str) -> tuple[list[str], np.ndarray]:
    """EDF labels and signals of a montage folder from the 21 rendered potentials.

    Parameters
    ----------
    eeg : ndarray, shape (21, n)
    montage : str
        ``*_ar*``: ``EEG X-REF`` (as rendered); ``*_le*``: ``EEG X-LE`` against the mean of
        the ears; ``*_a``: without A1 and A2.

    Returns
    -------
    labels : list of str
    signals : ndarray of float64, shape (n_signals, n)
    """
    x = np.asarray(eeg, dtype=np.float64)
    le = "_le" in montage
    if le:
        x = x - 0.5 * (x[ELECTRODES.index("A1")] + x[ELECTRODES.index("A2")])[None, :]
    keep = [
        i for i, e in enumerate(ELECTRODES) if not (montage.endswith("_a") and e in ("A1", "A2"))
    ]
    labels = [f"EEG {ELECTRODES[i]}-{'LE' if le else 'REF'}" for i in keep]
    return labels, x[keep]


def write_xjob(out: str | os.PathLike, job: XJob) -> dict:
    """Render and write one recording: EDF+, ``.csv_bi``, ``.csv`` and ``.xsim.json``
    (each atomically).

    Returns
    -------
    dict
        ``{'seizure_types': [...], 'events': Counter of event kinds}``.
    """
    import pyedflib

    rendered = render_job(job)
    path = Path(out) / "edf" / job.rel
    path.parent.mkdir(parents=True, exist_ok=True)
    labels, x = eeg_signals(rendered.eeg, job.montage)
    np.clip(x, -PHYS_MAX, PHYS_MAX, out=x)
    headers = [
        {"label": lab, "dimension": "uV", "sample_frequency": job.sfreq,
         "physical_min": -PHYS_MAX, "physical_max": PHYS_MAX, "digital_min": -32767,
         "digital_max": 32767, "prefilter": "HP:0.000 Hz LP:0.0 Hz N:0.0",
         "transducer": "Unknown"}
        for lab in labels
    ]  # fmt: skip
    with atomic_path(path, suffix=".edf") as tmp:
        writer = pyedflib.EdfWriter(str(tmp), len(labels), file_type=pyedflib.FILETYPE_EDFPLUS)
        try:
            writer.setSignalHeaders(headers)
            writer.setStartdatetime(job.start_datetime)
            writer.setPatientName("X")
            writer.writeSamples(list(x))
        finally:
            writer.close()
    events = [Event(a, b, "seiz", 1.0, "TERM") for a, b in job.seizures]
    write_csv_bi(path.with_suffix(".csv_bi"), fill_background(events, float(job.duration)),
                 float(job.duration), bname=path.stem)  # fmt: skip
    doc = {
        "generator": job.generator,
        "sfreq": job.sfreq,
        "montage": job.montage,
        "seizures": [[a, b, t] for (a, b), t in zip(job.seizures, rendered.seizure_types,
                                                      strict=True)],
        "events": [[round(float(a), 3), round(float(b), 3), str(k)] for a, b, k in rendered.events],
    }  # fmt: skip
    with atomic_path(path.with_suffix(".xsim.json"), suffix=".json") as tmp:
        tmp.write_text(json.dumps(doc) + "\n")
    label_recording(path)  # per-channel labels, read off the signal
    return {"seizure_types": list(rendered.seizure_types),
            "events": Counter(str(k) for _a, _b, k in rendered.events)}  # fmt: skip


def _write_one(args):
    out, job = args
    return job.duration, write_xjob(out, job)


def write_xjobs(
    out: str | os.PathLike, jobs: list[XJob], *, workers: int = 1, progress: bool = True
) -> dict:
    """Write every job under ``OUT/edf/``, on ``workers`` processes; returns a summary.

    Parameters
    ----------
    out : path-like
    jobs : list of XJob
    workers : int
        Worker processes (they die with this one).
    progress : bool
        A tqdm progress bar over recorded seconds.
    """
    from tqdm import tqdm

    out = Path(out)
    total = sum(j.duration for j in jobs)
    t0 = time.perf_counter()
    types: Counter = Counter()
    kinds: Counter = Counter()
    bar = tqdm(total=int(total), unit="s", unit_scale=True, desc="simulate",
               disable=not progress, dynamic_ncols=True, smoothing=0.1)  # fmt: skip
    try:
        if workers <= 1:
            results = (_write_one((out, j)) for j in jobs)
            pool = None
        else:
            import multiprocessing as mp

            from rt_eeg.lifetime import die_with_parent

            pool = mp.get_context("fork").Pool(workers, initializer=die_with_parent)
            results = pool.imap(_write_one, [(out, j) for j in jobs])
        try:
            for dur, res in results:
                types.update(res["seizure_types"])
                kinds.update(res["events"])
                bar.update(dur)
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    splits = Counter(j.rel.parts[0] for j in jobs)
    return {
        "out": str(out),
        "generator": jobs[0].generator if jobs else "",
        "files": len(jobs),
        "patients": len({j.rel.parts[1] for j in jobs}),
        "hours": total / 3600.0,
        "seizures": sum(len(j.seizures) for j in jobs),
        "files_with_seizures": sum(bool(j.seizures) for j in jobs),
        "splits": {s: splits.get(s, 0) for s in sorted(splits)},
        "seizure_types": dict(types),
        "events": dict(kinds),
        "wall_s": wall,
        "x_realtime": total / wall if wall > 0 else math.inf,
    }
