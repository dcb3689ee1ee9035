#!/bin/sh
# run.sh - the end-to-end test of compiled models: `mlcc build` of a graph
# module with weights from an .npz, then a C program (consumer.c) compiled
# against the generated model.h and linked with model.so and the runtime
# library only, checked against its own plain C computation; and the same
# model through `mlcc run`.  Prints "ok NAME" / "FAIL NAME: ..." lines
# (tests/run.sh counts them).
#   sh tests/e2e/run.sh MLCC SCRATCH_DIR
set -u
MLCC=$1
dir=$2
here=$(dirname "$0")
bin=$(dirname "$MLCC")
librt=$bin/libmlcrt.a
CC=${CC:-cc}
# a sanitizer build's runtime needs the sanitizers in the program too
case "$bin" in
  */san) san="-fsanitize=address,undefined" ;;
  *) san="" ;;
esac
mkdir -p "$dir" || exit 2

fail() { # NAME REASON [FILE]
  echo "FAIL $1: $2"
  if [ $# -ge 3 ] && [ -s "$3" ]; then head -n 12 "$3" | sed 's/^/    /'; fi
}

# `make test` builds the CLI and the unit tests; the runtime library alone
# may not be there yet
if [ ! -f "$librt" ]; then
  sanflag=""
  [ -n "$san" ] && sanflag="SAN=1"
  make -s $sanflag "$librt" >"$dir/make.log" 2>&1 || { fail "e2e" "cannot build $librt" "$dir/make.log"; exit 0; }
fi
if ! $CC -std=c11 -O1 $san -Iinclude "$here/make_data.c" "$librt" -lpthread -ldl -lz -lm \
     -o "$dir/make_data" 2>"$dir/cc.log"; then
  fail "e2e: make_data" "does not compile" "$dir/cc.log"
  exit 0
fi

# report CASE RC OUT ERR: the consumer's lines under the case's name; a
# non-zero exit without a FAIL line (a crash) is a failure too
report() {
  sed -e "s/^ok /ok e2e $1: /" -e "s/^FAIL /FAIL e2e $1: /" "$3"
  if [ "$2" -ne 0 ] && ! grep -q '^FAIL ' "$3"; then fail "e2e $1" "exited with status $2" "$4"; fi
}

# e2e_case NAME MODULE BATCH CONSUMER_BATCHES...  ($e2e_flags: more build flags)
e2e_flags=""
e2e_case() {
  name=$1 module=$2 batch=$3
  shift 3
  out=$dir/$name
  mkdir -p "$out"
  "$dir/make_data" "$out" "$batch" || { fail "e2e $name: data" "make_data failed"; return; }
  # the model, with weights in params.bin and embedded
  # shellcheck disable=SC2086 # e2e_flags: extra build flags, split on purpose
  if ! "$MLCC" build "$module" -o "$out/model" --params "$out/weights.npz" $e2e_flags 2>"$out/build.err"; then
    fail "e2e $name: build" "mlcc build failed" "$out/build.err"; return
  fi
  if grep -q "^main: memory plan .* (liveness lower bound .*, no reuse .*), [0-9]* run-time allocation" "$out/build.err"; then
    echo "ok e2e $name: memory plan reported"
  else
    fail "e2e $name: memory plan" "no 'main: memory plan' line on stderr" "$out/build.err"
  fi
  # shellcheck disable=SC2086
  if ! "$MLCC" build "$module" -o "$out/embedded" --params "$out/weights.npz" --embed-params $e2e_flags 2>"$out/build.err"; then
    fail "e2e $name: build --embed-params" "mlcc build failed" "$out/build.err"; return
  fi
  [ -f "$out/embedded/params.bin" ] && fail "e2e $name: build --embed-params" "params.bin written"
  for kind in model embedded; do
    if ! $CC -std=c11 -O1 $san -I"$out/$kind" -Iinclude -I"$here" "$here/consumer.c" "$out/$kind/model.so" \
         "$librt" -Wl,-rpath,"$out/$kind" -lpthread -ldl -lz -lm -o "$out/consumer_$kind" 2>"$out/cc.log"; then
      fail "e2e $name: consumer ($kind)" "does not compile against $kind/model.h" "$out/cc.log"; continue
    fi
    params=-
    [ "$kind" = model ] && params=$out/model/params.bin
    (cd "$out" && "$out/consumer_$kind" "$params" "$@") >"$out/run.out" 2>"$out/run.err"
    report "$name" $? "$out/run.out" "$out/run.err"
  done
  # the same model through the command line
  if "$MLCC" run "$out/model" --in "$out/x.npy" --out "$out/y.npz" 2>"$out/run.err"; then
    "$out/consumer_model" --npz "$out/y.npz" "$batch" >"$out/run.out" 2>"$out/run.err"
    report "$name" $? "$out/run.out" "$out/run.err"
  else
    fail "e2e $name: mlcc run" "failed" "$out/run.err"
  fi
}

# profile_case MODEL INPUT: `mlcc run --profile` prints a row per kernel and
# the summary; the JSON it writes feeds `mlcc report`, whose page holds the
# charts, is well-formed XML (xmllint) and, where Chromium is installed,
# renders to a picture that is not blank (png_ink.c)
profile_case() {
  model=$1 input=$2 out=$dir/profile
  mkdir -p "$out"
  if ! "$MLCC" run "$model" --in "$input" --profile --profile-json "$out/p.json" >"$out/p.out" 2>"$out/p.err"; then
    fail "e2e profile: mlcc run --profile" "failed" "$out/p.err"; return
  fi
  # the MLP's kernels: matmul, add and relu fused and generated, env.linear a
  # library call
  ok=1
  grep -q '^kernel  *op  *calls  *ms/run' "$out/p.out" || ok=0
  for k in 'fused_matmul_add_relu  *matmul+add+relu .* generated' 'env.linear  *linear .* library'; do
    grep -q "^$k" "$out/p.out" || ok=0
  done
  grep -q '^[0-9]* runs: kernels [0-9.e+-]* ms of [0-9.e+-]* ms per inference' "$out/p.out" || ok=0
  if [ $ok = 1 ]; then echo "ok e2e profile: mlcc run --profile"
  else fail "e2e profile: mlcc run --profile" "table incomplete" "$out/p.out"; fi
  if ! "$MLCC" report "$out/p.json" "$here/tuning.jsonl" -o "$out/report.html" 2>"$out/r.err"; then
    fail "e2e profile: mlcc report" "failed" "$out/r.err"; return
  fi
  ok=1
  for t in '<svg' 'Time per kernel' 'Share of the time by op' 'Best latency against trials' \
           'Best latency against time' 'model (estimate)' '>env.linear<' '5 records of 2 tasks; 1 lines'; do
    grep -qF -e "$t" "$out/report.html" || ok=0
  done
  if [ $ok = 1 ]; then echo "ok e2e profile: mlcc report draws the charts"
  else fail "e2e profile: mlcc report" "a chart or the table is missing" "$out/report.html"; fi
  if command -v xmllint >/dev/null 2>&1; then
    if xmllint --noout "$out/report.html" 2>"$out/xml.err"; then echo "ok e2e profile: the report is well-formed XML"
    else fail "e2e profile: report XML" "xmllint refuses it" "$out/xml.err"; fi
  else
    echo "skip e2e profile: report XML: xmllint is not installed (libxml2-utils)"
  fi
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [ -z "$browser" ]; then
    echo "skip e2e profile: report rendering: Chromium is not installed"
  elif ! $CC -std=c11 -O1 "$here/png_ink.c" -lz -o "$dir/png_ink" 2>"$out/cc.log"; then
    fail "e2e profile: png_ink" "does not compile" "$out/cc.log"
  else
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1600 \
      --screenshot="$out/report.png" "file://$out/report.html" >"$out/chromium.log" 2>&1
    ink=$("$dir/png_ink" "$out/report.png" 2>>"$out/chromium.log")
    case "$ink" in
      0.0[1-9]*|0.[1-9]*) echo "ok e2e profile: the report renders (ink $ink)" ;;
      *) fail "e2e profile: report rendering" "blank or missing picture (ink '$ink')" "$out/chromium.log" ;;
    esac
  fi
}

