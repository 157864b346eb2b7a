// Package ibv binds libibverbs, the RDMA verbs API of rdma-core (infiniband/verbs.h).
//
// The types, enumerations and constants of this package are generated from
// the pinned rdma-core headers by gen/cmd/goverbs-gen (files z*.go); see
// ARCHITECTURE.md. Every generated struct has the exact C layout, proven by
// TestLayout against the headers of rdma-core 44 and 65 compiled by gcc.
package ibv

//go:generate go run ../gen/cmd/goverbs-gen -pkg ibv
