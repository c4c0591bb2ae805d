#!/usr/bin/env bash
# Defects4J, offline, for the `defects4j` environment kind and its tests (make d4j-deps):
#
#   scripts/install-defects4j.sh packages
#       Debian packages Defects4J's Perl framework needs (Ant, DBI, DBD::CSV, JSON, ...)
#       and JDK 11, Defects4J 3's JVM, from Debian bullseye under a low apt pin (bookworm
#       has only 17; the pin keeps every other package on bookworm). Root and apt-get.
#       Nothing is done for what is already there.
#
#   scripts/install-defects4j.sh framework FRAMEWORK_SRC REPOS DEST
#       A working copy of a Defects4J framework tree (Defects4J writes into its tree),
#       the stand-ins for what Defects4J's init.sh downloads (checkout, compile and test
#       never use them, its start-up checks look for them), and project_repos/<name>.git
#       for each project: cloned --mirror from REPOS/<name>.bundle, or linked to
#       REPOS/<name>.git when that is a git repository (a mirror of the public upstream
#       repository; Defects4J only reads it). Re-running keeps a finished copy.
#
#   For the whole of HUNK4J: FRAMEWORK_SRC is a checkout of rjust/defects4j (tag v3.0.1)
#   and REPOS holds <name>.git mirrors of the 15 git projects' upstream repositories
#   (commons-lang.git, closure-compiler.git, jackson-databind.git, ...).
set -euo pipefail

JDK11=/usr/lib/jvm/java-11-openjdk-amd64
PERL_MODULES="DBI DBD::CSV JSON JSON::Parse String::Interpolate URI"

packages() {
  local missing=0
  command -v ant >/dev/null || missing=1
  for m in $PERL_MODULES; do
    perl -M"$m" -e 1 2>/dev/null || missing=1
  done
  if [ "$missing" = 1 ]; then
    need_root "Ant and the Perl modules"
    echo "== installing Ant and Defects4J's Perl modules (Debian)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ant libdbi-perl libdbd-csv-perl \
      libjson-perl libjson-parse-perl libstring-interpolate-perl liburi-perl
  fi
  if [ ! -x "$JDK11/bin/javac" ]; then
    need_root "JDK 11"
    bash "$(dirname "$0")/apt-bullseye.sh" openjdk-11-jdk-headless
  fi
}

need_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "install-defects4j: $1 missing and this is not root; install as root: $0 packages" >&2
    exit 1
  fi
}

framework() {
  local src=${1:?usage: $0 framework FRAMEWORK_SRC REPOS DEST}
  local bundles=${2:?usage: $0 framework FRAMEWORK_SRC REPOS DEST}
  local dest=${3:?usage: $0 framework FRAMEWORK_SRC REPOS DEST}
  if [ -f "$dest/.installed" ]; then
    return 0
  fi
  [ -x "$src/framework/bin/defects4j" ] || {
    echo "install-defects4j: no Defects4J framework at $src (framework/bin/defects4j)" >&2
    exit 1
  }
  if [ -e "$dest" ] && [ ! -f "$dest/.partial" ]; then
    echo "install-defects4j: $dest exists and was not made here; not replacing it" >&2
    exit 1
  fi
  echo "== preparing a Defects4J working copy in $dest"
  rm -rf "$dest"
  mkdir -p "$dest"
  touch "$dest/.partial"
  cp -r "$src"/. "$dest"/
  mkdir -p "$dest/project_repos" "$dest/major/bin" \
    "$dest/framework/lib/test_generation/generation" \
    "$dest/framework/lib/build_systems/gradle/dists" \
    "$dest/framework/lib/build_systems/gradle/deps"
  echo "Defects4J version 3" > "$dest/project_repos/README"
  ln -sf "$(command -v ant || echo /usr/bin/ant)" "$dest/major/bin/ant"
  # One mirror per project whose repository a bundle provides; the name is `my $name`
  # in framework/core/Project/<P>.pm (commons-cli, commons-codec, ...).
  for pm in "$dest"/framework/core/Project/*.pm; do
    name=$(sed -n 's/^ *my \$name *= *"\([^"]*\)";.*/\1/p' "$pm" | head -n 1)
    [ -n "$name" ] || continue
    if [ -f "$bundles/$name.bundle" ]; then
      echo "== $name: cloning $bundles/$name.bundle"
      git -c init.defaultBranch=master clone --quiet --mirror "$bundles/$name.bundle" "$dest/project_repos/$name.git"
    elif git --git-dir="$bundles/$name.git" rev-parse --git-dir >/dev/null 2>&1; then
      echo "== $name: linking $bundles/$name.git"
      ln -s "$(cd "$bundles/$name.git" && pwd -P)" "$dest/project_repos/$name.git"
    fi
  done
  touch "$dest/.installed"
  rm -f "$dest/.partial"
}

case "${1:-}" in
  packages) packages ;;
  framework) shift; framework "$@" ;;
  *) echo "usage: $0 packages | framework FRAMEWORK_SRC REPOS DEST" >&2; exit 2 ;;
esac
