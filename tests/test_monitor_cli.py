"""The monitor from the command line: `rt-eeg view` screenshots and `rt-eeg monitor` as a process
(Qt offscreen)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from monitor_helpers import (
    SFREQ,
    eeg,
    pixel,
    pyqtgraph_or_skip,
)

from rt_eeg.io.annotations import Event as AnnEvent
from rt_eeg.io.annotations import HypEpoch, write_csv_bi, write_hyp
from rt_eeg.montage import TCP_22

pg = pyqtgraph_or_skip()
zmq = pytest.importorskip("zmq")


def _write_signal(stem: Path, data: np.ndarray, ch: list[str]) -> None:
    """The signal file format of INTERFACES.md, written directly."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    data.astype("<f4").tofile(f"{stem}.signal.f32")
    meta = {"sfreq": SFREQ, "ch_names": ch, "n_samples": data.shape[0], "t0": 0.0, "units": "uV"}
    Path(f"{stem}.signal.json").write_text(json.dumps(meta))


def test_view_command_writes_screenshot(qapp, rng, tmp_path, capsys):
    from pyqtgraph.Qt import QtGui

    from rt_eeg.cli import main

    ch = list(TCP_22)
    data = eeg(int(40 * SFREQ), len(ch), rng)
    _write_signal(tmp_path / "rec", data, ch)
    epochs = [
        HypEpoch(float(k), k + 1.0, "seiz" if 20 <= k < 30 else "bckg", 0.9) for k in range(40)
    ]
    write_hyp(tmp_path / "rec.hyp", epochs, 40.0)
    write_csv_bi(tmp_path / "rec.csv_bi", [AnnEvent(19.0, 31.0, "fnsz")], 40.0)
    png = tmp_path / "shots" / "view.png"
    rc = main(
        [
            "view",
            "--signal",
            str(tmp_path / "rec.signal.f32"),
            "--hyp",
            str(tmp_path / "rec.hyp"),
            "--events",
            str(tmp_path / "rec.csv_bi"),
            "--start",
            "15",
            "--screenshot",
            str(png),
        ]
    )
    assert rc == 0
    img = QtGui.QImage(str(png))
    assert img.width() > 800 and img.height() > 500
    colours = np.array(
        [pixel(img, (x, y)) for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)]
    )
    red = (colours[:, 0] > 180) & (colours[:, 1] < 80) & (colours[:, 2] < 80)
    assert red.mean() > 0.005  # the opaque red SEIZ strip is in the picture

    bad = tmp_path / "bad.hyp"
    bad.write_text(
        "# version = rt_eeg_hyp_v1\n# duration = 2 secs\nstart_time,stop_time,label,confidence\n0,1,seiz,x\n"
    )
    rc = main(
        [
            "view",
            "--signal",
            str(tmp_path / "rec.signal.f32"),
            "--hyp",
            str(bad),
            "--screenshot",
            str(png),
        ]
    )
    assert rc == 2
    assert "bad.hyp" in capsys.readouterr().err


def test_monitor_process_on_a_publisher(tmp_path, rng):
    """`rt-eeg monitor` as its own process: receives frames, exits at end of stream."""
    from rt_eeg.pipeline.messages import encode

    ch = list(TCP_22)
    ctx = zmq.Context()
    endpoint = f"ipc://{tmp_path}/disp"
    xpub = ctx.socket(zmq.XPUB)  # XPUB sees the subscriptions: no sleeping for slow joiners
    xpub.setsockopt(zmq.LINGER, 0)
    xpub.bind(endpoint)
    png = tmp_path / "out" / "monitor.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rt_eeg.cli",
            "monitor",
            "--connect",
            endpoint,
            "--ch-names",
            ",".join(ch),
            "--screenshot",
            str(png),
            "--exit-on-eos",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        topics = set()
        deadline = time.monotonic() + 60
        while topics != {b"signal", b"decision"}:
            assert time.monotonic() < deadline and proc.poll() is None, "monitor never subscribed"
            if xpub.poll(200):
                msg = xpub.recv()
                if msg[:1] == b"\x01":
                    topics.add(msg[1:])
        data = eeg(int(3 * SFREQ), len(ch), rng)
        for k in range(30):
            h = {
                "kind": "data",
                "stream": "source",
                "seq": k,
                "t0": k / 10,
                "sfreq": SFREQ,
                "ch_names": ch,
                "t_emit": time.time(),
            }
            xpub.send_multipart(encode("signal", h, data[k * 25 : (k + 1) * 25]))
        h = {
            "kind": "data",
            "stream": "post",
            "seq": 0,
            "t0": 1.0,
            "start": 1.0,
            "stop": 2.0,
            "label": "seiz",
            "confidence": 0.9,
            "channels": ["T3-T5"],
            "t_emit": time.time(),
        }
        xpub.send_multipart(encode("decision", h, np.zeros(22, np.float32)))
        xpub.send_multipart(encode("signal", {"kind": "eos", "stream": "source", "seq": 30}))
        xpub.send_multipart(encode("decision", {"kind": "eos", "stream": "post", "seq": 1}))
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        xpub.close(linger=0)
        ctx.term()
    assert proc.returncode == 0, out.decode(errors="replace")
    assert png.is_file() and png.stat().st_size > 10_000
    stats = json.loads((png.parent / "monitor_stats.json").read_text())
    assert stats["received"] == 30 and stats["dropped"] == 0 and stats["malformed"] == 0
    assert stats["decisions"] == 1 and stats["eos"] == ["decision", "signal"]
