#!/bin/sh
# run.sh - run every unit test binary and every golden data test, and end with
# one line "N passed, N failed" (non-zero exit when anything failed).
#
# Unit binaries print "ok NAME" / "FAIL NAME: ..." lines (tests/unit/check.h),
# and "skip NAME: why" for a check that needs what the machine lacks;
# a binary that dies or exits non-zero without a FAIL line counts as one
# failure under its own name, so a crash can never pass silently.  Golden tests
# are data: adding a case means adding a file under tests/golden/ (see the
# README there).  Each file (or equal pair) is one test.
#
# Environment: MLCC (the CLI), UNIT_DIR (unit binaries) and UNIT_BINS (the
# list of them to run), set by `make test`; VERBOSE=1 also prints the ok
# lines.
set -u

MLCC=${MLCC:-build/mlcc}
UNIT_DIR=${UNIT_DIR:-build/tests}
GOLDEN=${GOLDEN:-tests/golden}
VERBOSE=${VERBOSE:-0}
# a program that loops must fail its test, not hang the suite (seconds; a
# unit binary runs many tests, a golden test is one mlcc call)
UNIT_TIME_LIMIT=${UNIT_TIME_LIMIT:-900}
MLCC_TIME_LIMIT=${MLCC_TIME_LIMIT:-60}
# under the sanitizers, PoCL (the OpenCL device on a machine without a GPU)
# runs kernels on one worker thread: LeakSanitizer's check at exit stops
# every thread, and its tracer crashes on PoCL's pool of workers
if [ "${SAN:-}" = 1 ]; then
  POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-1}
  export POCL_MAX_PTHREAD_COUNT
fi

passed=0
failed=0
skipped=0 # tests that need what the machine lacks say so on a "skip" line
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mlcc-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT PIPE TERM # through the EXIT trap, which cleans up

