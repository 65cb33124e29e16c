"""Degraded copies of an EEG corpus: keep an electrode subset and/or resample to a rate.

What outside recordings look like (a reduced ICU set, an amplifier at 100 Hz) made from a
corpus we can score. The source tree is mirrored into ``--out``: every EDF is rewritten,
every other file (``.csv_bi``, ``.csv``, ``.tse``, CHB-MIT summaries, ...) is copied as it
is, and a simulator's ``.families.json`` gets the new ``sfreq`` and a ``degraded`` entry.

- ``--electrodes FP1,FP2,C3,C4,T3,T4,O1,O2``: referential channels of other electrodes are
  dropped; bipolar input (CHB-MIT) is re-derived into the chain derivations of the subset
  (:func:`rt_eeg.montage.bipolar_rereference`: FP1-C3 = FP1-F3 + F3-C3), which is what a
  recording of only those electrodes gives. Non-EEG channels are dropped.
- ``--sfreq 100``: every kept channel resampled with ``scipy.signal.resample_poly`` (its
  anti-aliasing filter removes what lies above the new Nyquist frequency), written as
  16-bit EDF+ with 1 s records, cut to whole seconds.

Usage::

    python tools/degrade_corpus.py --src SIM --out SIM_8ch_100 \\
        --electrodes FP1,FP2,C3,C4,T3,T4,O1,O2 --sfreq 100

Outputs are written atomically (temp file + rename); a re-run skips EDFs already written,
and refuses an output folder made with other settings (``degrade.json``). Bad input is one
line naming the file, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.errors import RtEegError  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic, write_text_atomic  # noqa: E402
from rt_eeg.io.channels import ELECTRODES, normalise_labels  # noqa: E402
from rt_eeg.montage import bipolar_rereference  # noqa: E402

#: Samples per EDF data record are ``sfreq * RECORD_S``: only whole-number rates.
RECORD_S = 1


def select_channels(labels: list[str], electrodes: set[str] | None):
    """Which input channels to keep and how to combine them.

    Parameters
    ----------
    labels : list of str
        The file's signal labels.
    electrodes : set of str or None
        Electrodes to keep (normalised 10-20 names); ``None`` keeps every EEG channel.

    Returns
    -------
    out_labels : list of str
        Labels of the output channels.
    rows : list of int
        File signal indices read (matrix row order).
    matrix : np.ndarray
        ``(len(rows), len(out_labels))`` float64: ``out = signal @ matrix``.
    """
    info = normalise_labels(labels)
    ref = [c for c in info if c.kind == "referential"]
    bip = [c for c in info if c.kind == "bipolar"]
    if ref:
        keep = [c for c in ref if electrodes is None or c.electrode in electrodes]
        return [c.label for c in keep], [c.index for c in keep], np.eye(len(keep))
    if electrodes is None:
        return [c.label for c in bip], [c.index for c in bip], np.eye(len(bip))
    # First occurrence of a pair wins (CHB-MIT repeats T8-P8).
    seen, uniq = set(), []
    for c in bip:
        if (c.electrode, c.electrode2) not in seen:
            seen.add((c.electrode, c.electrode2))
            uniq.append(c)
    out, matrix = bipolar_rereference([(c.electrode, c.electrode2) for c in uniq], electrodes)
    used = np.flatnonzero(np.abs(matrix).sum(axis=1) > 0)
    return (
        [f"{a}-{b}" for a, b in out],
        [uniq[i].index for i in used],
        matrix[used].astype(np.float64),
    )


def degrade_edf(src: Path, dst: Path, electrodes: set[str] | None, sfreq: float | None) -> dict:
    """Write the degraded copy of one EDF; returns what was kept (for the log)."""
    import pyedflib
    from scipy.signal import resample_poly

    from rt_eeg.io.edf_header import quiet_c_output, read_edf_header

    read_edf_header(src)  # one clear line for a broken header
    try:
        with quiet_c_output():
            reader = pyedflib.EdfReader(str(src))
    except Exception as err:  # edflib refuses with OSError, rarely others
        raise RtEegError(f"not a readable EDF file ({err})", src) from None
    try:
        labels = reader.getSignalLabels()
        out_labels, rows, matrix = select_channels(labels, electrodes)
        if not out_labels:
            raise RtEegError("no EEG channel of the electrode subset in this file", src)
        rates = {float(reader.getSampleFrequency(i)) for i in rows}
        if len(rates) != 1:
            raise RtEegError(f"kept channels have different rates {sorted(rates)}", src)
        native = rates.pop()
        target = float(sfreq or native)
        if target != int(target):
            raise RtEegError(f"--sfreq {target} is not a whole number of Hz", src)
        ratio = Fraction(target / native).limit_denominator(1000)
        units = {reader.getPhysicalDimension(i).strip() for i in rows}
        if len(units) != 1:
            raise RtEegError(f"kept channels have different units {sorted(units)}", src)
        unit = units.pop()
        start = reader.getStartdatetime()
        n_sec = int(reader.getNSamples()[rows[0]] / native)
        n_out = n_sec * int(target)
        data = np.zeros((n_out, len(out_labels)))
        for k, i in enumerate(rows):
            x = reader.readSignal(i).astype(np.float64)
            if ratio != 1:
                x = resample_poly(x, ratio.numerator, ratio.denominator)
            x = x[:n_out]
            data[: x.size] += x[:, None] * matrix[k][None, :]
    finally:
        reader.close()
    headers = []
    for j, lab in enumerate(out_labels):
        # Symmetric range from the data: 16-bit steps of range/32767 (0.1 uV for 3 mV).
        peak = float(np.ceil(max(np.abs(data[:, j]).max(initial=0.0), 1.0) * 1.01))
        headers.append({"label": lab, "dimension": unit, "sample_frequency": target,
                        "physical_max": peak, "physical_min": -peak,
                        "digital_max": 32767, "digital_min": -32768})  # fmt: skip
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(dst.name + ".part")
    try:
        with pyedflib.EdfWriter(str(tmp), len(out_labels), file_type=pyedflib.FILETYPE_EDFPLUS) as w:
            w.setSignalHeaders(headers)
            w.setStartdatetime(start)
            w.writeSamples([np.ascontiguousarray(data[:, j]) for j in range(len(out_labels))])
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)
    return {"channels": out_labels, "native_sfreq": native, "sfreq": target, "seconds": n_sec}


def copy_sidecar(src: Path, dst: Path, settings: dict, sfreq: float | None) -> None:
    """Copy a non-EDF file; a ``.families.json`` gets the new rate and the settings."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.name.endswith(".families.json"):
        try:
            doc = json.loads(src.read_text())
        except (OSError, ValueError) as err:
            raise RtEegError(f"unreadable families sidecar ({err})", src) from None
        if sfreq:
            doc["sfreq"] = float(sfreq)
        doc["degraded"] = settings
        write_json_atomic(dst, doc)
    else:
        tmp = dst.with_name("." + dst.name + ".part")
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="corpus folder (any tree of EDFs and sidecars)")
    ap.add_argument("--out", required=True, help="output folder (the tree is mirrored)")
    ap.add_argument("--electrodes", help="comma list of 10-20 electrodes to keep (default all)")
    ap.add_argument("--sfreq", type=float, help="resample every kept channel to this rate (Hz)")
    args = ap.parse_args(argv)
    src, out = Path(args.src), Path(args.out)
    try:
        if not src.is_dir():
            raise RtEegError("not a folder", src)
        electrodes = None
        if args.electrodes:
            from rt_eeg.io.channels import ALIASES

            names = [e.strip().upper() for e in args.electrodes.split(",") if e.strip()]
            names = [ALIASES.get(e, e) for e in names]
            bad = [e for e in names if e not in ELECTRODES]
            if bad or not names:
                raise RtEegError(f"--electrodes: not 10-20 electrodes: {', '.join(bad) or 'none'}")
            electrodes = set(names)
        if args.sfreq is not None and not (80 <= args.sfreq <= 65536 and args.sfreq == int(args.sfreq)):
            raise RtEegError(f"--sfreq must be a whole number of Hz in 80..65536, got {args.sfreq}")
        settings = {"electrodes": sorted(electrodes) if electrodes else None, "sfreq": args.sfreq,
                    "src": str(src.resolve())}  # fmt: skip
        stamp = out / "degrade.json"
        if stamp.is_file():
            old = json.loads(stamp.read_text())
            if old != settings:
                raise RtEegError(f"made with other settings {old}; use another --out", out)
        out.mkdir(parents=True, exist_ok=True)
        write_text_atomic(stamp, json.dumps(settings, indent=2) + "\n")
        files = sorted(p for p in src.rglob("*") if p.is_file())
        n_edf = 0
        for p in files:
            dst = out / p.relative_to(src)
            if p.suffix.lower() == ".edf":
                n_edf += 1
                if not dst.is_file():
                    degrade_edf(p, dst, electrodes, args.sfreq)
            elif not p.name.endswith(".part"):
                copy_sidecar(p, dst, settings, args.sfreq)
    except RtEegError as err:
        print(str(err), file=sys.stderr)
        return 2
    print(f"degraded {n_edf} EDF files into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
