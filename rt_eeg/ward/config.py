"""``ward.toml``: the ward service's settings and its beds, every key type- and range-checked.

Example (``docs/ward.example.toml``)::

    [ward]
    model = "models/default"
    output = "ward_out"              # bed outputs go to <output>/<bed name>/
    alarm_log = "alarms.jsonl"       # relative to output
    alarm_command = ["notify-send", "seizure"]

    [[bed]]
    name = "bed01"
    edf = "recordings/p1.edf"
    speed = 1.0                      # or "max"

    [[bed]]
    name = "bed02"
    lsl = "Amp-07"
    channel_map = "amp07.toml"

Relative paths are relative to the config file's folder. A bad key is one line naming the
file, the key and the value (``ward.toml: invalid config: bed[1].speed must be ...``).

A nurses' station on another machine reaches the status and control sockets only over
CURVE: ``ward.status``/``ward.control`` bound to a non-loopback address need a ``[security]``
table (the pipeline's keys and meaning, :func:`rt_eeg.config.security_from_dict`), else
top-level ``insecure = true``::

    [ward]
    status = "tcp://0.0.0.0:5701"
    control = "tcp://0.0.0.0:5700"

    [security]                       # with server keys, both sockets are CURVE servers
    server_secret_key = "keys/ward.key_secret"
    authorized_keys_dir = "keys/authorized"
    client_secret_key = "keys/local.key_secret"   # optional: rt-eeg ward/overview here
    server_public_key = "keys/ward.key"
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from rt_eeg.config import (
    DEFAULT_MODEL,
    SecurityConfig,
    _check_postprocess,
    _check_table,
    check_security_files,
    read_toml,
    resolve_security_paths,
    security_from_dict,
)
from rt_eeg.errors import RtEegError
from rt_eeg.postprocess import PostprocessConfig

#: Bed names become folder and socket names: short, no path characters.
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
#: Beds one service accepts (socket and process budget).
MAX_BEDS = 256


def _pos(v) -> bool:
    return math.isfinite(v) and v > 0


def _endpoint(v: str) -> bool:
    """Empty (a private ipc default) or a well-formed endpoint; where it may bind is the
    endpoint policy's call (:func:`rt_eeg.security.check_endpoint_policy`)."""
    from rt_eeg.security import parse_endpoint

    if v == "":
        return True
    try:
        parse_endpoint(v)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class BedConfig:
    """One bed.

    Attributes
    ----------
    name : str
        Unique within the ward; ``[A-Za-z0-9_.-]``, at most 32 characters.
    edf, lsl : str
        Exactly one: a recording to replay, or the name of an LSL stream.
    speed : float or None
        Replay speed of an ``edf`` bed (1 = wall clock; None = as fast as it goes).
    channel_map : str
        Channel map TOML of an ``lsl`` bed (see ``rt-eeg live --channel-map``).
    out : str
        Output folder (default ``<ward output>/<name>``).
    """

    name: str
    edf: str = ""
    lsl: str = ""
    speed: float | None = 1.0
    channel_map: str = ""
    out: str = ""

    @property
    def live(self) -> bool:
        return bool(self.lsl)

    def source_spec(self) -> dict:
        """The description :func:`rt_eeg.sources.source_from_spec` opens."""
        if self.edf:
            return {"kind": "edf", "path": self.edf}
        spec = {"kind": "lsl", "name": self.lsl}
        if self.channel_map:
            spec["channel_map"] = self.channel_map
        return spec

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["speed"] = "max" if self.speed is None else self.speed
        return d