pass() {
  passed=$((passed + 1))
  [ "$VERBOSE" = 1 ] && echo "ok $1"
  return 0
}
fail() { # NAME REASON [FILE whose first lines explain]
  failed=$((failed + 1))
  echo "FAIL $1: $2"
  if [ $# -ge 3 ] && [ -s "$3" ]; then head -n 8 "$3" | sed 's/^/    /'; fi
  return 0
}

# limited SECONDS COMMAND...: run COMMAND, killed after SECONDS (exit 124)
if command -v timeout >/dev/null 2>&1; then
  limited() { timeout "$@"; }
else
  limited() { shift; "$@"; }
fi

# crashed RC STDERR_FILE: true when the process died by a signal, timed out,
# or a sanitizer reported an error (ASan/UBSan exit with a small status).
crashed() {
  [ "$1" -ge 124 ] && return 0
  grep -q -e 'Sanitizer' -e 'runtime error:' "$2" 2>/dev/null
}

# crash_reason RC: what a crashed() status means, for the FAIL line
crash_reason() {
  if [ "$1" -eq 124 ]; then echo "timed out"
  elif [ "$1" -gt 128 ]; then echo "killed by signal $(($1 - 128))"
  elif [ "$1" -gt 124 ]; then echo "could not run (status $1)"
  else echo "sanitizer report (status $1)"
  fi
}

# ---- unit tests ---------------------------------------------------------------

run_unit() { # BINARY
  name=$(basename "$1")
  out=$tmp/unit.out
  err=$tmp/unit.err
  limited "$UNIT_TIME_LIMIT" "$1" >"$out" 2>"$err"
  rc=$?
  n_ok=$(grep -c '^ok ' "$out")
  n_fail=$(grep -c '^FAIL ' "$out")
  n_skip=$(grep -c '^skip ' "$out")
  passed=$((passed + n_ok))
  failed=$((failed + n_fail))
  skipped=$((skipped + n_skip))
  grep -e '^FAIL ' -e '^skip ' "$out"
  [ "$VERBOSE" = 1 ] && grep '^ok ' "$out"
  # progress: some binaries run for a minute without a word
  echo "  $name: $n_ok passed$([ "$n_fail" -gt 0 ] && echo ", $n_fail failed")"
  if crashed "$rc" "$err"; then
    fail "$name" "$(crash_reason "$rc")" "$err"
  elif [ "$rc" -ne 0 ] && [ "$n_fail" -eq 0 ]; then
    fail "$name" "exited with status $rc without a FAIL line" "$err"
  fi
}

# the binaries make built from tests/unit/ (UNIT_BINS), so that one left
# behind by a renamed or removed test is not run; else all of UNIT_DIR
if [ -n "${UNIT_BINS:-}" ]; then
  for bin in $UNIT_BINS; do
    if [ -f "$bin" ] && [ -x "$bin" ]; then run_unit "$bin"; else fail "$(basename "$bin")" "not built"; fi
  done
elif [ -d "$UNIT_DIR" ]; then
  for bin in "$UNIT_DIR"/*; do
    [ -f "$bin" ] && [ -x "$bin" ] && run_unit "$bin"
  done
fi

# ---- golden data ---------------------------------------------------------------

if [ ! -x "$MLCC" ]; then
  fail mlcc "$MLCC is not an executable; golden tests not run"
  echo "$passed passed, $failed failed"
  exit 1
fi

# mlcc ARGS...: run the CLI with stdout in $tmp/out, stderr in $tmp/err; sets rc
mlcc() {
  limited "$MLCC_TIME_LIMIT" "$MLCC" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}

# roundtrip FILE: reads; its canonical text reads back equal; formatting is
# idempotent; *.canonical.py files are already canonical.
roundtrip() {
  f=$1
  mlcc fmt "$f"
  if crashed "$rc" "$tmp/err"; then fail "$f" "$(crash_reason "$rc")" "$tmp/err"; return; fi
  [ "$rc" -eq 0 ] || { fail "$f" "fmt exited $rc" "$tmp/err"; return; }
  cp "$tmp/out" "$tmp/fmt1.py"
  mlcc fmt "$tmp/fmt1.py"
  if crashed "$rc" "$tmp/err"; then fail "$f" "reading its formatted text: $(crash_reason "$rc")" "$tmp/err"; return; fi
  [ "$rc" -eq 0 ] || { fail "$f" "formatted text does not read back (exit $rc)" "$tmp/err"; return; }
  cmp -s "$tmp/fmt1.py" "$tmp/out" || { fail "$f" "fmt is not idempotent (fmt of fmt differs)"; return; }
  mlcc equal "$f" "$tmp/fmt1.py"
  if crashed "$rc" "$tmp/err"; then fail "$f" "equal: $(crash_reason "$rc")" "$tmp/err"; return; fi
  [ "$rc" -eq 0 ] || { fail "$f" "formatted module is not equal to the original (exit $rc)" "$tmp/out"; return; }
  case "$f" in
    *.canonical.py)
      mlcc fmt --check "$f"
      [ "$rc" -eq 0 ] || { fail "$f" "fmt --check: not canonical (exit $rc)" "$tmp/err"; return; }
      ;;
  esac
  pass "$f"
}

# equal_pair A B: the first line of A says "# expect: equal" or "# expect:
# differ", an optional second "# diff: TEXT" is looked for in the output.
# Equality must also be symmetric.
equal_pair() {
  a=$1 b=$2
  expect=$(sed -n '1s/^# expect: *//p' "$a")
  want_diff=$(sed -n '2s/^# diff: *//p' "$a")
  case "$expect" in
    equal) want=0 ;;
    differ) want=1 ;;
    *) fail "$a" "first line must be '# expect: equal' or '# expect: differ'"; return ;;
  esac
  mlcc equal "$b" "$a"
  if crashed "$rc" "$tmp/err"; then fail "$a" "B A: $(crash_reason "$rc")" "$tmp/err"; return; fi
  rc_ba=$rc
  mlcc equal "$a" "$b"
  if crashed "$rc" "$tmp/err"; then fail "$a" "$(crash_reason "$rc")" "$tmp/err"; return; fi
  [ "$rc" -eq "$want" ] || { fail "$a" "expected $expect, equal exited $rc" "$tmp/out"; head -n 4 "$tmp/err" | sed 's/^/    /'; return; }
  [ "$rc_ba" -eq "$rc" ] || { fail "$a" "not symmetric: A B exits $rc, B A exits $rc_ba"; return; }
  if [ -n "$want_diff" ] && ! grep -qF -e "$want_diff" "$tmp/out"; then
    fail "$a" "output lacks '$want_diff'" "$tmp/out"; return
  fi
  pass "$a"
}

