# SELECT v2 (protocol amendment 23): the five voices every operating point and every recipe
# is chosen on, one voice each (means over corpora). Sourced by tools/make_default_model.sh and
# tools/xgen_round.sh, so the definition lives in one place. Needs WORK (the corpora's lists)
# and J (worker processes).
#   SS  our simulator's S + S2 (decoded in the EVAL_PREFIX_SEL folder, with XS)
#   XS  nmm      XCC mvar (XC + XCB)      XT3 simple      XT4 atoms
# LIST decoded by MODEL into OUT, unless OUT/report.json (written last, atomically) says it was
# already: the one "decode once" every judging step uses (J worker processes)
decode_once() {  # LIST MODEL OUT [rt-eeg evaluate option...]
  local list=$1 model=$2 out=$3; shift 3
  [ -f "$out/report.json" ] ||
    rt-eeg evaluate --list "$list" --model "$model" --out "$out" --workers "$J" "$@"
}
# The corpora decoded for the five voices: each in the folder EVAL_PREFIX_NAME, its files in NAME.list
SELECT_V2_DECODED="SEL XCC XT3 XT4"
select_v2_tune() {  # MODEL EVAL_PREFIX OUT_JSON OUT_TOML [operating_point.py option...]
  local model=$1 e=$2 out=$3 toml=$4; shift 4
  python tools/operating_point.py --model "$model" --weigh corpora --target-fa 5 --workers "$J" \
    --tune SS="$WORK/SS.list:${e}_SEL" --tune XS="$WORK/XS.list:${e}_SEL" \
    --tune XCC="$WORK/XCC.list:${e}_XCC" --tune XT3="$WORK/XT3.list:${e}_XT3" \
    --tune XT4="$WORK/XT4.list:${e}_XT4" "$@" --out "$out" --toml "$toml"
}
# Per-generator scores (tools/family_scores.py: each voice's families, the background epochs at
# the top of the score range) from the decoded corpora -> OUT_JSON
select_v2_scores() {  # EVAL_PREFIX OUT_JSON
  local e=$1 c; local -a corpora=()
  for c in $SELECT_V2_DECODED; do corpora+=(--corpus "$c=$WORK/$c.list:${e}_$c"); done
  python tools/family_scores.py "${corpora[@]}" --out "$2" > /dev/null
}
