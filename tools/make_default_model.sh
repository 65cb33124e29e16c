#!/usr/bin/env bash
# The recipe for models/default: what it is trained on, how it is chosen, what it is scored on.
# Run from the repository root with the project's venv active (make test creates it).
#
# Whole signal FAMILIES are held out (rt_eeg/sim/families.py), in three disjoint roles:
#   TRAIN   families the model learns from (corpora A and B);
#   SELECT  families never trained on, used for every choice: early stopping, the variant
#           (onset weighting, hard negatives) and the postprocessor's operating point (S, S2);
#   REPORT  families used for nothing but the reported "unseen families" figures (U, U2).
# Corpus O is the own-distribution check (TRAIN families, patients never seen).
#
#   A: 32 h, 14 patients          TRAIN families only
#   A3: 16 h, 8 patients          TRAIN families and the clinical artifacts (percussion, pulse,
#                                 glossokinetic), which no other corpus holds
#   B: the real TUSZ v2 sample annotation tree (../shared/data/tusz_v2_sample) mirrored with
#      simulated signal: 30 h, real seizure times, montages and rates; TRAIN families only
#   S: 12 h, 6 new patients       seizures of SELECT families only; SELECT + TRAIN others
#   S2: 16 h, 24 new patients     the same roles as S; the operating point is tuned on S + S2
#                                 (36 seizures: S alone, 11, made the operating point coarse)
#   U: 16 h, 8 new patients       seizures of REPORT families only; REPORT + TRAIN others
#   U2: 16 h, 8 new patients      the same roles as U, another seed (reported beside U)
#   O: 10 h, 6 new patients       TRAIN families only
#   O2: 30 h, 18 new patients     drawn like O (protocol amendment 37); the gate is O + O2
#   R: 24 h, 12 new patients      REPORT2: the fresh families (hypnagogic, mu, lambda, phantom
#                                 spike-wave, photic; rt_eeg/sim/fresh_families.py) + TRAIN others,
#                                 seizures of REPORT families; reported, never used for a choice
#   OD: 30 h, 18 new patients     drawn like O2 (amendment 72): our own distribution for the
#                                 operating point's choice only (O + O2 stay the gate)
#   AL: 12 h, 6 patients          TRAIN (amendment 60): every seizure low-voltage fast, TRAIN others
#
# Real EEG nobody on the team made (tools/real_checks.py): CHB-MIT ictal vs pre-ictal of
# patient chb01 can veto a variant that ranks pre-ictal EEG above seizures (AUC < 0.5);
# patient chb03, the TUH background recordings and the Bonn sets choose nothing.
# On a fresh 2-core machine (2026-11-28, beside other work): our corpora 17 min, the independent
# generators' 47 min, the feature store 10 min, training 105 s, the SELECT v2 decodes and tuning
# 21 min, then the held-out evaluations (about 25 min idle).
# On an AMD EPYC (Zen 4 class, 2026-11-29, idle): every corpus, the store and seed 3 in 37 min
# (another, 2026-12-01: 31 min, seed 3 9d039a62de34 again, as on the first).
# On a fresh Intel Xeon (2026-11-30, idle): the same in 40 min, seed 3's weights the pinned 9cd04bed2da2.
# K53's steps after it (2026-11-30, Intel Xeon): AL about 2 min, its store (storeX5L, 17 GB,
# reusing storeX5) 2 min, training 143 s, the SELECT v2 and OD decodes about 9 min, the
# held-out decodes about 30 min; seed 15's weights 6e2e6871a441.
set -euo pipefail
# One numeric environment on every x86-64 machine (README "Reproducibility across CPUs"): numpy's
# SIMD level and OpenBLAS's kernels move the simulated corpora, oneDNN's the training; all three
# are held to what an AVX2 machine computes. RT_EEG_NATIVE_ISA=1 keeps this CPU's own.
[ -n "${RT_EEG_NATIVE_ISA:-}" ] || eval "$(python -m rt_eeg.numeric_env --avx2-exports)"
WORK=${WORK:-/work/sim/recipe}
SHARED=${SHARED:-../shared/data/tusz_v2_sample}
OUT=${OUT:-models/default}
# shellcheck source=tools/select_v2.sh
source "$(dirname "$0")/select_v2.sh"
# The comparisons that chose this recipe (window-only against background-relative inputs,
# 2026-11-22; a wider training set, 2026-11-23; the cross-generator round of 2026-11-25,
# tools/xgen_round.sh) are in the README, not re-run here.
# shellcheck source=tools/sim_roles.sh
source "$(dirname "$0")/sim_roles.sh"

