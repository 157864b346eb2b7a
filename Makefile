# goverbs — see README.md. Two entry points on a fresh Debian 12 machine (as root):
#   make        the main job: install, fetch pinned inputs, regenerate, doccheck on rxe
#   make test   every test: vet, host unit tests, a short fuzz run, rxe tests in the guest on every root
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
GO ?= $(shell command -v go || echo /usr/local/go/bin/go)
export PATH := $(dir $(GO)):$(PATH)

# Every package of the three modules (go.work: the bindings, gen, tools): "./..." stops at a
# nested module, an import-path pattern does not.
PKGS := github.com/goverbs/goverbs/...
RXE := $(CURDIR)/bin/rxe
GOTESTCHECK := $(CURDIR)/bin/gotestcheck
# Packages holding tests that need rxe (files with "//go:build rxe", not "!rxe").
RXE_PKGS = $(sort $(dir $(shell grep -rlE '^//go:build (.* )?rxe( .*)?$$' --include='*_test.go' . | grep -v '^./.cache/')))
# The guest roots (docs/testing.md, The test bed) and which rxe packages run on which in make
# test-rxe: a package runs on RXE_DEFAULT_ROOTS unless RXE_ROOTS.<package> lists its own.
# Change a package's roots here only. A root whose glibc is older than the host's has its
# own compiler for the test binaries (RXE_CC.<root>).
RXE_ROOTS := host sid trixie bullseye
RXE_DEFAULT_ROOTS := host sid
# The user-facing suites run on every root; the reliability load, the benchmarks' harness
# and doccheck's own tests on host and sid.
RXE_ROOTS.ibv := host sid trixie bullseye
RXE_ROOTS.rdmacm := host sid trixie bullseye
RXE_ROOTS.rdma := host sid trixie bullseye
RXE_ROOTS.cmd/devinfo := host sid trixie bullseye
RXE_ROOTS.cmd/rping := host sid trixie bullseye
RXE_ROOTS.cmd/rcpingpong := host sid trixie bullseye
RXE_ROOTS.internal/rxetest := host sid trixie bullseye
RXE_CC.bullseye := bin/cc-bullseye
rxe_pkg_roots = $(or $(RXE_ROOTS.$(patsubst ./%/,%,$(1))),$(RXE_DEFAULT_ROOTS))
rxe_pkgs_on = $(strip $(foreach p,$(RXE_PKGS),$(if $(filter $(1),$(call rxe_pkg_roots,$(p))),$(p))))

.PHONY: doccheck-roots test-own doccheck-own fuzz-rxe bench bench-host bench-host-smoke bench-conns bench-wakes main all test host-deps inputs vet test-host test-rxe generate check-generate fuzz-short doccheck bed-time load clean
.DEFAULT_GOAL := main

main: host-deps inputs generate doccheck

# Run every probe of tools/doccheck/probes/*.yaml on rxe (both roots), write
# docs/contracts.md and print its summary; fails on a contract that no longer holds.
doccheck: bin/rxe
	$(GO) run ./tools/doccheck

# The doccheck subset on the other roots (make test): every libibverbs and librdmacm probe
# on rdma-core 56 and 33, judged by the detected release (the probes' rxe_since,
# known.yaml's release); the report stays the one of make doccheck.
doccheck-roots: bin/rxe bin/cc-bullseye
	$(GO) run ./tools/doccheck -roots trixie,bullseye -only '^(ibv|rdma)_'

all: main test

test: host-deps inputs vet check-generate test-host bench-host-smoke fuzz-short doccheck doccheck-roots test-rxe test-own doccheck-own

host-deps:
	tools/inputs/host-deps.sh

inputs: host-deps
	tools/inputs/fetch.sh
	tools/inputs/root.sh

bin/rxe: $(shell find tools/internal/rxebed tools/rxe -name '*.go' -not -name '*_test.go') tools/go.mod tools/go.sum
	CGO_ENABLED=0 $(GO) build -o $@ ./tools/rxe

# The C compiler for a root whose glibc is older than the host's (CC=$PWD/bin/cc-bullseye):
# a link to rxe, which runs gcc with the root as its sysroot (tools/internal/rxebed/cc.go).
bin/cc-%: bin/rxe
	ln -sf rxe $@

