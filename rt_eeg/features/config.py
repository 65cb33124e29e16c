"""``FeatureConfig``: every LFCC parameter, its checks, ``features.toml``, and the defaults.

Also the filterbank geometry (taper, triangular filters) that both the checks and the maths
in :mod:`rt_eeg.features.lfcc` use, and the constants of the default configuration
(:data:`N_FEATURES`, :data:`FEATURE_NAMES`, :data:`FEATURE_DELAY_S`).
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from rt_eeg.errors import RtEegError

WINDOWS = ("hann", "hamming", "boxcar")
_TOML_TABLE = "features"


@dataclass(frozen=True)
class FeatureConfig:
    """Every LFCC parameter. Saved as ``features.toml`` beside each trained model.

    Equality compares all fields; the decoder refuses a model whose saved configuration is not
    equal to the running one.

    Parameters
    ----------
    sfreq : float
        Sampling rate of the input in Hz [250.0].
    frame_samples : int
        Samples per frame [25 = 0.1 s]; one feature vector per frame.
    window_samples : int
        Analysis window [50 = 0.2 s], centred on the frame: ``(window - frame + 1) // 2`` = 13
        samples before the frame and 12 after (the odd sample goes to the past: no delay).
    buffer_samples : int
        Capacity of the per-channel sample ring buffer [75 = 0.3 s = window + frame]: the
        history a frame arrival needs (window of the previous frame plus the new frame).
    window : {'hann', 'hamming', 'boxcar'}
        Taper (periodic form) ['hann']. Hann's sidelobes fall 18 dB/octave, so the steep
        1/f EEG spectrum leaks little low-frequency power into the upper filters (Hamming's
        fall 6 dB/octave). Its main lobe is +-10 Hz wide for a 0.2 s window, which sets the
        true spectral resolution whatever the FFT size.
    n_fft : int
        FFT size [64]: the 50-sample window zero-padded to the next power of two; bins every
        3.9 Hz, which samples the +-10 Hz main lobe finely enough for 8.8 Hz-wide triangles.
        Larger sizes only interpolate the same spectrum (at twice the cost).
    n_filters : int
        Triangular filters [8], spaced linearly (equal centre spacing of 4.4 Hz, each 8.8 Hz
        wide at the base): about the number of independent spectral values a 0.2 s window
        resolves in the band, and enough for cepstra c0..c7.
    f_min, f_max : float
        Lower and upper edge in Hz of the filterbank [0.5, 40.0]. 0.5 Hz is the clinical EEG
        high-pass (below it: drift and electrode offsets; the DC bin gets no weight). 40 Hz
        covers delta to low gamma, where seizure rhythms live, and the beta/low-gamma part of
        muscle artefact; stopping there keeps the whole +-10 Hz main lobe of 50 Hz or 60 Hz
        mains interference out of every filter, which matters because mains level differs
        from site to site (a nuisance a model should not learn).
    n_cepstra : int
        Cepstral coefficients kept after c0 [7]: features ``[E, c1..c7]``. The orthonormal
        DCT-II of the 8 log filter outputs, c0 (their mean) replaced by the log energy.
    remove_mean : bool
        Subtract each analysis window's mean before energy and spectrum [True].
    log_floor : float
        Floor in microvolts squared applied before every log [1e-6, an RMS of 1 nV]: far
        below the quantisation noise of clinical EEG amplifiers (about 1e-3 uV^2) and far
        above float32 rounding residue, so it only bites on flat (disconnected) channels,
        which then give a finite constant instead of -inf.
    diff_energy_frames : int
        Span of the differential energy ``max(E) - min(E)`` in frames [9 = 0.9 s], trailing
        (ending at the frame): a centred span would add 0.4 s of delay for no gain.
    delta_half_width : int
        ``N`` of the delta regression [4]: 2N + 1 = 9 frames = 0.9 s, centred (HTK formula
        ``d_t = sum_n n (c_{t+n} - c_{t-n}) / (2 sum_n n^2)``), lookahead N frames.
    accel_half_width : int
        ``N`` of the delta-delta regression on the deltas of the 8 absolute features [1]:
        3 frames = 0.3 s, lookahead N frames on top of the deltas' lookahead.

    Notes
    -----
    Edge padding (reflected signal, replicated first/last static frame) is fixed; see
    :mod:`rt_eeg.features.lfcc`. :attr:`delay_s` gives the resulting algorithmic delay (0.644 s).
    """

    sfreq: float = 250.0
    frame_samples: int = 25
    window_samples: int = 50
    buffer_samples: int = 75
    window: str = "hann"
    n_fft: int = 64
    n_filters: int = 8
    f_min: float = 0.5
    f_max: float = 40.0
    n_cepstra: int = 7
    remove_mean: bool = True
    log_floor: float = 1e-6
    diff_energy_frames: int = 9
    delta_half_width: int = 4
    accel_half_width: int = 1

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            want = _FIELD_TYPES[f.name]
            is_bool = isinstance(value, (bool, np.bool_))
            if want is bool and is_bool:
                value = bool(value)
            elif want is float and isinstance(value, (int, float, np.integer, np.floating)):
                value = None if is_bool else float(value)
            elif want is int and isinstance(value, (int, np.integer)):
                value = None if is_bool else int(value)
            elif want is not str or not isinstance(value, str):
                value = None
            if value is None:
                raise RtEegError(
                    f"feature setting {f.name} must be {want.__name__}, got {getattr(self, f.name)!r}"
                )
            object.__setattr__(self, f.name, value)
        problems = []
        if not (self.sfreq > 0 and math.isfinite(self.sfreq)):
            problems.append(f"sfreq must be positive, got {self.sfreq}")
        if self.frame_samples < 1:
            problems.append(f"frame_samples must be >= 1, got {self.frame_samples}")
        if self.window_samples < self.frame_samples:
            problems.append(
                f"window_samples ({self.window_samples}) must be >= frame_samples "
                f"({self.frame_samples})"
            )
        if self.buffer_samples < self.window_samples:
            problems.append(
                f"buffer_samples ({self.buffer_samples}) must be >= window_samples "
                f"({self.window_samples})"
            )
        if self.window not in WINDOWS:
            problems.append(f"window must be one of {WINDOWS}, got {self.window!r}")
        if self.n_fft < self.window_samples:
            problems.append(
                f"n_fft ({self.n_fft}) must be >= window_samples ({self.window_samples})"
            )
        if not 0 <= self.f_min < self.f_max <= self.sfreq / 2:
            problems.append(
                f"need 0 <= f_min < f_max <= sfreq/2, got f_min={self.f_min}, f_max={self.f_max}"
            )
        if not 1 <= self.n_cepstra < self.n_filters:
            problems.append(
                f"need 1 <= n_cepstra < n_filters, got n_cepstra={self.n_cepstra}, "
                f"n_filters={self.n_filters}"
            )
        if not (self.log_floor > 0 and math.isfinite(self.log_floor)):
            problems.append(f"log_floor must be positive, got {self.log_floor}")
        if self.diff_energy_frames < 1:
            problems.append(f"diff_energy_frames must be >= 1, got {self.diff_energy_frames}")
        if self.delta_half_width < 1 or self.accel_half_width < 1:
            problems.append(
                "delta_half_width and accel_half_width must be >= 1, got "
                f"{self.delta_half_width} and {self.accel_half_width}"
            )
        if problems:
            raise RtEegError("invalid feature settings: " + "; ".join(problems))
        _check_filterbank(self)

    # -- derived quantities ----------------------------------------------------------
    @property
    def frame_s(self) -> float:
        """Frame length in seconds (0.1)."""
        return self.frame_samples / self.sfreq

    @property
    def window_before(self) -> int:
        """Samples of the analysis window before the frame (13)."""
        return (self.window_samples - self.frame_samples + 1) // 2

    @property
    def window_after(self) -> int:
        """Samples of the analysis window after the frame (12)."""
        return self.window_samples - self.frame_samples - self.window_before

    @property
    def n_static(self) -> int:
        """Absolute features plus differential energy (9)."""
        return self.n_cepstra + 2

    @property
    def n_features(self) -> int:
        """Features per channel per frame (26)."""
        return 2 * self.n_static + self.n_cepstra + 1

    @property
    def lookahead_frames(self) -> int:
        """Frames of static features after a frame that its dynamic features use (5)."""
        return self.delta_half_width + self.accel_half_width

    @property
    def lookahead_samples(self) -> int:
        """Offset from a frame's first sample to the last sample its features use (161)."""
        return (
            self.frame_samples - 1 + self.window_after + self.frame_samples * self.lookahead_frames
        )

    @property
    def delay_s(self) -> float:
        """Algorithmic delay in seconds (0.644): the features stamped ``t`` use samples up to
        and including the one at ``t + delay_s``."""
        return self.lookahead_samples / self.sfreq

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Names of the features in output order."""
        absolute = ["energy"] + [f"lfcc_{q}" for q in range(1, self.n_cepstra + 1)]
        static = [*absolute, "diff_energy"]
        return tuple(static + [f"d_{n}" for n in static] + [f"dd_{n}" for n in absolute])

    # -- serialisation ---------------------------------------------------------------
    def to_dict(self) -> dict:
        """Field values by name."""
        return dataclasses.asdict(self)

    def to_toml(self) -> str:
        """The configuration as a TOML document with one ``[features]`` table."""
        import tomli_w

        head = (
            "# rt-eeg LFCC feature settings (rt_eeg.features.FeatureConfig).\n"
            f"# Algorithmic delay: {self.delay_s:.3f} s; {self.n_features} features per channel "
            "per frame.\n"
        )
        return head + tomli_w.dumps({_TOML_TABLE: self.to_dict()})

    @classmethod
    def from_toml(cls, text: str, path: str | os.PathLike | None = None) -> FeatureConfig:
        """Parse :meth:`to_toml` output; every field must be present and no other.

        Raises
        ------
        RtEegError
            Malformed TOML, a missing or unknown key, or an invalid value (naming ``path``).
        """
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise RtEegError(f"not valid TOML ({err})", path) from None
        table = doc.get(_TOML_TABLE)
        if not isinstance(table, dict):
            raise RtEegError(f"no [{_TOML_TABLE}] table", path)
        names = [f.name for f in dataclasses.fields(cls)]
        missing = [n for n in names if n not in table]
        unknown = sorted(set(table) - set(names))
        if missing or unknown:
            parts = []
            if missing:
                parts.append("missing keys: " + ", ".join(missing))
            if unknown:
                parts.append("unknown keys: " + ", ".join(unknown))
            raise RtEegError(f"[{_TOML_TABLE}] table: " + "; ".join(parts), path)
        try:
            return cls(**{n: table[n] for n in names})
        except RtEegError as err:
            raise RtEegError(err.problem, path) from None

    def save(self, path: str | os.PathLike) -> None:
        """Write :meth:`to_toml` to ``path`` atomically."""
        from rt_eeg.io.atomic import write_text_atomic

        write_text_atomic(path, self.to_toml())

    @classmethod
    def load(cls, path: str | os.PathLike) -> FeatureConfig:
        """Read a configuration written by :meth:`save`."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RtEegError("file not found", path) from None
        except (OSError, UnicodeDecodeError) as err:
            raise RtEegError(f"cannot read feature settings ({err})", path) from None
        return cls.from_toml(text, path)


