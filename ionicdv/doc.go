// Package ionicdv binds the direct verbs of the AMD Pensando ionic provider of rdma-core (infiniband/ionic_dv.h).
//
// The types, enumerations and constants of this package are generated from
// the pinned rdma-core headers by gen/cmd/goverbs-gen (files z*.go); see
// ARCHITECTURE.md. Every generated struct has the exact C layout, proven by
// TestLayout against the headers of rdma-core 44 and 65 compiled by gcc.
package ionicdv

//go:generate go run ../gen/cmd/goverbs-gen -pkg ionicdv
