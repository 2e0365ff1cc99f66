#!/usr/bin/env bash
# make test: every test binary, then one plain closing line "N passed, N failed, N skipped".
# Unit tests run alone; MPI tests under mpirun -np 2 and -np 4 (host memory); GPU tests skip with a
# reason when no GPU is visible. Counts come from gtest's own summary lines.
set -u
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
passed=0; failed=0; skipped=0
log=$(mktemp)

count() {  # $1: label, $2: exit status; reads gtest output from $log
  local p f s
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' "$log" | tail -n1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below:.*/\1/p' "$log" | tail -n1)
  s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\?, listed below:.*/\1/p' "$log" | tail -n1)
  p=${p:-0}; f=${f:-0}; s=${s:-0}
  if [ "$2" != 0 ] && [ "$f" = 0 ]; then f=1; echo "$1: exited with status $2 without a gtest failure line"; fi
  echo "$1: $p passed, $f failed, $s skipped"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}

run() {  # $1: label, rest: command
  local label=$1; shift
  echo "== $label"
  "$@" 2>&1 | tee "$log"
  count "$label" "${PIPESTATUS[0]}"
}

export GTEST_COLOR=no  # mpirun hands ranks a terminal; colour codes would hide the summary lines
run unit "$UNIT_TESTS"
if [ -n "${MPI_TESTS:-}" ]; then
  run "mpi np=2" "$MPIRUN" -np 2 "$MPI_TESTS"
  run "mpi np=4" "$MPIRUN" -np 4 "$MPI_TESTS"
else
  echo "mpi: not built (no MPI found); install libopenmpi-dev"
  failed=$((failed + 1))
fi
if [ -n "${GPU_TESTS:-}" ]; then run gpu "$GPU_TESTS"; else echo "gpu: not built (no CUDA/NCCL)"; fi
rm -f "$log"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
