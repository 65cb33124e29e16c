"""Montages as matrices: referential or bipolar input channels -> TCP bipolar channels.

A montage is applied as ``tcp = signal @ matrix`` with ``signal`` of shape
``(n_samples, n_inputs)`` and ``matrix`` of shape ``(n_inputs, n_outputs)``: one matrix
product per block, the same for live frames and whole recordings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rt_eeg.io.channels import ChannelInfo

#: The 22-channel temporal central parasagittal (TCP) montage, in TUH order.
TCP_PAIRS: tuple[tuple[str, str], ...] = (
    ("FP1", "F7"), ("F7", "T3"), ("T3", "T5"), ("T5", "O1"),
    ("FP2", "F8"), ("F8", "T4"), ("T4", "T6"), ("T6", "O2"),
    ("A1", "T3"), ("T3", "C3"), ("C3", "CZ"), ("CZ", "C4"), ("C4", "T4"), ("T4", "A2"),
    ("FP1", "F3"), ("F3", "C3"), ("C3", "P3"), ("P3", "O1"),
    ("FP2", "F4"), ("F4", "C4"), ("C4", "P4"), ("P4", "O2"),
)  # fmt: skip
TCP_22: tuple[str, ...] = tuple(f"{a}-{b}" for a, b in TCP_PAIRS)
#: The ``_a`` montages (no ear electrodes) drop A1-T3 and T4-A2.
TCP_20: tuple[str, ...] = tuple(n for n in TCP_22 if "A1" not in n and "A2" not in n)
#: Electrodes the TCP montage uses.
TCP_ELECTRODES: frozenset[str] = frozenset(e for pair in TCP_PAIRS for e in pair)


@dataclass(frozen=True)
class Montage:
    """How to form TCP channels from a recording's EEG inputs.

    Attributes
    ----------
    name : str
        ``01_tcp_ar``, ``02_tcp_le``, ``03_tcp_ar_a``, ``04_tcp_le_a`` or ``bipolar``.
    input_labels : tuple of str
        Labels (as in the file) of the input channels used, in matrix row order.
    ch_names : tuple of str
        TCP channels formed, in TCP order (matrix column order).
    missing : tuple of str
        TCP channels (of the 22) that cannot be formed from this input.
    matrix : np.ndarray
        ``(n_inputs, n_outputs)`` float32 with +1 for an anode, -1 for a cathode.
    """

    name: str
    input_labels: tuple[str, ...]
    ch_names: tuple[str, ...]
    missing: tuple[str, ...]
    matrix: np.ndarray

    def apply(self, signal: np.ndarray) -> np.ndarray:
        """Form TCP channels: ``(n, n_inputs)`` -> ``(n, n_outputs)`` float32."""
        return np.ascontiguousarray(signal @ self.matrix, dtype=np.float32)


def tcp_montage(channels: list[ChannelInfo]) -> Montage:
    """Build the TCP montage for a recording's channels.

    Parameters
    ----------
    channels : list of ChannelInfo
        Normalised channel descriptions (see :func:`rt_eeg.io.channels.normalise_labels`).
        Non-EEG channels are ignored.

    Returns
    -------
    Montage
        With zero output channels when nothing can be formed; the caller decides whether
        that is an error (it names the file).
    """
    eeg = [c for c in channels if c.kind in ("referential", "bipolar")]
    referential = [c for c in eeg if c.kind == "referential"]
    if referential:
        return _referential_montage(referential)
    return _bipolar_montage([c for c in eeg if c.kind == "bipolar"])


def _referential_montage(channels: list[ChannelInfo]) -> Montage:
    # First occurrence of each TCP electrode wins (duplicates are rare but real).
    used: dict[str, ChannelInfo] = {}
    for c in channels:
        if c.electrode in TCP_ELECTRODES:
            used.setdefault(c.electrode, c)
    index = {e: i for i, e in enumerate(used)}
    has_ears = "A1" in index and "A2" in index
    ref = channels[0].reference
    if has_ears:
        name = "02_tcp_le" if ref == "le" else "01_tcp_ar"
    else:
        name = "04_tcp_le_a" if ref == "le" else "03_tcp_ar_a"
    out, cols = [], []
    for ch in TCP_22 if has_ears else TCP_20:
        a, b = ch.split("-")
        if a in index and b in index:
            col = np.zeros(len(index), dtype=np.float32)
            col[index[a]], col[index[b]] = 1.0, -1.0
            out.append(ch)
            cols.append(col)
    matrix = np.stack(cols, axis=1) if cols else np.zeros((len(index), 0), np.float32)
    missing = tuple(c for c in TCP_22 if c not in out)
    labels = tuple(c.label for c in used.values())
    return Montage(name, labels, tuple(out), missing, matrix)


def _bipolar_montage(channels: list[ChannelInfo]) -> Montage:
    # First occurrence wins: CHB-MIT repeats 'T8-P8'.
    pairs: dict[tuple[str, str], ChannelInfo] = {}
    for c in channels:
        pairs.setdefault((c.electrode, c.electrode2), c)
    inputs: list[ChannelInfo] = []
    out, entries = [], []
    for ch in TCP_22:
        a, b = ch.split("-")
        sign, src = (1.0, pairs.get((a, b))) if (a, b) in pairs else (-1.0, pairs.get((b, a)))
        if src is None:
            continue
        if src not in inputs:
            inputs.append(src)
        out.append(ch)
        entries.append((inputs.index(src), sign))
    matrix = np.zeros((len(inputs), len(out)), dtype=np.float32)
    for col, (row, sign) in enumerate(entries):
        matrix[row, col] = sign
    missing = tuple(c for c in TCP_22 if c not in out)
    return Montage("bipolar", tuple(c.label for c in inputs), tuple(out), missing, matrix)


#: Fewest TCP channels the detector accepts. The decision is a cross-channel score over the
#: top-4 channels; below 4 channels one artifact decides it alone, so such input is refused
#: rather than scored. (Reduced clinical montages, e.g. the 8 parasagittal channels, pass.)
MIN_TCP_CHANNELS = 4


def check_enough_channels(ch_names, path=None) -> None:
    """Refuse input with fewer than :data:`MIN_TCP_CHANNELS` TCP channels.

    Raises
    ------
    RtEegError
        Naming the file, how many channels could be formed and which.
    """
    from rt_eeg.errors import RtEegError

    n = len(ch_names)
    if n < MIN_TCP_CHANNELS:
        formed = ", ".join(ch_names) or "none"
        raise RtEegError(
            f"only {n} of the 22 TCP channels can be formed ({formed}); the detector needs at "
            f"least {MIN_TCP_CHANNELS} to decide across channels",
            path,
        )