# error_case FILE EXPECT: EXPECT is "LINE:COL: TEXT"; fmt must exit 2 with
# "FILE:LINE:COL: error: ...TEXT..." on stderr and must not crash.
error_case() {
  f=$1
  spec=$2
  loc=${spec%%: *}
  want=${spec#*: }
  case "$loc" in
    *[0-9]:[0-9]*) ;;
    *) fail "$f" "bad expectation '$spec' (want LINE:COL: TEXT)"; return ;;
  esac
  mlcc fmt "$f"
  if crashed "$rc" "$tmp/err"; then fail "$f" "$(crash_reason "$rc")" "$tmp/err"; return; fi
  [ "$rc" -eq 2 ] || { fail "$f" "expected exit 2, got $rc" "$tmp/err"; return; }
  line=$(grep -F -e "$f:$loc: error:" "$tmp/err" | head -n 1)
  [ -n "$line" ] || { fail "$f" "no '$f:$loc: error:' line" "$tmp/err"; return; }
  msg=${line#*": error: "} # the file name must not satisfy the expectation
  case "$msg" in
    *"$want"*) pass "$f" ;;
    *) fail "$f" "message lacks '$want'" "$tmp/err" ;;
  esac
}

# cli NAME WANT_RC WHERE TEXT ARGS...: the command line itself.  WHERE is out
# or err (TEXT must appear there) or quiet (nothing on stdout or stderr).
cli() {
  name="cli: $1" want=$2 where=$3 text=$4
  shift 4
  mlcc "$@"
  if crashed "$rc" "$tmp/err"; then fail "$name" "$(crash_reason "$rc")" "$tmp/err"; return; fi
  [ "$rc" -eq "$want" ] || { fail "$name" "expected exit $want, got $rc" "$tmp/err"; return; }
  case "$where" in
    quiet) [ -s "$tmp/out" ] || [ -s "$tmp/err" ] && { fail "$name" "expected no output" "$tmp/out"; return; } ;;
    *) grep -qF -e "$text" "$tmp/$where" || { fail "$name" "std$where lacks '$text'" "$tmp/$where"; return; } ;;
  esac
  pass "$name"
}

mm=$GOLDEN/roundtrip/mm_relu.py
cli "no command" 2 err "usage:"
cli "unknown command" 2 err "usage:" frobnicate
cli "--help" 0 out "usage:" --help
cli "--version" 0 out "mlcc " --version
cli "fmt without a file" 2 err "usage:" fmt
cli "equal with one file" 2 err "usage:" equal "$mm"
cli "missing file" 2 err "$tmp/absent.py: error:" fmt "$tmp/absent.py"
cli "fmt --check of a non-canonical file" 1 quiet "" fmt --check "$mm"
cli "fmt --check of a canonical file" 0 quiet "" fmt --check "$GOLDEN/roundtrip/mm_relu.canonical.py"
cli "equal of a file with itself" 0 quiet "" equal "$mm" "$mm"
cli "fmt from standard input" 0 out "def mm_relu(" fmt - <"$mm"
printf 'from tvm.script import tir as T\n@T.prim_func\ndef f($):\n' >"$tmp/bad.py"
cli "errors on standard input" 2 err "<stdin>:3:7: error:" fmt - <"$tmp/bad.py"
cli "error shows the line and a caret" 2 err "      ^" fmt "$tmp/bad.py"
# mlcc report reads JSON it did not write: malformed profiles are refused by name
printf 'not json' >"$tmp/p1.json"
printf '{"model": "m"}' >"$tmp/p2.json"
printf '{"kernels": [{"name": "k"}]}' >"$tmp/p3.json"
cli "report of a file that is not JSON" 2 err "p1.json: error: not valid JSON" report "$tmp/p1.json" -o "$tmp/r.html"
cli "report of a profile without kernels" 2 err "no \"kernels\" array" report "$tmp/p2.json" -o "$tmp/r.html"
cli "report of a kernel without its fields" 2 err "kernel #1 needs" report "$tmp/p3.json" -o "$tmp/r.html"
cli "report without -o" 2 err "needs PROFILE.json and -o REPORT.html" report "$tmp/p3.json"

# each command has its own help; an option without its value is named;
# --input-shape must name an input (cli/chain3.onnx: x -> Add, Relu, MatMul -> y)
onnx=$GOLDEN/cli/chain3.onnx
cli "help COMMAND" 0 out "mlcc compile MODEL.onnx -o DIR" help compile
cli "COMMAND --help" 0 out "mlcc import MODEL.onnx" import --help
cli "help of an unknown command" 2 err "no command named: frobnicate" help frobnicate
cli "-o without its value" 2 err "mlcc compile: option '-o' needs a value" compile "$onnx" -o
cli "--in without its value" 2 err "mlcc run: option '--in' needs a value" run "$tmp" --in
cli "--input-shape of an unknown input" 2 err "input 'z', but the model has no such input (its inputs: 'x')" \
  import "$onnx" --input-shape z:1x16
