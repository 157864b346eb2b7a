#!/usr/bin/env bash
# Runs every Fuzz target of the module for a short while (default 10 s each; first
# argument or FUZZTIME overrides, in go test -fuzztime syntax: 10s, 1m, 500x) and exits
# non-zero when any target fails. Targets are found by grepping the *_test.go files for
# "func Fuzz". A failing input is written by go test to the package's testdata/fuzz/<Name>/,
# where it becomes a seed: check it in with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
fuzztime=${1:-${FUZZTIME:-10s}}
case $fuzztime in *[0-9]) fuzztime=${fuzztime}s ;; esac

mapfile -t targets < <(grep -rHoE '^func (Fuzz[A-Za-z0-9_]+)\(' --include='*_test.go' . \
	| grep -v '^\./\.cache/' | sed -E 's#^\./(.*)/[^/]+:func (Fuzz[A-Za-z0-9_]+)\($#\1 \2#' | sort -u)
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz-short: no Fuzz targets found" >&2
	exit 1
fi

failed=()
for t in "${targets[@]}"; do
	read -r dir name <<<"$t"
	echo "== $name (./$dir, $fuzztime)"
	# -fuzzminimizetime bounds the minimisation of each new input; the default (60 s) would
	# spend a short run minimising instead of fuzzing.
	if ! "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "./$dir" 2>&1 \
		| { grep -vE '^fuzz: elapsed: .*(gathering baseline|testing seed)' || true; } | tail -n 40; then
		failed+=("$name (./$dir)")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	printf 'fuzz-short: FAILED: %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz-short: ${#targets[@]} targets passed"
