package rdma

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"golang.org/x/sys/unix"
)

// DeviceInfo describes one RDMA device of the host, before it is opened.
type DeviceInfo struct {
	Name string
	GUID uint64 // node GUID, in host byte order as libibverbs returns it
}

// Devices lists the RDMA devices (ibv_get_device_list).
func Devices() ([]DeviceInfo, error) {
	var out []DeviceInfo
	err := eachDevice(func(d *ibv.Device, name string) bool {
		out = append(out, DeviceInfo{Name: name, GUID: d.GetGUID()})
		return false
	})
	return out, err
}

// eachDevice calls f with every device and its name until f returns true,
// the device list held for the duration (ibv_get_device_list,
// ibv_free_device_list).
func eachDevice(f func(d *ibv.Device, name string) (stop bool)) error {
	list, err := ibv.GetDeviceList()
	if err != nil {
		return err
	}
	defer list.Close()
	for _, d := range list.All() {
		name, err := d.GetName()
		if err != nil {
			return err
		}
		if f(d, name) {
			return nil
		}
	}
	return nil
}

// Device is an open RDMA device (struct ibv_context). Close it after every
// resource created on it.
type Device struct {
	life
	ctx  *ibv.Context
	name string
	sh   *devShare
	// borrowed: the context belongs to librdmacm (a Conn's id->verbs);
	// Close releases this handle only.
	borrowed bool
	// waits ends when the Device closes: it ends the AsyncEvent waits
	// made through this handle (the waiter may serve other handles).
	waits     context.Context
	stopWaits context.CancelFunc
}

// devShare is what every handle on one verbs context shares: the waiter
// on its async-event fd (one duplicate of the fd, however many handles)
// and the table of its SRQs and QPs, by which an async event finds its
// object. An opened Device has one of its own; the Devices borrowed from
// librdmacm's contexts (a Conn's Dev: rdmacm opens each device once for
// all its ids) share one per context, and the last to close closes it.
type devShare struct {
	async *fdWaiter
	refs  int // borrowed handles, under borrowMu
	// objs maps the C address of each SRQ and QP on the context to its
	// handle, for async events.
	objMu sync.Mutex
	objs  map[unsafe.Pointer]any
}

// The shares of the borrowed contexts, by context.
var (
	borrowMu sync.Mutex
	borrowed = map[*ibv.Context]*devShare{}
)

func newDevShare(ctx *ibv.Context) (*devShare, error) {
	w, err := newFDWaiter(ctx.AsyncFD, "async event")
	if err != nil {
		return nil, err
	}
	return &devShare{async: w, objs: map[unsafe.Pointer]any{}}, nil
}

func newDeviceHandle(ctx *ibv.Context, name string, sh *devShare, borrowed bool) *Device {
	d := &Device{ctx: ctx, name: name, sh: sh, borrowed: borrowed}
	d.kind = "Device " + name
	d.waits, d.stopWaits = context.WithCancel(context.Background())
	return d
}

// register lists obj (an *SRQ or *QP) under its C address c, for
// AsyncEvent; unregister drops it.
func (d *Device) register(c unsafe.Pointer, obj any) {
	d.sh.objMu.Lock()
	defer d.sh.objMu.Unlock()
	d.sh.objs[c] = obj
}

func (d *Device) unregister(c unsafe.Pointer) {
	d.sh.objMu.Lock()
	defer d.sh.objMu.Unlock()
	delete(d.sh.objs, c)
}

func (d *Device) lookup(c unsafe.Pointer) any {
	d.sh.objMu.Lock()
	defer d.sh.objMu.Unlock()
	return d.sh.objs[c]
}

