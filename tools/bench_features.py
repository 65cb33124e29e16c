"""Benchmark the LFCC feature extractor on one CPU core; write JSON.

Measures, on 10 minutes of generated 22-channel EEG at 250 Hz:

- batch ``compute_features`` throughput as a multiple of real time;
- streaming cost of one ``StreamingFeatures.push`` of one 22-channel 0.1 s frame (p50, p99,
  max in microseconds), and the amortised cost when 40 frames are pushed at once;
- the same recording through an established LFCC implementation (``spafe.features.lfcc``,
  channel by channel, static coefficients only, settings as close to ours as it allows) and
  the ratio of its time to ours. spafe is not a dependency of rt-eeg (``pip install spafe``
  or the ``bench`` extra); without it the JSON says so.

BLAS/OpenMP threads are limited to 1 and the process is pinned to one core (``--no-pin`` to
skip). The machine may be shared: the JSON records the load average at start and end.

Usage: python tools/bench_features.py [--out tools/results/bench_features.json] [--minutes 10]
[--features TOML] (other LFCC settings, e.g. tools/features_w1s.toml; the defaults otherwise)
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.features import FeatureConfig, StreamingFeatures, compute_features  # noqa: E402
from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

N_CHANNELS = 22
TARGET_BATCH_XRT = 3000.0
TARGET_STREAM_US = 500.0


def make_signal(seconds: float, n_channels: int, sfreq: float, seed: int = 0) -> np.ndarray:
    """Pink noise with offsets and bursts of 3 Hz rhythmic activity, float32 microvolts."""
    rng = np.random.default_rng(seed)
    n = int(seconds * sfreq)
    spec = np.fft.rfft(rng.standard_normal((n, n_channels)), axis=0)
    spec /= np.sqrt(np.maximum(np.fft.rfftfreq(n, 1 / sfreq), 0.5))[:, None]
    x = np.fft.irfft(spec, n=n, axis=0)
    x *= 20.0 / x.std()
    x += rng.uniform(-200, 200, n_channels)
    t = np.arange(n) / sfreq
    for start in np.arange(30.0, seconds - 20, 60.0):
        on = (t >= start) & (t < start + 15)
        x[on, : n_channels // 2] += 80 * np.sin(2 * np.pi * 3.0 * t[on, None])
    return x.astype(np.float32)


def timed(fn, repeats: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (this thread) seconds of each of ``repeats`` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        c0, t0 = time.thread_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    return wall, cpu


def bench_batch(signal: np.ndarray, cfg: FeatureConfig, repeats: int) -> dict:
    compute_features(signal, cfg)  # warm-up: imports, FFT plans, page faults
    times, cpu = timed(lambda: compute_features(signal, cfg), repeats)
    duration = signal.shape[0] / cfg.sfreq
    return {
        "signal_s": duration,
        "n_channels": signal.shape[1],
        "repeats": repeats,
        "seconds_median": float(np.median(times)),
        "seconds_min": float(np.min(times)),
        "cpu_seconds_median": float(np.median(cpu)),
        "x_realtime_median": duration / float(np.median(times)),
        "x_realtime_best": duration / float(np.min(times)),
        "x_realtime_cpu_median": duration / float(np.median(cpu)),
    }


def bench_streaming(signal: np.ndarray, cfg: FeatureConfig, passes: int = 3) -> dict:
    fs = cfg.frame_samples
    n_frames = signal.shape[0] // fs
    frames = [np.ascontiguousarray(signal[i * fs : (i + 1) * fs]) for i in range(n_frames)]
    warm = StreamingFeatures(signal.shape[1], cfg)
    for f in frames[:200]:
        warm.push(f)
    runs, cpu_runs = [], []
    for _ in range(passes):
        ext = StreamingFeatures(signal.shape[1], cfg)
        per = np.empty(n_frames)
        per_cpu = np.empty(n_frames)
        for i, f in enumerate(frames):
            c0, t0 = time.thread_time(), time.perf_counter()
            ext.push(f)
            per[i] = time.perf_counter() - t0
            per_cpu[i] = time.thread_time() - c0
        ext.flush()
        runs.append(per)
        cpu_runs.append(per_cpu)
    # Pass with the median total time; skip the start-up frames (no output yet).
    median_pass = int(np.argsort([r.sum() for r in runs])[len(runs) // 2])
    per = runs[median_pass]
    steady = per[20:] * 1e6
    steady_cpu = cpu_runs[median_pass][20:] * 1e6
    p99_each = [float(np.percentile(r[20:] * 1e6, 99)) for r in runs]
    ext = StreamingFeatures(signal.shape[1], cfg)
    t0 = time.perf_counter()
    for a in range(0, n_frames * fs, 40 * fs):
        ext.push(signal[a : a + 40 * fs])
    ext.flush()
    chunk40 = (time.perf_counter() - t0) / n_frames * 1e6
    return {
        "frames": int(n_frames),
        "passes": passes,
        "per_frame_us_p99_each_pass": p99_each,
        "per_frame_us_p50": float(np.percentile(steady, 50)),
        "per_frame_us_p90": float(np.percentile(steady, 90)),
        "per_frame_us_p99": float(np.percentile(steady, 99)),
        "per_frame_us_max": float(steady.max()),
        "per_frame_us_mean": float(steady.mean()),
        "per_frame_cpu_us_p50": float(np.percentile(steady_cpu, 50)),
        "per_frame_cpu_us_p99": float(np.percentile(steady_cpu, 99)),
        "per_frame_us_amortised_40_frame_pushes": chunk40,
        "total_s_one_frame_pushes": float(per.sum()),
        "x_realtime_one_frame_pushes": signal.shape[0] / cfg.sfreq / float(per.sum()),
    }


def bench_reference(signal: np.ndarray, cfg: FeatureConfig) -> dict:
    try:
        from spafe.fbanks.linear_fbanks import linear_filter_banks
        from spafe.features.lfcc import lfcc
        from spafe.utils.preprocessing import SlidingWindow
    except ImportError as err:
        return {
            "available": False,
            "reason": f"spafe cannot be imported ({err}); pip install spafe",
        }
    from importlib.metadata import version

    kwargs = dict(
        fs=int(cfg.sfreq),
        num_ceps=cfg.n_cepstra + 1,
        pre_emph=False,
        window=SlidingWindow(cfg.window_samples / cfg.sfreq, cfg.frame_s, "hanning"),
        nfilts=cfg.n_filters,
        nfft=cfg.n_fft,
        low_freq=cfg.f_min,
        high_freq=cfg.f_max,
        use_energy=True,
    )
    # Filterbank built once (as ours is), not on every call.
    kwargs["fbanks"] = linear_filter_banks(
        nfilts=cfg.n_filters,
        nfft=cfg.n_fft,
        fs=int(cfg.sfreq),
        low_freq=cfg.f_min,
        high_freq=cfg.f_max,
    )[0]

    def run() -> np.ndarray:
        return np.stack(
            [lfcc(signal[:, c].astype(np.float64), **kwargs) for c in range(signal.shape[1])],
            axis=1,
        )

    shape = run().shape  # warm-up
    times, _ = timed(run, 3)
    duration = signal.shape[0] / cfg.sfreq

    # Streaming use of the library: each new frame, the LFCC of the latest 0.2 s window of
    # every channel (what our push does, without the deltas).
    w, fs = cfg.window_samples, cfg.frame_samples
    n_frames = min(signal.shape[0] // fs - 2, 1000)
    per = np.empty(n_frames)
    for i in range(n_frames):
        window = signal[i * fs : i * fs + w].astype(np.float64)
        t0 = time.perf_counter()
        for c in range(signal.shape[1]):
            lfcc(window[:, c], **kwargs)
        per[i] = time.perf_counter() - t0
    per_us = per[20:] * 1e6
    return {
        "available": True,
        "library": f"spafe {version('spafe')} (spafe.features.lfcc.lfcc)",
        "settings": {k: v for k, v in kwargs.items() if k not in ("window", "fbanks")}
        | {"window": "0.2 s hanning, hop 0.1 s", "fbanks": "precomputed once"},
        "what_it_computes": "8 static coefficients per frame (c0 = log energy), one channel per "
        "call; no differential energy, no deltas (ours computes all 26)",
        "output_shape": list(shape),
        "seconds_median": float(np.median(times)),
        "x_realtime_median": duration / float(np.median(times)),
        "streaming_per_frame_us_p50": float(np.percentile(per_us, 50)),
        "streaming_per_frame_us_p99": float(np.percentile(per_us, 99)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "tools" / "results" / "bench_features.json"
    )
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one CPU core")
    parser.add_argument("--features", type=Path, default=None,
                        help="LFCC settings to time (a features.toml); the defaults otherwise")
    args = parser.parse_args(argv)

    pinned = None
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        cpu = max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        pinned = cpu
    cfg = FeatureConfig.load(args.features) if args.features else FeatureConfig()
    signal = make_signal(args.minutes * 60, N_CHANNELS, cfg.sfreq)
    load_start = os.getloadavg()
    batch = bench_batch(signal, cfg, args.repeats)
    streaming = bench_streaming(signal, cfg)
    reference = bench_reference(signal, cfg)
    load_end = os.getloadavg()

    if reference.get("available"):
        reference["ours_batch_speedup"] = reference["seconds_median"] / batch["seconds_median"]
        reference["ours_streaming_speedup"] = (
            reference["streaming_per_frame_us_p50"] / streaming["per_frame_us_p50"]
        )
    result = {
        "benchmark": "features",
        "signal": f"{args.minutes:g} min generated EEG, {N_CHANNELS} channels, {cfg.sfreq:g} Hz",
        "feature_config": cfg.to_dict(),
        "delay_s": cfg.delay_s,
        "batch": batch,
        "streaming": streaming,
        "reference": reference,
        "targets": {
            "batch_x_realtime": TARGET_BATCH_XRT,
            "batch_met": batch["x_realtime_median"] >= TARGET_BATCH_XRT,
            "streaming_us_per_frame": TARGET_STREAM_US,
            "streaming_p50_met": streaming["per_frame_us_p50"] <= TARGET_STREAM_US,
            "streaming_p99_met": streaming["per_frame_us_p99"] <= TARGET_STREAM_US,
            "faster_than_reference": (
                reference["ours_batch_speedup"] > 1 and reference["ours_streaming_speedup"] > 1
                if reference.get("available")
                else None
            ),
        },
        "environment": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": __import__("scipy").__version__,
            "machine": platform.machine(),
            "processor": _cpu_model(),
            "pinned_cpu": pinned,
            "threads": 1,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
        },
    }
    write_json_atomic(args.out, result)
    ref = (
        f"spafe {reference['x_realtime_median']:.0f}x real time; ours "
        f"{reference['ours_batch_speedup']:.1f}x faster (batch), "
        f"{reference['ours_streaming_speedup']:.1f}x (streaming, p50 per frame: "
        f"{reference['streaming_per_frame_us_p50']:.0f} us)"
        if reference.get("available")
        else reference["reason"]
    )
    print(
        f"batch: {batch['x_realtime_median']:.0f}x real time (median of {args.repeats}; best "
        f"{batch['x_realtime_best']:.0f}x; CPU time {batch['x_realtime_cpu_median']:.0f}x; "
        f"target {TARGET_BATCH_XRT:.0f}x)\n"
        f"streaming: {streaming['per_frame_us_p50']:.0f} us p50, "
        f"{streaming['per_frame_us_p99']:.0f} us p99 per 22-channel frame "
        f"(target {TARGET_STREAM_US:.0f} us); CPU time {streaming['per_frame_cpu_us_p50']:.0f} "
        f"us p50, {streaming['per_frame_cpu_us_p99']:.0f} us p99\n"
        f"reference: {ref}\n"
        f"load average {load_start[0]:.2f} -> {load_end[0]:.2f}; wrote {args.out}"
    )
    return 0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    sys.exit(main())
