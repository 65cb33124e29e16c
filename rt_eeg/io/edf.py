"""EDF/EDF+ ingestion with pyedflib: TCP montage, 250 Hz, microvolts, read in chunks.

``open_recording`` validates the header up front (readable file, EEG channels present, a
TCP montage can be formed, known units) so every problem surfaces as one clear line naming
the file before any output is written. Samples are read in chunks of whole seconds; each
chunk is scaled to microvolts, resampled (``StreamingResampler``, equal to a whole-file
``resample_poly``) and put through the montage matrix.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from rt_eeg.errors import RtEegError
from rt_eeg.io.channels import ChannelInfo, normalise_labels
from rt_eeg.io.edf_header import quiet_c_output, read_edf_header
from rt_eeg.montage import Montage, tcp_montage
from rt_eeg.resample import StreamingResampler
from rt_eeg.sources.conditioning import ANALYSIS_SFREQ, UNIT_SCALE, Conditioner, rechunk

_UNIT_SCALE = UNIT_SCALE
#: Native samples read per channel and call (about 60 s at 256 Hz): bounds memory.
READ_BLOCK_S = 60.0


class Recording:
    """An EDF recording seen as TCP-montage EEG at 250 Hz.

    Use :func:`open_recording`. Attributes: ``path``, ``sfreq`` (output rate),
    ``native_sfreq``, ``ch_names`` (TCP channels formed), ``missing`` (TCP channels that
    cannot be formed), ``montage`` (name), ``n_samples``, ``duration``, ``start_datetime``,
    ``channels`` (every file channel, normalised).
    """

    def __init__(self, path: str | os.PathLike, *, sfreq: float = ANALYSIS_SFREQ):
        import pyedflib

        self.path = Path(path)
        # Our own header check first: edflib divides by the record duration and prints
        # its diagnostics on the C stdout; this names the bad field instead.
        self.header = read_edf_header(self.path)
        try:
            with quiet_c_output():
                self._reader = pyedflib.EdfReader(str(self.path))
        except Exception as err:  # edflib reports what it refuses as OSError, rarely others
            raise RtEegError(f"not a readable EDF file ({_edf_reason(err)})", self.path) from None
        try:
            self._setup(sfreq)
        except BaseException:
            self.close()
            raise

    def _setup(self, sfreq: float) -> None:
        r = self._reader
        self.channels: list[ChannelInfo] = normalise_labels(r.getSignalLabels())
        if not any(c.kind != "other" for c in self.channels):
            raise RtEegError(
                "no EEG channels found (labels: " + ", ".join(r.getSignalLabels()[:8]) + ")",
                self.path,
            )
        self._montage: Montage = tcp_montage(self.channels)
        if not self._montage.ch_names:
            raise RtEegError(
                "cannot form any TCP montage channel from the EEG channels present", self.path
            )
        by_label = {c.label: c for c in self.channels}
        self._inputs = [by_label[lab].index for lab in self._montage.input_labels]
        rates = r.getSampleFrequencies()
        self._rates = [float(rates[i]) for i in self._inputs]
        self.native_sfreq = max(set(self._rates), key=self._rates.count)
        self._scale = np.empty(len(self._inputs), dtype=np.float64)
        for k, i in enumerate(self._inputs):
            unit = r.getPhysicalDimension(i).strip().lower()
            if unit not in _UNIT_SCALE:
                raise RtEegError(f"channel {r.getLabel(i)!r} has unknown unit {unit!r}", self.path)
            self._scale[k] = _UNIT_SCALE[unit]
            if r.getPhysicalMaximum(i) == r.getPhysicalMinimum(i) or r.getDigitalMaximum(
                i
            ) == r.getDigitalMinimum(i):
                raise RtEegError(
                    f"channel {r.getLabel(i)!r} has a degenerate calibration (min == max)",
                    self.path,
                )
            check_calibration(r, i, self._scale[k], self.header.bdf, self.path)
            check_rate(r.getLabel(i), self._rates[k], sfreq, self.path)
        self.sfreq = float(sfreq)
        self._n_in = [int(r.getNSamples()[i]) for i in self._inputs]
        self.duration = float(r.getFileDuration())
        groups = sorted(set(self._rates))
        self.n_samples = min(
            StreamingResampler(fs, self.sfreq, 1).n_out_total(
                min(n for n, f in zip(self._n_in, self._rates, strict=True) if f == fs)
            )
            for fs in groups
        )
        if self.n_samples < 1:
            raise RtEegError("recording holds no samples", self.path)
        self.duration = self.n_samples / self.sfreq
        try:
            self.start_datetime = r.getStartdatetime()
        except Exception:  # an unparsable start date must not make the signal unreadable
            self.start_datetime = None

    # -- description ------------------------------------------------------------------
    @property
    def montage(self) -> str:
        return self._montage.name

    @property
    def ch_names(self) -> list[str]:
        return list(self._montage.ch_names)

    @property
    def missing(self) -> list[str]:
        return list(self._montage.missing)

    @property
    def native_rates(self) -> list[float]:
        """Distinct native rates of the EEG inputs."""
        return sorted(set(self._rates))

    # -- samples ----------------------------------------------------------------------
    def chunks(self, chunk_samples: int) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(start_sample, block)`` with ``block`` of shape ``(chunk_samples, n_ch)``.

        The last block may be shorter. Blocks are float32 microvolts at ``self.sfreq``; their
        concatenation equals :meth:`read` exactly, whatever ``chunk_samples`` is.
        """
        return rechunk(self._tcp_blocks(), chunk_samples, len(self.ch_names))

    def read(self) -> np.ndarray:
        """The whole recording, ``(n_samples, n_ch)`` float32 microvolts at 250 Hz."""
        return np.concatenate([b for b in self._tcp_blocks()], axis=0)

    def native_blocks(self) -> Iterator[np.ndarray]:
        """The montage inputs as stored: ``(n, n_inputs)`` float64 microvolts at the native
        rate, in blocks of about a minute (what ``rt-eeg stream`` publishes).

        Raises
        ------
        RtEegError
            When the inputs have different rates (one stream has one rate).
        """
        if len(set(self._rates)) != 1:
            raise RtEegError(
                f"EEG channels have different rates ({', '.join(f'{r:g}' for r in self.native_rates)} Hz); "
                "a stream has one rate",
                self.path,
            )
        ks = list(range(len(self._rates)))
        n_blocks = max(1, int(np.ceil(self.duration / READ_BLOCK_S)))
        blocks = (self._read_native(ks, self.native_sfreq, b) for b in range(n_blocks))
        return (b for b in blocks if len(b))

    @property
    def input_labels(self) -> list[str]:
        """Labels of the montage inputs (the channels :meth:`native_blocks` yields)."""
        return list(self._montage.input_labels)

    def _tcp_blocks(self) -> Iterator[np.ndarray]:
        """Montaged, resampled blocks covering exactly ``n_samples`` output samples."""
        cond = Conditioner(self._rates, self._montage, self.sfreq, n_total=self.n_samples)
        n_blocks = max(1, int(np.ceil(self.duration / READ_BLOCK_S)))
        for b in range(n_blocks + 1):
            if b < n_blocks:
                out = cond.push({fs: self._read_native(ks, fs, b) for fs, ks in cond.groups.items()})
            else:
                out = cond.flush()
            if len(out):
                yield out

    def _read_native(self, ks: list[int], fs: float, block: int) -> np.ndarray:
        n_per = int(round(READ_BLOCK_S * fs))
        start = block * n_per
        n_total = min(self._n_in[k] for k in ks)
        n = max(0, min(n_per, n_total - start))
        out = np.empty((n, len(ks)), dtype=np.float64)
        for j, k in enumerate(ks):
            i = self._inputs[k]
            try:
                out[:, j] = self._reader.readSignal(i, start, n) * self._scale[k]
            except Exception as err:  # pyedflib reports truncation as various errors
                raise RtEegError(
                    f"cannot read channel {self._reader.getLabel(i)!r} at {start / fs:.1f} s ({err})",
                    self.path,
                ) from None
        if not np.isfinite(out).all():
            bad = np.argwhere(~np.isfinite(out))[0]
            raise RtEegError(
                f"non-finite sample (NaN/Inf) in channel {self._reader.getLabel(self._inputs[ks[bad[1]]])!r} at {(start + bad[0]) / fs:.2f} s",
                self.path,
            )
        return out

    # -- lifetime ---------------------------------------------------------------------
    def close(self) -> None:
        reader = getattr(self, "_reader", None)
        if reader is not None:
            reader.close()
            self._reader = None

    def __enter__(self) -> Recording:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def describe(self) -> dict:
        """Header facts as a JSON-ready dict (used by ``rt-eeg info``)."""
        return {
            "path": str(self.path),
            "duration_s": round(self.duration, 4),
            "native_sfreq": sorted(set(self._reader.getSampleFrequencies().tolist())),
            "eeg_sfreq": self.native_rates,
            "sfreq": self.sfreq,
            "eeg_channels": [c.label for c in self.channels if c.kind != "other"],
            "other_channels": [c.label for c in self.channels if c.kind == "other"],
            "montage": self.montage,
            "tcp_channels": self.ch_names,
            "missing_tcp_channels": self.missing,
            "start": self.start_datetime.isoformat() if self.start_datetime else None,
        }


