//go:build linux

package rxetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// RDMA netlink (NETLINK_RDMA) spoken over a plain AF_NETLINK socket: a dump request (a
// struct nlmsghdr with NLM_F_REQUEST|NLM_F_DUMP, then its attributes), and its reply, one or
// more datagrams of messages flagged NLM_F_MULTI ended by NLMSG_DONE, or an NLMSG_ERROR. The
// numbers are those of <linux/netlink.h> and <rdma/rdma_netlink.h> (kernel ABI).

const (
	rdmaNLClientShift = 10 // RDMA_NL_GET_CLIENT_SHIFT: a message type is client<<10 | op (RDMA_NL_GET_TYPE)
	nldevCmdGet       = 1  // RDMA_NLDEV_CMD_GET (enum rdma_nldev_command): the devices
)

// errDumpInterrupted says that the kernel flagged a reply NLM_F_DUMP_INTR: what it dumped
// changed while it was read, so the reply may be incomplete or inconsistent.
var errDumpInterrupted = errors.New("dump interrupted (NLM_F_DUMP_INTR): results may be incomplete or inconsistent")

// rdmaNLType is RDMA_NL_GET_TYPE(client, op), the message type of an RDMA netlink command.
func rdmaNLType(client, op uint16) uint16 { return client<<rdmaNLClientShift | op }

// appendAttr appends one attribute (struct nlattr: length, type, payload) padded to
// NLA_ALIGNTO.
func appendAttr(b []byte, typ uint16, val []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(unix.SizeofNlAttr+len(val)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, val...)
	for len(b)%unix.NLA_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

// nlRequest is a request message: the header (its pid 0, for the kernel to fill in), then
// the attributes.
func nlRequest(typ, flags uint16, seq uint32, attrs []byte) []byte {
	b := make([]byte, unix.SizeofNlMsghdr, unix.SizeofNlMsghdr+len(attrs))
	b = append(b, attrs...)
	binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], typ)
	binary.NativeEndian.PutUint16(b[6:], flags)
	binary.NativeEndian.PutUint32(b[8:], seq)
	return b
}

// nlMsg is one received message: its header and payload.
type nlMsg struct {
	hdr  unix.NlMsghdr
	data []byte
}

// parseMsgs splits one datagram into messages (each padded to NLMSG_ALIGNTO).
func parseMsgs(b []byte) ([]nlMsg, error) {
	var out []nlMsg
	for len(b) > 0 {
		if len(b) < unix.SizeofNlMsghdr {
			return nil, fmt.Errorf("%d trailing bytes after %d messages", len(b), len(out))
		}
		h := unix.NlMsghdr{
			Len:   binary.NativeEndian.Uint32(b[0:]),
			Type:  binary.NativeEndian.Uint16(b[4:]),
			Flags: binary.NativeEndian.Uint16(b[6:]),
			Seq:   binary.NativeEndian.Uint32(b[8:]),
			Pid:   binary.NativeEndian.Uint32(b[12:]),
		}
		if h.Len < unix.SizeofNlMsghdr || int64(h.Len) > int64(len(b)) {
			return nil, fmt.Errorf("message length %d of %d bytes left", h.Len, len(b))
		}
		out = append(out, nlMsg{hdr: h, data: b[unix.SizeofNlMsghdr:h.Len]})
		n := (int(h.Len) + unix.NLMSG_ALIGNTO - 1) &^ (unix.NLMSG_ALIGNTO - 1)
		b = b[min(n, len(b)):]
	}
	return out, nil
}

// dumpReply gathers the reply to one dump request, datagram by datagram.
type dumpReply struct {
	typ    uint16 // the request's type, which every message of the reply carries
	seq    uint32 // the request's sequence number
	portID uint32 // the socket's netlink port id, to which the kernel addresses its reply
	msgs   [][]byte
	intr   bool // a message was flagged NLM_F_DUMP_INTR
}

