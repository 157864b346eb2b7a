package rdmacm

import (
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// The rdma_reg_* helpers of rdma/rdma_verbs.h register memory with id's
// protection domain through ibv_reg_mr; a failure is an *Error naming the
// helper that unwraps to the errno. The memory must be C or mmap'd memory
// that outlives the registration.

// RegMsgs is rdma_reg_msgs (rdma/rdma_verbs.h): register length bytes at
// addr for sends and receives (IBV_ACCESS_LOCAL_WRITE).
func (id *CMID) RegMsgs(addr unsafe.Pointer, length uint64) (*ibv.MR, error) {
	return id.reg("rdma_reg_msgs", addr, length, ibv.AccessFlagsLocalWrite)
}

// RegRead is rdma_reg_read (rdma/rdma_verbs.h): register length bytes at
// addr as the target of the peer's RDMA reads (IBV_ACCESS_LOCAL_WRITE |
// IBV_ACCESS_REMOTE_READ).
func (id *CMID) RegRead(addr unsafe.Pointer, length uint64) (*ibv.MR, error) {
	return id.reg("rdma_reg_read", addr, length, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteRead)
}

// RegWrite is rdma_reg_write (rdma/rdma_verbs.h): register length bytes at
// addr as the target of the peer's RDMA writes (IBV_ACCESS_LOCAL_WRITE |
// IBV_ACCESS_REMOTE_WRITE).
func (id *CMID) RegWrite(addr unsafe.Pointer, length uint64) (*ibv.MR, error) {
	return id.reg("rdma_reg_write", addr, length, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteWrite)
}

func (id *CMID) reg(fn string, addr unsafe.Pointer, length uint64, access ibv.AccessFlags) (*ibv.MR, error) {
	mr, err := id.PD.RegMR(addr, length, int32(access))
	if err != nil {
		return nil, seterrno(fn, err)
	}
	return mr, nil
}

// DeregMR is rdma_dereg_mr (rdma/rdma_verbs.h): [ibv.MR.Dereg], its
// failure reported as rdma_dereg_mr's.
func DeregMR(mr *ibv.MR) error {
	return seterrno("rdma_dereg_mr", mr.Dereg())
}