mkdir -p "$WORK"
sim() { [ -f "$1/.done" ] || { rt-eeg simulate --out "$@" && touch "$1/.done"; }; }
sim "$WORK/A" --hours 32 --patients 14 --seed 21 \
  --exclude-families "$SELECT_SEIZ,$REPORT_SEIZ,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
sim "$WORK/A3" --hours 16 --patients 8 --seed 33 \
  --exclude-families "$SELECT_SEIZ,$REPORT_SEIZ,$SELECT_OTHER,$REPORT_OTHER,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
sim "$WORK/B" --from-annotations "$SHARED" --seed 22 \
  --exclude-families "$SELECT_SEIZ,$REPORT_SEIZ,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
sim "$WORK/S" --hours 12 --patients 6 --seed 23 \
  --exclude-families "$TRAIN_SEIZ,$REPORT_SEIZ,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
sim "$WORK/S2" --hours 16 --patients 24 --seed 28 \
  --exclude-families "$TRAIN_SEIZ,$REPORT_SEIZ,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
sim "$WORK/U" --hours 16 --patients 8 --seed 24 \
  --exclude-families "$TRAIN_SEIZ,$SELECT_SEIZ,$SELECT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
sim "$WORK/U2" --hours 16 --patients 8 --seed 31 \
  --exclude-families "$TRAIN_SEIZ,$SELECT_SEIZ,$SELECT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
sim "$WORK/O" --hours 10 --patients 6 --seed 25 --exclude-families "$OWN_EXCLUDE"
# O2 (protocol amendment 37): drawn like O, 18 more patients; the own-distribution gate is O + O2
sim "$WORK/O2" --hours 30 --patients 18 --seed 71 --exclude-families "$OWN_EXCLUDE"
# R: 24 h, 12 new patients, seizures of REPORT families; others: the fresh REPORT2 families
# and TRAIN others (REPORT2 is held out of every other corpus)
sim "$WORK/R" --hours 24 --patients 12 --seed 41 \
  --exclude-families "$TRAIN_SEIZ,$SELECT_SEIZ,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
for c in A A3 B S S2 U U2 O O2 R; do find "$WORK/$c/edf" -name '*.edf' | sort > "$WORK/$c.list"; done
cat "$WORK/A.list" "$WORK/A3.list" "$WORK/B.list" > "$WORK/train.list"
cat "$WORK/S.list" "$WORK/S2.list" > "$WORK/SS.list"

# Independently written generators (rt_eeg/xsim; tools/results/xgen_protocol.md), roles by lot
# and by the protocol's amendments: TRAIN dip (XT1), spec (XT2), epileptor (XE), hopf (XH);
# SELECT v2 (amendment 23) nmm (XS), mvar (XC + XCB = XCC), simple (XT3), atoms (XT4); REPORT
# atlas (XR, and XRB at the real TUSZ v2 sample's seizure times) and tide (XTD). XEB and XHB
# (epileptor and hopf at real TUSZ times) are reported as generators the model trains on.
xsim() { [ -f "$1/.done" ] || { rt-eeg simulate --out "$@" --workers 2 && touch "$1/.done"; }; }
xsim "$WORK/XT1" --generator dip --hours 24 --patients 12 --seed 51
xsim "$WORK/XT2" --generator spec --hours 24 --patients 12 --seed 52
xsim "$WORK/XS" --generator nmm --hours 16 --patients 12 --seed 53
xsim "$WORK/XR" --generator atlas --hours 16 --patients 12 --seed 54
xsim "$WORK/XRB" --generator atlas --from-annotations "$SHARED" --seed 55
xsim "$WORK/XT3" --generator simple --hours 24 --patients 12 --seed 56
xsim "$WORK/XT4" --generator atoms --hours 24 --patients 12 --seed 57
xsim "$WORK/XC" --generator mvar --hours 16 --patients 12 --seed 58
xsim "$WORK/XCB" --generator mvar --from-annotations "$SHARED" --seed 59
xsim "$WORK/XE" --generator epileptor --hours 16 --patients 12 --seed 60
xsim "$WORK/XEB" --generator epileptor --from-annotations "$SHARED" --seed 61
xsim "$WORK/XH" --generator hopf --hours 16 --patients 12 --seed 62
xsim "$WORK/XHB" --generator hopf --from-annotations "$SHARED" --seed 63
xsim "$WORK/XTD" --generator tide --hours 16 --patients 12 --seed 61
for c in XT1 XT2 XS XR XRB XT3 XT4 XC XCB XE XEB XH XHB XTD; do
  find "$WORK/$c/edf" -name '*.edf' | sort > "$WORK/$c.list"
