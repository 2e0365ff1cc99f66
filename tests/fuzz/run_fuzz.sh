#!/usr/bin/env bash
# Runs fuzz targets: run_fuzz.sh random|libfuzzer TARGET... (BIN: where fuzz_TARGET is; FUZZ_SECONDS,
# FUZZ_SEED, FUZZ_TIMEOUT per input; WORK: libFuzzer's writable corpus copies). Prints one line per
# target and "fuzz: N targets, N failed"; exits non-zero on any crash or hang.
set -u
mode=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
failed=0
for t in "$@"; do
  log=$(mktemp)
  if [ "$mode" = libfuzzer ]; then
    mkdir -p "$WORK/$t"
    "$BIN/fuzz_$t" -max_total_time="$FUZZ_SECONDS" -timeout="$FUZZ_TIMEOUT" -seed="$FUZZ_SEED" -rss_limit_mb=4096 \
      -artifact_prefix="$WORK/crash-$t-" "$WORK/$t" "$here/corpus/$t" >"$log" 2>&1
    rc=$?
    summary=$(grep -E '^#[0-9]+.*(DONE|pulse)' "$log" | tail -n1)
  else
    "$BIN/fuzz_$t" -seconds "$FUZZ_SECONDS" -seed "$FUZZ_SEED" -timeout "$FUZZ_TIMEOUT" "$here/corpus/$t" >"$log" 2>&1
    rc=$?
    summary=$(grep '^fuzz driver: [0-9]' "$log" | tail -n1)
  fi
  if [ "$rc" = 0 ]; then
    echo "fuzz $t: ok ($summary)"
  else
    echo "fuzz $t: FAILED (exit $rc); the end of its output:"
    tail -n 30 "$log"
    failed=$((failed + 1))
  fi
  rm -f "$log"
done
echo "fuzz: $# targets, $failed failed"
[ "$failed" = 0 ]
