#!/usr/bin/env bash
# On a GPU node with a built nccl-tests: run every *_perf binary it has (text, and all_reduce with -J,
# -I 1, -S 1, -C 1 and NCCL_DEBUG=INFO), then `pipebench import nccl-tests` each log and check that every
# row printed became two records. Usage: NCCL_TESTS_DIR=/path/to/nccl-tests/build tests/nccl_tests_import_check.sh [-g N]
set -u
dir=${NCCL_TESTS_DIR:?set NCCL_TESTS_DIR to nccl-tests build folder (with all_reduce_perf)}
pb=${PIPEBENCH:-$(dirname "$0")/../build/bin/pipebench}
gpus=${2:-1}
work=$(mktemp -d)
failed=0
check() {  # LOG [import flags]: rows printed (lines starting with a size) x 2 = records imported
  local log=$1; shift
  local rows
  rows=$(grep -cE '^ +[0-9]+ +[0-9]+ ' "$log")
  "$pb" import nccl-tests "$log" "$@" --json "$log.json" >"$log.out" 2>"$log.err"
  local rc=$?
  if [ "$rc" != 0 ]; then
    echo "FAIL $log: import exited $rc"; cat "$log.err"; failed=$((failed + 1)); return
  fi
  local records
  records=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['records']))" "$log.json")
  if [ "$records" != $((rows * 2)) ]; then
    echo "FAIL $log: $rows rows printed, $records records imported"; cat "$log.err"; failed=$((failed + 1))
  else
    echo "ok   $log: $rows rows, $(head -c 200 "$log.out" | head -n1)"
  fi
}
for bin in "$dir"/*_perf; do
  op=$(basename "$bin")
  "$bin" -b 8 -e 64M -f 8 -g "$gpus" >"$work/$op.log" 2>&1
  check "$work/$op.log"
done
"$dir/all_reduce_perf" -b 8 -e 64M -f 8 -g "$gpus" -I 1 -J "$work/ar.json" >"$work/ar-json-run.log" 2>&1
python3 - "$work/ar.json" "$pb" <<'PY' || failed=$((failed + 1))
import json, subprocess, sys
rows = len(json.load(open(sys.argv[1]))["results"])
out = subprocess.run([sys.argv[2], "import", "nccl-tests", sys.argv[1], "--json", sys.argv[1] + ".imp"], capture_output=True, text=True)
got = len(json.load(open(sys.argv[1] + ".imp"))["records"]) if out.returncode == 0 else -1
print(("ok  " if got == 2 * rows else "FAIL") + f" -J json: {rows} results, {got} records")
sys.exit(0 if got == 2 * rows else 1)
PY
"$dir/all_reduce_perf" -b 1K -e 1M -f 4 -g "$gpus" -I 1 -S 1 -C 1 >"$work/all_reduce-ISC.log" 2>&1
check "$work/all_reduce-ISC.log"
NCCL_DEBUG=INFO "$dir/all_gather_perf" -b 1K -e 1M -f 32 -g "$gpus" >"$work/all_gather-debug.log" 2>&1
check "$work/all_gather-debug.log"
echo "nccl-tests import check: $failed failed (logs in $work)"
[ "$failed" = 0 ]
