#!/usr/bin/env bash
# tools/bench_ward.py on a lent device machine (16 cores, no TensorFlow, no internet).
#
# Run from the repository root with OUT set (the device tool sets it), the wheels of the
# packages the device lacks in .whl/ (pyzmq, pyedflib, ai-edge-litert; cp312 manylinux):
#
#     bash tools/device_ward.sh
#
# Writes $OUT/bench_ward_16core.json (bench_ward.py's JSON, one N at a time with --merge, so
# the N measured so far survive a timeout) and $OUT/log.txt (everything printed).
# Environment knobs: BEDS (ascending), WINDOW (s), BUDGET (s from the start after which no
# further N starts), PY (interpreter), SITE (where the wheels go).
#
# Two device-only safeguards (both causes are fixed in the repository since; kept so an older
# checkout runs too): the wheels' folder is put on every process's sys.path by a .pth file in
# the interpreter's site-packages (bench_ward.py used to replace PYTHONPATH for serve), and an
# inert pyqtgraph.Qt stand-in is written when Qt does not import (the command line used to
# import it while building its parser).
set -uo pipefail

OUT=${OUT:?OUT must name the output folder}
PY=${PY:-python3}
BEDS=${BEDS:-1,32,64,128,192,256}
WINDOW=${WINDOW:-20}
BUDGET=${BUDGET:-375}
SITE=${SITE:-/tmp/site}
RES="$OUT/bench_ward_16core.json"
LOG="$OUT/log.txt"
FAILED=()
verdict=

cd "$(dirname "$0")/.." || exit 2
mkdir -p "$OUT"

step() { echo; echo "=== [$(date +%T) +${SECONDS}s] $*"; }
fail() { echo "!!! STEP FAILED: $*"; FAILED+=("$*"); }

# bench_n N: one bench_ward.py run, merged into $RES; sets verdict (ok|slow|error|missing).
# Returns 1, running nothing, when the budget has no room for it.
bench_n() {
    local n=$1 n_est left rc
    # start-up + settle + window + added bed + stop: ~0.25 s/bed is generous on 16 cores
    n_est=$(( ${WINDOW%.*} + 20 + n / 4 ))
    left=$(( BUDGET - SECONDS ))
    if (( n_est > left )); then
        echo "skip N=$n (and larger): needs ~${n_est}s, ${left}s left of the budget"
        return 1
    fi
    step "N=$n (estimate ${n_est}s)"
    timeout -k 20 $(( left + 20 )) "$PY" tools/bench_ward.py --beds "$n" --seconds "$WINDOW" \
        --out "$RES" --merge
    rc=$?
    (( rc == 0 )) || fail "bench_ward.py N=$n exited $rc"
    verdict=$("$PY" - "$RES" "$n" <<'EOF'
import json, sys
try:
    runs = json.load(open(sys.argv[1]))["runs"]
except Exception:
    print("missing"); sys.exit()
r = next((r for r in runs if r["n_beds"] == int(sys.argv[2])), None)
p95 = ((r or {}).get("latency_ms") or {}).get("p95")
print("missing" if r is None else "error" if r.get("error") else "ok" if p95 is not None and p95 <= 100 else "slow")
EOF
)
    echo "N=$n: $verdict (after ${SECONDS}s)"
}