@dataclass(frozen=True)
class WardConfig:
    """``[ward]``: the service.

    Attributes
    ----------
    model, device : str
        Decoder model folder; ``auto``, ``cpu`` or ``gpu``.
    output : str
        Output root: bed folders, alarm log, the service's ``.ward/`` folder (lock, logs).
    control, status : str
        Control (REQ/REP) and status (PUB) endpoints; empty: ``ipc://`` in the private run
        folder (its path is written to ``<output>/.ward/``). Loopback only.
    ipc_dir : str
        Folder for the ipc sockets (created 0700); empty: a fresh private temporary folder.
    heartbeat_s, dead_after_s : float
        Heartbeat interval of bed and decoder processes; silence after which one is
        restarted.
    ready_timeout_s : float
        Time a (re)started decoder has to load the model.
    stale_after_s, no_data_after_s : float
        Wall seconds without a sample after which a bed shows STALE, then NO DATA.
    backoff_s, backoff_max_s : float
        First and largest wait before a failed bed is restarted (doubling in between).
    batch_wait_ms : float
        How long the decoder waits for more beds' frames before a model call.
    data_hwm : int
        Frames queued per bed towards the decoder (back-pressure beyond it).
    warm_windows : int
        The decoder compiles its padded batch shapes up to this many windows before it is
        ready (each shape costs about 0.5 s once; larger ones compile on first use).
    alarm_log : str
        Alarm log (JSON lines), relative to ``output``.
    alarm_command : list of str
        argv run per raised alarm (never a shell string); empty: none.
    postprocess : PostprocessConfig or None
        Override of the model's postprocess parameters.
    beds : tuple of BedConfig
    security : SecurityConfig or None
        ``[security]``: with ``server_secret_key``, the status and control sockets are CURVE
        servers admitting the keys in ``authorized_keys_dir``; the client keys are what
        ``rt-eeg ward``/``rt-eeg overview --config`` connect with.
    insecure : bool
        Top-level ``insecure = true``: allow non-loopback status/control without CURVE.
    """

    model: str = str(DEFAULT_MODEL)
    device: str = "auto"
    output: str = "ward_out"
    control: str = ""
    status: str = ""
    ipc_dir: str = ""
    heartbeat_s: float = 1.0
    dead_after_s: float = 5.0
    ready_timeout_s: float = 120.0
    stale_after_s: float = 3.0
    no_data_after_s: float = 10.0
    backoff_s: float = 1.0
    backoff_max_s: float = 60.0
    batch_wait_ms: float = 2.0
    data_hwm: int = 200
    warm_windows: int = 8192
    alarm_log: str = "alarms.jsonl"
    alarm_command: tuple = ()
    postprocess: PostprocessConfig | None = None
    beds: tuple = field(default_factory=tuple)
    security: SecurityConfig | None = None
    insecure: bool = False

    def __post_init__(self):
        from rt_eeg.security import check_endpoint_policy

        explicit = {k: getattr(self, k) for k in ("status", "control") if getattr(self, k)}
        check_endpoint_policy(explicit, self.security, insecure=self.insecure,
                              curve_endpoints=("status", "control"), prefix="ward.")  # fmt: skip

    def bed_out(self, bed: BedConfig) -> Path:
        return Path(bed.out) if bed.out else Path(self.output) / bed.name

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["postprocess"] = self.postprocess.to_dict() if self.postprocess else None
        d["alarm_command"] = list(self.alarm_command)
        d["beds"] = [b.to_dict() for b in self.beds]
        d["security"] = dataclasses.asdict(self.security) if self.security else None
        return d


_WARD_SCHEMA: dict[str, tuple] = {
    "model": (str, lambda v: v.strip() != "", "a folder path"),
    "device": (str, lambda v: v in ("auto", "cpu", "gpu"), "auto, cpu or gpu"),
    "output": (str, lambda v: v.strip() != "", "a folder path"),
    "control": (str, _endpoint, "an ipc://PATH or tcp://HOST:PORT endpoint"),
    "status": (str, _endpoint, "an ipc://PATH or tcp://HOST:PORT endpoint"),
    "ipc_dir": (str, lambda v: len(v) <= 80, "a folder path of at most 80 characters"),
    "heartbeat_s": (float, lambda v: _pos(v) and v <= 60, "in (0, 60] seconds"),
    "dead_after_s": (float, lambda v: _pos(v) and v <= 3600, "in (0, 3600] seconds"),
    "ready_timeout_s": (float, lambda v: _pos(v) and v <= 86400, "in (0, 86400] seconds"),
    "stale_after_s": (float, lambda v: _pos(v) and v <= 3600, "in (0, 3600] seconds"),
    "no_data_after_s": (float, lambda v: _pos(v) and v <= 86400, "in (0, 86400] seconds"),
    "backoff_s": (float, lambda v: _pos(v) and v <= 3600, "in (0, 3600] seconds"),
    "backoff_max_s": (float, lambda v: _pos(v) and v <= 86400, "in (0, 86400] seconds"),
    "batch_wait_ms": (float, lambda v: math.isfinite(v) and 0 <= v <= 1000, "in [0, 1000] ms"),
    "data_hwm": (int, lambda v: 1 <= v <= 100_000, "an integer in 1..100000"),
    "warm_windows": (int, lambda v: 0 <= v <= 8192, "an integer in 0..8192"),
    "alarm_log": (str, lambda v: v.strip() != "", "a file path"),
    "alarm_command": (object, lambda v: isinstance(v, list) and len(v) <= 64 and all(isinstance(a, str) and a for a in v),
                      "a list of non-empty strings (argv, not a shell command)"),
    "postprocess": (dict, None, "a table"),
}
_BED_SCHEMA: dict[str, tuple] = {
    "name": (str, lambda v: bool(NAME_RE.match(v)), "1-32 characters of A-Z a-z 0-9 _ . - "
             "(not starting with . _ or -)"),
    "edf": (str, lambda v: v.strip() != "", "a file path"),
    "lsl": (str, lambda v: v.strip() != "" and len(v) <= 256, "a stream name"),
    "speed": (object, lambda v: v == "max" or (isinstance(v, (int, float)) and not isinstance(v, bool)
              and _pos(v) and v <= 1000), 'a number in (0, 1000] or "max"'),
    "channel_map": (str, lambda v: v.strip() != "", "a file path"),
    "out": (str, lambda v: v.strip() != "", "a folder path"),
}


