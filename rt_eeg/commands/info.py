"""``rt-eeg info FILE.edf``: what a recording holds and what the detector can make of it."""

from __future__ import annotations

import argparse
import json
import sys

from rt_eeg.errors import RtEegError
from rt_eeg.montage import TCP_22

HELP = "describe an EDF recording: channels, montage, TCP channels, annotations"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("edf", help="EDF/EDF+ file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def annotation_summary(edf_path, duration: float | None = None) -> dict | None:
    """Summary of the reference annotation beside ``edf_path`` (None when there is none);
    ``warning`` names an event past the recording's ``duration``."""
    from rt_eeg.io.annotations import binary_label, check_within_recording, read_annotation
    from rt_eeg.io.corpus import _reference_for

    ref = _reference_for(edf_path)
    if ref is None:
        return None
    ann = read_annotation(ref)
    seiz = [e for e in ann.events if binary_label(e.label) == "seiz"]
    warning = None
    if duration is not None:
        try:
            check_within_recording(ann, duration, edf_path)
        except RtEegError as err:
            warning = str(err)
    return {
        "warning": warning,
        "file": str(ref),
        "events": len(ann.events),
        "seizures": len(seiz),
        "seizure_seconds": round(sum(e.stop - e.start for e in seiz), 4),
        "labels": sorted({e.label for e in ann.events}),
    }


def run(args: argparse.Namespace) -> int:
    from rt_eeg.io.edf import open_recording

    with open_recording(args.edf) as rec:
        info = rec.describe()
        info["annotation"] = annotation_summary(rec.path, rec.duration)
    if info["annotation"] and info["annotation"]["warning"]:
        print(f"rt-eeg info: warning: {info['annotation']['warning']}", file=sys.stderr)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    rates = ", ".join(f"{r:g}" for r in info["native_sfreq"])
    print(f"file       {info['path']}")
    print(f"duration   {info['duration_s']:.2f} s ({info['duration_s'] / 3600:.2f} h)")
    print(
        f"rates      native {rates} Hz (EEG {', '.join(f'{r:g}' for r in info['eeg_sfreq'])} Hz) -> {info['sfreq']:g} Hz"
    )
    print(f"EEG        {len(info['eeg_channels'])} channels: {' '.join(info['eeg_channels'])}")
    if info["other_channels"]:
        print(f"ignored    {' '.join(info['other_channels'])}")
    if info["montage"] == "reduced":
        n_tcp = sum(c in TCP_22 for c in info["tcp_channels"])
        print(f"montage    reduced: {len(info['tcp_channels'])} channels ({n_tcp} TCP, "
              f"{len(info['tcp_channels']) - n_tcp} added 10-20 derivations)")  # fmt: skip
        print(f"channels   {' '.join(info['tcp_channels'])}")
    else:
        print(f"montage    {info['montage']}: {len(info['tcp_channels'])} TCP channels")
        print(f"TCP        {' '.join(info['tcp_channels'])}")
    print(f"missing    {' '.join(info['missing_tcp_channels']) or '-'}")
    ann = info["annotation"]
    if ann:
        print(
            f"reference  {ann['file']}: {ann['events']} events, {ann['seizures']} seizures, "
            f"{ann['seizure_seconds']:.1f} s of seizure"
        )
    else:
        print("reference  none beside the file")
    if not info["tcp_channels"]:
        raise RtEegError("no TCP channel can be formed", args.edf)
    return 0
