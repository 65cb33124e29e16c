# The candidate recipes of the cross-generator round (issue #12; protocol:
# tools/results/xgen_protocol.md) from K15's on (amendment 29): each recipe's training command
# for one seed and the TRAIN corpora an amendment added. Sourced by tools/xgen_round.sh (which
# defines sim, xsim and judge53 they call); run one as `bash tools/xgen_round.sh NAME ARG...`.

# K15's recipe (amendment 29) for one explicit seed, OPTIONs added after it (a later option
# wins: `k15x5 k21 0 --epochs 9`); amendments 39-40 pair seeds by number.
# (LIST, STORE: a list and store under $WORK other than trainX5 / storeX5; SOURCES: the
# balanced sources other than K15's five)
k15x5() {  # OUT SEED [option...]
  local out=$1 s=$2; shift 2
  rt-eeg train --corpus "$WORK/${LIST:-trainX5}.list" --dev-corpus "$WORK/SXS.list" \
    --out "$WORK/$out" --seed "$s" --arch frame_lstm:context:3:0.5 --keep last --epochs 6 \
    --store "$WORK/${STORE:-storeX5}" --balance-sources "${SOURCES:-A+A3+B,XT1,XT2,XE,XH}" \
    --balance-mining "$@"
}
# K22 (amendment 41): K20's recipe (tail averaging) with `hawkes` (XK6) as a sixth source
k22x6() {  # OUT SEED [option...]
  local out=$1 s=$2; shift 2
  LIST=trainX6 STORE=storeX6 SOURCES=A+A3+B,XT1,XT2,XE,XH,XK6 \
    k15x5 "$out" "$s" --average-epochs 3 "$@"
}
# A TRAIN corpus an amendment adds: NAME made by SIM (sim or xsim, with its options) and listed,
# and OUT.list = BASE.list + NAME.list
corpus_join() {  # NAME BASE OUT SIM [option...]
  local name=$1 base=$2 out=$3; shift 3
  "$1" "$WORK/$name" "${@:2}"
  find "$WORK/$name/edf" -name '*.edf' | sort > "$WORK/$name.list"
  cat "$WORK/$base.list" "$WORK/$name.list" > "$WORK/$out.list"
}
# K15's recipe on LIST (trainX5 + an amendment's corpora) balanced over SOURCES; its store
# (LIST's name, train -> store) reuses storeX5's features and computes only the added corpora's
k15_joined() {  # LIST SOURCES OUT SEED [option...]
  local list=$1 sources=$2; shift 2
  LIST=$list STORE=${list/train/store} SOURCES=$sources \
    k15x5 "$1" "$2" --reuse-store "$WORK/storeX5" "${@:3}"
}
xk6() {  # the sixth TRAIN corpus and trainX6.list
  corpus_join XK6 trainX5 trainX6 xsim --generator hawkes --hours 16 --patients 12 --seed 72
}
# Amendment 60: AL, 12 h of our simulator whose 15 seizures are all of the low-voltage fast
# family (a REPORT family until then), TRAIN others as in A; trainX5L.list = trainX5 + AL; its
# store reuses storeX5 (only AL is computed; ~17 GB)
al60() {
  corpus_join AL trainX5 trainX5L sim --hours 12 --patients 6 --seed 91 --no-progress --exclude-families \
    "$TRAIN_SEIZ,$SELECT_SEIZ,polyspike,muscle_obscured,rhythmic_alpha,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
}
# K34 (amendment 60): K15's recipe on trainX5L with AL balanced as a sixth source
k34() { k15_joined trainX5L A+A3+B,AL,XT1,XT2,XE,XH "$@"; }  # OUT SEED [option...]
# K35 (amendment 61): K34's corpus with AL inside our simulator's source instead of a sixth one
# (its 15 LVF seizures at their share of that source's seizure rows, not a sixth of every epoch)
k35() { k15_joined trainX5L A+A3+B+AL,XT1,XT2,XE,XH "$@"; }  # OUT SEED [option...]
# Amendment 62: AM, 12 h of our simulator whose seizures are all low-voltage fast (as AL's) and
# whose every recording holds the medication-beta background (`drug_beta`, 15-27 Hz, 8-30 uV,
# hours long): fast activity that is not a seizure beside the seizures that are;
# trainX5M.list = trainX5L + AM; its store reuses storeX5 (AL and AM computed; ~18 GB)
am62() {
  corpus_join AM trainX5L trainX5M sim --hours 12 --patients 6 --seed 93 --no-progress --require-families drug_beta \
    --exclude-families "$TRAIN_SEIZ,$SELECT_SEIZ,polyspike,muscle_obscured,rhythmic_alpha,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN4"
}
# K36 (amendment 62): K34's recipe with AL and AM together as the sixth balanced source
k36() { k15_joined trainX5M A+A3+B,AL+AM,XT1,XT2,XE,XH "$@"; }  # OUT SEED [option...]
# Amendment 63: AN, 12 h of our simulator drawn as corpus A (TRAIN families) with the wide alpha
# field (`alpha_field`: the patient's alpha over central / temporal chains, more in drowsiness)
# in every recording; trainX5N.list = trainX5 + AN; its store reuses storeX5 (AN computed)
an63() {
  corpus_join AN trainX5 trainX5N sim --hours 12 --patients 6 --seed 94 --no-progress --require-families alpha_field \
    --exclude-families "$SELECT_SEIZ,$REPORT_SEIZ,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3"
}
# K37 (amendment 63, as amended before any model: AN inside our simulator's source, at its
# natural share of that source's rows; mining finds its alpha if the model scores it high)
k37() { k15_joined trainX5N A+A3+B+AN,XT1,XT2,XE,XH "$@"; }  # OUT SEED [option...]
# Amendment 64: K37's confirmation on fresh seeds (6-11, never trained for any recipe). One pair
# whole on this machine: K37 seed N and K15 seed N trained (unless done), judged (judge53) and
# their family_scores written; then the rule on the six (rule64).
pair64() {  # SEED
  train_once k37 "$1"; train_once k15x5 "$1" "k15ps${1}a"
  judge_scored "k37s${1}a" "k15ps${1}a"
}
# RECIPE's seed N trained as RECIPEsNa (or NAME) unless that model is already there
train_once() {  # RECIPE SEED [NAME]
  local k=${3:-$1s${2}a}
  [ -f "$WORK/$k/manifest.json" ] || "$1" "$k" "$2"
}
# judge53 each K and write its family_scores (what every pair since amendment 64 records)
judge_scored() {  # K...
  local k
  for k in "$@"; do
    judge53 "$k"
    select_v2_scores "$WORK/eval_$k" "tools/results/family_scores_${k}_sel.json"
  done
}
# K38 (amendment 66): K15's recipe with each batch's background loss weighted by P(seizure)
# (--background-focal 1, normalised to mean 1 over the background)
k38() { k15x5 "$@" --background-focal 1; }  # OUT SEED [option...]
# RECIPE's seed N as RECIPEsNa, trained (unless done), judged (judge53) and its family_scores
# written; its pair is amendment 64's k15psNa, judged then on this machine
pair_c6() { train_once "$1" "$2"; judge_scored "$1s${2}a"; }  # RECIPE SEED
# Amendment 66: K38's seeds 6-11 (then rule66 on the six)
pair66() { pair_c6 k38 "$1"; }  # SEED
# K39 (amendment 68): K15's recipe plus a squared hinge on background logits above logit(0.99)
# (--background-hinge 0.99:1); the body of the background keeps the plain loss
k39() { k15x5 "$@" --background-hinge 0.99:1; }  # OUT SEED [option...]
# Amendment 68: K39's seeds 6-11 (then rule68 on the six)
pair68() { pair_c6 k39 "$1"; }  # SEED
# Each K's committed _sel5f result (EXTEND_FROM: another suffix) extended by GRID
# (operating_point.py --extend), tune52's options -> tools/results/operating_point_K{SUF}.json
extend52() {  # GRID SUF K...
  local grid=$1 suf=$2 k; shift 2
  for k in "$@"; do
    GRID52=$grid SUF52=$suf tune52 "$k" --extend "tools/results/operating_point_${k}${EXTEND_FROM:-_sel5f}.json"
  done
}
# Pilot 65 (chooses nothing): the band just under the decoder's output ceiling (grid ceiling_off:
# 0.996-0.9985, 240 configurations) -> operating_point_K_sel5c.json
pilot65() { extend52 ceiling_off _sel5c "$@"; }  # K...
# Pilot 67 (chooses nothing): the band under the strict grid's floor (grid floor_off: 0.9 / 0.95
# / 0.97, 180 configurations) -> operating_point_K_sel5l.json
pilot67() { extend52 floor_off _sel5l "$@"; }  # K...
# Amendment 70: each K's _sel5f trials chosen over again with SS (our own held-out dev patients) at
# <= 1.0 FA/24 h, the issue's own-distribution target (tune52 with operating_point.py --rechoose: no
# decoding) -> tools/results/operating_point_K_sel5b.json and $WORK/op_K_sel5b.toml
tune70() {  # K...
  local k
  for k in "$@"; do
    SUF52=_sel5b tune52 "$k" --rechoose "tools/results/operating_point_${k}_sel5f.json" --max-voice-fa SS=1
  done
}
# Amendment 72: OD, an own-distribution dev corpus drawn like O2 (30 h, 18 new patients, TRAIN
# families; for choices only, O + O2 stay the gate), and each K decoded on it as judged (K6's
# point in its folder, as its SELECT v2 decodes) -> $WORK/eval_K_OD
od72() {  # K...
  sim "$WORK/OD" --hours 30 --patients 18 --seed 81 --exclude-families "$OWN_EXCLUDE"
  [ -s "$WORK/OD.list" ] || find "$WORK/OD/edf" -name '*.edf' | sort > "$WORK/OD.list"
  local k
  for k in "$@"; do decode_once "$WORK/OD.list" "$WORK/$k" "$WORK/eval_${k}_OD"; done
}
# Amendment 72: each K's _sel5f trials chosen over again with our own distribution first: OD at
# <= 1.0 FA/24 h, then >= 95 % of OD's seizures (or the best share any eligible point reaches),
# then amendment 52's rule -> tools/results/operating_point_K_sel5o.json and $WORK/op_K_sel5o.toml
tune72() { od_rechoose _sel5f _sel5o "$@"; }  # K...
# Each K's SRC result (operating_point_K_SRC.json) chosen again with OD first, amendment 72's way -> DST
od_rechoose() {  # SRC DST K...
  local src=$1 dst=$2 k; shift 2
  for k in "$@"; do
    SUF52=$dst tune52 "$k" --rechoose "tools/results/operating_point_$k$src.json" \
      --bound OD="$WORK/OD.list:$WORK/eval_${k}_OD" --max-voice-fa OD=1 --min-voice-sens OD=95
  done
}
# K40 (amendment 75): K15's recipe with every seizure sample drawn with weight L**-0.5, L the
# length of its seizure on that channel (--seizure-balance 0.5): short seizures drawn more often
k40() { k15x5 "$@" --seizure-balance 0.5; }  # OUT SEED [option...]
# K judged (judge_scored), decoded on OD and its _sel5o point chosen (amendment 72)
judge_od() { judge_scored "$1"; od72 "$1"; tune72 "$1"; }  # K
# RECIPE's seed N as RECIPEsNa (or NAME), trained (unless done) and judge_od
pair_od() { train_once "$@"; judge_od "${3:-$1s${2}a}"; }  # RECIPE SEED [NAME]
# Amendment 75: K40's seed N
pair75() { pair_od k40 "$1"; }  # SEED
# Pilot 77 (chooses nothing): K41 = K15's recipe with the decoder reading only the last 3 s of
# its 7 s window (--arch frame_lstm_3s: a crop inside the model), seed N (pair_od), against
# K15's seed N (k15psNa)
k41() { k15x5 "$@" --arch frame_lstm_3s:context:3:0.5; }  # OUT SEED [option...]
pair77() { pair_od k41 "$1"; }  # SEED
# Pilot 78 (chooses nothing): K42 = K15's recipe with 8x the samples an epoch
# (--samples-per-epoch 524288, 6 epochs), seed N (pair_od)
k42() { k15x5 "$@" --samples-per-epoch 524288; }  # OUT SEED [option...]
pair78() { pair_od k42 "$1"; }  # SEED
# Pilot 79 (chooses nothing): K43 = K15's recipe with half the samples an epoch
# (--samples-per-epoch 32768, 6 epochs), seed N (pair_od)
k43() { k15x5 "$@" --samples-per-epoch 32768; }  # OUT SEED [option...]
pair79() { pair_od k43 "$1"; }  # SEED
# K15's seed N as k15psNa, trained unless done, and judge_od (the K15 side of a fresh pair)
k15_partner() { pair_od k15x5 "$1" "k15ps${1}a"; }  # SEED
# Amendment 80: K15's seed N (k15psNa) and K42's (k42sNa) on the same machine, each trained,
# judged, decoded on OD and its _sel5o point chosen; seeds 12-17 (then rule80)
pair80() { k15_partner "$1"; pair78 "$1"; }  # SEED
# Pilot 81 (chooses nothing): K44 = K15's recipe with online group DRO over its five sources
# (--source-dro 2), seed N (pair_od), against amendment 80's k15psNa
k44() { k15x5 "$@" --source-dro 2; }  # OUT SEED [option...]
pair81() { pair_od k44 "$1"; }  # SEED
# Pilot 82 (chooses nothing): K45 = K42's 8x samples an epoch with K39's background hinge
# (--samples-per-epoch 524288 --background-hinge 0.99:1), seed N (pair_od), against k15psNa
k45() { k42 "$@" --background-hinge 0.99:1; }  # OUT SEED [option...]
pair82() { pair_od k45 "$1"; }  # SEED
# Pilot 83 (chooses nothing): K39 (the background hinge) on the fresh seed N (pair_od), against k15psNa
pair83() { pair_od k39 "$1"; }  # SEED
# Pilot 84 (chooses nothing): K46 = K37's corpus (AN, the wide alpha field, inside our simulator's
# source; an63 first) with K42's 8x samples an epoch, seed N (pair_od), against k15psNa
k46() { k37 "$@" --samples-per-epoch 524288; }  # OUT SEED [option...]
pair84() { pair_od k46 "$1"; }  # SEED
# Pilot 85 (chooses nothing): K47 = K39 with the hinge's weight 4 (--background-hinge 0.99:4),
# seed N (pair_od), against k15psNa
k47() { k15x5 "$@" --background-hinge 0.99:4; }  # OUT SEED [option...]
pair85() { pair_od k47 "$1"; }  # SEED
# Pilot 86 (chooses nothing): K48 = K39 plus stale centres at 0.25 (amendment 19's option),
# seed N (pair_od), against k15psNa
k48() { k39 "$@" --stale-context 0.25; }  # OUT SEED [option...]
pair86() { pair_od k48 "$1"; }  # SEED
# Pilot 88 (chooses nothing): K49 = K39 plus K40's seizure balance (--seizure-balance 0.5),
# seed N (pair_od), against k15psNa
k49() { k39 "$@" --seizure-balance 0.5; }  # OUT SEED [option...]
pair88() { pair_od k49 "$1"; }  # SEED
# Pilot 89 (chooses nothing): K40 alone (the seizure balance) on the fresh seed N, against
# k15psNa: amendment 75's steps (pair75) on seeds 12 and 13
pair89() { pair75 "$1"; }  # SEED
# Pilot 90 (chooses nothing): K50 = K39 plus K20's tail averaging (--average-epochs 3), seed N
# (pair_od), against k15psNa
k50() { k39 "$@" --average-epochs 3; }  # OUT SEED [option...]
pair90() { pair_od k50 "$1"; }  # SEED
# Pilot 91 (chooses nothing): K51 = K39 plus domain-adversarial training over the five sources
# (--source-adversary 0.3: a head names each window's source through a gradient reversal rising
# to 0.3), seed N (pair_od), against k15psNa
k51() { k39 "$@" --source-adversary 0.3; }  # OUT SEED [option...]
pair91() { pair_od k51 "$1"; }  # SEED
# Pilot 92 (chooses nothing): K52 = K39 plus seizure mixing (--seizure-mix 0.5: half the seizure
# samples of a batch mixed with another seizure sample of it), seed N (pair_od), against k15psNa
k52() { k39 "$@" --seizure-mix 0.5; }  # OUT SEED [option...]
pair92() { pair_od k52 "$1"; }  # SEED
# Pilot 93 (chooses nothing): K53 = K34 (AL, our LVF seizures, as a sixth balanced source; al60
# first) plus K39's background hinge, seed N (pair_od), against k15psNa
k53() { k34 "$@" --background-hinge 0.99:1; }  # OUT SEED [option...]
pair93() { pair_od k53 "$1"; }  # SEED
# Amendment 94: K15's seed N (k15psNa) and K53's (k53sNa) on the same machine, each trained and
# judge_od; seeds 15-20 in order (al60 first on a machine without AL), then rule94
pair94() { k15_partner "$1"; pair93 "$1"; }  # SEED
# Pilot 83's extension (chooses nothing): K15's seed N as k15psNa (trained unless done, judge_od),
# then K39's seed N (pair83)
pair87() { k15_partner "$1"; pair83 "$1"; }  # SEED
# Pilot 96: AR, 12 h of our simulator drawn as corpus A (TRAIN families) with steady rhythms
# (`steady_rhythm`, rt_eeg/sim/steady_rhythms.py: temporal / midline theta and IRDA runs that
# never evolve, opt-in) in every recording; trainX5R.list = trainX5L + AR; its store reuses
# storeX5 (AL and AR computed; ~18 GB: delete it after the pilot when the disk is short)
ar96() {
  corpus_join AR trainX5L trainX5R sim --hours 12 --patients 6 --seed 96 --no-progress --require-families steady_rhythm \
    --exclude-families "$SELECT_SEIZ,$REPORT_SEIZ,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
}
# K54 (pilot 96): K53 with AR inside our simulator's source (its steady runs at their share of
# that source's rows; mining finds them when the model scores them high)
k54() { k15_joined trainX5R A+A3+B+AR,AL,XT1,XT2,XE,XH "$@" --background-hinge 0.99:1; }  # OUT SEED [option...]
pair96() { pair_od k54 "$1"; }  # SEED
# Pilot 97: BL, our simulator at the real TUSZ seizure times of the shared annotation tree (as
# corpus B) whose seizures are all low-voltage fast (as AL's): AL's template at real, mostly
# short, durations (median 18 s); trainX5LB.list = trainX5L + BL; its store reuses storeX5 (AL
# and BL computed; ~18 GB: delete it after the pilot when the disk is short)
bl97() {
  corpus_join BL trainX5L trainX5LB sim --from-annotations "$SHARED" --seed 97 --no-progress --exclude-families \
    "$TRAIN_SEIZ,$SELECT_SEIZ,polyspike,muscle_obscured,rhythmic_alpha,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
}
# K55 (pilot 97): K53 with BL inside AL's source (the LVF template's rows shared by long and short)
k55() { k15_joined trainX5LB A+A3+B,AL+BL,XT1,XT2,XE,XH "$@" --background-hinge 0.99:1; }  # OUT SEED [option...]
pair97() { pair_od k55 "$1"; }  # SEED
# Pilot 98: NAME = the mean of K53 seeds' stored outputs (tools/ensemble_probs.py; approximate for
# context members, amendment 32) in an `rt-eeg ensemble` folder, tuned as every seed (tune52, then
# tune72 with OD), its family scores and real checks. ENS_PREFIX: the members' name before the
# seed (default k53s: k53sNa; pilot 128: k66s, k53es)
members_of() {  # PREFIX SEED... -> $WORK/PREFIXNa,... (an ensemble's --members)
  local pre=$1; shift
  printf "$WORK/$pre%sa\n" "$@" | paste -sd,
}
ens98() {  # NAME SEED...
  local name=$1 c pre=${ENS_PREFIX:-k53s}; shift
  [ -f "$WORK/$name/manifest.json" ] || rt-eeg ensemble --members "$(members_of "$pre" "$@")" --out "$WORK/$name"
  [ -f "$WORK/$name/postprocess.toml" ] || cp "$WORK/k6/postprocess.toml" "$WORK/$name/"
  for c in $SELECT_V2_DECODED OD; do
    # built beside and moved in whole: an interrupted run leaves no folder this test would skip
    [ -d "$WORK/eval_${name}_$c" ] || {
      rm -rf "$WORK/eval_${name}_$c.tmp"
      python tools/ensemble_probs.py $(printf -- "--member $WORK/eval_$pre%sa_$c " "$@") --out "$WORK/eval_${name}_$c.tmp"
      mv "$WORK/eval_${name}_$c.tmp" "$WORK/eval_${name}_$c"
    }
  done
  tune52 "$name"
  tune72 "$name"
  select_v2_scores "$WORK/eval_$name" "tools/results/family_scores_${name}_sel.json"
  [ -f "tools/results/real_checks_$name.json" ] ||
    python tools/real_checks.py --model "$WORK/$name" --no-bonn --out "tools/results/real_checks_$name.json"
}
# K56 (pilot 99): K53 with K20's tail averaging (the weights averaged over the last 3 epochs)
k56() { k53 "$@" --average-epochs 3; }  # OUT SEED [option...]
pair99() { pair_od k56 "$1"; }  # SEED
# Pilot 100: CC, the cross-channel stage's training set (never seen by a decoder, SELECT or REPORT):
# our simulator with K53's families (TRAIN + AL's low-voltage fast, CO), `epileptor` at the shared
# tree's real TUSZ times (CE), `dip` and `spec` (CD, CP) -> CC.list
cc100() {
  sim "$WORK/CO" --hours 8 --patients 4 --seed 100 --no-progress --exclude-families \
    "$SELECT_SEIZ,polyspike,muscle_obscured,rhythmic_alpha,$SELECT_OTHER,$REPORT_OTHER,$REPORT2"
  xsim "$WORK/CE" --generator epileptor --from-annotations "$SHARED" --seed 101 --no-progress
  xsim "$WORK/CD" --generator dip --hours 6 --patients 3 --seed 102 --no-progress
  xsim "$WORK/CP" --generator spec --hours 6 --patients 3 --seed 104 --no-progress
  local c
  for c in CO CE CD CP; do find "$WORK/$c/edf" -name '*.edf' | sort > "$WORK/$c.list"; done
  cat "$WORK/CO.list" "$WORK/CE.list" "$WORK/CD.list" "$WORK/CP.list" > "$WORK/CC.list"
}
# K57 (pilot 100): K53's seed N (k53sNa's weights) with a cross-channel stage trained on its own
# outputs over CC (tools/train_cross_channel.py at its defaults, base = the judged folder's point);
# k57sNa's SELECT v2 and OD decoder outputs are k53sNa's (same weights), postprocessed again
k57() {  # SEED
  local ref=k53s${1}a k=k57s${1}a c
  cc100
  decode_once "$WORK/CC.list" "$WORK/$ref" "$WORK/eval_${ref}_CC" --feature-cache "$WORK/fcache"
  if [ ! -f "$WORK/$k/postprocess.toml" ]; then
    rm -rf "$WORK/$k.tmp" && cp -r "$WORK/$ref" "$WORK/$k.tmp"
    python tools/train_cross_channel.py --eval "$WORK/eval_${ref}_CC" --corpus "$WORK/CC.list" \
      --model "$WORK/$ref" --out "$WORK/$k.tmp/postprocess.toml" --seed 0
    mv "$WORK/$k.tmp" "$WORK/$k"
  fi
  for c in $SELECT_V2_DECODED OD; do
    if [ ! -f "$WORK/eval_${k}_$c/report.json" ]; then
      mkdir -p "$WORK/eval_${k}_$c" && cp "$WORK/eval_${ref}_$c"/*.probs.npz "$WORK/eval_${k}_$c/"
    fi
  done
}
pair100() { k57 "$1"; judge_od "k57s${1}a"; }  # SEED
# K's _sel5f trials extended by GRID (-> SUF) and chosen again with OD first (-> SUFo)
extend_od() {  # GRID SUF K...
  local grid=$1 suf=$2 k; shift 2
  for k in "$@"; do extend52 "$grid" "$suf" "$k"; od_rechoose "$suf" "${suf}o" "$k"; done
}
# Pilot 100, beside it (chooses nothing): under the strict grid's floor (floor_off, pilot 67's ->
# _sel5l, then _sel5lo), for K57 and K53 alike
floor100() { extend_od floor_off _sel5l "$@"; }  # K...
# K58 (pilot 101): K53 distilled from K53's seeds 15-20 (E53x6p's members): each target
# (1 - W) y + W x their mean P(seizure) on the same window, W = DISTILL_W (0.5; --distill-from,
# rt_eeg/distill.py); TEACHER_REF another prefix of K53's seeds (k53es: retrained on an AMD EPYC)
k58() {  # OUT SEED [option...]
  local teachers
  teachers=$(printf "$WORK/${TEACHER_REF:-k53s}%sa," 15 16 17 18 19 20)
  k53 "$@" --distill-from "${teachers%,}" --distill-weight "${DISTILL_W:-0.5}"
}
pair101() { pair_od k58 "$1"; }  # SEED
# Pilot 102 (chooses nothing): K's _sel5f trials extended by mid_off (0.985, 0.9925: under a
# distilled decoder's cap) -> _sel5m, chosen again with OD first -> _sel5mo; K58 and K53 alike
mid102() { extend_od mid_off _sel5m "$@"; }  # K...
# Pilot 103 (chooses nothing): K59 = K58 with the six seeds' mean as the whole target (--distill-weight 1.0)
k59() { DISTILL_W=1.0 k58 "$@"; }  # OUT SEED [option...]
pair103() { pair_od k59 "$1"; mid102 "k59s${1}a"; }  # SEED
# Pilot 104 (an AMD EPYC, where K53's seeds are retrained as k53esNa: a seed is reproducible on
# its CPU class only): K53's seed N trained and nothing else (a teacher; 15-20)
k53e_teacher() { train_once k53 "$1" "k53es${1}a"; }  # SEED
# K60 / K61: K58 from those teachers with the teachers' share on the background rows only (a
# seizure's target stays 1: the student's scale uncapped) / on the seizure rows only (background
# targets stay 0) (--distill-rows)
k60() { TEACHER_REF=k53es k58 "$@" --distill-rows background; }  # OUT SEED [option...]
k61() { TEACHER_REF=k53es k58 "$@" --distill-rows seizure; }  # OUT SEED [option...]
# K53's seed N here (k53esNa), then K60's and K61's (the teachers trained first), each
# judge_od and mid102
pair104() {  # SEED
  pair_od k53 "$1" "k53es${1}a"; pair_od k60 "$1"; pair_od k61 "$1"
  mid102 "k53es${1}a" "k60s${1}a" "k61s${1}a"
}
# Pilot 105 (chooses nothing): the evidence-accumulating onset (cusum_off, 168 configurations)
# added to each K's _sel5m trials -> _sel5k, chosen again with OD first -> _sel5ko (no decoding)
cusum105() { EXTEND_FROM=_sel5m extend_od cusum_off _sel5k "$@"; }  # K...
# Pilot 107 (chooses nothing): K62 = K53 plus the hinge's mirror on the seizure side (seizure
# logits under logit(0.995) pulled up, weight 0.1; --seizure-hinge), seed N on this machine
# (pair_od, mid102), against pilot 104's k53esNa
k62() { k53 "$@" --seizure-hinge 0.995:0.1; }  # OUT SEED [option...]
pair107() { pair_od k62 "$1"; mid102 "k62s${1}a"; }  # SEED
# Pilot 106 (chooses nothing): top-k 1 and 3 (topk_off, 420 configurations) added to each K's
# _sel5m trials -> _sel5t, chosen again with OD first -> _sel5to (no decoding)
topk106() { EXTEND_FROM=_sel5m extend_od topk_off _sel5t "$@"; }  # K...
# Pilot 111 (chooses nothing): K63 = K53 with a 1 s LFCC analysis window and 16 filters
# (tools/features_w1s.toml: main lobe +-2 Hz against the default's +-10 Hz; the same 26 features
# a frame), its own store storeX5Lw (~17 GB: delete it after the pilot when the disk is short);
# seed N on this machine (pair_od, mid102, decoded without the feature cache) against pilot
# 104's k53esNa. Its --store follows k15_joined's, and the last one given wins
k63() { k53 "$@" --features tools/features_w1s.toml --store "$WORK/storeX5Lw"; }  # OUT SEED [option...]
pair111() { pair117 k63 "$1"; }  # SEED
# Pilot 113 (chooses nothing): K64 = K63 with a 0.5 s window (tools/features_w05s.toml, 16 filters
# as K63), its own store storeX5Lh (~17 GB; the disk holds one such store: delete storeX5Lw first)
k64() { k53 "$@" --features tools/features_w05s.toml --store "$WORK/storeX5Lh"; }  # OUT SEED [option...]
pair113() { pair117 k64 "$1"; }  # SEED
# Pilot 114 (chooses nothing): K65 = K53 with a 0.1 s window (tools/features_w01s.toml, 8 filters
# as the defaults), its own store storeX5Ls (~17 GB; the disk holds one such store)
k65() { k53 "$@" --features tools/features_w01s.toml --store "$WORK/storeX5Ls"; }  # OUT SEED [option...]
pair114() { pair117 k65 "$1"; }  # SEED
# Pilot 115 (chooses nothing): K66 = K53 mining the hardest sixteenth of its candidates
# (--hard-pool 16 against 4), the default features (pilot 115 judged with the feature cache;
# pilots 116-119 without it)
k66() { k53 "$@" "${K66_OPTS[@]}"; }  # OUT SEED [option...]
pair115() { pair_od k66 "$1"; mid102 "k66s${1}a"; }  # SEED
# Pilot 116 (chooses nothing): K66's seeds 15-17 (pair115), judged without the feature cache (the
# cache refill and storeX5L do not fit the disk together). Pilot 117 (chooses nothing): the dose
# bracket, K67 = K53 with --hard-pool 8 and K68 with --hard-pool 32
pair116() { FEATURE_CACHE="" pair115 "$1"; }  # SEED (pilot 118: seeds 18-20 too)
k67() { k53 "$@" --hard-pool 8; }  # OUT SEED [option...]
k68() { k53 "$@" --hard-pool 32; }  # OUT SEED [option...]
# any recipe's seed so (pilot 117's; the later pilots' pairN call it)
pair117() { FEATURE_CACHE="" pair_od "$1" "$2"; mid102 "${1}s${2}a"; }  # RECIPE SEED
# The K66 amendment pilot 118 owes (the Intel class, where the default trains; its protocol entry
# is written in the session that runs it, before any K66 seed there is trained): K53's seed N
# there (k53sNa, trained unless present) and K66's (k66sNa), each judge_od, both mid102; fresh
# seeds 21-26 in that order, then rule_k66a (xgen_rules.sh)
pair_k66a() { pair_od k53 "$1"; pair_od k66 "$1"; mid102 "k53s${1}a" "k66s${1}a"; }  # SEED
# Pilot 119 (chooses nothing): K69 = K61 (seizure-row distillation from k53es15a-20a) with K66's
# --hard-pool 16: do their onset gains add? Seeds 12-14, without the feature cache (another
# TEACHER_REF names other teachers: k73)
k69() { TEACHER_REF=${TEACHER_REF:-k53es} k58 "$@" --distill-rows seizure --hard-pool 16; }  # OUT SEED [option...]
pair119() { pair117 k69 "$1"; }  # SEED
# Pilot 121 (chooses nothing): K70 = K69 at half the teachers' share (--distill-weight 0.25): does
# the DET K69 paid come back while its onsets stay? Seeds 12-14, without the feature cache
k70() { DISTILL_W=0.25 k69 "$@"; }  # OUT SEED [option...]
pair121() { pair117 k70 "$1"; }  # SEED
# Amendment 33's onset emphasis moved to the first 5 s (K18's: a seizure's first 5 s drawn 6x; the
# later --arch replaces k15x5's :3:0.5)
ONSET5=(--arch frame_lstm:context:6:0.5 --onset-epochs 5)
# Pilot 122 (chooses nothing): K71 = K66 with ONSET5. Seeds 12-14, without the cache
k71() { k66 "$@" "${ONSET5[@]}"; }  # OUT SEED [option...]
pair122() { pair117 k71 "$1"; }  # SEED
# Pilot 123 (chooses nothing): K72 = K69 with ONSET5: does seizure-row distillation keep
# K71's earlier seeds without its collapse? Seeds 12-14, without the cache
k72() { k69 "$@" "${ONSET5[@]}"; }  # OUT SEED [option...]
pair123() { pair117 k72 "$1"; }  # SEED
# Pilot 124 (chooses nothing): K73 = K69 taught by K66's seeds 15-20 (earlier-calling teachers):
# does distillation's DET cost go? Seeds 12-14, without the cache
k73() { TEACHER_REF=k66s k69 "$@"; }  # OUT SEED [option...]
pair124() { pair117 k73 "$1"; }  # SEED
# K53's reference seed N on this class (k53esNa, as k53e_teacher trains it; judge_od and mid102
# without the cache): what pilot 125 and amendment 127 pair against
k53es_ref() { FEATURE_CACHE="" pair_od k53 "$1" "k53es${1}a"; mid102 "k53es${1}a"; }  # SEED
# Pilot 125 (chooses nothing): K73 on seeds 21-23, each after K53's reference there
pair125() { k53es_ref "$1"; pair124 "$1"; }  # SEED
# Amendment 127: the K66 amendment, fresh seeds 24-29 in that order, each pair whole on one machine
# (its CPU class recorded): K53's reference (k53es_ref), then K66's k66sNa, each judge_od and
# mid102 without the feature cache; then rule_k66e (xgen_rules.sh) on the six
pair_k66e() { k53es_ref "$1"; pair117 k66 "$1"; }  # SEED
# Pilot 128 (chooses nothing): each recipe's six seeds of this class averaged from their stored
# outputs (ens98 with ENS_PREFIX), mid102, and pilot 98's reading against those seeds at _sel5o and
# _sel5mo -> E66x6z (k66sNa), E53x6z (k53esNa)
pilot128() {  # SEED...
  local pair pre name label
  for pair in k66s:e66x6z:E66X6Z k53es:e53x6z:E53X6Z; do
    IFS=: read -r pre name label <<< "$pair"
    ENS_PREFIX=$pre ens98 "$name" "$@"
    mid102 "$name"
    ENS_PREFIX=$pre pilot98 "$label" "$name" "$@"
    ENS_PREFIX=$pre P98_SUF=_sel5mo pilot98 "$label" "$name" "$@"
  done
}
# Amendment 129: E53x6z's members in one ensemble folder decoded on its own (E53x6zd: judge_od,
# mid102), read against its seeds (pilot98 at _sel5o, _sel5mo) and against K66's (the lead read);
# gates94 e53x6zd k53es26a once the rule holds (see the protocol)
a129() {  # SEED...
  [ -f "$WORK/e53x6zd/manifest.json" ] ||
    rt-eeg ensemble --members "$(members_of k53es "$@")" --out "$WORK/e53x6zd"
  judge_od e53x6zd
  mid102 e53x6zd
  ENS_PREFIX=k53es pilot98 E53X6ZD e53x6zd "$@"
  ENS_PREFIX=k66s pilot98 E53X6ZD e53x6zd "$@"
  ENS_PREFIX=k53es P98_SUF=_sel5mo pilot98 E53X6ZD e53x6zd "$@"
}