# refused CASE WANT ARGS...: `mlcc run ARGS` must exit 2 with WANT on stderr
refused() {
  name=$1 want=$2
  shift 2
  "$MLCC" run "$@" >"$dir/refused.out" 2>"$dir/refused.err"
  rc=$?
  if [ "$rc" -ne 2 ]; then fail "e2e refuses $name" "expected exit 2, got $rc" "$dir/refused.err"
  elif ! grep -qF -e "$want" "$dir/refused.err"; then fail "e2e refuses $name" "stderr lacks '$want'" "$dir/refused.err"
  else echo "ok e2e refuses $name"
  fi
}

# tune_case: `mlcc tune` of the MLP's kernels (a few trials, one progress
# line per round, one record per trial), then the model built with
# --records: --explain says its kernel is tuned, and its outputs pass the
# consumer's plain C check
tune_case() {
  out=$dir/tune
  mkdir -p "$out"
  if ! "$MLCC" tune "$here/mlp.py" -o "$out/db.jsonl" --trials 4 --batch 4 --threads 1 >"$out/tune.out" 2>"$out/tune.err"; then
    fail "e2e tune: mlcc tune" "failed" "$out/tune.err"; return
  fi
  if grep -q '^round 1: task 1/1 fused_matmul_add_relu: 4 trials, best ' "$out/tune.err" &&
     [ "$(wc -l <"$out/db.jsonl")" -eq 4 ]; then echo "ok e2e tune: mlcc tune records 4 trials"
  else fail "e2e tune: mlcc tune" "no progress line or not 4 records" "$out/tune.err"; fi
  # records measured with one thread apply to a build for one thread only:
  # the build's target is the host's thread count, so tune for that too
  if ! "$MLCC" tune "$here/mlp.py" -o "$out/db.jsonl" --trials 2 --batch 2 >"$out/tune2.out" 2>"$out/tune2.err"; then
    fail "e2e tune: mlcc tune (host threads)" "failed" "$out/tune2.err"; return
  fi
  if ! "$MLCC" build "$here/mlp.py" -o "$out/model" --params "$dir/static/weights.npz" --records "$out/db.jsonl" \
       --explain >"$out/explain.out" 2>"$out/build.err"; then
    fail "e2e tune: build --records" "mlcc build failed" "$out/build.err"; return
  fi
  if grep -q '^fused_matmul_add_relu  *matmul+add+relu .* tuned  *tuning record' "$out/explain.out"; then
    echo "ok e2e tune: build --records applies the record"
  else fail "e2e tune: build --records" "the kernel is not tuned" "$out/explain.out"; fi
  # the same records for a GPU build: measured on the CPU, so ignored, and said so
  if "$MLCC" build "$here/mlp.py" -o "$out/gpu_model" --params "$dir/static/weights.npz" --records "$out/db.jsonl" \
       --target opencl --explain >"$out/gpu_explain.out" 2>"$out/gpu_build.err" &&
     grep -q '^records: 0 kernels tuned; [0-9]* records for another target ignored (this build is for opencl on ' \
       "$out/gpu_build.err" && ! grep -q ' tuned  *tuning record' "$out/gpu_explain.out"; then
    echo "ok e2e tune: a GPU build ignores CPU records and says so"
  else fail "e2e tune: GPU build --records" "CPU records applied or not reported" "$out/gpu_build.err"; fi
  if "$MLCC" run "$out/model" --in "$dir/static/x.npy" --out "$out/y.npz" 2>"$out/run.err"; then
    "$dir/static/consumer_model" --npz "$out/y.npz" 4 >"$out/run.out" 2>"$out/run.err"
    report "tune" $? "$out/run.out" "$out/run.err"
  else
    fail "e2e tune: mlcc run" "failed" "$out/run.err"
  fi
}

