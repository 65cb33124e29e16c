"""Lab Streaming Layer (LSL) input: a live amplifier stream as a source.

LSL is the open standard EEG amplifiers and acquisition software publish. We use **pylsl**:
its wheels ship liblsl itself (no system library to install), it is small (numpy only) and
it is the reference binding maintained with liblsl. ``mne-lsl`` also ships liblsl but pulls
in MNE-Python and its dependencies for features (a ring-buffered StreamLSL, a player) this
source does not need; the few lines of inlet handling below are all we use.

What the source does with a stream:

- **Metadata.** Channel labels and units come from the stream's ``<desc><channels>``
  (the XDF convention: ``<channel><label>Fp1</label><unit>microvolts</unit></channel>``), the
  rate from ``nominal_srate``. Labels are normalised like EDF labels
  (:mod:`rt_eeg.io.channels`); an amplifier whose labels are not 10-20 names needs a channel
  map (:func:`load_channel_map`). Unknown units, an irregular rate, a non-numeric format
  or too few TCP channels are one-line errors naming the stream.
- **Conditioning.** The same :class:`~rt_eeg.sources.conditioning.Conditioner` as an EDF
  file: units to microvolts, streaming resampler from any rate to 250 Hz, TCP montage.
- **Signal time.** LSL timestamps place the signal: time 0 is the first sample received.
  Only differences between the stream's own timestamps are used, so no clock
  synchronisation is applied (liblsl's time correction blocks while an outlet is gone). Within a continuous segment samples are counted, so
  a resampled segment is exactly what the same samples read from a file give.
- **Gaps.** A jump between consecutive timestamps of more than ``gap_tolerance_s`` (dropped
  samples, a stream lost and back again, an outlet restarted) ends the segment: the
  conditioner is flushed, and the next segment starts at its timestamp's place (rounded to
  the 0.1 s frame grid) with ``reset`` set, so the stages restart from empty state and the
  missing time is decided 'na'. Comparing consecutive timestamps, not the sample count
  against the first timestamp, keeps a slowly drifting amplifier clock from ever looking
  like a gap.
- **Lost stream.** The inlet recovers by itself when the outlet comes back (liblsl
  re-resolves the same source); meanwhile ``status`` says "no data for N s" and the stage
  shows it on the monitor.

Keep LSL on one machine in tests and on isolated hosts with an ``lsl_api.cfg`` (see
:func:`write_machine_only_config`) named by the ``LSLAPICFG`` environment variable.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from rt_eeg.errors import RtEegError
from rt_eeg.io.channels import normalise_labels
from rt_eeg.montage import MIN_TCP_CHANNELS, tcp_montage
from rt_eeg.sources import SignalBlock
from rt_eeg.sources.conditioning import ANALYSIS_SFREQ, Conditioner, unit_scale

FRAME = 25  # samples per 0.1 s frame at 250 Hz: a segment starts on this grid

MACHINE_ONLY_CFG = """\
; liblsl: this machine only (no multicast beyond the host, no IPv6)
[ports]
IPv6 = disable
[multicast]
ResolveScope = machine
[log]
level = -2
"""


def write_machine_only_config(path: str | os.PathLike) -> Path:
    """Write an ``lsl_api.cfg`` that keeps LSL on this machine; point ``LSLAPICFG`` at it
    before pylsl is first imported (liblsl reads it once, at load)."""
    path = Path(path)
    path.write_text(MACHINE_ONLY_CFG)
    return path


def load_channel_map(path: str | os.PathLike) -> dict:
    """Read a channel map TOML.

    Format::

        unit = "uV"            # optional: unit of every channel, overrides the stream's
        [channels]             # amplifier label = 10-20 electrode (or "" to ignore)
        "Ch1" = "Fp1"
        "Ch2" = "Fp2"

    Returns
    -------
    dict
        ``{"unit": str or None, "channels": {label: electrode}}``.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RtEegError("channel map not found", path) from None
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise RtEegError(f"channel map is not valid TOML ({err})", path) from None
    unknown = set(raw) - {"unit", "channels"}
    if unknown:
        raise RtEegError(f"unknown channel map keys: {', '.join(sorted(unknown))}", path)
    chans = raw.get("channels")
    if not isinstance(chans, dict) or not all(isinstance(v, str) for v in chans.values()):
        raise RtEegError('channel map needs a [channels] table of "label" = "electrode"', path)
    unit = raw.get("unit")
    if unit is not None and (not isinstance(unit, str) or unit_scale(unit) is None):
        raise RtEegError(f"unknown unit {unit!r}", path)
    for label, electrode in chans.items():
        if electrode and normalise_labels([electrode])[0].kind == "other":
            raise RtEegError(f"channel {label!r} maps to {electrode!r}, not a 10-20 electrode", path)
    return {"unit": unit, "channels": dict(chans)}


