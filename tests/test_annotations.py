"""Annotation formats: round-trips, the real TUSZ files, malformed input."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import (
    SEIZURE_LABELS,
    Annotation,
    Event,
    HypEpoch,
    binary_label,
    fill_background,
    read_annotation,
    read_csv,
    read_csv_bi,
    read_hyp,
    read_lbl,
    read_tse,
    write_csv,
    write_csv_bi,
    write_events_tsv,
    write_hyp,
    write_tse,
)

EVENTS = [
    Event(10.25, 30.5, "fnsz", 1.0),
    Event(100.0, 162.1234, "seiz", 0.875),
]


def _sample_csv_bi(shared_dir: Path) -> list[Path]:
    files = sorted((shared_dir / "data" / "tusz_v2_sample").rglob("*.csv_bi"))
    assert len(files) == 186, "the sample holds 186 csv_bi files (data README)"
    return files


# ------------------------------------------------------------------ labels


def test_binary_label():
    for lab in SEIZURE_LABELS:
        assert binary_label(lab) == "seiz"
    assert binary_label("bckg") == "bckg"
    assert binary_label("GNSZ") == "seiz"
    with pytest.raises(RtEegError, match="unknown label 'artf'"):
        binary_label("artf")


# ------------------------------------------------------------------ csv_bi


def test_csv_bi_round_trip(tmp_path):
    path = tmp_path / "rec_s001_t000.csv_bi"
    write_csv_bi(path, EVENTS, 600.0)
    lines = path.read_text().splitlines()
    assert lines[:6] == [
        "# version = csv_v1.0.0",
        "# bname = rec_s001_t000",
        "# duration = 600.0000 secs",
        "# montage_file = $NEDC_NFC/lib/nedc_eas_default_montage.txt",
        "#",
        "channel,start_time,stop_time,label,confidence",
    ]
    assert lines[6:] == [
        "TERM,10.2500,30.5000,fnsz,1.0000",
        "TERM,100.0000,162.1234,seiz,0.8750",
    ]
    ann = read_csv_bi(path)
    assert ann.events == EVENTS
    assert ann.duration == 600.0
    assert ann.montage_file == "$NEDC_NFC/lib/nedc_eas_default_montage.txt"
    assert read_annotation(path) == ann


def test_csv_bi_refuses_channel_events(tmp_path):
    with pytest.raises(RtEegError, match="TERM events only"):
        write_csv_bi(tmp_path / "x.csv_bi", [Event(0, 1, "seiz", 1.0, "FP1-F7")], 10.0)


def test_every_tusz_sample_parses_and_round_trips(shared_dir, tmp_path):
    n_seiz = 0
    total = 0.0
    for src in _sample_csv_bi(shared_dir):
        ann = read_csv_bi(src)
        assert ann.duration is not None and ann.duration > 0
        n_seiz += sum(ev.label == "seiz" for ev in ann.events)
        total += ann.duration
        out = tmp_path / src.name
        write_csv_bi(out, ann.events, ann.duration, montage_file=ann.montage_file)
        again = read_csv_bi(out)
        assert again.events == ann.events
        assert again.duration == ann.duration
        # the data rows and header layout are the original bytes; only the duration
        # header gains two decimals (NEDC v6 writes 4)
        orig = src.read_text().splitlines()
        new = out.read_text().splitlines()
        assert len(orig) == len(new)
        for a, b in zip(orig, new, strict=True):
            if a.startswith("# duration"):
                assert float(a.split("=")[1].split()[0]) == float(b.split("=")[1].split()[0])
            else:
                assert a == b
    # the data README: 229 seizure events, 30.1 h
    assert n_seiz == 229
    assert total / 3600 == pytest.approx(30.1, abs=0.05)


# ------------------------------------------------------------------ per-channel csv


def test_csv_round_trip(tmp_path):
    events = [
        Event(5.0, 20.0, "gnsz", 1.0, "FP1-F7"),
        Event(5.5, 19.0, "gnsz", 1.0, "C3-CZ"),
        Event(0.0, 5.0, "bckg", 1.0, "FP1-F7"),
    ]
    path = tmp_path / "a.csv"
    write_csv(path, events, 30.0, montage_file="nedc_eas_default_montage.txt")
    ann = read_csv(path)
    # sorted by (channel, start)
    assert [ev.channel for ev in ann.events] == ["C3-CZ", "FP1-F7", "FP1-F7"]
    assert sorted(ann.events, key=lambda e: (e.channel, e.start)) == ann.events
    assert set(ann.events) == set(events)
    assert ann.montage_file == "nedc_eas_default_montage.txt"
    assert read_annotation(path) == ann
    # the union of the channel seizures becomes the term-based view
    filled = fill_background(ann.events, 30.0)
    assert [(e.start, e.stop, e.label) for e in filled] == [
        (0.0, 5.0, "bckg"),
        (5.0, 20.0, "seiz"),
        (20.0, 30.0, "bckg"),
    ]


# ------------------------------------------------------------------ tse


def test_tse_round_trip_fills_background(tmp_path):
    path = tmp_path / "a.tse_bi"
    write_tse(path, EVENTS, 200.0)
    assert path.read_text().splitlines() == [
        "version = tse_v1.0.0",
        "",
        "0.0000 10.2500 bckg 1.0000",
        "10.2500 30.5000 fnsz 1.0000",
        "30.5000 100.0000 bckg 1.0000",
        "100.0000 162.1234 seiz 0.8750",
        "162.1234 200.0000 bckg 1.0000",
    ]
    ann = read_tse(path)
    assert ann.duration == 200.0
    assert [e for e in ann.events if e.label != "bckg"] == EVENTS
    assert read_annotation(path) == ann


def test_real_tse_bi(shared_dir):
    snippets = sorted((shared_dir / "data" / "tuh_real_snippets").glob("*.tse_bi"))
    assert len(snippets) == 2
    durations = sorted(read_annotation(p).duration for p in snippets)
    assert durations == [17.0, 22.0]
    for p in snippets:
        ann = read_annotation(p)
        assert [e.label for e in ann.events] == ["bckg"]
        assert ann.events[0].start == 0.0


# ------------------------------------------------------------------ lbl

LBL_TEXT = """
version = lbl_v1.0.0

