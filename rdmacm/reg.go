package rdmacm

import (
	"github.com/goverbs/goverbs/ibv"
)

// The rdma_reg_* helpers of rdma/rdma_verbs.h register memory with the
// id's protection domain through ibv_reg_mr; a failure is an *Error naming
// the helper that unwraps to the errno.
//
// Memory: C keeps the address of buf for as long as the registration lives
// (until [DeregMR]): it must be memory the Go runtime does not manage
// (mmap'd with unix.Mmap, or allocated by C), or Go memory pinned with a
// runtime.Pinner for that whole time; a plain Go slice can be freed while
// the device still uses it.

// RegMsgs is rdma_reg_msgs (rdma/rdma_verbs.h): register buf for sends and
// receives (IBV_ACCESS_LOCAL_WRITE). See the memory rule above.
func (cmid *CMID) RegMsgs(buf []byte) (*ibv.MR, error) {
	return cmid.reg("rdma_reg_msgs", buf, ibv.AccessFlagsLocalWrite)
}

// RegRead is rdma_reg_read (rdma/rdma_verbs.h): register buf as the target
// of the peer's RDMA reads (IBV_ACCESS_LOCAL_WRITE |
// IBV_ACCESS_REMOTE_READ). See the memory rule above.
func (cmid *CMID) RegRead(buf []byte) (*ibv.MR, error) {
	return cmid.reg("rdma_reg_read", buf, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteRead)
}

// RegWrite is rdma_reg_write (rdma/rdma_verbs.h): register buf as the
// target of the peer's RDMA writes (IBV_ACCESS_LOCAL_WRITE |
// IBV_ACCESS_REMOTE_WRITE). See the memory rule above.
func (cmid *CMID) RegWrite(buf []byte) (*ibv.MR, error) {
	return cmid.reg("rdma_reg_write", buf, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteWrite)
}

func (cmid *CMID) reg(fn string, buf []byte, access ibv.AccessFlags) (*ibv.MR, error) {
	mr, err := cmid.PD.RegMR(buf, access)
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
