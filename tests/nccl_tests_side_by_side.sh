#!/usr/bin/env bash
# make bench on a GPU node with NCCL_TESTS_DIR=<nccl-tests build folder>: pipebench and nccl-tests side by side
# on the same GPUs in the same run, alternating, for every op both have. The figure is the ratio (absolute times
# vary from machine to machine): bandwidth at >= 64 MiB is nccl-tests' time / pipebench's time (the bus factor is
# the same on both sides, so the busbw ratio equals the time ratio), target >= 0.99; CUDA-graph latency
# (-G 1) at small sizes is pipebench's time / nccl-tests', target <= 1.
# Usage: nccl_tests_side_by_side.sh PIPEBENCH NCCL_TESTS_DIR NGPUS [ROUNDS]
set -u
pb=$1 nt_dir=$2 ngpus=$3 rounds=${4:-3}
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
ops="all_reduce all_gather reduce_scatter broadcast reduce alltoall gather scatter sendrecv"
# The out-of-place time column of both tables: size count type redop root time ... (nccl-tests common.cu).
rows() { grep -E '^ +[0-9]+ ' | awk '{print $1, $6}'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
measure() {  # op tag nccl-tests-args -- pipebench-args
  local op=$1 tag=$2
  shift 2
  local nt_args=() pb_args=()
  while [ "$1" != -- ]; do nt_args+=("$1"); shift; done
  shift
  pb_args=("$@")
  for r in $(seq "$rounds"); do
    "$nt_dir/${op}_perf" -g "$ngpus" "${nt_args[@]}" 2>&1 | rows >>"$tmp/$op.$tag.nt"
    timeout 120 "$pb" bench --op "$op" -g "$ngpus" "${pb_args[@]}" 2>&1 | rows >>"$tmp/$op.$tag.pb"
  done
}
status=0
echo "#           op      size    nccl-tests_us   pipebench_us   ratio  target"
for op in $ops; do
  if [ ! -x "$nt_dir/${op}_perf" ]; then
    echo "# $op: no $nt_dir/${op}_perf, left out"
    continue
  fi
  measure "$op" bw -b 64M -e 512M -f 8 -n 20 -w 5 -- -b 64M -e 512M -f 8 -n 20 -w 5
  measure "$op" lat -b 1K -e 1K -n 50 -w 10 -G 1 -- -b 1K -e 1K -n 50 -w 10 -G 1
  for tag in bw lat; do
    for size in $(awk '{print $1}' "$tmp/$op.$tag.nt" | sort -un); do
      nt=$(awk -v s="$size" '$1 == s {print $2}' "$tmp/$op.$tag.nt" | median)
      pbt=$(awk -v s="$size" '$1 == s {print $2}' "$tmp/$op.$tag.pb" | median)
      awk -v op="$op" -v s="$size" -v nt="$nt" -v pb="$pbt" -v tag="$tag" 'BEGIN {
        if (pb == "" || pb + 0 <= 0 || nt + 0 <= 0) { printf "%14s %9s  no time from one side\n", op, s; exit 1 }
        if (tag == "bw") { ratio = nt / pb; ok = ratio >= 0.99; target = "busbw >= 0.99x" }
        else { ratio = pb / nt; ok = ratio <= 1; target = "-G latency <= 1x" }
        printf "%14s %9s %16.2f %14.2f %7.3f  %s %s\n", op, s, nt, pb, ratio, target, ok ? "(ok)" : "(MISSED)"
        exit !ok
      }' || status=1
    done
  done
done
exit "$status"
