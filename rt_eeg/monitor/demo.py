"""A synthetic seizure onset for screenshots, benchmarks and tests of the monitor.

The signal is made at the electrode level and then turned into the TCP bipolar montage, so
it shows what a clinician expects from a focal onset: a rhythmic discharge that starts at
about 6 Hz, slows and grows, with a phase reversal around the source electrode (T3), spreads
after some seconds, and an eye-blink artefact in the frontal channels. An optional salt
bridge between two electrodes makes one bipolar channel flat.

Run ``python -m rt_eeg.monitor.demo --out docs/img`` to remake docs/img/monitor_*.png.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rt_eeg.montage import TCP_PAIRS

#: Weight of the seizure source at each electrode (left temporal focus at T3).
_FOCUS = {"T3": 1.0, "F7": 0.45, "T5": 0.55, "C3": 0.35, "A1": 0.3, "FP1": 0.1, "O1": 0.15}
_SPREAD = {"P3": 0.3, "F3": 0.25, "CZ": 0.2, "T5": 0.2, "O1": 0.15}


@dataclass(frozen=True)
class DemoEpoch:
    """A scripted decision (same fields the HYP and the decision messages carry)."""

    start: float
    stop: float
    label: str
    confidence: float
    channels: tuple[str, ...] = ()


def synthetic_onset(
    *,
    duration_s: float = 60.0,
    onset_s: float = 30.0,
    seizure_s: float = 40.0,
    sfreq: float = 250.0,
    bridge: tuple[str, str] | None = ("C4", "P4"),
    bridge_from_s: float = 0.0,
    seed: int = 0,
) -> tuple[np.ndarray, list[str]]:
    """Make TCP-montage EEG with a focal seizure.

    Parameters
    ----------
    duration_s, onset_s, seizure_s : float
        Recording length, seizure onset and seizure length, seconds.
    sfreq : float
        Hz.
    bridge : (str, str) or None
        Two electrodes shorted together from ``bridge_from_s`` on (their bipolar channel is
        flat); None for none.
    seed : int
        Seed of the local generator.

    Returns
    -------
    data : np.ndarray
        (n_samples, 22) float32 microvolts.
    ch_names : list of str
        The 22 TCP channel names.
    """
    rng = np.random.default_rng(seed)
    n = int(round(duration_s * sfreq))
    t = np.arange(n) / sfreq
    electrodes = sorted({e for pair in TCP_PAIRS for e in pair})
    freqs = np.fft.rfftfreq(n, 1.0 / sfreq)
    # 1/f background, band-limited to 0.5-40 Hz like a clinical display filter.
    shape = np.where((freqs > 0.5) & (freqs < 40.0), 1.0 / np.maximum(freqs, 0.5) ** 0.9, 0.0)
    spec = rng.normal(size=(len(electrodes), freqs.size)) + 1j * rng.normal(
        size=(len(electrodes), freqs.size)
    )
    ref = np.fft.irfft(spec * shape, n=n, axis=1)
    ref *= 14.0 / ref.std(axis=1, keepdims=True)
    sig = dict(zip(electrodes, ref, strict=True))
    # Posterior alpha that waxes and wanes, blocked during the seizure.
    alpha_env = 0.6 + 0.4 * np.sin(2 * np.pi * 0.13 * t) ** 2
    alpha_env *= 1.0 - 0.8 * ((t > onset_s) & (t < onset_s + seizure_s))
    alpha = 18.0 * alpha_env * np.sin(2 * np.pi * 9.7 * t + rng.uniform(0, 2 * np.pi))
    for e, w in {"O1": 1.0, "O2": 1.0, "P3": 0.6, "P4": 0.6, "T5": 0.4, "T6": 0.4}.items():
        sig[e] = sig[e] + w * alpha
    # Eye blinks: slow positive deflections at FP1/FP2.
    for tb in np.arange(4.0, duration_s, 11.0) + rng.uniform(-1.5, 1.5, size=1):
        blink = 120.0 * np.exp(-0.5 * ((t - tb) / 0.12) ** 2)
        sig["FP1"] = sig["FP1"] + blink
        sig["FP2"] = sig["FP2"] + blink
        sig["F7"] = sig["F7"] + 0.3 * blink
        sig["F8"] = sig["F8"] + 0.3 * blink
    # The seizure: rhythmic sharp waves, 6 Hz slowing to 3.5 Hz, growing then fading.
    rel = np.clip((t - onset_s) / seizure_s, 0.0, 1.0)
    active = (t >= onset_s) & (t < onset_s + seizure_s)
    inst_f = 6.0 - 2.5 * rel
    phase = 2 * np.pi * np.cumsum(inst_f) / sfreq
    wave = np.sin(phase) + 0.35 * np.sin(2 * phase + 0.6) + 0.15 * np.sin(3 * phase + 1.1)
    grow = np.clip((t - onset_s) / 6.0, 0.0, 1.0) * np.clip((onset_s + seizure_s - t) / 4.0, 0, 1)
    discharge = np.where(active, 95.0 * grow * wave, 0.0)
    spread = np.clip((t - onset_s - 8.0) / 6.0, 0.0, 1.0)
    for e, w in _FOCUS.items():
        sig[e] = sig[e] + w * discharge
    for e, w in _SPREAD.items():
        sig[e] = sig[e] + w * spread * discharge
    if bridge is not None:
        a, b = bridge
        k = int(round(bridge_from_s * sfreq))
        sig[b] = sig[b].copy()
        sig[b][k:] = sig[a][k:]
    data = np.stack([sig[a] - sig[b] for a, b in TCP_PAIRS], axis=1).astype(np.float32)
    return data, [f"{a}-{b}" for a, b in TCP_PAIRS]


def simulated_onset(
    *, duration_s: float = 120.0, onset_s: float = 60.0, seizure_s: float = 45.0, seed: int = 3
) -> tuple[np.ndarray, list[str], list[tuple[float, float, str]]]:
    """A recording from the team's simulator (:mod:`rt_eeg.sim`) in the TCP montage.

    Returns
    -------
    data : np.ndarray
        (n_samples, 22) float32 microvolts at 250 Hz.
    ch_names : list of str
    involved : list of (start, stop, channel)
        The simulator's per-channel seizure annotations.
    """
    from rt_eeg.sim import simulate_recording

    ref, labels, events = simulate_recording(
        duration_s, 250.0, seed=seed, seizures=[(onset_s, onset_s + seizure_s, "focal")]
    )
    col = {lab.split()[-1].split("-")[0].upper(): i for i, lab in enumerate(labels)}
    data = np.stack([ref[:, col[a]] - ref[:, col[b]] for a, b in TCP_PAIRS], axis=1)
    involved = [(ev.start, ev.stop, ev.channel) for ev in events if ev.channel != "TERM"]
    return data.astype(np.float32), [f"{a}-{b}" for a, b in TCP_PAIRS], involved


def scripted_decisions(
    *,
    duration_s: float,
    onset_s: float,
    seizure_s: float,
    involved: list[tuple[float, float, str]] | None = None,
    delay_s: float = 3.0,
    seed: int = 0,
) -> list[DemoEpoch]:
    """1 s decisions a detector could make on the demo recording (for display only).

    SEIZ starts ``delay_s`` after the onset with rising confidence, naming the channels
    involved by then (``involved``: (start, stop, channel), or a left temporal default);
    the rest is BCKG.
    """
    rng = np.random.default_rng(seed)
    out = []
    default = ("T3-T5", "F7-T3", "T3-C3", "A1-T3", "T5-O1")
    for k in range(int(duration_s)):
        a, b = float(k), float(k + 1)
        if onset_s + delay_s <= a < onset_s + seizure_s + 1.0:
            conf = float(np.clip(0.62 + 0.05 * (a - onset_s - delay_s), 0.6, 0.97))
            if involved:
                chans = tuple(c for s0, s1, c in involved if s0 <= a < s1 + 1.0)
            else:
                chans = default[: 3 if a - onset_s < 10 else 5]
            out.append(DemoEpoch(a, b, "seiz", conf, chans))
        else:
            out.append(DemoEpoch(a, b, "bckg", float(rng.uniform(0.88, 0.99))))
    return out


def _render(args: argparse.Namespace) -> int:
    if args.headless or not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import pyqtgraph as pg

    from rt_eeg.monitor.window import MonitorWindow

    pg.mkQApp("rt-eeg monitor demo")
    duration, onset, seizure = 120.0, 60.0, 45.0
    involved = None
    if args.source == "sim":
        data, ch_names, involved = simulated_onset(
            duration_s=duration, onset_s=onset, seizure_s=seizure
        )
    else:
        data, ch_names = synthetic_onset(
            duration_s=duration, onset_s=onset, seizure_s=seizure, bridge_from_s=70.0
        )
    epochs = scripted_decisions(
        duration_s=duration, onset_s=onset, seizure_s=seizure, involved=involved
    )
    out = Path(args.out)

    # Live: the wire messages the pipeline publishes (0.1 s frames; each 1 s decision about
    # 1 s after its epoch), decoded by the feed as on a running system; stopped 14 s after
    # the onset, when the detector has been saying SEIZ for 11 s.
    from rt_eeg.monitor.feed import MonitorFeed
    from rt_eeg.pipeline.messages import encode

    clock = _FakeClock()
    live = MonitorWindow(ch_names, 250.0, source="ipc:///tmp/rteeg/display (demo)", clock=clock)
    feed = MonitorFeed("inproc://rt-eeg-demo", live, context=_zmq_context())
    pending = list(epochs)
    for k in range(int((onset + 14.0) * 10)):
        t0 = k / 10.0
        header = {
            "kind": "data",
            "stream": "source",
            "seq": k,
            "t0": t0,
            "sfreq": 250.0,
            "ch_names": ch_names,
            "t_emit": time.time(),
        }
        feed.handle(encode("signal", header, data[k * 25 : (k + 1) * 25]))
        while pending and pending[0].stop + 1.0 <= t0 + 1e-9:
            ep = pending.pop(0)
            h = {
                "kind": "data",
                "stream": "postprocess",
                "seq": int(ep.start),
                "t0": ep.start,
                "start": ep.start,
                "stop": ep.stop,
                "label": ep.label,
                "confidence": ep.confidence,
                "channels": list(ep.channels),
                "t_emit": time.time(),
            }
            feed.handle(encode("decision", h, np.zeros(len(ch_names), np.float32)))
        clock.t += 0.1
        live.tick()
    feed.close()
    live.grab(out / "monitor_live.png")

    # Review: the saved outputs a run leaves behind, opened with the viewer itself
    # (rt-eeg view --signal --hyp --events --start --screenshot).
    import tempfile

    from rt_eeg.io.annotations import Event, HypEpoch, write_csv_bi, write_hyp
    from rt_eeg.io.signalfile import SignalWriter
    from rt_eeg.monitor.app import run_view

    with tempfile.TemporaryDirectory() as tmp:
        stem = Path(tmp) / "demo"
        with SignalWriter(stem, 250.0, ch_names) as writer:
            writer.append(data)
        hyp = [HypEpoch(ep.start, ep.stop, ep.label, ep.confidence) for ep in epochs]
        write_hyp(f"{stem}.hyp", hyp, duration)
        write_csv_bi(f"{stem}.csv_bi", [Event(onset, onset + seizure, "fnsz")], duration)
        run_view(
            f"{stem}.signal.f32",
            f"{stem}.hyp",
            events_path=f"{stem}.csv_bi",
            start_s=onset - 8.0,
            screenshot=out / "monitor_view.png",
        )
    print(f"wrote {out / 'monitor_live.png'}")
    return 0


def _zmq_context():
    import zmq

    return zmq.Context.instance()


class _FakeClock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def main(argv: list[str] | None = None) -> int:
    """Render docs/img/monitor_live.png and monitor_view.png from the synthetic onset."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="docs/img", help="folder for the PNGs (default docs/img)")
    p.add_argument("--headless", action="store_true", help="render offscreen")
    p.add_argument(
        "--source",
        choices=("sim", "synthetic"),
        default="synthetic",
        help="the built-in generator (a clear rhythmic onset, default) or the team "
        "simulator rt_eeg.sim (more realistic background, subtler onset)",
    )
    return _render(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
