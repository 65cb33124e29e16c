"""Start-up (issue #13 items 6 and 7): the CPU runtime (LiteRT) and its model file, the
source not waiting for the decoder's model, and no TensorFlow/LiteRT chatter on a terminal."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from edf_factory import tuh_like

from rt_eeg.config import PipelineConfig
from rt_eeg.decoder import Decoder, write_untrained_model
from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import Event, write_csv_bi
from rt_eeg.model_files import rehash_model
from rt_eeg.runtime import LITE_FILE, LiteRunner

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]
#: What TensorFlow, XLA, CUDA, absl and LiteRT write to a terminal on their own.
CHATTER = re.compile(
    r"absl|cudart|cuInit|cuda|XNNPACK|TensorFlow|oneDNN|XLA|^[IWE]\d{4} ", re.IGNORECASE
)


@pytest.fixture(scope="module")
def lite_dir(tmp_path_factory) -> Path:
    return write_untrained_model(tmp_path_factory.mktemp("lite") / "m", seed=4)


@pytest.fixture(scope="module")
def tf_dir(lite_dir, tmp_path_factory) -> Path:
    """The same model without its LiteRT twin (a folder saved before it): runs on TensorFlow."""
    d = tmp_path_factory.mktemp("tf") / "m"
    shutil.copytree(lite_dir, d)
    (d / LITE_FILE).unlink()
    rehash_model(d)
    return d


def _features(rng, n_frames, n_ch=22):
    base = rng.normal(0, 1, (n_frames, n_ch, 26)).astype(np.float32)
    return base + np.float32(5.0) * (np.arange(26) == 0)


def test_litert_row_never_depends_on_its_neighbours_or_slot(lite_dir):
    """The fixed, padded batch makes a window's bits independent of what shares its call."""
    run = LiteRunner(lite_dir / LITE_FILE)
    rng = np.random.default_rng(1)
    x = rng.normal(0, 1, (3 * run.batch + 5, 70, run.width)).astype(np.float32)
    whole = run(x)
    alone = np.concatenate([run(x[i : i + 1]) for i in range(len(x))])
    assert np.array_equal(whole, alone)
    shifted = run(np.concatenate([rng.normal(0, 1, (7, 70, run.width)).astype(np.float32), x]))
    assert np.array_equal(shifted[7:], whole)
    assert whole.dtype == np.float32 and np.all((whole > 0) & (whole < 1))


def test_litert_matches_tensorflow_and_is_what_the_cpu_runs(lite_dir, tf_dir):
    rng = np.random.default_rng(2)
    feats = _features(rng, 200)
    lite, tf = Decoder(lite_dir, device="cpu"), Decoder(tf_dir, device="cpu")
    assert (lite.runtime, tf.runtime) == ("litert", "tensorflow")
    p_lite, p_tf = lite.predict_recording(feats), tf.predict_recording(feats)
    assert p_lite.shape == p_tf.shape == (20, 22)
    assert np.abs(p_lite - p_tf).max() < 1e-5
    # streaming (one frame per call) equals batch with LiteRT too: online == offline
    stream = lite.open_stream(22)
    times = 0.1 * np.arange(200)
    one = [lite.predict_many([(stream, feats[i : i + 1], times[i : i + 1])])[0][1] for i in range(200)]
    assert np.array_equal(np.concatenate(one), p_lite)


def test_model_folder_refuses_an_unvouched_or_stale_tflite(lite_dir, tmp_path):
    # a model.tflite the manifest does not list is not run
    d = tmp_path / "a"
    shutil.copytree(lite_dir, d)
    m = json.loads((d / "manifest.json").read_text())
    del m["files_sha256"][LITE_FILE]
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(RtEegError, match="not listed in manifest.json"):
        Decoder(d, device="cpu")
    # a model.tflite converted from another model.keras (retrained, rehashed) is refused
    e = tmp_path / "b"
    shutil.copytree(lite_dir, e)
    other = write_untrained_model(tmp_path / "other", seed=9)
    shutil.copyfile(other / "model.keras", e / "model.keras")
    rehash_model(e)
    with pytest.raises(RtEegError, match="was not converted from this folder's model.keras"):
        Decoder(e, device="cpu")
    # a corrupt one is named
    f = tmp_path / "c"
    shutil.copytree(lite_dir, f)
    (f / LITE_FILE).write_bytes(b"not a flatbuffer" * 10)
    rehash_model(f)
    with pytest.raises(RtEegError, match="model.tflite: not a valid LiteRT model"):
        Decoder(f, device="cpu")


