#!/usr/bin/env bash
# make bench (replay grid): every schedule predicted and replayed on host ranks (MPI backend), per cell of
# ranks x compute, 5 iterations each, with the cell's own bench --plan table. The plan is the grid of
# src/sim/README.md ("Predictions that hold"): h 1024, ffn 4096, s 512, fp16, 16 microbatches, 2 layers
# per rank. Target per cell: every schedule's predicted iteration (references included) within the
# target of its replayed median, and the same fastest of Megatron's schedules on both sides.
# With a core per rank twice over (16 cores: 4 and 8 ranks) every compute of the grid and 5 %; with
# fewer cores (a 2-core machine: ranks share cores, and waits sleep between polls) 4 ranks from 1/2 ms
# per layer on, 10 %.
#   replay_grid_bench.sh PIPEBENCH MPIRUN
set -u
pipebench=$1
mpirun=$2
cores=$(nproc)
if [ "$cores" -ge 16 ]; then
  ranks_list="4 8" computes="0.5/1 1/2 2/4 8/16" target=5
else
  ranks_list="4" computes="1/2 2/4 8/16" target=10
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
for ranks in $ranks_list; do
  layers=$((2 * ranks))
  if ! "$pipebench" plan --json "$dir/plan$ranks.json" -- --num-layers "$layers" --hidden-size 1024 \
      --ffn-hidden-size 4096 --num-attention-heads 8 --seq-length 512 --max-position-embeddings 512 \
      --micro-batch-size 1 --global-batch-size 16 --pipeline-model-parallel-size "$ranks" --world-size "$ranks" \
      --vocab-size 1000 --fp16 >/dev/null; then
    echo "replay grid: plan of $ranks ranks failed"; exit 1
  fi
  if ! "$mpirun" -np "$ranks" --oversubscribe "$pipebench" bench --plan "$dir/plan$ranks.json" --backend mpi --quiet \
      --json "$dir/table$ranks.json" >"$dir/bench$ranks.log" 2>&1; then
    echo "replay grid: bench --plan on $ranks ranks failed:"; tail -5 "$dir/bench$ranks.log"; exit 1
  fi
  for compute in $computes; do
    fwd=${compute%/*} bwd=${compute#*/}
    out="$dir/replay${ranks}_$fwd.txt"
    if ! "$mpirun" -np "$ranks" --oversubscribe "$pipebench" replay --plan "$dir/plan$ranks.json" \
        --table "$dir/table$ranks.json" --backend mpi --quiet --fwd-ms-per-layer "$fwd" --bwd-ms-per-layer "$bwd" \
        --iterations 5 >"$out" 2>&1; then
      echo "replay grid: replay on $ranks ranks at $compute ms failed:"; tail -5 "$out"; exit 1
    fi
    # A schedule's row: name, "(ref)" for a reference, predicted ms, replayed median, "(min-max)", error %.
    awk -v ranks="$ranks" -v compute="$compute" -v target="$target" '
      /^#  schedule/ { rows = 1; next }
      /^#/ { if (rows) rows = 0 }
      rows && NF >= 5 {
        for (i = 2; i < NF; ++i) if ($i ~ /\)$/ && $i ~ /-/) { err = $(i + 1); break }
        cells = cells sprintf(" %s %+.1f", $1, err)
        if (err < 0) err = -err
        if (err > worst) worst = err
        if ($2 != "(ref)") {  # the fastest schedule Megatron runs, predicted and replayed
          if (predicted == "" || $2 + 0 < best_predicted) { best_predicted = $2 + 0; predicted = $1 }
          if (measured == "" || $3 + 0 < best_measured) { best_measured = $3 + 0; measured = $1 }
        }
      }
      END {
        ok = worst <= target && measured != "" && measured == predicted
        printf "%s ranks, %s ms per layer: error %%%s; fastest replayed %s, predicted %s: largest %.1f %% %s\n", ranks, compute, \
          cells, measured, predicted, worst, ok ? "(ok)" : "(over the target of " target " %)"
        exit !ok
      }' "$out" || status=1
  done
done
exit $status