done
cat "$WORK/train.list" "$WORK/XT1.list" "$WORK/XT2.list" "$WORK/XE.list" "$WORK/XH.list" > "$WORK/trainX5.list"
cat "$WORK/S.list" "$WORK/XS.list" > "$WORK/SXS.list"
cat "$WORK/S.list" "$WORK/S2.list" "$WORK/XS.list" > "$WORK/SEL.list"
cat "$WORK/XC.list" "$WORK/XCB.list" > "$WORK/XCC.list"

# K15's recipe (protocol amendments 27 and 29), seed 3: the default from 2026-11-26 to the ship
# of K53, and still the protocol's pinned reference (xgen_round.sh repro5_ready checks its
# weights); its store storeX5 is the one K53's reuses. Six epochs, the last kept; every epoch's
# seizure and background halves split equally between five sources (our simulator, dip, spec,
# epileptor, hopf), the hard-negative candidates too.
MODEL="$WORK/model"
[ -f "$MODEL/manifest.json" ] ||
  rt-eeg train --corpus "$WORK/trainX5.list" --dev-corpus "$WORK/SXS.list" --out "$MODEL" --seed 3 \
    --arch frame_lstm:context:3:0.5 --keep last --epochs 6 --store "$WORK/storeX5" \
    --balance-sources A+A3+B,XT1,XT2,XE,XH --balance-mining
# REBUILD_ONLY=1: a fresh machine's rebuild for tools/xgen_round.sh (corpora, storeX5, K15's seed 3;
# then `xgen_round.sh repro5_ready`), models/default untouched
if [ -n "${REBUILD_ONLY:-}" ]; then echo "rebuilt $WORK: corpora, storeX5, $MODEL"; exit 0; fi

# AL (amendment 60): 12 h of our simulator whose 15 seizures are all low-voltage fast (a REPORT
# family until then), TRAIN others as in A; trainX5L = trainX5 + AL
sim "$WORK/AL" --hours 12 --patients 6 --seed 91 --exclude-families \
  "$TRAIN_SEIZ,$SELECT_SEIZ,polyspike,muscle_obscured,rhythmic_alpha,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
find "$WORK/AL/edf" -name '*.edf' | sort > "$WORK/AL.list"
cat "$WORK/trainX5.list" "$WORK/AL.list" > "$WORK/trainX5L.list"
# K53 (pilot 93, adopted by amendment 94 on six fresh seeds against K15): K15's recipe on trainX5L
# with AL balanced as a sixth source, and a squared hinge on background logits above logit(0.99)
# (--background-hinge 0.99:1). SEED: the seed amendment 94's gates passed.
# RECIPE=k66 (amendment 127's candidate): K53 with the hard-background pool drawn 16x over
# (--hard-pool 16, against 4). Names below carry the recipe (model_k53s15, op_k53s15_*, ...).
SEED=${SEED:-15}
RECIPE=${RECIPE:-k53}
case $RECIPE in
  k53) RECIPE_OPTS=() ;;
  k66) RECIPE_OPTS=("${K66_OPTS[@]}") ;;
  *) echo "make_default_model.sh: RECIPE=$RECIPE: not a shipped recipe (k53, k66)" >&2; exit 2 ;;
esac
CAND="$WORK/model_${RECIPE}s$SEED"  # the candidate, whichever recipe
[ -f "$CAND/manifest.json" ] ||
  rt-eeg train --corpus "$WORK/trainX5L.list" --dev-corpus "$WORK/SXS.list" --out "$CAND" --seed "$SEED" \
    --arch frame_lstm:context:3:0.5 --keep last --epochs 6 --store "$WORK/storeX5L" \
    --balance-sources A+A3+B,AL,XT1,XT2,XE,XH --balance-mining --reuse-store "$WORK/storeX5" \
    --background-hinge 0.99:1 "${RECIPE_OPTS[@]}"
# real-EEG veto on one CHB-MIT patient (chb01; chb03 is held out): stop if AUC < 0.5
python tools/real_checks.py --model "$CAND" --no-bonn --out "$WORK/rc_model_$RECIPE.json"
python -c "import json,sys; a=json.load(open(sys.argv[1]))['chbmit']['patients']['chb01']['patient_context']['auc']; sys.exit(0 if a >= 0.5 else 3)" "$WORK/rc_model_$RECIPE.json"