def _import_pylsl():
    try:
        import pylsl
    except (ImportError, RuntimeError) as err:  # RuntimeError: liblsl not loadable
        raise RtEegError(f"LSL input needs pylsl with liblsl ({err})") from None
    return pylsl


def _lsl_errors() -> tuple[type[BaseException], ...]:
    """liblsl's timeout and lost-stream errors (pylsl.util)."""
    from pylsl.util import LostError, TimeoutError

    return (TimeoutError, LostError)


def stream_metadata(info) -> tuple[list[str], list[str]]:
    """Channel labels and units from a full ``StreamInfo`` (``<desc><channels>``); missing
    labels become ``ch<i>``, missing units ``""``."""
    labels, units = [], []
    ch = info.desc().child("channels").child("channel")
    while not ch.empty() and len(labels) < info.channel_count():
        labels.append(ch.child_value("label") or f"ch{len(labels) + 1}")
        units.append(ch.child_value("unit"))
        ch = ch.next_sibling("channel")
    for i in range(len(labels), info.channel_count()):
        labels.append(f"ch{i + 1}")
        units.append("")
    return labels, units


class LslSource:
    """A live LSL stream as TCP-montage blocks at 250 Hz (see the module docstring).

    Parameters
    ----------
    name, stype : str, optional
        Resolve the stream by name, or else by type (e.g. ``EEG``).
    channel_map : dict or path-like, optional
        From :func:`load_channel_map`, or the TOML file itself.
    resolve_timeout_s : float
        How long to look for the stream before giving up (one-line error).
    gap_tolerance_s : float
        Timestamp jump that counts as a gap (jitter below it is ignored).
    stale_after_s : float
        Seconds without a sample after which ``status`` reports no data.
    origin_file : path-like, optional
        Where the run's time origin is kept (a restarted source continues the time line).
    subscribe : bool
        False to only read the metadata (validation), without receiving samples.
    """

    def __init__(self, name: str | None = None, stype: str | None = None, *, channel_map=None,
                 resolve_timeout_s: float = 10.0, gap_tolerance_s: float = 0.1,
                 stale_after_s: float = 1.0, origin_file: str | os.PathLike | None = None,
                 subscribe: bool = True):  # fmt: skip
        if not name and not stype:
            raise RtEegError("give an LSL stream name (--lsl NAME) or type (--lsl-type TYPE)")
        self._pylsl = pylsl = _import_pylsl()
        self.query = f"name {name!r}" if name else f"type {stype!r}"
        self.where = f"lsl:{name}" if name else f"lsl:type={stype}"
        found = pylsl.resolve_byprop("name" if name else "type", name or stype, 1, resolve_timeout_s)
        if not found:
            raise RtEegError(f"no LSL stream found within {resolve_timeout_s:g} s", self.where)
        # No clock synchronisation: only differences between the stream's own timestamps
        # are used (gaps, signal time), and liblsl's time correction blocks for seconds
        # while the outlet is gone, which must not stall the stage's heartbeat.
        self._inlet = pylsl.StreamInlet(found[0], max_buflen=360, recover=True)
        try:
            info = self._inlet.info(resolve_timeout_s)
            self._setup(info, channel_map)
            # Subscribe now: samples sent while the pipeline starts are buffered (up to
            # max_buflen s) and analysed once it runs, instead of being lost.
            if subscribe:
                self._inlet.open_stream(resolve_timeout_s)
            self._clock_offset = self._time_correction()
        except BaseException:
            self.close()
            raise
        self.gap_tolerance_s = float(gap_tolerance_s)
        self.stale_after_s = float(stale_after_s)
        self.status = "ok"
        self.origin_file = Path(origin_file) if origin_file else None

    def _time_correction(self) -> float:
        """Offset from the stream's clock to ours, measured once (0 on the same machine, or
        when it cannot be had quickly); used for latency only, never for signal time."""
        try:
            return float(self._inlet.time_correction(2.0))
        except _lsl_errors():
            return 0.0

    @classmethod
    def from_spec(cls, spec: dict) -> LslSource:
        """From a run's source description (see :func:`rt_eeg.sources.source_from_spec`)."""
        return cls(spec.get("name"), spec.get("type"), channel_map=spec.get("channel_map"),
                   resolve_timeout_s=spec.get("resolve_timeout_s", 10.0),
                   gap_tolerance_s=spec.get("gap_tolerance_s", 0.1),
                   origin_file=spec.get("origin_file"), subscribe=spec.get("subscribe", True))  # fmt: skip

    def _load_origin(self, ts0: float) -> float:
        """Signal time 0 of the run: the first sample's timestamp, kept in ``origin_file`` so
        that a restarted source process carries on the same time line."""
        import json

        if self.origin_file is not None:
            try:
                return float(json.loads(self.origin_file.read_text())["origin"])
            except (OSError, ValueError, KeyError, TypeError):
                from rt_eeg.io.atomic import write_json_atomic

                write_json_atomic(self.origin_file, {"origin": ts0, "stream": self.name})
        return ts0

    def _setup(self, info, channel_map) -> None:
        if isinstance(channel_map, (str, os.PathLike)):
            channel_map = load_channel_map(channel_map)
        self.name = info.name()
        self.stream_sfreq = float(info.nominal_srate())
        if self.stream_sfreq <= 0:
            raise RtEegError("stream has an irregular rate (nominal_srate 0); EEG needs a fixed rate",
                             self.where)  # fmt: skip
        if info.channel_format() in (3, 0):  # cf_string, cf_undefined
            raise RtEegError("stream is not numeric", self.where)
        labels, units = stream_metadata(info)
        self.stream_labels = labels
        mapped = labels
        if channel_map:
            table = channel_map["channels"]
            mapped = [table.get(lab, "" if table else lab) or f"unmapped:{lab}" for lab in labels]
            if channel_map.get("unit"):
                units = [channel_map["unit"]] * len(labels)
        channels = normalise_labels(mapped)
        montage = tcp_montage(channels)
        if len(montage.ch_names) < MIN_TCP_CHANNELS:
            have = ", ".join(labels[:8]) + ("..." if len(labels) > 8 else "")
            raise RtEegError(
                f"only {len(montage.ch_names)} channels (TCP or reduced) can be formed from the stream's "
                f"{len(labels)} channels ({have}); need {MIN_TCP_CHANNELS} (a channel map maps "
                "amplifier labels to 10-20 names)",
                self.where,
            )
        by_label = {c.label: c for c in channels}
        self._inputs = [by_label[lab].index for lab in montage.input_labels]
        scale = []
        for i in self._inputs:
            s = unit_scale(units[i])
            if s is None:
                raise RtEegError(f"channel {labels[i]!r} has unknown unit {units[i]!r}", self.where)
            scale.append(s)
        self._scale = np.asarray(scale, np.float64)
        self._montage = montage
        self.sfreq = ANALYSIS_SFREQ
        self.ch_names = list(montage.ch_names)
        self.montage = montage.name
        self.duration: float | None = None  # live: no end

    def describe(self) -> dict:
        return {"kind": "lsl", "stream": self.name, "query": self.query,
                "stream_sfreq": self.stream_sfreq, "stream_labels": self.stream_labels}  # fmt: skip

    def blocks(self, chunk_samples: int, idle_s: float = 0.1) -> Iterator[SignalBlock | None]:
        """Blocks of ``chunk_samples`` (shorter at the end of a segment) as the stream delivers
        them; ``None`` after ``idle_s`` without data (so the caller can heartbeat and stop).

        Runs until the caller stops iterating; then ``close()`` flushes nothing more (the
        last partial block of the open segment is yielded by :meth:`finish`).
        """
        rate = self.stream_sfreq
        self._seg = None  # (conditioner, start sample of the segment, samples emitted)
        self._pending = np.zeros((0, len(self.ch_names)), np.float32)
        self._end = 0  # analysis samples placed so far (end of the last segment)
        self._origin: float | None = None
        last_ts: float | None = None
        last_data = time.monotonic()
        max_n = max(1024, int(rate * 2))
        while True:
            try:
                data, ts = self._inlet.pull_chunk(timeout=idle_s, max_samples=max_n, as_numpy=True)
            except _lsl_errors():
                data, ts = None, ()  # liblsl is reconnecting: the same as no data
            if len(ts) == 0:
                quiet = time.monotonic() - last_data
                self.status = f"no data for {quiet:.0f} s" if quiet >= self.stale_after_s else "ok"
                yield None
                continue
            last_data = time.monotonic()
            self.status = "ok"
            ts = np.asarray(ts, np.float64)
            raw = np.asarray(data, np.float64)[:, self._inputs] * self._scale
            if self._origin is None:
                self._origin = self._load_origin(float(ts[0]))
            # Split at every jump (also inside a chunk) larger than the tolerance.
            prev = np.concatenate([[ts[0] - 1 / rate if last_ts is None else last_ts], ts[:-1]])
            jumps = np.flatnonzero(np.abs(ts - prev - 1 / rate) > self.gap_tolerance_s)
            bounds = [0, *jumps.tolist(), len(ts)]
            for a, b in zip(bounds[:-1], bounds[1:], strict=True):
                if a == b:
                    continue
                if self._seg is None or a in jumps:
                    yield from self._close_segment()
                    self._open_segment(float(ts[a]))
                yield from self._push(raw[a:b], chunk_samples)
            last_ts = float(ts[-1])
            self._check_rate(last_ts)

    #: Signal seconds of a segment after which its sample spacing is compared with the
    #: declared rate, and the relative difference that means the rate has changed.
    RATE_CHECK_S, RATE_TOLERANCE = 5.0, 0.05

    def _check_rate(self, last_ts: float) -> None:
        """Refuse a stream whose samples no longer come at its declared rate (an amplifier
        restarted at another rate behind the same stream): analysed at the old rate, its
        time line would be wrong. The caller (a ward bed) restarts and reads the new rate."""
        if self._seg is None or self._seg_n < 2:
            return
        span = last_ts - self._seg_ts0
        if span < self.RATE_CHECK_S:
            return
        observed = (self._seg_n - 1) / span
        if abs(observed / self.stream_sfreq - 1) > self.RATE_TOLERANCE:
            raise RtEegError(f"stream rate changed: samples arrive at {observed:.4g} Hz, the "
                             f"stream declares {self.stream_sfreq:g} Hz", self.where)  # fmt: skip

    def finish(self, chunk_samples: int) -> Iterator[SignalBlock]:
        """End of the run: the open segment's remaining samples (conditioner tail included)."""
        if getattr(self, "_seg", None) is not None:
            yield from self._close_segment()

    def _open_segment(self, ts0: float) -> None:
        place = int(np.ceil((ts0 - self._origin) * self.sfreq / FRAME - 1e-6)) * FRAME
        start = max(place, -(-self._end // FRAME) * FRAME)
        cond = Conditioner([self.stream_sfreq] * len(self._inputs), self._montage, self.sfreq)
        self._seg = [cond, start, 0, True]  # conditioner, start, emitted, next block resets
        self._seg_t0, self._seg_n, self._seg_ts0 = start / self.sfreq, 0, ts0

    def _close_segment(self) -> Iterator[SignalBlock]:
        if self._seg is None:
            return
        cond = self._seg[0]
        self._pending = np.concatenate([self._pending, cond.flush()])
        if len(self._pending):
            yield self._block(len(self._pending))
        self._end = self._seg[1] + self._seg[2]
        self._seg = None

    @property
    def received_s(self) -> float:
        """Signal time up to which samples have arrived (some may still be in the resampler)."""
        if getattr(self, "_seg", None) is None:
            return getattr(self, "_end", 0) / self.sfreq
        return self._seg_t0 + self._seg_n / self.stream_sfreq

    def _push(self, raw: np.ndarray, chunk_samples: int) -> Iterator[SignalBlock]:
        self._seg_n += len(raw)
        out = self._seg[0].push(raw)
        self._pending = np.concatenate([self._pending, out]) if len(self._pending) else out
        while len(self._pending) >= chunk_samples:
            yield self._block(chunk_samples)

    def _block(self, n: int) -> SignalBlock:
        cond, start, emitted, reset = self._seg
        # When the block's last sample was acquired, from its LSL timestamp: latency is
        # measured from the amplifier, not from when this process got around to it.
        ts_last = self._seg_ts0 + (emitted + n - 1) / self.sfreq + self._clock_offset
        t_capture = time.time() - max(0.0, self._pylsl.local_clock() - ts_last)
        block = SignalBlock(start + emitted, self._pending[:n], reset=reset and self._end > 0,
                            t_capture=t_capture)  # fmt: skip
        self._pending = self._pending[n:]
        self._seg[2] += n
        self._seg[3] = False
        return block

    def close(self) -> None:
        inlet = getattr(self, "_inlet", None)
        if inlet is not None:
            try:
                inlet.close_stream()
            except Exception:  # already closed / lost: nothing to release
                pass
            self._inlet = None