def model_feature_config(model_dir: str | os.PathLike) -> FeatureConfig:
    """The settings a model folder was trained with: its ``features.toml``, or the defaults for a
    folder without one (a folder holding only postprocess settings, as the tuning tools accept).

    Raises
    ------
    RtEegError
        The file exists but is not a valid settings file (naming it).
    """
    from rt_eeg.model_files import FEATURES_FILE  # the folder's file names live there

    path = Path(model_dir) / FEATURES_FILE
    if not path.is_file():
        return FeatureConfig()
    cfg = FeatureConfig.load(path)
    check_runnable(cfg, path)
    return cfg


def check_runnable(cfg: FeatureConfig, path: str | os.PathLike | None = None) -> None:
    """Refuse settings the system cannot run: every source conditions its signal to 250 Hz
    (``ANALYSIS_SFREQ``) and the decoder steps in 0.1 s frames (10 per 1 s epoch), so only the
    analysis window, the filterbank and the regressions may differ from the defaults.

    Raises
    ------
    RtEegError
        ``sfreq`` or ``frame_samples`` differ (naming ``path``).
    """
    from rt_eeg.sources.conditioning import ANALYSIS_SFREQ

    default = FeatureConfig()
    if cfg.sfreq != ANALYSIS_SFREQ or cfg.frame_samples != default.frame_samples:
        raise RtEegError(
            f"feature settings sfreq = {cfg.sfreq:g} and frame_samples = {cfg.frame_samples} "
            f"cannot run: every source gives {ANALYSIS_SFREQ:g} Hz in 0.1 s frames "
            f"(sfreq = {default.sfreq:g}, frame_samples = {default.frame_samples})",
            path,
        )


