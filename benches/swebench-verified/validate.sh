#!/bin/sh
# Validates the 65-row sample with `env: swebench` and prints the agreement table.
#   benches/swebench-verified/validate.sh MIRRORS_DIR [HUNKGEN]
# MIRRORS_DIR/<owner>+<name>/repo is each repository's git directory (as `fetch`
# makes it, or `git clone --mirror`); target/swebench-verified/rows.jsonl is made by
# sample.py (README). Environments and runs are cached in $HUNKGEN_CACHE_DIR.
# RECIPE=recipe-exports.yaml builds the rows in the harness's exported environments,
# read from MIRRORS_DIR/SWE-bench+SWE-bench/repo at the commit below.
set -eu
mirrors=$1
hunkgen=${2:-target/release/hunkgen}
here=$(dirname "$0")
mkdir -p target/swebench-verified/repos
for r in astropy+astropy mwaskom+seaborn pallets+flask psf+requests pydata+xarray \
         pylint-dev+pylint pytest-dev+pytest sphinx-doc+sphinx sympy+sympy; do
  ln -sfn "$mirrors/$r/repo" "target/swebench-verified/repos/$r"
done
recipe=${RECIPE:-recipe.yaml}
if [ "$recipe" = recipe-exports.yaml ]; then
  og=target/swebench-verified/swebench-og
  rm -rf "$og.tmp" && mkdir -p "$og.tmp"
  git --git-dir "$mirrors/SWE-bench+SWE-bench/repo" archive \
    7a21e05772954cc81471ae19d56f436cecf43c54 swebench/resources/swebench-og \
    | tar -x -C "$og.tmp" --strip-components 3
  rm -rf "$og" && mv "$og.tmp" "$og"
fi
"$hunkgen" build "$here/$recipe" -o target/swebench-verified/dataset --force --jobs "${JOBS:-2}"
python3 "$here/agreement.py" target/swebench-verified/dataset target/swebench-verified/rows.jsonl
