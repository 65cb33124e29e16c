"""``rt-eeg ward add|remove|list|pause|resume|ack``: talk to a running ward service."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from rt_eeg.errors import RtEegError

HELP = "control a running ward service: list, add, remove, pause, resume beds; ack alarms"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list", "add", "remove", "pause", "resume", "ack"))
    parser.add_argument("bed", nargs="?", help="bed name (alarm id for ack)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", help="the service's ward.toml (finds its control endpoint)")
    where.add_argument("--control", help="control endpoint (ipc://... or tcp://HOST:PORT)")
    parser.add_argument("--edf", help="add: recording to replay")
    parser.add_argument("--lsl", help="add: LSL stream name")
    parser.add_argument("--speed", help="add: replay speed (1, N or max)")
    parser.add_argument("--channel-map", help="add: channel map TOML of an LSL bed")
    parser.add_argument("--out", help="add: output folder (default <ward output>/<bed>)")
    parser.add_argument("--by", default="", help="ack: who acknowledges")
    parser.add_argument("--json", action="store_true", help="print the raw JSON reply")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for a reply")
    add_key_arguments(parser)


def add_key_arguments(parser: argparse.ArgumentParser) -> None:
    """``--server-key``/``--client-key`` of the ward's clients (as ``rt-eeg monitor``)."""
    parser.add_argument("--server-key", metavar="FILE",
                        help="the ward service's public key (NAME.key): talk over CURVE "
                             "(with --client-key; default: [security] of --config)")  # fmt: skip
    parser.add_argument("--client-key", metavar="FILE",
                        help="this client's secret key (NAME.key_secret from rt-eeg keys), "
                             "listed in the service's authorized_keys_dir")  # fmt: skip


def client_keys(args: argparse.Namespace, eps: dict | None = None) -> tuple[str, str] | None:
    """The CURVE keys a ward client connects with: the flags, else the client keys of
    ``--config``'s ``[security]``; a one-line error when the running service (``eps`` from
    :func:`service_endpoints`) requires CURVE and neither gives keys."""
    from rt_eeg.security import client_curve

    security = None
    if getattr(args, "config", None):
        from rt_eeg.ward.config import load_ward_config

        security = load_ward_config(args.config).security
    curve = client_curve(args.server_key, args.client_key, security)
    if curve is None and eps and eps.get("curve"):
        raise RtEegError("the ward service requires CURVE: give --server-key and --client-key, "
                         "or [security] client_secret_key and server_public_key", args.config)  # fmt: skip
    return curve


def service_endpoints(config: str) -> dict:
    """``{"control": ..., "status": ..., "curve": bool}`` of the service running ``config``
    (``curve``: its status and control sockets are CURVE servers)."""
    from rt_eeg.ward.config import load_ward_config

    cfg = load_ward_config(config)
    path = Path(cfg.output) / ".ward" / "endpoints.json"
    try:
        eps = json.loads(path.read_text())
        found = {"control": str(eps["control"]), "status": str(eps["status"])}
    except (OSError, ValueError, KeyError, TypeError):
        if cfg.control and cfg.status:
            return {"control": cfg.control, "status": cfg.status, "curve": cfg.security is not None
                    and cfg.security.curve_server}  # fmt: skip
        raise RtEegError("no running ward service found (no endpoints.json)", path) from None
    return {"control": cfg.control or found["control"], "status": cfg.status or found["status"],
            "curve": eps.get("curve") is True}  # fmt: skip


def _fmt(v, spec: str = "") -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return format(v, spec) if spec else str(v)


def format_table(beds: list[dict]) -> str:
    """The ``list`` table: bed, state, last decision, since data, latency p95, drops, restarts."""
    head = ("BED", "STATE", "LAST DECISION", "SINCE_DATA_S", "LAT_P95_MS", "DROPS", "RESTARTS", "DETAIL")
    rows = [head] + [(b["bed"], b["state"], _fmt(b.get("last_decision")), _fmt(b.get("since_data_s"), ".1f"),
                      _fmt(b.get("latency_p95_ms"), ".1f"), _fmt(b.get("drops")), _fmt(b.get("restarts")),
                      _fmt(b.get("detail")))
                     for b in beds]  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def run(args: argparse.Namespace) -> int:
    from rt_eeg.commands.replay import parse_speed
    from rt_eeg.ward.control import request

    eps = service_endpoints(args.config) if args.config else None
    endpoint = args.control or eps["control"]
    curve = client_keys(args, eps)
    if args.action != "list" and not args.bed:
        raise RtEegError(f"ward {args.action} needs a bed name" if args.action != "ack" else "ward ack needs an alarm id")
    if args.action == "list":
        req = {"cmd": "list"}
    elif args.action == "add":
        bed = {"name": args.bed}
        for key in ("edf", "channel_map", "out"):
            if getattr(args, key):
                bed[key] = str(Path(getattr(args, key)).resolve())  # the service has another cwd
        if args.lsl:
            bed["lsl"] = args.lsl
        if args.speed:
            try:
                speed = parse_speed(args.speed)
            except argparse.ArgumentTypeError as err:
                raise RtEegError(str(err)) from None
            bed["speed"] = "max" if speed is None else speed
        req = {"cmd": "add", "bed": bed}
    elif args.action == "ack":
        req = {"cmd": "ack", "alarm": args.bed, "by": args.by}
    else:
        req = {"cmd": args.action, "bed": args.bed}
    reply = request(endpoint, req, timeout_s=args.timeout, curve=curve)
    if args.json:
        print(json.dumps(reply, indent=2))
    elif not reply.get("ok"):
        pass
    elif args.action == "list":
        print(format_table(reply.get("beds", [])))
    else:
        print(f"ok: {args.action} {args.bed}")
    if not reply.get("ok"):
        raise RtEegError(str(reply.get("error", "request refused")), endpoint)
    return 0
