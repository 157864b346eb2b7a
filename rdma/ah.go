package rdma

import (
	"github.com/goverbs/goverbs/ibv"
)

// AH is an address handle (struct ibv_ah): the path to one peer, for the
// sends of UD QPs of its PD (SendWork.AH). The provider copies what it
// needs into each send when it is posted, so an AH may be closed once no
// post that names it is under way.
type AH struct {
	life
	ah *ibv.AH
	pd *PD
}

// Route is where an address handle leads. The zero value of a field takes
// the default in brackets.
type Route struct {
	Port     uint8 // local port number [1]
	GIDIndex int   // source GID index; on RoCE the IPv4-mapped RoCEv2 GID is usually 1
	// DGID is the peer's GID (ibv.GIDFrom… or Endpoint.GID). A route with
	// a DGID is global (it carries a GRH), as RoCE requires; a zero DGID
	// makes a route inside one InfiniBand subnet, to DLID.
	DGID         ibv.GID
	DLID         uint16
	SL           uint8  // service level
	HopLimit     uint8  // [64]
	TrafficClass uint8  //
	FlowLabel    uint32 // 20 bits
}

// NewAH creates an address handle for r (ibv_create_ah).
func (p *PD) NewAH(r Route) (*AH, error) {
	const op = "rdma.PD.NewAH"
	if r.Port == 0 {
		r.Port = 1
	}
	if r.HopLimit == 0 {
		r.HopLimit = 64
	}
	if r.FlowLabel > 0xfffff {
		return nil, invalid(op, "flow label %#x does not fit 20 bits", r.FlowLabel)
	}
	if r.GIDIndex < 0 || r.GIDIndex > 255 {
		return nil, invalid(op, "GID index %d out of range [0, 255]", r.GIDIndex)
	}
	attr := ibv.AHAttr{DLID: r.DLID, SL: r.SL, PortNum: r.Port}
	if *r.DGID.Raw() != [16]byte{} {
		attr.IsGlobal = 1
		attr.GRH = ibv.GlobalRoute{DGID: r.DGID, FlowLabel: r.FlowLabel, SGIDIndex: uint8(r.GIDIndex),
			HopLimit: r.HopLimit, TrafficClass: r.TrafficClass}
	} else if r.DLID == 0 {
		return nil, invalid(op, "a route needs a DGID (RoCE, or across subnets) or a DLID")
	}
	return p.newAH(op, func() (*ibv.AH, error) { return p.pd.CreateAH(&attr) })
}

// NewAHFromWC creates an address handle back to the sender of a UD
// receive (ibv_create_ah_from_wc): wc is its completion and grh the first
// GRHLen bytes of its buffer, which hold the GRH, received on port.
func (p *PD) NewAHFromWC(wc *ibv.WC, grh []byte, port uint8) (*AH, error) {
	const op = "rdma.PD.NewAHFromWC"
	if wc == nil {
		return nil, invalid(op, "nil completion")
	}
	if len(grh) < GRHLen {
		return nil, invalid(op, "GRH of %d bytes: a GRH is %d", len(grh), GRHLen)
	}
	if wc.WCFlags&uint32(ibv.WCFlagsGRH) == 0 {
		return nil, invalid(op, "the completion has no GRH (IBV_WC_GRH unset): it did not come from a UD receive carrying one")
	}
	// Copies in Go memory without Go pointers, valid for the call only.
	w := *wc
	var g ibv.GRH
	copy(grhBytes(&g), grh)
	return p.newAH(op, func() (*ibv.AH, error) { return p.pd.CreateAHFromWC(&w, &g, port) })
}

// newAH creates an AH with create on p, held for the call.
func (p *PD) newAH(op string, create func() (*ibv.AH, error)) (*AH, error) {
	if err := p.use(op); err != nil {
		return nil, err
	}
	defer p.done()
	raw, err := create()
	if err != nil {
		return nil, err
	}
	a := &AH{ah: raw, pd: p}
	a.kind = "AH"
	p.adopt("AH")
	return a, nil
}

// Raw is the generated handle, valid until Close.
func (a *AH) Raw() *ibv.AH { return a.ah }

// Close destroys the address handle (ibv_destroy_ah); a PostSend that
// names it and runs meanwhile finishes first.
func (a *AH) Close() error {
	if a == nil {
		return nilErr("rdma.AH.Close")
	}
	return a.close(func() error {
		if err := a.ah.Destroy(); err != nil {
			return err
		}
		a.pd.disown("AH")
		return nil
	})
}
