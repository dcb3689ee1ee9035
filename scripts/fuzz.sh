#!/bin/sh
# fuzz.sh N - run the TVMScript reader's libFuzzer target for N seconds.
#
# The corpus lives in build/fuzz/corpus and is seeded from the golden test
# files each time, so a fresh checkout starts from real programs and a longer
# local run keeps what it found.  Fails (non-zero) when the fuzzer reports a
# crash, a leak or a sanitizer error; crash inputs are left in build/fuzz/.
set -eu

secs=${1:-60}
case "$secs" in
  ''|*[!0-9]*) echo "usage: scripts/fuzz.sh SECONDS" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
make -j2 fuzz

corpus=build/fuzz/corpus
mkdir -p "$corpus"
find tests/golden -name '*.py' -type f | while IFS= read -r f; do
  # flatten the path so files of the same name in different folders both stay
  cp "$f" "$corpus/$(printf '%s' "$f" | tr '/' '_')"
done

log=build/fuzz/fuzz_reader.log
status=0
build/fuzz/fuzz_reader -max_total_time="$secs" -max_len=65536 -timeout=10 \
  -artifact_prefix=build/fuzz/ -print_final_stats=1 "$corpus" >"$log" 2>&1 || status=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
echo "fuzz_reader: ${execs:-0} executions in ${secs}s"
if [ "$status" -ne 0 ]; then
  echo "fuzz_reader: FAILED (exit $status); the end of build/fuzz/fuzz_reader.log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
