"""``rt-eeg simulate``: write a simulated EEG corpus in the TUSZ v2 layout."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "write a simulated EEG corpus in the TUSZ v2 layout"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", type=Path, required=True, help="output folder (OUT/edf/... is written)"
    )
    parser.add_argument("--hours", type=float, default=1.0, help="total recorded hours (default 1)")
    parser.add_argument("--patients", type=int, default=5, help="number of patients (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="random seed; same seed, same bytes")
    parser.add_argument(
        "--from-annotations",
        type=Path,
        metavar="TREE",
        help="mirror a real annotation tree: one signal per .csv_bi with its real duration, "
        "split, montage folder, sample rate and seizure times",
    )
    parser.add_argument(
        "--sfreq",
        type=float,
        help="force one sample rate (Hz); default drawn from 200/250/256/400/500/512",
    )
    parser.add_argument(
        "--montage",
        choices=["01_tcp_ar", "02_tcp_le", "03_tcp_ar_a"],
        help="force one montage folder",
    )
    parser.add_argument(
        "--sample",
        action="store_true",
        help="write only the 10-minute bundled sample (OUT/sample_s001_t000.*; 200 Hz unless --sfreq)",
    )
    parser.add_argument(
        "--families",
        metavar="LIST",
        help="comma list of signal families or groups (seizure, background, benign, artifact) "
        "to draw from; default all (see README 'Simulator families')",
    )
    parser.add_argument(
        "--exclude-families",
        metavar="LIST",
        help="comma list of families or groups never to draw (held out)",
    )
    parser.add_argument(
        "--require-families",
        metavar="LIST",
        help="comma list of optional families (slowing, breach, benign variants, rarer "
        "artifacts, drug_beta) that every recording holds instead of by chance",
    )
    parser.add_argument(
        "--generator",
        default="rt_eeg",
        metavar="NAME",
        help="signal model: rt_eeg (default, the families above) or an independently written "
        "one (nmm, spec, dip, atlas, simple, atoms, mvar, epileptor, hopf; see README "
        "'Independent generators'), which draws its "
        "own signal at the planner's seizure times",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="worker processes (independent generators only)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from rt_eeg.errors import RtEegError
    from rt_eeg.sim import corpus
    from rt_eeg.sim.families import parse_families, resolve_families

    if args.generator != "rt_eeg":
        return _run_independent(args)
    families = resolve_families(args.families, args.exclude_families)
    require = (parse_families(args.require_families, "--require-families")
               if args.require_families else ())  # fmt: skip

    if args.sample and (args.families or args.exclude_families or args.require_families):
        raise RtEegError(
            "--families / --exclude-families / --require-families do not apply to --sample "
            "(a classic recording)"
        )
    if args.sample:
        if args.sfreq is not None and (args.sfreq < 50 or args.sfreq != int(args.sfreq)):
            raise RtEegError(f"--sfreq {args.sfreq} must be a whole number of Hz, at least 50")
        try:
            plan = corpus.write_sample(
                args.out, sfreq=args.sfreq or 200.0, seed=args.seed or corpus.SAMPLE_SEED
            )
        except OSError as err:
            raise RtEegError(f"cannot write the sample ({err.strerror or err})", args.out) from None
        print(
            f"wrote {args.out / corpus.SAMPLE_STEM}.edf (+ .csv_bi, .csv): {plan.duration:.0f} s at {plan.sfreq:g} Hz"
        )
        for sz in plan.seizures:
            print(
                f"  {sz.start:8.2f}-{sz.stop:8.2f} s  {sz.label} ({sz.kind}), electrodes {' '.join(sz.electrodes)}"
            )
        return 0
    try:
        if args.from_annotations is not None:
            jobs = corpus.plan_from_annotations(args.from_annotations, args.seed,
                                                families=families, require=require)  # fmt: skip
        else:
            if args.patients < 1:
                raise RtEegError(f"--patients {args.patients} must be at least 1")
            if args.sfreq is not None and (args.sfreq < 100 or args.sfreq != int(args.sfreq)):
                raise RtEegError(f"--sfreq {args.sfreq} must be a whole number of Hz, at least 100")
            jobs = corpus.plan_corpus(args.hours, args.patients, args.seed, sfreq=args.sfreq,
                                      montage=args.montage, families=families,
                                      require=require)  # fmt: skip
    except ValueError as err:
        raise RtEegError(str(err)) from None
    try:
        s = corpus.write_jobs(args.out, jobs, progress=not args.no_progress)
    except OSError as err:
        raise RtEegError(
            f"cannot write the corpus ({err.strerror or err})", err.filename or args.out
        ) from None
    print(
        f"wrote {s['files']} recordings of {s['patients']} patients to {s['out']}/edf "
        f"({', '.join(f'{k} {v}' for k, v in s['splits'].items())}): {s['hours']:.2f} h, "
        f"{s['seizures']} seizures in {s['files_with_seizures']} files "
        f"({', '.join(f'{k} {v}' for k, v in sorted(s['kinds'].items()))})"
    )
    if s["families"]:
        print(
            "seizure families: " + ", ".join(f"{k} {v}" for k, v in sorted(s["families"].items()))
        )
    print(f"generated in {s['wall_s']:.1f} s: {s['x_realtime']:.0f}x real time")
    return 0


def _run_independent(args: argparse.Namespace) -> int:
    """``rt-eeg simulate --generator NAME``: a corpus of an independently written generator."""
    from rt_eeg.errors import RtEegError
    from rt_eeg.xsim import corpus as xcorpus

    for flag, value in (("--families", args.families), ("--exclude-families",
                        args.exclude_families), ("--require-families", args.require_families),
                        ("--sample", args.sample)):  # fmt: skip
        if value:
            raise RtEegError(f"{flag} applies to the rt_eeg generator only, not {args.generator!r}")
    if args.workers < 1:
        raise RtEegError(f"--workers {args.workers} must be at least 1")
    if args.sfreq is not None and (args.sfreq < 100 or args.sfreq != int(args.sfreq)):
        raise RtEegError(f"--sfreq {args.sfreq} must be a whole number of Hz, at least 100")
    try:
        if args.from_annotations is not None:
            jobs = xcorpus.plan_xfrom_annotations(args.generator, args.from_annotations, args.seed)
        else:
            jobs = xcorpus.plan_xcorpus(args.generator, args.hours, args.patients, args.seed,
                                        sfreq=args.sfreq and int(args.sfreq),
                                        montage=args.montage)  # fmt: skip
    except ValueError as err:
        raise RtEegError(str(err)) from None
    try:
        s = xcorpus.write_xjobs(args.out, jobs, workers=args.workers,
                                progress=not args.no_progress)  # fmt: skip
    except OSError as err:
        raise RtEegError(
            f"cannot write the corpus ({err.strerror or err})", err.filename or args.out
        ) from None
    print(
        f"wrote {s['files']} recordings of {s['patients']} patients to {s['out']}/edf with "
        f"generator {s['generator']}: {s['hours']:.2f} h, {s['seizures']} seizures in "
        f"{s['files_with_seizures']} files"
    )
    if s["seizure_types"]:
        print(
            "seizure types: " + ", ".join(f"{k} {v}" for k, v in sorted(s["seizure_types"].items()))
        )
    print(f"generated in {s['wall_s']:.1f} s: {s['x_realtime']:.0f}x real time")
    return 0
