//go:build linux

package rxetest

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"
)

// nlmsg encodes one message as the kernel sends it: struct nlmsghdr, payload, padding.
func nlmsg(typ, flags uint16, seq, pid uint32, payload []byte) []byte {
	b := binary.NativeEndian.AppendUint32(nil, uint32(unix.SizeofNlMsghdr+len(payload)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = binary.NativeEndian.AppendUint16(b, flags)
	b = binary.NativeEndian.AppendUint32(b, seq)
	b = binary.NativeEndian.AppendUint32(b, pid)
	b = append(b, payload...)
	for len(b)%unix.NLMSG_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

func i32(v int32) []byte { return binary.NativeEndian.AppendUint32(nil, uint32(v)) }

// The request is the header (length covering the attributes, pid left to the kernel) and
// the attributes, each padded to 4 bytes with its unpadded length.
func TestNLRequest(t *testing.T) {
	require.Equal(t, uint16(0x140a), rdmaNLType(nlNLDev, 10), "RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET)")
	attrs := appendAttr(nil, attrDevIndex, u32(3))
	attrs = appendAttr(attrs, attrDevName, []byte("rxe_a")) // 5 bytes: 3 of padding
	require.Len(t, attrs, 8+12)
	require.Equal(t, []byte{9, 0, 2, 0, 'r', 'x', 'e', '_', 'a', 0, 0, 0}, nativeLE(attrs[8:], 0, 2))
	req := nlRequest(0x140a, unix.NLM_F_REQUEST|unix.NLM_F_DUMP, 7, attrs)
	require.Equal(t, cat(hdr(uint32(16+len(attrs)), 0x140a, 0x301, 7), attrs), req)
	msgs, err := parseMsgs(req)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, unix.NlMsghdr{Len: 36, Type: 0x140a, Flags: 0x301, Seq: 7}, msgs[0].hdr)
	as, err := parseAttrs(msgs[0].data)
	require.NoError(t, err)
	require.Equal(t, []nlAttr{{attrDevIndex, u32(3)}, {attrDevName, []byte("rxe_a")}}, as)
}

func hdr(n uint32, typ, flags uint16, seq uint32) []byte {
	b := binary.NativeEndian.AppendUint32(nil, n)
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = binary.NativeEndian.AppendUint16(b, flags)
	b = binary.NativeEndian.AppendUint32(b, seq)
	return binary.NativeEndian.AppendUint32(b, 0)
}

// nativeLE rewrites the 2-byte fields at the offsets in b from native to little-endian
// order, so that a test can spell them out as bytes on any host.
func nativeLE(b []byte, offs ...int) []byte {
	b = append([]byte(nil), b...)
	for _, o := range offs {
		binary.LittleEndian.PutUint16(b[o:], binary.NativeEndian.Uint16(b[o:]))
	}
	return b
}

const testPort, testSeq = 4242, 9

func newReply(k resKind) *dumpReply {
	return &dumpReply{typ: rdmaNLType(nlNLDev, k.cmd), seq: testSeq, portID: testPort}
}

// A reply of two datagrams, three NLM_F_MULTI messages with nested tables of entries (and
// one message for another socket, and a no-op of unaligned length, among them), ended by
// NLMSG_DONE, reads back as the
// objects encoded in it, in order.
func TestDumpReplyMultipart(t *testing.T) {
	k, _ := kindByName("qp")
	typ := rdmaNLType(nlNLDev, k.cmd)
	a := []Resource{{Kind: "qp", Dev: "rxe_a", ID: 1, Comm: "ib_core"}, {Kind: "qp", Dev: "rxe_a", ID: 17, PID: 112}}
	b := []Resource{{Kind: "qp", Dev: "rxe_b", ID: 1, Comm: "ib_core"}}
	c := []Resource{{Kind: "qp", Dev: "rxe_c", ID: 18, PID: 114}, {Kind: "qp", Dev: "rxe_c", ID: 19, PID: 114}}
	enc := func(rs []Resource) []byte { return encodeDump(k, rs)[0] }
	r := newReply(k)
	done, err := r.add(cat(
		nlmsg(typ, unix.NLM_F_MULTI, testSeq, testPort, enc(a)),
		nlmsg(typ, unix.NLM_F_MULTI, testSeq+1, testPort+1, enc(b)), // another socket's
		nlmsg(typ, unix.NLM_F_MULTI, testSeq, testPort, enc(b)),
	))
	require.NoError(t, err)
	require.False(t, done, "no NLMSG_DONE yet")
	done, err = r.add(cat(
		nlmsg(unix.NLMSG_NOOP, unix.NLM_F_MULTI, testSeq, testPort, []byte{1, 2, 3}), // padded to 20 bytes
		nlmsg(typ, unix.NLM_F_MULTI, testSeq, testPort, enc(c)),
		nlmsg(unix.NLMSG_DONE, unix.NLM_F_MULTI, testSeq, testPort, i32(0)),
	))
	require.NoError(t, err)
	require.True(t, done)
	require.Len(t, r.msgs, 3)
	got, err := parseDump(k, r.msgs)
	require.NoError(t, err)
	require.Equal(t, append(append(append([]Resource(nil), a...), b...), c...), got)
}

// What ends a reply other than a clean NLMSG_DONE: the kernel's errors, an interrupted
// dump, and messages that do not belong to the request.
func TestDumpReplyEnds(t *testing.T) {
	k, _ := kindByName("pd")
	typ := rdmaNLType(nlNLDev, k.cmd)
	entry := encodeDump(k, []Resource{{Kind: "pd", Dev: "rxe_a", ID: 2, PID: 7}})[0]
	multi := nlmsg(typ, unix.NLM_F_MULTI, testSeq, testPort, entry)
	origReq := nlRequest(typ, unix.NLM_F_REQUEST|unix.NLM_F_DUMP, testSeq, appendAttr(nil, attrDevIndex, u32(0)))

	// NLMSG_ERROR: the negated errno, then the request (whole, or capped to its header).
	r := newReply(k)
	done, err := r.add(nlmsg(unix.NLMSG_ERROR, 0, testSeq, testPort, cat(i32(-int32(unix.EOPNOTSUPP)), origReq)))
	require.True(t, done)
	require.ErrorIs(t, err, unix.EOPNOTSUPP)
	r = newReply(k)
	ext := appendAttr(nil, unix.NLMSGERR_ATTR_MSG, str("no such device"))
	_, err = r.add(nlmsg(unix.NLMSG_ERROR, unix.NLM_F_CAPPED|unix.NLM_F_ACK_TLVS, testSeq, testPort, cat(i32(-int32(unix.ENODEV)), origReq[:16], ext)))
	require.ErrorIs(t, err, unix.ENODEV)
	require.ErrorContains(t, err, "no such device: no such device")
	r = newReply(k)
	_, err = r.add(nlmsg(unix.NLMSG_ERROR, unix.NLM_F_ACK_TLVS, testSeq, testPort, cat(i32(-int32(unix.EINVAL)), origReq, ext)))
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorContains(t, err, ": no such device")
	// errno 0 is an ack: the end, no error.
	r = newReply(k)
	done, err = r.add(cat(multi, nlmsg(unix.NLMSG_ERROR, 0, testSeq, testPort, cat(i32(0), origReq))))
	require.True(t, done)
	require.NoError(t, err)
	require.Len(t, r.msgs, 1)

	// A dump that fails part way: NLMSG_DONE with a negated errno.
	r = newReply(k)
	_, err = r.add(cat(multi, nlmsg(unix.NLMSG_DONE, unix.NLM_F_MULTI, testSeq, testPort, i32(-int32(unix.EMSGSIZE)))))
	require.ErrorIs(t, err, unix.EMSGSIZE)

	// NLM_F_DUMP_INTR on any message: the reply is kept, and said to be interrupted.
	r = newReply(k)
	done, err = r.add(nlmsg(typ, unix.NLM_F_MULTI|unix.NLM_F_DUMP_INTR, testSeq, testPort, entry))
	require.False(t, done)
	require.NoError(t, err)
	done, err = r.add(nlmsg(unix.NLMSG_DONE, unix.NLM_F_MULTI, testSeq, testPort, i32(0)))
	require.True(t, done)
	require.ErrorIs(t, err, errDumpInterrupted)
	require.Len(t, r.msgs, 1)

	// A message without NLM_F_MULTI is the whole reply.
	r = newReply(k)
	done, err = r.add(nlmsg(typ, 0, testSeq, testPort, entry))
	require.True(t, done)
	require.NoError(t, err)
	require.Len(t, r.msgs, 1)

	for _, c := range []struct {
		name, want string
		dgram      []byte
	}{
		{"another request's", "sequence number 10 to request 9", nlmsg(typ, unix.NLM_F_MULTI, testSeq+1, testPort, entry)},
		{"another command's", "type 0x140a to request 0x140e", nlmsg(rdmaNLType(nlNLDev, 10), unix.NLM_F_MULTI, testSeq, testPort, entry)},
		{"length past the datagram", fmt.Sprintf("message length 200 of %d bytes left", len(multi)), cat(binary.NativeEndian.AppendUint32(nil, 200), multi[4:])},
		{"length below the header", "message length 8 of", cat(binary.NativeEndian.AppendUint32(nil, 8), multi[4:])},
		{"trailing bytes", "5 trailing bytes after 1 messages", cat(multi, []byte{1, 2, 3, 4, 5})},
		{"short error", "error message of 2 bytes", nlmsg(unix.NLMSG_ERROR, 0, testSeq, testPort, []byte{1, 2})},
	} {
		r := newReply(k)
		done, err := r.add(c.dgram)
		require.True(t, done, c.name)
		require.ErrorContains(t, err, c.want, c.name)
	}
}

// A truncated attribute anywhere in a reply, nested or not, fails the reading.
func TestTruncatedAttributes(t *testing.T) {
	k, _ := kindByName("cq")
	msg := encodeDump(k, []Resource{{Kind: "cq", Dev: "rxe_a", ID: 5, PID: 7}})[0]
	_, err := parseDump(k, [][]byte{msg})
	require.NoError(t, err)
	// Cut inside the table's last entry: the table's length now runs past the message.
	_, err = parseDump(k, [][]byte{msg[:len(msg)-4]})
	require.ErrorContains(t, err, "attribute length")
	// The table keeps its length, but an attribute inside an entry claims more than the
	// entry holds.
	bad := append([]byte(nil), msg...)
	last := len(bad) - 8 // the entry's last attribute, the pid (4 + 4 bytes)
	require.Equal(t, uint16(attrResPID), binary.NativeEndian.Uint16(bad[last+2:]))
	binary.NativeEndian.PutUint16(bad[last:], 12)
	_, err = parseDump(k, [][]byte{bad})
	require.ErrorContains(t, err, "cq entry 0: attribute length 12 of 8 bytes left")
}

func TestParseDevices(t *testing.T) {
	dev := func(i uint32, name string) []byte {
		return cat(appendAttr(nil, attrDevIndex, u32(i)), appendAttr(nil, attrDevName, str(name)), appendAttr(nil, 3, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	}
	got, err := parseDevices([][]byte{dev(0, "rxe_a"), dev(3, "rxe_b")})
	require.NoError(t, err)
	require.Equal(t, []rdmaDev{{0, "rxe_a"}, {3, "rxe_b"}}, got)
	_, err = parseDevices([][]byte{dev(0, "rxe_a"), appendAttr(nil, attrDevIndex, u32(1))})
	require.ErrorContains(t, err, "device message 1: no device index or name")
	_, err = parseDevices([][]byte{appendAttr(nil, attrDevName, str("rxe_a"))})
	require.ErrorContains(t, err, "device message 0: no device index")
	_, err = parseDevices([][]byte{appendAttr(nil, attrDevIndex, []byte{1})})
	require.ErrorContains(t, err, "index: 1 bytes, want 4")
	_, err = parseDevices([][]byte{dev(0, "rxe_a")[:12]})
	require.ErrorContains(t, err, "device message 0: attribute length 10 of 4 bytes left")
}
