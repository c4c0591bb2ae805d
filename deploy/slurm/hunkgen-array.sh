#!/bin/sh
# hunkgen as a Slurm job array: one array task per shard. Slurm sets
# SLURM_ARRAY_TASK_ID (0..N-1) and SLURM_ARRAY_TASK_COUNT (N), which `hunkgen build`
# reads when neither --shard nor HUNKGEN_SHARD is given, so task K builds shard K/N into
# $HUNKGEN_SHARDS_DIR/K. Submit from a directory every node sees (a shared filesystem
# holding the recipe, the repositories, the recipe's validate.cache and the shards):
#
#   HUNKGEN_RECIPE=recipes/demo.yaml HUNKGEN_SHARDS_DIR=shards \
#     sbatch --array=0-3 deploy/slurm/hunkgen-array.sh
#   # after the array finished (or: sbatch --wait …):
#   hunkgen merge datasets/demo shards/0 shards/1 shards/2 shards/3
#
# HUNKGEN_REPOS, when set, is the build's --repos file (project → repository path, as
# for Defects4J recipes such as HUNK4J).
#
# With arguments, the task runs that hunkgen command instead (evaluate, run and validate
# read the same variables), each task writing its own shard directory:
#
#   sbatch --array=0-3 deploy/slurm/hunkgen-array.sh evaluate datasets/demo --baseline gold -q
#   hunkgen merge datasets/demo/evaluations/baseline-gold \
#     datasets/demo/evaluations/baseline-gold-shard-*-of-4
#
# Any contiguous array works (--array=0-3 or 1-4; %2 runs 2 at a time): K is
# SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, and shard K goes to $HUNKGEN_SHARDS_DIR/K
# either way (or shard K of HUNKGEN_SHARD=K/N when that is set). A task whose K is not below SLURM_ARRAY_TASK_COUNT (an array with gaps,
# --array=0-2,5) stops with an error before writing anything.
#SBATCH --job-name=hunkgen-shard
#SBATCH --output=slurm-hunkgen-%A_%a.out
#SBATCH --cpus-per-task=1
set -eu
: "${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-<N-1>}"
fail() { echo "hunkgen-array.sh: $*" >&2; exit 2; }
number() { case "$1" in '' | *[!0-9]*) return 1 ;; esac; }
if [ -n "${HUNKGEN_SHARD:-}" ]; then
  # A task re-submitted alone with its shard given (HUNKGEN_SHARD=2/4 sbatch --array=2).
  K=${HUNKGEN_SHARD%%/*}
  number "$K" || fail "HUNKGEN_SHARD=$HUNKGEN_SHARD is not K/N"
else
  ID=$SLURM_ARRAY_TASK_ID
  MIN=${SLURM_ARRAY_TASK_MIN:-0}
  COUNT=${SLURM_ARRAY_TASK_COUNT:-}
  number "$ID" || fail "SLURM_ARRAY_TASK_ID=$ID is not a task number"
  number "$MIN" || fail "SLURM_ARRAY_TASK_MIN=$MIN is not a task number"
  number "$COUNT" && [ "$COUNT" -gt 0 ] || fail "SLURM_ARRAY_TASK_COUNT=$COUNT is not a task count"
  [ "$ID" -ge "$MIN" ] || fail "task $ID is below SLURM_ARRAY_TASK_MIN=$MIN"
  K=$((ID - MIN))
  [ "$K" -lt "$COUNT" ] || fail "task $ID is shard $K, but there are $COUNT tasks (submit a contiguous array: --array=$MIN-$((MIN + COUNT - 1)))"
fi
if [ "$#" -gt 0 ]; then
  exec "${HUNKGEN:-hunkgen}" "$@"
fi
: "${HUNKGEN_RECIPE:?set HUNKGEN_RECIPE to the recipe file}"
: "${HUNKGEN_SHARDS_DIR:?set HUNKGEN_SHARDS_DIR to the directory receiving the shards}"
if [ -n "${HUNKGEN_REPOS:-}" ]; then
  exec "${HUNKGEN:-hunkgen}" build -q "$HUNKGEN_RECIPE" -o "$HUNKGEN_SHARDS_DIR/$K" --repos "$HUNKGEN_REPOS"
fi
exec "${HUNKGEN:-hunkgen}" build -q "$HUNKGEN_RECIPE" -o "$HUNKGEN_SHARDS_DIR/$K"
