"""Benchmark the ward service: how many 22-channel beds one machine sustains at 1x.

Usage::

    python tools/bench_ward.py [--beds 1,8,16,32,48] [--seconds 45] [--model models/default]
                               [--out tools/results/bench_ward.json]

For each N, ``rt-eeg serve`` runs N beds replaying a generated 22-channel recording (256 Hz,
so every bed resamples) paced at 1x. Once every bed decides, a window of ``--seconds`` is
measured: end-to-end latency of every decision in the window (from the source emitting the
frame that completes the epoch's features to the decision being made; the 0.644 s feature
lookahead and the 1 s epoch are algorithmic and not counted), CPU per bed and of the decoder
(``/proc/PID/stat``), RSS and PSS per bed (``/proc/PID/smaps_rollup``), the decoder's batch
sizes (epochs per model call), the load average. Then one more bed is added to the running
service: its time from the add request, and from its first sample, to its first decision.
The largest N with p95 <= 100 ms is reported. The machine is shared: the load average
before each run is recorded with it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.ward.control import request  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float | None:
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(f[11]) + int(f[12])) / TICK


def mem_mb(pid: int) -> tuple[float | None, float | None]:
    """(RSS, PSS) in MB; PSS shares the common libraries fairly between the bed processes."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None, None
    vals = {ln.split(":")[0]: int(ln.split()[1]) for ln in text.splitlines()[1:] if ln.split()[1:2]}
    return vals.get("Rss", 0) / 1024, vals.get("Pss", 0) / 1024


def pct(a, q) -> float | None:
    return round(float(np.percentile(a, q)), 1) if len(a) else None


def until(pred, timeout: float, proc) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            if pred():
                return True
        except Exception:  # noqa: BLE001 - service still starting
            pass
        time.sleep(0.5)
    return False


