//go:build linux

package dvguard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
)

// RDMA netlink (NETLINK_RDMA), the numbers of <rdma/rdma_netlink.h> (kernel ABI): the
// device list (RDMA_NLDEV_CMD_GET, a dump: each message one device, its index and name),
// then the device's "uverbs" character device (RDMA_NLDEV_CMD_GET_CHARDEV, a request for
// one device by index), whose reply carries the driver id.
const (
	nlNLDev        = 5  // RDMA_NL_NLDEV: the client of the device commands
	nlClientShift  = 10 // RDMA_NL_GET_TYPE(client, op) is client<<10 | op
	cmdGet         = 1  // RDMA_NLDEV_CMD_GET
	cmdGetChardev  = 15 // RDMA_NLDEV_CMD_GET_CHARDEV
	attrDevIndex   = 1  // RDMA_NLDEV_ATTR_DEV_INDEX, u32
	attrDevName    = 2  // RDMA_NLDEV_ATTR_DEV_NAME, string
	attrChardevTyp = 69 // RDMA_NLDEV_ATTR_CHARDEV_TYPE, string
	attrDriverID   = 73 // RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, u32 (enum rdma_driver_id)
	nlaTypeMask    = 0x3fff
)

// Driver is the kernel's driver id of the RDMA device named name, asked over RDMA
// netlink (two requests on a socket of its own; no caching: a device can go and another
// come under its name).
func Driver(name string) (ibv.RDMADriverID, error) {
	s, err := dial()
	if err != nil {
		return 0, err
	}
	defer unix.Close(s.fd)
	msgs, err := s.do(cmdGet, unix.NLM_F_DUMP, nil)
	if err != nil {
		return 0, fmt.Errorf("listing RDMA devices over netlink: %w", err)
	}
	index, err := deviceIndex(msgs, name)
	if err != nil {
		return 0, err
	}
	var req []byte
	req = appendAttr(req, attrDevIndex, binary.NativeEndian.AppendUint32(nil, index))
	req = appendAttr(req, attrChardevTyp, append([]byte("uverbs"), 0))
	msgs, err = s.do(cmdGetChardev, 0, req)
	if err != nil {
		return 0, fmt.Errorf("the uverbs device of %s over netlink: %w", name, err)
	}
	return driverID(msgs, name)
}

// deviceIndex finds name in the payloads of a RDMA_NLDEV_CMD_GET dump.
func deviceIndex(msgs [][]byte, name string) (uint32, error) {
	for _, m := range msgs {
		as, err := parseAttrs(m)
		if err != nil {
			return 0, err
		}
		var idx uint32
		var have bool
		var n string
		for _, a := range as {
			switch a.typ {
			case attrDevIndex:
				if len(a.val) != 4 {
					return 0, fmt.Errorf("device index of %d bytes", len(a.val))
				}
				idx, have = binary.NativeEndian.Uint32(a.val), true
			case attrDevName:
				n = cString(a.val)
			}
		}
		if have && n == name {
			return idx, nil
		}
	}
	return 0, fmt.Errorf("the kernel lists no RDMA device %q", name)
}

// driverID reads the driver id from a RDMA_NLDEV_CMD_GET_CHARDEV reply.
func driverID(msgs [][]byte, name string) (ibv.RDMADriverID, error) {
	for _, m := range msgs {
		as, err := parseAttrs(m)
		if err != nil {
			return 0, err
		}
		for _, a := range as {
			if a.typ == attrDriverID {
				if len(a.val) != 4 {
					return 0, fmt.Errorf("driver id of %d bytes", len(a.val))
				}
				return ibv.RDMADriverID(binary.NativeEndian.Uint32(a.val)), nil
			}
		}
	}
	return 0, fmt.Errorf("the kernel's uverbs device of %s carries no driver id (RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID: Linux 5.3 or later)", name)
}

type nlSocket struct {
	fd  int
	seq uint32
}