cli "--input-shape of the input" 0 out "R.Tensor((1, 16)" import "$onnx" --input-shape x:1x16
# cli/seq_map.onnx: ys = SequenceMap(xs, w) of Mul, cat = ConcatFromSequence(ys); xs a sequence input
seq=$GOLDEN/cli/seq_map.onnx
cli "a sequence input needs its length" 2 err "input 'xs': a sequence whose length is known only at run time is not supported" \
  import "$seq"
cli "--input-seq gives it" 0 out '"input_names": ["xs[0]", "xs[1]", "w"], "output_names": ["ys[0]", "ys[1]", "cat"]' \
  import "$seq" --input-seq xs=2 --input-shape 'xs[0]:3' --input-shape 'xs[1]:2'
cli "--input-seq takes a length" 2 err "--input-seq takes NAME=LEN" import "$seq" --input-seq xs=-1
# the file is named once, by the location
printf 'not a model' >"$tmp/m.onnx"
cli "an ONNX error names the file once" 2 err "$tmp/m.onnx: error: not a valid ONNX model" import "$tmp/m.onnx"

# a model's summary prints 16- and 8-bit floats as numbers
mlcc build "$GOLDEN/cli/small_floats.py" -o "$tmp/sf"
cli "run prints float16 values" 0 out "output_0: float16 (3,) [1.5, 1.5, 1.5]" run "$tmp/sf" --fill zeros
cli "run prints bfloat16 values" 0 out "output_1: bfloat16 (3,) [-2.25, -2.25, -2.25]" run "$tmp/sf" --fill zeros
cli "run prints float8 values" 0 out "output_2: float8_e4m3fn (3,) [0.375, 0.375, 0.375]" run "$tmp/sf" --fill zeros

# one byte over the limit (a sparse file: nothing is written to disk)
if dd if=/dev/null of="$tmp/big.py" bs=1 seek=67108865 2>/dev/null; then
  cli "input over 64 MiB refused" 2 err "error:" fmt "$tmp/big.py"
fi

for f in "$GOLDEN"/roundtrip/*.py "$GOLDEN"/models/*.py; do
  [ -f "$f" ] && roundtrip "$f"
done

for a in "$GOLDEN"/equal/*.a.py; do
  [ -f "$a" ] || continue
  b=${a%.a.py}.b.py
  if [ -f "$b" ]; then equal_pair "$a" "$b"; else fail "$a" "missing ${b##*/}"; fi
done

for f in "$GOLDEN"/errors/*.py; do
  [ -f "$f" ] || continue
  spec=$(sed -n '1s/^# error: *//p' "$f")
  if [ -n "$spec" ]; then error_case "$f" "$spec"; else fail "$f" "first line must be '# error: LINE:COL: TEXT'"; fi
done
for f in "$GOLDEN"/errors/*.bin; do
  [ -f "$f" ] || continue
  if [ -f "$f.expect" ]; then
    error_case "$f" "$(sed -n '1s/^# error: *//p;1{/^# error:/!p}' "$f.expect")"
  else
    fail "$f" "missing ${f##*/}.expect"
  fi
done

# onnx_errors/NAME.onnx: malformed or unsupported models (many first found by
# the fuzzer).  `mlcc import` must exit 2, print "FILE: error: " and the text
# of NAME.onnx.expect's first line on stderr, and must not crash.
for f in "$GOLDEN"/onnx_errors/*.onnx; do
  [ -f "$f" ] || continue
  [ -f "$f.expect" ] || { fail "$f" "missing ${f##*/}.expect"; continue; }
  want=$(sed -n 1p "$f.expect")
  mlcc import "$f"
  if crashed "$rc" "$tmp/err"; then fail "$f" "$(crash_reason "$rc")" "$tmp/err"; continue; fi
  [ "$rc" -eq 2 ] || { fail "$f" "expected exit 2, got $rc" "$tmp/err"; continue; }
  line=$(grep -F -e "$f: error: " "$tmp/err" | head -n 1)
  case "${line#*": error: "}" in
    *"$want"*) pass "$f" ;;
    *) fail "$f" "no '$f: error: ...$want' line" "$tmp/err" ;;
  esac
done

# ---- hostile inputs (tests/hostile) under memory and time limits ----------------
if [ -f tests/hostile/run.sh ]; then
  echo "  hostile inputs..."
  sh tests/hostile/run.sh "$MLCC" "$tmp/hostile" >"$tmp/hostile.out" 2>&1
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "${line#ok }" ;;
      "FAIL "*) failed=$((failed + 1)); echo "$line" ;;
      "    "*) echo "$line" ;;
    esac
  done <"$tmp/hostile.out"
fi