#: Largest magnitude (uV) a sample may reach: 1 kV is beyond any EEG amplifier, and keeps
#: squared amplitudes (LFCC band energies) finite in float32.
MAX_ABS_UV = 1e9
#: Native rates accepted: the 0.5-40 Hz feature band needs >= 80 Hz; the top bounds work.
MIN_SFREQ, MAX_SFREQ = 80.0, 65536.0
#: Largest up/down factor of the polyphase resampler (its filter has 20x as many taps).
MAX_RESAMPLE_FACTOR = 100_000


def check_calibration(reader, i: int, scale: float, bdf: bool, path) -> None:
    """Refuse a channel whose digital-to-physical mapping can yield non-finite or absurd
    microvolts (e.g. a physical range of +-1e308), before any sample is read.

    Every sample is an integer in the 16-bit (24-bit for BDF) range, so the extremes of the
    linear map over that range bound every value the channel can produce.
    """
    pmin, pmax = float(reader.getPhysicalMinimum(i)), float(reader.getPhysicalMaximum(i))
    dmin, dmax = float(reader.getDigitalMinimum(i)), float(reader.getDigitalMaximum(i))
    lo, hi = (-(2.0**23), 2.0**23 - 1) if bdf else (-32768.0, 32767.0)
    with np.errstate(all="ignore"):
        gain = (pmax - pmin) / (dmax - dmin)
        peak = max(abs(gain * (d - dmin) + pmin) for d in (lo, hi)) * scale
    if not (np.isfinite(peak) and peak <= MAX_ABS_UV):
        raise RtEegError(
            f"channel {reader.getLabel(i)!r}: physical range {pmin:g}..{pmax:g} "
            f"{reader.getPhysicalDimension(i).strip()} gives samples up to {peak:g} uV "
            f"(non-finite or beyond {MAX_ABS_UV:g} uV): corrupt calibration",
            path,
        )


