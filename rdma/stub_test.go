//go:build linux && cgo && !rxe

package rdma

import (
	"testing"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/stubprovider"
)

// This file points the package at internal/stubprovider's stub objects, for
// tests and benchmarks of the data path on the host CPU (hostbench_test.go):
// a Device on a stub context, and CQs, QPs and SRQs made by the stub but
// wrapped by this package's own constructors (newCQ, adoptQP, newSRQ), so
// that they are what NewCQ, NewQP and NewSRQ return. The stub objects live
// until the test ends; their rdma handles are never closed (Close would
// call libibverbs' destroy functions, which a stub object cannot take).

// stubEnv is a stub context with this package's Device and PD on it.
type stubEnv struct {
	tb  testing.TB
	ctx *stubprovider.Context
	dev *Device
	pd  *PD
}

func newStubEnv(tb testing.TB) *stubEnv {
	tb.Helper()
	ctx := stubprovider.NewContext()
	d := &Device{ctx: ctx.Raw(), name: "stub"}
	d.kind = "Device"
	p := &PD{dev: d}
	p.kind = "PD"
	d.adopt("PD")
	tb.Cleanup(ctx.Free)
	return &stubEnv{tb: tb, ctx: ctx, dev: d, pd: p}
}

// cleanup runs f when the test or benchmark ends.
func (e *stubEnv) cleanup(f func()) { e.tb.Cleanup(f) }

// cq makes a stub CQ of n entries (an extended one for wcFlags != 0) and
// wraps it as Device.NewCQ (NewCQEx) does.
func (e *stubEnv) cq(tb testing.TB, n int, wcFlags ibv.CreateCQWCFlags) (*CQ, *stubprovider.CQ) {
	tb.Helper()
	s := e.ctx.NewCQ(stubprovider.CQConfig{Entries: n, Ex: wcFlags != 0, WCFlags: wcFlags})
	var cq *CQ
	var err error
	if wcFlags != 0 {
		cq, err = e.dev.newCQEx(n, nil, wcFlags, false, func(*ibv.CompChannel) (*ibv.CQEx, error) { return s.RawEx(), nil })
	} else {
		cq, err = e.dev.newCQ("rdma.Device.NewCQ", n, nil, func(*ibv.CompChannel) (*ibv.CQ, *ibv.CQEx, error) { return s.Raw(), nil, nil })
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Free)
	return cq, s
}

// srq makes a stub SRQ and wraps it as PD.NewSRQ does.
func (e *stubEnv) srq(tb testing.TB, cfg SRQConfig) (*SRQ, *stubprovider.SRQ) {
	tb.Helper()
	var s *stubprovider.SRQ
	srq, err := e.pd.newSRQ(cfg, func(init *ibv.SRQInitAttr) (*ibv.SRQ, error) {
		s = e.ctx.NewSRQ(int(init.Attr.MaxWR), int(init.Attr.MaxSGE))
		return s.Raw(), nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Free)
	return srq, s
}

// qp makes a stub QP and wraps it as PD.NewQP does (cfg's CQs and SRQ
// must be stub ones of this env); ex gives it the extended send ops.
func (e *stubEnv) qp(tb testing.TB, cfg QPConfig, scq, rcq *stubprovider.CQ, ssrq *stubprovider.SRQ, ex bool) (*QP, *stubprovider.QP) {
	tb.Helper()
	var s *stubprovider.QP
	var q *QP
	q, err := e.pd.adoptQP(cfg, func(init *ibv.QPInitAttr) (*ibv.QP, error) {
		s = e.ctx.NewQP(stubprovider.QPConfig{SendCQ: scq, RecvCQ: rcq, SRQ: ssrq,
			MaxSend: int(init.Cap.MaxSendWR), MaxRecv: int(init.Cap.MaxRecvWR),
			MaxSendSGE: int(init.Cap.MaxSendSGE), MaxRecvSGE: int(init.Cap.MaxRecvSGE),
			MaxInline: int(init.Cap.MaxInlineData), Ex: ex})
		return s.Raw(), nil
	}, func() error { return nil }, &q)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Free)
	return q, s
}