_FIELD_TYPES = {
    f.name: {"float": float, "int": int, "str": str, "bool": bool}[f.type]
    for f in dataclasses.fields(FeatureConfig)
}


# ----------------------------------------------------------------------------- constants


def _taper(name: str, n: int) -> np.ndarray:
    k = np.arange(n) / n  # periodic (DFT-even) form
    if name == "hann":
        return 0.5 - 0.5 * np.cos(2 * np.pi * k)
    if name == "hamming":
        return 0.54 - 0.46 * np.cos(2 * np.pi * k)
    return np.ones(n)


def filter_edges(cfg: FeatureConfig) -> np.ndarray:
    """The filterbank's ``n_filters + 2`` equally spaced edges in Hz; ``[1:-1]`` are the
    triangles' centres."""
    return np.linspace(cfg.f_min, cfg.f_max, cfg.n_filters + 2)


def dct_rows(cfg: FeatureConfig) -> np.ndarray:
    """Orthonormal DCT-II rows 1..n_cepstra over the log filter outputs, ``(n_filters,
    n_cepstra)`` float64: ``c_q = sum_f dct[f, q - 1] L_f``."""
    n_f = cfg.n_filters
    f = np.arange(n_f)[:, None] + 0.5
    q = np.arange(1, cfg.n_cepstra + 1)[None, :]
    return np.sqrt(2.0 / n_f) * np.cos(np.pi * q * f / n_f)


