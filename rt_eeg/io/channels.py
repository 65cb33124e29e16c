"""Channel-name normalisation across TUSZ, CHB-MIT and plain referential recordings.

Handles ``EEG FP1-REF`` / ``EEG FP1-LE`` (TUH), numbered and non-EEG TUH channels
(``EEG 31-REF``, ``EEG EKG1-REF``, ``PHOTIC-REF``, ``BURSTS``, ``SUPPR``, ``EDF Annotations``),
CHB-MIT bipolar labels with 10-10 names (``T7-P7``; T7/T8/P7/P8 are T3/T4/T5/T6 of the
10-20 system), duplicates and ``-`` placeholders, and plain names (``Fp1``, ``EEG Fp1``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: 10-10 names that the 10-20 TCP montage calls differently.
ALIASES: dict[str, str] = {"T7": "T3", "T8": "T4", "P7": "T5", "P8": "T6"}
#: Scalp electrodes of the extended 10-20 system we recognise as EEG.
ELECTRODES: frozenset[str] = frozenset(
    "FP1 FP2 F7 F3 FZ F4 F8 T3 C3 CZ C4 T4 T5 P3 PZ P4 T6 O1 OZ O2 A1 A2 T1 T2 "
    "FPZ AF3 AF4 AF7 AF8 FT7 FT8 FT9 FT10 FC1 FC2 FC3 FC4 FC5 FC6 FCZ TP7 TP8 TP9 TP10 "
    "CP1 CP2 CP3 CP4 CP5 CP6 CPZ PO3 PO4 PO7 PO8 POZ F1 F2 F5 F6 C1 C2 C5 C6 P1 P2 P5 P6 "
    "M1 M2 IZ".split()
)
_REF_SUFFIXES = {"REF": "ar", "AR": "ar", "AVG": "ar", "LE": "le"}


@dataclass(frozen=True)
class ChannelInfo:
    """One channel of a file, normalised.

    Attributes
    ----------
    index : int
        Signal index in the file.
    label : str
        Label as written in the file.
    kind : str
        ``referential``, ``bipolar`` or ``other`` (non-EEG, unknown, placeholder).
    electrode : str
        10-20 name (upper case, 10-10 aliases mapped); for bipolar, the first electrode.
    electrode2 : str
        Second electrode of a bipolar channel, else ``""``.
    reference : str
        ``ar`` (average/common reference), ``le`` (linked ears) or ``""``.
    """

    index: int
    label: str
    kind: str
    electrode: str = ""
    electrode2: str = ""
    reference: str = ""


def _electrode(name: str) -> str | None:
    name = name.strip().upper()
    name = ALIASES.get(name, name)
    return name if name in ELECTRODES else None


def normalise_label(index: int, label: str) -> ChannelInfo:
    """Normalise one channel label (see module docstring for the conventions handled)."""
    raw = label.strip()
    text = re.sub(r"^(EEG|EOG|ECG|EMG)\s+", "", raw, flags=re.IGNORECASE).strip().upper()
    if not text or text == "-" or raw.upper() == "EDF ANNOTATIONS":
        return ChannelInfo(index, label, "other")
    parts = [p for p in re.split(r"\s*-\s*", text)]
    if len(parts) == 1:
        e = _electrode(parts[0])
        return (
            ChannelInfo(index, label, "referential", e, "", "ar")
            if e
            else ChannelInfo(index, label, "other")
        )
    if len(parts) == 2:
        a, b = parts
        if b in _REF_SUFFIXES:
            e = _electrode(a)
            if e:
                return ChannelInfo(index, label, "referential", e, "", _REF_SUFFIXES[b])
            return ChannelInfo(index, label, "other")
        ea, eb = _electrode(a), _electrode(b)
        if ea and eb:
            return ChannelInfo(index, label, "bipolar", ea, eb, "")
    return ChannelInfo(index, label, "other")


def normalise_labels(labels: list[str]) -> list[ChannelInfo]:
    """Normalise every label of a file, in file order."""
    return [normalise_label(i, lab) for i, lab in enumerate(labels)]