// add reads one datagram. It returns done once the reply has ended (NLMSG_DONE, an
// NLMSG_ERROR, or a message without NLM_F_MULTI), and the error the kernel sent or that
// reading met; a reply whose messages were flagged NLM_F_DUMP_INTR ends in
// errDumpInterrupted, with every message kept.
func (r *dumpReply) add(dgram []byte) (done bool, err error) {
	msgs, err := parseMsgs(dgram)
	if err != nil {
		return true, err
	}
	for _, m := range msgs {
		if m.hdr.Pid != r.portID {
			continue // not addressed to this socket
		}
		if m.hdr.Seq != r.seq {
			return true, fmt.Errorf("reply with sequence number %d to request %d", m.hdr.Seq, r.seq)
		}
		if m.hdr.Flags&unix.NLM_F_DUMP_INTR != 0 {
			r.intr = true
		}
		switch m.hdr.Type {
		case unix.NLMSG_NOOP:
			continue
		case unix.NLMSG_DONE:
			return true, r.end(doneErr(m.hdr, m.data))
		case unix.NLMSG_ERROR:
			return true, r.end(ackErr(m.hdr, m.data))
		}
		if m.hdr.Type != r.typ {
			return true, fmt.Errorf("reply message of type %#x to request %#x", m.hdr.Type, r.typ)
		}
		r.msgs = append(r.msgs, append([]byte(nil), m.data...))
		if m.hdr.Flags&unix.NLM_F_MULTI == 0 {
			return true, r.end(nil)
		}
	}
	return false, nil
}

func (r *dumpReply) end(err error) error {
	if err == nil && r.intr {
		return errDumpInterrupted
	}
	return err
}

// doneErr is the error an NLMSG_DONE carries (its payload, an int, is 0 or a negated errno,
// then with NLM_F_ACK_TLVS the extended ack's attributes).
func doneErr(h unix.NlMsghdr, data []byte) error {
	if len(data) < 4 {
		return nil // a done without payload ends the dump without error
	}
	return errnoErr(int32(binary.NativeEndian.Uint32(data)), h.Flags&unix.NLM_F_ACK_TLVS != 0, data[4:])
}

// ackErr is the error an NLMSG_ERROR carries (struct nlmsgerr: 0, an ack, or a negated
// errno, then the request's header, with its payload unless NLM_F_CAPPED; then, with
// NLM_F_ACK_TLVS, the extended ack's attributes).
func ackErr(h unix.NlMsghdr, data []byte) error {
	if len(data) < 4 {
		return fmt.Errorf("error message of %d bytes", len(data))
	}
	errno := int32(binary.NativeEndian.Uint32(data))
	if errno == 0 {
		return nil
	}
	var attrs []byte
	tlvs := h.Flags&unix.NLM_F_ACK_TLVS != 0
	if rest := data[4:]; tlvs && len(rest) >= unix.SizeofNlMsghdr {
		skip := unix.SizeofNlMsghdr
		if h.Flags&unix.NLM_F_CAPPED == 0 {
			skip = int(binary.NativeEndian.Uint32(rest))
		}
		skip = (skip + unix.NLMSG_ALIGNTO - 1) &^ (unix.NLMSG_ALIGNTO - 1)
		if skip <= len(rest) {
			attrs = rest[skip:]
		}
	}
	return errnoErr(errno, tlvs, attrs)
}

func errnoErr(errno int32, tlvs bool, attrs []byte) error {
	if errno == 0 {
		return nil
	}
	if errno < 0 {
		errno = -errno
	}
	var err error = unix.Errno(errno)
	if tlvs {
		err = withExtAck(err, attrs)
	}
	return err
}