# launch_case: `mlcc tune --launcher` with a plain `sh -c` launcher that
# logs each launch: the target is asked for once, each batch is measured
# by `mlcc tune-measure` through it, its records come back into DB.jsonl,
# and the scratch files are gone afterwards
launch_case() {
  out=$dir/launch
  mkdir -p "$out"
  launcher="sh -c 'echo launched >>\"$out/launch.log\"; exec \"\$0\" \"\$@\"'"
  if ! "$MLCC" tune "$here/mlp.py" -o "$out/db.jsonl" --trials 2 --batch 2 --threads 1 --launcher "$launcher" \
       --workdir "$out" >"$out/tune.out" 2>"$out/tune.err"; then
    fail "e2e tune --launcher" "failed" "$out/tune.err"; return
  fi
  if [ "$(wc -l <"$out/launch.log")" -eq 2 ] && [ "$(wc -l <"$out/db.jsonl")" -eq 2 ] &&
     grep -q '"seconds":[0-9]' "$out/db.jsonl" && [ -z "$(ls -d "$out"/mlcc_launch_* 2>/dev/null)" ]; then
    echo "ok e2e tune --launcher: measured through sh -c"
  else fail "e2e tune --launcher" "not two launches and two records, or files left" "$out/tune.err"; fi
  if "$MLCC" tune-measure --print-target --threads 3 >"$out/target.json" 2>"$out/target.err" &&
     grep -q '^{"cpu":".*","features":".*","threads":3}$' "$out/target.json"; then
    echo "ok e2e tune-measure --print-target"
  else fail "e2e tune-measure --print-target" "no target line" "$out/target.json"; fi
  "$MLCC" tune-build "$out/absent.jsonl" -o "$out/art" >/dev/null 2>"$out/build.err"
  if [ $? -eq 2 ] && grep -q 'absent.jsonl' "$out/build.err"; then echo "ok e2e tune-build: a missing file is an error"
  else fail "e2e tune-build: a missing file" "no error naming it" "$out/build.err"; fi
}

