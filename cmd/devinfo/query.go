package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
)

// deviceInfo is what devinfo prints of one device: plain values, so that
// the formatting can be tested without a device.
type deviceInfo struct {
	Name        string
	Transport   ibv.TransportType
	BoardID     string // from sysfs; "" when the device has none
	Attr        ibv.DeviceAttrEx
	CompVectors int32 // num_comp_vectors of the opened context
	Ports       []portInfo
}

// portInfo is one port's attributes and, in verbose mode, its valid GIDs.
type portInfo struct {
	Num  uint8
	Attr ibv.PortAttr
	GIDs []ibv.GIDEntry
}

// devinfo lists or describes the devices selected by o on w.
func devinfo(o options, w io.Writer) error {
	list, err := ibv.GetDeviceList()
	if err != nil {
		return err
	}
	defer list.Close()
	devs := list.All()

	bw := bufio.NewWriter(w)
	if o.list {
		var names []string
		for _, d := range devs {
			name, err := d.GetName()
			if err != nil {
				return err
			}
			names = append(names, name)
		}
		printList(bw, names)
		return bw.Flush()
	}
	if len(devs) == 0 {
		return errors.New("no RDMA devices found (ibv_get_device_list returned an empty list)")
	}
	found := false
	for _, d := range devs {
		name, err := d.GetName()
		if err != nil {
			return err
		}
		if o.dev != "" && name != o.dev {
			continue
		}
		found = true
		info, err := queryDevice(d, name, o)
		if err != nil {
			return err
		}
		printDevice(bw, info, o.verbose)
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("IB device '%s' wasn't found", o.dev)
	}
	return bw.Flush()
}

// queryDevice opens d and reads what devinfo prints of it.
func queryDevice(d *ibv.Device, name string, o options) (_ *deviceInfo, err error) {
	ctx, err := d.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer func() {
		if cerr := ctx.CloseDevice(); cerr != nil && err == nil {
			err = fmt.Errorf("%s: %w", name, cerr)
		}
	}()
	info := &deviceInfo{Name: name, Transport: d.TransportType, CompVectors: ctx.NumCompVectors}
	info.BoardID = boardID(d)
	// ibv_query_device_ex falls back to ibv_query_device where the provider
	// lacks the extended query, leaving the extended attributes zero.
	if info.Attr, err = ctx.QueryDeviceEx(nil); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	first, last := 1, int(info.Attr.OrigAttr.PhysPortCnt)
	if o.port != 0 {
		if o.port > last {
			return nil, fmt.Errorf("%s: invalid port %d requested: the device has %d port(s) (phys_port_cnt)", name, o.port, last)
		}
		first, last = o.port, o.port
	}
	for p := first; p <= last; p++ {
		pi := portInfo{Num: uint8(p)}
		if pi.Attr, err = ctx.QueryPort(pi.Num); err != nil {
			return nil, fmt.Errorf("%s port %d: %w", name, p, err)
		}
		if o.verbose {
			if pi.GIDs, err = queryGIDs(ctx, pi.Num, int(pi.Attr.GIDTblLen)); err != nil {
				return nil, fmt.Errorf("%s port %d: %w", name, p, err)
			}
		}
		info.Ports = append(info.Ports, pi)
	}
	return info, nil
}

// queryGIDs returns the valid entries of a port's GID table of n entries:
// ibv_query_gid_ex reports an empty one as ENODATA.
func queryGIDs(ctx *ibv.Context, port uint8, n int) ([]ibv.GIDEntry, error) {
	var gids []ibv.GIDEntry
	for i := range n {
		e, err := ctx.QueryGIDEx(port, i, 0)
		if errors.Is(err, unix.ENODATA) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("GID index %d: %w", i, err)
		}
		gids = append(gids, e)
	}
	return gids, nil
}

// boardID reads the device's board_id from its sysfs directory; "" when
// the device has none (rxe) or it cannot be read.
func boardID(d *ibv.Device) string {
	dir := unix.ByteSliceToString(d.IbdevPath[:])
	if dir == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, "board_id"))
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n")
}
