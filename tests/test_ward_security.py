"""Ward service off the machine: non-loopback status/control only with CURVE (config load),
and a running service whose status PUB and control REP are CURVE servers: an authorised
client gets the status and runs ``list``; an unlisted or plain-text client gets nothing."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import zmq
import zmq.auth

from rt_eeg.errors import RtEegError
from rt_eeg.pipeline.transport import free_tcp_port
from rt_eeg.security import AllowList, write_keypair
from rt_eeg.ward.config import load_ward_config, ward_from_dict
from rt_eeg.ward.control import request

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def keys(tmp_path) -> dict[str, Path]:
    """The ward's pair, a station's pair (allow-listed) and an intruder's pair (not)."""
    kdir = tmp_path / "keys"
    ward_pub, ward_sec = write_keypair(kdir, "ward")
    station_pub, station_sec = write_keypair(kdir, "station")
    intruder_pub, intruder_sec = write_keypair(tmp_path / "other", "intruder")
    allowed = kdir / "authorized"
    allowed.mkdir()
    (allowed / "station.key").write_bytes(station_pub.read_bytes())
    return {"ward_pub": ward_pub, "ward_sec": ward_sec, "station_sec": station_sec,
            "intruder_pub": intruder_pub, "intruder_sec": intruder_sec, "allowed": allowed}  # fmt: skip


SECURITY = """[security]
server_secret_key = "keys/ward.key_secret"
authorized_keys_dir = "keys/authorized"
"""
CLIENT = """client_secret_key = "keys/station.key_secret"
server_public_key = "keys/ward.key"
"""


def _config(tmp_path: Path, ward: str, tail: str = "", head: str = "", name: str = "ward.toml") -> Path:
    path = tmp_path / name
    path.write_text(f'{head}[ward]\nmodel = "{ROOT / "models" / "default"}"\noutput = "out"\n{ward}\n{tail}')
    return path


def test_non_loopback_status_or_control_needs_security_or_insecure(tmp_path, keys):
    for key in ("status", "control"):
        ep = f'{key} = "tcp://0.0.0.0:5701"'
        with pytest.raises(RtEegError) as err:
            load_ward_config(_config(tmp_path, ep))
        msg = str(err.value)
        assert f"ward.{key} = 'tcp://0.0.0.0:5701' binds off this machine without CURVE" in msg
        assert "\n" not in msg and "ward.toml: invalid config" in msg
        # with the server's keys (paths relative to the config file) it loads
        cfg = load_ward_config(_config(tmp_path, ep, SECURITY + CLIENT))
        assert cfg.security.server_secret_key == str(keys["ward_sec"].resolve())
        assert cfg.security.authorized_keys_dir == str(keys["allowed"].resolve())
        assert cfg.security.server_public_key == str(keys["ward_pub"].resolve())
        # or with the explicit escape hatch, top level as in the pipeline's config
        assert load_ward_config(_config(tmp_path, ep, head="insecure = true\n")).insecure
    # loopback and the private ipc default need nothing
    assert load_ward_config(_config(tmp_path, 'status = "tcp://127.0.0.1:5701"')).security is None
    assert ward_from_dict({"ward": {}}).status == ""


def test_ward_security_table_is_checked_like_the_pipelines(tmp_path, keys):
    wide = 'status = "tcp://0.0.0.0:5701"'
    bad = [
        ('[security]\nserver_secret_key = "keys/ward.key_secret"\n',
         "security.server_secret_key and security.authorized_keys_dir go together"),
        (SECURITY + 'client_secret_key = "keys/station.key_secret"\n',
         "security.client_secret_key and security.server_public_key go together"),
        (SECURITY + "colour = 1\n", "unknown key security.colour"),
        (SECURITY.replace("keys/ward.key_secret", "keys/missing.key_secret"),
         "missing.key_secret: key file not found"),
        (SECURITY.replace("keys/authorized", "keys/nowhere"),
         "nowhere: authorized keys folder not found"),
        ("[security]\nauthorized_keys_dir = 3\n", "security.authorized_keys_dir must be a string"),
    ]  # fmt: skip
    for tail, text in bad:
        with pytest.raises(RtEegError) as err:
            load_ward_config(_config(tmp_path, wide, tail))
        assert text in str(err.value) and "\n" not in str(err.value), (tail, str(err.value))
    os.chmod(keys["ward_sec"], 0o644)
    with pytest.raises(RtEegError, match="ward.key_secret: secret key is readable by other users"):
        load_ward_config(_config(tmp_path, wide, SECURITY))
    with pytest.raises(RtEegError, match="insecure must be true or false"):
        load_ward_config(_config(tmp_path, wide, head='insecure = "yes"\n'))


