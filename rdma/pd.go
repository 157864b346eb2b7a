package rdma

import "github.com/goverbs/goverbs/ibv"

// PD is a protection domain (struct ibv_pd).
type PD struct {
	life
	pd  *ibv.PD
	dev *Device
}

// AllocPD allocates a protection domain (ibv_alloc_pd).
func (d *Device) AllocPD() (*PD, error) {
	if err := d.use("rdma.Device.AllocPD"); err != nil {
		return nil, err
	}
	defer d.done()
	pd, err := d.ctx.AllocPD()
	if err != nil {
		return nil, err
	}
	d.adopt("PD")
	p := &PD{pd: pd, dev: d}
	p.kind = "PD"
	return p, nil
}

// Raw is the generated handle, valid until Close.
func (p *PD) Raw() *ibv.PD { return p.pd }

// Device is the device the PD belongs to.
func (p *PD) Device() *Device { return p.dev }

// Close deallocates the PD (ibv_dealloc_pd) once its MRs and QPs are
// closed (else a *BusyError, and the PD stays usable).
func (p *PD) Close() error {
	if p == nil {
		return nilErr("rdma.PD.Close")
	}
	return p.close(func() error {
		if err := p.pd.Dealloc(); err != nil {
			return err
		}
		p.dev.disown("PD")
		return nil
	})
}
