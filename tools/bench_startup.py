"""Benchmark the decoder's start-up, step by step, and the CPU inference runtimes; write JSON.

Each runtime's start-up is measured in fresh processes (the first after dropping the page
cache, when permitted: cold; the next ones warm), step by step as the decoder stage does it:

- ``tensorflow``: python + numpy/zmq + the stage modules, ``import tensorflow``, Keras model
  load, XLA compile and warm-up (first 22-channel call);
- ``litert``: the same first steps, ``import ai_edge_litert``, interpreter load
  (``model.tflite``), first call;

then the steady per-epoch latency (22 channels) of each. In this process it compares the
options on the bundled recording (the real decisions of ``models/default``): TensorFlow/XLA,
LiteRT, and a plain-numpy LSTM (no new dependency; frame_lstm only): throughput, max abs
difference of P(seizure) from TensorFlow's, and whether the HYP changes.

Usage: python tools/bench_startup.py [--model models/default] [--runs 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from bench_pipeline import SAMPLE, drop_caches  # noqa: E402

from rt_eeg.config import DEFAULT_MODEL  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

#: Run in a fresh interpreter: ``python -c CHILD RUNTIME MODEL_DIR``; prints JSON timings.
CHILD = r"""
import json, sys, time
t = time.perf_counter()
steps = {}
def step(name):
    global t
    now = time.perf_counter(); steps[name] = round(now - t, 4); t = now
import numpy as np, zmq
step("import_numpy_zmq_s")
import rt_eeg.pipeline.stages, rt_eeg.decoder, rt_eeg.features
step("import_stage_modules_s")
runtime, model_dir = sys.argv[1], sys.argv[2]
x = np.random.default_rng(0).standard_normal((22, 70, 26)).astype(np.float32)
if runtime == "tensorflow":
    from rt_eeg.runtime import import_tensorflow
    tf = import_tensorflow()
    step("import_tensorflow_s")
    import keras
    model = keras.saving.load_model(model_dir + "/model.keras", compile=False, safe_mode=True)
    step("model_load_s")
    infer = rt_eeg.decoder.make_infer(model)
    infer(x)
    step("xla_compile_first_call_s")
else:
    import ai_edge_litert.interpreter
    step("import_litert_s")
    from rt_eeg.runtime import LiteRunner
    infer = LiteRunner(model_dir + "/model.tflite")
    step("model_load_s")
    infer(x)
    step("first_call_s")
lat = []
for _ in range(100):
    t0 = time.perf_counter(); infer(x); lat.append(time.perf_counter() - t0)
