#!/usr/bin/env bash
# Runs every Fuzz target of the module for a short while (default 10 s each; first
# argument or FUZZTIME overrides, in go test -fuzztime syntax: 10s, 1m, 500x) and exits
# non-zero when any target fails. Targets are found by grepping the *_test.go files for
# "func Fuzz". A failing input is written by go test to the package's testdata/fuzz/<Name>/,
# where it becomes a seed: check it in with the fix. FUZZPARALLEL sets go test's -parallel
# (fuzz workers; default GOMAXPROCS): FUZZPARALLEL=1 on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
fuzztime=${1:-${FUZZTIME:-10s}}
parallel=()
[ -z "${FUZZPARALLEL:-}" ] || parallel=(-parallel "$FUZZPARALLEL")
case $fuzztime in *[0-9]) fuzztime=${fuzztime}s ;; esac

# Fuzz targets in files built only with the rxe tag run in the guest (make fuzz-rxe).
mapfile -t targets < <(grep -rLE '^//go:build (.* )?rxe( |$)' --include='*_test.go' . | grep -v '^\./\.cache/' \
	| xargs grep -HoE '^func (Fuzz[A-Za-z0-9_]+)\(' \
	| sed -E 's#^\./(.*)/[^/]+:func (Fuzz[A-Za-z0-9_]+)\($#\1 \2#' | sort -u)
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz-short: no Fuzz targets found" >&2
	exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# fuzz DIR NAME: one short run; its output is in $log.
fuzz() {
	# -fuzzminimizetime bounds the minimisation of each new input; the default (60 s) would
	# spend a short run minimising instead of fuzzing.
	"$GO" test -run '^$' -fuzz "^${2}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "${parallel[@]}" "./$1" >"$log" 2>&1
}

failed=()
for t in "${targets[@]}"; do
	read -r dir name <<<"$t"
	echo "== $name (./$dir, $fuzztime)"
	ok=1
	if ! fuzz "$dir" "$name"; then
		# go test -fuzz can fail with "context deadline exceeded" when -fuzztime ends while a
		# worker is busy, without any failing input (golang/go#51484): run such a target once
		# more. A failing input ("Failing input written to") is always a failure.
		if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"; then
			echo "fuzz-short: $name hit the fuzztime deadline flake (golang/go#51484); running it again"
			fuzz "$dir" "$name" || ok=0
		else
			ok=0
		fi
	fi
	grep -vE '^fuzz: elapsed: .*(gathering baseline|testing seed)' "$log" | tail -n 40 || true
	[ $ok = 1 ] || failed+=("$name (./$dir)")
done
if [ ${#failed[@]} -gt 0 ]; then
	printf 'fuzz-short: FAILED: %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz-short: ${#targets[@]} targets passed"