def test_each_refused_key_is_logged_once(tmp_path, keys, caplog):
    caplog.set_level(logging.WARNING, logger="rt_eeg.security")
    allow = AllowList(keys["allowed"])
    station, _ = zmq.auth.load_certificate(keys["station_sec"])
    intruder, _ = zmq.auth.load_certificate(keys["intruder_pub"])
    assert allow.callback("rt-eeg", station)
    for _ in range(5):  # a refused client keeps reconnecting
        assert not allow.callback("rt-eeg", intruder)
    refused = [r.getMessage() for r in caplog.records if "CURVE client refused" in r.getMessage()]
    assert len(refused) == 1 and intruder.decode() in refused[0]
    assert allow.denied == {intruder} and allow.n_denied == 5
    # a key copied into the folder while running is admitted from then on
    (keys["allowed"] / "late.key").write_bytes(keys["intruder_pub"].read_bytes())
    assert allow.callback("rt-eeg", intruder)


def test_a_refused_client_times_out_even_when_refused_before_it_sends(tmp_path, keys, monkeypatch):
    """REQ's send blocks once a refused CURVE handshake has detached its only peer: under
    load the refusal can land between connect and send (seen in CI), and the client hung."""
    import threading

    from rt_eeg.security import CurveServer

    ctx = zmq.Context()
    server = CurveServer(ctx, keys["ward_sec"], keys["allowed"])
    rep = ctx.socket(zmq.REP)
    rep.setsockopt(zmq.LINGER, 0)
    server.apply(rep)
    endpoint = f"tcp://127.0.0.1:{rep.bind_to_random_port('tcp://127.0.0.1')}"
    station = (str(keys["ward_pub"]), str(keys["station_sec"]))
    intruder = (str(keys["ward_pub"]), str(keys["intruder_sec"]))
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            if rep.poll(50):
                rep.recv()
                rep.send(b'{"ok": true}')

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        assert request(endpoint, {"cmd": "list"}, timeout_s=10, curve=station) == {"ok": True}
        connect = zmq.Socket.connect

        monitors = []

        def slow_connect(sock, addr):  # return just after the service refused the handshake
            from zmq.utils.monitor import recv_monitor_message

            if sock.type != zmq.REQ:  # the monitor's own PAIR socket
                return connect(sock, addr)
            monitor = sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_FAILED_AUTH)
            monitors.append(monitor)  # kept: disabling it here gives the reconnect time
            out = connect(sock, addr)
            assert monitor.poll(5000), "the service never refused the intruder's handshake"
            recv_monitor_message(monitor)
            time.sleep(0.05)  # the pipe is dropped just after the event, until the reconnect
            return out

        monkeypatch.setattr(zmq.Socket, "connect", slow_connect)
        outcome = []

        def ask():  # five tries: the pipe comes back with each reconnect, so one may slip by
            for _ in range(5):
                try:
                    request(endpoint, {"cmd": "list"}, timeout_s=0.5, curve=intruder)
                    outcome.append("reply")
                except RtEegError as err:
                    outcome.append(str(err))

        asker = threading.Thread(target=ask, daemon=True)
        t0 = time.monotonic()
        asker.start()
        asker.join(20)
        assert not asker.is_alive(), "the refused client hung in send"
        assert len(outcome) == 5 and all("no reply within 0.5 s" in o and "authorized_keys_dir" in o
                                         for o in outcome)  # fmt: skip
        assert time.monotonic() - t0 < 15
    finally:
        stop.set()
        thread.join(5)
        for monitor in monitors:
            monitor.close(0)
        rep.close(0)
        server.stop()
        ctx.term()


