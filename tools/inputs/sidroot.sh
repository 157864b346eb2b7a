#!/usr/bin/env bash
# Builds .cache/sidroot: a Debian sid root holding rdma-core 65 (+ librpma, perftest,
# rdmacm-utils, ibverbs-utils), for the rxe guest's "sid" root. The pinned packages are the
# sha256-checked .debs fetched by fetch.sh (listed in .cache/sidroot-debs.txt); apt resolves
# their dependencies from sid. mmdebstrap installs them by name=version (apt checks each
# download against the archive's signed index, whose SHA256 we compare with inputs.lock). The root is rebuilt only when its package list or this
# script changes (the stamp below).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache="$top/.cache"
root="$cache/sidroot"
list="$cache/sidroot-debs.txt"
# Unpinned helpers the tests use inside the guest.
extra=(iproute2 procps kmod)

command -v mmdebstrap >/dev/null || { echo "inputs: mmdebstrap is missing (run: make host-deps)" >&2; exit 5; }
[ -s "$list" ] || { echo "inputs: $list is missing; run tools/inputs/fetch.sh first" >&2; exit 3; }

stamp=$( { sed "s|$cache/||" "$list"; grep -E '^sidroot[[:space:]]' "$top/inputs.lock"; echo "${extra[*]}"; cat "$0"; } | sha256sum | cut -d' ' -f1)
if [ -f "$root/.goverbs-stamp" ] && [ "$(cat "$root/.goverbs-stamp")" = "$stamp" ]; then
	exit 0
fi

echo "inputs: building the sid root (rdma-core 65) with mmdebstrap" >&2
tmp="$root.tmp"
rm -rf "$tmp"
pins=()
while read -r dest pkg ver suite sum; do
	[ "$dest" = sidroot ] || continue
	pins+=("$pkg=$ver")
done <"$top/inputs.lock"
includes=$(IFS=,; echo "${extra[*]},${pins[*]}")
# librpma is no longer in sid; its pinned version comes from the suite the lock names.
suites=$(awk '$1=="sidroot" {print $4}' "$top/inputs.lock" | sort -u)
sources=()
for s in $suites; do
	sources+=("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $s main")
done
if ! mmdebstrap --mode=root --variant=essential --verbose \
	--aptopt='Acquire::Check-Valid-Until "false"' \
	--include="$includes" \
	sid "$tmp" "${sources[@]}" \
	>"$cache/sidroot.log" 2>&1; then
	tail -n 30 "$cache/sidroot.log" >&2
	rm -rf "$tmp"
	echo "inputs: mmdebstrap failed building the sid root (full log: .cache/sidroot.log)" >&2
	exit 3
fi
# What was installed must be exactly what the lock pins.
while read -r dest pkg ver suite sum; do
	[ "$dest" = sidroot ] || continue
	got=$(chroot "$tmp" dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
	[ "$got" = "$ver" ] || { echo "inputs: the sid root has $pkg ${got:-missing}, inputs.lock pins $ver" >&2; exit 3; }
done <"$top/inputs.lock"
# The guest checks what it needs before running anything.
for f in usr/bin/ibv_rc_pingpong usr/bin/rping usr/bin/ib_send_lat usr/bin/rdma usr/lib/x86_64-linux-gnu/librpma.so.0; do
	[ -e "$tmp/$f" ] || { echo "inputs: the sid root lacks /$f" >&2; exit 3; }
done
echo "$stamp" >"$tmp/.goverbs-stamp"
rm -rf "$root"
mv "$tmp" "$root"
echo "inputs: sid root ready ($(du -sh "$root" | cut -f1))" >&2
