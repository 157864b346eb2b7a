package rdma

// Every handle's use refuses a nil receiver with ErrNilHandle, so that a
// method called on a nil *QP, *CQ, ... is an error, not a nil dereference.

func nilErr(op string) error { return opErr(op, ErrNilHandle) }

func (d *Device) use(op string) error {
	if d == nil {
		return nilErr(op)
	}
	return d.life.use(op)
}

func (p *PD) use(op string) error {
	if p == nil {
		return nilErr(op)
	}
	return p.life.use(op)
}

func (m *MR) use(op string) error {
	if m == nil {
		return nilErr(op)
	}
	return m.life.use(op)
}

func (b *Buffer) use(op string) error {
	if b == nil {
		return nilErr(op)
	}
	return b.life.use(op)
}

func (c *CompChannel) use(op string) error {
	if c == nil {
		return nilErr(op)
	}
	return c.life.use(op)
}

func (cq *CQ) use(op string) error {
	if cq == nil {
		return nilErr(op)
	}
	return cq.life.use(op)
}

func (q *QP) use(op string) error {
	if q == nil {
		return nilErr(op)
	}
	return q.life.use(op)
}

func (s *SRQ) use(op string) error {
	if s == nil {
		return nilErr(op)
	}
	return s.life.use(op)
}

func (a *AH) use(op string) error {
	if a == nil {
		return nilErr(op)
	}
	return a.life.use(op)
}
