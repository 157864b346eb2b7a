#!/usr/bin/env bash
# Installs the Debian packages listed in tools/host-deps.txt that are missing.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
want=$(grep -vE '^\s*(#|$)' "$top/tools/host-deps.txt")
missing=()
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "host-deps: missing Debian packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
	exit 5
fi
echo "host-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
