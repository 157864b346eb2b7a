// Package dvguard keeps the generated direct-verbs wrappers (efadv, mlx4dv, manadv, …) from
// handing a provider's library an object of another provider's device. Some of those
// functions do not check the device of what they are given and read it as their
// provider's own (doccheck measured crashes on rxe: docs/contracts.md, "Direct verbs on
// rxe"); the wrappers of the functions spec/guards lists first check, with a Provider,
// that every object's device is the provider's, and return a *dl.DeviceError
// (unix.EOPNOTSUPP) naming the function and the device otherwise.
//
// A Provider knows its devices by the library's own check where there is one
// (mlx5dv_is_supported, hnsdv_is_supported), else by the kernel's driver id of the
// device (enum rdma_driver_id: RDMA_DRIVER_MLX4, …), which the kernel reports over RDMA
// netlink (RDMA_NLDEV_CMD_GET_CHARDEV, the "uverbs" character device, its
// RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID): the number libibverbs itself matches providers by.
// Neither reads a provider's private structures.
package dvguard

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/dl"
)

// Provider is how the guarded functions of one direct-verbs package tell their
// provider's devices.
type Provider struct {
	// Name is the provider ("mlx4"), for errors.
	Name string
	// Driver is the kernel's driver id of the provider's devices; used where Supported
	// is nil.
	Driver ibv.RDMADriverID
	// Supported is the library's own check of a device (the binding of
	// mlx5dv_is_supported), SupportedName its C name; nil where the library has none.
	Supported     func(*ibv.Device) (bool, error)
	SupportedName string
	// Listed, where set, is the library's function that lists the provider's devices no
	// kernel driver has (mlx5dv_get_vfio_device_list, mlx5's VFIO devices): such a device
	// has no name, where every kernel device has one, so a device with a name is refused.
	// It is used in place of Supported and Driver.
	Listed string
}

// Check returns nil when the device of every object in objs (a *ibv.Device, *ibv.Context,
// or a verbs object with a context: *ibv.PD, *ibv.CQ, *ibv.QP, …) is one of p's; nil
// objects are skipped (the C function gets them as they are). Otherwise it returns a
// *dl.DeviceError naming fn, the C function about to be called. In a build that cannot
// call C (dl.Supported false) it returns nil: the call itself then fails.
func (p *Provider) Check(fn string, objs ...any) error {
	if !dl.Supported {
		return nil
	}
	var seen []*ibv.Device
	for _, o := range objs {
		dev, err := DeviceOf(o)
		if err != nil {
			return fmt.Errorf("%s: %w", fn, err)
		}
		if dev == nil || containsDev(seen, dev) {
			continue
		}
		seen = append(seen, dev)
		if err := p.check(fn, dev); err != nil {
			return err
		}
	}
	return nil
}

func containsDev(ds []*ibv.Device, d *ibv.Device) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// check checks one device.
func (p *Provider) check(fn string, dev *ibv.Device) error {
	name := DeviceName(dev)
	if p.Listed != "" {
		if name != "" || hasText(dev.IbdevPath[:]) {
			return &dl.DeviceError{Func: fn, Device: name, Provider: p.Name, Check: "a device " + p.Listed + " lists has no kernel device, and no name"}
		}
		return nil
	}
	if p.Supported != nil {
		how := p.SupportedName
		ok, err := p.Supported(dev)
		switch {
		case err != nil:
			return &dl.DeviceError{Func: fn, Device: name, Provider: p.Name, Check: how, Err: err}
		case !ok:
			return &dl.DeviceError{Func: fn, Device: name, Provider: p.Name, Check: how}
		}
		return nil
	}
	const how = "the kernel's driver id"
	id, err := Driver(name)
	if err != nil {
		return &dl.DeviceError{Func: fn, Device: name, Provider: p.Name, Check: how, Err: err}
	}
	if id != p.Driver {
		return &dl.DeviceError{Func: fn, Device: name, Provider: p.Name, Found: DriverName(id), Check: how}
	}
	return nil
}

// hasText reports whether a C string buffer holds a non-empty string.
func hasText(b []byte) bool { return len(b) > 0 && b[0] != 0 }

// DeviceName is the device's name (ibv_get_device_name returns the same member).
func DeviceName(dev *ibv.Device) string {
	b := dev.Name[:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// DriverName is the provider's short name of a kernel driver id: "rxe" for
// RDMA_DRIVER_RXE, "driver id 99" for a number ibv does not name.
func DriverName(id ibv.RDMADriverID) string {
	s := id.String()
	if n, ok := strings.CutPrefix(s, "RDMA_DRIVER_"); ok {
		return strings.ToLower(n)
	}
	return fmt.Sprintf("driver id %d", uint32(id))
}

// DeviceOf is the device of o: a *ibv.Device itself, a context's, or the context's of a
// verbs object (a *ibv.QPEx's base QP's). A nil pointer, or an object whose context or
// device pointer is NULL, gives nil. A type without a device is an error.
func DeviceOf(o any) (*ibv.Device, error) {
	var c *ibv.Context
	switch v := o.(type) {
	case nil:
		return nil, nil
	case *ibv.Device:
		return v, nil
	case *ibv.Context:
		c = v
	case *ibv.PD:
		if v != nil {
			c = v.Context
		}
	case *ibv.CQ:
		if v != nil {
			c = v.Context
		}
	case *ibv.CQEx:
		if v != nil {
			c = v.Context
		}
	case *ibv.QP:
		if v != nil {
			c = v.Context
		}
	case *ibv.QPEx:
		if v != nil {
			c = v.QPBase.Context
		}
	case *ibv.SRQ:
		if v != nil {
			c = v.Context
		}
	case *ibv.WQ:
		if v != nil {
			c = v.Context
		}
	case *ibv.MR:
		if v != nil {
			c = v.Context
		}
	case *ibv.MW:
		if v != nil {
			c = v.Context
		}
	case *ibv.AH:
		if v != nil {
			c = v.Context
		}
	case *ibv.XRCD:
		if v != nil {
			c = v.Context
		}
	case *ibv.DM:
		if v != nil {
			c = v.Context
		}
	case *ibv.CompCntr:
		if v != nil {
			c = v.Context
		}
	default:
		return nil, fmt.Errorf("dvguard: no device known for a %T", o)
	}
	if c == nil {
		return nil, nil
	}
	return c.Device, nil
}

// When is o where cond holds, else nil: an object the call does not read (the generated
// guard of mlx4dv_init_obj checks obj.qp.in only when obj_type has MLX4DV_OBJ_QP).
func When(cond bool, o any) any {
	if cond {
		return o
	}
	return nil
}
