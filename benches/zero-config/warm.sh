#!/usr/bin/env bash
# Warm rebuild of one recipe with two hunkgen binaries, alternating: one run of each
# first (fills what the cache lacks), then 3 of each; prints every time in seconds.
#   benches/zero-config/warm.sh BASE_BINARY NEW_BINARY RECIPE OUTPUT
# Use the same HUNKGEN_CACHE_DIR for both (the cache the first build filled).
set -euo pipefail
base=$1 new=$2 recipe=$3 out=$4
t() {
  local s
  s=$(date +%s.%N)
  "$1" build "$recipe" -o "$out" --jobs 2 -q > /dev/null 2>&1
  echo "$(date +%s.%N) - $s" | bc
}
t "$base" > /dev/null
t "$new" > /dev/null
a=() b=()
for _ in 1 2 3; do
  a+=("$(t "$base")")
  b+=("$(t "$new")")
done
echo "$(basename "$recipe" .yaml) instances=$(wc -l < "$out/instances.jsonl") base=${a[*]} new=${b[*]}"
