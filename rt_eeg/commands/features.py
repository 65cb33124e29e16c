"""``rt-eeg features FILE.edf --out F.npz``: LFCC features of one recording.

The ``.npz`` holds ``features`` (n_frames, n_channels, 26) float32, ``times`` (n_frames,)
float64 (start of each 0.1 s frame in seconds), ``ch_names`` (TCP channel names),
``feature_names`` and ``feature_config`` (the FeatureConfig as TOML text); no pickled
objects, so ``np.load`` works without ``allow_pickle``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HELP = "compute LFCC features of an EDF recording"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="EDF recording")
    parser.add_argument(
        "--out", type=Path, default=None, help="output .npz (default: FILE with .features.npz)"
    )
    parser.add_argument(
        "--streaming",
        action="store_true",
        help="feed the recording through the streaming extractor in 0.1 s frames (as the live "
        "pipeline does) instead of the batch computation; the output is the same",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FEATURES.toml",
        help="feature settings (e.g. a model's features.toml); default: the built-in defaults",
    )


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from rt_eeg.features import FeatureConfig, StreamingFeatures, compute_features
    from rt_eeg.io.atomic import save_npz_atomic
    from rt_eeg.io.edf import open_recording

    cfg = FeatureConfig.load(args.config) if args.config is not None else FeatureConfig()
    out = args.out if args.out is not None else args.file.with_suffix(".features.npz")
    t0 = time.perf_counter()
    with open_recording(args.file, sfreq=cfg.sfreq) as rec:
        ch_names = list(rec.ch_names)
        if args.streaming:
            extractor = StreamingFeatures(len(ch_names), cfg)
            feats, times = [], []
            for _, block in rec.chunks(cfg.frame_samples):
                if block.shape[0] < cfg.frame_samples:  # trailing partial frame: not a frame
                    break
                f, t = extractor.push(block)
                feats.append(f)
                times.append(t)
            f, t = extractor.flush()
            features, frame_times = np.concatenate([*feats, f]), np.concatenate([*times, t])
        else:
            features, frame_times = compute_features(rec.read(), cfg)
        duration = rec.duration
    elapsed = time.perf_counter() - t0
    save_npz_atomic(
        out,
        features=features,
        times=frame_times,
        ch_names=np.array(ch_names, dtype=str),
        feature_names=np.array(cfg.feature_names, dtype=str),
        feature_config=np.array(cfg.to_toml()),
    )
    mode = "streaming" if args.streaming else "batch"
    print(
        f"{out}: {features.shape[0]} frames x {features.shape[1]} channels x "
        f"{features.shape[2]} features ({mode}, {duration:.1f} s of EEG in {elapsed:.2f} s)",
        file=sys.stderr,
    )
    return 0