func dial() (*nlSocket, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_RDMA)
	if err != nil {
		return nil, os.NewSyscallError("socket(AF_NETLINK, NETLINK_RDMA)", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("bind", err)
	}
	// The kernel answers at once; never wait forever on a reply that does not come.
	tv := unix.Timeval{Sec: 5}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("setsockopt(SO_RCVTIMEO)", err)
	}
	return &nlSocket{fd: fd}, nil
}

// do sends one request of the NLDEV command cmd (flags beside NLM_F_REQUEST) and returns
// the payloads of its reply's messages.
func (s *nlSocket) do(cmd uint16, flags uint16, attrs []byte) ([][]byte, error) {
	s.seq++
	typ := uint16(nlNLDev<<nlClientShift | cmd)
	req := make([]byte, unix.SizeofNlMsghdr, unix.SizeofNlMsghdr+len(attrs))
	req = append(req, attrs...)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], typ)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|flags)
	binary.NativeEndian.PutUint32(req[8:], s.seq)
	if err := unix.Sendto(s.fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, os.NewSyscallError("sendto", err)
	}
	var out [][]byte
	buf := make([]byte, 64<<10)
	for {
		n, _, err := unix.Recvfrom(s.fd, buf, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, os.NewSyscallError("recvfrom", err)
		}
		done, err := collect(&out, buf[:n], typ, s.seq)
		if done || err != nil {
			return out, err
		}
	}
}

// collect adds the payloads of one datagram's messages of type typ and sequence seq to
// out; done once the reply has ended (NLMSG_DONE, an NLMSG_ERROR, a message that is not
// part of a dump).
func collect(out *[][]byte, b []byte, typ uint16, seq uint32) (done bool, err error) {
	for len(b) > 0 {
		if len(b) < unix.SizeofNlMsghdr {
			return true, fmt.Errorf("netlink: %d trailing bytes", len(b))
		}
		l := binary.NativeEndian.Uint32(b[0:])
		mt := binary.NativeEndian.Uint16(b[4:])
		fl := binary.NativeEndian.Uint16(b[6:])
		sq := binary.NativeEndian.Uint32(b[8:])
		if l < unix.SizeofNlMsghdr || int64(l) > int64(len(b)) {
			return true, fmt.Errorf("netlink: message length %d of %d bytes", l, len(b))
		}
		data := b[unix.SizeofNlMsghdr:l]
		b = b[min(int(l+3)&^3, len(b)):]
		if sq != seq {
			continue // an answer to another request
		}
		switch mt {
		case unix.NLMSG_NOOP:
			continue
		case unix.NLMSG_DONE:
			return true, nil
		case unix.NLMSG_ERROR:
			if len(data) < 4 {
				return true, fmt.Errorf("netlink: error message of %d bytes", len(data))
			}
			if e := int32(binary.NativeEndian.Uint32(data)); e != 0 {
				return true, unix.Errno(-e)
			}
			return true, nil
		case typ:
			*out = append(*out, append([]byte(nil), data...))
			if fl&unix.NLM_F_MULTI == 0 {
				return true, nil
			}
		default:
			return true, fmt.Errorf("netlink: reply of type %#x to a request of type %#x", mt, typ)
		}
	}
	return false, nil
}

type nlAttr struct {
	typ uint16
	val []byte
}

func appendAttr(b []byte, typ uint16, val []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(unix.SizeofNlAttr+len(val)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, val...)
	for len(b)%unix.NLA_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

func parseAttrs(b []byte) ([]nlAttr, error) {
	var out []nlAttr
	for len(b) > 0 {
		if len(b) < unix.SizeofNlAttr {
			return nil, fmt.Errorf("netlink: %d trailing attribute bytes", len(b))
		}
		l := int(binary.NativeEndian.Uint16(b[0:]))
		t := binary.NativeEndian.Uint16(b[2:]) & nlaTypeMask
		if l < unix.SizeofNlAttr || l > len(b) {
			return nil, fmt.Errorf("netlink: attribute length %d of %d bytes", l, len(b))
		}
		out = append(out, nlAttr{t, b[unix.SizeofNlAttr:l]})
		b = b[min((l+unix.NLA_ALIGNTO-1)&^(unix.NLA_ALIGNTO-1), len(b)):]
	}
	return out, nil
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
