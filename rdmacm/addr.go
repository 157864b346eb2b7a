package rdmacm

// GetLocalAddr is rdma_get_local_addr (rdma/rdma_cma.h): the local
// (source) address id is bound to, inside id's route. It cannot fail.
func (cmid *CMID) GetLocalAddr() *Sockaddr {
	return cmid.Route.Addr.SrcAddr()
}

// GetPeerAddr is rdma_get_peer_addr (rdma/rdma_cma.h): the remote
// (destination) address of id, inside id's route. It cannot fail.
func (cmid *CMID) GetPeerAddr() *Sockaddr {
	return cmid.Route.Addr.DstAddr()
}
