#!/usr/bin/env bash
# Sourced by measure.sh and shards.sh. hunk4j_recipe ROOT D4J_HOME CACHE PROJECT...
# (FIRST=N narrows each project to its first N bugs of bugs.txt.)
# prints recipes/hunk4j.yaml with absolute paths, narrowed to the given projects and
# their bugs of bugs.txt, plus a validate section running Defects4J (relevant tests,
# RERUNS runs per version, default 1) with CACHE as its cache (empty: no cache line, so
# the build takes HUNKGEN_CACHE_DIR or the default).
hunk4j_recipe() {
  local root=$1 home=$2 cache=$3
  shift 3
  local name projects bugs ids
  name=$(IFS=-; echo "$*")
  projects=$(IFS=,; echo "$*" | sed 's/,/, /g')
  bugs=""
  for p in "$@"; do
    ids=$(grep "^$p:" "$root/benches/hunk4j/bugs.txt" | cut -d: -f2)
    [ -n "$ids" ] || { echo "hunk4j_recipe: $p is not in bugs.txt" >&2; return 1; }
    # FIRST=N: only the first N bugs of the line (bugs.txt lists them lowest first), the
    # stratified sample of issue #35 is FIRST=3 over the fifteen git projects.
    if [ -n "${FIRST:-}" ]; then ids=$(printf '%s\n' $ids | head -n "$FIRST" | tr '\n' ' '); fi
    for i in $ids; do bugs="$bugs${bugs:+, }${p}_$i"; done
  done
  sed -e "s|^name: hunk4j|name: hunk4j-$name|" \
      -e "s|\.\./\.\./shared/|$root/../shared/|g" \
      -e "s|^    version: v2.1.0|    version: v2.1.0\n    projects: [$projects]\n    bugs: [$bugs]|" \
      "$root/recipes/hunk4j.yaml"
  cat <<YAML
validate:
  reruns: ${RERUNS:-1}
  timeout: 1800
  sandbox: required
${cache:+  cache: $cache
}  defects4j:
    home: $home
    tests: relevant
YAML
  if [ "${STATES:-0}" = 1 ]; then
    printf 'states:\n  kinds: [novel, partial, resolved]\n  scenarios: [best, worst]\n'
  fi
}