# conv_layout_case: `mlcc tune` of convs.py (two convs, weights constant)
# measures each conv kernel with every weight layout (OIHW, OIHW8o, and
# OIHW16o where 16 divides the channels), and `build --records --explain`
# lists each conv's layouts with their times and the one taken; the run's
# numbers are checked by tests/unit/test_tune_convlayout.c
conv_layout_case() {
  out=$dir/convs
  mkdir -p "$out"
  if ! "$MLCC" tune "$here/convs.py" -o "$out/db.jsonl" --trials 10 --batch 2 --threads 1 \
       >"$out/tune.out" 2>"$out/tune.err"; then
    fail "e2e conv layouts: mlcc tune" "failed" "$out/tune.err"; return
  fi
  if grep -q '^round 5: task 5/5 fused_conv2d_relu1_OIHW8o: 2 trials, best ' "$out/tune.err" &&
     grep -q '"func":"fused_conv2d_relu_OIHW16o"' "$out/db.jsonl"; then
    echo "ok e2e conv layouts: every layout is a task"
  else fail "e2e conv layouts: mlcc tune" "not five tasks with two trials each" "$out/tune.err"; fi
  if ! MLCRT_NUM_THREADS=1 "$MLCC" build "$here/convs.py" -o "$out/model" --records "$out/db.jsonl" --explain \
       >"$out/explain.out" 2>"$out/build.err"; then
    fail "e2e conv layouts: build --records" "mlcc build failed" "$out/build.err"; return
  fi
  t=' [0-9.]* [um]s  *'
  if grep -q '^conv weight layouts, by tuning records' "$out/explain.out" &&
     grep -Eq "^  fused_conv2d_relu  +16x4x3x3  +1 call   OIHW$t OIHW8o$t OIHW16o$t -> OIHW(8o|16o)?\$" "$out/explain.out" &&
     grep -Eq "^  fused_conv2d_relu1  +8x16x1x1  +1 call   OIHW$t OIHW8o$t -> OIHW(8o)?\$" "$out/explain.out" &&
     [ "$(grep -c ' tuned  *tuning record' "$out/explain.out")" -eq 2 ]; then
    echo "ok e2e conv layouts: build --explain shows each layout's time and the one taken"
  else fail "e2e conv layouts: build --explain" "no conv layout lines, or kernels not tuned" "$out/explain.out"; fi
}

e2e_case static "$here/mlp.py" 4 4
e2e_case dynamic "$here/mlp_dyn.py" 5 1 5 33 2
profile_case "$dir/static/model" "$dir/static/x.npy"
tune_case
launch_case
conv_layout_case

# --explain: per kernel, its ops, calls, FLOPs (the MLP's 4x8 @ 8x16 matmul is
# 1024, its bias add and relu 64 each) and where its schedule came from
if "$MLCC" build "$here/mlp.py" -o "$dir/explained" --params "$dir/static/weights.npz" --explain \
     >"$dir/explain.out" 2>"$dir/explain.err" &&
   grep -q '^fused_matmul_add_relu  *matmul+add+relu  *1  *1.15 K  generated default rules' "$dir/explain.out" &&
   grep -q '^env.linear  *linear  *1 .* library  *library call' "$dir/explain.out"; then
  echo "ok e2e explain: mlcc build --explain"
else
  fail "e2e explain: mlcc build --explain" "table incomplete" "$dir/explain.out"
fi
refused "a wrong input shape" "main: input 'x' (#1): expected shape (4, 8), got (5, 8)" \
  "$dir/static/model" --in "$dir/dynamic/x.npy"
refused "an .npz without the input" "has no entry 'x' for input #1 of 'main'" \
  "$dir/static/model" --in "$dir/static/weights.npz"
