#!/usr/bin/env bash
# HUNK4J through real Defects4J: golden tests (and, with STATES=1, states) for the bugs of
# bugs.txt, one `hunkgen build` per project so each project's wall time is its own.
#
#   benches/hunk4j/measure.sh D4J_HOME REPOS_FILE OUT
#
# D4J_HOME: a Defects4J v3.0.1 tree prepared by scripts/install-defects4j.sh (framework
# from rjust/defects4j at tag v3.0.1, project_repos/<name>.git the upstream mirrors).
# REPOS_FILE: `Project: /path/to/upstream.git` lines (the --repos file of hunkgen build).
# OUT: where recipes, datasets, logs, the shared cache and walls.tsv go. Re-running
# answers finished runs from the cache (OUT/cache), so an interrupted measurement resumes.
# Then: python3 benches/hunk4j/summarize.py OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
home=$(cd "${1:?usage: $0 D4J_HOME REPOS_FILE OUT}" && pwd)
repos=$(cd "$(dirname "${2:?usage: $0 D4J_HOME REPOS_FILE OUT}")" && pwd)/$(basename "$2")
out=${3:?usage: $0 D4J_HOME REPOS_FILE OUT}
mkdir -p "$out"/{recipes,ds,logs}
out=$(cd "$out" && pwd)
# shellcheck source=benches/hunk4j/recipe.sh
source "$here/recipe.sh"
hunkgen=${HUNKGEN:-$root/target/release/hunkgen}
jobs=${JOBS:-2}
: > "$out/walls.tsv.part"
grep -v '^#' "$here/bugs.txt" | while IFS=: read -r project ids; do
  recipe="$out/recipes/$project.yaml"
  hunk4j_recipe "$root" "$home" "$out/cache" "$project" > "$recipe"
  grep "^$project:" "$repos" > "$out/recipes/$project.repos.yaml" || true
  start=$(date +%s)
  rc=0
  "$hunkgen" build "$recipe" -o "$out/ds/$project" --repos "$out/recipes/$project.repos.yaml" \
    -j "$jobs" > "$out/logs/$project.log" 2>&1 || rc=$?
  printf '%s\t%s\t%s\n' "$project" "$rc" "$(( $(date +%s) - start ))" >> "$out/walls.tsv.part"
  echo "$project: exit $rc, $(( $(date +%s) - start )) s"
done
mv "$out/walls.tsv.part" "$out/walls.tsv"
