#!/usr/bin/env bash
# The recipe for models/default: simulated corpora, training, tuning on dev, held-out
# evaluation on simulated patients the model never saw. Run from the repository root with
# the project's venv active (make test creates it). Takes about an hour on 2 CPU cores.
#
#   A: 48 h, 20 patients (train/dev used for training; its eval split is not used)
#   B: the real TUSZ v2 sample annotation tree (../shared/data/tusz_v2_sample) mirrored with
#      simulated signal: 30 h, real seizure times and montages (train/dev)
#   C: 24 h, 10 new patients (another seed): the held-out evaluation corpus
set -euo pipefail
WORK=${WORK:-/work/sim}
SHARED=${SHARED:-../shared/data/tusz_v2_sample}
mkdir -p "$WORK"
rt-eeg simulate --out "$WORK/corpus_a" --hours 48 --patients 20 --seed 1
rt-eeg simulate --out "$WORK/corpus_b" --from-annotations "$SHARED" --seed 2
rt-eeg simulate --out "$WORK/corpus_c" --hours 24 --patients 10 --seed 3
find "$WORK/corpus_a/edf/train" "$WORK/corpus_a/edf/dev" "$WORK/corpus_b/edf" -name '*.edf' | sort > "$WORK/train.list"
find "$WORK/corpus_c/edf" -name '*.edf' | sort > "$WORK/heldout.list"
rt-eeg train --corpus "$WORK/train.list" --out models/default --seed 0 --arch compare --store "$WORK/store"
# operating point: most sensitive postprocessor settings with <= 2 FA/24 h on dev
find "$WORK/corpus_a/edf/dev" "$WORK/corpus_b/edf/dev" -name '*.edf' | sort > "$WORK/dev.list"
rt-eeg evaluate --list "$WORK/dev.list" --model models/default --out "$WORK/eval_dev" --sweep --target-fa 2
rt-eeg evaluate --list "$WORK/heldout.list" --model models/default --out "$WORK/eval_heldout"
