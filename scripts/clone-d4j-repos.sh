#!/usr/bin/env bash
# Clone the upstream repositories of the 16 Defects4J projects that have a git history
# (all but Chart, whose history is SVN), as bare mirrors, and write a --repos file:
#
#   scripts/clone-d4j-repos.sh ~/d4j-repos            # needs network access to GitHub
#   hunkgen build recipes/hunk4j.yaml --repos ~/d4j-repos/repos.yaml
#
# Mirrors keep every ref (Lang's Defects4J commits also sit under refs/pull/*; the recipe's
# revision map makes a plain history enough). Re-running fetches what is new.
set -euo pipefail
dest=${1:?usage: $0 DEST_DIR}
mkdir -p "$dest"
repos=(
  "Cli apache/commons-cli"
  "Closure google/closure-compiler"
  "Codec apache/commons-codec"
  "Collections apache/commons-collections"
  "Compress apache/commons-compress"
  "Csv apache/commons-csv"
  "Gson google/gson"
  "JacksonCore FasterXML/jackson-core"
  "JacksonDatabind FasterXML/jackson-databind"
  "JacksonXml FasterXML/jackson-dataformat-xml"
  "Jsoup jhy/jsoup"
  "JxPath apache/commons-jxpath"
  "Lang apache/commons-lang"
  "Math apache/commons-math"
  "Mockito mockito/mockito"
  "Time JodaOrg/joda-time"
)
yaml="$dest/repos.yaml.tmp"
echo "# project: repository (written by scripts/clone-d4j-repos.sh)" > "$yaml"
for entry in "${repos[@]}"; do
  project=${entry%% *}
  slug=${entry#* }
  dir="$dest/${slug/\//+}.git"
  if [ -d "$dir" ]; then
    echo "== $project: fetching into $dir"
    git --git-dir "$dir" fetch --quiet --prune origin
  else
    echo "== $project: cloning $slug into $dir"
    git clone --quiet --mirror "https://github.com/$slug.git" "$dir.part"
    mv "$dir.part" "$dir"
  fi
  echo "$project: ${slug/\//+}.git" >> "$yaml"
done
mv "$yaml" "$dest/repos.yaml"
echo "wrote $dest/repos.yaml; build with: hunkgen build recipes/hunk4j.yaml --repos $dest/repos.yaml"
