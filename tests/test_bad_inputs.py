"""Regression tests for issue #15: corrupt EDF headers, non-finite calibration, bad configs,
directories and broken models give one line naming the file and the problem, never a
traceback; the CLI exits 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from edf_factory import set_field, tuh_like

from rt_eeg.errors import RtEegError
from rt_eeg.io.edf import open_recording

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``rt-eeg`` in a subprocess with this checkout first on the path."""
    return subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=cwd,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )


def assert_one_line_error(res: subprocess.CompletedProcess, name: str, problem: str = "") -> None:
    assert res.returncode == 2, (res.returncode, res.stdout[-500:], res.stderr[-2000:])
    assert "Traceback" not in res.stderr and "Traceback" not in res.stdout
    assert res.stderr.count("\n") == 1, res.stderr
    assert name in res.stderr and problem in res.stderr, res.stderr
    # nothing from edflib leaks onto the terminal (replay announces itself first)
    assert all(ln.startswith("replaying ") for ln in res.stdout.splitlines()), res.stdout


@pytest.fixture(scope="module")
def good_edf(tmp_path_factory) -> Path:
    path, _ = tuh_like(tmp_path_factory.mktemp("edf") / "good.edf", 6.0, 256,
                       rng=np.random.default_rng(3))  # fmt: skip
    return path


def variant(tmp_path: Path, good: Path, name: str, **fields) -> Path:
    """A copy of ``good`` with header fields replaced: ``field=value`` or
    ``field=(signal, value)``."""
    data = good.read_bytes()
    for key, value in fields.items():
        sig, val = value if isinstance(value, tuple) else (None, value)
        data = set_field(data, key, val, sig)
    out = tmp_path / name
    out.write_bytes(data)
    return out


@pytest.mark.parametrize("command", ["info", "features"])
def test_zero_record_duration_is_one_line_on_both_commands(tmp_path, good_edf, command):
    # issue #15.1: ZeroDivisionError inside pyedflib from both commands
    bad = variant(tmp_path, good_edf, "dur0.edf", record_duration="0")
    args = [command, bad] + (["--out", tmp_path / "f.npz"] if command == "features" else [])
    assert_one_line_error(cli(*args), "dur0.edf", "record duration 0 s is not positive")
    assert not (tmp_path / "f.npz").exists()


def test_truncated_file_says_how_many_records_and_edflib_stays_quiet(tmp_path, good_edf):
    # issue #15.1: 'filesize ... != ...' printed by edflib before our error
    data = good_edf.read_bytes()
    bad = tmp_path / "short.edf"
    bad.write_bytes(data[:-1000])
    res = cli("info", bad)
    assert_one_line_error(res, "short.edf", "truncated")
    assert "filesize" not in res.stdout + res.stderr


def test_edflib_refusal_is_quiet_too(tmp_path, good_edf):
    # a start date edflib refuses but our structural check lets through: its reason, one line
    bad = variant(tmp_path, good_edf, "date.edf", startdate="99.99.99")
    assert_one_line_error(cli("info", bad), "date.edf", "not a readable EDF file")


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"record_duration": "-1"}, "record duration -1 s is not positive"),
        ({"record_duration": "nan"}, "record duration 'nan' is not finite"),
        ({"n_records": "-1"}, "number of data records is -1"),
        ({"n_records": "abc"}, "number of data records 'abc' is not an integer"),
        ({"n_signals": "0"}, "number of signals 0 is outside"),
        ({"header_bytes": "1024"}, "header size 1024 does not match"),
        ({"samples_per_record": (2, "0")}, "samples per record 0 is not >= 1"),
        ({"digital_min": (1, "40000")}, "digital range 40000..32767"),
        ({"physical_max": (0, "-3276.8")}, "physical minimum equals maximum"),
        ({"label": (3, b"EEG \xe9-REF")}, "signal 4 label holds a non-ASCII"),
        ({"version": "1"}, "not an EDF or BDF file"),
    ],
)
def test_corrupt_header_fields_name_the_field(tmp_path, good_edf, fields, problem):
    bad = variant(tmp_path, good_edf, "bad.edf", **fields)
    with pytest.raises(RtEegError, match="bad.edf: ") as exc:
        open_recording(bad)
    assert problem in str(exc.value) and "\n" not in str(exc.value)


