#!/usr/bin/env bash
# HUNK4J's validation as a 4-task Slurm array on a real single-node cluster started here
# (scripts/slurm-local.sh; root, slurm-wlm and munge), merged, and compared with a
# one-machine build of the same recipe made by another execution:
#
#   benches/hunk4j/shards.sh D4J_HOME REPOS_FILE OUT PROJECT...
#
# The array builds with an empty cache of its own (OUT/cache-array), so every Defects4J
# run is made again; the one-machine build uses ONE_CACHE (default OUT/cache-one, empty:
# a second full execution; point it at measure.sh's OUT/cache to reuse that
# measurement's runs, which were made by yet another execution). The two datasets must
# be the same but for what executions measure (scripts/same_build.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$here/../.." && pwd)
usage="usage: $0 D4J_HOME REPOS_FILE OUT PROJECT..."
home=$(cd "${1:?$usage}" && pwd)
repos=$(cd "$(dirname "${2:?$usage}")" && pwd)/$(basename "$2")
out=${3:?$usage}
shift 3
[ "$#" -gt 0 ] || { echo "$usage" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out" in *" "*) echo "shards.sh: OUT must not contain spaces (slurm.conf)" >&2; exit 2 ;; esac
HUNKGEN=${HUNKGEN:-$ROOT/target/release/hunkgen}
one_cache=${ONE_CACHE:-$out/cache-one}
# shellcheck source=benches/hunk4j/recipe.sh
source "$here/recipe.sh"
# One recipe without a cache line: each execution gets its cache from HUNKGEN_CACHE_DIR.
hunk4j_recipe "$ROOT" "$home" "" "$@" > "$out/recipe.yaml"
: > "$out/repos.yaml"
for p in "$@"; do grep "^$p:" "$repos" >> "$out/repos.yaml"; done

not_run() { echo "shards.sh: the cluster is not available: $1" >&2; exit 1; }
W=$out/cluster
# shellcheck source=scripts/slurm-local.sh
source "$ROOT/scripts/slurm-local.sh"
echo "shards.sh: cluster up ($(sinfo -h -o '%P %D %t %c'))"

cd "$out"
rm -rf shards merged one
export HUNKGEN_CACHE_DIR="$out/cache-array"
export HUNKGEN HUNKGEN_RECIPE="$out/recipe.yaml" HUNKGEN_SHARDS_DIR="$out/shards" HUNKGEN_REPOS="$out/repos.yaml"
start=$(date +%s)
sbatch --wait --array=0-3 --output="$out/slurm-%A_%a.out" "$ROOT/deploy/slurm/hunkgen-array.sh" \
  || { echo "shards.sh: the array job failed:" >&2; tail -n 5 "$out"/slurm-*.out >&2; exit 1; }
array_s=$(( $(date +%s) - start ))
"$HUNKGEN" merge "$out/merged" shards/0 shards/1 shards/2 shards/3 >/dev/null
start=$(date +%s)
HUNKGEN_CACHE_DIR="$one_cache" "$HUNKGEN" build -q "$out/recipe.yaml" -o "$out/one" --repos "$out/repos.yaml" >/dev/null
one_s=$(( $(date +%s) - start ))
python3 "$ROOT/scripts/same_build.py" one merged
echo "shards.sh: PASSED $(wc -l < one/instances.jsonl) instances, $(wc -l < one/rejected.jsonl) rejected; array ${array_s}s (4 tasks), one machine ${one_s}s; merged = one machine"
