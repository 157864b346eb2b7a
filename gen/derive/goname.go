package derive

import "strings"

// initialisms are the words of C names written in capitals in Go names.
var initialisms = map[string]string{
	"ah": "AH", "cq": "CQ", "qp": "QP", "pd": "PD", "mr": "MR", "mw": "MW",
	"srq": "SRQ", "wq": "WQ", "wr": "WR", "wc": "WC", "dm": "DM", "td": "TD",
	"gid": "GID", "guid": "GUID", "pkey": "PKey", "rkey": "RKey", "lkey": "LKey",
	"id": "ID", "ep": "EP", "xrcd": "XRCD", "xrc": "XRC", "srqn": "SRQN",
	"ibv": "IBV", "ib": "IB", "rq": "RQ", "sq": "SQ", "rcq": "RCQ",
	"ud": "UD", "tso": "TSO", "sge": "SGE", "imm": "Imm", "inv": "Inv",
	"ece": "ECE", "rwq": "RWQ", "cmb": "CMB", "udma": "UDMA", "fd": "FD",
	"dmabuf": "DMABuf", "dmah": "DMAH", "cntr": "Cntr", "mbps": "Mbps",
	"rt": "RT", "cm": "CM", "cmd": "Cmd", "ptr": "Ptr", "esp": "ESP",
	"odp": "ODP", "pmem": "PMem", "iova": "IOVA", "iova2": "IOVA2", "2str": "ToString",
	"rdma": "RDMA",
	"qpn":  "QPN", "cfg": "Cfg", "compl": "Compl", "ctx": "Ctx", "io": "IO",
	"mcast": "Mcast", "ops": "Ops", "num": "Num", "rqcmb": "RQCMB",
	"sqcmb": "SQCMB", "qpt": "QPT", "l2": "L2", "udp": "UDP", "ts": "TS",
	"ns": "NS", "sl": "SL", "slid": "SLID", "dlid": "DLID", "tm": "TM",
	"cvlan": "CVLAN",
}

// GoName returns the Go name of a C function: the library prefix dropped,
// the rest in camel case with initialisms in capitals
// ("ibv_create_cq" -> "CreateCQ", "rdma_get_send_comp" -> "GetSendComp").
// A name without the prefix is converted whole ("mbps_to_ibv_rate" ->
// "MbpsToIBVRate"). An implementation name with leading underscores gets
// the suffix "Impl" so it cannot take the name of its public wrapper
// ("_ibv_query_gid_ex" -> "QueryGIDExImpl").
func GoName(c, prefix string) string {
	s := strings.TrimLeft(c, "_")
	impl := s != c
	s = strings.TrimPrefix(s, prefix)
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w == "" {
			continue
		}
		if v, ok := initialisms[w]; ok {
			b.WriteString(v)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	out := b.String()
	if impl {
		out += "Impl"
	}
	if out == "" || out[0] < 'A' || out[0] > 'Z' {
		out = "X" + out
	}
	return out
}