def test_directory_and_empty_file(tmp_path):
    # issue #15.5: a directory used to be 'file not found'
    folder = tmp_path / "rec.edf"
    folder.mkdir()
    assert_one_line_error(cli("info", folder), "rec.edf", "is a directory")
    empty = tmp_path / "empty.edf"
    empty.write_bytes(b"")
    assert_one_line_error(cli("info", empty), "empty.edf", "too short for an EDF header")


@pytest.mark.parametrize("command", ["features", "replay"])
def test_non_finite_physical_range_fails_before_anything_starts(tmp_path, good_edf, command):
    # issue #15.3: replay exited 0 with every epoch 'na'; features already refused
    bad = variant(tmp_path, good_edf, "huge.edf",
                  physical_min=(0, "-1e308"), physical_max=(0, "1e308"))  # fmt: skip
    out = tmp_path / "out"
    args = (
        ["features", bad, "--out", out / "f.npz"]
        if command == "features"
        else ["replay", bad, "--out", out, "--speed", "max", "--no-monitor"]
    )
    res = cli(*args)
    assert_one_line_error(res, "huge.edf", "non-finite or beyond")
    assert not out.exists() or not any(out.iterdir())  # no process ran, nothing written


def test_large_but_finite_range_is_refused_and_small_ones_pass(tmp_path, good_edf):
    huge = variant(tmp_path, good_edf, "kv.edf",
                   physical_min=(2, "-1e10"), physical_max=(2, "1e10"))  # fmt: skip
    with pytest.raises(RtEegError, match=r"kV|beyond 1e\+09 uV"):
        open_recording(huge)
    # millivolt units with a plausible range are fine
    mv = variant(tmp_path, good_edf, "mv.edf", dimension=(2, "mV"),
                 physical_min=(2, "-3.2768"), physical_max=(2, "3.2767"))  # fmt: skip
    with open_recording(mv) as rec:
        assert np.isfinite(rec.read()).all()


def test_absurd_sampling_rates_are_refused(tmp_path, good_edf):
    # 1 sample per 1 s record for an EEG channel: 1 Hz cannot hold the feature band. Plain
    # EDF (no EDF+ time-keeping to keep consistent); the file shrinks by the samples removed.
    bad = variant(tmp_path, good_edf, "slow.edf", samples_per_record=(0, "1"), reserved="")
    data = bad.read_bytes()
    bad.write_bytes(data[: len(data) - (256 - 1) * 2 * 6])
    with pytest.raises(RtEegError, match="'EEG FP1-REF': sampling rate 1 Hz is outside"):
        open_recording(bad)
    from rt_eeg.io.edf import check_rate

    check_rate("x", 173.61, 250.0, "f.edf")  # Bonn's odd rate resamples fine
    with pytest.raises(RtEegError, match="no simple ratio"):
        check_rate("x", 999.999, 250.0, "f.edf")


# ------------------------------------------------------------------------------- configs
@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ('dead_after_s = "abc"', "dead_after_s must be a number, got 'abc'"),
        ("model = 5", "model must be a string, got 5"),
        ('data_hwm = "big"', "data_hwm must be an integer, got 'big'"),
        ("data_hwm = 0", "data_hwm must be an integer in 1..1000000, got 0"),
        ("data_hwm = 2.5", "data_hwm must be an integer, got 2.5"),
        ("display_hwm = true", "display_hwm must be an integer, got True"),
        ("heartbeat_s = -1", "heartbeat_s must be in (0, 60] seconds, got -1"),
        ("heartbeat_s = nan", "heartbeat_s must be in (0, 60] seconds, got nan"),
        ("dead_after_s = 0.5", "dead_after_s (0.5) must exceed heartbeat_s (1.0)"),
        ('device = "tpu"', "device must be auto, cpu or gpu, got 'tpu'"),
        ("insecure = 1", "insecure must be true or false, got 1"),
        ("speed = 3", "unknown key speed"),
        ('endpoints = "x"', "endpoints must be a table, got 'x'"),
        ("[endpoints]\ndisplay_signal = 5601", "endpoints.display_signal must be a string"),
        ('[endpoints]\nmonitor = "tcp://127.0.0.1:1"', "unknown endpoints: monitor"),
        ('[endpoints]\ndisplay_signal = "udp://x:1"', "must start with ipc:// or tcp://"),
        ('[endpoints]\ndisplay_signal = "tcp://127.0.0.1:99999"', "no valid port"),
        ('[postprocess]\nthreshold_on = "high"', "postprocess.threshold_on must be a number"),
        ("[postprocess]\ntop_k = 1.5", "postprocess.top_k must be an integer, got 1.5"),
        ("[postprocess]\nfoo = 1", "unknown key postprocess.foo"),
        ("[postprocess]\nthreshold_on = 0.2", "threshold_off (0.3) <= threshold_on (0.2)"),
        ("[security]\nserver_secret_key = 3", "security.server_secret_key must be a string"),
        ('[security]\nserver_secret_key = "k"', "go together"),
        ("model = [", "invalid TOML"),
    ],
)
def test_config_values_are_checked_at_load(tmp_path, toml, problem):
    # issue #15.4: wrong types gave tracebacks at run time (or pyzmq's message)
    from rt_eeg.config import load_pipeline_config

    path = tmp_path / "run.toml"
    path.write_text(toml + "\n", encoding="utf-8")
    with pytest.raises(RtEegError) as exc:
        load_pipeline_config(path)
    msg = str(exc.value)
    assert msg.startswith(f"{path}: ") and problem in msg and "\n" not in msg, msg


