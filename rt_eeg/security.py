"""Endpoint policy and ZeroMQ CURVE for the sockets a client on another machine may use.

The security model:

- **Loopback by default.** Every endpoint is ``ipc://`` in a private folder (mode 0700, so
  no other user can connect to or replace a socket) or ``tcp://127.0.0.1``.
- **Off the machine only with CURVE.** A display endpoint (``display_signal``,
  ``display_decision``: what a monitor on another workstation subscribes to) bound to a
  non-loopback address needs ``[security] server_secret_key`` and ``authorized_keys_dir``:
  the publisher then encrypts with CURVE and a ZAP authenticator admits only clients whose
  public key is in the allow-list folder; each refused key is logged once. The ward
  service's status publisher and control socket (``ward.status``, ``ward.control``) follow
  the same rule with the ward config's ``[security]``.
- **The detection path stays local.** Its endpoints carry no CURVE, so a non-loopback one
  is refused.
- ``insecure = true`` (config) lifts both refusals explicitly.

Config load calls :func:`check_endpoint_policy`; the stage processes call
:class:`CurveServer` when they bind a display publisher (the ward service for its status and
control sockets); the monitor, the ward overview and ``rt-eeg ward`` use
:func:`client_curve` and :func:`curve_client_options`.
"""

from __future__ import annotations

import datetime
import ipaddress
import logging
import os
import stat
from pathlib import Path

from rt_eeg.errors import RtEegError

log = logging.getLogger("rt_eeg.security")

DISPLAY_ENDPOINTS = ("display_signal", "display_decision")
ZAP_DOMAIN = "rt-eeg"
#: Unix socket paths are limited to 108 bytes including the terminating NUL.
MAX_IPC_PATH = 107
_LOOPBACK_NAMES = {"localhost", "lo", "ip6-localhost"}


def parse_endpoint(endpoint: str) -> tuple[str, str, str]:
    """Split ``tcp://HOST:PORT`` / ``ipc://PATH`` into ``(transport, host_or_path, port)``.

    Raises
    ------
    ValueError
        For another transport, a missing port or a port outside 1..65535 (``*`` allowed).
    """
    if endpoint.startswith("ipc://"):
        path = endpoint[len("ipc://") :]
        if not path:
            raise ValueError(f"endpoint {endpoint!r} has no path")
        if len(path.encode()) > MAX_IPC_PATH:
            raise ValueError(f"ipc path of {endpoint!r} is longer than {MAX_IPC_PATH} bytes")
        return "ipc", path, ""
    if endpoint.startswith("tcp://"):
        rest = endpoint[len("tcp://") :]
        host, sep, port = rest.rpartition(":")
        if not sep or not host:
            raise ValueError(f"endpoint {endpoint!r} is not tcp://HOST:PORT")
        if port != "*" and not (port.isdigit() and 1 <= int(port) <= 65535):
            raise ValueError(f"endpoint {endpoint!r} has no valid port (1..65535 or *)")
        return "tcp", host.strip("[]"), port
    raise ValueError(f"endpoint {endpoint!r} must start with ipc:// or tcp://")


def is_loopback(endpoint: str) -> bool:
    """True for ``ipc://`` and for TCP on a loopback address or name."""
    kind, host, _ = parse_endpoint(endpoint)
    if kind == "ipc":
        return True
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # '*', '0.0.0.0'-like wildcards, interface names, host names


def check_ipc_folder(path: str) -> None:
    """Refuse an ipc socket whose folder other users can enter (anything beyond 0700)."""
    folder = Path(path).parent
    if not folder.exists():
        return  # created 0700 when the socket is bound (rt_eeg.pipeline.transport)
    mode = stat.S_IMODE(folder.stat().st_mode)
    if mode & 0o077:
        raise ValueError(
            f"ipc folder {folder} is open to other users (mode {mode:04o}); use a private "
            "folder (mode 0700)"
        )


