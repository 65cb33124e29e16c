"""NEDC-compatible scoring (OVLP, TAES, EPOCH), SzCORE scoring and ``rt-eeg score``.

Expected counts in the hand-built cases are worked out in the comments. NEDC scores the
background too: every annotation is first filled with 'bckg' so it covers the recording,
and every event of either label is a target.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rt_eeg.cli import main
from rt_eeg.errors import RtEegError
from rt_eeg.io.annotations import Annotation, Event, read_csv_bi, write_csv_bi
from rt_eeg.scoring import read_file_list, score_files, score_pairs
from rt_eeg.scoring.nedc import epoch_tables, event_tables, finish


def ann(duration, seizures, *, path=None, label="seiz"):
    """An annotation with TERM seizure events [(start, stop), ...]."""
    return Annotation(path, [Event(a, b, label) for a, b in seizures], duration)


def counts(res, method, label):
    r = res[method][label]
    return (r["targets"], r["hits"], r["misses"], r["false_alarms"])


def approx_counts(res, method, label):
    return tuple(pytest.approx(x, abs=1e-9) for x in counts(res, method, label))


# ------------------------------------------------------------------ OVLP rules


def test_touching_events_do_not_overlap():
    # ref:  bckg [0,10]  seiz [10,20]  bckg [20,40]
    # hyp:  bckg [0,20]  seiz [20,30]  bckg [30,40]
    # hyp seiz starts exactly where ref seiz stops: no overlap -> ref seiz missed, hyp seiz
    # is a false alarm; both ref bckg events are overlapped by hyp bckg -> 2 hits.
    res = score_pairs([(ann(40.0, [(10, 20)]), ann(40.0, [(20, 30)]))])
    assert counts(res, "ovlp", "seiz") == (1, 0, 1, 1)
    assert counts(res, "ovlp", "bckg") == (2, 2, 0, 0)
    # one tenth of a second earlier it overlaps: hit, no false alarm
    res = score_pairs([(ann(40.0, [(10, 20)]), ann(40.0, [(19.9, 30)]))])
    assert counts(res, "ovlp", "seiz") == (1, 1, 0, 0)


def test_empty_hypothesis():
    # ref: b[0,10] s[10,20] b[20,50] s[50,60] b[60,100]; hyp: b[0,100]
    res = score_pairs([(ann(100.0, [(10, 20), (50, 60)]), ann(100.0, []))])
    # OVLP: both seizures missed; the single hyp bckg overlaps all 3 ref bckg events
    assert counts(res, "ovlp", "seiz") == (2, 0, 2, 0)
    assert counts(res, "ovlp", "bckg") == (3, 3, 0, 0)
    seiz = res["ovlp"]["seiz"]
    assert seiz["sensitivity"] == 0.0
    assert seiz["specificity"] == 100.0  # TN = 3 bckg hits, FP = 0
    assert seiz["precision"] is None  # no seizure hypothesised: undefined
    assert seiz["fa_per_24h"] == 0.0
    # TAES: seizures are whole misses. ref b[0,10] vs hyp b[0,100]: hit (10-0)/10 = 1,
    # false alarm min(90/10, 1) = 1; that hyp also runs over b[20,50] and b[60,100],
    # which count as whole misses -> bckg hits 1, misses 2, false alarms 1
    assert approx_counts(res, "taes", "seiz") == (2, 0, 2, 0)
    assert approx_counts(res, "taes", "bckg") == (3, 1, 2, 1)
    # EPOCH: 400 epochs; 2 x 40 seizure epochs all called bckg
    assert res["epoch"]["confusion"] == {
        "seiz": {"seiz": 0, "bckg": 80},
        "bckg": {"seiz": 0, "bckg": 320},
    }
    # SzCORE: 2 reference events (50 s apart are merged: < 90 s) -> 1 event, not detected
    assert res["szcore"]["ref_events"] == 1
    assert res["szcore"]["tp"] == 0 and res["szcore"]["fp"] == 0
    assert res["szcore"]["sensitivity"] == 0.0


def test_all_seizure_file():
    # one seizure covering the whole 30 s file, detected exactly: no bckg event at all
    res = score_pairs([(ann(30.0, [(0, 30)]), ann(30.0, [(0, 30)]))])
    assert counts(res, "ovlp", "seiz") == (1, 1, 0, 0)
    assert counts(res, "ovlp", "bckg") == (0, 0, 0, 0)
    assert res["ovlp"]["seiz"]["sensitivity"] == 100.0
    assert res["ovlp"]["bckg"]["sensitivity"] is None
    # NEDC divides the summary F1 by the last label's (bckg) precision + sensitivity,
    # which is 0 here, so it reports 0 even for a perfect detection
    assert res["ovlp"]["total"]["f1"] == 0.0
    assert res["epoch"]["confusion"]["seiz"]["seiz"] == 120  # 30 s / 0.25 s


def test_multiple_hypotheses_on_one_reference():
    # ref: b[0,10] s[10,50] b[50,100]
    # hyp: b[0,12] s[12,20] b[20,30] s[30,40] b[40,45] s[45,60] b[60,100]
    res = score_pairs([(ann(100.0, [(10, 50)]), ann(100.0, [(12, 20), (30, 40), (45, 60)]))])
    # OVLP: the ref seizure is one hit; no hyp seizure is a false alarm (all overlap it);
    # hyp b[20,30] and b[40,45] overlap no ref bckg -> 2 bckg false alarms
    assert counts(res, "ovlp", "seiz") == (1, 1, 0, 0)
    assert counts(res, "ovlp", "bckg") == (2, 2, 0, 2)
    # TAES on the seizure (length 40): s[12,20] inside -> hit 8/40; s[30,40] inside ->
    # +10/40; s[45,60] runs past the end -> hit (50-45)/40 = 0.125, fa 10/40 = 0.25.
    # hits 0.2 + 0.25 + 0.125 = 0.575, misses 1 - 0.575 = 0.425, fa 0.25
    assert approx_counts(res, "taes", "seiz") == (1, 0.575, 0.425, 0.25)
    # bckg: b[0,10] vs b[0,12]: hit 1, fa 2/10; b[50,100] vs b[60,100]: hit 40/50 = 0.8,
    # miss 0.2; hyp b[20,30], b[40,45] unused -> 2 whole false alarms
    assert approx_counts(res, "taes", "bckg") == (2, 1.8, 0.2, 2.2)
    assert res["files"][0]["taes"] == pytest.approx([2.375, 0.625, 2.45])
    # EPOCH: ref seizure 160 epochs, hyp seizure epochs inside it 32 + 40 + 20 = 92;
    # hyp s[50,60] = 40 bckg epochs called seiz
    assert res["epoch"]["confusion"] == {
        "seiz": {"seiz": 92, "bckg": 68},
        "bckg": {"seiz": 40, "bckg": 200},
    }


def test_one_hypothesis_over_two_references():
    # ref: b[0,10] s[10,20] b[20,30] s[30,40] b[40,60]; hyp: b[0,5] s[5,45] b[45,60]
    res = score_pairs([(ann(60.0, [(10, 20), (30, 40)]), ann(60.0, [(5, 45)]))])
    # OVLP: both seizures hit by the one hyp; ref b[20,30] has no hyp bckg on it -> miss
    assert counts(res, "ovlp", "seiz") == (2, 2, 0, 0)
    assert counts(res, "ovlp", "bckg") == (3, 2, 1, 0)
    # TAES: s[5,45] covers s[10,20]: hit 1, fa min((25 + 5)/10, 1) = 1; it also covers
    # s[30,40], which NEDC counts as a whole miss -> seiz hits 1, misses 1, fa 1
    assert approx_counts(res, "taes", "seiz") == (2, 1, 1, 1)
    # bckg: b[0,10] vs b[0,5]: hit 0.5 miss 0.5; b[40,60] vs b[45,60]: hit 0.75 miss 0.25;
    # b[20,30] untouched: whole miss -> hits 1.25, misses 1.75
    assert approx_counts(res, "taes", "bckg") == (3, 1.25, 1.75, 0)


def test_taes_fractions_and_rates():
    # ref seiz [10,20] (10 s), hyp seiz [15,25]: hyp starts inside and stops 5 s late:
    # hit (20-15)/10 = 0.5, miss 0.5, false alarm 5/10 = 0.5
    res = score_pairs([(ann(40.0, [(10, 20)]), ann(40.0, [(15, 25)]))])
    seiz = res["taes"]["seiz"]
    assert (seiz["hits"], seiz["misses"], seiz["false_alarms"]) == pytest.approx((0.5, 0.5, 0.5))
    assert seiz["sensitivity"] == pytest.approx(50.0)
    assert seiz["precision"] == pytest.approx(50.0)
    assert seiz["fa_per_24h"] == pytest.approx(0.5 / 40.0 * 86400)  # 1080 per day
    # a hypothesis covering the reference and 2 x 10 s around it: hit 1, fa capped at 1
    res = score_pairs([(ann(40.0, [(10, 20)]), ann(40.0, [(0, 30)]))])
    seiz = res["taes"]["seiz"]
    assert (seiz["hits"], seiz["misses"], seiz["false_alarms"]) == pytest.approx((1, 0, 1))


def test_taes_whole_second_overlap_quirk():
    # NEDC's TAES tests overlap on whole seconds (int(start)..int(stop)), so a hypothesis
    # that starts 0.5 s after the reference stops still "overlaps" it once another
    # hypothesis truly does: ref [10.5, 20.2] (9.7 s); hyp [15, 20.1] inside -> hit 5.1/9.7;
    # hyp [20.7, 30] -> hit (20.2 - 20.7)/9.7 (negative), fa min(9.8/9.7, 1) = 1
    res = score_pairs([(ann(40.0, [(10.5, 20.2)]), ann(40.0, [(15, 20.1), (20.7, 30)]))])
    seiz = res["taes"]["seiz"]
    hit = 5.1 / 9.7 + (20.2 - 20.7) / 9.7
    assert seiz["hits"] == pytest.approx(hit)
    assert seiz["misses"] == pytest.approx(1 - hit)
    assert seiz["false_alarms"] == pytest.approx(1.0)


def test_events_past_the_end_are_clipped():
    # ref seizure [50,70] in a 60 s file is clipped to [50,60]; [80,90] is dropped
    ref = ann(60.0, [(50, 70), (80, 90)])
    res = score_pairs([(ref, ann(60.0, [(55, 65)]))])
    assert counts(res, "ovlp", "seiz") == (1, 1, 0, 0)
    assert res["total_duration_s"] == 60.0
    # EPOCH: ref seiz (50, 60] = 40 epochs, hyp seiz (55, 60] = 20 of them
    assert res["epoch"]["confusion"]["seiz"] == {"seiz": 20, "bckg": 20}


def test_epoch_sampling_at_quarter_seconds():
    # 4 s file -> 16 samples at 0.125, 0.375, ..., 3.875
    res = score_pairs([(ann(4.0, [(1.0, 2.0)]), ann(4.0, [(1.1, 2.0)]))])
    # ref seiz holds samples 1.125 .. 1.875 (4); hyp [1.1, 2.0] holds the same 4
    assert res["epoch"]["confusion"] == {
        "seiz": {"seiz": 4, "bckg": 0},
        "bckg": {"seiz": 0, "bckg": 12},
    }
    # hyp [1.13, 2.0] misses the sample at 1.125
    res = score_pairs([(ann(4.0, [(1.0, 2.0)]), ann(4.0, [(1.13, 2.0)]))])
    assert res["epoch"]["confusion"]["seiz"] == {"seiz": 3, "bckg": 1}
    # a sample on a boundary belongs to the earlier event: ref seiz [1.125, 2.0] holds
    # only 1.375, 1.625, 1.875
    res = score_pairs([(ann(4.0, [(1.125, 2.0)]), ann(4.0, [(1.125, 2.0)]))])
    assert res["epoch"]["confusion"]["seiz"]["seiz"] == 3
    # the sample at t == duration is included: a 4.125 s file has 17 samples
    res = score_pairs([(ann(4.125, []), ann(4.125, []))])
    assert res["epoch"]["confusion"]["bckg"]["bckg"] == 17
    # EPOCH false-alarm rate counts epochs of 0.25 s: 1 false epoch in 4 s
    res = score_pairs([(ann(4.0, []), ann(4.0, [(3.8, 4.0)]))])
    assert res["epoch"]["seiz"]["fp"] == 1
    assert res["epoch"]["seiz"]["fa_per_24h"] == pytest.approx(0.25 / 4.0 * 86400)


def test_subtypes_score_as_seizures():
    ref = Annotation(None, [Event(10, 20, "fnsz"), Event(30, 40, "gnsz")], 60.0)
    res = score_pairs([(ref, ann(60.0, [(10, 20), (30, 40)]))])
    assert counts(res, "ovlp", "seiz") == (2, 2, 0, 0)


# ------------------------------------------------------------------ errors


def test_errors():
    with pytest.raises(RtEegError, match="nothing to score"):
        score_pairs([])
    with pytest.raises(RtEegError, match=r"ends at 60.0000 s but hypothesis hyp.csv_bi ends at 59"):
        score_pairs(
            [(ann(60.0, [], path=Path("ref.csv_bi")), ann(59.0, [], path=Path("hyp.csv_bi")))]
        )
    with pytest.raises(RtEegError, match="overlapping events") as err:
        score_pairs([(ann(60.0, [(10, 30), (20, 40)], path=Path("r.csv_bi")), ann(60.0, []))])
    assert err.value.path == "r.csv_bi"
    with pytest.raises(RtEegError, match="unknown label 'artf'"):
        score_pairs([(ann(60.0, [(10, 30)], label="artf"), ann(60.0, []))])
    with pytest.raises(RtEegError, match="2 reference files but 1 hypothesis"):
        score_files(["a.csv_bi", "b.csv_bi"], ["a.csv_bi"])


# ------------------------------------------------------------------ real TUSZ annotations


def _sample(shared_dir: Path) -> list[Path]:
    return sorted((shared_dir / "data" / "tusz_v2_sample").rglob("*.csv_bi"))


def test_tusz_sample_against_itself(shared_dir):
    files = _sample(shared_dir)
    res = score_files(files, files)
    assert res["n_files"] == 186
    # 229 seizures (data README), none of them touching another
    for method in ("ovlp", "taes"):
        assert res[method]["seiz"]["targets"] == 229
        assert res[method]["seiz"]["sensitivity"] == pytest.approx(100.0)
        assert res[method]["total"]["false_alarms"] == 0
        assert res[method]["total"]["fa_per_24h"] == 0.0
    assert res["epoch"]["seiz"]["sensitivity"] == 100.0
    assert res["epoch"]["confusion"]["seiz"]["bckg"] == 0
    assert res["epoch"]["confusion"]["bckg"]["seiz"] == 0
    total = sum(read_csv_bi(p).duration for p in files)
    assert res["total_duration_s"] == pytest.approx(total)
    assert total / 3600 == pytest.approx(30.1, abs=0.05)
    assert res["szcore"]["sensitivity"] == 100.0 and res["szcore"]["fp"] == 0


def test_tusz_sample_shifted_by_one_second(shared_dir, tmp_path):
    # Every seizure in the sample lasts >= 3.6 s, is >= 3.1 s from the next and ends
    # >= 1.4 s before the end of its file, so a +1 s shift keeps every seizure inside
    # its file and apart from its neighbours.
    files = _sample(shared_dir)
    hyps = []
    lengths = []
    for i, src in enumerate(files):
        a = read_csv_bi(src)
        seiz = [e for e in a.events if e.label == "seiz"]
        lengths += [e.stop - e.start for e in seiz]
        shifted = [Event(e.start + 1.0, e.stop + 1.0, "seiz") for e in seiz]
        out = tmp_path / f"{i:03d}_{src.name}"
        write_csv_bi(out, shifted, a.duration)
        hyps.append(out)
    n = len(lengths)
    assert n == 229
    base = score_files(files, files)
    res = score_files(files, hyps)
    # OVLP: each shifted seizure still overlaps its reference, every background gap still
    # overlaps its shifted gap -> all hits, no false alarms
    assert counts(res, "ovlp", "seiz") == (229, 229, 0, 0)
    assert res["ovlp"]["bckg"]["misses"] == 0
    assert res["ovlp"]["total"]["false_alarms"] == 0
    # TAES per seizure of length L: hit (L - 1)/L, miss 1/L, false alarm 1/L
    seiz = res["taes"]["seiz"]
    assert seiz["hits"] == pytest.approx(sum(1 - 1 / length for length in lengths))
    assert seiz["misses"] == pytest.approx(sum(1 / length for length in lengths))
    assert seiz["false_alarms"] == pytest.approx(sum(1 / length for length in lengths))
    # EPOCH: a reference seizure holds the samples in (start, stop]; shifting by 1 s
    # moves exactly 4 samples (0.25 s apart) out at its start and 4 in after its stop
    conf, conf0 = res["epoch"]["confusion"], base["epoch"]["confusion"]
    assert conf["seiz"]["bckg"] == 4 * n
    assert conf["bckg"]["seiz"] == 4 * n
    assert conf["seiz"]["seiz"] == conf0["seiz"]["seiz"] - 4 * n
    assert res["epoch"]["seiz"]["fa_per_24h"] == pytest.approx(
        4 * n * 0.25 / res["total_duration_s"] * 86400
    )
    # SzCORE: a 1 s shift is within the 30 s / 60 s tolerances
    assert res["szcore"]["sensitivity"] == 100.0 and res["szcore"]["fp"] == 0


# ------------------------------------------------------------------ NEDC v6.0.0 reference outputs
#
# nedc_eeg_eval v6.0.0 ships a test set (data/csv/{ref,hyp}, 30 TUSZ files) and its printed
# results (test/results/summary*.txt). Three of its references are files of our TUSZ sample;
# their hypotheses (3 to 5 events) are copied below. Expected per-file values are NEDC's
# printed ones: OVLP "(Hit: 55  Miss: 50  False Alarms: 0)", TAES "(Hit: 4.9346 ...)",
# EPOCH "(Hit: 55  Sub: 54  Ins: 0  Del: 0)".

NEDC_FILES = {
    # bname: (duration, hyp seizures, OVLP, TAES, EPOCH hit/sub)
    "aaaaapks_s012_t001": (
        2348.0,
        [(39, 1942), (2027, 2217)],
        (55, 50, 0),
        (4.9346, 100.0654, 3.9014),
        (55, 54),
    ),
    "aaaaapks_s016_t001": (829.0, [(39, 790)], (35, 32, 0), (2.0808, 64.9192, 3.0000), (35, 34)),
    "aaaaapks_s016_t002": (601.0, [(39, 562)], (22, 19, 0), (2.2687, 38.7313, 3.0000), (21, 21)),
}

# Three more pairs of the NEDC test set (not in our sample), reference seizures and
# hypothesis seizures as in its csv_bi files.
NEDC_EXTRA = {
    "aaaaaooo_s001_t000": (
        1568.0,
        [(0.0, 28.0752), (58.7810, 79.9535), (88.0133, 102.9801), (108.0575, 125.9779),
         (139.0221, 192.0531), (198.0752, 214.0376), (221.0288, 229.0597), (259.0398, 280.0465),
         (348.0022, 383.6770), (398.0487, 410.9912), (463.0111, 471.0420), (487.0111, 496.0708),
         (544.0288, 553.0553), (696.9934, 708.9735), (1379.0354, 1392.0774),
         (1396.0531, 1415.0022), (1551.0465, 1567.4071)],
        [(39, 189), (326, 346), (512, 552)],
        (19, 15, 1),
        (5.2389, 28.7611, 6.9143),
        (20, 20),
    ),
    "aaaaarvi_s001_t000": (
        2464.0,
        [(158.9423, 164.4084), (259.0139, 277.9650), (391.0294, 396.0377), (547.9206, 554.6770),
         (681.9978, 696.0100), (715.0572, 724.1998), (866.0416, 888.9745), (1035.0649, 1043.0838),
         (1191.8801, 1201.0782), (1313.0105, 1321.9728), (1522.0694, 1542.0749),
         (1573.0072, 1583.5372), (1685.9978, 1705.1432)],
        [(683, 724), (863, 1042), (1299, 1319), (1524, 1584)],
        (18, 9, 0),
        (8.4743, 18.5257, 6.7531),
        (18, 17),
    ),
    "aaaaates_s007_t000": (
        3600.0,
        [(1754.0221, 1791.0907), (1860.9823, 1881.0597), (1913.9336, 1925.0177),
         (1958.0221, 1978.0332), (2185.0066, 2193.9668), (2206.0133, 2216.0686),
         (2446.9889, 2455.0531), (2471.0288, 2477.5332), (2516.9513, 2529.0642),
         (2585.0398, 2628.4801), (2934.0077, 2940.9934), (3064.0763, 3086.0122),
         (3093.0299, 3107.0343), (3111.9823, 3128.0111), (3498.0111, 3506.0254)],
        [(1246, 1342), (1684, 1776), (2447, 2626)],
        (18, 13, 1),
        (4.4969, 26.5031, 5.0000),
        (19, 17),
    ),
}  # fmt: skip


def _check_per_file(res, expected):
    for f, (ovlp, taes, epoch) in zip(res["files"], expected, strict=True):
        assert tuple(f["ovlp"]) == ovlp
        assert [round(x, 4) for x in f["taes"]] == pytest.approx(list(taes), abs=1e-9)
        assert tuple(f["epoch"][:2]) == epoch
        assert f["epoch"][2:] == [0, 0]


def test_matches_nedc_per_file_results_on_tusz_sample(shared_dir, tmp_path):
    refs, hyps, expected = [], [], []
    for bname, (dur, hyp_seiz, ovlp, taes, epoch) in NEDC_FILES.items():
        ref = next((shared_dir / "data" / "tusz_v2_sample").rglob(f"{bname}.csv_bi"))
        hyp = tmp_path / f"{bname}.csv_bi"
        write_csv_bi(hyp, [Event(a, b, "seiz") for a, b in hyp_seiz], dur)
        refs.append(ref)
        hyps.append(hyp)
        expected.append((ovlp, taes, epoch))
    _check_per_file(score_files(refs, hyps), expected)


def test_matches_nedc_per_file_results_on_reference_test_set():
    pairs, expected = [], []
    for dur, ref_seiz, hyp_seiz, ovlp, taes, epoch in NEDC_EXTRA.values():
        pairs.append((ann(dur, ref_seiz), ann(dur, hyp_seiz)))
        expected.append((ovlp, taes, epoch))
    _check_per_file(score_pairs(pairs), expected)


def test_matches_nedc_summary_measures():
    # NEDC's printed totals for its 30-file test set (summary.txt), recomputed from the
    # printed counts: OVLP seiz 701 targets / 604 hits / 97 misses / 2 false alarms, bckg
    # 730 / 182 / 548 / 0; EPOCH confusion [[68142, 8278], [47354, 57334]]; 45277 s.
    ovlp = finish(
        event_tables(
            {
                "seiz": {"targets": 701, "hits": 604, "misses": 97, "false_alarms": 2},
                "bckg": {"targets": 730, "hits": 182, "misses": 548, "false_alarms": 0},
            }
        ),
        45277.0,
    )
    printed = {
        "seiz": {"sensitivity": 86.1626, "specificity": 98.9130, "precision": 99.6700,
                 "npv": 65.2330, "accuracy": 88.8136, "prevalence": 79.2090, "f1": 0.9243,
                 "mcc": 0.7431, "fa_per_24h": 3.8165},
        "bckg": {"sensitivity": 24.9315, "npv": 52.4306, "accuracy": 58.9205,
                 "prevalence": 54.7226, "f1": 0.3991, "mcc": 0.3615},
        "total": {"sensitivity": 54.9266, "accuracy": 70.8427, "prevalence": 64.4885,
                  "f1": 0.8771, "mcc": 0.5467, "fa_per_24h": 3.8165},
    }  # fmt: skip
    for label, values in printed.items():
        for key, value in values.items():
            assert round(ovlp[label][key], 4) == pytest.approx(value, abs=1e-9), (label, key)
    epoch = epoch_tables(
        {"seiz": {"seiz": 68142, "bckg": 8278}, "bckg": {"seiz": 47354, "bckg": 57334}}, 45277.0
    )
    printed = {
        "seiz": {"sensitivity": 89.1678, "specificity": 54.7665, "precision": 58.9994,
                 "f1": 0.7101, "mcc": 0.4514, "fa_per_24h": 22590.8607, "false_alarms": 47354},
        "bckg": {"f1": 0.6733, "fa_per_24h": 3949.1309, "false_alarms": 0, "deletions": 0},
        "total": {"sensitivity": 69.2824, "prevalence": 50.0, "f1": 0.6754, "mcc": 0.3856,
                  "fa_per_24h": 26539.9916, "total_false_alarms": 55632},
    }  # fmt: skip
    for label, values in printed.items():
        for key, value in values.items():
            assert round(epoch[label][key], 4) == pytest.approx(value, abs=1e-9), (label, key)


# ------------------------------------------------------------------ list files and CLI


def _write_pair(folder: Path, name: str, ref_seiz, hyp_seiz, duration=100.0):
    (folder / "ref").mkdir(exist_ok=True)
    (folder / "hyp").mkdir(exist_ok=True)
    write_csv_bi(folder / "ref" / name, [Event(a, b, "seiz") for a, b in ref_seiz], duration)
    write_csv_bi(folder / "hyp" / name, [Event(a, b, "seiz") for a, b in hyp_seiz], duration)


def _score_lists(folder: Path, ref: str, hyp: str, *extra: str) -> int:
    """``rt-eeg score`` on list files written with ``ref`` / ``hyp`` as their text: the exit code."""
    (folder / "ref.list").write_text(ref)
    (folder / "hyp.list").write_text(hyp)
    argv = ["score", "--ref-list", str(folder / "ref.list"), "--hyp-list", str(folder / "hyp.list")]
    return main([*argv, *extra])


def test_read_file_list(tmp_path):
    (tmp_path / "sub").mkdir()
    lst = tmp_path / "sub" / "ref.list"
    lst.write_text("# comment\n\nref/a.csv_bi\n  /abs/b.csv_bi  \n")
    assert read_file_list(lst) == [tmp_path / "sub" / "ref" / "a.csv_bi", Path("/abs/b.csv_bi")]
    lst.write_text("# nothing\n")
    with pytest.raises(RtEegError, match="names no annotation files"):
        read_file_list(lst)


def test_cli_json_and_out(tmp_path, capsys):
    _write_pair(tmp_path, "a.csv_bi", [(10, 20)], [(12, 18)])
    _write_pair(tmp_path, "b.csv_bi", [], [(50, 60)])
    out = tmp_path / "results"
    code = _score_lists(
        tmp_path,
        "ref/a.csv_bi\nref/b.csv_bi\n",
        "# hypotheses\nhyp/a.csv_bi\n\nhyp/b.csv_bi\n",
        "--json",
        "--out",
        str(out),
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert {"ovlp", "taes", "epoch", "szcore", "total_duration_s", "n_files"} <= set(data)
    assert data["n_files"] == 2
    assert data["total_duration_s"] == 200.0
    # a: seizure hit; b: the hyp seizure [50,60] is a false alarm
    assert (data["ovlp"]["seiz"]["hits"], data["ovlp"]["seiz"]["false_alarms"]) == (1, 1)
    assert json.loads((out / "scores.json").read_text()) == data
    summary = (out / "summary.txt").read_text()
    assert "NEDC OVERLAP SCORING SUMMARY" in summary and "SZCORE" in summary


def test_cli_text_output(tmp_path, capsys):
    _write_pair(tmp_path, "a.csv_bi", [(10, 20)], [(10, 20)])
    code = _score_lists(tmp_path, "ref/a.csv_bi\n", "hyp/a.csv_bi\n")
    assert code == 0
    text = capsys.readouterr().out
    assert "Sensitivity (TPR, Recall):     100.0000%" in text


def test_cli_mismatched_lists_exit_2(tmp_path, capsys):
    _write_pair(tmp_path, "a.csv_bi", [(10, 20)], [(10, 20)])
    code = _score_lists(tmp_path, "ref/a.csv_bi\nref/a.csv_bi\n", "hyp/a.csv_bi\n")
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "2 reference files but 1 hypothesis files" in err
    assert "Traceback" not in err


def test_cli_bad_file_names_it(tmp_path, capsys):
    _write_pair(tmp_path, "a.csv_bi", [(10, 20)], [(10, 20)])
    bad = tmp_path / "hyp" / "a.csv_bi"
    bad.write_text(bad.read_text() + "TERM,30.0000,20.0000,seiz,1.0000\n")
    code = _score_lists(tmp_path, "ref/a.csv_bi\n", "hyp/a.csv_bi\n")
    assert code == 2
    err = capsys.readouterr().err
    assert f"{bad}: line 8: start time 30.0 is not before stop time 20.0" in err
