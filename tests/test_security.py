"""Security: endpoint policy, CURVE key files, CURVE display publishers with a ZAP allow-list,
private ipc folders."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import zmq
import zmq.auth

from rt_eeg.config import PipelineConfig, load_pipeline_config
from rt_eeg.errors import RtEegError
from rt_eeg.pipeline.messages import decode, encode
from rt_eeg.pipeline.transport import default_endpoints, free_tcp_port, make_socket
from rt_eeg.security import CurveServer, is_loopback, load_key, write_keypair

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def keys(tmp_path) -> dict[str, Path]:
    """Server pair, an authorised client and an unlisted client; the allow-list holds only
    the authorised client's public key."""
    kdir = tmp_path / "keys"
    server_pub, server_sec = write_keypair(kdir, "server")
    good_pub, good_sec = write_keypair(kdir, "viewer")
    _, bad_sec = write_keypair(tmp_path / "other", "intruder")
    allowed = tmp_path / "authorized"
    allowed.mkdir()
    (allowed / "viewer.key").write_bytes(good_pub.read_bytes())
    return {"server_pub": server_pub, "server_sec": server_sec, "good_sec": good_sec,
            "bad_sec": bad_sec, "allowed": allowed}  # fmt: skip


def test_keys_command_writes_private_secret_and_never_overwrites(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [
        sys.executable,
        "-m",
        "rt_eeg.cli",
        "keys",
        "--out",
        str(tmp_path / "k"),
        "--name",
        "ws1",
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    pub, sec = tmp_path / "k" / "ws1.key", tmp_path / "k" / "ws1.key_secret"
    assert stat.S_IMODE(sec.stat().st_mode) == 0o600
    assert stat.S_IMODE(pub.stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "k").stat().st_mode) == 0o700
    p1, s1 = zmq.auth.load_certificate(pub)
    p2, s2 = zmq.auth.load_certificate(sec)
    assert s1 is None and p1 == p2 and len(s2) == 40
    before = sec.read_bytes()
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert again.returncode == 2 and "refusing to overwrite" in again.stderr
    assert again.stderr.count("\n") == 1 and sec.read_bytes() == before


def test_secret_key_readable_by_others_is_refused(keys):
    os.chmod(keys["good_sec"], 0o644)
    with pytest.raises(RtEegError, match="readable by other users"):
        load_key(keys["good_sec"], secret=True)
    public_only = keys["allowed"] / "viewer.key"
    os.chmod(public_only, 0o600)
    with pytest.raises(RtEegError, match="viewer.key: not a CURVE secret key file"):
        load_key(public_only, secret=True)
    junk = keys["allowed"] / "junk.key"
    junk.write_bytes(os.urandom(64))
    with pytest.raises(RtEegError, match="junk.key: not a CURVE key file"):
        load_key(junk, secret=False)


def _sub(ctx, endpoint, *, server_pub=None, client_sec=None):
    s = ctx.socket(zmq.SUB)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.SUBSCRIBE, b"")
    if server_pub is not None:
        from rt_eeg.security import curve_client_options

        curve_client_options(s, server_pub, client_sec)
    s.connect(endpoint)
    return s


def test_curve_round_trip_admits_listed_client_only(keys, caplog):
    """Two CURVE publishers on two loopback ports: the listed client receives from both;
    an unlisted client and a plain-text client get nothing, and the denial is logged."""
    caplog.set_level(logging.WARNING, logger="rt_eeg.security")
    ctx = zmq.Context()
    server = CurveServer(ctx, keys["server_sec"], keys["allowed"])
    eps = [f"tcp://127.0.0.1:{free_tcp_port()}" for _ in range(2)]
    pubs = [make_socket(ctx, zmq.PUB, ep, bind=True, hwm=100, curve=server) for ep in eps]
    good = [_sub(ctx, ep, server_pub=keys["server_pub"], client_sec=keys["good_sec"]) for ep in eps]
    bad = _sub(ctx, eps[0], server_pub=keys["server_pub"], client_sec=keys["bad_sec"])
    plain = _sub(ctx, eps[1])
    frame = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = [None, None]
    seq = 0
    try:
        deadline = time.monotonic() + 30
        # PUB/SUB joins late: publish until the listed client has one message per port.
        while None in got and time.monotonic() < deadline:
            for pub in pubs:
                pub.send_multipart(encode("signal", {"kind": "data", "seq": seq, "t0": 0.0}, frame))
            seq += 1
            for k, sock in enumerate(good):
                if got[k] is None and sock.poll(20):
                    got[k] = decode(sock.recv_multipart())
        assert None not in got, "the authorised client received nothing"
        assert np.array_equal(got[0].payload, frame) and np.array_equal(got[1].payload, frame)
        # keep publishing while the refused ones would have had every chance to join
        deadline = time.monotonic() + 30
        while not server.allow.denied and time.monotonic() < deadline:
            pubs[0].send_multipart(encode("signal", {"kind": "data", "seq": seq, "t0": 0.0}, frame))
            seq += 1
            time.sleep(0.02)
        for _ in range(25):
            for pub in pubs:
                pub.send_multipart(encode("signal", {"kind": "data", "seq": seq, "t0": 0.0}, frame))
            seq += 1
            time.sleep(0.02)
        assert bad.poll(200) == 0 and plain.poll(200) == 0
        intruder_pub, _ = zmq.auth.load_certificate(keys["bad_sec"])
        assert intruder_pub in server.allow.denied
        assert any("CURVE client refused" in r.getMessage() for r in caplog.records)
        # the listed client kept receiving all along (its queue holds the later messages)
        assert good[0].poll(1000) and decode(good[0].recv_multipart()).seq > got[0].seq
    finally:
        for s in pubs + good + [bad, plain]:
            s.close()
        server.stop()
        ctx.term()