def check_endpoint_policy(
    endpoints: dict,
    security,
    *,
    insecure: bool = False,
    curve_endpoints: tuple[str, ...] = DISPLAY_ENDPOINTS,
    prefix: str = "endpoints.",
) -> None:
    """Apply the endpoint policy to explicit endpoints (config load).

    Parameters
    ----------
    endpoints : dict
        ``{name: endpoint}`` of the explicit endpoints.
    security : SecurityConfig, dict or None
        ``[security]``; a CURVE server needs its ``server_secret_key``.
    curve_endpoints : tuple of str
        The names whose sockets become CURVE servers with ``[security]`` (the pipeline's
        display publishers, the ward's status and control sockets): only these may bind off
        the machine. The others are refused there even with keys.
    prefix : str
        How the error names the key (``endpoints.``, ``ward.``).

    Raises
    ------
    ValueError
        One sentence naming the endpoint, its value and what to do.
    """
    for name, ep in endpoints.items():
        kind, where, _ = parse_endpoint(ep)
        if insecure:
            continue
        if kind == "ipc":
            try:
                check_ipc_folder(where)
            except ValueError as err:
                raise ValueError(f"{prefix}{name} = {ep!r}: {err} (or insecure = true)") from None
            continue
        if is_loopback(ep):
            continue
        if name not in curve_endpoints:
            raise ValueError(
                f"{prefix}{name} = {ep!r} is not loopback: the detection path has no "
                "encryption, keep it on ipc:// or 127.0.0.1 (or insecure = true)"
            )
        server_key = security.get("server_secret_key") if isinstance(security, dict) else (
            getattr(security, "server_secret_key", "")
        )
        if not server_key:
            raise ValueError(
                f"{prefix}{name} = {ep!r} binds off this machine without CURVE: set "
                "[security] server_secret_key and authorized_keys_dir (rt-eeg keys), or "
                "insecure = true"
            )


# -------------------------------------------------------------------------- key files
_SECRET_BANNER = """#   ****  Generated on {0} by rt-eeg keys (pyzmq format)  ****
#   ZeroMQ CURVE **Secret** Certificate
#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.
"""
_PUBLIC_BANNER = """#   ****  Generated on {0} by rt-eeg keys (pyzmq format)  ****
#   ZeroMQ CURVE Public Certificate
#   Give this file to the server operator, who copies it into authorized_keys_dir.
"""


def _write_new(path: Path, text: str, mode: int) -> None:
    # O_EXCL: never overwrite a key; the mode is set at creation, so the secret is never
    # readable by others, not even for a moment.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)  # the umask may have removed bits we want (0644 public)
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def write_keypair(out_dir: str | os.PathLike, name: str) -> tuple[Path, Path]:
    """Make a CURVE key pair: ``NAME.key`` (public, 0644) and ``NAME.key_secret`` (0600).

    Both files use pyzmq's certificate format (``zmq.auth.load_certificate`` reads them).

    Raises
    ------
    RtEegError
        For a bad name or when either file exists already (keys are never overwritten).
    """
    import zmq

    out = Path(out_dir)
    if not name or "/" in name or name.startswith(".") or not name.isprintable():
        raise RtEegError(f"key name {name!r} must be a plain file name", out)
    public_path, secret_path = out / f"{name}.key", out / f"{name}.key_secret"
    for p in (public_path, secret_path):
        if p.exists():
            raise RtEegError("already exists; refusing to overwrite a key", p)
    try:
        out.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as err:
        raise RtEegError(f"cannot create key folder ({err.strerror or err})", out) from None
    if out.is_file():
        raise RtEegError("is a file, not a folder", out)
    public, secret = zmq.curve_keypair()
    now = datetime.datetime.now().isoformat(timespec="seconds")
    pub = f'metadata\ncurve\n    public-key = "{public.decode()}"\n'
    sec = pub + f'    secret-key = "{secret.decode()}"\n'
    _write_new(secret_path, _SECRET_BANNER.format(now) + sec, 0o600)
    _write_new(public_path, _PUBLIC_BANNER.format(now) + pub, 0o644)
    return public_path, secret_path


def load_key(path: str | os.PathLike, *, secret: bool) -> tuple[bytes, bytes | None]:
    """``(public, secret)`` z85 keys from a certificate file; one-line errors.

    A secret key file readable by other users is refused (as ssh does).
    """
    import zmq.auth

    path = Path(path)
    if not path.is_file():
        raise RtEegError("key file not found", path)
    if secret:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise RtEegError(
                f"secret key is readable by other users (mode {mode:04o}); chmod 600 it", path
            )
    try:
        public, secret_key = zmq.auth.load_certificate(path)
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise RtEegError(f"not a CURVE key file ({err})", path) from None
    if len(public) != 40 or (secret and (secret_key is None or len(secret_key) != 40)):
        raise RtEegError(
            "not a CURVE secret key file (no 40-character secret-key)"
            if secret
            else "not a CURVE key file (public-key is not 40 characters)",
            path,
        )
    return public, secret_key


#: Refused keys remembered (for logging once each); more are counted, not stored.
MAX_DENIED_KEYS = 1024


