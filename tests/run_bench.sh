#!/usr/bin/env bash
# make bench: the harness-overhead benchmark. On a GPU node it runs on every local GPU; without one,
# on the MPI backend with 2 host ranks.
set -u
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
echo "# simulator: schedule generation + simulation, p=64 v=8 m=1024; plan of a 1024-rank CP layout (targets: well under a second; under a second)"
"$SIM_BENCH" || exit 1
echo "# trace: read a synthetic Nsight Systems export of 10M kernel rows (target: well under a minute, bounded memory)"
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
echo "# report: 100 hosts x 10 results files into one report (target: under 5 s)"
"$REPORT_BENCH" || exit 1
if [ "${HAVE_NCCL:-0}" = 1 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  exec "$OVERHEAD" --backend nccl
fi
echo "# no GPU visible: timing the MPI backend against bare MPI_Allreduce with 2 host ranks"
exec "$MPIRUN" -np 2 --oversubscribe "$OVERHEAD" --backend mpi
