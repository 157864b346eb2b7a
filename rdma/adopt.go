package rdma

import "sync"

// Parent is a resource of this package that objects made with the raw
// packages can depend on: a *Device, *PD, *CQ, *CompChannel or *SRQ.
type Parent interface {
	lifeOf() *life
}

func (d *Device) lifeOf() *life      { return &d.life }
func (p *PD) lifeOf() *life          { return &p.life }
func (cq *CQ) lifeOf() *life         { return &cq.life }
func (c *CompChannel) lifeOf() *life { return &c.life }
func (s *SRQ) lifeOf() *life         { return &s.life }

// Adopted is an object a program made with the raw packages on resources
// of this package (an ibv.QP created on PD.Raw with CQ.Raw, an ibv.AH, an
// ibv.MW, ...), adopted by them: until its Close, each parent's Close
// refuses with a *BusyError naming kind, as for the children this package
// makes itself.
//
// What is not adopted, the parents do not know of: closing one then calls
// C while the object lives, and the C library or the kernel refuses
// (ibv_dealloc_pd and ibv_destroy_cq return EBUSY), or, for objects the
// kernel does not count, frees what the object still points to.
type Adopted struct {
	kind    string
	destroy func() error
	parents []*life
	mu      sync.Mutex
	closed  bool
}

// Adopt records an object of kind (a name for errors: "ibv.QP", "AH")
// made on the parents, and destroy, which frees it (its raw Destroy).
// Each parent must be open; nil parents are skipped.
func Adopt(kind string, destroy func() error, parents ...Parent) (*Adopted, error) {
	const op = "rdma.Adopt"
	if destroy == nil {
		return nil, invalid(op, "no destroy function for %s", kind)
	}
	a := &Adopted{kind: kind, destroy: destroy}
	for _, p := range parents {
		if p == nil || isNilParent(p) {
			continue
		}
		l := p.lifeOf()
		if err := l.use(op); err != nil {
			a.release()
			return nil, err
		}
		l.adopt(kind)
		l.done()
		a.parents = append(a.parents, l)
	}
	return a, nil
}

// isNilParent reports a typed nil in the interface (a nil *PD).
func isNilParent(p Parent) bool {
	switch v := p.(type) {
	case *Device:
		return v == nil
	case *PD:
		return v == nil
	case *CQ:
		return v == nil
	case *CompChannel:
		return v == nil
	case *SRQ:
		return v == nil
	}
	return false
}

func (a *Adopted) release() {
	for _, l := range a.parents {
		l.disown(a.kind)
	}
	a.parents = nil
}

// Close destroys the object (its destroy function) and releases its
// parents. A failed destroy leaves it adopted (Close may be retried); a
// second Close does nothing.
func (a *Adopted) Close() error {
	if a == nil {
		return nilErr("rdma.Adopted.Close")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	if err := a.destroy(); err != nil {
		return err
	}
	a.closed = true
	a.release()
	return nil
}