// borrowDevice wraps a context this package did not open (librdmacm's,
// shared by all its ids on the device): a handle of its own, the context's
// share (its async-event waiter) in common with the other handles on it.
func borrowDevice(ctx *ibv.Context) (*Device, error) {
	name, err := ctx.Device.GetName()
	if err != nil {
		return nil, err
	}
	borrowMu.Lock()
	defer borrowMu.Unlock()
	sh := borrowed[ctx]
	if sh == nil {
		if sh, err = newDevShare(ctx); err != nil {
			return nil, err
		}
		borrowed[ctx] = sh
	}
	sh.refs++
	return newDeviceHandle(ctx, name, sh, true), nil
}

// release drops a borrowed handle's share of its context: the last one
// closes the async-event waiter.
func (d *Device) release() error {
	borrowMu.Lock()
	defer borrowMu.Unlock()
	if d.sh.refs--; d.sh.refs > 0 {
		return nil
	}
	delete(borrowed, d.ctx)
	return d.sh.async.close()
}

// Open opens the RDMA device called name (ibv_open_device); an unknown name
// is an error wrapping unix.ENODEV listing the devices there are.
func Open(name string) (*Device, error) {
	var dev *Device
	var names []string
	var oerr error
	err := eachDevice(func(d *ibv.Device, dn string) bool {
		if dn != name {
			names = append(names, dn)
			return false
		}
		dev, oerr = openDevice(d, name)
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case oerr != nil:
		return nil, oerr
	case dev != nil:
		return dev, nil
	}
	return nil, &OpError{Op: "rdma.Open", Err: &reasonError{
		msg: fmt.Sprintf("no RDMA device %q (devices: %v)", name, names), errno: unix.ENODEV}}
}

// openDevice opens d (ibv_open_device) and its async-event waiter.
func openDevice(d *ibv.Device, name string) (*Device, error) {
	ctx, err := d.Open()
	if err != nil {
		return nil, err
	}
	sh, err := newDevShare(ctx)
	if err != nil {
		ctx.CloseDevice()
		return nil, err
	}
	return newDeviceHandle(ctx, name, sh, false), nil
}

// checkODP refuses on-demand paging on a device whose attributes do not
// offer it (ibv_query_device_ex: IBV_ODP_SUPPORT in odp_caps), with an
// error wrapping unix.EOPNOTSUPP: kernels answer such a registration with
// EINVAL or EOPNOTSUPP, depending on the release.
func (d *Device) checkODP(op string) error {
	a, err := d.ctx.QueryDeviceEx(nil)
	if err != nil {
		return err
	}
	if ibv.ODPGeneralCaps(a.ODPCaps.GeneralCaps)&ibv.ODPGeneralCapsSupport == 0 {
		return opErr(op, &reasonError{msg: fmt.Sprintf("device %s does not support on-demand paging (IBV_ACCESS_ON_DEMAND)", d.name), errno: unix.EOPNOTSUPP})
	}
	return nil
}

// Name is the device's name.
func (d *Device) Name() string { return d.name }

// Raw is the generated handle, for what this package does not wrap. It is
// valid until Close.
func (d *Device) Raw() *ibv.Context { return d.ctx }

// Query returns the device's attributes (ibv_query_device).
func (d *Device) Query() (ibv.DeviceAttr, error) {
	if err := d.use("rdma.Device.Query"); err != nil {
		return ibv.DeviceAttr{}, err
	}
	defer d.done()
	return d.ctx.QueryDevice()
}

// QueryPort returns the attributes of port (ibv_query_port).
func (d *Device) QueryPort(port uint8) (ibv.PortAttr, error) {
	if err := d.use("rdma.Device.QueryPort"); err != nil {
		return ibv.PortAttr{}, err
	}
	defer d.done()
	return d.ctx.QueryPort(port)
}

// GID returns entry index of port's GID table (ibv_query_gid).
func (d *Device) GID(port uint8, index int) (ibv.GID, error) {
	if err := d.use("rdma.Device.GID"); err != nil {
		return ibv.GID{}, err
	}
	defer d.done()
	return d.ctx.QueryGID(port, index)
}

// AsyncEvent is one asynchronous device event, already acknowledged.
type AsyncEvent struct {
	Type ibv.EventType
	// QPNum is the QP number for QP events, CQ/SRQ/port events leave it 0.
	QPNum uint32
	// QP is the QP of a QP event when this package made it (nil
	// otherwise, or once it is closed).
	QP *QP
	// SRQ is the SRQ of an SRQ event (IBV_EVENT_SRQ_LIMIT_REACHED,
	// IBV_EVENT_SRQ_ERR) when this package made it.
	SRQ *SRQ
	// Port is the port number for port events.
	Port uint32
}

func (e AsyncEvent) String() string { return ibv.EventTypeStr(e.Type) }

// AsyncEvent waits for the device's next asynchronous event
// (ibv_get_async_event on the non-blocking async fd, parked on the netpoller)
// and acknowledges it (ibv_ack_async_event) before returning it.
//
// The Devices of connections (Conn.Dev) on one RDMA device share
// librdmacm's verbs context, and with it its events: AsyncEvent on any of
// them returns the next event of the context, for whichever connection's
// QP (AsyncEvent.QP finds it), each event to one waiter.
func (d *Device) AsyncEvent(ctx context.Context) (AsyncEvent, error) {
	var out AsyncEvent
	if d == nil {
		return out, nilErr("rdma.Device.AsyncEvent")
	}
	if d.waits.Err() != nil {
		return out, named("rdma.Device.AsyncEvent", ErrClosed)
	}
	// The waiter may serve other handles of the context: this handle's
	// Close ends this wait only, by its own cancellation.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(d.waits, cancel)
	defer stop()
	err := d.sh.async.wait(wctx, func() error {
		if err := d.tryUse("rdma.Device.AsyncEvent"); err != nil {
			return err
		}
		defer d.done()
		if ok, err := d.sh.async.readable(d.ctx.AsyncFD); err != nil {
			return opErr("rdma.Device.AsyncEvent: poll", err)
		} else if !ok {
			return errAgain
		}
		ev, err := d.ctx.GetAsyncEvent()
		if err != nil {
			return err
		}
		out.Type = ev.EventType
		switch ev.EventType {
		case ibv.EventTypePortActive, ibv.EventTypePortErr, ibv.EventTypeLIDChange, ibv.EventTypePKeyChange,
			ibv.EventTypeSmChange, ibv.EventTypeClientReregister, ibv.EventTypeGIDChange:
			out.Port = uint32(*ev.Element.PortNum())
		case ibv.EventTypeCQErr:
		case ibv.EventTypeSRQErr, ibv.EventTypeSRQLimitReached:
			if s, ok := d.lookup(unsafe.Pointer(ev.Element.SRQ())).(*SRQ); ok {
				out.SRQ = s
			}
		case ibv.EventTypeDeviceFatal:
		default:
			if qp := ev.Element.QP(); qp != nil {
				out.QPNum = qp.QPNum
				if q, ok := d.lookup(unsafe.Pointer(qp)).(*QP); ok {
					out.QP = q
				}
			}
		}
		ev.Ack()
		return nil
	})
	if err != nil && ctx.Err() == nil && d.waits.Err() != nil {
		err = ErrClosed
	}
	return out, named("rdma.Device.AsyncEvent", err)
}

// Close closes the device (ibv_close_device). Every PD, CQ and completion
// channel created on it must be closed first (else a *BusyError).
// Goroutines waiting in AsyncEvent return ErrClosed.
func (d *Device) Close() error {
	if d == nil {
		return nilErr("rdma.Device.Close")
	}
	return d.close(func() error {
		d.stopWaits()
		if d.borrowed {
			if err := d.release(); err != nil {
				return opErr("rdma.Device.Close", err)
			}
			return nil
		}
		if err := d.sh.async.close(); err != nil {
			return opErr("rdma.Device.Close", err)
		}
		return d.ctx.CloseDevice()
	})
}