def _triangles(cfg: FeatureConfig) -> np.ndarray:
    """Triangular filters, ``(n_fft // 2 + 1, n_filters)`` float64, unit weight sum each."""
    edges = filter_edges(cfg)
    freqs = np.arange(cfg.n_fft // 2 + 1) * cfg.sfreq / cfg.n_fft
    lo, centre, hi = edges[:-2], edges[1:-1], edges[2:]
    rise = (freqs[:, None] - lo) / (centre - lo)
    fall = (hi - freqs[:, None]) / (hi - centre)
    weights = np.clip(np.minimum(rise, fall), 0.0, None)
    return weights


def _check_filterbank(cfg: FeatureConfig) -> None:
    empty = np.flatnonzero(_triangles(cfg).sum(axis=0) == 0)
    if len(empty):
        raise RtEegError(
            f"invalid feature settings: {len(empty)} of the {cfg.n_filters} filters between "
            f"{cfg.f_min} and {cfg.f_max} Hz contain no FFT bin (n_fft={cfg.n_fft}); use fewer "
            "filters or a larger n_fft"
        )


#: Features per channel per frame with the default configuration.
N_FEATURES: int = FeatureConfig().n_features
#: Names of the default features in output order.
FEATURE_NAMES: tuple[str, ...] = FeatureConfig().feature_names
#: Algorithmic delay of the default configuration in seconds (0.644).
FEATURE_DELAY_S: float = FeatureConfig().delay_s
