package main

import (
	"encoding/binary"
	"fmt"
)

// infoLen is the size of rping's one message: a buffer advertisement.
const infoLen = 16

// info advertises a registered buffer to the peer: where it is (Addr),
// its remote key and how many bytes of it take part in the ping. On the
// wire it is Addr (64-bit), RKey (32-bit) and Size (32-bit), big-endian,
// 16 bytes in all, sent with an RDMA send.
type info struct {
	Addr uint64
	RKey uint32
	Size uint32
}

// put writes m into b, which must hold infoLen bytes.
func (m info) put(b []byte) {
	binary.BigEndian.PutUint64(b[0:8], m.Addr)
	binary.BigEndian.PutUint32(b[8:12], m.RKey)
	binary.BigEndian.PutUint32(b[12:16], m.Size)
}

// parseInfo reads a received message; anything but exactly infoLen bytes
// is not one (rping calls it bogus data).
func parseInfo(b []byte) (info, error) {
	if len(b) != infoLen {
		return info{}, fmt.Errorf("received bogus data, size %d (want %d)", len(b), infoLen)
	}
	return info{
		Addr: binary.BigEndian.Uint64(b[0:8]),
		RKey: binary.BigEndian.Uint32(b[8:12]),
		Size: binary.BigEndian.Uint32(b[12:16]),
	}, nil
}

func (m info) String() string {
	return fmt.Sprintf("rkey %x addr %x len %d", m.RKey, m.Addr, m.Size)
}