def test_source_streams_while_the_decoder_loads_and_nothing_is_lost(tf_dir, tmp_path):
    """The decoder (here TensorFlow: seconds to import) is not waited for. With a tiny
    high-water mark the source is back-pressured while it loads; the decisions still equal
    the offline detector's, byte for byte."""
    from rt_eeg.detector import detect_recording
    from rt_eeg.outputs import write_outputs
    from rt_eeg.pipeline.supervisor import Supervisor

    rec, _ = tuh_like(tmp_path / "rec_s001_t000.edf", 30.0, 256, rng=np.random.default_rng(3))
    cfg = PipelineConfig(model=str(tf_dir), device="cpu", data_hwm=2)
    metrics = Supervisor(rec, tmp_path / "live", speed=None, config=cfg).run_pipeline()
    ready = metrics["time_to_stage_ready_s"]
    assert metrics["time_to_ready_s"] < ready["decoder"]  # go came before the model was up
    assert metrics["decoder_runtime"] == "tensorflow" and not metrics["detection_path_gaps"]
    assert metrics["frames_streamed"] == 300 and metrics["n_decisions"] == 30
    res = detect_recording(rec, Decoder(tf_dir, device="cpu"))
    write_outputs(tmp_path / "off", rec.stem, res.decisions, res.duration)
    for suffix in (".hyp", ".csv_bi", "_events.tsv"):
        live = (tmp_path / "live" / f"{rec.stem}{suffix}").read_text()
        assert live == (tmp_path / "off" / f"{rec.stem}{suffix}").read_text(), suffix


def test_a_tampered_model_fails_before_any_process_starts(lite_dir, tmp_path):
    """The source does not wait for the decoder, so the supervisor checks the model's files
    itself before it starts anything."""
    from rt_eeg.pipeline.supervisor import Supervisor

    bad = tmp_path / "bad"
    shutil.copytree(lite_dir, bad)
    (bad / LITE_FILE).write_bytes((bad / LITE_FILE).read_bytes()[:-8] + b"\0" * 8)
    rec, _ = tuh_like(tmp_path / "rec_s001_t000.edf", 5.0, 250, rng=np.random.default_rng(6))
    cfg = PipelineConfig(model=str(bad), device="cpu")
    with pytest.raises(RtEegError, match="model.tflite: sha256 .* does not match"):
        Supervisor(rec, tmp_path / "out", speed=None, config=cfg)
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    d = root / "edf" / "eval" / "aaaaaaab" / "s001_2020" / "01_tcp_ar"
    d.mkdir(parents=True)
    p, _ = tuh_like(d / "aaaaaaab_s001_t000.edf", 12.0, 256, rng=np.random.default_rng(5))
    write_csv_bi(p.with_suffix(".csv_bi"), [Event(4.0, 9.0, "seiz")], 12.0, bname=p.stem)
    return root


def _evaluate_stderr(corpus, model, out, *debug) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", "evaluate", *debug, "--corpus", str(corpus),
         "--split", "eval", "--model", str(model), "--out", str(out), "--workers", "1",
         "--quiet"],
        capture_output=True, text=True, timeout=200,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return [ln for ln in proc.stderr.splitlines() if ln.strip()]


@pytest.mark.parametrize("runtime", ["litert", "tensorflow"])
def test_evaluate_prints_no_runtime_chatter_unless_debug(corpus, lite_dir, tf_dir, tmp_path, runtime):
    model = lite_dir if runtime == "litert" else tf_dir
    quiet = _evaluate_stderr(corpus, model, tmp_path / "q")
    assert not [ln for ln in quiet if CHATTER.search(ln)], quiet
    loud = _evaluate_stderr(corpus, model, tmp_path / "d", "--debug")
    assert [ln for ln in loud if CHATTER.search(ln)], loud  # --debug lets them through
