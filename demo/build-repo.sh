#!/bin/sh
# Build the acme demo project's git history into <out-dir>: demo/base/ becomes the root
# commit, then demo/commits/*.patch are applied in order with `git am`. Identities and
# dates are fixed, so every build yields the same commit ids. Prints the HEAD commit.
set -eu

usage() {
    echo "usage: build-repo.sh <out-dir>" >&2
    exit 2
}
[ $# -eq 1 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
out=$1

# No user or system configuration may change the result (hooks, templates, autocrlf...).
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME="Acme Developer" GIT_AUTHOR_EMAIL="dev@acme.example"
export GIT_COMMITTER_NAME="Acme Developer" GIT_COMMITTER_EMAIL="dev@acme.example"
export GIT_AUTHOR_DATE="2024-03-01T09:00:00Z" GIT_COMMITTER_DATE="2024-03-01T09:00:00Z"

if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
    if [ -f "$out/.git/hunkgen-demo" ]; then
        rm -rf "$out"
    else
        echo "build-repo.sh: $out is not empty and is not a previous demo repository; refusing to overwrite it" >&2
        exit 1
    fi
fi
mkdir -p "$out"
cp -R "$here/base/." "$out/"
cd "$out"
git init -q -b main --template=
: > .git/hunkgen-demo
git add -A
git commit -q -m "Initial import of the acme utilities"
for patch in "$here"/commits/*.patch; do
    # The committer date is taken from each patch's Date line, like the author date.
    git am -q --committer-date-is-author-date "$patch"
done
git rev-parse HEAD