class AllowList:
    """ZAP credentials provider: admits a client whose public key has a ``*.key`` file in
    ``folder``; re-reads the folder on an unknown key (keys added while running count).

    A refused client reconnects every few hundred milliseconds, so each refused key is
    logged once (``denied`` holds them, at most ``MAX_DENIED_KEYS``); ``n_denied`` counts
    every refusal.
    """

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise RtEegError("authorized keys folder not found", self.folder)
        self.keys = self._load()
        self.denied: set[bytes] = set()
        self.n_denied = 0

    def _load(self) -> set[bytes]:
        import zmq.auth

        keys = set()
        for f in sorted(self.folder.glob("*.key")):
            try:
                keys.add(zmq.auth.load_certificate(f)[0])
            except (OSError, ValueError) as err:
                log.warning("ignoring unreadable key file %s (%s)", f, err)
        return keys

    def callback(self, domain: str, key: bytes) -> bool:
        if key in self.keys:
            return True
        self.keys = self._load()
        if key in self.keys:
            return True
        self.n_denied += 1
        if key in self.denied:
            return False
        if len(self.denied) < MAX_DENIED_KEYS:
            self.denied.add(key)
            log.warning(
                "CURVE client refused: public key %s is not in %s (logged once per key)",
                key.decode(errors="replace"),
                self.folder,
            )
        elif len(self.denied) == MAX_DENIED_KEYS:
            self.denied.add(b"")  # sentinel: the overflow is announced once
            log.warning("CURVE clients refused: more than %d unknown keys, no longer logged "
                        "one by one", MAX_DENIED_KEYS)  # fmt: skip
        return False


class CurveServer:
    """CURVE server side for one process's context: one ZAP authenticator thread, started
    on first use, applied to every display publisher the process binds.

    Parameters
    ----------
    ctx : zmq.Context
    server_secret_key : path-like
        The server's ``.key_secret`` file.
    authorized_keys_dir : path-like
        Folder of allowed client ``.key`` files.
    """

    def __init__(self, ctx, server_secret_key, authorized_keys_dir):
        self.ctx = ctx
        self.public, self.secret = load_key(server_secret_key, secret=True)
        self.allow = AllowList(authorized_keys_dir)
        self._auth = None

    @classmethod
    def from_config(cls, ctx, security) -> CurveServer | None:
        """A server for ``security`` (a SecurityConfig or its dict), None if CURVE is off."""
        if security is None:
            return None
        get = security.get if isinstance(security, dict) else lambda k: getattr(security, k)
        if not get("server_secret_key"):
            return None
        return cls(ctx, get("server_secret_key"), get("authorized_keys_dir"))

    def apply(self, sock) -> None:
        """Make ``sock`` (not yet bound) a CURVE server checked by the allow-list."""
        import zmq
        from zmq.auth.thread import ThreadAuthenticator

        if self._auth is None:
            self._auth = ThreadAuthenticator(self.ctx, log=log)
            self._auth.start()
            # the domain must match ZAP_DOMAIN below: '*' only covers sockets without one
            self._auth.configure_curve_callback(domain=ZAP_DOMAIN, credentials_provider=self.allow)
        sock.setsockopt(zmq.CURVE_SECRETKEY, self.secret)
        sock.setsockopt(zmq.CURVE_PUBLICKEY, self.public)
        sock.setsockopt(zmq.CURVE_SERVER, 1)
        sock.setsockopt(zmq.ZAP_DOMAIN, ZAP_DOMAIN.encode())

    def stop(self) -> None:
        if self._auth is not None:
            self._auth.stop()
            self._auth = None


def curve_client_options(sock, server_public_key, client_secret_key) -> None:
    """Make ``sock`` (not yet connected) a CURVE client of the server whose public key file
    is ``server_public_key``, authenticating with ``client_secret_key``."""
    import zmq

    server_public, _ = load_key(server_public_key, secret=False)
    client_public, client_secret = load_key(client_secret_key, secret=True)
    sock.setsockopt(zmq.CURVE_SERVERKEY, server_public)
    sock.setsockopt(zmq.CURVE_PUBLICKEY, client_public)
    sock.setsockopt(zmq.CURVE_SECRETKEY, client_secret)


def client_curve(server_key, client_key, security=None) -> tuple[str, str] | None:
    """The ``(server public key file, client secret key file)`` a client connects with.

    ``--server-key``/``--client-key`` win; without them, the ``[security]`` client keys of
    the config (``server_public_key``, ``client_secret_key``); None when neither gives a
    pair (a plain-text client). Both files are loaded here, so a bad one is one line before
    any window or socket opens.

    Raises
    ------
    RtEegError
        Only one of the two flags, or an unreadable key file.
    """
    if (server_key is None) != (client_key is None):
        raise RtEegError("--server-key and --client-key go together")
    if server_key is None and security is not None and security.client_secret_key:
        server_key, client_key = security.server_public_key, security.client_secret_key
    if server_key is None:
        return None
    load_key(server_key, secret=False)
    load_key(client_key, secret=True)
    return str(server_key), str(client_key)