class _Serve:
    """``rt-eeg serve`` with no beds (the status and control sockets are what is tested)."""

    def __init__(self, config: Path):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen([sys.executable, "-m", "rt_eeg.cli", "serve", "--config", str(config)],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
        eps = config.parent / "out" / ".ward" / "endpoints.json"
        deadline = time.monotonic() + 60
        while not eps.exists():
            assert self.proc.poll() is None, self.proc.stdout.read()
            assert time.monotonic() < deadline, "the service never opened its endpoints"
            time.sleep(0.1)

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.communicate(timeout=60)[0]
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def _sub(ctx, endpoint: str, curve=None):
    s = ctx.socket(zmq.SUB)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.SUBSCRIBE, b"ward")
    if curve is not None:
        from rt_eeg.security import curve_client_options

        curve_client_options(s, *curve)
    s.connect(endpoint)
    return s


def test_curve_status_and_control_admit_the_listed_station_only(tmp_path, keys):
    from rt_eeg.ward.overview_feed import WardFeed

    status, control = (f"tcp://127.0.0.1:{free_tcp_port()}" for _ in range(2))
    # loopback needs no CURVE by policy; [security] makes both sockets CURVE servers anyway
    config = _config(tmp_path, f'device = "cpu"\nwarm_windows = 0\nstatus = "{status}"\n'
                               f'control = "{control}"', SECURITY + CLIENT)  # fmt: skip
    station = (str(keys["ward_pub"]), str(keys["station_sec"]))
    intruder = (str(keys["ward_pub"]), str(keys["intruder_sec"]))
    serve = _Serve(config)
    ctx = zmq.Context()
    feed = WardFeed(status, control, context=ctx, curve=station)
    plain_sub, bad_sub = _sub(ctx, status), _sub(ctx, status, intruder)
    try:
        deadline = time.monotonic() + 30
        while feed.n_status == 0 and time.monotonic() < deadline:
            feed.sock.poll(200)
            feed.poll()
        assert feed.n_status >= 1 and feed.n_malformed == 0, "the station received no ward_status"
        reply = request(control, {"cmd": "list"}, timeout_s=10, curve=station)
        assert reply["ok"] is True and reply["beds"] == [] and "decoder" in reply
        # rt-eeg ward list --config: endpoints from the running service, keys from [security]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        res = subprocess.run([sys.executable, "-m", "rt_eeg.cli", "ward", "list", "--config", str(config)],
                             capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
        assert res.returncode == 0, res.stderr
        assert res.stdout.split()[:3] == ["BED", "STATE", "LAST"]
        for curve in (None, intruder):
            with pytest.raises(RtEegError, match="no reply within 2 s"):
                request(control, {"cmd": "list"}, timeout_s=2, curve=curve)
        # statuses go out every second: 2 s is two chances each to leak one
        assert plain_sub.poll(2000) == 0 and bad_sub.poll(100) == 0
        # a client with the config's address but no keys is told why, not left waiting
        no_keys = _config(tmp_path, "", SECURITY, name="no_keys.toml")
        from rt_eeg.commands.ward import add_arguments, run

        p = argparse.ArgumentParser()
        add_arguments(p)
        with pytest.raises(RtEegError, match="the ward service requires CURVE"):
            run(p.parse_args(["list", "--config", str(no_keys)]))
    finally:
        feed.close()
        for s in (plain_sub, bad_sub):
            s.close()
        ctx.term()
        out = serve.stop()
    intruder_key = zmq.auth.load_certificate(keys["intruder_pub"])[0].decode()
    refused = [line for line in out.splitlines() if "CURVE client refused" in line]
    assert len(refused) == 1 and intruder_key in refused[0], out
    assert f"status {status} (CURVE, allow-list {keys['allowed'].resolve()})" in out


def test_a_remote_station_does_not_try_the_services_private_bed_monitors(caplog):
    pytest.importorskip("pyqtgraph")
    from rt_eeg.ward.overview import bed_monitor_opener, open_bed_monitor

    assert bed_monitor_opener("ipc:///tmp/rteeg-ward-x/status") is open_bed_monitor
    assert bed_monitor_opener("tcp://127.0.0.1:5701") is open_bed_monitor
    caplog.set_level(logging.WARNING, logger="rt_eeg.ward.overview")
    remote = bed_monitor_opener("tcp://ward-host:5701")
    assert remote({"name": "bed07", "monitor": {"signal": "ipc:///x/s", "decision": "ipc:///x/d"}}) is None
    assert any("bed07: its live monitor can be opened only on the ward service's machine"
               in r.getMessage() for r in caplog.records)  # fmt: skip
