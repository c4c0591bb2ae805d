#!/usr/bin/env bash
# HUNK4J through real Defects4J: golden tests (and, with STATES=1, states) for the bugs of
# bugs.txt, one `hunkgen build` per project so each project's wall time is its own; with
# EVAL=1, then `hunkgen evaluate --baseline gold` and `--baseline empty` on each project's
# dataset (the whole suite, before and after), timed apart. PROJECTS="Cli Lang" narrows
# the run to those lines of bugs.txt.
#
#   benches/hunk4j/measure.sh D4J_HOME REPOS_FILE OUT
#
# D4J_HOME: a Defects4J v3.0.1 tree prepared by scripts/install-defects4j.sh (framework
# from rjust/defects4j at tag v3.0.1, project_repos/<name>.git the upstream mirrors).
# REPOS_FILE: `Project: /path/to/upstream.git` lines (the --repos file of hunkgen build).
# OUT: where recipes, datasets, logs, the shared cache and walls.tsv go (one line per
# build or evaluation appended; the last line of a name counts). Re-running answers
# finished runs from the cache (OUT/cache), so an interrupted measurement resumes.
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
grep -v '^#' "$here/bugs.txt" | while IFS=: read -r project _; do
  if [ -n "${PROJECTS:-}" ] && ! [[ " $PROJECTS " == *" $project "* ]]; then continue; fi
  recipe="$out/recipes/$project.yaml"
  hunk4j_recipe "$root" "$home" "$out/cache" "$project" > "$recipe"
  grep "^$project:" "$repos" > "$out/recipes/$project.repos.yaml" || true
  start=$(date +%s)
  rc=0
  "$hunkgen" build "$recipe" -o "$out/ds/$project" --repos "$out/recipes/$project.repos.yaml" \
    -j "$jobs" > "$out/logs/$project.log" 2>&1 || rc=$?
  printf '%s\t%s\t%s\n' "$project" "$rc" "$(( $(date +%s) - start ))" >> "$out/walls.tsv"
  echo "$project: exit $rc, $(( $(date +%s) - start )) s"
  if [ "${EVAL:-0}" = 1 ] && [ "$rc" = 0 ]; then
    for baseline in gold empty; do
      start=$(date +%s)
      rc=0
      "$hunkgen" evaluate "$out/ds/$project" --baseline "$baseline" -j "$jobs" -q \
        > "$out/logs/$project.$baseline.log" 2>&1 || rc=$?
      printf '%s\t%s\t%s\n' "$project:$baseline" "$rc" "$(( $(date +%s) - start ))" >> "$out/walls.tsv"
      echo "$project $baseline: exit $rc, $(( $(date +%s) - start )) s"
    done
  fi
done