lat.sort()
steps["steady_epoch_22ch_ms_p50"] = round(lat[50] * 1e3, 4)
print(json.dumps(steps))
"""


def child(runtime: str, model_dir: Path) -> dict:
    t0 = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", CHILD, runtime, str(model_dir)], env=env,
                         capture_output=True, text=True, timeout=300, check=True)  # fmt: skip
    steps = json.loads(out.stdout.strip().splitlines()[-1])
    total = time.perf_counter() - t0
    in_process = sum(v for k, v in steps.items() if k.endswith("_s"))
    return steps | {
        "imports_to_first_call_s": round(in_process, 4),  # the steps above, in the process
        "interpreter_start_and_exit_s": round(total - in_process, 4),  # python itself, teardown
        "process_wall_s": round(total, 4),
    }


def startup_steps(model_dir: Path, tf_dir: Path, runs: int) -> dict:
    out = {}
    for runtime, d in (("tensorflow", tf_dir), ("litert", model_dir)):
        cache = drop_caches()
        rows = [child(runtime, d) for _ in range(runs)]
        cold = rows[0] if cache == "dropped" else None
        warm = rows[1:] if cold else rows
        out[runtime] = {
            "page_cache": cache,
            "cold": cold,
            "warm_median": {k: round(statistics.median(r[k] for r in warm), 4) for k in warm[0]},
            "warm_runs": len(warm),
        }
    return out


def numpy_lstm(model_dir: Path):
    """A plain-numpy twin of the frame_lstm (Keras LSTM: gates i, f, c, o; sigmoid, tanh)."""
    from rt_eeg.runtime import import_tensorflow

    import_tensorflow()
    import keras

    model = keras.saving.load_model(model_dir / "model.keras", compile=False, safe_mode=True)
    kernel, recurrent, bias, dense_w, dense_b = model.get_weights()
    units = recurrent.shape[0]

    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))

    def infer(x: np.ndarray) -> np.ndarray:
        n, steps, width = x.shape
        h = np.zeros((n, units), np.float32)
        c = np.zeros((n, units), np.float32)
        xp = (x.reshape(-1, width) @ kernel + bias).reshape(n, steps, 4 * units)
        for t in range(steps):
            z = xp[:, t] + h @ recurrent
            i, f = sigmoid(z[:, :units]), sigmoid(z[:, units : 2 * units])
            g, o = np.tanh(z[:, 2 * units : 3 * units]), sigmoid(z[:, 3 * units :])
            c = f * c + i * g
            h = o * np.tanh(c)
        return sigmoid(h @ dense_w + dense_b).reshape(-1).astype(np.float32)

    return infer


def compare_runtimes(model_dir: Path, tf_dir: Path) -> dict:
    """The options on the real decisions of the bundled recording."""
    from rt_eeg.decoder import Decoder
    from rt_eeg.detector import detect_recording
    from rt_eeg.outputs import write_outputs

    tmp = Path(tempfile.mkdtemp(prefix="bench_startup_"))
    decs = {"litert": Decoder(model_dir, device="cpu"), "tensorflow": Decoder(tf_dir, device="cpu")}
    manifest = decs["litert"].manifest
    if manifest.get("architecture", {}).get("name", "frame_lstm") == "frame_lstm":
        numpy_dec = Decoder(tf_dir, device="cpu")
        numpy_dec._infer = numpy_lstm(model_dir)  # the numpy option, same windows
        numpy_dec.runtime = "numpy"
        decs["numpy"] = numpy_dec
    res, out = {}, {}
    detect_recording(SAMPLE, decs["tensorflow"])  # untimed: first-use imports and caches
    for name, dec in decs.items():
        t0 = time.perf_counter()
        res[name] = detect_recording(SAMPLE, dec)
        wall = time.perf_counter() - t0
        write_outputs(tmp / name, SAMPLE.stem, res[name].decisions, res[name].duration)
        x = np.random.default_rng(1).standard_normal((8192, 70, 26)).astype(np.float32)
        dec._run(x[:64])
        t0 = time.perf_counter()
        dec._run(x)
        out[name] = {
            "runtime": dec.runtime,
            "windows_per_s": round(8192 / (time.perf_counter() - t0)),
            "detect_10_min_recording_s": round(wall, 3),
        }
    ref = res["tensorflow"]
    hyp_ref = (tmp / "tensorflow" / f"{SAMPLE.stem}.hyp").read_text()
    for name in out:
        diff = np.abs(res[name].probs.astype(np.float64) - ref.probs)
        labels = [d.label for d in res[name].decisions]
        out[name] |= {
            "max_abs_diff_vs_tensorflow": float(diff.max()),
            "probs_differing": int((diff > 0).sum()),
            "probs_total": int(diff.size),
            "labels_differing": sum(a != d.label for a, d in zip(labels, ref.decisions, strict=True)),
            "hyp_identical_to_tensorflow": (tmp / name / f"{SAMPLE.stem}.hyp").read_text() == hyp_ref,
        }  # fmt: skip
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per runtime")
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "bench_startup.json"))
    args = ap.parse_args()
    from rt_eeg.model_files import rehash_model
    from rt_eeg.runtime import LITE_FILE

    model_dir = Path(args.model).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="bench_startup_tf_"))
    tf_dir = tmp / "model"  # the same model without its LiteRT twin: runs on TensorFlow
    shutil.copytree(model_dir, tf_dir)
    (tf_dir / LITE_FILE).unlink()
    rehash_model(tf_dir)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    python_s = time.perf_counter() - t0
    steps = startup_steps(model_dir, tf_dir, args.runs)
    options = compare_runtimes(model_dir, tf_dir)
    result = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "load_avg": os.getloadavg()},  # fmt: skip
        "model": str(model_dir),
        "python_c_pass_s": round(python_s, 4),
        "startup_steps": steps,
        "cpu_options": options,
        "chosen": "litert",
        "why": "loads in milliseconds without importing TensorFlow (TensorFlow's import alone "
        "exceeds the 3 s budget cold), fastest per epoch and in batch, same decisions",
    }
    shutil.rmtree(tmp, ignore_errors=True)
    write_json_atomic(args.out, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
