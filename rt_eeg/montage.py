"""Montages as matrices: referential or bipolar input channels -> bipolar channels.

A montage is applied as ``tcp = signal @ matrix`` with ``signal`` of shape
``(n_samples, n_inputs)`` and ``matrix`` of shape ``(n_inputs, n_outputs)``: one matrix
product per block, the same for live frames and whole recordings.

Full recordings get the TCP montage (22 or 20 channels). When fewer than
:data:`REDUCED_BELOW` TCP channels can be formed (a reduced electrode set such as
Fp1 Fp2 C3 C4 T3 T4 O1 O2, which forms only T3-C3 and C4-T4), the montage is ``reduced``:
the TCP channels that can be formed, then the derivations of :data:`REDUCED_DERIVATIONS`
between electrodes that are neighbours along a 10-20 chain once the missing electrodes are
left out (at most one skipped), e.g. FP1-C3 over a missing F3. The channel-based decoder
scores each bipolar channel on its own, so these are in its domain.
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

#: The 10-20 chains of the double banana, the midline and the central transverse row, each
#: in its usual reading order (front to back, left to right). Neighbours along a chain make
#: the standard bipolar derivations; the TCP montage is these minus the midline.
CHAINS_10_20: tuple[tuple[str, ...], ...] = (
    ("FP1", "F7", "T3", "T5", "O1"),
    ("FP2", "F8", "T4", "T6", "O2"),
    ("FP1", "F3", "C3", "P3", "O1"),
    ("FP2", "F4", "C4", "P4", "O2"),
    ("FZ", "CZ", "PZ"),
    ("T3", "C3", "CZ", "C4", "T4"),
)


def _chain_derivations() -> tuple[tuple[str, str], ...]:
    # Neighbours first, then pairs over one left-out electrode, each in chain order.
    out: list[tuple[str, str]] = []
    for step in (1, 2):
        for chain in CHAINS_10_20:
            out += [(chain[i], chain[i + step]) for i in range(len(chain) - step)]
    return tuple(out)


#: Every derivation a reduced montage may use, in output order: the chain neighbours
#: (FZ-CZ, CZ-PZ besides the TCP ones), then pairs across one electrode (FP1-T3, T3-O1, ...,
#: FP1-C3, C3-O1, ..., FZ-PZ, T3-CZ, C3-C4, CZ-T4). With referential input a pair across
#: an electrode is formed only when that electrode is missing.
REDUCED_DERIVATIONS: tuple[tuple[str, str], ...] = _chain_derivations()
_ADDED_NAMES = frozenset(f"{a}-{b}" for a, b in REDUCED_DERIVATIONS) - set(TCP_22)
#: A recording whose TCP montage has fewer channels than this gets the reduced montage.
REDUCED_BELOW = 8
#: The electrode a pair across one electrode skips: ("FP1", "C3") -> "F3".
SKIPPED_ELECTRODE: dict[tuple[str, str], str] = {
    (c[i], c[i + 2]): c[i + 1] for c in CHAINS_10_20 for i in range(len(c) - 2)
}


@dataclass(frozen=True)
class Montage:
    """How to form TCP channels from a recording's EEG inputs.

    Attributes
    ----------
    name : str
        ``01_tcp_ar``, ``02_tcp_le``, ``03_tcp_ar_a``, ``04_tcp_le_a``, ``bipolar`` or
        ``reduced`` (see the module docstring).
    input_labels : tuple of str
        Labels (as in the file) of the input channels used, in matrix row order.
    ch_names : tuple of str
        Channels formed (matrix column order): TCP channels in TCP order, then (reduced
        montage only) the added derivations in :data:`REDUCED_DERIVATIONS` order.
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
        TCP, or ``reduced`` when fewer than :data:`REDUCED_BELOW` TCP channels can be
        formed and derivations can be added. With zero output channels when nothing can be
        formed; the caller decides whether that is an error (it names the file).
    """
    eeg = [c for c in channels if c.kind in ("referential", "bipolar")]
    referential = [c for c in eeg if c.kind == "referential"]
    if referential:
        return _referential_montage(referential)
    return _bipolar_montage([c for c in eeg if c.kind == "bipolar"])


def _referential_montage(channels: list[ChannelInfo]) -> Montage:
    # First occurrence of each 10-20 chain electrode wins (duplicates are rare but real).
    chain_electrodes = TCP_ELECTRODES | {e for chain in CHAINS_10_20 for e in chain}
    used: dict[str, ChannelInfo] = {}
    for c in channels:
        if c.electrode in chain_electrodes:
            used.setdefault(c.electrode, c)
    has_ears = "A1" in used and "A2" in used
    ref = channels[0].reference
    if has_ears:
        name = "02_tcp_le" if ref == "le" else "01_tcp_ar"
    else:
        name = "04_tcp_le_a" if ref == "le" else "03_tcp_ar_a"
    pairs = [tuple(ch.split("-")) for ch in (TCP_22 if has_ears else TCP_20)]
    pairs = [(a, b) for a, b in pairs if a in used and b in used]
    if len(pairs) < REDUCED_BELOW:
        reduced = chain_pairs(e for e in used if has_ears or e not in ("A1", "A2"))
        if len(reduced) > len(pairs):
            name, pairs = "reduced", reduced
    # Matrix rows, in file order: the TCP electrodes present (as always), plus any other
    # chain electrode a reduced derivation uses (FZ, PZ).
    rows = [e for e in used if e in TCP_ELECTRODES or any(e in p for p in pairs)]
    index = {e: i for i, e in enumerate(rows)}
    matrix = np.zeros((len(rows), len(pairs)), dtype=np.float32)
    for col, (a, b) in enumerate(pairs):
        matrix[index[a], col], matrix[index[b], col] = 1.0, -1.0
    out = tuple(f"{a}-{b}" for a, b in pairs)
    missing = tuple(c for c in TCP_22 if c not in out)
    return Montage(name, tuple(used[e].label for e in rows), out, missing, matrix)


def _bipolar_montage(channels: list[ChannelInfo]) -> Montage:
    # First occurrence wins: CHB-MIT repeats 'T8-P8'.
    pairs: dict[tuple[str, str], ChannelInfo] = {}
    for c in channels:
        pairs.setdefault((c.electrode, c.electrode2), c)
    wanted = [tuple(ch.split("-")) for ch in TCP_22]
    formed = [p for p in wanted if p in pairs or p[::-1] in pairs]
    name = "bipolar"
    if len(formed) < REDUCED_BELOW:
        # Input pairs that are 10-20 chain derivations (either polarity), kept as they are:
        # a bipolar input cannot be re-referenced, so no electrode is known to be missing.
        extra = [
            p for p in REDUCED_DERIVATIONS if p not in formed and (p in pairs or p[::-1] in pairs)
        ]
        if extra:
            name, wanted = "reduced", formed + extra
    inputs: list[ChannelInfo] = []
    out, entries = [], []
    for a, b in wanted:
        sign, src = (1.0, pairs.get((a, b))) if (a, b) in pairs else (-1.0, pairs.get((b, a)))
        if src is None:
            continue
        if src not in inputs:
            inputs.append(src)
        out.append(f"{a}-{b}")
        entries.append((inputs.index(src), sign))
    matrix = np.zeros((len(inputs), len(out)), dtype=np.float32)
    for col, (row, sign) in enumerate(entries):
        matrix[row, col] = sign
    missing = tuple(c for c in TCP_22 if c not in out)
    return Montage(name, tuple(c.label for c in inputs), tuple(out), missing, matrix)


#: Fewest channels the detector accepts (TCP or reduced). The decision is a cross-channel
#: score over the top-4 channels; below 4 channels one artifact decides it alone, so such
#: input is refused rather than scored. (Reduced electrode sets such as Fp1 Fp2 C3 C4 T3 T4
#: O1 O2 pass through the reduced montage: 11 channels.)
MIN_TCP_CHANNELS = 4


def check_enough_channels(ch_names, path=None) -> None:
    """Refuse input with fewer than :data:`MIN_TCP_CHANNELS` channels (TCP or reduced).

    Raises
    ------
    RtEegError
        Naming the file, how many channels could be formed and which.
    """
    from rt_eeg.errors import RtEegError

    n = len(ch_names)
    if n < MIN_TCP_CHANNELS:
        formed = ", ".join(ch_names) or "none"
        what = (
            "of the 22 TCP channels"
            if set(ch_names) <= set(TCP_22)
            else "channels (TCP or reduced 10-20 derivations)"
        )
        raise RtEegError(
            f"only {n} {what} can be formed ({formed}); the detector needs at "
            f"least {MIN_TCP_CHANNELS} to decide across channels",
            path,
        )


def reduced_note(montage: str, ch_names, path=None) -> str | None:
    """The one log line for a reduced montage (``None`` for a TCP/bipolar one).

    Parameters
    ----------
    montage : str
        Montage name (``reduced`` for the reduced montage).
    ch_names : sequence of str
        The channels formed, in order.
    path : path-like, optional
        The recording or stream the line names.
    """
    if montage != "reduced":
        return None
    added = [c for c in ch_names if c not in TCP_22]
    where = f"{path}: " if path is not None else ""
    return (
        f"{where}reduced montage: {len(ch_names)} channels ({len(ch_names) - len(added)} TCP, "
        f"{len(added)} added 10-20 derivations: {', '.join(added)})"
    )


def is_reduced(ch_names) -> bool:
    """Whether channels are a reduced montage: one of them is an added 10-20 derivation."""
    return any(c in _ADDED_NAMES for c in ch_names)


def chain_pairs(electrodes) -> list[tuple[str, str]]:
    """The bipolar derivations a recording of only ``electrodes`` is read in.

    Neighbours along each 10-20 chain (:data:`CHAINS_10_20`, plus the ear pairs A1-T3 and
    T4-A2) once the electrodes not in ``electrodes`` are left out, skipping at most one:
    the TCP channels for a full set; for Fp1 Fp2 C3 C4 T3 T4 O1 O2 the 11 channels of the
    reduced montage. Order: TCP order, then :data:`REDUCED_DERIVATIONS` order.
    """
    have = set(electrodes)
    tcp = [tuple(ch.split("-")) for ch in TCP_22]
    tcp = [(a, b) for a, b in tcp if a in have and b in have]
    extra = [
        (a, b)
        for a, b in REDUCED_DERIVATIONS
        if a in have
        and b in have
        and (a, b) not in tcp
        and SKIPPED_ELECTRODE.get((a, b)) not in have
    ]
    return tcp + extra


def bipolar_rereference(
    pairs: list[tuple[str, str]], electrodes
) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Derive the :func:`chain_pairs` of an electrode subset from bipolar input channels.

    Bipolar channels of one common reference sum along a path: FP1-C3 = FP1-F3 + F3-C3, so
    a bipolar recording (CHB-MIT) reduced to an electrode subset is read exactly as a
    referential recording of only those electrodes would be.

    Parameters
    ----------
    pairs : list of (str, str)
        The input channels, ``(electrode, electrode2)`` each, normalised names.
    electrodes : iterable of str
        The electrodes kept.

    Returns
    -------
    out : list of (str, str)
        Derivations formed (those whose electrodes are connected through the input pairs).
    matrix : np.ndarray
        ``(n_inputs, n_out)`` float32 of +1/-1/0: ``derived = signal @ matrix``.
    """
    adj: dict[str, list[tuple[str, int, float]]] = {}
    for i, (a, b) in enumerate(pairs):
        adj.setdefault(a, []).append((b, i, 1.0))
        adj.setdefault(b, []).append((a, i, -1.0))
    out, cols = [], []
    for a, b in chain_pairs(e for e in electrodes if e in adj):
        # Breadth-first: the shortest chain of input channels from a to b (input order
        # breaks ties, so the result is deterministic).
        prev: dict[str, tuple[str, int, float] | None] = {a: None}
        queue = [a]
        while queue and b not in prev:
            node = queue.pop(0)
            for nxt, i, sign in adj[node]:
                if nxt not in prev:
                    prev[nxt] = (node, i, sign)
                    queue.append(nxt)
        if b not in prev:
            continue
        col = np.zeros(len(pairs), np.float32)
        node = b
        while prev[node] is not None:
            node_prev, i, sign = prev[node]
            col[i] += sign
            node = node_prev
        out.append((a, b))
        cols.append(col)
    matrix = np.stack(cols, axis=1) if cols else np.zeros((len(pairs), 0), np.float32)
    return out, matrix
