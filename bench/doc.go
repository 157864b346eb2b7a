// Package bench measures goverbs against C on rxe, in one guest run: RC send
// latency against perftest's ib_send_lat, 64-byte RDMA-write message rate
// against ib_write_bw, and the per-completion cost of batched polling
// against the same loop in C (cloop.go, compiled into this package).
//
// The benchmarks carry the rxe build tag and run in the guest:
//
//	make bench
//
// which runs them on the sid root and writes docs/benchmarks.md and
// docs/benchmarks.svg (tools/benchreport). Each Go benchmark has a C twin
// that does the same work with the same structure, so the ratios measure
// what the Go layer adds; perftest's figures are the external reference.
package bench