montage =  0, FP1-F7: EEG FP1-REF --  EEG F7-REF
montage =  1, F7-T3:  EEG F7-REF  --  EEG T3-REF

number_of_levels = 1

level[0] = 1

symbols[0] = {0: '(null)', 1: 'spsw', 2: 'bckg', 3: 'seiz', 4: 'fnsz'}

label = {0, 0, 0.0000, 12.5000, 0, [0.0, 0.0, 1.0, 0.0, 0.0]}
label = {0, 0, 12.5000, 40.0000, 0, [0.0, 0.0, 0.0, 0.0, 1.0]}
label = {0, 0, 0.0000, 40.0000, 1, [0.0, 0.0, 0.9, 0.1, 0.0]}
"""


def test_read_lbl(tmp_path):
    path = tmp_path / "a.lbl"
    path.write_text(LBL_TEXT)
    ann = read_lbl(path)
    got = [(e.channel, e.start, e.stop, e.label, e.confidence) for e in ann.events]
    assert got == [
        ("F7-T3", 0.0, 40.0, "bckg", 0.9),
        ("FP1-F7", 0.0, 12.5, "bckg", 1.0),
        ("FP1-F7", 12.5, 40.0, "fnsz", 1.0),
    ]
    assert ann.duration == 40.0
    assert read_annotation(path) == ann


def test_lbl_malformed(tmp_path):
    path = tmp_path / "bad.lbl"
    path.write_text(LBL_TEXT.replace("[0.0, 0.0, 1.0, 0.0, 0.0]", "[0.0, 1.0]"))
    with pytest.raises(RtEegError, match=r"line 13: 2 probabilities for 5 symbols") as err:
        read_lbl(path)
    assert str(path) in str(err.value)
    path.write_text(
        LBL_TEXT.replace(
            "label = {0, 0, 12.5000, 40.0000, 0,", "label = {0, 0, 12.5000, 40.0000, 7,"
        )
    )
    with pytest.raises(RtEegError, match=r"line 14: channel 7 is not in the montage"):
        read_lbl(path)


# ------------------------------------------------------------------ fill_background


def test_fill_background_rules():
    events = [
        Event(5.0, 10.0, "fnsz", 0.7),
        Event(10.0, 12.0, "seiz", 0.9),  # touches the previous seizure: joined
        Event(50.0, 70.0, "seiz", 1.0),  # runs past the end: clipped
        Event(80.0, 90.0, "seiz", 1.0),  # wholly past the end: dropped
    ]
    out = fill_background(events, 60.0)
    assert [(e.start, e.stop, e.label, e.confidence) for e in out] == [
        (0.0, 5.0, "bckg", 1.0),
        (5.0, 12.0, "seiz", 0.7),  # first confidence kept, as NEDC does
        (12.0, 50.0, "bckg", 1.0),
        (50.0, 60.0, "seiz", 1.0),
    ]
    assert all(e.channel == "TERM" for e in out)
    assert fill_background([], 30.0) == [Event(0.0, 30.0, "bckg", 1.0)]
    with pytest.raises(RtEegError, match="overlapping events"):
        fill_background([Event(0, 10, "seiz"), Event(5, 15, "seiz")], 20.0)


# ------------------------------------------------------------------ HYP


def test_hyp_round_trip(tmp_path):
    epochs = [
        HypEpoch(0.0, 1.0, "bckg", 0.9731),
        HypEpoch(1.0, 2.0, "seiz", 0.61),
        HypEpoch(2.0, 3.0, "na", 0.0),
    ]
    path = tmp_path / "rec.hyp"
    write_hyp(path, epochs, 600.0)
    assert path.read_text().splitlines() == [
        "# version = rt_eeg_hyp_v1",
        "# duration = 600.0000 secs",
        "# epoch = 1.0 secs",
        "start_time,stop_time,label,confidence",
        "0.0000,1.0000,bckg,0.9731",
        "1.0000,2.0000,seiz,0.6100",
        "2.0000,3.0000,na,0.0000",
    ]
    got, duration = read_hyp(path)
    assert got == epochs
    assert duration == 600.0


def test_hyp_malformed(tmp_path):
    path = tmp_path / "rec.hyp"
    write_hyp(path, [HypEpoch(0.0, 1.0, "bckg", 0.5)], 10.0)
    text = path.read_text()
    path.write_text(text + "1.0000,2.0000,maybe,0.5\n")
    with pytest.raises(RtEegError, match=r"line 6: unknown label 'maybe'"):
        read_hyp(path)
    path.write_text(text.replace("# version = rt_eeg_hyp_v1\n", ""))
    with pytest.raises(RtEegError, match="not a HYP file"):
        read_hyp(path)


# ------------------------------------------------------------------ events.tsv


def test_events_tsv(tmp_path):
    path = tmp_path / "sub-01_ses-01_task-szMonitoring_run-00_events.tsv"
    events = [Event(0.0, 10.25, "bckg"), *EVENTS]
    write_events_tsv(path, events, 600.0, date_time=datetime(2013, 1, 2, 3, 4, 5))
    rows = [line.split("\t") for line in path.read_text().splitlines()]
    assert rows[0] == [
        "onset",
        "duration",
        "eventType",
        "confidence",
        "channels",
        "dateTime",
        "recordingDuration",
    ]
    assert rows[1:] == [
        ["10.25", "20.25", "sz_foc", "1.00", "n/a", "2013-01-02 03:04:05", "600.00"],
        ["100.00", "62.12", "sz", "0.88", "n/a", "2013-01-02 03:04:05", "600.00"],
    ]
    write_events_tsv(path, [], 42.0)
    rows = [line.split("\t") for line in path.read_text().splitlines()]
    assert rows[1] == ["0.00", "42.00", "bckg", "n/a", "n/a", "n/a", "42.00"]


# ------------------------------------------------------------------ malformed input

GOOD = (
    "# version = csv_v1.0.0\n"
    "# bname = x\n"
    "# duration = 100.00 secs\n"
    "# montage_file = $NEDC_NFC/lib/nedc_eas_default_montage.txt\n"
    "#\n"
    "channel,start_time,stop_time,label,confidence\n"
    "TERM,1.0000,2.0000,seiz,1.0000\n"
)


@pytest.mark.parametrize(
    ("bad_row", "message"),
    [
        ("TERM,5.0000,4.0000,seiz,1.0000", "line 8: start time 5.0 is not before stop time 4.0"),
        ("TERM,5.0000,5.0000,seiz,1.0000", "line 8: start time 5.0 is not before stop time"),
        ("TERM,abc,6.0000,seiz,1.0000", "line 8: start time 'abc' is not a number"),
        ("TERM,5.0000,nan,seiz,1.0000", "line 8: stop time 'nan' is not finite"),
        ("TERM,5.0000,6.0000,artf,1.0000", "line 8: unknown label 'artf'"),
        ("TERM,5.0000,6.0000,seiz", "line 8: expected 5 comma-separated fields"),
        ("TERM,5.0000,6.0000,seiz,1.5", "line 8: confidence 1.5 is outside"),
        ("FP1-F7,5.0000,6.0000,seiz,1.0", "line 8: channel 'FP1-F7' in a term-based csv_bi"),
        ("TERM,-1.0,6.0000,seiz,1.0", "line 8: start time -1.0 is negative"),
    ],
)
def test_csv_bi_malformed_names_file_and_line(tmp_path, bad_row, message):
    path = tmp_path / "bad.csv_bi"
    path.write_text(GOOD + bad_row + "\n")
    with pytest.raises(RtEegError) as err:
        read_csv_bi(path)
    assert message in str(err.value)
    assert err.value.path == str(path)


def test_csv_bi_malformed_header(tmp_path):
    path = tmp_path / "bad.csv_bi"
    path.write_text(GOOD.replace("channel,start_time", "chan,start"))
    with pytest.raises(RtEegError, match="line 6: expected the header row"):
        read_csv_bi(path)
    path.write_text(GOOD.replace("100.00 secs", "long secs"))
    with pytest.raises(RtEegError, match="line 3: duration"):
        read_csv_bi(path)
    path.write_text(GOOD.replace("csv_v1.0.0", "csv_v9"))
    with pytest.raises(RtEegError, match="unsupported csv version"):
        read_csv_bi(path)
    path.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(RtEegError, match="not a text annotation file"):
        read_csv_bi(path)


def test_tse_malformed(tmp_path):
    path = tmp_path / "bad.tse"
    path.write_text("version = tse_v1.0.0\n\n0.0000 10.0000 bckg 1.0000\n10.0000 x seiz 1.0\n")
    with pytest.raises(RtEegError, match="line 4: stop time 'x' is not a number") as err:
        read_tse(path)
    assert str(path) in str(err.value)
    path.write_text("0.0000 10.0000 bckg 1.0000\n")
    with pytest.raises(RtEegError, match="missing 'version = tse_v1.0.0'"):
        read_tse(path)
    path.write_text("version = tse_v1.0.0\n\n0.0000 10.0000 bckg\n")
    with pytest.raises(RtEegError, match="line 3: expected 4 fields"):
        read_tse(path)


def test_read_annotation_dispatch_errors(tmp_path):
    with pytest.raises(RtEegError, match="unknown annotation suffix '.txt'"):
        read_annotation(tmp_path / "a.txt")
    with pytest.raises(RtEegError, match="annotation file not found"):
        read_annotation(tmp_path / "missing.csv_bi")


def test_annotation_duration_falls_back_to_last_stop(tmp_path):
    path = tmp_path / "nodur.csv_bi"
    path.write_text(GOOD.replace("# duration = 100.00 secs\n", ""))
    ann = read_csv_bi(path)
    assert isinstance(ann, Annotation)
    assert ann.duration == 2.0
