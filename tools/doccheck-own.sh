#!/usr/bin/env bash
# doccheck's own-device mode, proven in the guest: doccheck -device rxe_a runs in the guest
# as it would on a host with its own device, the bed's RXE_* variables unset. The harness and
# goprobe are built here for the root's rdma-core (-build -build-root ROOT: the guest has no
# compiler), then the doccheck binary runs them there (-prebuilt) and judges the results.
# The probes needing node B skip and are listed; a probe that breaks fails the run.
# Usage: tools/doccheck-own.sh [ROOT] [ONLY]   (ONLY: doccheck -only's expression; the
# device is DOCCHECK_OWN_DEVICE, default rxe_a)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
root=${1:-sid}
only=${2:-}
dev=${DOCCHECK_OWN_DEVICE:-rxe_a}
# Under bin/ (the repository is shared with the guest; .cache may be a link out of it), in a
# directory whose leading "_" keeps its sources out of package patterns (go vet ./...).
mkdir -p bin
dir=$(mktemp -d "$PWD/bin/_doccheck-own.XXXXXX")
trap 'rm -rf "$dir"' EXIT
onlyArgs=()
[ -z "$only" ] || onlyArgs=(-only "$only")
CGO_ENABLED=0 "$GO" build -o "$dir/doccheck" ./tools/doccheck
"$dir/doccheck" -device "$dev" -build "$dir/bin" -build-root "$root" "${onlyArgs[@]}"
q=""
[ -z "$only" ] || q="-only '$only'"
# In the guest: every RXE_* variable of the bed unset, then doccheck as a host runs it.
bin/rxe run -root="$root" -timeout=30m sh -c "cd $PWD && for v in \$(env | sed -n 's/^\(RXE_[A-Z_]*\)=.*/\1/p'); do unset \$v; done; env | grep '^RXE_' && exit 9; $dir/doccheck -device $dev -prebuilt $dir/bin $q"
