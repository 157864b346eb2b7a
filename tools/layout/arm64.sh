#!/bin/sh
# Runs the layout tests (and the other tests) of the generated packages as
# linux/arm64 programs under qemu-user on an amd64 host: gcc for aarch64
# compiles the C side against the same pinned headers, so every struct,
# member offset and constant is proven against the aarch64 ABI too.
# Needs: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user, and
# `make inputs`.
set -eu
cd "$(dirname "$0")/../.."
sysroot=/usr/aarch64-linux-gnu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in ibv rdmacm rpma; do
	CGO_ENABLED=1 GOARCH=arm64 CC=aarch64-linux-gnu-gcc go test -c -o "$tmp/$p.test" "./$p"
	(cd "$p" && CC=aarch64-linux-gnu-gcc GOVERBS_LAYOUT_EXEC="qemu-aarch64 -L $sysroot" \
		qemu-aarch64 -L "$sysroot" "$tmp/$p.test" -test.count=1 "$@")
	echo "ok  $p (linux/arm64 under qemu)"
done
# The providers' direct verbs: their layout tests and the WQE/CQE helpers
# against the C inlines compiled for aarch64 (their other tests call the
# providers' libraries, which the aarch64 sysroot lacks).
for p in efadv manadv hnsdv mlx4dv mlx5dv internal/wqetest; do
	b=$(basename "$p")
	CGO_ENABLED=1 GOARCH=arm64 CC=aarch64-linux-gnu-gcc go test -c -o "$tmp/$b.test" "./$p"
	(cd "$p" && CC=aarch64-linux-gnu-gcc GOVERBS_LAYOUT_EXEC="qemu-aarch64 -L $sysroot" \
		qemu-aarch64 -L "$sysroot" "$tmp/$b.test" -test.count=1 \
		-test.run '^(TestLayout|TestWQEHelpers.*|TestDevx.*|FuzzWQEHelpers|TestCheckCanFail)$' "$@")
	echo "ok  $p (linux/arm64 under qemu)"
done
