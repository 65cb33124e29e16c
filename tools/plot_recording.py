"""Render a seizure onset of an EDF recording as a clinical TCP page (PNG).

The referential channels (``EEG FP1-REF`` / ``EEG FP1-LE`` or plain ``FP1``) are turned into
the TCP bipolar montage (FP1-F7 = FP1 - F7, ...), filtered 0.5-70 Hz for display and drawn top
to bottom in TCP order, chains separated, negative up, with a scale bar. The annotated onset
(first seizure of the ``.csv_bi`` beside the EDF unless ``--onset`` is given) is marked, and
channels the per-channel ``.csv`` lists as involved are shaded from their own onset.

    .venv/bin/python tools/plot_recording.py data_samples/sample_s001_t000.edf \
        --out docs/img/sim_onset.png
    .venv/bin/python tools/plot_recording.py --family spike_wave --out /tmp/spike_wave.png
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rt_eeg.sim.layout import TCP_PAIRS, tcp_from_referential  # noqa: E402

#: Index after which a gap separates TCP chains (left/right temporal, central, parasagittal).
_CHAIN_ENDS = {"T5-O1", "T6-O2", "T4-A2", "P3-O1"}


def _electrode(label: str) -> str | None:
    text = re.sub(r"^EEG\s+", "", label.strip(), flags=re.IGNORECASE).upper()
    name = re.split(r"\s*-\s*", text)[0]
    name = {"T7": "T3", "T8": "T4", "P7": "T5", "P8": "T6"}.get(name, name)
    tcp = {e for pair in TCP_PAIRS for e in pair}
    return name if name in tcp else None


def read_window(path: Path, t0: float, t1: float) -> tuple[np.ndarray, list[str], float]:
    """Referential TCP electrodes of ``path`` between t0 and t1 (s), microvolts.

    Returns ``(data (n, n_electrodes), electrodes, sfreq)``.
    """
    import pyedflib

    with pyedflib.EdfReader(str(path)) as r:
        labels = r.getSignalLabels()
        rates = r.getSampleFrequencies()
        picks = [(i, _electrode(lab)) for i, lab in enumerate(labels) if _electrode(lab)]
        if not picks:
            raise SystemExit(f"{path}: no referential 10-20 channels found")
        fs = float(rates[picks[0][0]])
        picks = [(i, e) for i, e in picks if float(rates[i]) == fs]
        n_file = r.getNSamples()[picks[0][0]]
        a = max(0, int(t0 * fs))
        b = min(n_file, int(t1 * fs))
        data = np.stack([r.readSignal(i, start=a, n=b - a) for i, _ in picks], axis=1)
    return data, [e for _, e in picks], fs


def _seizures(path: Path) -> tuple[list[tuple[float, float]], dict[str, float]]:
    """TERM seizures of the .csv_bi and the first onset of each channel in the .csv."""
    from rt_eeg.io.annotations import read_csv, read_csv_bi

    term, chans = [], {}
    csv_bi, csv = path.with_suffix(".csv_bi"), path.with_suffix(".csv")
    if csv_bi.exists():
        term = [(e.start, e.stop) for e in read_csv_bi(csv_bi).events if e.label != "bckg"]
    if csv.exists():
        for e in read_csv(csv).events:
            if e.label != "bckg":
                chans.setdefault(e.channel, []).append((e.start, e.stop))
    return term, chans


def plot_onset(
    edf: Path,
    out: Path,
    *,
    onset: float | None = None,
    seizure: int = 0,
    window: float = 20.0,
    before: float = 8.0,
    spacing_uv: float = 150.0,
    notch: bool = False,
    title: str | None = None,
    dpi: int = 110,
) -> Path:
    """Draw ``window`` seconds starting ``before`` seconds ahead of the onset to ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.signal import butter, iirnotch, sosfiltfilt, tf2sos

    term, chans = _seizures(edf)
    annotated = onset is None
    if onset is None:
        if not term:
            raise SystemExit(f"{edf}: no seizure in the .csv_bi; give --onset")
        if seizure >= len(term):
            raise SystemExit(f"{edf}: seizure {seizure} asked, only {len(term)} annotated")
        onset = term[seizure][0]
    t0 = max(0.0, onset - before)
    pad = 5.0
    data, electrodes, fs = read_window(edf, t0 - pad if t0 >= pad else 0.0, t0 + window + pad)
    start = t0 - pad if t0 >= pad else 0.0
    tcp, names = tcp_from_referential(data.astype(np.float64), electrodes)
    sos = butter(4, [0.5, min(70.0, 0.45 * fs)], btype="bandpass", fs=fs, output="sos")
    tcp = sosfiltfilt(sos, tcp, axis=0)
    if notch and fs > 125:
        tcp = sosfiltfilt(tf2sos(*iirnotch(60.0, 30.0, fs)), tcp, axis=0)
    i0 = int(round((t0 - start) * fs))
    tcp = tcp[i0 : i0 + int(window * fs)]
    t = t0 + np.arange(tcp.shape[0]) / fs

    ys, y = [], 0.0
    for name in names:
        ys.append(y)
        y -= spacing_uv * (1.6 if name in _CHAIN_ENDS else 1.0)
    fig, ax = plt.subplots(figsize=(13, 0.42 * len(names) + 1.6), dpi=dpi)
    for k, name in enumerate(names):
        for a, b in chans.get(name, []):
            lo, hi = max(a, t[0]), min(b, t[-1])
            if hi > lo:
                ax.fill_between([lo, hi], ys[k] - 0.5 * spacing_uv, ys[k] + 0.5 * spacing_uv,
                                color="#f6d5d5", lw=0, zorder=0)  # fmt: skip
        # negative up, as EEG is read; clipped so one artifact does not blot the page
        trace = np.clip(-tcp[:, k], -1.4 * spacing_uv, 1.4 * spacing_uv)
        ax.plot(t, ys[k] + trace, color="k", lw=0.55)
    ax.axvline(onset, color="#c0392b", ls="--", lw=1.2)
    ax.text(
        onset,
        ys[0] + 0.9 * spacing_uv,
        " annotated onset" if annotated else " onset",
        color="#c0392b",
        va="bottom",
        fontsize=9,
    )
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlim(t[0], t[-1])
    ax.set_ylim(ys[-1] - 1.3 * spacing_uv, ys[0] + 1.6 * spacing_uv)
    ax.set_xlabel("time (s)")
    for s in range(int(np.ceil(t[0])), int(t[-1]) + 1):
        ax.axvline(s, color="0.85", lw=0.5, zorder=0)
    # scale bar: 100 uV and 1 s in the lower right corner
    xb, yb = t[-1] - 1.6, ys[-1] - 1.1 * spacing_uv
    ax.plot([xb, xb], [yb, yb + 100.0], color="#1f4e9c", lw=2)
    ax.plot([xb, xb + 1.0], [yb, yb], color="#1f4e9c", lw=2)
    ax.text(xb - 0.08, yb + 50.0, "100 µV", ha="right", va="center", fontsize=8, color="#1f4e9c")
    ax.text(
        xb + 0.5, yb - 0.08 * spacing_uv, "1 s", ha="center", va="top", fontsize=8, color="#1f4e9c"
    )
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    head = title or f"{edf.name}: TCP montage, 0.5-70 Hz, negative up"
    ax.set_title(head + ("" if title else "; shaded = channels annotated as seizure"), fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out


#: Background state in which each benign family is shown (they occur there).
_BENIGN_STATE = {"wicket": "drowsy", "rmtd": "drowsy", "fourteen_six": "drowsy",
                 "sreda": "awake", "posts_vertex": "sleep", "hypnagogic": "drowsy",
                 "phantom_sw": "drowsy"}  # fmt: skip
_STATE_FAMILY = {"awake": "awake_alpha", "drowsy": "drowsy", "sleep": "sleep"}


def plot_family(
    family: str, out: Path, *, seed: int = 1, sfreq: float = 256.0, window: float = 20.0
) -> Path:
    """Simulate a short recording holding one family (nothing else but an awake, drowsy or
    sleep background and blinks) and draw its onset to ``out``: a seizure, a benign variant,
    an artifact, or (from 30 s) a background family."""
    import tempfile

    from rt_eeg.sim import SeizureSpec
    from rt_eeg.sim.families import GROUP_OF
    from rt_eeg.sim.recording import RecordingGenerator, plan_recording
    from rt_eeg.sim.variety import KIND_FAMILY, STATE_FAMILY
    from rt_eeg.sim.writer import write_plan

    group = GROUP_OF.get(family)
    if group is None:
        raise SystemExit(f"--family {family}: unknown family")
    if group == "background":
        state = {v: k for k, v in STATE_FAMILY.items()}.get(family, "awake")
        allowed = {family, STATE_FAMILY[state], "blink"}
        plan = plan_recording(
            120.0, sfreq, seed=seed, families=allowed, state=state, require={family}
        )
        onset, label, before = 30.0, f"{family} (background)", 0.0
    elif group == "seizure":
        state = "awake"
        allowed = {family, "awake_alpha", "blink"}
        plan = plan_recording(150.0, sfreq, seed=seed, seizures=[SeizureSpec(40.0, 130.0, family=family)],
                              families=allowed, state=state)  # fmt: skip
        onset, label, before = 40.0, f"{family} ({plan.seizures[0].label})", 6.0
    else:
        state = _BENIGN_STATE.get(family, "awake")
        allowed = {family, _STATE_FAMILY[state], "blink"}
        kinds = {k for k, f in KIND_FAMILY.items() if f == family}
        for s in range(seed, seed + 50):  # the first seed whose recording has one early enough
            plan = plan_recording(
                180.0, sfreq, seed=s, families=allowed, state=state, require={family}
            )
            evs = [tr for tr in RecordingGenerator(plan).transients
                   if tr.kind in kinds and 10.0 < tr.start < 180.0 - window]  # fmt: skip
            if evs:
                break
        else:
            raise SystemExit(f"--family {family}: no example in 50 seeds (a continuous one?)")
        onset, label, before = evs[0].start, f"{family} ({group}, not annotated)", 3.0
    with tempfile.TemporaryDirectory() as tmp:
        edf = Path(tmp) / f"{family}.edf"
        write_plan(edf, plan)
        png = plot_onset(edf, out, onset=onset, window=window, before=before, dpi=80,
                          title=f"{label}, {state} background, TCP 0.5-70 Hz, negative up")  # fmt: skip
    # a 32-colour palette: a third of the bytes, no visible change for line drawings
    from PIL import Image

    with Image.open(png) as im:
        small = im.convert("RGB").quantize(colors=32)
    small.save(png, optimize=True)
    return png


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("edf", type=Path, nargs="?", help="recording (or use --family)")
    p.add_argument("--family", help="simulate and draw one seizure or benign family instead")
    p.add_argument("--seed", type=int, default=1, help="seed of --family (default 1)")
    p.add_argument("--out", type=Path, default=Path("onset.png"))
    p.add_argument("--onset", type=float, help="onset (s); default: a seizure of the .csv_bi")
    p.add_argument("--seizure", type=int, default=0, help="which annotated seizure (0-based)")
    p.add_argument("--window", type=float, default=20.0, help="seconds shown (default 20)")
    p.add_argument("--before", type=float, default=8.0, help="seconds before the onset (default 8)")
    p.add_argument("--spacing", type=float, default=150.0, help="uV between channel baselines")
    p.add_argument("--notch", action="store_true", help="add a 60 Hz notch")
    p.add_argument("--title")
    a = p.parse_args(argv)
    if a.family:
        print(plot_family(a.family, a.out, seed=a.seed, window=a.window))
        return 0
    if a.edf is None:
        p.error("give an EDF or --family")
    out = plot_onset(a.edf, a.out, onset=a.onset, seizure=a.seizure, window=a.window,
                     before=a.before, spacing_uv=a.spacing, notch=a.notch, title=a.title)  # fmt: skip
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
