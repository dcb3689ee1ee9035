#!/bin/sh
# fuzz.sh SECONDS [TARGET...] - run libFuzzer targets for SECONDS each
# fuzz.sh --runs N [TARGET...] - run each until it has executed N inputs (the
#           seed corpus included), however long that takes: the campaign
#           that counts executions
# (default targets: reader onnx onnx_value npy records schedule).  Each prints its
# executions, the CPU seconds they took and the rate.
#
#   reader  the TVMScript reader and printer; its corpus (build/fuzz/corpus)
#           is seeded from the golden test files each time, so a fresh
#           checkout starts from real programs and a longer local run keeps
#           what it found;
#   onnx    the ONNX importer; its corpus (build/fuzz/corpus_onnx) is seeded
#           with the conformance suite's models when the suite is found
#           ($MLC_ONNX_TESTS, default ../shared/onnx-node-tests).
#   (the ONNX corpus also gets tests/golden/onnx_errors/, the models the
#   fuzzer once failed on);
#   onnx_value  the reader of the conformance data's values (TensorProto,
#           SequenceProto, OptionalProto; the first byte picks which); its
#           corpus (build/fuzz/corpus_onnx_value) is seeded with the suite's
#           test data when the suite is found;
#   npy     the runtime's .npy and .npz readers (the input's first byte picks
#           which); its corpus (build/fuzz/corpus_npy) is seeded with .npy
#           and .npz files written by the unit tests' fixtures and by numpy
#           when python3 with numpy is found;
#   records the tuning database's reader (JSON lines); its corpus
#           (build/fuzz/corpus_records) is seeded with tests/e2e/tuning.jsonl
#           and a record as `mlcc tune` writes it.
#   schedule  schedule scripts applied to a fixed matmul + relu module; its
#           corpus (build/fuzz/corpus_schedule) is seeded with the golden
#           schedule scripts.
#
# Fails (non-zero) when a fuzzer reports a crash, a leak or a sanitizer
# error; crash inputs are left in build/fuzz/.
set -eu