# The operating point, chosen as every candidate since protocol amendment 72 (xgen_round.sh
# judge_od): the SELECT v2 voices (our S + S2, nmm, mvar, simple, atoms, weighed equally) and OD
# (our own distribution, 30 h, for choices only) decoded with K6's point in the model's folder;
# the strict grid at hysteresis ratios 0.5 / 0.8 / 0.95 under the flagged-time limit (no point
# that calls more than twice the reference's seizure time on any voice: amendment 52), the most
# sensitive within a mean of 5 FA/24 h (_sel5f); then chosen over again with OD first: <= 1 FA/24 h
# on OD, then >= 95 % of OD's seizures or the best share any eligible point reaches (_sel5o).
# SEL_EVAL: where those decodes go (a corpus whose report.json exists is not decoded again; a
# folder decoded by a model with other weights is refused).
SEL_EVAL=${SEL_EVAL:-$WORK/evalsel_${RECIPE}s$SEED}
K6_POINT=tools/results/operating_point_k6_macro.toml
cp "$K6_POINT" "$CAND/postprocess.toml"
sim "$WORK/OD" --hours 30 --patients 18 --seed 81 --exclude-families "$OWN_EXCLUDE"
find "$WORK/OD/edf" -name '*.edf' | sort > "$WORK/OD.list"
same_model() {  # EVAL_DIR: refuse a decode made by other weights or another point than $CAND's
  python - "$1/report.json" "$CAND" <<'PY'
import json
import sys

from rt_eeg.config import read_postprocess_toml
from rt_eeg.postprocess import PostprocessConfig

report, model = json.load(open(sys.argv[1])), sys.argv[2]
got = report["model_manifest"]["weights_sha256"]
want = json.load(open(f"{model}/manifest.json"))["weights_sha256"]
if got != want:
    sys.exit(f"{sys.argv[1]}: decoded by weights {got[:12]}..., not {want[:12]}...: remove it or "
             "point SEL_EVAL / HELD_EVAL elsewhere")
if PostprocessConfig().to_dict() | report["postprocess"] != read_postprocess_toml(f"{model}/postprocess.toml").to_dict():
    sys.exit(f"{sys.argv[1]}: decoded at another operating point than {model}/postprocess.toml")
PY
}
# A reused decode must come from $CAND's weights and point. Not rt-eeg evaluate's own run_config
# check: that compares model.keras's bytes, which differ between two trainings of the same
# weights (the archive's metadata), so it would refuse every reused folder.
decode() {  # CORPUS EVAL_DIR [evaluate option...]
  local c=$1 e=$2; shift 2
  [ -f "$e/report.json" ] && same_model "$e"
  J=2 decode_once "$WORK/$c.list" "$CAND" "$e" "$@"
}
for c in $SELECT_V2_DECODED OD; do decode "$c" "${SEL_EVAL}_$c" --feature-cache "$WORK/fcache"; done
J=2 select_v2_tune "$CAND" "$SEL_EVAL" "$WORK/op_${RECIPE}s${SEED}_sel5f.json" "$WORK/op_${RECIPE}s${SEED}_sel5f.toml" \
  --grid strict_off --max-flag-ratio 2 --fixed shipped="$K6_POINT" --quiet
J=2 select_v2_tune "$CAND" "$SEL_EVAL" "$WORK/op_${RECIPE}s${SEED}_sel5o.json" "$WORK/op_${RECIPE}s${SEED}_sel5o.toml" \
  --grid strict_off --max-flag-ratio 2 --fixed shipped="$K6_POINT" --quiet \
  --rechoose "$WORK/op_${RECIPE}s${SEED}_sel5f.json" --bound OD="$WORK/OD.list:${SEL_EVAL}_OD" \
  --max-voice-fa OD=1 --min-voice-sens OD=95
cp "$WORK/op_${RECIPE}s${SEED}_sel5o.toml" "$CAND/postprocess.toml"
# reported, never used for a choice (O + O2 together must be >= 95 % at <= 1 FA/24 h); HELD_EVAL:
# where these decodes at the shipped point go (HELD_EVAL_C)
HELD_EVAL=${HELD_EVAL:-$WORK/eval_${RECIPE}s$SEED}
for c in O O2 U U2 R XR XRB XTD XEB XHB; do decode "$c" "${HELD_EVAL}_$c"; done
# the replaced model's record (candidate rounds, predecessors, its held-out figures) carried over;
# a rebuild of the same weights keeps the record as it is
[ -f "$OUT/manifest.json" ] && python tools/manifest_history.py --old "$OUT/manifest.json" \
  --old-postprocess "$OUT/postprocess.toml" --new "$CAND/manifest.json" \
  --previous-name "${PREVIOUS_NAME:-the default before $(date +%F)}"
for f in model.keras model.tflite features.toml manifest.json data_order.npy postprocess.toml; do
  cp "$CAND/$f" "$OUT/$f"
done
python tools/real_checks.py --model "$OUT"
python tools/model_card.py --model "$OUT" --work "$WORK" --eval-prefix "$HELD_EVAL"