# ---- end to end: compiled models (tests/e2e) -----------------------------------
# tests/e2e/run.sh builds a model with mlcc, links a C program against its
# model.h, model.so and the runtime library, and prints ok/FAIL lines.
if [ -f tests/e2e/run.sh ]; then
  echo "  end to end and the demo..."
  limited "$UNIT_TIME_LIMIT" sh tests/e2e/run.sh "$MLCC" "$tmp/e2e" >"$tmp/e2e.out" 2>"$tmp/e2e.err"
  e2e_rc=$?
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "${line#ok }" ;;
      "FAIL "*) failed=$((failed + 1)); echo "$line" ;;
      "skip "*) skipped=$((skipped + 1)); echo "$line" ;;
      "    "*) echo "$line" ;;
    esac
  done <"$tmp/e2e.out"
  [ "$e2e_rc" -eq 0 ] || fail "tests/e2e/run.sh" "exited with status $e2e_rc" "$tmp/e2e.err"
  # the bundled example (`make demo`) must keep working: its script fails
  # when a step fails or the trained model's accuracy drops below 90%
  limited "$UNIT_TIME_LIMIT" sh examples/digits/demo.sh "$(dirname "$MLCC")" "$tmp/demo" >"$tmp/demo.out" 2>&1
  rc=$?
  tail -n 8 "$tmp/demo.out" >"$tmp/demo.tail" # where a failing step stopped
  if crashed "$rc" "$tmp/demo.out"; then fail "e2e demo: examples/digits" "$(crash_reason "$rc")" "$tmp/demo.tail"
  elif [ "$rc" -ne 0 ]; then fail "e2e demo: examples/digits" "exited with status $rc" "$tmp/demo.tail"
  elif grep -q '^accuracy: ' "$tmp/demo.out"; then pass "e2e demo: examples/digits"
  else fail "e2e demo: examples/digits" "no accuracy line" "$tmp/demo.tail"
  fi
fi

# ---- the Python package (python/tests, pytest over libmlcc.so) -------------------
# Needs a python3 with numpy and pytest (scripts/install-deps.sh installs
# Debian's); the PyTorch tests skip themselves where torch is missing.  Each
# pytest result is one test here.
MLCC_LIBRARY=${MLCC_LIBRARY:-$(cd "$(dirname "$MLCC")" && pwd)/libmlcc.so}
python_tests() {
  py=''
  for cand in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import numpy, pytest' >/dev/null 2>&1; then
      py=$cand
      break
    fi
  done
  if [ -z "$py" ]; then
    skipped=$((skipped + 1))
    echo "skip python tests: no python3 with numpy and pytest (scripts/install-deps.sh installs them)"
    return
  fi
  if [ ! -f "$MLCC_LIBRARY" ]; then
    fail "python tests" "$MLCC_LIBRARY is missing"
    return
  fi
  preload=''
  if [ "${SAN:-}" = 1 ]; then
    # the library is built with the sanitizers: their runtimes must load first
    preload="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)"
  fi
  (cd python && MLCC_LIBRARY=$MLCC_LIBRARY PYTHONDONTWRITEBYTECODE=1 LD_PRELOAD=$preload \
    ASAN_OPTIONS=detect_leaks=0 limited "$UNIT_TIME_LIMIT" "$py" -m pytest -v -p no:cacheprovider tests) \
    >"$tmp/py.out" 2>"$tmp/py.err"
  rc=$?
  n_before=$((passed + failed + skipped))
  while IFS= read -r line; do
    case "$line" in
      *"::"*" PASSED"*) pass "python: ${line%% PASSED*}" ;;
      *"::"*" FAILED"* | *"::"*" ERROR"*) fail "python: ${line%% *}" "see pytest's output" ;;
      *"::"*" SKIPPED"*) skipped=$((skipped + 1)); echo "skip python: ${line%% SKIPPED*}${line##*SKIPPED}" ;;
    esac
  done <"$tmp/py.out"
  if crashed "$rc" "$tmp/py.err"; then fail "python tests" "$(crash_reason "$rc")" "$tmp/py.err"
  elif [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then fail "python tests" "pytest exited with status $rc" "$tmp/py.out"
  elif [ $((passed + failed + skipped)) -eq "$n_before" ]; then fail "python tests" "pytest reported no tests" "$tmp/py.out"
  fi
  [ "$rc" -eq 1 ] && grep -E '^(E |FAILED|ERROR)' "$tmp/py.out" | head -n 20 | sed 's/^/    /'
  return 0
}
python_tests

if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ "$failed" -eq 0 ]
