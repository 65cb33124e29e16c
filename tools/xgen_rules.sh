# The recipe rules of the cross-generator round (issue #12; protocol:
# tools/results/xgen_protocol.md): a recipe's seeds judged against the reference's on SELECT v2
# from the committed tools/results/operating_point_*.json and real_checks_*.json. Sourced by
# tools/xgen_round.sh (which defines judge, judge5, seeds, files and train3 they call); run one
# as `bash tools/xgen_round.sh NAME ARG...`.

# The N-seed rule on SELECT v2 (amendments 23 and 29-30) for recipe NAME against REF's first
# N = NSEEDS seeds (REF defaults to K6's recipe, whose seed 0 folder is k6r) -> OUT_JSON;
# JUDGE=1: each seed of NAME judged (judge5) first; CLAUSE=GAIN_S:MAX_LOSS: amendment 33's
# latency clause.
recipe_rule() {  # NAME OUT_JSON
  local op=tools/results/operating_point_ rc=tools/results/real_checks_ k ref=${REF:-k6}
  local -a refs; mapfile -t refs < <(seeds "$ref")
  [ "$ref" = k6 ] && refs[0]=k6r
  if [ -n "${JUDGE:-}" ]; then for k in $(seeds "$1"); do judge5 "$k"; done; fi
  python tools/judge_recipes.py \
    --reference "${ref^^}=$(printf "$op%s_sel5.json\n" "${refs[@]}" | paste -sd,)" \
    --candidate "${1^^}=$(files "$op" _sel5.json "$1")" \
    --real "${ref^^}=$(printf "$rc%s.json\n" "${refs[@]}" | paste -sd,)" \
    --real "${1^^}=$(files "$rc" .json "$1")" ${CLAUSE:+--latency-clause "$CLAUSE"} --out "$2"
}
recipe5() { NSEEDS=3 recipe_rule "$1" "tools/results/recipe_${1}_vs_${REF:-k6}_sel5.json"; }  # NAME
recipe6() { NSEEDS=6 recipe_rule "$1" "tools/results/recipe_${1}_vs_${REF:-k6}_sel5_six.json"; }
recipe3() {  # NAME TRAIN_OPTION...   (three-voice SELECT, amendments 15-22)
  local name=$1 k
  train3 "$@"
  for k in $(seeds "$name"); do judge "$k"; done
  local up=${name^^} op=tools/results/operating_point_ rc=tools/results/real_checks_
  python tools/judge_recipes.py \
    --reference "K6=${op}k6r_macro.json,${op}k6s1_macro.json,${op}k6s2_macro.json" \
    --candidate "$up=$(files "$op" _macro.json "$name")" \
    --real "K6=${rc}k6r.json,${rc}k6s1.json,${rc}k6s2.json" --real "$up=$(files "$rc" .json "$name")" \
    --out "tools/results/recipe_${name}_vs_k6.json"
}
# Rule P (amendments 39-41): a recipe's seeds 3, 0, 1 (folders, in that order) judged pair by
# pair against K15's trained in the same environment: k15s3r, k15r, k15rs1 (this machine's
# native one, RT_EEG_NATIVE_ISA=1, /work/sim/recipe) -> recipe_label_vs_k15r_paired.json; or,
# with paired_vs_k15p, k15s3p, k15p, k15ps1 (the AVX2 environment the scripts set, judged
# 2026-11-27 in /work/sim/repro5) -> recipe_label_vs_k15p_paired.json; PAIRED_EXTRA: more
# judge_recipes.py options (amendment 45: --det-clause 3:0:1); SUF: the operating-point files'
# suffix when not _sel5 (amendment 52: SUF=_sel5f -> recipe_LABEL_vs_TAG_paired_sel5f.json);
# OUT_SUF: appended to the verdict's name
paired_vs_k15r() {  # LABEL K_SEED3 K_SEED0 K_SEED1
  local label=$1 op=tools/results/operating_point_ rc=tools/results/real_checks_; shift
  local -a ref=(${PAIRED_REF:-k15s3r k15r k15rs1})
  local tag=${PAIRED_TAG:-K15R}
  csv_of() { local pre=$1 suf=$2; shift 2; printf "$pre%s$suf\n" "$@" | paste -sd,; }
  python tools/judge_recipes.py ${PAIRED_RULE:---paired 5:2:5} ${PAIRED_EXTRA:-} \
    --reference "$tag=$(csv_of "$op" "${SUF:-_sel5}.json" "${ref[@]}")" \
    --candidate "$label=$(csv_of "$op" "${SUF:-_sel5}.json" "$@")" \
    --real "$tag=$(csv_of "$rc" .json "${ref[@]}")" --real "$label=$(csv_of "$rc" .json "$@")" \
    --out "tools/results/recipe_${label,,}_vs_${tag,,}_paired${SUF:-}${OUT_SUF:-}.json"
}
paired_vs_k15p() { PAIRED_REF="k15s3p k15p k15ps1" PAIRED_TAG=K15P paired_vs_k15r "$@"; }
# Amendment 48's six-seed rule: a recipe's seeds 3, 0, 1, 2, 4, 5 against the pinned K15 seeds of
# the same numbers, on the means of the paired differences -> recipe_label_vs_k15p6_paired.json
paired6_vs_k15p() {  # LABEL K_SEED3 K_SEED0 K_SEED1 K_SEED2 K_SEED4 K_SEED5
  PAIRED_REF="k15s3p k15p k15ps1 k15ps2 k15ps4 k15ps5" PAIRED_TAG=K15P6 \
    PAIRED_RULE="--paired-means 3.7:0:1:2:5:-2" paired_vs_k15r "$@"
}
# Amendment 54: one model K (an ensemble of the six pinned K15 seeds) against those seeds' mean,
# all under the flagged-time limit (_sel5f points, DET under the limit): more than 5.0 points
# ahead at a DET mean not below theirs, no veto -> recipe_label_vs_k15p6_single.json
single_vs_k15p6() {  # LABEL K
  local op=tools/results/operating_point_ rc=tools/results/real_checks_
  local -a ref=(k15s3p k15p k15ps1 k15ps2 k15ps4 k15ps5)
  python tools/judge_recipes.py --single-margin 5 --det-max-flag-ratio 2 \
    --reference "K15P6=$(printf "$op%s_sel5f.json\n" "${ref[@]}" | paste -sd,)" \
    --candidate "$1=${op}$2_sel5f.json" \
    --real "K15P6=$(printf "$rc%s.json\n" "${ref[@]}" | paste -sd,)" --real "$1=$rc$2.json" \
    --out "tools/results/recipe_${1,,}_vs_k15p6_single.json"
}
# Amendment 53: the same rule on the _sel5f files with every DET mean read under the flagged-time
# limit too -> recipe_label_vs_k15p6_paired_sel5f_detf.json (K28: adopted only if both pass)
paired6f_vs_k15p() {  # LABEL K_SEED3 K_SEED0 K_SEED1 K_SEED2 K_SEED4 K_SEED5
  SUF=_sel5f OUT_SUF=_detf PAIRED_EXTRA="--det-max-flag-ratio 2" paired6_vs_k15p "$@"
}
# Amendment 64's rule against K15's seeds 6-11 (amendment 66 reuses it): mean paired SELECT v2
# >= +6.4 with DET (under the limit) >= -2.0 and onsets <= +1.0 s, veto chb01 < 0.5 (route (b)
# disabled) -> recipe_label_vs_k15c6_paired_sel5f_detf.json (RULE_SUF: other points' files,
# amendment 70's _sel5b; RULE_SEEDS and RULE_TAG: other seeds N and the reference's tag, e.g.
# RULE_SEEDS="12 13 14 15 16 17" RULE_TAG=K15C12 for fresh seeds). Both sides are named by seed:
# the reference k15psNa, the candidate PREFIXsNa. RULE_OUT: a suffix for the output's name (e.g.
# _s12-14 when a pilot is read on more seeds than it first was).
rule_k15c6() {  # LABEL PREFIX   (RULE_MEANS: --paired-means, amendment 64's by default)
  local -a seeds=(${RULE_SEEDS:-6 7 8 9 10 11})
  PAIRED_REF="$(printf "${RULE_REF:-k15ps}%sa " "${seeds[@]}")" PAIRED_TAG=${RULE_TAG:-K15C6} \
    PAIRED_RULE="--paired-means=${RULE_MEANS:--2:6.4:1:99:0:99}" SUF=${RULE_SUF:-_sel5f} OUT_SUF=_detf${RULE_OUT:-} \
    PAIRED_EXTRA="--det-max-flag-ratio 2" paired_vs_k15r "$1" $(printf "$2s%sa " "${seeds[@]}")
}
rule64() { rule_k15c6 K37C k37; }
rule66() { rule_k15c6 K38 k38; }
rule68() { rule_k15c6 K39 k39; }
# Amendment 70: amendment 64's rule on K39's and K15's seeds 6-11 at their _sel5b points (SS <= 1.0
# FA/24 h) -> recipe_k39_vs_k15c6_paired_sel5b_detf.json
rule70() { RULE_SUF=_sel5b rule_k15c6 K39 k39; }
# Amendment 72: the same rule at the _sel5o points (OD, our own-distribution dev corpus, first)
# -> recipe_k39_vs_k15c6_paired_sel5o_detf.json
rule72() { RULE_SUF=_sel5o rule_k15c6 K39 k39; }
# Amendment 75: the same rule, K40 against K15 on seeds 6-11 at their _sel5o points
# -> recipe_k40_vs_k15c6_paired_sel5o_detf.json
rule75() { RULE_SUF=_sel5o rule_k15c6 K40 k40; }
# Pilot 77: the same comparison, K41 (the 3 s decoder) against K15 on the seeds trained (RULE_SEEDS)
# at their _sel5o points -> recipe_k41_vs_k15c6_paired_sel5o_detf.json (chooses nothing)
pilot77() { RULE_SUF=_sel5o rule_k15c6 K41 k41; }
# Pilot 78: the same comparison, K42 (8x the samples an epoch) against K15 on the seeds trained
# (RULE_SEEDS) at their _sel5o points -> recipe_k42_vs_k15c6_paired_sel5o_detf.json (chooses nothing)
pilot78() { RULE_SUF=_sel5o rule_k15c6 K42 k42; }
# Pilot 79: the same comparison, K43 (half the samples an epoch) against K15 on the seeds trained
# (RULE_SEEDS) at their _sel5o points -> recipe_k43_vs_k15c6_paired_sel5o_detf.json (chooses nothing)
pilot79() { RULE_SUF=_sel5o rule_k15c6 K43 k43; }
# Amendment 75's comparison of LABEL's seeds (PREFIXsNa) against K15's fresh seeds k15psNa at the
# _sel5o points, N in RULE_SEEDS (default: DEFAULT_SEEDS)
rule_k15c12() {  # LABEL PREFIX DEFAULT_SEEDS
  RULE_SEEDS=${RULE_SEEDS:-$3} RULE_TAG=K15C12 RULE_SUF=_sel5o rule_k15c6 "$1" "$2"
}
# Amendment 80: K42 against K15 on the fresh seeds 12-17 (RULE_SEEDS: the pairs finished so far)
rule80() { rule_k15c12 K42 k42 "12 13 14 15 16 17"; }
# Pilots 81-84: K44, K45, K39 and K46 against K15 on seeds 12 and 13
pilot81() { rule_k15c12 K44 k44 "12 13"; }
pilot82() { rule_k15c12 K45 k45 "12 13"; }
pilot83() { rule_k15c12 K39 k39 "12 13"; }
pilot84() { rule_k15c12 K46 k46 "12 13"; }
# Pilots 85-86: K47 (hinge weight 4) and K48 (K39 + stale centres) against K15 on seeds 12 and 13
pilot85() { rule_k15c12 K47 k47 "12 13"; }
pilot86() { rule_k15c12 K48 k48 "12 13"; }
# Pilot 88: K49 (K39 + K40's seizure balance) against K15 on seeds 12 and 13
pilot88() { rule_k15c12 K49 k49 "12 13"; }
# Pilot 89: K40 (the seizure balance alone) against K15 on seeds 12 and 13
pilot89() { rule_k15c12 K40 k40 "12 13"; }
# Pilot 90: K50 (K39 + tail averaging) against K15 on seeds 12 and 13
pilot90() { rule_k15c12 K50 k50 "12 13"; }
# Pilot 91: K51 (K39 + the source adversary) against K15 on seeds 12 and 13
pilot91() { rule_k15c12 K51 k51 "12 13"; }
# Pilot 92: K52 (K39 + seizure mixing) against K15 on seeds 12 and 13
pilot92() { rule_k15c12 K52 k52 "12 13"; }
# Pilot 93: K53 (K34's AL source + K39's hinge) against K15 on seeds 12 and 13
pilot93() { rule_k15c12 K53 k53 "12 13"; }
# Amendment 75's comparison against K53 (the default's recipe, k53sNa) on seeds 12 and 13
# (RULE_SEEDS: others) at the _sel5o points -> recipe_label_vs_k53c12_paired_sel5o_detf.json
rule_k53c12() {  # LABEL PREFIX   (RULE_SEEDS, RULE_TAG, RULE_SUF, RULE_REF: seeds, tag, points, K53's prefix)
  RULE_REF=${RULE_REF:-k53s} RULE_SEEDS=${RULE_SEEDS:-12 13} RULE_TAG=${RULE_TAG:-K53C12} RULE_SUF=${RULE_SUF:-_sel5o} \
    rule_k15c6 "$1" "$2"
}
# The same against K53's seeds 12, 13, 14 and 21 -> recipe_label_vs_k53c4_paired_SUF_detf.json
rule_k53c4() { RULE_SEEDS="12 13 14 21" RULE_TAG=K53C4 rule_k53c12 "$@"; }  # LABEL PREFIX
# Pilots 96, 97, 99: K54 (K53 + AR's steady rhythms), K55 (K53 + short LVF seizures at real TUSZ
# times, BL), K56 (K53 + tail averaging) against K53
pilot96() { rule_k53c12 K54 k54; }
pilot97() { rule_k53c12 K55 k55; }
pilot99() { rule_k53c12 K56 k56; }
# Pilot 100: K57 (K53 + a learned cross-channel stage) against K53; _sel5lo: both floor-extended
pilot100() { rule_k53c12 K57 k57; }
pilot100l() { RULE_SUF=_sel5lo rule_k53c12 K57 k57; }
# Pilot 101: K58 (K53 distilled from K53's seeds 15-20) on seeds 12-13 (_sel5o, _sel5lo), then
# its extension to seeds 14 and 21; pilot 102: both at _sel5mo (the mid_off grid)
pilot101() { rule_k53c12 K58 k58; }
pilot101l() { RULE_SUF=_sel5lo rule_k53c12 K58 k58; }
pilot101x() { rule_k53c4 K58 k58; }
pilot102() { RULE_SUF=_sel5mo rule_k53c4 K58 k58; }
# Pilot 103: K59 (pure distillation) at _sel5o and _sel5mo
pilot103() { rule_k53c4 K59 k59; }
pilot103m() { RULE_SUF=_sel5mo rule_k53c4 K59 k59; }
# Pilot 104 (AMD EPYC): K60 (background rows distilled) and K61 (seizure rows) against K53's
# seeds retrained here (k53esNa), at _sel5mo, then _sel5o (RULE_SEEDS: the pairs finished;
# RULE_TAG: K53EC12 for seeds 12-13, K53EC3 for 12-14, as run)
pilot104() {
  local s v
  for s in _sel5mo _sel5o; do
    for v in 60 61; do RULE_REF=k53es RULE_TAG=${RULE_TAG:-K53EC12} RULE_SUF=$s rule_k53c12 K$v k$v; done
  done
}
# LABEL PREFIX against pilot 104's k53esNa (AMD EPYC) on seeds 12-14 at _sel5mo, then _sel5o
# (RULE_SEEDS: the pairs finished)
rule_k53es3() {  # LABEL PREFIX
  local s
  for s in _sel5mo _sel5o; do
    RULE_REF=k53es RULE_SEEDS=${RULE_SEEDS:-12 13 14} RULE_TAG=${RULE_TAG:-K53EC3} RULE_SUF=$s \
      rule_k53c12 "$1" "$2"
  done
}
# Pilot 107: K62 (K53 + the seizure-side hinge)
pilot107() { rule_k53es3 K62 k62; }
# Pilot 111: K63 (K53 with a 1 s analysis window, 16 filters)
pilot111() { rule_k53es3 K63 k63; }
# Pilot 113: K64 (K63 with a 0.5 s window)
pilot113() { rule_k53es3 K64 k64; }
# Pilot 114: K65 (K53 with a 0.1 s window)
pilot114() { rule_k53es3 K65 k65; }
# Pilot 115: K66 (K53 with --hard-pool 16)
pilot115() { rule_k53es3 K66 k66; }
# Pilot 116: K66 on seeds 12-17 -> recipe_k66_vs_k53ec6_paired_sel5{mo,o}_detf.json
pilot116() { RULE_SEEDS=${RULE_SEEDS:-12 13 14 15 16 17} RULE_TAG=K53EC6 rule_k53es3 K66 k66; }
# Pilot 117: K67 (--hard-pool 8) and K68 (--hard-pool 32) on seeds 12-14
pilot117() { rule_k53es3 K67 k67; rule_k53es3 K68 k68; }
# Onsets at matched sensitivity (tools/onset_frontier.py --matched, pilot 116's addendum): each
# seed's REFsNa against CANDsNa at the SUF points -> tools/results/onset_matched_OUT{SUF}.json
matched_onsets() {  # SUF REF_PREFIX CAND_PREFIX OUT SEED...
  local suf=$1 ref=$2 cand=$3 out=$4 s pairs=(); shift 4
  for s in "$@"; do pairs+=("${ref}${s}a:${cand}${s}a"); done
  python tools/onset_frontier.py --suffix "$suf" --matched "${pairs[@]}" \
    --out "tools/results/onset_matched_${out}${suf}.json"
}
# Pilot 118: K66 on seeds 12-20 -> recipe_k66_vs_k53ec9_paired_sel5{mo,o}_detf.json and the
# onsets at matched sensitivity, onset_matched_k66_vs_k53ec9_sel5{mo,o}.json
pilot118() {
  local suf seeds=${RULE_SEEDS:-12 13 14 15 16 17 18 19 20}
  RULE_SEEDS=$seeds RULE_TAG=K53EC9 rule_k53es3 K66 k66
  for suf in _sel5mo _sel5o; do matched_onsets "$suf" k53es k66s k66_vs_k53ec9 $seeds; done
}
# A pilot against K53 (seeds 12-14 and tag K53EC3 unless RULE_SEEDS / RULE_TAG say otherwise,
# _sel5mo): rule_k53es3 ENTRY RECIPE, then the onsets at matched sensitivity against K53
# (onset_matched_RECIPE_vs_TAG_sel5mo.json) and against each further recipe named on the same
# seeds (REF: REFsNa, onset_matched_RECIPE_vs_REF_sel5mo.json)
pilot_es3() {  # ENTRY RECIPE [REF...]
  local entry=$1 k=$2 ref seeds=${RULE_SEEDS:-12 13 14} tag=${RULE_TAG:-K53EC3}; shift 2
  RULE_SEEDS=$seeds RULE_TAG=$tag rule_k53es3 "$entry" "$k"
  matched_onsets _sel5mo k53es "${k}s" "${k}_vs_${tag,,}" $seeds
  for ref in "$@"; do matched_onsets _sel5mo "${ref}s" "${k}s" "${k}_vs_${ref}" $seeds; done
}
# Pilot 119: K69 (K61 + --hard-pool 16), against K53, K61 and K66
pilot119() { pilot_es3 K69 k69 k61 k66; }
# Pilot 121: K70 (K69 at distillation weight 0.25), against K53, K66 and K69
pilot121() { pilot_es3 K70 k70 k66 k69; }
# Pilot 122: K71 (K66 + the onset emphasis on the first 5 s, 6x), against K53 and K66
pilot122() { pilot_es3 K71 k71 k66; }
# Pilot 123: K72 (K69 + the onset emphasis), against K53, K69 and K71
pilot123() { pilot_es3 K72 k72 k69 k71; }
# Pilot 124: K73 (K69 taught by k66s15a-20a), against K53, K66 and K69
pilot124() { pilot_es3 K73 k73 k66 k69; }
# Pilot 125: K73 on seeds 12-14 and 21-23 against K53 (RULE_SEEDS: the seeds finished)
# -> recipe_k73_vs_k53ec6_paired_sel5{mo,o}_detf.json, onset_matched_k73_vs_k53ec6_sel5mo.json
pilot125() { RULE_SEEDS=${RULE_SEEDS:-12 13 14 21 22 23} RULE_TAG=K53EC6 pilot_es3 K73 k73; }
# The K66 amendment's rule (RULE_SEEDS: the pairs finished; fresh seeds 21-26, since seeds 12-20
# made the hypothesis on the AMD class): amendment 94's means, or the onset
# path pilot 118 read (2 s earlier at no more than 3 points lower, DET >= -2), at _sel5mo with
# _sel5o beside it; the onsets at matched sensitivity (pilot 118's second onset clause, read from
# onset_matched_*) -> recipe_k66_vs_k53c6_paired_sel5{mo,o}_detf.json, onset_matched_k66_vs_k53c6_*
rule_k66_on() {  # REF_PREFIX TAG SEED...
  local ref=$1 tag=$2 suf; shift 2
  for suf in _sel5mo _sel5o; do
    RULE_REF=$ref RULE_SEEDS="$*" RULE_TAG=$tag RULE_SUF=$suf \
      RULE_MEANS="-2:6.4:1:2:3:-2" rule_k53c12 K66 k66
    matched_onsets "$suf" "$ref" k66s "k66_vs_${tag,,}" "$@"
  done
}
# shellcheck disable=SC2086
rule_k66a() { rule_k66_on k53s K53C6 ${RULE_SEEDS:-21 22 23 24 25 26}; }
# Amendment 127: the same rule against K53's k53esNa on the fresh seeds 24-29 (each pair's two
# members trained on one machine, its CPU class recorded: the second addendum)
# -> recipe_k66_vs_k53ea6_paired_sel5{mo,o}_detf.json, onset_matched_k66_vs_k53ea6_sel5{mo,o}.json
# shellcheck disable=SC2086
rule_k66e() { rule_k66_on k53es K53EA6 ${RULE_SEEDS:-24 25 26 27 28 29}; }
# Pilot 98: one model NAME (an ensemble of K53's seeds) against those seeds' mean at the _sel5o
# points (amendment 54's form: more than 5.0 points ahead, DET mean not below theirs)
# -> recipe_label_vs_k53_single.json. ENS_PREFIX: the seeds' name before the seed (default k53s;
# other prefixes -> recipe_label_vs_PREFIX_single.json); P98_SUF: the points (default _sel5o;
# another -> ..._single_SUF.json)
pilot98() {  # LABEL NAME SEED...
  local label=$1 name=$2 op=tools/results/operating_point_ rc=tools/results/real_checks_
  local pre=${ENS_PREFIX:-k53s} suf=${P98_SUF:-_sel5o} vs; shift 2
  vs=$([ "$pre" = k53s ] && echo k53 || echo "$pre")
  local -a ref; mapfile -t ref < <(printf "${pre}%sa\n" "$@")
  python tools/judge_recipes.py --single-margin 5 --det-max-flag-ratio 2 \
    --reference "${pre^^}=$(printf "$op%s$suf.json\n" "${ref[@]}" | paste -sd,)" \
    --candidate "$label=$op$name$suf.json" \
    --real "${pre^^}=$(printf "$rc%s.json\n" "${ref[@]}" | paste -sd,)" --real "$label=$rc$name.json" \
    --out "tools/results/recipe_${label,,}_vs_${vs}_single${suf#_sel5o}.json"
}
# Amendment 94: K53 against K15 on the fresh seeds 15-20 (RULE_SEEDS: the pairs finished so far)
# -> recipe_k53_vs_k15c12_paired_sel5o_detf_a94.json
rule94() { RULE_OUT=_a94${RULE_OUT:-} rule_k15c12 K53 k53 "15 16 17 18 19 20"; }
# Amendment 94's gates (amendment 75's, in order) on K53's seed K at its _sel5o point, its K15
# pair P beside it: O + O2 (own_gate, SHIP=ship5o), then the real checks at that point (TUH
# background, CHB-MIT) and the replay of the bundled recording -> $WORK/K_ship5o,
# tools/results/own_gate_{K,P}_ship5o.json, real_checks_K_ship5o.json, $WORK/replay_K_ship5o
gates94() {  # K P
  local k
  for k in "$1" "$2"; do
    SHIP=ship5o POINT_SUF=_sel5o at_point "$k"
    SHIP=ship5o POINT_SUF=_sel5o own_gate "$k"
  done
  python tools/real_checks.py --model "$WORK/$1_ship5o" --no-bonn \
    --out "tools/results/real_checks_$1_ship5o.json"
  rt-eeg replay data_samples/sample_s001_t000.edf --model "$WORK/$1_ship5o" --speed max \
    --no-monitor --out "$WORK/replay_$1_ship5o"
}
# After the gates pass: the REPORT corpora (and the independent generators' held-out corpora)
# decoded once with K at its _sel5o point ($WORK/eval_K_ship5o_C), chosen on by nothing ->
# tools/results/heldout_K_ship5o.json (tools/compare_heldout.py)
report94() {  # K
  local c s=$1_ship5o
  for c in U U2 R XR XRB XTD XEB XHB; do decode_once "$WORK/$c.list" "$WORK/$s" "$WORK/eval_${s}_$c"; done
  python tools/compare_heldout.py --model "${1^^}=$WORK/eval_$s" \
    --corpora U,U2,R,XR,XRB,XTD,XEB,XHB,O,O2 --out "tools/results/heldout_$s.json"
}