main() {
    export PYTHONUNBUFFERED=1
    step "wheels -> $SITE"
    ls -l .whl/ || fail "no .whl folder"
    if "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$SITE" .whl/*.whl; then
        ls "$SITE"
    else
        fail "pip install of .whl/*.whl"
    fi
    export PYTHONPATH="$SITE:$PWD"

    step "put $SITE on sys.path of every process (bench_ward.py resets PYTHONPATH for serve)"
    local sp vis="$SITE" d
    sp=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    if printf 'import sys; p = %s; p in sys.path or sys.path.insert(0, p)\n' "'$SITE'" \
        > "$sp/zz_rt_eeg_device_site.pth"; then
        echo "wrote $sp/zz_rt_eeg_device_site.pth"
    else
        vis=$PWD
        echo "cannot write a .pth into $sp: copying the packages into the repository root instead"
        for d in "$SITE"/*; do
            [[ $(basename "$d") == bin ]] || cp -r "$d" "$vis/" || fail "copy $d to $vis"
        done
    fi
    PYTHONPATH="$PWD" "$PY" -c 'import zmq, pyedflib, ai_edge_litert.interpreter; print("zmq", zmq.__version__, "pyedflib", pyedflib.__version__, "ai_edge_litert: seen with PYTHONPATH=repo only")' \
        || fail "the wheels are not importable with PYTHONPATH=repo (as serve runs)"

    step "pyqtgraph.Qt (imported by rt_eeg/ward/overview.py when rt_eeg.cli builds its parser)"
    if PYTHONPATH="$PWD" "$PY" -c 'import pyqtgraph.Qt' 2>/dev/null; then
        echo "pyqtgraph.Qt imports: no stand-in needed"
    else
        echo "pyqtgraph.Qt does not import here: writing an inert stand-in to $vis/pyqtgraph"
        mkdir -p "$vis/pyqtgraph"
        echo '"""Device-only stand-in (no Qt here) so that `python -m rt_eeg.cli serve` builds its parser."""' \
            > "$vis/pyqtgraph/__init__.py"
        cat > "$vis/pyqtgraph/Qt.py" <<'EOF'
"""Any attribute is a class that accepts any arguments: enough for class statements."""


class _Meta(type):
    def __getattr__(cls, name):
        return _Stub


class _Stub(metaclass=_Meta):
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return _Stub

    def __call__(self, *args, **kwargs):
        return _Stub()


QtCore = QtGui = QtWidgets = _Stub
EOF
        PYTHONPATH="$PWD" "$PY" -c 'import rt_eeg.ward.overview' || fail "rt_eeg.ward.overview does not import with the stand-in"
    fi

    step "machine"
    echo "nproc: $(nproc)"
    "$PY" -c 'import sys, platform, numpy, scipy; print("python", sys.version.split()[0], sys.executable); print(platform.platform()); print("numpy", numpy.__version__, "scipy", scipy.__version__)' \
        || fail "python/numpy/scipy"
    nvidia-smi -L || fail "nvidia-smi -L"
    grep -m1 'model name' /proc/cpuinfo
    free -g | head -2
    echo "loadavg: $(cat /proc/loadavg); ulimit -n: $(ulimit -n)"

    step "serve import path: parser builds; no tensorflow/keras/PySide6 imported"
    PYTHONPATH="$PWD" "$PY" - <<'EOF' || fail "serve import check"
import sys, time
t = time.perf_counter()
from rt_eeg.cli import build_parser
import rt_eeg.commands.serve, rt_eeg.ward.service, rt_eeg.ward.bed, rt_eeg.ward.batcher
import rt_eeg.decoder, rt_eeg.features, rt_eeg.postprocess, rt_eeg.sources
import ai_edge_litert.interpreter
build_parser().parse_args(["serve", "--config", "ward.toml"])
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"tensorflow", "keras", "pyqtgraph", "PySide6", "shiboken6", "matplotlib", "dask", "pylsl"})
print(f"imports {time.perf_counter() - t:.2f} s; heavy modules loaded: {heavy or 'none'} (a pyqtgraph here is the stand-in when one was written above)")
EOF
    ls -l models/default/model.tflite || fail "models/default/model.tflite missing (the decoder would need TensorFlow)"

    step "bench_ward.py: beds $BEDS, window ${WINDOW}s, no new N after ${BUDGET}s"
    rm -f "$RES"
    local last_ok=0 first_bad=0 n mid
    local -a ns
    IFS=, read -r -a ns <<< "$BEDS"
    for n in "${ns[@]}"; do
        bench_n "$n" || break
        if [[ $verdict == ok ]]; then
            last_ok=$n
        else
            first_bad=$n
            echo "N=$n not sustained (largest sustained so far: $last_ok); no larger N"
            break
        fi
    done
    # one bisection step between the last N sustained and the first not, if time allows
    mid=$(( (last_ok + first_bad) / 2 / 8 * 8 ))
    if (( last_ok > 0 && first_bad > 0 && mid > last_ok )); then
        bench_n "$mid" && echo "bisection N=$mid: $verdict"
    fi

    step "summary"
    if [[ -f $RES ]]; then
        "$PY" - "$RES" <<'EOF' || fail "summary"
import json, sys
d = json.load(open(sys.argv[1]))
print("machine", d["machine"], "window_s", d["window_s"])
print(f"{'N':>4} {'start_s':>7} {'p50':>6} {'p95':>7} {'max':>8} {'cpu/bed':>7} {'decoder':>7} {'service':>7} {'pss/bed':>7} {'load':>6}  error")
for r in d["runs"]:
    lat = r.get("latency_ms") or {}
    print(f"{r['n_beds']:>4} {r.get('startup_s')!s:>7} {lat.get('p50')!s:>6} {lat.get('p95')!s:>7} {lat.get('max')!s:>8} "
          f"{r.get('cpu_total_per_bed_cores')!s:>7} {r.get('cpu_decoder_cores')!s:>7} {r.get('cpu_service_cores')!s:>7} "
          f"{r.get('pss_per_bed_mb')!s:>7} {(r.get('load_avg_during') or [None])[0]!s:>6}  {r.get('error', '')}")
print("largest N with p95 <= 100 ms:", d["largest_n_with_p95_le_100ms"])
EOF
    else
        fail "no $RES"
    fi
    echo "total ${SECONDS}s"
    if (( ${#FAILED[@]} )); then
        printf '!!! failed: %s\n' "${FAILED[@]}"
        return 1
    fi
    echo "all steps succeeded"
}

main 2>&1 | tee -a "$LOG"
