#!/usr/bin/env bash
# Installs Debian packages from bullseye on this bookworm machine under a low apt pin
# (priority 100: every other package stays on bookworm): JDK 11 for Defects4J, python3.9
# as a second interpreter. Root and apt-get; nothing is done for what is installed.
#
#   scripts/apt-bullseye.sh PACKAGE...
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: $0 PACKAGE..." >&2; exit 2; }
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "apt-bullseye: ${missing[*]} missing and this is not root; install as root: $0 ${missing[*]}" >&2
  exit 1
fi
echo "== installing ${missing[*]} from Debian bullseye (pinned low)"
printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bullseye\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
  > /etc/apt/sources.list.d/bullseye.sources
printf 'Package: *\nPin: release n=bullseye\nPin-Priority: 100\n' \
  > /etc/apt/preferences.d/bullseye
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bullseye "${missing[@]}"
