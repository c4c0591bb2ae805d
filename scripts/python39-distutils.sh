#!/usr/bin/env bash
# Gives Debian bullseye's python3.9 (installed by apt-bullseye.sh) its `distutils`, which
# uv needs to use an interpreter older than 3.10 ("Python installation is missing
# `distutils`"). Bullseye ships it in `python3-distutils`, a name bookworm's 3.11 package
# also uses, so installing it would replace bookworm's; its files all live under
# /usr/lib/python3.9/distutils, which only bullseye's python3.9 reads. This extracts those
# files from the bullseye .deb and nothing else (libpython3.9-stdlib owns the
# directory and two of its files, kept). Root; nothing is done when present.
set -euo pipefail
target=/usr/lib/python3.9/distutils
[ -f "$target/sysconfig.py" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "python39-distutils: $target missing and this is not root; run $0 as root" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
version=$(apt-cache madison python3-distutils | awk '/bullseye/ {print $3; exit}')
[ -n "$version" ] || { echo "python39-distutils: no bullseye python3-distutils in apt (run apt-bullseye.sh first)" >&2; exit 1; }
# apt's sandbox user cannot write a mktemp directory owned by root.
chmod 755 "$work"
apt-get download -qq "python3-distutils=$version"
dpkg-deb -x python3-distutils_*.deb x
[ -f x/usr/lib/python3.9/distutils/sysconfig.py ] || { echo "python39-distutils: the bullseye package has no python3.9 distutils" >&2; exit 1; }
# Merged into the directory libpython3.9-stdlib already holds (__init__.py, version.py).
cp -rn x/usr/lib/python3.9/distutils/. "$target"/
echo "== python3.9's distutils from bullseye's python3-distutils $version"
