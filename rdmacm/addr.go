package rdmacm

// GetLocalAddr is rdma_get_local_addr (rdma/rdma_cma.h): the local
// (source) address id is bound to, inside id's route. It cannot fail.
func (id *CMID) GetLocalAddr() *Sockaddr {
	return id.Route.Addr.SrcAddr()
}

// GetPeerAddr is rdma_get_peer_addr (rdma/rdma_cma.h): the remote
// (destination) address of id, inside id's route. It cannot fail.
func (id *CMID) GetPeerAddr() *Sockaddr {
	return id.Route.Addr.DstAddr()
}
