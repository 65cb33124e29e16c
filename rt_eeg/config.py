"""Run configuration: endpoints, stage parameters, model path; TOML in, validated dataclasses out.

A pipeline TOML file looks like::

    model = "models/default"
    device = "auto"            # auto | cpu | gpu
    transport = "ipc"          # ipc (sockets under a private run folder) | tcp (127.0.0.1)

    [postprocess]              # any PostprocessConfig field
    threshold_on = 0.6

    [endpoints]                # optional explicit endpoints (defaults derive from transport)
    display_signal = "tcp://127.0.0.1:5601"

Missing keys take documented defaults; unknown keys are errors that quote the bad key.
"""

from __future__ import annotations

import dataclasses
import json
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
        A stage silent for this long (or exited) is restarted.
    ready_timeout_s : float
        How long the supervisor waits for every stage to report ready.
    data_hwm : int
        High-water mark (messages) on the lossless detection path: back-pressure beyond it.
    display_hwm : int
        High-water mark on the display PUB sockets: messages beyond it are dropped.
    endpoints : dict
        Explicit endpoints overriding the defaults.
    postprocess : PostprocessConfig
    """

    model: str = str(DEFAULT_MODEL)
    device: str = "auto"
    transport: str = "ipc"
    heartbeat_s: float = 1.0
    dead_after_s: float = 2.0
    ready_timeout_s: float = 120.0
    data_hwm: int = 200
    display_hwm: int = 20
    endpoints: dict = field(default_factory=dict)
    postprocess: PostprocessConfig | None = None

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["postprocess"] = self.postprocess.to_dict() if self.postprocess else None
        return d

    @classmethod
    def from_dict(cls, d: dict) -> PipelineConfig:
        d = dict(d)
        post = d.pop("postprocess", None)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown keys: {', '.join(sorted(unknown))}")
        bad = set(d.get("endpoints", {})) - set(ENDPOINT_NAMES)
        if bad:
            raise ValueError(f"unknown endpoints: {', '.join(sorted(bad))}")
        if d.get("device", "auto") not in ("auto", "cpu", "gpu"):
            raise ValueError(f"device must be auto, cpu or gpu (got {d['device']!r})")
        if d.get("transport", "ipc") not in ("ipc", "tcp"):
            raise ValueError(f"transport must be ipc or tcp (got {d['transport']!r})")
        return cls(**d, postprocess=PostprocessConfig.from_dict(post) if post else None)


def load_pipeline_config(path: str | os.PathLike | None) -> PipelineConfig:
    """Read a pipeline TOML file (``None``: all defaults)."""
    if path is None:
        return PipelineConfig()
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return PipelineConfig.from_dict(data)
    except FileNotFoundError:
        raise RtEegError("config file not found", path) from None
    except (tomllib.TOMLDecodeError, ValueError, TypeError) as err:
        raise RtEegError(f"invalid config ({err})", path) from None


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
    try:
        return PostprocessConfig.from_dict(tomllib.loads(path.read_text(encoding="utf-8")))
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