usage() { echo "usage: scripts/fuzz.sh SECONDS [TARGET...] | --runs N [TARGET...]" >&2; exit 2; }
if [ "${1:-}" = --runs ]; then
  [ $# -ge 2 ] || usage
  runs=$2 secs=0
  shift 2
else
  runs=-1 secs=${1:-60}
  [ $# -gt 0 ] && shift
fi
case "$secs$runs" in
  *[!0-9-]*|-*) usage ;;
esac
[ "$runs" = 0 ] && usage
targets=${*:-reader onnx onnx_value npy records schedule}

cd "$(dirname "$0")/.."
make -j2 fuzz

seed_reader() {
  find tests/golden -name '*.py' -type f | while IFS= read -r f; do
    # flatten the path so files of the same name in different folders both stay
    cp "$f" "$1/$(printf '%s' "$f" | tr '/' '_')"
  done
}

seed_onnx() {
  cp tests/golden/onnx_errors/*.onnx "$1/"
  suite=${MLC_ONNX_TESTS:-../shared/onnx-node-tests}
  [ -d "$suite" ] || return 0
  for d in "$suite"/test_*; do
    [ -f "$d/model.onnx" ] && cp "$d/model.onnx" "$1/$(basename "$d").onnx"
  done
  return 0
}

# one file per seed: the selector byte (0 tensor, 1 sequence, 2 optional), then
# the test data of the suite's sequence and optional tests
seed_onnx_value() {
  suite=${MLC_ONNX_TESTS:-../shared/onnx-node-tests}
  [ -d "$suite" ] || return 0
  for d in "$suite"/test_sequence_* "$suite"/test_optional_* "$suite"/test_identity_opt; do
    for f in "$d"/test_data_set_0/*.pb; do
      [ -f "$f" ] || continue
      for sel in 0 1 2; do
        { printf "\\00$sel"; cat "$f"; } >"$1/$(basename "$d")_$(basename "$f" .pb)_$sel"
      done
    done
  done
  return 0
}

# one file per seed: the selector byte (0 .npy, 1 .npz), then the file
seed_npy() {
  # a hand-made .npy of two float32 zeros (header length 58 = octal 072)
  printf '\000\223NUMPY\001\000\072\000%s\000\000\000\000\000\000\000\000' \
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" >"$1/min.npy"
  if command -v python3 >/dev/null 2>&1 && python3 -c 'import numpy' 2>/dev/null; then
    python3 - "$1" <<'PY'
import io, sys, numpy as np
out = sys.argv[1]
def save(name, sel, data):
    open(f"{out}/{name}", "wb").write(bytes([sel]) + data)
for i, a in enumerate([np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1, -2], dtype=">i8"),
                       np.zeros((0, 4), dtype=np.uint8), np.array(True)]):
    b = io.BytesIO(); np.save(b, a); save(f"npy{i}", 0, b.getvalue())
    b = io.BytesIO(); np.savez(b, x=a, y=a[...]); save(f"npz{i}", 1, b.getvalue())
    b = io.BytesIO(); np.savez_compressed(b, x=a); save(f"npzc{i}", 1, b.getvalue())
PY
  fi
  return 0
}

seed_records() {
  cp tests/e2e/tuning.jsonl "$1/report.jsonl"
  cat >"$1/tune.jsonl" <<'JSONL'
{"workload":"40e2813038fc8a52","func":"mm_relu","target":{"cpu":"CPU","features":"avx2,fma","threads":2},"space":2,"decisions":"[[32,1,2,2],[1,4,32,1],[2,64],3]","trace":"b0 = sch.get_block(\"Y\")\n","seconds":5.3e-05,"gflops":79.8,"task":"mm_relu","elapsed_s":1.5,"latency_s":5.3e-05,"weight":1}
{"workload":"40e2813038fc8a52","func":"mm_relu","target":{"cpu":"CPU","features":"avx2,fma","threads":2},"space":0,"decisions":"[]","trace":"","seconds":null,"error":"timed out","task":"mm_relu","elapsed_s":2}
JSONL
  return 0
}

seed_schedule() {
  for f in tests/golden/schedule/*/schedule.py; do
    cp "$f" "$1/$(basename "$(dirname "$f")").py"
  done
}

# CPU seconds (user + system) the finished children of this shell have used:
# a rate per CPU second compares runs on a loaded machine, where wall time
# depends on what else runs
# (`times` runs in this shell, not in a $(...) subshell, which has no children)
cpu_seconds() {
  times >build/fuzz/times.txt
  cpu=$(awk 'NR == 2 { split($1 " " $2, a, /[ms]/); print int(a[1] * 60 + a[2] + a[3] * 60 + a[4]) }' build/fuzz/times.txt)
}

status=0
for t in $targets; do
  case "$t" in
    reader) corpus=build/fuzz/corpus ;;
    onnx) corpus=build/fuzz/corpus_onnx ;;
    onnx_value) corpus=build/fuzz/corpus_onnx_value ;;
    npy) corpus=build/fuzz/corpus_npy ;;
    records) corpus=build/fuzz/corpus_records ;;
    schedule) corpus=build/fuzz/corpus_schedule ;;
    *) echo "fuzz.sh: unknown target '$t'" >&2; exit 2 ;;
  esac
  mkdir -p "$corpus"
  "seed_$t" "$corpus"
  log=build/fuzz/fuzz_$t.log
  st=0
  start=$(date +%s)
  cpu_seconds
  cpu0=$cpu
  "build/fuzz/fuzz_$t" -max_total_time="$secs" -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=build/fuzz/ -print_final_stats=1 "$corpus" >"$log" 2>&1 || st=$?
  cpu_seconds
  cpu=$((cpu - cpu0))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
  echo "fuzz_$t: ${execs:-0} executions in $(($(date +%s) - start))s, ${cpu}s of CPU" \
    "($(( ${execs:-0} / (cpu > 0 ? cpu : 1) )) per CPU second; ${cov:-no coverage line})"
  if [ "$st" -ne 0 ]; then
    echo "fuzz_$t: FAILED (exit $st); the end of $log:" >&2
    tail -n 40 "$log" >&2
    status=1
  fi
done
exit $status