def check_rate(label: str, fs: float, sfreq: float, path) -> None:
    """Refuse a native rate the resampler cannot serve in bounded time and memory."""
    if not (np.isfinite(fs) and MIN_SFREQ <= fs <= MAX_SFREQ):
        raise RtEegError(
            f"channel {label!r}: sampling rate {fs:g} Hz is outside "
            f"{MIN_SFREQ:g}..{MAX_SFREQ:g} Hz",
            path,
        )
    r = StreamingResampler(fs, sfreq, 1)
    if max(r.up, r.down) > MAX_RESAMPLE_FACTOR:
        raise RtEegError(
            f"channel {label!r}: sampling rate {fs:g} Hz has no simple ratio to "
            f"{sfreq:g} Hz (resampling {r.up}/{r.down})",
            path,
        )


def open_recording(path: str | os.PathLike, *, sfreq: float = ANALYSIS_SFREQ) -> Recording:
    """Open an EDF file as TCP-montage EEG at ``sfreq``; see :class:`Recording`.

    Raises
    ------
    RtEegError
        Unreadable/corrupt file, no EEG channels, no TCP channel can be formed, unknown units.
    """
    return Recording(path, sfreq=sfreq)


def _edf_reason(err: Exception) -> str:
    text = str(err).strip().rstrip(".")
    return text.split(": ", 1)[-1] if text else "corrupt header"
