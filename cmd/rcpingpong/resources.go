package main

import (
	"errors"
	"fmt"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

// resources are one end's verbs objects: the device, a PD, one Buffer of
// the message size registered as one MR (sends and receives share it, as
// in ibv_rc_pingpong), a CQ for both queues (with a completion channel
// under -e) and the RC QP.
type resources struct {
	dev *rdma.Device
	pd  *rdma.PD
	buf *rdma.Buffer
	mr  *rdma.MR
	ch  *rdma.CompChannel
	cq  *rdma.CQ
	qp  *rdma.QP
}

// openResources creates the resources for o; on failure it closes what it
// created.
func openResources(o options) (r *resources, err error) {
	r = &resources{}
	defer func() {
		if err != nil {
			err = errors.Join(err, r.close())
			r = nil
		}
	}()
	name := o.dev
	if name == "" {
		devs, err := rdma.Devices()
		if err != nil {
			return r, err
		}
		if len(devs) == 0 {
			return r, errors.New("no RDMA devices found")
		}
		name = devs[0].Name
	}
	if r.dev, err = rdma.Open(name); err != nil {
		return r, err
	}
	if r.pd, err = r.dev.AllocPD(); err != nil {
		return r, err
	}
	if r.buf, err = rdma.AllocBuffer(o.size); err != nil {
		return r, err
	}
	fillBuffer(r.buf.Bytes())
	if r.mr, err = r.pd.Register(r.buf.Bytes(), ibv.AccessFlagsLocalWrite); err != nil {
		return r, err
	}
	if o.events {
		if r.ch, err = r.dev.NewCompChannel(); err != nil {
			return r, err
		}
	}
	if r.cq, err = r.dev.NewCQ(o.rxDepth+1, r.ch); err != nil {
		return r, err
	}
	r.qp, err = r.pd.NewQP(rdma.QPConfig{SendCQ: r.cq, RecvCQ: r.cq, MaxSend: 1, MaxRecv: o.rxDepth})
	if err != nil {
		return r, err
	}
	return r, nil
}

// close closes what exists, children first.
func (r *resources) close() error {
	var errs []error
	check := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("closing %s: %w", what, err))
		}
	}
	if r.qp != nil {
		check("QP", r.qp.Close())
	}
	if r.cq != nil {
		check("CQ", r.cq.Close())
	}
	if r.ch != nil {
		check("completion channel", r.ch.Close())
	}
	if r.mr != nil {
		check("MR", r.mr.Close())
	}
	if r.buf != nil {
		check("buffer", r.buf.Free())
	}
	if r.pd != nil {
		check("PD", r.pd.Close())
	}
	if r.dev != nil {
		check("device", r.dev.Close())
	}
	return errors.Join(errs...)
}