bin/gotestcheck: $(wildcard tools/gotestcheck/*.go) tools/go.mod
	$(GO) build -o $@ ./tools/gotestcheck

# vet also builds everything where goverbs cannot call rdma-core (no cgo, not Linux): the
# packages build there and fail at run time with ErrNotSupported (rdma.ErrNotSupported); the
# test bed's packages are Linux-only.
vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags rxe $(PKGS)
	$(GO) tool staticcheck $(PKGS)
	$(GO) tool staticcheck -tags rxe $(PKGS)
	CGO_ENABLED=0 $(GO) build $(PKGS)
	CGO_ENABLED=0 $(GO) vet $(PKGS)
	GOOS=darwin $(GO) build $(PKGS)
	GOOS=darwin $(GO) vet $(PKGS)

test-host: bin/gotestcheck
	$(GO) test -json -race -count=1 -timeout 30m $(PKGS) | $(GOTESTCHECK)

# Each package's rxe tests run in a fresh guest, once per root it runs on; any skip fails.
define rxe_tests_on
	@echo "== rxe tests, $(1) root: $(call rxe_pkgs_on,$(1))"
	$(if $(RXE_CC.$(1)),CC=$(CURDIR)/$(RXE_CC.$(1)) )$(GO) test -json -race -count=1 -p 1 -tags rxe -exec "$(RXE) run -root=$(1)" $(call rxe_pkgs_on,$(1)) | $(GOTESTCHECK) -require-tests

endef
test-rxe: bin/rxe bin/gotestcheck bin/doccheck-leaktest $(foreach r,$(RXE_ROOTS),$(RXE_CC.$(r)))
	$(foreach r,$(RXE_ROOTS),$(if $(call rxe_pkgs_on,$(r)),$(call rxe_tests_on,$(r))))

# The synthetic leaking probes of doccheck's rxe test (TestLeakCheckFails), built here for
# the host and sid roots (the guest roots have no compiler): a C harness per release and a
# goprobe. Always rebuilt (a few seconds with a warm cache).
.PHONY: bin/doccheck-leaktest
bin/doccheck-leaktest:
	$(GO) run ./tools/doccheck -leaktest $@

# The own-device mode (GOVERBS_DEVICE=<device>[,<device>]: the rxe tests against a
# machine's own devices), proven in the guest: rdma's, ibv's and rdmacm's rxe tests with the
# bed's variables unset and GOVERBS_DEVICE=rxe_a,rxe_b. Link faults skip (listed).
test-own: bin/rxe
	tools/owndevice.sh sid ./rdma ./ibv ./rdmacm

# doccheck's own-device mode (doccheck -device NAME), proven in the guest: doccheck -device
# rxe_a runs there with the bed's RXE_* variables unset, on binaries built here for sid;
# the probes needing node B skip and are listed; a probe that breaks fails it.
doccheck-own: bin/rxe
	tools/doccheck-own.sh sid

# The reliability load at full size: 10^6 sequenced, checksummed messages between the two
# rxe nodes, on each root (about 10 min per root with -race on the 2-core TCG guest;
# `make test` runs 60 000). See docs/reliability.md.
load: bin/rxe
	for root in $(RXE_DEFAULT_ROOTS); do \
		GOVERBS_LOAD_FULL=1 $(GO) test -race -count=1 -timeout 2h -tags rxe -run 'TestLoad$$' -v \
			-exec "$(RXE) run -timeout=2h -root=$$root" ./reliability || exit 1; \
	done

generate:
	$(GO) generate $(PKGS)

# Each Fuzz target for FUZZTIME, one after the other (FUZZPARALLEL: workers per target,
# default GOMAXPROCS). Part of `make test`, after test-host has replayed the checked-in
# corpora (testdata/fuzz) as regression tests; there 8 s a target, so that the step takes
# under 2 minutes with a warm build cache (11 targets: 110-120 s on the 2-core machine; a cold
# cache adds the instrumented builds, up to 3 minutes more). Longer: FUZZTIME=10m.
FUZZTIME ?= 10s
test: FUZZTIME = 8s
fuzz-short:
	tools/fuzz-short.sh $(FUZZTIME)

# The call-sequence fuzzer of package rdma (FuzzSequence) in the guest, on FUZZ_ROOT
# (default sid) for FUZZRXETIME (default 5m), then its figures: sequences (inputs) and
# operations run, and how many operations failed as they may (refused arguments, use after
# Close...). A crash, hang, leak or undocumented error writes the input to
# rdma/testdata/fuzz/FuzzSequence/: check it in with the fix; make test replays that corpus
# on every root. See docs/reliability.md.
FUZZRXETIME ?= 5m
FUZZ_ROOT ?= sid
fuzz-rxe: bin/rxe
	mkdir -p .cache "$$($(GO) env GOCACHE)/fuzz"
	: > .cache/fuzz-rxe-$(FUZZ_ROOT)-stats.txt
	GOVERBS_FUZZ_STATS=$(CURDIR)/.cache/fuzz-rxe-$(FUZZ_ROOT)-stats.txt $(GO) test -tags rxe -timeout 0 -run '^$$' \
		-fuzz '^FuzzSequence$$' -fuzztime $(FUZZRXETIME) -fuzzminimizetime 30s \
		-exec "$(RXE) run -root=$(FUZZ_ROOT) -timeout=24h -rw $$($(GO) env GOCACHE)/fuzz" ./rdma
	awk '{s++; o+=$$1; f+=$$2} END {printf "fuzz-rxe ($(FUZZ_ROOT), $(FUZZRXETIME)): %d sequences, %d operations, %d of them failed as they may\n", s, o, f}' .cache/fuzz-rxe-$(FUZZ_ROOT)-stats.txt

# Benchmarks of goverbs against C and perftest (sid root): writes docs/benchmarks.svg and
# the table of docs/benchmarks.md (between its bench markers). Not part of `make test`: a benchmark
# measures, it does not pass or fail. Two sets of guest runs, each run holding both sides
# of every ratio it reports: the ping-pong, message-rate and thread wake-up benchmarks
# (BENCHTIME iterations, each a round trip or batch), then the poll benchmarks
# (POLL_BENCHTIME polls or completions, each well under a microsecond). Each set is
# BENCHCOUNT passes, and a pass runs every variant once, so the variants compared
# alternate in time (go test's -count would run one variant BENCHCOUNT times in a row, and
# a host busy for a minute would weigh on one side of a ratio only).
BENCHTIME ?= 2000x
POLL_BENCHTIME ?= 131072x
BENCHCOUNT ?= 5
BENCH_RUN = $(GO) test -tags rxe -run '^$$' -benchmem -exec "$(RXE) run -root=sid -timeout=60m" ./bench
BENCH_PASSES = for i in $$(seq $(BENCHCOUNT)); do \
		$(BENCH_RUN) $(1) > .cache/bench-pass.txt; st=$$?; cat .cache/bench-pass.txt; \
		[ $$st = 0 ] || exit $$st; cat .cache/bench-pass.txt >> .cache/bench.txt; done
bench: bench-host bench-conns bin/rxe
	mkdir -p .cache docs
	: > .cache/bench.txt
	$(call BENCH_PASSES,-bench 'SendLat$$|WriteRate|Wake' -benchtime=$(BENCHTIME))
	$(call BENCH_PASSES,-bench 'PollEmpty|Drain|CgoNoop|CgoPointerArgs' -benchtime=$(POLL_BENCHTIME))
	$(GO) run ./tools/benchreport -in .cache/bench.txt -svg docs/benchmarks.svg -section docs/benchmarks.md

# The host group (issue 28, item 1), first in make bench: what the binding adds to each
# data-path verb on this machine's CPU, with no device and no guest. rdma's BenchmarkHost*
# (rdma/hostbench_test.go) do each verb's work against internal/stubprovider's stub
# provider in C memory: as a C loop, through ibv's checked bindings, ibv's fast path and
# rdma, interleaved in rounds of about 1 ms per way with an empty cgo call (the floor).
# HOST_BENCHCOUNT passes of HOST_ROUNDS rounds; writes the host section of
# docs/benchmarks.md (between its host markers) and docs/benchmarks-host.svg. About 40 s
# a pass on the 2-core machine, plus the build.
HOST_BENCHCOUNT ?= 3
HOST_ROUNDS ?= 60
HOST_BENCH_RUN = $(GO) test -run '^$$' -bench '^BenchmarkHost' -timeout 20m ./rdma
bench-host:
	mkdir -p .cache docs
	: > .cache/bench-host.txt
	for i in $$(seq $(HOST_BENCHCOUNT)); do \
		$(HOST_BENCH_RUN) -benchtime=$(HOST_ROUNDS)x > .cache/bench-host-pass.txt; st=$$?; \
		cat .cache/bench-host-pass.txt; [ $$st = 0 ] || exit $$st; cat .cache/bench-host-pass.txt >> .cache/bench-host.txt; done
	$(GO) run ./tools/benchreport -host -in .cache/bench-host.txt -svg docs/benchmarks-host.svg -section docs/benchmarks.md

# The host group's smoke run (make test): every way of every verb for 3 rounds, checked
# to have run and allocated nothing; no time is judged (TestHostVerbs, in test-host,
# checks each way's work under -race). About 10 s after the build (up to a minute).
bench-host-smoke:
	mkdir -p .cache
	$(HOST_BENCH_RUN) -benchtime=3x > .cache/bench-host-smoke.txt || { cat .cache/bench-host-smoke.txt; exit 1; }
	$(GO) run ./tools/benchreport -host -check -in .cache/bench-host-smoke.txt

# Many RC connections (BenchmarkConns, sid root): for CONNS connections each, rdma.Dial's
# set-up time per connection against cmtime's, the OS threads and memory per connection
# while a goroutine per connection waits on the netpoller, and the 64 B RDMA-write rate over
# all of them against a C twin driving the same QPs. CONNS_BENCHCOUNT guest runs (passes),
# each running every count and both tools once, in turn; writes the conns section of
# docs/benchmarks.md (between its conns markers) and docs/benchmarks-conns.svg. Not part
# of `make bench` or `make test`.
CONNS ?= 1,10,100,1000
CONNS_BENCHCOUNT ?= 3
CONNS_RUN = $(GO) test -tags rxe -run '^$$' -benchmem -exec "$(RXE) run -root=sid -timeout=60m -boot-timeout=5m" ./bench
bench-conns: bin/rxe
	mkdir -p .cache docs
	: > .cache/bench-conns.txt
	for i in $$(seq $(CONNS_BENCHCOUNT)); do \
		$(CONNS_RUN) -bench '^BenchmarkConns$$' -benchtime=1x -args -conns=$(CONNS) > .cache/bench-conns-pass.txt; st=$$?; \
		cat .cache/bench-conns-pass.txt; [ $$st = 0 ] || exit $$st; cat .cache/bench-conns-pass.txt >> .cache/bench-conns.txt; done
	$(GO) run ./tools/benchreport -conns -in .cache/bench-conns.txt -svg docs/benchmarks-conns.svg -section docs/benchmarks.md

# Where a ping-pong's time goes: tools/wakewin (an LD_PRELOAD library) times how long each
# process stays awake between two completion waits, for the Go ping-pong
# (CompChannel.WaitBlockingPoll) and for ib_send_lat -e alike, WAKES_SIZE bytes, 4001
# round trips each (sid root). A steadier figure than the round trip: the windows spread
# by a few per cent where the round trip's median moves by fifteen. See
# docs/notes/2026-12-02-rxe-ring-path.md, "Where the rest of a round trip goes".
# (bin/rxe, a static program, ignores LD_PRELOAD and hands its environment to the guest.)
WAKES_SIZE ?= 2
bench-wakes: bin/rxe
	mkdir -p .cache
	$(CC) -O2 -Wall -shared -fPIC -o .cache/wakewin.so tools/wakewin/wakewin.c -ldl
	: > .cache/wakewin.txt
	$(GO) test -tags rxe -run '^$$' -bench 'SendLat/impl=(goblocking|perftest)/size=$(WAKES_SIZE)$$' -benchtime=4001x \
		-exec "env LD_PRELOAD=$(CURDIR)/.cache/wakewin.so WAKEWIN_OUT=$(CURDIR)/.cache/wakewin.txt $(RXE) run -root=sid -timeout=30m" ./bench
	cat .cache/wakewin.txt

# Generated code is committed: regenerating must not change the tree.
check-generate:
	tools/check-generate.sh

# Launch-to-ready time of the guest, 5 runs per root and topology.
bed-time: bin/rxe
	for root in $(RXE_ROOTS); do for topo in one two; do for i in 1 2 3 4 5; do \
		$(RXE) run -v -root=$$root -topology=$$topo true 2>&1 | grep 'rxe ready'; \
	done; done; done

clean:
	rm -rf bin