def _resolve(base: Path | None, value: str) -> str:
    if not value or base is None:
        return value
    p = Path(value).expanduser()
    return str(p if p.is_absolute() else (base / p).resolve())


def bed_from_dict(d, where: str = "bed", base: Path | None = None) -> BedConfig:
    """Validate one bed table (``ValueError`` naming ``where.key``); paths resolved on ``base``."""
    if not isinstance(d, dict):
        raise ValueError(f"{where} must be a table, got {d!r}"[:200])
    _check_table(d, _BED_SCHEMA, where + ".")
    if "name" not in d:
        raise ValueError(f"{where}.name is missing")
    if bool(d.get("edf")) == bool(d.get("lsl")):
        raise ValueError(f"{where} needs exactly one of edf = \"path\" or lsl = \"NAME\"")
    if d.get("lsl") and "speed" in d:
        raise ValueError(f"{where}.speed applies to edf beds only (an LSL stream has its own pace)")
    if d.get("edf") and "channel_map" in d:
        raise ValueError(f"{where}.channel_map applies to lsl beds only (an EDF names its channels)")
    speed = d.get("speed", 1.0)
    return BedConfig(
        name=d["name"], edf=_resolve(base, d.get("edf", "")), lsl=d.get("lsl", ""),
        speed=None if speed == "max" else float(speed),
        channel_map=_resolve(base, d.get("channel_map", "")), out=_resolve(base, d.get("out", "")),
    )


def ward_from_dict(data: dict, base: Path | None = None) -> WardConfig:
    """Validate a parsed ``ward.toml`` (``ValueError`` naming the key)."""
    unknown = sorted(set(data) - {"ward", "bed", "security", "insecure"})
    if unknown:
        raise ValueError(f"unknown table {unknown[0]} (known: [ward], [[bed]], [security], insecure = ...)")
    if not isinstance(data.get("insecure", False), bool):
        raise ValueError(f"insecure must be true or false, got {data['insecure']!r}"[:200])
    sec = data.get("security")
    security = security_from_dict(resolve_security_paths(sec, base) if base is not None else sec)
    ward = data.get("ward", {})
    if not isinstance(ward, dict):
        raise ValueError(f"ward must be a table, got {ward!r}"[:200])
    ward = dict(ward)
    _check_table(ward, _WARD_SCHEMA, "ward.")
    post = ward.pop("postprocess", None)
    if post is not None:
        try:
            _check_postprocess(post)
        except ValueError as err:
            raise ValueError(f"ward.{err}") from None
    def get(key):  # the file's value, else WardConfig's default (stated once, there)
        return ward.get(key, getattr(WardConfig, key))

    if get("dead_after_s") <= get("heartbeat_s"):
        raise ValueError(f"ward.dead_after_s ({get('dead_after_s')!r}) must exceed "
                         f"ward.heartbeat_s ({get('heartbeat_s')!r})")
    if get("no_data_after_s") < get("stale_after_s"):
        raise ValueError("ward.no_data_after_s must be >= ward.stale_after_s")
    if get("backoff_max_s") < get("backoff_s"):
        raise ValueError("ward.backoff_max_s must be >= ward.backoff_s")
    beds_raw = data.get("bed", [])
    if not isinstance(beds_raw, list):
        raise ValueError("bed must be an array of tables ([[bed]])")
    if len(beds_raw) > MAX_BEDS:
        raise ValueError(f"bed: {len(beds_raw)} beds, at most {MAX_BEDS}")
    beds, seen = [], set()
    for i, b in enumerate(beds_raw):
        bed = bed_from_dict(b, f"bed[{i}]", base)
        if bed.name in seen:
            raise ValueError(f"bed[{i}].name {bed.name!r} is used by another bed")
        seen.add(bed.name)
        beds.append(bed)
    for key in ("model", "output", "ipc_dir"):
        if key in ward:
            ward[key] = _resolve(base, ward[key])
    if "alarm_command" in ward:
        ward["alarm_command"] = tuple(ward["alarm_command"])
    cfg = WardConfig(**ward, postprocess=PostprocessConfig.from_dict(post) if post else None,
                     beds=tuple(beds), security=security, insecure=data.get("insecure", False))
    if base is not None and not Path(cfg.output).is_absolute():
        cfg = dataclasses.replace(cfg, output=_resolve(base, cfg.output))
    outs = [str(cfg.bed_out(b)) for b in cfg.beds]
    dup = {o for o in outs if outs.count(o) > 1}
    if dup:
        raise ValueError(f"two beds write to the same folder {sorted(dup)[0]}")
    return cfg


def load_ward_config(path: str | os.PathLike) -> WardConfig:
    """Read and validate ``ward.toml``; relative paths are taken from its folder. The key
    files of ``[security]`` are loaded here (an unreadable one is one line naming it)."""
    path = Path(path)
    data = read_toml(path)
    try:
        cfg = ward_from_dict(data, path.resolve().parent)
    except (ValueError, TypeError) as err:
        raise RtEegError(f"invalid config: {err}", path) from None
    check_security_files(cfg.security)
    return cfg
