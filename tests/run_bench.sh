#!/usr/bin/env bash
# make bench: the harness-overhead benchmark. On a GPU node it runs on every local GPU; without one,
# on the MPI backend with 2 host ranks.
set -u
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
echo "# simulator: pipebench predict of a p 64, v 8, 1024-microbatch plan (target: under 2 s, 300 MB peak RSS); schedule"
echo "# generation + simulation, p=64 v=8 m=1024; plan of a 1024-rank CP layout (targets: well under a second; under a second)"
"$SIM_BENCH" || exit 1
echo "# trace: read a synthetic Nsight Systems export of 10M kernel rows (target: well under a minute, bounded memory);"
echo "# then a job of 8 PyTorch profiler traces x 1M events (target: under 30 s, peak RSS reported); then predict"
echo "# --profile's calibration from 8 CPU ranks' traces of about 100 MB each (target: under 20 s and 600 MB)"
"$TRACE_BENCH" || exit 1
echo "# replay: executor + runtime overhead per task (zero compute, 8-byte messages), MPI backend, 2 host ranks"
"$MPIRUN" -np 2 --oversubscribe "$REPLAY_BENCH" --backend mpi || exit 1
if [ "${HAVE_NCCL:-0}" = 1 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  ngpu=$(nvidia-smi -L | wc -l)
  if [ "$ngpu" -ge 2 ]; then
    echo "# replay: the same on the NCCL backend, $ngpu GPUs"
    "$MPIRUN" -np "$ngpu" "$REPLAY_BENCH" --backend nccl || exit 1
  else
    echo "# replay on NCCL needs 2 GPUs (P2P between pipeline ranks); this node has $ngpu"
  fi
fi
echo "# replay grid: every schedule predicted and replayed on 4 host ranks (8 on 16 cores or more), compute from 1/2 ms"
echo "# per layer on (0.5/1 with 16 cores), 5 iterations (target: every schedule within 10 %, 5 % with 16 cores, of its"
echo "# replayed median, and the same fastest of Megatron's schedules)"
"$(dirname "$0")/replay_grid_bench.sh" "$PIPEBENCH" "$MPIRUN" || exit 1
echo "# host collectives: a 200 MB float all-reduce on 2 host ranks (MPI backend), out of place and in place (target: in"
echo "# place at most 1.5x out of place: Open MPI's per-call temporary buffers are reused warm, not faulted in each call)"
host_row=$("$MPIRUN" -np 2 --oversubscribe "$PIPEBENCH" bench --backend mpi --op all_reduce -d float -b 200M -e 200M \
  -n 3 -w 1 --reps 3 -c 0 --quiet 2>&1 | grep -v '^#' | tail -1)
echo "$host_row" | awk '{ ratio = $6 > 0 ? $10 / $6 : 99
  printf "out of place %.1f ms, in place %.1f ms: %.2fx %s\n", $6 / 1000, $10 / 1000, ratio, \
    (NF >= 12 && ratio <= 1.5) ? "(ok)" : "(over the target)"
  exit !(NF >= 12 && ratio <= 1.5) }' || { echo "host collectives: $host_row"; exit 1; }
echo "# results JSON: bench of 2000 records (1000 sizes, out-of- and in-place; MPI backend, one process), with --json"
echo "# and without (target: --json at most 2x the sweep without it)"
json_dir=$(mktemp -d) || exit 1
sweep() { "$PIPEBENCH" bench --backend mpi -b 8 -e 8000 -f 1 -i 8 -n 1 -w 0 --reps 1 -c 0 "$@" >/dev/null; }
t0=$(date +%s.%N)
sweep || exit 1
t1=$(date +%s.%N)
sweep --json "$json_dir/results.json" || exit 1
t2=$(date +%s.%N)
records=$(grep -c '"size_bytes"' "$json_dir/results.json")
rm -rf "$json_dir"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$records" 'BEGIN {
  without = b - a; with = c - b; ratio = with / without
  printf "without --json %.2f s, with --json %.2f s (%d records): %.2fx %s\n", without, with, n, ratio, \
    (ratio <= 2 && n == 2000) ? "(ok)" : "(over the target)"
  exit !(ratio <= 2 && n == 2000)
}' || exit 1
echo "# sweep length: bench of 4096 and 8192 points (-b 8 -e 32K / 64K -f 1 -i 8; MPI backend, one process)"
echo "# (target: the time per point independent of the sweep's length: 8192 points in at most 2.5x the time of 4096)"
points() { "$PIPEBENCH" bench --backend mpi -b 8 -e "$1" -f 1 -i 8 -n 1 -w 0 --reps 1 -c 0 --quiet >/dev/null; }
t0=$(date +%s.%N)
points 32K || exit 1
t1=$(date +%s.%N)
points 64K || exit 1
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
  short = b - a; long = c - b; ratio = long / short
  printf "4096 points %.2f s (%.0f us/point), 8192 points %.2f s (%.0f us/point): %.2fx %s\n", short, short / 4096 * 1e6, \
    long, long / 8192 * 1e6, ratio, ratio <= 2.5 ? "(ok)" : "(over the target)"
  exit !(ratio <= 2.5)
}' || exit 1
echo "# topology: topo --format json of generated hwloc XML, 256 and 4096 GPUs (target: seconds and MBs at 4096)"
"$TOPO_BENCH" || exit 1
echo "# report: 100 hosts x 10 results files into one report (target: under 5 s); then a trace file of 50k..200k"
echo "# kernel rows on one device reported, and an nccl-tests -J file of 50k..200k config.devices read (target: us_per_item"
echo "# about the same at each size: time linear in the input)"
"$REPORT_BENCH" || exit 1
if [ "${HAVE_NCCL:-0}" = 1 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  if [ -n "${NCCL_TESTS_DIR:-}" ]; then
    ngpu=$(nvidia-smi -L | wc -l)
    echo "# nccl-tests side by side ($NCCL_TESTS_DIR, $ngpu GPUs, one process; medians of 3 alternating rounds)"
    "$(dirname "$0")/nccl_tests_side_by_side.sh" "$PIPEBENCH" "$NCCL_TESTS_DIR" "$ngpu" || exit 1
  else
    echo "# no NCCL_TESTS_DIR: timing pipebench against the bare NCCL loop (set NCCL_TESTS_DIR=<nccl-tests/build>"
    echo "# to put nccl-tests itself beside it)"
  fi
  exec "$OVERHEAD" --backend nccl
fi
echo "# no GPU visible: timing the MPI backend against bare MPI_Allreduce with 2 host ranks"
exec "$MPIRUN" -np 2 --oversubscribe "$OVERHEAD" --backend mpi