def test_monitor_feed_subscribes_over_curve(keys):
    from rt_eeg.monitor.feed import MonitorFeed

    ctx = zmq.Context()
    server = CurveServer(ctx, keys["server_sec"], keys["allowed"])
    ep = f"tcp://127.0.0.1:{free_tcp_port()}"
    pub = make_socket(ctx, zmq.PUB, ep, bind=True, hwm=100, curve=server)
    feed = MonitorFeed([ep], context=ctx, curve=(str(keys["server_pub"]), str(keys["good_sec"])))
    try:
        deadline = time.monotonic() + 30
        seq = 0
        while feed.n_decision == 0 and time.monotonic() < deadline:
            header = {"kind": "data", "seq": seq, "t0": seq, "start": seq, "stop": seq + 1,
                      "label": "seiz", "confidence": 0.9, "channels": []}  # fmt: skip
            pub.send_multipart(encode("decision", header, np.full(3, 0.9, np.float32)))
            seq += 1
            time.sleep(0.02)
            feed.poll()
        assert feed.n_decision >= 1 and feed.n_malformed == 0
    finally:
        for s in feed.sockets + [pub]:
            s.close()
        server.stop()
        ctx.term()


@pytest.mark.parametrize(
    ("endpoint", "loopback"),
    [("tcp://127.0.0.1:5555", True), ("tcp://localhost:1", True), ("tcp://[::1]:5", True),
     ("ipc:///tmp/x/y", True), ("tcp://0.0.0.0:5555", False), ("tcp://*:5555", False),
     ("tcp://10.1.2.3:80", False), ("tcp://eth0:5555", False)],
)  # fmt: skip
def test_loopback_classification(endpoint, loopback):
    assert is_loopback(endpoint) is loopback


def _write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_non_loopback_display_needs_curve_or_insecure(tmp_path, keys):
    wide = '[endpoints]\ndisplay_signal = "tcp://0.0.0.0:5555"\n'
    with pytest.raises(RtEegError, match=r"run.toml: .*display_signal = 'tcp://0.0.0.0:5555' "
                                         r"binds off this machine without CURVE"):  # fmt: skip
        load_pipeline_config(_write_config(tmp_path, wide))
    cfg = load_pipeline_config(_write_config(tmp_path, "insecure = true\n" + wide))
    assert cfg.insecure and cfg.endpoints["display_signal"] == "tcp://0.0.0.0:5555"
    assert load_pipeline_config(_write_config(tmp_path, wide), insecure=True).insecure  # --insecure
    rel = os.path.relpath(keys["server_sec"], tmp_path)
    secure = (wide + f'[security]\nserver_secret_key = "{rel}"\n'
              f'authorized_keys_dir = "{keys["allowed"]}"\n')  # fmt: skip
    cfg = load_pipeline_config(_write_config(tmp_path, secure))
    assert cfg.security.server_secret_key == str(keys["server_sec"].resolve())
    # the config travels to the stages as a dict: the round trip keeps the policy
    assert PipelineConfig.from_dict(cfg.to_dict()) == cfg


def test_detection_path_stays_local_even_with_curve(tmp_path, keys):
    text = ('[endpoints]\nfeatures_in = "tcp://0.0.0.0:5556"\n[security]\n'
            f'server_secret_key = "{keys["server_sec"]}"\nauthorized_keys_dir = "{keys["allowed"]}"\n')  # fmt: skip
    with pytest.raises(RtEegError, match="features_in .* is not loopback: the detection path"):
        load_pipeline_config(_write_config(tmp_path, text))
    assert load_pipeline_config(_write_config(tmp_path, "insecure = true\n" + text)).insecure


