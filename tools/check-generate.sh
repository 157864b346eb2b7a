#!/usr/bin/env bash
# Fails when `go generate ./...` changes the tree: generated code is committed and must be
# reproduced byte for byte from the pinned inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
state() { git status --porcelain --untracked-files=all; git diff; }
before=$(state | sha256sum)
go generate github.com/goverbs/goverbs/... # the three modules (go.work)
if [ "$(state | sha256sum)" != "$before" ]; then
	echo "check-generate: go generate changed the tree; commit the regenerated files:" >&2
	git status --short >&2
	git diff --stat >&2
	exit 1
fi
echo "check-generate: generated code is up to date"
