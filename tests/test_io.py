"""Foundation: channel names, TCP montage, resampling, chunked EDF reading, bad input."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from edf_factory import tuh_like, write_edf
from scipy.signal import resample_poly

from rt_eeg.errors import RtEegError
from rt_eeg.io.channels import normalise_label, normalise_labels
from rt_eeg.io.corpus import find_recordings, parse_chbmit_summary
from rt_eeg.io.edf import open_recording
from rt_eeg.montage import TCP_20, TCP_22, tcp_montage
from rt_eeg.resample import StreamingResampler


@pytest.mark.parametrize(
    ("label", "kind", "electrode", "ref"),
    [
        ("EEG FP1-REF", "referential", "FP1", "ar"),
        ("EEG FP1-LE", "referential", "FP1", "le"),
        ("EEG 31-REF", "other", "", ""),
        ("EEG EKG1-REF", "other", "", ""),
        ("PHOTIC-REF", "other", "", ""),
        ("BURSTS", "other", "", ""),
        ("SUPPR", "other", "", ""),
        ("EDF Annotations", "other", "", ""),
        ("-", "other", "", ""),
        ("Fp1", "referential", "FP1", "ar"),
        ("EEG Fp1", "referential", "FP1", "ar"),
        ("FP1-REF", "referential", "FP1", "ar"),
        ("EEG T7-REF", "referential", "T3", "ar"),
    ],
)
def test_normalise_referential_and_other(label, kind, electrode, ref):
    c = normalise_label(0, label)
    assert (c.kind, c.electrode, c.reference) == (kind, electrode, ref)


def test_normalise_chbmit_bipolar_aliases():
    c = normalise_label(3, "P7-T7")
    assert (c.kind, c.electrode, c.electrode2) == ("bipolar", "T5", "T3")


def test_montage_22_20_and_bipolar():
    tuh = [
        f"EEG {e}-REF"
        for e in "FP1 FP2 F3 F4 C3 C4 P3 P4 O1 O2 F7 F8 T3 T4 T5 T6 A1 A2 FZ CZ PZ".split()
    ]
    m = tcp_montage(normalise_labels(tuh))
    assert m.name == "01_tcp_ar" and m.ch_names == TCP_22 and m.missing == ()
    # FP1-F7 column is +FP1 -F7
    col = m.matrix[:, 0]
    assert (
        col[m.input_labels.index("EEG FP1-REF")] == 1
        and col[m.input_labels.index("EEG F7-REF")] == -1
    )
    assert np.count_nonzero(m.matrix) == 44
    no_ears = [lab.replace("REF", "LE") for lab in tuh if "A1" not in lab and "A2" not in lab]
    m = tcp_montage(normalise_labels(no_ears))
    assert m.name == "04_tcp_le_a" and m.ch_names == TCP_20 and set(m.missing) == {"A1-T3", "T4-A2"}
    chb = ["FP1-F7", "F7-T7", "T7-P7", "P7-O1", "FP1-F3", "F3-C3", "C3-P3", "P3-O1", "FP2-F4", "F4-C4",
           "C4-P4", "P4-O2", "FP2-F8", "F8-T8", "T8-P8", "P8-O2", "FZ-CZ", "CZ-PZ", "P7-T7", "T7-FT9",
           "FT9-FT10", "FT10-T8", "T8-P8", "-"]  # fmt: skip
    m = tcp_montage(normalise_labels(chb))
    assert m.name == "bipolar" and len(m.ch_names) == 16
    assert set(m.missing) == {"A1-T3", "T3-C3", "C3-CZ", "CZ-C4", "C4-T4", "T4-A2"}
    # the duplicate T8-P8 (index 22) is not used; the first one (index 14) is
    assert "T8-P8" in m.input_labels and m.input_labels.count("T8-P8") == 1


@pytest.mark.parametrize("sfreq", [256, 400, 500, 512, 1000, 200, 333])
@pytest.mark.parametrize("chunk", [1, 25, 997])
def test_streaming_resampler_equals_resample_poly(sfreq, chunk, rng):
    x = rng.standard_normal((sfreq * 4 + 3, 2))
    r = StreamingResampler(sfreq, 250, 2)
    y = np.concatenate([r.push(x[i : i + chunk]) for i in range(0, len(x), chunk)] + [r.flush()])
    ref = resample_poly(x, r.up, r.down, axis=0)
    assert y.shape == ref.shape
    np.testing.assert_allclose(y, ref, atol=1e-5)


def test_edf_reads_tuh_layout_and_chunks_equal_whole(tmp_path, rng):
    path, raw = tuh_like(tmp_path / "a.edf", 12.0, 256, rng=rng)
    with open_recording(path) as rec:
        assert rec.montage == "01_tcp_ar" and rec.ch_names == list(TCP_22)
        assert rec.sfreq == 250 and rec.native_sfreq == 256 and rec.n_samples == 3000
        whole = rec.read()
        assert whole.dtype == np.float32 and whole.shape == (3000, 22)
        for chunk in (25, 77, 5000):
            parts = np.concatenate([b for _, b in rec.chunks(chunk)])
            np.testing.assert_array_equal(parts, whole)
    # FP1-F7 formed from the file's own samples (16-bit quantisation: 0.1 uV)
    fp1, f7 = resample_poly(raw[0], 125, 128), resample_poly(raw[10], 125, 128)
    np.testing.assert_allclose(whole[:, 0], fp1 - f7, atol=0.3)


def test_resampling_256_keeps_10hz_amplitude(tmp_path):
    t = np.arange(int(30 * 256)) / 256
    sine = 100 * np.sin(2 * np.pi * 10 * t)
    labels = [
        f"EEG {e}-REF" for e in "FP1 F7 T3 T5 O1 FP2 F8 T4 T6 O2 C3 CZ C4 F3 P3 F4 P4".split()
    ]
    data = np.zeros((len(labels), len(t)))
    data[0] = sine  # FP1 carries the sine, F7 is flat: FP1-F7 is the sine
    with open_recording(write_edf(tmp_path / "s.edf", data, labels, 256)) as rec:
        x = rec.read()[:, rec.ch_names.index("FP1-F7")]
    core = x[500:-500]  # away from the filter's edge transient
    amp = np.sqrt(2) * core.std()
    assert abs(amp - 100) / 100 < 0.01


def test_mixed_rates_resampled_per_channel(tmp_path, rng):
    labels = [
        f"EEG {e}-REF" for e in "FP1 F7 T3 T5 O1 FP2 F8 T4 T6 O2 C3 CZ C4 F3 P3 F4 P4".split()
    ]
    rates = [512 if i % 2 else 256 for i in range(len(labels))]
    data = [rng.normal(0, 10, 8 * fs) for fs in rates]
    path = write_edf(tmp_path / "m.edf", data, labels, rates)
    with open_recording(path) as rec:
        assert rec.native_rates == [256.0, 512.0] and rec.n_samples == 2000
        assert rec.read().shape == (2000, 20)


def test_bad_inputs_give_one_line_errors(tmp_path, rng):
    junk = tmp_path / "junk.edf"
    junk.write_bytes(b"0       " + bytes(rng.integers(0, 255, 3000, dtype=np.uint8)))
    # random bytes after a valid version field: the header check names the first bad field
    with pytest.raises(RtEegError, match=r"junk.edf: (number of signals|header size)") as exc:
        open_recording(junk)
    assert "\n" not in str(exc.value)
    path, _ = tuh_like(tmp_path / "t.edf", 10.0, 250, rng=rng)
    trunc = tmp_path / "trunc.edf"
    trunc.write_bytes(path.read_bytes()[:-7000])
    with pytest.raises(RtEegError, match="trunc.edf"):
        with open_recording(trunc) as rec:
            rec.read()
    noeeg = write_edf(
        tmp_path / "noeeg.edf", rng.normal(0, 1, (2, 500)), ["EKG1", "PHOTIC-REF"], 250
    )
    with pytest.raises(RtEegError, match="noeeg.edf: no EEG channels"):
        open_recording(noeeg)
    few = write_edf(
        tmp_path / "few.edf", rng.normal(0, 1, (2, 500)), ["EEG FP1-REF", "EEG O2-REF"], 250
    )
    with pytest.raises(RtEegError, match="few.edf: cannot form any TCP"):
        open_recording(few)
    with pytest.raises(RtEegError, match="missing.edf: file not found"):
        open_recording(tmp_path / "missing.edf")


def test_cli_info_exit_codes(tmp_path, rng):
    path, _ = tuh_like(tmp_path / "x.edf", 5.0, 400, rng=rng, suffix="LE", ears=False)
    ok = subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", "info", str(path), "--json"],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    import json

    info = json.loads(ok.stdout)
    assert info["montage"] == "04_tcp_le_a" and len(info["tcp_channels"]) == 20
    bad = tmp_path / "bad.edf"
    bad.write_text("not an edf")
    res = subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", "info", str(bad)], capture_output=True, text=True
    )
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "bad.edf" in res.stderr and "Traceback" not in res.stderr


def test_cli_lists_every_subcommand_and_unimplemented_fail():
    res = subprocess.run(
        [sys.executable, "-m", "rt_eeg.cli", "--help"], capture_output=True, text=True
    )
    for name in (
        "info",
        "replay",
        "monitor",
        "view",
        "evaluate",
        "score",
        "train",
        "simulate",
        "features",
        "bench",
    ):
        assert name in res.stdout
        sub = subprocess.run(
            [sys.executable, "-m", "rt_eeg.cli", name, "--help"], capture_output=True, text=True
        )
        assert sub.returncode == 0 and "usage" in sub.stdout


# --- real data from ../shared --------------------------------------------------------------


def test_every_shared_edf_goes_through_info(shared_dir):
    from rt_eeg.commands.info import annotation_summary

    edfs = sorted((shared_dir / "data" / "tusz_v2_sample").rglob("*.edf"))
    edfs += sorted((shared_dir / "data" / "chbmit_sample").rglob("*.edf"))
    assert len(edfs) > 200
    for edf in edfs:
        with open_recording(edf) as rec:
            d = rec.describe()
            assert len(d["tcp_channels"]) in (22, 20, 16), edf
            folder = edf.parent.name
            if folder.startswith("0"):
                assert rec.montage == folder, (
                    edf
                )  # montage detected from channels matches TUSZ folder
            assert rec.read().shape == (rec.n_samples, len(rec.ch_names))
        if "tusz" in str(edf):
            assert annotation_summary(edf) is not None


def test_real_tuh_snippets_form_22_channel_tcp(shared_dir):
    for edf in sorted((shared_dir / "data" / "tuh_real_snippets").glob("*.edf")):
        with open_recording(edf) as rec:
            x = rec.read()
            assert rec.ch_names == list(TCP_22) and rec.sfreq == 250
            assert np.isfinite(x).all() and 1 < x.std() < 500  # real EEG: tens of microvolts


def test_corpus_discovery(shared_dir):
    items = find_recordings(shared_dir / "data" / "tusz_v2_sample")
    assert len(items) == 186 and all(i.ref is not None and i.ref.suffix == ".csv_bi" for i in items)
    assert {i.split for i in items} == {"train", "dev"}
    dev = find_recordings(shared_dir / "data" / "tusz_v2_sample", split="dev")
    assert 0 < len(dev) < 186 and all("/dev/" in str(i.edf) for i in dev)
    chb = find_recordings(shared_dir / "data" / "chbmit_sample")
    assert chb and all(i.ref.name == "chb05-summary.txt" for i in chb)
    seiz = parse_chbmit_summary(
        shared_dir / "data" / "chbmit_sample" / "chb05" / "chb05-summary.txt"
    )
    assert sum(len(v) for v in seiz.values()) == 5  # chb05 has five seizures


def test_list_file_discovery(tmp_path, rng):
    (tmp_path / "a").mkdir()
    a, _ = tuh_like(tmp_path / "a" / "p_s001_t000.edf", 2.0, 250, rng=rng)
    lst = tmp_path / "files.list"
    lst.write_text("# my list\n\na/p_s001_t000.edf\n")
    items = find_recordings(lst)
    assert [i.edf for i in items] == [a]


def test_non_finite_samples_are_refused_with_time_and_channel(tmp_path, rng, monkeypatch):
    # EDF stores integers, so NaN/Inf can only come from a broken calibration or reader; the
    # reader checks every block anyway, and says where.
    import pyedflib

    path, _ = tuh_like(tmp_path / "nan.edf", 5.0, 250, rng=rng)
    real = pyedflib.EdfReader.readSignal

    def broken(self, chn, start=0, n=None, digital=False):
        x = real(self, chn, start, n, digital)
        if chn == 3:
            x[300] = np.nan
        return x

    monkeypatch.setattr(pyedflib.EdfReader, "readSignal", broken)
    with (
        open_recording(path) as rec,
        pytest.raises(RtEegError, match=r"nan.edf: non-finite sample .*'EEG F4-REF' at 1.20 s"),
    ):
        rec.read()


def test_json_rows_one_record_per_line_same_document(tmp_path):
    import json

    from rt_eeg.io.atomic import json_text, write_json_atomic

    doc = {"a": {"b": [1, 2]}, "trials": [{"s": 0.5, "c": {"x": [1]}}, {"s": 1.0}], "z": "end"}
    text = json_text(doc, "trials")
    assert json.loads(text) == doc
    lines = text.splitlines()
    assert '    {"s":0.5,"c":{"x":[1]}},' in lines and '    {"s":1.0}' in lines
    # without rows (or a missing, empty or non-list key) the file is plain indented JSON
    for d, rows in ((doc, None), (doc, "absent"), (doc, "z"), ({"trials": []}, "trials")):
        assert json_text(d, rows) == json.dumps(d, indent=2) + "\n"
    write_json_atomic(tmp_path / "d.json", doc, rows="trials")
    assert (tmp_path / "d.json").read_text() == text
