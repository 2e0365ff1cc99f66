#!/usr/bin/env bash
# make layer-check: every #include "FOLDER/..." of the sources points down the layer order below, never
# up and never sideways. The order is total (one folder per layer), so an include graph that passes has
# no cycle. And no command (src/app/NAME_command.{cc,h}) includes another command's header: what two
# commands share is a service (src/service/), below them. One line per offending include (file, line, what
# it includes); exit status 1 when there is one, 2 on a source outside the declared folders.
#
# usage: layer_check.sh [ROOT]   (default: the current directory; ROOT holds src/, collectives/, topology/)
#        layer_check.sh --order  (prints the order, lowest first)
#
# The order, lowest first; src/README.md states it (kept equal by tests/tools/layer_check_test.cc).
# src/FOLDER/... is FOLDER, src/main.cc is main, collectives/ and topology/ are themselves.
LAYERS="core cli launch topology backend collectives schedule megatron harness sim replay trace io report service app tools main"
set -euo pipefail

if [ "${1:-}" = "--order" ]; then
  echo "${LAYERS// / < }"
  exit 0
fi
root=${1:-.}
if [ ! -d "$root/src" ]; then
  echo "layer-check: $root has no src/ folder" >&2
  exit 2
fi
cd "$root"

mapfile -t files < <(find src collectives topology -type f \
  \( -name '*.cc' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) 2>/dev/null | LC_ALL=C sort)
if [ "${#files[@]}" = 0 ]; then
  echo "layer-check: no C++ source under $root/src" >&2
  exit 2
fi

awk -v layers="$LAYERS" -v nfiles="${#files[@]}" '
function folder(path, parts, n) {
  if (path == "src/main.cc") return "main"
  n = split(path, parts, "/")
  if (parts[1] == "src") return n > 2 ? parts[2] : ""
  return parts[1]
}
BEGIN {
  n = split(layers, order, " ")
  for (i = 1; i <= n; i++) rank[order[i]] = i
}
FNR == 1 {
  from = folder(FILENAME)
  skip = !(from in rank)
  if (skip) { printf "%s: not in a folder of the layer order (%s)\n", FILENAME, layers; unplaced++ }
}
!skip && /^[ \t]*#[ \t]*include[ \t]*"/ {
  inc = $0
  sub(/^[^"]*"/, "", inc)
  sub(/".*$/, "", inc)
  slash = index(inc, "/")
  if (slash == 0) next
  to = substr(inc, 1, slash - 1)
  if (to == "app" && FILENAME ~ /^src\/app\/[^\/]*_command\.(cc|h)$/ && inc ~ /^app\/[^\/]*_command\.h$/) {
    own = FILENAME
    sub(/^src\//, "", own)
    sub(/\.cc$/, ".h", own)
    if (inc != own) {
      printf "%s:%d: a command includes another command'"'"'s header (\"%s\"); move what they share to src/service/\n", FILENAME, FNR, inc
      commands++
    }
  }
  if (!(to in rank) || to == from) next
  if (rank[to] > rank[from]) {
    printf "%s:%d: %s includes %s (\"%s\"), a folder above it\n", FILENAME, FNR, from, to, inc
    bad++
  }
}
END {
  if (unplaced) exit 2
  if (bad) printf "layer-check: %d includes point up the layer order (%s, lowest first)\n", bad, layers
  if (commands) printf "layer-check: %d includes of another command'"'"'s header\n", commands
  if (bad || commands) exit 1
  gsub(/ /, " < ", layers)
  printf "layer-check: every include of %d sources points down the layer order %s\n", nfiles, layers
}' "${files[@]}"
