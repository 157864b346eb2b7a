#!/usr/bin/env bash
# Builds the guest root NAME of the rxe bed (tools/inputs/roots.txt) into .cache/roots/NAME
# with mmdebstrap: the root's suite, its unpinned helpers, and its rdma-core packages pinned
# in inputs.lock (dest NAMEroot) by name=version, each checked against its sha256 in the
# lock after the install (apt resolves their dependencies from the suite). The root
# is rebuilt only when its line in roots.txt, its lines in inputs.lock or this script change
# (the stamp below).
# Usage: root.sh NAME...  (no NAME: every root of roots.txt)
# Exit status: 0 ok, 3 a build failed or the root differs from the lock, 4 a checksum
# mismatch, 5 a host tool is missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
lock="$top/inputs.lock"
table="$top/tools/inputs/roots.txt"
# The cache is shared between worktrees through a link: build where it really is.
cache=$(readlink -f "$top/.cache")

die() { local code=$1; shift; echo "inputs: $*" >&2; exit "$code"; }

command -v mmdebstrap >/dev/null || die 5 "mmdebstrap is missing (run: make host-deps)"

build() { # name
	local name=$1 line suite extra files
	line=$(awk -v n="$name" '!/^#/ && $1==n' "$table")
	[ -n "$line" ] || die 3 "no root named $name in tools/inputs/roots.txt"
	read -r _ suite extra files <<<"$line"
	local root="$cache/roots/$name" dest="${name}root"
	local pinned
	pinned=$(awk -v d="$dest" '$1==d' "$lock")
	[ -n "$pinned" ] || die 3 "inputs.lock pins no package for the $name root (dest $dest)"

	local stamp
	stamp=$( { echo "$line"; echo "$pinned"; cat "$0"; } | sha256sum | cut -d' ' -f1)
	if [ -f "$root/.goverbs-stamp" ] && [ "$(cat "$root/.goverbs-stamp")" = "$stamp" ]; then
		return 0
	fi

	# The pinned packages by name=version; the suites they come from are the sources apt
	# resolves dependencies from (librpma is no longer in sid: the lock names trixie).
	local pins=() sources=() pkg ver sfx sum s
	while read -r _ pkg ver sfx sum; do
		pins+=("$pkg=$ver")
	done <<<"$pinned"
	for s in $( { echo "$suite"; awk '{print $4}' <<<"$pinned"; } | sort -u); do
		sources+=("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $s main")
	done

	echo "inputs: building the $name root with mmdebstrap" >&2
	local tmp="$root.tmp" log="$cache/roots/$name.log"
	mkdir -p "$cache/roots"
	rm -rf "$tmp"
	# Check-Valid-Until: the Release files of sid and of an old suite may be past their
	# Valid-Until date; their signatures are still checked. apt's cache is kept so that the
	# .debs it installed can be checked against the lock below.
	if ! mmdebstrap --mode=root --variant=essential --verbose \
		--aptopt='Acquire::Check-Valid-Until "false"' --skip=cleanup/apt/cache \
		--include="$extra,$(IFS=,; echo "${pins[*]}")" \
		"$suite" "$tmp" "${sources[@]}" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		rm -rf "$tmp"
		die 3 "mmdebstrap failed building the $name root (full log: .cache/roots/$name.log)"
	fi
	# What was installed must be exactly what the lock pins: the version dpkg has, and the
	# .deb apt installed it from (its sha256).
	local got f
	while read -r _ pkg ver sfx sum; do
		got=$(chroot "$tmp" dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
		[ "$got" = "$ver" ] || { rm -rf "$tmp"; die 3 "the $name root has $pkg ${got:-missing}, inputs.lock pins $ver"; }
		f="$tmp/var/cache/apt/archives/${pkg}_${ver//:/%3a}_amd64.deb"
		got=$(sha256sum "$f" 2>/dev/null | cut -d' ' -f1 || true)
		[ "$got" = "$sum" ] || { rm -rf "$tmp"; die 4 "the $name root's $pkg $ver came from a .deb with sha256 ${got:-unknown}, inputs.lock says $sum"; }
	done <<<"$pinned"
	rm -rf "$tmp/var/cache/apt/archives" "$tmp/var/cache/apt/"*.bin
	mkdir -p "$tmp/var/cache/apt/archives/partial"
	# Library links relative, the same inside the guest, so that the root also serves as a
	# sysroot on the host (bin/cc-ROOT): an absolute link would lead to the host's library.
	local l
	while read -r l; do
		ln -sfr "$tmp$(readlink "$l")" "$l"
	done < <(find "$tmp/lib" "$tmp/lib64" "$tmp/usr/lib" -maxdepth 2 -type l -lname '/*' 2>/dev/null)
	# The guest checks what it needs before running anything.
	for f in ${files//,/ }; do
		[ -e "$tmp/$f" ] || { rm -rf "$tmp"; die 3 "the $name root lacks /$f"; }
	done
	echo "$stamp" >"$tmp/.goverbs-stamp"
	rm -rf "$root"
	mv "$tmp" "$root"
	echo "inputs: $name root ready ($(du -sh "$root" | cut -f1))" >&2
}

names=("$@")
[ ${#names[@]} -gt 0 ] || mapfile -t names < <(awk '!/^#/ && NF {print $1}' "$table")
for n in "${names[@]}"; do
	build "$n"
done