cp -r "$dir/static/model" "$dir/cut"
head -c 100 "$dir/static/model/params.bin" >"$dir/cut/params.bin"
refused "a cut params.bin" "params.bin: file is 100 bytes, its header says" "$dir/cut" --in "$dir/static/x.npy"
cp "$dir/static/model/params.bin" "$dir/cut/params.bin"
printf 'Z' | dd of="$dir/cut/params.bin" bs=1 seek=40 conv=notrunc 2>/dev/null
refused "a corrupt params.bin" "params.bin: the weights are corrupt" "$dir/cut" --in "$dir/static/x.npy"
# extern functions of the user's own, built in with `mlcc build --link`: the
# course's MLP whose env.relu is a C function in relu.c (as a C file and as a
# shared library), checked against plain C; without it the model is refused
ext=$dir/extern
mkdir -p "$ext"
if ! $CC -std=c11 -O1 $san -Iinclude "$here/extern/check.c" "$librt" -lpthread -ldl -lz -lm -o "$ext/check" \
     2>"$ext/cc.log" || ! "$ext/check" data "$ext" 2>"$ext/cc.log"; then
  fail "e2e extern: check" "does not compile or run" "$ext/cc.log"
elif ! $CC -std=c11 -O1 -fPIC -shared $san -Iinclude "$here/extern/relu.c" -o "$ext/librelu.so" 2>"$ext/cc.log"; then
  fail "e2e extern: librelu.so" "does not compile" "$ext/cc.log"
else
  for link in "$here/extern/relu.c" "$ext/librelu.so"; do
    name="e2e extern: env.relu from ${link##*/}"
    if ! "$MLCC" build "$here/extern/mlp_env_relu.py" -o "$ext/model" --params "$ext/weights.npz" --link "$link" \
         2>"$ext/build.err"; then
      fail "$name" "mlcc build --link failed" "$ext/build.err"
    elif ! "$MLCC" run "$ext/model" --in "$ext/x.npy" --out "$ext/y.npy" 2>"$ext/run.err"; then
      fail "$name" "mlcc run failed" "$ext/run.err"
    elif "$ext/check" out "$ext/y.npy" >"$ext/check.out" 2>&1; then
      echo "ok $name"
    else
      fail "$name" "differs from plain C" "$ext/check.out"
    fi
  done
  if "$MLCC" build "$here/extern/mlp_env_relu.py" -o "$ext/unlinked" --params "$ext/weights.npz" 2>"$ext/build.err"; then
    refused "a model whose extern is not there" "no extern function named 'env.relu' is registered" \
      "$ext/unlinked" --in "$ext/x.npy"
  else
    fail "e2e extern: build without --link" "failed" "$ext/build.err"
  fi
  # a tensor program tensorized onto the user's micro-kernel (the course's
  # tmm16): built with the kernel's C file it loads and runs; without it the
  # loader names the missing function
  tmm=tests/golden/schedule/tensorize_tmm16
  if "$MLCC" build "$tmm/after.py" -o "$ext/tmm.so" --link "$tmm/tmm16.c" 2>"$ext/build.err" &&
     "$MLCC" run "$ext/tmm.so" --func main --fill random >"$ext/tmm.out" 2>"$ext/run.err"; then
    echo "ok e2e extern: the tmm16 tensorized matmul built with --link tmm16.c runs"
  else
    fail "e2e extern: tmm16 with --link" "build or run failed" "$ext/build.err"
  fi
  if "$MLCC" build "$tmm/after.py" -o "$ext/tmm_unlinked.so" 2>"$ext/build.err"; then
    "$MLCC" run "$ext/tmm_unlinked.so" --func main --fill random >/dev/null 2>"$ext/run.err"
    if [ $? -eq 2 ] && grep -q "undefined symbol: tmm16" "$ext/run.err"; then
      echo "ok e2e extern: the tmm16 matmul without its kernel is refused by name"
    else
      fail "e2e extern: tmm16 without --link" "not refused by name" "$ext/run.err"
    fi
  else
    fail "e2e extern: tmm16 without --link" "build failed" "$ext/build.err"
  fi
  "$MLCC" build "$here/extern/mlp_env_relu.py" -o "$ext/bad" --link "$here/extern/mlp_env_relu.py" >/dev/null 2>"$ext/bad.err"
  if [ $? -eq 2 ] && grep -q "mlp_env_relu.py: error: a file to link must be a C file" "$ext/bad.err"; then
    echo "ok e2e extern: --link of a file of another kind is refused"
  else
    fail "e2e extern: --link of a file of another kind" "not refused by name" "$ext/bad.err"
  fi
fi

# the GPU targets from the command line; where OpenCL runs, the network
# with its kernels on OpenCL, checked by the consumer like the CPU build
sh "$here/gpu.sh" "$MLCC" "$dir"
if [ -f "$dir/gpu/opencl_runs" ]; then
  e2e_flags="--target opencl"
  e2e_case opencl_static "$here/mlp.py" 4 4
  e2e_case opencl_dynamic "$here/mlp_dyn.py" 5 1 5 33 2
  e2e_flags=""
fi
exit 0
