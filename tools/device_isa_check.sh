#!/usr/bin/env bash
# Cross-CPU reproducibility of the ISA-sensitive generators (dip, epileptor): short corpora at
# each numpy SIMD level this CPU has, their EDF bytes hashed. Run on two machines with the same
# numpy and scipy and compare the hashes level by level (README "Reproducibility across CPUs").
#
#     OUT=/some/folder bash tools/device_isa_check.sh     # writes $OUT/isa_hashes.json
#
# On the lent device machine pyedflib and tomli_w travel as wheels in .whl/ (cp312).
set -uo pipefail
OUT=${OUT:?OUT must name the output folder}
PY=${PY:-python3}
cd "$(dirname "$0")/.." || exit 2
if ! "$PY" -c "import pyedflib, tomli_w" 2> /dev/null && compgen -G ".whl/*.whl" > /dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH="/tmp/site:$PWD"
fi
export PYTHONPATH="${PYTHONPATH:-$PWD}" PYTHONUNBUFFERED=1
# the levels: default dispatch; X86_V4 (AVX-512 SKX) when present; AVX2 (X86_V3)
declare -A level=()
while IFS=$'\t' read -r name disabled; do level[$name]=$disabled; done < <(
  "$PY" -m rt_eeg.numeric_env --numpy-levels) || exit 4
[ "${#level[@]}" -gt 0 ] || exit 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT  # up to a few GB of corpora
rows=()
for name in "${!level[@]}"; do
  for gen in dip:51:6:4 epileptor:60:2:2; do
    IFS=: read -r g seed hours patients <<< "$gen"; d="$tmp/$name-$g"
    NPY_DISABLE_CPU_FEATURES="${level[$name]}" "$PY" -m rt_eeg.cli simulate --out "$d" \
      --generator "$g" --hours "$hours" --patients "$patients" --seed "$seed" --workers 2 > "$d.log" 2>&1 ||
      { tail -5 "$d.log"; exit 5; }
    h=$(cd "$d" && find edf -name '*.edf' | sort | xargs sha256sum | sha256sum | cut -c1-16)
    rows+=("{\"level\": \"$name\", \"disabled\": \"${level[$name]}\", \"generator\": \"$g\", \"hours\": $hours, \"patients\": $patients, \"edf_sha256_16\": \"$h\"}")
    echo "$name $g $h"
  done
done
"$PY" - "$OUT/isa_hashes.json" "${rows[@]}" <<'PYEOF'
import json, sys
import numpy, scipy
from rt_eeg.numeric_env import numeric_environment
doc = {"numeric_environment": numeric_environment(), "numpy": numpy.__version__,
       "scipy": scipy.__version__, "python": sys.version.split()[0],
       "runs": [json.loads(r) for r in sys.argv[2:]]}
json.dump(doc, open(sys.argv[1], "w"), indent=1)
print(json.dumps({k: v for k, v in doc.items() if k != "runs"}))
PYEOF