def test_cli_refuses_wide_endpoint_in_one_line(tmp_path):
    cfg = _write_config(tmp_path, '[endpoints]\ndisplay_decision = "tcp://*:5602"\n')
    res = subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", "replay", str(tmp_path / "none.edf"),
         "--out", str(tmp_path / "out"), "--config", str(cfg), "--no-monitor"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "run.toml" in res.stderr and "without CURVE" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "out").exists()


def test_ipc_folders_are_private(tmp_path):
    eps, folder = default_endpoints("ipc")
    try:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert all(ep.startswith(f"ipc://{folder}/") for ep in eps.values())
    finally:
        folder.rmdir()
    # a missing folder for an explicit ipc endpoint is created private when bound
    ctx = zmq.Context()
    sock = make_socket(ctx, zmq.PULL, f"ipc://{tmp_path}/new/sock", bind=True)
    try:
        assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
    finally:
        sock.close()
        ctx.term()
    # an existing folder open to other users is refused at config load
    shared = tmp_path / "open"
    shared.mkdir()
    os.chmod(shared, 0o755)
    text = f'[endpoints]\ndisplay_signal = "ipc://{shared}/display"\n'
    with pytest.raises(RtEegError, match=r"open to other users \(mode 0755\)"):
        load_pipeline_config(_write_config(tmp_path, text))


@pytest.mark.timeout(300)
def test_live_pipeline_publishes_display_over_curve(keys, tmp_path):
    """A replay with [security]: the display publishers (source signal, postprocess
    decisions) speak CURVE; the listed client receives decisions, a plain client nothing,
    and detection itself is unaffected."""
    from edf_factory import tuh_like

    from rt_eeg.decoder import write_untrained_model
    from rt_eeg.io.annotations import read_hyp
    from rt_eeg.pipeline.supervisor import Supervisor

    model = write_untrained_model(tmp_path / "model", seed=3)
    edf, _ = tuh_like(tmp_path / "rec.edf", 30.0, 250, rng=np.random.default_rng(5))
    eps = {n: f"tcp://127.0.0.1:{free_tcp_port()}" for n in ("display_signal", "display_decision")}
    text = (
        f'model = "{model}"\ndevice = "cpu"\n[endpoints]\n'
        + "".join(f'{k} = "{v}"\n' for k, v in eps.items())
        + f'[security]\nserver_secret_key = "{keys["server_sec"]}"\n'
        f'authorized_keys_dir = "{keys["allowed"]}"\n'
    )
    cfg = load_pipeline_config(_write_config(tmp_path, text))
    ctx = zmq.Context()
    good = _sub(
        ctx, eps["display_decision"], server_pub=keys["server_pub"], client_sec=keys["good_sec"]
    )
    plain = _sub(ctx, eps["display_decision"])
    received = {"good": 0, "plain": 0}

    def drain(*_):
        for name, sock in (("good", good), ("plain", plain)):
            while sock.poll(0):
                msg = decode(sock.recv_multipart())
                received[name] += msg.topic == "decision"

    try:
        # speed 10: the 30 s run lasts a few seconds, time for the CURVE handshake
        sup = Supervisor(edf, tmp_path / "out", speed=10.0, config=cfg, on_event=drain)
        metrics = sup.run_pipeline()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and received["good"] == 0:
            drain()
            time.sleep(0.05)
    finally:
        good.close()
        plain.close()
        ctx.term()
    epochs, _ = read_hyp(tmp_path / "out" / "rec.hyp")
    assert len(epochs) == 30 and metrics["restarts"] == []
    assert received["good"] > 0 and received["plain"] == 0, received


def test_monitor_cli_checks_keys_before_opening_a_window(tmp_path, keys):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    base = [sys.executable, "-m", "rt_eeg.cli", "monitor", "--connect", "tcp://127.0.0.1:5601"]
    cases = [
        (["--server-key", str(keys["server_pub"])], "--server-key and --client-key go together"),
        (["--server-key", str(tmp_path / "none.key"), "--client-key", str(keys["good_sec"])],
         "none.key: key file not found"),
        (["--server-key", str(keys["server_pub"]), "--client-key", str(keys["server_pub"])],
         "server.key: secret key is readable by other users"),
    ]  # fmt: skip
    for extra, problem in cases:
        res = subprocess.run(base + extra, capture_output=True, text=True, env=env, timeout=60)
        assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
        assert problem in res.stderr and "Traceback" not in res.stderr
    res = subprocess.run(
        [*base[:-2], "--connect", "udp://x:1"], capture_output=True, text=True, env=env, timeout=60
    )
    assert res.returncode == 2 and "must start with ipc:// or tcp://" in res.stderr
