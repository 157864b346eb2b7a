#!/usr/bin/env bash
# Fetches the pinned inputs listed in inputs.lock into .cache/ (git-ignored):
#   .cache/debs/              the downloaded .deb files, each checked against its sha256
#   .cache/inputs/<dest>/     each non-root package unpacked with dpkg -x (a root's packages,
#                             dest <name>root, are installed by tools/inputs/root.sh)
#   .cache/inputs/kernel/     also gets modules.dep (depmod -b) and an uncompressed vmlinux
# Uses a private apt configuration under .cache/apt; the system's apt setup is never touched.
# Exit status: 0 ok, 3 a pinned version is no longer served, 4 a checksum mismatch,
# 5 a required host tool is missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
lock="$top/inputs.lock"
cache="$top/.cache"
debs="$cache/debs"
apt_dir="$cache/apt"

die() { local code=$1; shift; echo "inputs: $*" >&2; exit "$code"; }

for tool in apt-get dpkg sha256sum depmod xz; do
	command -v "$tool" >/dev/null || die 5 "host tool '$tool' is missing (run: make host-deps)"
done

mkdir -p "$debs" "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$cache/inputs"

# Private apt configuration: one sources list with every suite the lock names.
suites=$(awk '!/^#/ && NF==5 {print $4}' "$lock" | sort -u)
sources="$apt_dir/sources.list"
: >"$sources.new"
for s in $suites; do
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $s main" >>"$sources.new"
done
mv "$sources.new" "$sources"
apt_opts=(
	-o "Dir::Etc::SourceList=$sources"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::Cache=$apt_dir"
	-o "Dir::Cache::archives=$apt_dir/archives"
	-o "Dir::State::status=/dev/null"
	-o "Acquire::Check-Valid-Until=false"
	-o "APT::Architecture=amd64"
	-o "APT::Sandbox::User=root"
	-o "Debug::NoLocking=1"
)
lists_fresh=0
apt_update() {
	[ "$lists_fresh" = 1 ] && return 0
	echo "inputs: apt-get update (private lists for: $(echo $suites))" >&2
	apt-get "${apt_opts[@]}" -q update >"$apt_dir/update.log" 2>&1 ||
		{ cat "$apt_dir/update.log" >&2; die 3 "apt-get update failed for the suites in inputs.lock"; }
	lists_fresh=1
}

verify() { # file sha256
	[ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

fetch_one() { # package version suite sha256 -> path of the verified .deb on stdout
	local pkg=$1 ver=$2 suite=$3 sum=$4
	local file="$debs/${pkg}_${ver//:/%3a}_amd64.deb"
	if [ -f "$file" ] && verify "$file" "$sum"; then
		echo "$file"
		return 0
	fi
	rm -f "$file"
	if ! (cd "$debs" && apt-get "${apt_opts[@]}" -q download "$pkg=$ver" >"$apt_dir/download.log" 2>&1); then
		cat "$apt_dir/download.log" >&2
		die 3 "Debian's archive no longer serves $pkg $ver (suite $suite, pinned in inputs.lock). Pick the version it serves now (apt-cache madison $pkg with the private lists in .cache/apt), download it, and update its version and sha256 in inputs.lock."
	fi
	local got
	got=$(ls "$debs/${pkg}_"*"_amd64.deb" 2>/dev/null | grep -F "_${ver//:/%3a}_" | head -n1 || true)
	[ -n "$got" ] || die 3 "apt-get download $pkg=$ver produced no .deb"
	[ "$got" = "$file" ] || mv "$got" "$file"
	if ! verify "$file" "$sum"; then
		local actual
		actual=$(sha256sum "$file" | cut -d' ' -f1)
		rm -f "$file"
		die 4 "checksum mismatch for $pkg $ver: inputs.lock says $sum, the archive served $actual"
	fi
	echo "$file"
}

# apt-get update once, only when some pinned .deb is missing or damaged.
while read -r dest pkg ver suite sum; do
	case "$dest" in ''|'#'*) continue ;; esac
	file="$debs/${pkg}_${ver//:/%3a}_amd64.deb"
	if ! { [ -f "$file" ] && verify "$file" "$sum"; }; then
		apt_update
		break
	fi
done <"$lock"

# Unpack every non-root package into .cache/inputs/<dest>. A dest directory is rebuilt when
# the set of its packages (names, versions, sums) changes.
declare -A dest_pkgs
while read -r dest pkg ver suite sum; do
	case "$dest" in ''|'#'*) continue ;; esac
	file=$(fetch_one "$pkg" "$ver" "$suite" "$sum")
	case "$dest" in
	*root) ;; # a guest root's package: root.sh installs the verified .deb
	*) dest_pkgs[$dest]+="$file " ;;
	esac
done <"$lock"

for dest in "${!dest_pkgs[@]}"; do
	dir="$cache/inputs/$dest"
	stamp=$(for f in ${dest_pkgs[$dest]}; do sha256sum "$f"; done | sed "s|$debs/||" | sha256sum | cut -d' ' -f1)
	if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$stamp" ]; then
		continue
	fi
	echo "inputs: unpacking $dest" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	for f in ${dest_pkgs[$dest]}; do dpkg -x "$f" "$dir"; done
	if [ "$dest" = kernel ]; then
		"$top/tools/inputs/kernel.sh" "$dir"
	fi
	echo "$stamp" >"$dir/.stamp"
done

echo "inputs: all pinned packages present and verified" >&2
