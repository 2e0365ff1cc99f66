#!/usr/bin/env bash
# The quiet build's progress line (the Makefile's quiet_make and its compile and link rules; V=1 prints
# the commands instead). A public target counts the files its sub-make will build (make -n) and starts a
# count; each rule steps it; the end says how many files were built and how long it took.
#   build_progress.sh start BUILD TOTAL   reset the count of BUILD for TOTAL files
#   build_progress.sh step BUILD WHAT     one file: "[ 37/220] src/app/plan_command.cc", rewritten in place
#                                         on a terminal, every tenth of TOTAL elsewhere (a log stays short)
#   build_progress.sh end BUILD           "built 220 files in 8 min 5 s" (nothing where nothing was built)
# A rule run outside a public target (make build/bin/pipebench) has no count (PB_BUILD_PROGRESS unset, as
# the public target sets it for its sub-make alone): one short line per file.
set -u
action=$1 build=$2
count_file=$build/.progress-count
total_file=$build/.progress-total
case $action in
start)
  mkdir -p "$build"
  : >"$count_file"
  echo "${3:-0} $(date +%s)" >"$total_file"
  ;;
step)
  what=$3
  if [ -z "${PB_BUILD_PROGRESS:-}" ] || [ ! -f "$total_file" ]; then
    echo "  $what"
    exit 0
  fi
  read -r total _ <"$total_file"
  # One byte appended per file: O_APPEND keeps the parallel steps' bytes apart, so the size is the count.
  printf . >>"$count_file"
  n=$(stat -c %s "$count_file")
  if [ -t 1 ]; then
    printf '\033[K[%3d/%d] %s\r' "$n" "$total" "$what"
  elif [ "$total" -gt 0 ] && [ $((n * 10 / total)) -gt $(((n - 1) * 10 / total)) ]; then
    echo "build: $((n * 100 / total)) % ($n of $total files)"
  fi
  ;;
end)
  [ -f "$total_file" ] || exit 0
  read -r _ started <"$total_file"
  n=$(stat -c %s "$count_file" 2>/dev/null || echo 0)
  rm -f "$count_file" "$total_file"
  [ -t 1 ] && printf '\033[K'
  seconds=$(($(date +%s) - started))
  if [ "$n" -gt 0 ]; then echo "built $n files in $((seconds / 60)) min $((seconds % 60)) s"; fi
  ;;
*)
  echo "build_progress.sh: unknown action '$action' (start, step or end)" >&2
  exit 2
  ;;
esac
