"""An ensemble's stored decoder outputs from its members' (issue #12, amendment 10).

``rt-eeg evaluate`` stores each recording's per-channel P(seizure) as ``NAME.probs.npz``. An
ensemble (:mod:`rt_eeg.ensemble`) outputs the mean of its members' P(seizure). For members
without patient context that is the mean of the members' stored outputs, up to float rounding.
For **context** members (``frame_lstm:context...``) it is only an approximation: decoded alone,
a member keeps its context out of the epochs *it* calls seizure; inside the ensemble, out of the
epochs the *ensemble* calls seizure, so the outputs part from the first gated epoch on (up to
0.13 on a simulated recording, protocol amendment 32). Judge a context ensemble on its own
decoding (``rt-eeg evaluate --model ENSEMBLE``). This writes the mean without decoding again: every recording present in all
member folders gets ``OUT/NAME.probs.npz`` (the members must agree on epochs, channels,
duration and montage). ``rt-eeg evaluate --out OUT`` then only re-postprocesses them, and
``tools/operating_point.py`` tunes on them.

``--veto LEVEL`` (two members; protocol amendment 44) writes the first member's outputs vetoed
by the second's instead of the mean: ``p1 x min(1, p2 / LEVEL)``, channel by channel. Where the
second decoder gives at least LEVEL the first's probability stands; below, it is scaled down in
proportion. Each member keeps its own context, as two decoders side by side would live, so this
combination of stored outputs is exact, context members included.

Usage::

    python tools/ensemble_probs.py --member /work/sim/recipe/evalsel_k6 \\
        --member /work/sim/recipe/evalsel_k5 --out /work/sim/recipe/evalsel_e65
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from rt_eeg.io.atomic import save_npz_atomic

SUFFIX = ".probs.npz"


def _read(path: Path) -> dict:
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in ("epoch_starts", "probs", "ch_names", "duration", "montage")}
    except (OSError, ValueError, KeyError) as err:
        raise SystemExit(f"error: {path}: not a readable decoder-output file ({err})") from None


def _agreed(parts: list[dict], name: str) -> dict:
    """The first member's outputs, once every member agrees with it on epochs, channels,
    duration and montage (else a one-line error naming the recording)."""
    first = parts[0]
    for other in parts[1:]:
        for key in ("epoch_starts", "ch_names", "duration", "montage"):
            if not np.array_equal(other[key], first[key]):
                raise SystemExit(f"error: {name}: members disagree on {key}")
    return first


def mean_outputs(parts: list[dict], name: str) -> dict:
    """The mean of several members' outputs for one recording.

    Parameters
    ----------
    parts : list of dict
        Each member's ``epoch_starts`` (n_epochs,), ``probs`` (n_epochs, n_channels) float32,
        ``ch_names`` (n_channels,), ``duration`` and ``montage``.
    name : str
        The recording (for error messages).

    Returns
    -------
    dict
        The first member's fields with ``probs`` replaced by the float32 mean.
    """
    first = _agreed(parts, name)
    stack = np.stack([p["probs"].astype(np.float64) for p in parts])
    return {**first, "probs": stack.mean(axis=0).astype(np.float32)}


def veto_outputs(parts: list[dict], name: str, level: float) -> dict:
    """The first member's outputs vetoed by the second's: ``p1 x min(1, p2 / level)``.

    Parameters
    ----------
    parts : list of two dict
        As :func:`mean_outputs`' (the members must agree on epochs, channels, duration and
        montage).
    name : str
        The recording (for error messages).
    level : float
        In (0, 1]: the second member's probability from which the first's stands.

    Returns
    -------
    dict
        The first member's fields with ``probs`` (n_epochs, n_channels) float32 vetoed.
    """
    first = _agreed(parts, name)
    p1, p2 = (p["probs"].astype(np.float64) for p in parts)
    return {**first, "probs": (p1 * np.minimum(1.0, p2 / level)).astype(np.float32)}


def write_mean(members: list[Path], out: Path, veto: float | None = None) -> int:
    """Write the mean (or, with ``veto``, the vetoed) outputs of every recording all members
    hold; returns how many."""
    names = sorted(p.name[: -len(SUFFIX)] for p in members[0].glob("*" + SUFFIX))
    names = [n for n in names if all((m / (n + SUFFIX)).is_file() for m in members[1:])]
    if not names:
        raise SystemExit(f"error: {members[0]}: no {SUFFIX} file held by every member")
    out.mkdir(parents=True, exist_ok=True)
    for n in names:
        parts = [_read(m / (n + SUFFIX)) for m in members]
        z = mean_outputs(parts, n) if veto is None else veto_outputs(parts, n, veto)
        save_npz_atomic(out / (n + SUFFIX), **z)
    return len(names)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--member", action="append", required=True, help="an evaluate --out folder")
    p.add_argument("--out", required=True, help="folder for the mean NAME.probs.npz files")
    p.add_argument("--veto", type=float, default=None, metavar="LEVEL",
                   help="two members: the first's outputs vetoed by the second's, "
                   "p1 x min(1, p2 / LEVEL), instead of their mean")  # fmt: skip
    args = p.parse_args(argv)
    members = [Path(m) for m in args.member]
    if len(members) < 2:
        raise SystemExit("error: give at least two --member folders")
    if args.veto is not None and (len(members) != 2 or not 0.0 < args.veto <= 1.0):
        raise SystemExit("error: --veto takes exactly two --member folders and a LEVEL in (0, 1]")
    for m in members:
        if not m.is_dir():
            raise SystemExit(f"error: {m}: no such folder")
    n = write_mean(members, Path(args.out), args.veto)
    print(f"{n} recordings -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