// withExtAck adds the kernel's message (NLMSGERR_ATTR_MSG) to err, if attrs hold one.
func withExtAck(err error, attrs []byte) error {
	as, perr := parseAttrs(attrs)
	if perr != nil {
		return err
	}
	for _, a := range as {
		if a.typ == unix.NLMSGERR_ATTR_MSG {
			if msg, serr := nlString(a.val); serr == nil && msg != "" {
				return fmt.Errorf("%w: %s", err, msg)
			}
		}
	}
	return err
}

var nlSeq atomic.Uint32

// nlDump sends one dump request of type typ with attrs on a fresh NETLINK_RDMA socket and
// returns the payloads of its reply's messages (errDumpInterrupted with them when the
// kernel flagged the dump).
func nlDump(typ uint16, attrs []byte) ([][]byte, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_RDMA)
	if err != nil {
		return nil, os.NewSyscallError("socket(AF_NETLINK, NETLINK_RDMA)", err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, os.NewSyscallError("bind", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return nil, os.NewSyscallError("getsockname", err)
	}
	nsa, ok := sa.(*unix.SockaddrNetlink)
	if !ok {
		return nil, fmt.Errorf("getsockname: %T, not a netlink address", sa)
	}
	// The kernel's reason with an error, where it gives one; without, the errno alone.
	_ = unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_EXT_ACK, 1)

	r := &dumpReply{typ: typ, seq: nlSeq.Add(1), portID: nsa.Pid}
	req := nlRequest(typ, unix.NLM_F_REQUEST|unix.NLM_F_DUMP, r.seq, attrs)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, os.NewSyscallError("sendto", err)
	}
	buf := make([]byte, 64<<10) // above the kernel's largest dump skb (32 KiB)
	for {
		n, _, flags, _, err := unix.Recvmsg(fd, buf, nil, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, os.NewSyscallError("recvmsg", err)
		}
		if flags&unix.MSG_TRUNC != 0 {
			return nil, fmt.Errorf("recvmsg: datagram longer than %d bytes", len(buf))
		}
		done, err := r.add(buf[:n])
		if done {
			return r.msgs, err
		}
	}
}

// nlDumpRetry is nlDump, again when the kernel says the dump was interrupted (what it
// dumped changed while it was read), up to 5 more times.
func nlDumpRetry(typ uint16, attrs []byte) ([][]byte, error) {
	for try := 0; ; try++ {
		msgs, err := nlDump(typ, attrs)
		if errors.Is(err, errDumpInterrupted) && try < 5 {
			continue
		}
		return msgs, err
	}
}

// rdmaDev is one RDMA device, as RDMA_NLDEV_CMD_GET lists it.
type rdmaDev struct {
	index uint32
	name  string
}

// rdmaDevices lists the RDMA devices (what `rdma dev` shows), in the kernel's order.
func rdmaDevices() ([]rdmaDev, error) {
	msgs, err := nlDumpRetry(rdmaNLType(nlNLDev, nldevCmdGet), nil)
	if err != nil {
		return nil, err
	}
	return parseDevices(msgs)
}

// parseDevices decodes the payloads of a RDMA_NLDEV_CMD_GET dump: each message one device,
// with its index and name.
func parseDevices(msgs [][]byte) ([]rdmaDev, error) {
	var out []rdmaDev
	for i, m := range msgs {
		attrs, err := parseAttrs(m)
		if err != nil {
			return nil, fmt.Errorf("device message %d: %w", i, err)
		}
		var d rdmaDev
		haveIndex := false
		for _, a := range attrs {
			switch a.typ {
			case attrDevIndex:
				if d.index, err = nlU32(a.val); err != nil {
					return nil, fmt.Errorf("device message %d: index: %w", i, err)
				}
				haveIndex = true
			case attrDevName:
				if d.name, err = nlString(a.val); err != nil {
					return nil, fmt.Errorf("device message %d: name: %w", i, err)
				}
			}
		}
		if !haveIndex || d.name == "" {
			return nil, fmt.Errorf("device message %d: no device index or name", i)
		}
		out = append(out, d)
	}
	return out, nil
}
