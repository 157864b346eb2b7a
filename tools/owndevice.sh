#!/usr/bin/env bash
# The own-device mode, proven in the guest: the rxe tests of the packages given (default
# ./rdma ./ibv ./rdmacm) run against the guest's two rxe devices as they would against a
# host's own devices: the bed's RXE_* variables unset, GOVERBS_DEVICE=rxe_a,rxe_b set. A
# test needing what only the bed has (a link fault) skips and is listed; any failure fails.
# Usage: tools/owndevice.sh [ROOT] [PKG...]
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
root=${1:-sid}
shift || true
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./rdma ./ibv ./rdmacm)
dir=$(mktemp -d "$PWD/.cache/owndevice.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cmds=()
for p in "${pkgs[@]}"; do
	name=$(basename "$p")
	"$GO" test -c -race -tags rxe -o "$dir/$name.test" "$p"
	# Each binary in its package's directory, as go test runs it (testdata, fixtures).
	cmds+=("cd $PWD/${p#./} && env -u RXE_GUEST -u RXE_ROOT -u RXE_TOPOLOGY -u RXE_GID_INDEX -u RXE_A_DEV -u RXE_A_IP -u RXE_A_NETDEV -u RXE_B_DEV -u RXE_B_IP -u RXE_B_NETDEV GOVERBS_DEVICE=rxe_a,rxe_b $dir/$name.test -test.v -test.count=1 > $dir/$name.log 2>&1; echo \$? > $dir/$name.rc")
done
script=$(IFS=';'; echo "${cmds[*]}")
bin/rxe run -root="$root" -timeout=40m sh -c "$script"
status=0
for p in "${pkgs[@]}"; do
	name=$(basename "$p")
	rc=$(cat "$dir/$name.rc")
	pass=$(grep -c '^--- PASS' "$dir/$name.log" || true)
	# Each skipped test with its reason (t.Skip prints it before the --- SKIP line).
	skips=$(awk '/^=== RUN/ {reason=""} /^ +[a-z_]+\.go:[0-9]+: / {reason=$0} /^ *--- SKIP/ {print $0 "\n" reason}' "$dir/$name.log")
	echo "== own-device mode, $p ($root root, GOVERBS_DEVICE=rxe_a,rxe_b): exit $rc, $pass passed"
	[ -z "$skips" ] || printf 'skipped (the bed alone has what they need):\n%s\n' "$skips"
	if [ "$rc" != 0 ] || [ "$pass" = 0 ]; then
		grep -E '^(--- FAIL|FAIL|panic)' -A20 "$dir/$name.log" | head -80
		status=1
	fi
done
exit $status
