#!/bin/bash
# make check-slurm: a real single-node Slurm cluster on this machine (munged, slurmctld,
# slurmd on localhost, with a configuration written here), the demo's validated build
# submitted as a 4-task array (deploy/slurm/hunkgen-array.sh, sbatch --array=0-3), the
# shards merged and compared with a one-machine build made by its own execution with an
# empty cache of its own (everything but measured times and test logs byte for byte);
# then the built dataset is evaluated (gold baseline) as a 4-task array and merged the
# same way, against a one-machine evaluation with its own cache. Every daemon started
# here is stopped on exit. Where Slurm cannot be installed or started, prints
# "slurm check: NOT RUN (<why>)" and exits 1: `make test` fails. Only
# HUNKGEN_SKIP_SLURM=1, set deliberately, skips it (printing "slurm check: SKIPPED").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HUNKGEN=${HUNKGEN:-$ROOT/target/debug/hunkgen}
W=${SLURM_CHECK_DIR:-$ROOT/target/slurm-check}
# slurm.conf cannot hold a path with spaces: then the cluster's files go under /tmp.
case "$W" in *" "*) W=$(mktemp -d /tmp/hunkgen-slurm-check.XXXXXX) ;; esac

if [ "${HUNKGEN_SKIP_SLURM:-}" = 1 ]; then
  echo "slurm check: SKIPPED (HUNKGEN_SKIP_SLURM=1)"
  exit 0
fi
not_run() {
  echo "slurm check: NOT RUN ($1); this fails the check (HUNKGEN_SKIP_SLURM=1 skips it deliberately)" >&2
  exit 1
}

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  if [ "$(id -u)" != 0 ]; then not_run "slurm-wlm and munge are not installed and this is not root"; fi
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge; } >/dev/null 2>&1; then
    not_run "apt-get install slurm-wlm munge failed"
  fi
fi
[ "$(id -u)" = 0 ] || not_run "the daemons run as root here (SlurmUser=root); run as root"
[ -x "$HUNKGEN" ] || { echo "slurm check: $HUNKGEN is missing (cargo build)" >&2; exit 1; }

# shellcheck source=scripts/slurm-local.sh
source "$ROOT/scripts/slurm-local.sh"
echo "slurm check: cluster up ($(sinfo -h -o '%P %D %t %c'))"

# 4. the demo, 4 shards as an array job (2 run at a time on 2 CPUs). The recipe's cache
# line goes, so each execution below gets its cache from HUNKGEN_CACHE_DIR: the array's,
# and the one-machine build's own (empty).
mkdir -p "$W/demo/recipes"
sh "$ROOT/demo/build-repo.sh" "$W/demo/target/demo-repo" >/dev/null
grep -q '^  cache: ' "$ROOT/recipes/demo.yaml" || { echo "slurm check: the demo recipe's cache line moved" >&2; exit 1; }
grep -v '^  cache: ' "$ROOT/recipes/demo.yaml" > "$W/demo/recipes/demo.yaml"
cd "$W/demo"
export HUNKGEN HUNKGEN_RECIPE="$W/demo/recipes/demo.yaml" HUNKGEN_SHARDS_DIR="$W/demo/shards"
export HUNKGEN_CACHE_DIR="$W/demo/cache-array"
start=$(date +%s)
sbatch --wait --array=0-3 --output="$W/demo/slurm-%A_%a.out" "$ROOT/deploy/slurm/hunkgen-array.sh" \
  || { echo "slurm check: the array job failed:" >&2; tail -n 5 "$W"/demo/slurm-*.out >&2; exit 1; }
echo "slurm check: 4 array tasks done in $(( $(date +%s) - start ))s"
for k in 0 1 2 3; do
  grep -q "^shard: $k$" "shards/$k/shard.yaml" || { echo "slurm check: shards/$k has no manifest for shard $k" >&2; exit 1; }
done

# 5. merge, and the one-machine build: another execution of every test, with an empty
# cache of its own (not answered from the entries the tasks wrote).
"$HUNKGEN" merge "$W/demo/merged" shards/0 shards/1 shards/2 shards/3
HUNKGEN_CACHE_DIR="$W/demo/cache-one" "$HUNKGEN" build -q "$HUNKGEN_RECIPE" -o "$W/demo/one" >/dev/null
[ -d "$W/demo/cache-one/runs" ] || { echo "slurm check: the one-machine build used no cache of its own" >&2; exit 1; }

# 6. the same dataset: byte for byte but for what two executions measure (the card's
# built_at, validation.seconds in instances.jsonl and its checksum, the test logs'
# contents: the same logs exist), git's index (stat data) and pack files (not
# reproducible between any two builds), whose repositories' objects are compared.
python3 "$ROOT/scripts/same_build.py" one merged
repos=0
while IFS= read -r git; do
  repo=${git%/.git}; rel=${repo#one/}
  a=$(git -C "$repo" cat-file --batch-all-objects --batch-check; git -C "$repo" rev-parse HEAD)
  b=$(git -C "merged/$rel" cat-file --batch-all-objects --batch-check; git -C "merged/$rel" rev-parse HEAD)
  [ "$a" = "$b" ] || { echo "slurm check: $rel differs" >&2; exit 1; }
  repos=$((repos + 1))
done < <(find one -name .git -type d)

# 7. evaluate as an array too (the same script, given the command), merged = one
# machine's evaluation; again each with its own cache (the array's runs come from the
# array's, the one-machine evaluation's from the one-machine build's).
start=$(date +%s)
sbatch --wait --array=0-3 --output="$W/demo/slurm-eval-%A_%a.out" \
  "$ROOT/deploy/slurm/hunkgen-array.sh" evaluate "$W/demo/one" --baseline gold -q >/dev/null \
  || { echo "slurm check: the evaluate array failed:" >&2; tail -n 5 "$W"/demo/slurm-eval-*.out >&2; exit 1; }
echo "slurm check: 4 evaluate tasks done in $(( $(date +%s) - start ))s"
E=one/evaluations
"$HUNKGEN" merge "$W/demo/eval-merged" $E/baseline-gold-shard-{0,1,2,3}-of-4 >/dev/null
HUNKGEN_CACHE_DIR="$W/demo/cache-one" "$HUNKGEN" evaluate one --baseline gold -q --output "$W/demo/eval-one" >/dev/null
for f in results.jsonl summary.json; do
  cmp "$W/demo/eval-one/$f" "$W/demo/eval-merged/$f" || { echo "slurm check: evaluate $f differs" >&2; exit 1; }
done
echo "slurm check: PASSED (4 shards via sbatch --array=0-3, merged = a one-machine build with its own cache; $(wc -l < one/instances.jsonl) instances, $repos state repositories compared; evaluate as a 4-task array, merged = a one-machine evaluation with its own cache)"
