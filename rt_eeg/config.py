"""Run configuration: endpoints, stage parameters, model path; TOML in, validated dataclasses out.

A pipeline TOML file looks like::

    model = "models/default"
    device = "auto"            # auto | cpu | gpu
    transport = "ipc"          # ipc (sockets under a private run folder) | tcp (127.0.0.1)

    [postprocess]              # any PostprocessConfig field
    threshold_on = 0.6

    [endpoints]                # optional explicit endpoints (defaults derive from transport)
    display_signal = "tcp://127.0.0.1:5601"

    [security]                 # CURVE for display endpoints off the machine (rt_eeg.security)
    server_secret_key = "keys/server.key_secret"
    authorized_keys_dir = "keys/authorized"

Missing keys take documented defaults. Every key is type- and range-checked at load and
unknown keys are errors, each quoting file, key and value; a non-loopback endpoint without
CURVE is refused unless ``insecure = true``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.postprocess import PostprocessConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = ROOT / "models" / "default"
#: Sockets of the pipeline; the stage that binds each is given in ``BINDS``.
ENDPOINT_NAMES = ("control", "source_cmd", "features_in", "decoder_in", "postprocess_in",
                  "display_signal", "display_decision")  # fmt: skip


@dataclass(frozen=True)
class SecurityConfig:
    """ZeroMQ CURVE keys (``[security]``); see :mod:`rt_eeg.security`.

    Attributes
    ----------
    server_secret_key : str
        The pipeline's secret certificate (``NAME.key_secret`` from ``rt-eeg keys``): the
        display publishers encrypt with it.
    authorized_keys_dir : str
        Folder of client public certificates (``*.key``) allowed to subscribe; all others
        are refused by the ZAP authenticator.
    client_secret_key, server_public_key : str
        The client side, for the monitor the supervisor starts itself (optional).
    """

    server_secret_key: str = ""
    authorized_keys_dir: str = ""
    client_secret_key: str = ""
    server_public_key: str = ""

    @property
    def curve_server(self) -> bool:
        return bool(self.server_secret_key)


def security_from_dict(sec) -> SecurityConfig | None:
    """Validate a ``[security]`` table (pipeline and ward configs alike); None when absent.

    Raises
    ------
    ValueError
        Naming the key: unknown keys, non-strings, a server key without an allow-list
        (or the reverse), a client key without the server's public key (or the reverse).
    """
    if sec is None:
        return None
    if not isinstance(sec, dict):
        raise ValueError(f"security must be a table, got {sec!r}"[:200])
    _check_table(sec, {f.name: (str, None) for f in dataclasses.fields(SecurityConfig)}, "security.")
    security = SecurityConfig(**sec)
    if bool(security.server_secret_key) != bool(security.authorized_keys_dir):
        raise ValueError(
            "security.server_secret_key and security.authorized_keys_dir go together "
            "(a CURVE server without an allow-list would accept any client)"
        )
    if bool(security.client_secret_key) != bool(security.server_public_key):
        raise ValueError("security.client_secret_key and security.server_public_key go together")
    return security


def resolve_security_paths(sec, base: Path):
    """``sec`` (the raw ``[security]`` table) with its non-empty string paths made absolute
    on ``base`` (the config file's folder); anything else is returned unchanged for
    :func:`security_from_dict` to judge."""
    if not isinstance(sec, dict):
        return sec

    def resolve(v):
        try:
            return str((base / v).resolve())
        except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop
            return v  # left for the key loader to refuse with the file named

    return {k: resolve(v) if isinstance(v, str) and v else v for k, v in sec.items()}


def check_security_files(security: SecurityConfig | None) -> None:
    """Load every key file and the allow-list folder named in ``security`` now, so an
    unreadable key is one line at config load, not a failure inside a process later."""
    if security is None:
        return
    from rt_eeg.security import AllowList, load_key

    if security.server_secret_key:
        load_key(security.server_secret_key, secret=True)
        AllowList(security.authorized_keys_dir)
    if security.client_secret_key:
        load_key(security.client_secret_key, secret=True)
        load_key(security.server_public_key, secret=False)


@dataclass(frozen=True)
class PipelineConfig:
    """Everything a live run needs.

    Attributes
    ----------
    model : str
        Model folder (``model.keras``, ``features.toml``, ``manifest.json``, optional
        ``postprocess.toml`` written by tuning).
    device : str
        ``auto``, ``cpu`` or ``gpu`` for the decoder.
    transport : str
        ``ipc`` (Unix sockets in a private folder) or ``tcp`` (loopback, free ports).
    heartbeat_s : float
        Interval of stage heartbeats.
    dead_after_s : float
        A stage silent for this long is restarted (one that exits is restarted at once). 5 s,
        as the ward's: a restart loses what is queued in the stage, so two missed heartbeats
        on a loaded machine must not cause one.
    ready_timeout_s : float
        How long the supervisor waits for every stage to report ready.
    data_hwm : int
        High-water mark (messages) on the lossless detection path: back-pressure beyond it.
    display_hwm : int
        High-water mark on the display PUB sockets: messages beyond it are dropped.
    endpoints : dict
        Explicit endpoints overriding the defaults.
    insecure : bool
        Allow endpoints off the machine without CURVE (explicit escape hatch).
    security : SecurityConfig or None
        CURVE keys for the display publishers.
    postprocess : PostprocessConfig
    """

    model: str = str(DEFAULT_MODEL)
    device: str = "auto"
    transport: str = "ipc"
    heartbeat_s: float = 1.0
    dead_after_s: float = 5.0
    ready_timeout_s: float = 120.0
    data_hwm: int = 200
    display_hwm: int = 20
    endpoints: dict = field(default_factory=dict)
    insecure: bool = False
    security: SecurityConfig | None = None
    postprocess: PostprocessConfig | None = None

    def __post_init__(self):
        from rt_eeg.security import check_endpoint_policy

        check_endpoint_policy(self.endpoints, self.security, insecure=self.insecure)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["postprocess"] = self.postprocess.to_dict() if self.postprocess else None
        d["security"] = dataclasses.asdict(self.security) if self.security else None
        return d

    @classmethod
    def from_dict(cls, d: dict) -> PipelineConfig:
        """Validate every key's type and range (``ValueError`` quoting key and value)."""
        d = dict(d)
        post = d.pop("postprocess", None)
        sec = d.pop("security", None)
        _check_table(d, _pipeline_schema(), "")
        bad = set(d.get("endpoints", {})) - set(ENDPOINT_NAMES)
        if bad:
            raise ValueError(
                f"unknown endpoints: {', '.join(sorted(bad))} (known: {', '.join(ENDPOINT_NAMES)})"
            )
        for name, ep in d.get("endpoints", {}).items():
            if not isinstance(ep, str):
                raise ValueError(f"endpoints.{name} must be a string, got {ep!r}")
        dead, beat = d.get("dead_after_s", cls.dead_after_s), d.get("heartbeat_s", cls.heartbeat_s)
        if dead <= beat:
            raise ValueError(f"dead_after_s ({dead!r}) must exceed heartbeat_s ({beat!r})")
        if post is not None:
            if not isinstance(post, dict):
                raise ValueError(f"postprocess must be a table, got {post!r}")
            _check_postprocess(post)
        security = security_from_dict(sec)
        return cls(
            **d,
            security=security,
            postprocess=PostprocessConfig.from_dict(post) if post else None,
        )


def _positive(v) -> bool:
    return math.isfinite(v) and v > 0


#: key -> (type, range check or None, range text) of the top-level pipeline keys.
_PIPELINE_SCHEMA: dict[str, tuple] = {
    "model": (str, lambda v: v.strip() != "", "a folder path"),
    "device": (str, lambda v: v in ("auto", "cpu", "gpu"), "auto, cpu or gpu"),
    "transport": (str, lambda v: v in ("ipc", "tcp"), "ipc or tcp"),
    "heartbeat_s": (float, lambda v: _positive(v) and v <= 60, "in (0, 60] seconds"),
    "dead_after_s": (float, lambda v: _positive(v) and v <= 3600, "in (0, 3600] seconds"),
    "ready_timeout_s": (float, lambda v: _positive(v) and v <= 86400, "in (0, 86400] seconds"),
    "data_hwm": (int, lambda v: 1 <= v <= 1_000_000, "an integer in 1..1000000"),
    "display_hwm": (int, lambda v: 1 <= v <= 1_000_000, "an integer in 1..1000000"),
    "endpoints": (dict, None, "a table"),
    "insecure": (bool, None, "true or false"),
}
_TYPE_NAMES = {str: "a string", float: "a number", int: "an integer", bool: "true or false",
               dict: "a table", object: "a value"}  # fmt: skip
_ANNOTATION_TYPES = {"str": str, "float": float, "int": int, "bool": bool, "dict": dict}


def _pipeline_schema() -> dict[str, tuple]:
    """``_PIPELINE_SCHEMA`` plus a type-only entry for any field added to PipelineConfig
    later without a range rule (so a new key is checked, not refused as unknown)."""
    out = {}
    for f in dataclasses.fields(PipelineConfig):
        if f.name not in ("postprocess", "security"):
            out[f.name] = (_ANNOTATION_TYPES.get(str(f.type), object), None)
    return {**out, **_PIPELINE_SCHEMA}


def _check_value(key: str, value, kind: type, ok, what: str = "") -> None:
    # bool is an int in Python, and TOML ints are fine where floats are expected
    if kind is float:
        good = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif kind is int:
        good = isinstance(value, int) and not isinstance(value, bool)
    else:
        good = isinstance(value, kind)
    if not good:
        raise ValueError(f"{key} must be {_TYPE_NAMES[kind]}, got {value!r}")
    if ok is not None and not ok(value):
        raise ValueError(f"{key} must be {what}, got {value!r}")


def _check_table(d: dict, schema: dict, prefix: str) -> None:
    unknown = sorted(set(d) - set(schema))
    if unknown:
        raise ValueError(
            f"unknown key {prefix}{unknown[0]} (known: {', '.join(prefix + k for k in schema)})"
        )
    for key, value in d.items():
        kind, ok, *what = schema[key]
        _check_value(prefix + key, value, kind, ok, *what)


def _check_postprocess(d: dict) -> None:
    """Types and ranges of ``[postprocess]`` before PostprocessConfig sees them."""
    schema = {}
    for f in dataclasses.fields(PostprocessConfig):
        if f.name == "cross_channel":  # a table: CrossChannelConfig.from_dict checks it
            schema[f.name] = (dict, None)
        elif f.type in ("int", int):  # at least 1 unless the field says otherwise
            lo = f.metadata.get("min", 1)
            schema[f.name] = (int, lambda v, lo=lo: lo <= v <= 100_000,
                              f"an integer in {lo}..100000")  # fmt: skip
        else:
            schema[f.name] = (float, lambda v: math.isfinite(v) and 0 <= v <= 3600,
                              "a finite number >= 0")  # fmt: skip
    _check_table(d, schema, "postprocess.")
    if "cross_channel" in d:
        from rt_eeg.cross_channel import CrossChannelConfig

        CrossChannelConfig.from_dict(d["cross_channel"])
    if not _positive(d.get("epoch_s", 1.0)):
        raise ValueError(f"postprocess.epoch_s must be positive, got {d['epoch_s']!r}")



def read_toml(path: str | os.PathLike) -> dict:
    """Parse a TOML config file; problems are one-line :class:`RtEegError` naming it."""
    path = Path(path)
    if path.is_dir():
        raise RtEegError("is a directory, not a config file", path)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise RtEegError("config file not found", path) from None
    except UnicodeDecodeError as err:
        raise RtEegError(f"not a UTF-8 text file ({err.reason})", path) from None
    except OSError as err:
        raise RtEegError(f"cannot read config file ({err.strerror or err})", path) from None
    except tomllib.TOMLDecodeError as err:
        raise RtEegError(f"invalid TOML ({err})", path) from None

def load_pipeline_config(
    path: str | os.PathLike | None, *, insecure: bool = False
) -> PipelineConfig:
    """Read a pipeline TOML file (``None``: all defaults).

    Every key is checked for type and range at load time, so a bad value is one line naming
    the file, the key and the value, before any process starts. Key paths in ``[security]``
    are relative to the config file's folder. ``insecure`` (``--insecure``) overrides the
    file's ``insecure`` key with True.
    """
    if path is None:
        return PipelineConfig(insecure=insecure)
    path = Path(path)
    data = read_toml(path)
    if insecure:
        data["insecure"] = True
    if "security" in data:
        data["security"] = resolve_security_paths(data["security"], path.parent)
    try:
        cfg = PipelineConfig.from_dict(data)
    except (ValueError, TypeError) as err:
        raise RtEegError(f"invalid config: {err}", path) from None
    check_security_files(cfg.security)
    return cfg


def load_postprocess_config(
    model_dir: str | os.PathLike, override: PostprocessConfig | None = None
) -> PostprocessConfig:
    """The postprocess parameters for a model: explicit override, else the model's tuned
    ``postprocess.toml`` when present, else the documented defaults."""
    if override is not None:
        return override
    path = Path(model_dir) / "postprocess.toml"
    if not path.is_file():
        return PostprocessConfig()
    return read_postprocess_toml(path)


def read_postprocess_toml(path: str | os.PathLike) -> PostprocessConfig:
    """A postprocess TOML file anywhere (a model's, or a candidate's), validated; an
    RtEegError naming the file when it is not one."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
        _check_postprocess(data)
        return PostprocessConfig.from_dict(data)
    except UnicodeDecodeError as err:
        raise RtEegError(f"not a UTF-8 text file ({err.reason})", path) from None
    except (tomllib.TOMLDecodeError, ValueError, TypeError) as err:
        raise RtEegError(f"invalid postprocess parameters ({err})", path) from None


def save_postprocess_config(
    model_dir: str | os.PathLike, cfg: PostprocessConfig, comment: str = ""
) -> Path:
    """Write ``postprocess.toml`` into a model folder atomically."""
    import tomli_w

    from rt_eeg.io.atomic import write_text_atomic

    path = Path(model_dir) / "postprocess.toml"
    head = "".join(f"# {line}\n" for line in comment.splitlines())
    write_text_atomic(path, head + tomli_w.dumps(cfg.to_dict()))
    return path


def dumps(obj) -> str:
    """JSON for run files (configs hold only plain values)."""
    return json.dumps(obj, indent=2)
