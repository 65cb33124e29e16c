"""Electrode layout of the simulator: 10-20 positions, TUH channel names, TCP pairs.

The simulator always works on the same 21 scalp potentials (:data:`ELECTRODES`, in this
order); a montage folder decides which of them a file holds, in what order, and how they
are referenced (average reference for ``*_ar*``, linked ears for ``*_le*``).
"""

from __future__ import annotations

import numpy as np

#: The simulated scalp electrodes, in the order TUH ``01_tcp_ar`` files list them.
ELECTRODES: tuple[str, ...] = (
    "FP1", "FP2", "F3", "F4", "C3", "C4", "P3", "P4", "O1", "O2", "F7", "F8",
    "T3", "T4", "T5", "T6", "A1", "A2", "FZ", "CZ", "PZ",
)  # fmt: skip
N_ELECTRODES = len(ELECTRODES)
EIDX: dict[str, int] = {e: i for i, e in enumerate(ELECTRODES)}

#: Idealised spherical positions (polar angle from the vertex, azimuth from the nose towards
#: the left ear), degrees. Outer ring on the equator, ears below it. Extra electrodes that
#: real files carry (T1/T2, OZ, eye and nasopharyngeal leads) are derived from these.
POSITIONS_DEG: dict[str, tuple[float, float]] = {
    "FP1": (90, 18), "FP2": (90, -18), "F7": (90, 54), "F8": (90, -54),
    "T3": (90, 90), "T4": (90, -90), "T5": (90, 126), "T6": (90, -126),
    "O1": (90, 162), "O2": (90, -162), "F3": (62, 40), "F4": (62, -40),
    "C3": (45, 90), "C4": (45, -90), "P3": (62, 140), "P4": (62, -140),
    "FZ": (45, 0), "CZ": (0, 0), "PZ": (45, 180), "A1": (118, 95), "A2": (118, -95),
    "T1": (108, 70), "T2": (108, -70), "OZ": (90, 180), "FPZ": (90, 0),
    "LOC": (112, 30), "ROC": (112, -30), "PG1": (118, 45), "PG2": (118, -45),
    "EYE_L": (118, 22), "EYE_R": (118, -22),
}  # fmt: skip

# The 22-channel TCP montage in TUH order (the ``_a`` variant drops A1-T3 and T4-A2).
from rt_eeg.montage import TCP_PAIRS  # noqa: E402

#: Montage folders the simulator writes, as in TUSZ v2 (a corpus draws from the first three;
#: ``04_tcp_le_a`` appears when mirroring an annotation tree that has it).
MONTAGES: tuple[str, ...] = ("01_tcp_ar", "02_tcp_le", "03_tcp_ar_a", "04_tcp_le_a")

# electrode order of real TUH files per montage (the LE files list the ears after C3/C4)
_ORDER_LE = (
    "FP1", "FP2", "F3", "F4", "C3", "C4", "A1", "A2", "P3", "P4", "O1", "O2",
    "F7", "F8", "T3", "T4", "T5", "T6", "FZ", "CZ", "PZ",
)  # fmt: skip


def position(name: str) -> np.ndarray:
    """Unit vector ``(3,)`` (x front, y left, z up) of a named electrode."""
    theta, phi = np.deg2rad(POSITIONS_DEG[name])
    return np.array([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)])


#: ``(21, 3)`` unit vectors of :data:`ELECTRODES`.
XYZ: np.ndarray = np.stack([position(e) for e in ELECTRODES])
#: ``(21, 21)`` chord distances between electrodes (neighbours are about 0.6 apart).
DIST: np.ndarray = np.linalg.norm(XYZ[:, None, :] - XYZ[None, :, :], axis=-1)


def distances_to(point: str | np.ndarray) -> np.ndarray:
    """Chord distances ``(21,)`` from a named site or a unit vector to every electrode."""
    p = position(point) if isinstance(point, str) else np.asarray(point, dtype=float)
    return np.linalg.norm(XYZ - p[None, :], axis=1)


def check_montage(montage: str) -> str:
    """Return ``montage`` if the simulator can write it, else raise ValueError."""
    if montage not in MONTAGES:
        raise ValueError(f"unknown montage {montage!r} (expected one of {', '.join(MONTAGES)})")
    return montage


def has_ears(montage: str) -> bool:
    """Whether files of this montage carry A1/A2 (the ``_a`` montages do not)."""
    return not check_montage(montage).endswith("_a")


def reference_suffix(montage: str) -> str:
    """``REF`` (average reference montages) or ``LE`` (linked ears)."""
    return "LE" if "_le" in check_montage(montage) else "REF"


def montage_electrodes(montage: str) -> list[str]:
    """Electrodes a file of ``montage`` holds, in the order TUH files list them."""
    order = _ORDER_LE if reference_suffix(montage) == "LE" else ELECTRODES
    return [e for e in order if has_ears(montage) or e not in ("A1", "A2")]


def eeg_label(electrode: str, montage: str) -> str:
    """TUH channel label of an electrode, e.g. ``EEG FP1-REF`` or ``EEG FP1-LE``."""
    return f"EEG {electrode}-{reference_suffix(montage)}"


def tcp_pairs(montage: str | None = None) -> list[tuple[str, str]]:
    """TCP electrode pairs in TCP order: 22, or 20 for a montage without ears."""
    if montage is None or has_ears(montage):
        return list(TCP_PAIRS)
    return [p for p in TCP_PAIRS if "A1" not in p and "A2" not in p]


def tcp_names(montage: str | None = None) -> list[str]:
    """TCP channel names (``FP1-F7``, ...) of :func:`tcp_pairs`."""
    return [f"{a}-{b}" for a, b in tcp_pairs(montage)]


def tcp_from_referential(data: np.ndarray, electrodes: list[str], montage: str | None = None):
    """Bipolar TCP channels from referential data.

    Parameters
    ----------
    data : np.ndarray
        ``(n_samples, n_electrodes)`` microvolts.
    electrodes : list of str
        Electrode name of each column.
    montage : str, optional
        Restricts to the 20-channel variant for ``_a`` montages; by default every pair whose
        two electrodes are present.

    Returns
    -------
    tcp : np.ndarray
        ``(n_samples, n_tcp)`` float32, anode minus cathode (FP1-F7 = FP1 - F7).
    names : list of str
    """
    idx = {e: i for i, e in enumerate(electrodes)}
    pairs = [(a, b) for a, b in tcp_pairs(montage) if a in idx and b in idx]
    out = np.stack([data[:, idx[a]] - data[:, idx[b]] for a, b in pairs], axis=1)
    return out.astype(np.float32, copy=False), [f"{a}-{b}" for a, b in pairs]