def run_n(n: int, seconds: float, model: str, edf: Path, work: Path, settle: float = 3.0) -> dict:
    out = work / f"n{n}"
    cfg = work / f"ward_{n}.toml"
    lines = ["[ward]", f'model = "{model}"', 'device = "cpu"', f'output = "{out}"']
    for i in range(n):
        lines += ["[[bed]]", f'name = "bed{i:02d}"', f'edf = "{edf}"', "speed = 1.0"]
    cfg.write_text("\n".join(lines) + "\n")
    load_before = os.getloadavg()
    t_launch = time.time()
    proc = subprocess.Popen([sys.executable, "-m", "rt_eeg.cli", "serve", "--config", str(cfg)],
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    res: dict = {"n_beds": n, "load_avg_before": [round(x, 2) for x in load_before]}
    try:
        eps = out / ".ward" / "endpoints.json"
        if not until(lambda: eps.exists(), 60, proc):
            return res | {"error": "service did not start"}
        control = json.loads(eps.read_text())["control"]
        ask = lambda req: request(control, req, timeout_s=20)  # noqa: E731

        def all_deciding():
            beds = ask({"cmd": "list"})["beds"]
            return len(beds) == n and all(b["state"] in ("BCKG", "SEIZ") for b in beds)

        if not until(all_deciding, 180, proc):
            return res | {"error": "beds never all decided"}
        res["startup_s"] = round(time.time() - t_launch, 1)
        res["settle_s"] = settle
        time.sleep(settle)  # let start-up work (imports, first epochs, any backlog) settle
        listing = ask({"cmd": "list"})
        pids = {b["bed"]: b["pid"] for b in listing["beds"]}
        dec_pid = listing["decoder"]["pid"]
        c0 = {k: cpu_s(p) for k, p in pids.items()}
        d0, s0 = cpu_s(dec_pid), cpu_s(proc.pid)
        t0, tw0 = time.monotonic(), time.time()
        time.sleep(seconds)
        dt = time.monotonic() - t0
        tw1 = time.time()
        c1 = {k: cpu_s(p) for k, p in pids.items()}
        d1, s1 = cpu_s(dec_pid), cpu_s(proc.pid)
        mems = [mem_mb(p) for p in pids.values()]
        dec_mem = mem_mb(dec_pid)
        res["load_avg_during"] = [round(x, 2) for x in os.getloadavg()]
        bed_cpu = [(c1[k] - c0[k]) / dt for k in pids if c0[k] is not None and c1[k] is not None]
        res["cpu_per_bed_cores"] = round(float(np.mean(bed_cpu)), 4)
        res["cpu_decoder_cores"] = (
            round((d1 - d0) / dt, 4) if d0 is not None and d1 is not None else None
        )
        res["cpu_service_cores"] = (
            round((s1 - s0) / dt, 4) if s0 is not None and s1 is not None else None
        )
        res["cpu_total_per_bed_cores"] = round((sum(bed_cpu) + (res["cpu_decoder_cores"] or 0)
                                                + (res["cpu_service_cores"] or 0)) / n, 4)  # fmt: skip
        res["rss_per_bed_mb"] = round(float(np.mean([m[0] for m in mems if m[0]])), 1)
        res["pss_per_bed_mb"] = round(float(np.mean([m[1] for m in mems if m[1]])), 1)
        res["decoder_rss_mb"] = round(dec_mem[0], 1) if dec_mem[0] else None
        # A bed added to the running service: time to its first decision.
        t_add = time.time()
        ask({"cmd": "add", "bed": {"name": "late", "edf": str(edf), "speed": 1.0}})
        until(lambda: next(b for b in ask({"cmd": "list"})["beds"] if b["bed"] == "late")["state"]
              in ("BCKG", "SEIZ"), 60, proc)  # fmt: skip
        res["window_s"] = round(dt, 1)
        res["_window"] = (tw0, tw1)
        res["_t_add"] = t_add
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(120)
        except subprocess.TimeoutExpired:
            proc.kill()
    window = res.pop("_window", None)
    t_add = res.pop("_t_add", None)
    lat = []
    for f in out.glob("bed*/.run/latencies.json"):
        lat += [
            ms
            for wall, ms in json.loads(f.read_text())
            if window and window[0] <= wall <= window[1]
        ]
    res["latency_ms"] = {
        "n": len(lat),
        "p50": pct(lat, 50),
        "p95": pct(lat, 95),
        "max": pct(lat, 100),
    }
    ward = (
        json.loads((out / "ward_metrics.json").read_text())
        if (out / "ward_metrics.json").exists()
        else {}
    )
    res["decoder_batch_hist_epochs"] = (ward.get("decoder_stats") or {}).get("batch_hist")
    res["decoder_model_ms_p95"] = (ward.get("decoder_stats") or {}).get("model_ms_p95")
    res["decoder_restarts"] = ward.get("decoder_restarts")
    late = out / "late" / "metrics.json"
    if late.exists() and t_add:
        m = json.loads(late.read_text())
        res["added_bed_first_decision_s"] = {"from_add_request": m.get("added_to_first_decision_s"),
                                             "from_first_sample": m.get("first_sample_to_first_decision_s")}  # fmt: skip
    return res


def main(argv: list[str] | None = None) -> int:
    from edf_factory import tuh_like

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--beds", default="1,8,16,32,48")
    ap.add_argument("--seconds", type=float, default=45.0)
    ap.add_argument("--settle", type=float, default=3.0,
                    help="seconds between every bed deciding and the window (start-up backlog)")  # fmt: skip
    ap.add_argument("--model", default=str(ROOT / "models" / "default"))
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_ward.json"))
    ap.add_argument(
        "--merge",
        action="store_true",
        help="keep the runs of other N already in --out (replace those measured again)",
    )
    args = ap.parse_args(argv)
    ns = [int(x) for x in args.beds.split(",")]
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench_ward_") as tmp:
        work = Path(tmp)
        edf, _ = tuh_like(work / "bed_s001_t000.edf", 600.0, 256, rng=np.random.default_rng(0))
        for n in ns:
            r = run_n(n, args.seconds, args.model, edf, work, args.settle)
            print(json.dumps(r), flush=True)
            runs.append(r)
    if args.merge and Path(args.out).exists():
        again = {r["n_beds"] for r in runs}
        old = json.loads(Path(args.out).read_text()).get("runs", [])
        runs = sorted(
            [r for r in old if r["n_beds"] not in again] + runs, key=lambda r: r["n_beds"]
        )
    ok = [
        r["n_beds"]
        for r in runs
        if (r.get("latency_ms") or {}).get("p95") is not None and r["latency_ms"]["p95"] <= 100.0
    ]
    result = {
        "what": "ward service, N 22-channel beds replaying at 1x on this machine (tools/bench_ward.py)",
        "latency_definition": "decision wall time - emission time of the frame that completed the epoch's "
                              "features (algorithmic 1 s epoch + 0.644 s lookahead excluded)",
        "command": " ".join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "model": args.model, "window_s": args.seconds, "runs": runs,
        "largest_n_with_p95_le_100ms": max(ok) if ok else None,
    }  # fmt: skip
    write_json_atomic(args.out, result)
    print(
        f"largest N with p95 <= 100 ms: {result['largest_n_with_p95_le_100ms']}; wrote {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