def test_config_errors_from_the_cli_and_bom(tmp_path, good_edf):
    cfg = tmp_path / "run.toml"
    cfg.write_text('dead_after_s = "abc"\n')
    res = cli("replay", good_edf, "--out", tmp_path / "out", "--config", cfg, "--no-monitor")
    assert_one_line_error(res, "run.toml", "dead_after_s must be a number, got 'abc'")
    assert not (tmp_path / "out").exists()
    for name in (tmp_path / "missing.toml", tmp_path):
        res = cli("replay", good_edf, "--out", tmp_path / "out", "--config", name, "--no-monitor")
        assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    # a BOM (Windows editors) is not a TOML error
    from rt_eeg.config import load_pipeline_config

    cfg.write_bytes("\ufeffdata_hwm = 50\r\n".encode())
    assert load_pipeline_config(cfg).data_hwm == 50


# -------------------------------------------------------------------------------- models
@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    from rt_eeg.decoder import write_untrained_model

    return write_untrained_model(tmp_path_factory.mktemp("model") / "m", seed=1)


def _copy_model(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_models_record_and_verify_file_hashes(model_dir, tmp_path, caplog):
    import json
    import logging

    from rt_eeg.decoder import Decoder, model_file_hashes

    manifest = json.loads((model_dir / "manifest.json").read_text())
    assert manifest["files_sha256"] == model_file_hashes(model_dir)
    # intact: loads, and uses the very manifest whose hashes were checked
    assert Decoder(model_dir, device="cpu").manifest == manifest
    # one flipped byte in the weights archive: refused before Keras sees it
    bad = _copy_model(model_dir, tmp_path / "tampered")
    data = bytearray((bad / "model.keras").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (bad / "model.keras").write_bytes(bytes(data))
    with pytest.raises(RtEegError, match=r"tampered/model.keras: sha256 .* does not match"):
        Decoder(bad, device="cpu")
    # features.toml is covered too
    bad2 = _copy_model(model_dir, tmp_path / "tampered2")
    with open(bad2 / "features.toml", "a") as fh:
        fh.write("\n# edited\n")
    with pytest.raises(RtEegError, match=r"features.toml: sha256 .* does not match"):
        Decoder(bad2, device="cpu")
    # a model saved before the hashes existed loads, with a warning naming the manifest
    old = _copy_model(model_dir, tmp_path / "old")
    m = json.loads((old / "manifest.json").read_text())
    del m["files_sha256"]
    (old / "manifest.json").write_text(json.dumps(m))
    caplog.set_level(logging.WARNING, logger="rt_eeg.decoder")
    assert Decoder(old, device="cpu").manifest == m
    assert any("predates file hashes" in r.getMessage() for r in caplog.records)


def test_bundled_model_hashes_match():
    import json

    from rt_eeg.decoder import verify_model_files

    # raises if the committed files changed; returns the manifest it checked
    checked = verify_model_files(ROOT / "models" / "default")
    on_disk = json.loads((ROOT / "models" / "default" / "manifest.json").read_text())
    assert checked == on_disk


def test_random_bytes_model_is_not_a_valid_model(model_dir, tmp_path):
    # issue #15.5: used to say 'File not found'
    import json

    from rt_eeg.decoder import Decoder, model_file_hashes

    bad = _copy_model(model_dir, tmp_path / "junk")
    (bad / "model.tflite").unlink()  # Keras loads it (TensorFlow runtime: GPU, older folders)
    (bad / "model.keras").write_bytes(np.random.default_rng(0).bytes(4096))
    m = json.loads((bad / "manifest.json").read_text())
    m["files_sha256"] = model_file_hashes(bad)  # consistent manifest: the file itself is bad
    (bad / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(RtEegError, match="junk/model.keras: not a valid Keras model"):
        Decoder(bad, device="cpu")


def test_model_with_code_is_refused_by_safe_mode(model_dir, tmp_path):
    # a Lambda layer would run deserialised Python when loaded; safe_mode refuses it
    import json

    import keras

    from rt_eeg.decoder import Decoder, model_file_hashes

    bad = _copy_model(model_dir, tmp_path / "lambda")
    (bad / "model.tflite").unlink()  # Keras loads it (TensorFlow runtime: GPU, older folders)
    inp = keras.Input((70, 26))
    out = keras.layers.Lambda(lambda x: x[:, -1, :1] * 0.0 + 0.5)(inp)
    keras.Model(inp, out).save(bad / "model.keras")
    m = json.loads((bad / "manifest.json").read_text())
    m["files_sha256"] = model_file_hashes(bad)
    (bad / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(
        RtEegError, match=r"lambda/model.keras: not a valid Keras model .*arbitrary code execution"
    ):
        Decoder(bad, device="cpu")


# ------------------------------------------------------------------ annotations and lists
CSV_BI = """# version = csv_v1.0.0
# bname = rec
# duration = {dur} secs
# montage_file = $NEDC_NFC/lib/nedc_eas_default_montage.txt
#
channel,start_time,stop_time,label,confidence
TERM,{start},{stop},seiz,1.0000
"""


def test_reference_event_past_the_recording_is_named(tmp_path, good_edf):
    # issue #15.5: an event ending at 99999 s in a 600 s file was accepted silently
    from rt_eeg.evaluate import reference_annotation
    from rt_eeg.io.annotations import read_csv_bi
    from rt_eeg.io.corpus import CorpusItem

    past_header = tmp_path / "a.csv_bi"
    past_header.write_text(CSV_BI.format(dur="600.0000", start="500.0000", stop="99999.0000"))
    with pytest.raises(RtEegError, match=r"a.csv_bi: line 7: event seiz \[500, 99999\] ends past"):
        read_csv_bi(past_header)
    # consistent file, but for a 6 s recording: evaluate refuses the pairing
    ref = tmp_path / "good.csv_bi"
    ref.write_text(CSV_BI.format(dur="99999.0000", start="500.0000", stop="99999.0000"))
    item = CorpusItem(good_edf, ref, "", "p")
    with pytest.raises(RtEegError, match=r"good.csv_bi: event seiz \[500, 99999\] ends past the "
                                         r"end of the recording good.edf \(6 s\)"):  # fmt: skip
        reference_annotation(item, 6.0)
    # rt-eeg info describes the file but warns in one line
    edf = tmp_path / "good.edf"
    edf.write_bytes(good_edf.read_bytes())
    res = cli("info", edf)
    assert res.returncode == 0 and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and "warning" in res.stderr and "99999" in res.stderr


def test_bom_and_crlf_in_list_and_annotation_files(tmp_path, good_edf):
    # issue #15.5: a BOM at the start of a list file was part of the first path
    from rt_eeg.io.annotations import read_csv_bi
    from rt_eeg.io.corpus import read_list

    lst = tmp_path / "files.list"
    lst.write_bytes(("\ufeff" + str(good_edf) + "\r\n# comment\r\n").encode())
    assert read_list(lst) == [good_edf]
    ann = tmp_path / "bom.csv_bi"
    text = CSV_BI.format(dur="6.0000", start="1.0000", stop="3.0000").replace("\n", "\r\n")
    ann.write_bytes(("\ufeff" + text).encode())
    a = read_csv_bi(ann)
    assert a.duration == 6.0 and [(e.start, e.stop) for e in a.events] == [(1.0, 3.0)]
    with pytest.raises(RtEegError, match="is a directory"):
        read_list(tmp_path)


def test_events_tsv_round_trip_and_errors(tmp_path):
    from rt_eeg.io.annotations import Event, read_annotation, write_events_tsv

    path = tmp_path / "rec_events.tsv"
    events = [Event(10.0, 25.5, "fnsz"), Event(40.0, 41.0, "seiz")]
    write_events_tsv(path, events, 600.0)
    ann = read_annotation(path)
    assert ann.duration == 600.0
    assert [(e.start, e.stop, e.label) for e in ann.events] == [
        (10.0, 25.5, "fnsz"),
        (40.0, 41.0, "seiz"),
    ]
    write_events_tsv(path, [], 60.0)  # seizure-free: one bckg row, no events
    assert read_annotation(path).events == [] and read_annotation(path).duration == 60.0
    head = "onset\tduration\teventType\tconfidence\tchannels\tdateTime\trecordingDuration\n"
    for row, problem in [
        ("5\t-1\tsz\tn/a\tn/a\tn/a\t60", "is not before stop time"),
        ("nan\t1\tsz\tn/a\tn/a\tn/a\t60", "onset 'nan' is not finite"),
        ("5\t1\tspike\tn/a\tn/a\tn/a\t60", "unknown eventType 'spike'"),
        ("50\t99949\tsz\tn/a\tn/a\tn/a\t60", "ends past the end of the recording"),
        ("5\t1\tsz", "3 tab-separated fields, the header has 7"),
    ]:
        path.write_text(head + row + "\n")
        with pytest.raises(RtEegError, match="rec_events.tsv: .*" + problem):
            read_annotation(path)
    path.write_text("")
    with pytest.raises(RtEegError, match="empty events file"):
        read_annotation(path)


def test_hyp_with_zero_duration_is_refused(tmp_path):
    # found by tests/test_fuzz_inputs.py: '# duration = 0 secs' was accepted
    from rt_eeg.io.annotations import read_hyp

    path = tmp_path / "x.hyp"
    path.write_bytes(
        b"\xef\xbb\xbf# version = rt_eeg_hyp_v1\n# duration = 0 secs\n# epoch = 1.0 secs\n"
        b"start_time,stop_time,label,confidence\n\n"
    )
    with pytest.raises(RtEegError, match=r"x.hyp: line 2: duration 0.0 is not positive"):
        read_hyp(path)


def test_fuzz_findings_in_annotations_and_scoring(tmp_path):
    """Found by tools/fuzz_inputs.py: overlapping events gave an error without the file
    name (from background filling); a 1e9 s duration made EPOCH scoring run for hours; a
    sub-epoch event made MCC take sqrt of a negative number; a 2 ms file divided by zero in
    SzCORE scoring."""
    from rt_eeg.io.annotations import read_annotation
    from rt_eeg.scoring import score_pairs

    over = tmp_path / "over.tse"
    over.write_text("version = tse_v1.0.0\n\n0.0 24.4 fnsz 1.0\n1.0 39.2 bckg 1.0\n")
    with pytest.raises(RtEegError, match=r"over.tse: overlapping events on TERM: fnsz \[0, 24.4\]"):
        read_annotation(over)
    huge = tmp_path / "huge.csv_bi"
    huge.write_text(CSV_BI.format(dur="1e9", start="1.0", stop="2.0"))
    with pytest.raises(RtEegError, match=r"huge.csv_bi: line 3: duration 1e\+09 s is beyond"):
        read_annotation(huge)
    tiny = tmp_path / "tiny.tse"
    tiny.write_text(
        "version = tse_v1.0.0\n\n0.0000 0.0010 fnsz 1.0\n0.25 41.1 fnsz 0.5\n"
        "369.07 392.19 bckg 0.5\n454.17 468.71 fnsz 0.5\n497.94 591.60 seiz 0.5\n"
    )
    two_ms = tmp_path / "two_ms.tse"
    two_ms.write_text("version = tse_v1.0.0\n\n0.0010 0.0020 bckg 1.0000\n")
    for path in (tiny, two_ms):
        ann = read_annotation(path)
        result = score_pairs([(ann, ann)])  # used to raise
        assert result["n_files"] == 1 and result["total_duration_s"] == ann.duration
        # scoring a file against itself: OVLP finds every reference seizure, no false alarm
        assert result["ovlp"]["total"]["false_alarms"] == 0


@pytest.mark.parametrize("value", ["-1", "nan"])
def test_a_negative_flag_ratio_is_one_line(tmp_path, value):
    lst = tmp_path / "list"
    lst.write_text("")
    r = cli("evaluate", "--list", lst, "--out", tmp_path / "ev", "--sweep", "--max-flag-ratio", value)
    assert r.returncode != 0 and "--max-flag-ratio must be >= 0" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "ev").exists()
