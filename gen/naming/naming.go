// Package naming is the one naming scheme of the generated packages: it turns
// C identifiers into Go identifiers for types, members, constants, functions
// and receivers alike (see docs/generator.md, "Names").
//
//   - A package prefix is stripped, words split at underscores are
//     title-cased, and the words of Words are written as listed there: Go
//     initialisms in capitals (QP, CQ, GID, RC, TCP), a few compounds in
//     their usual Go spelling (LKey, RKey, DMABuf, RoCE). Adjacent numeric
//     words keep an underscore between them (IBV_RATE_2_5_GBPS -> 2_5Gbps).
//   - Enumerators of a tagged enum are named after their Go type: the type's
//     name, then the enumerator less the words all enumerators of the enum
//     share (IBV_QPS_RESET of enum ibv_qp_state -> QPStateReset,
//     IBV_ACCESS_LOCAL_WRITE of enum ibv_access_flags ->
//     AccessFlagsLocalWrite). Macros and the enumerators of anonymous enums
//     keep their own name (IBV_SYSFS_NAME_MAX -> SysfsNameMax).
//   - Receivers are short: the first word in lower case when it is an
//     initialism (qp for QP and QPEx, cq, pd, srq), else the initials of the
//     words (c for Context, cc for CompChannel).
package naming

import (
	"strings"
	"unicode"
)

// Words are the words written in a fixed spelling rather than title-cased.
var Words = map[string]string{
	"abi": "ABI", "ah": "AH", "api": "API", "cc": "CC",
	"cm": "CM", "cmb": "CMB", "cq": "CQ", "cqe": "CQE", "cvlan": "CVLAN",
	"dc": "DC", "dct": "DCT", "dgid": "DGID", "dlid": "DLID", "dm": "DM",
	"dma": "DMA", "dmabuf": "DMABuf", "dmah": "DMAH", "dv": "DV", "ece": "ECE",
	"ep": "EP", "esp": "ESP", "fd": "FD", "gid": "GID", "gre": "GRE",
	"grh": "GRH", "gso": "GSO", "guid": "GUID", "ib": "IB", "ibv": "IBV",
	"id": "ID", "io": "IO", "iova": "IOVA", "iova2": "IOVA2", "ip": "IP",
	"ipv4": "IPV4", "ipv6": "IPV6", "iwarp": "IWARP", "l2": "L2",
	"lid": "LID", "lkey": "LKey", "mac": "MAC", "mpls": "MPLS", "mr": "MR",
	"mtu": "MTU", "mw": "MW", "ns": "NS", "odp": "ODP", "pci": "PCI",
	"pd": "PD", "pkey": "PKey", "pmem": "PMem", "psn": "PSN", "qkey": "QKey",
	"qp": "QP", "qpn": "QPN", "qpt": "QPT", "rc": "RC", "rcq": "RCQ",
	"rdma": "RDMA", "rkey": "RKey", "rnr": "RNR", "roce": "RoCE", "rq": "RQ",
	"rqcmb": "RQCMB", "rss": "RSS", "rt": "RT", "rwq": "RWQ", "sa": "SA",
	"sge": "SGE", "sgid": "SGID", "sl": "SL", "slid": "SLID", "smi": "SMI",
	"sq": "SQ", "sqcmb": "SQCMB", "srq": "SRQ", "srqn": "SRQN", "tcp": "TCP",
	"td": "TD", "tm": "TM", "ts": "TS", "tso": "TSO", "uar": "UAR",
	"uc": "UC", "ud": "UD", "udma": "UDMA", "udp": "UDP", "url": "URL",
	"vlan": "VLAN", "vxlan": "VXLAN", "wc": "WC", "wq": "WQ", "wr": "WR",
	"xrc": "XRC", "xrcd": "XRCD",
	"ca": "CA", "cpu": "CPU", "fcs": "FCS", "hca": "HCA", "ipoib": "IPoIB",
	"rnic": "RNIC", "rtr": "RTR", "rts": "RTS", "sqd": "SQD", "sqe": "SQE",
	"2str": "ToString",
}

// Go returns the Go name of C identifier c, with the first matching prefix
// removed and a trailing "_t" of typedef names dropped.
func Go(c string, prefixes []string) string {
	return Camel(strings.TrimSuffix(StripPrefix(c, prefixes), "_t"))
}

// StripPrefix removes the first of prefixes that c starts with (and that
// leaves something).
func StripPrefix(c string, prefixes []string) string {
	for _, p := range prefixes {
		if strings.HasPrefix(c, p) && len(c) > len(p) {
			return c[len(p):]
		}
	}
	return c
}

// Camel converts snake_case or SCREAMING_CASE to CamelCase.
func Camel(s string) string {
	var b strings.Builder
	prevDigit := false
	for _, w := range strings.Split(s, "_") {
		if w == "" {
			continue
		}
		lw := strings.ToLower(w)
		digit := unicode.IsDigit(rune(lw[0]))
		if digit && prevDigit {
			b.WriteByte('_')
		}
		prevDigit = unicode.IsDigit(rune(lw[len(lw)-1]))
		if v, ok := Words[lw]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(strings.ToUpper(lw[:1]) + lw[1:])
		}
	}
	r := b.String()
	if r == "" || !unicode.IsLetter(rune(r[0])) {
		r = "X" + r
	}
	return r
}

// Enumerators names the values of a tagged enum whose Go type is typeName:
// the type name, then each value less the leading words all values share
// (for a single value, the words it shares with the tag, upper-cased), each
// value keeping at least one word of its own.
func Enumerators(typeName, tag string, values []string) []string {
	split := func(s string) []string { return strings.Split(strings.Trim(s, "_"), "_") }
	common := len(split(values[0])) - 1
	if len(values) == 1 {
		// The leading words that appear in the tag.
		in := map[string]bool{}
		for _, w := range split(strings.ToUpper(tag)) {
			in[w] = true
		}
		common = 0
		for _, w := range split(values[0]) {
			if !in[w] {
				break
			}
			common++
		}
	}
	for _, v := range values[1:] {
		common = min(common, shared(split(values[0]), split(v)))
	}
	for _, v := range values {
		common = min(common, len(split(v))-1)
	}
	tw := GoWords(typeName)
	out := make([]string, len(values))
	for i, v := range values {
		ws := split(v)[common:]
		// Words repeating the end of the type name go (RPMA_LOG_LEVEL_FATAL
		// of LogLevel is LogLevelFatal), one word always stays.
		for k := min(len(tw), len(ws)-1); k > 0; k-- {
			if strings.EqualFold(strings.Join(tw[len(tw)-k:], ""), strings.Join(ws[:k], "")) {
				ws = ws[k:]
				break
			}
		}
		rest := strings.Join(ws, "_")
		c := Camel(rest)
		if strings.HasPrefix(c, "X") && !strings.HasPrefix(strings.ToUpper(rest), "X") {
			c = c[1:] // a leading digit is fine after the type name
		}
		if endsInDigit(typeName) && startsWithDigit(c) {
			c = "_" + c
		}
		out[i] = typeName + c
	}
	return out
}

// shared is the number of leading words a and b have in common.
func shared(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func endsInDigit(s string) bool     { return s != "" && unicode.IsDigit(rune(s[len(s)-1])) }
func startsWithDigit(s string) bool { return s != "" && unicode.IsDigit(rune(s[0])) }

// GoWords splits a Go identifier into its words: a run of capitals is one
// word (an initialism), except that its last capital starts the next word
// when lower case follows ("CMEvent" -> CM, Event; "QPEx" -> QP, Ex).
func GoWords(s string) []string {
	var out []string
	r := []rune(s)
	start := 0
	for i := 1; i < len(r); i++ {
		up, prevUp := unicode.IsUpper(r[i]), unicode.IsUpper(r[i-1])
		nextLow := i+1 < len(r) && unicode.IsLower(r[i+1])
		if up && (!prevUp || nextLow) {
			out = append(out, string(r[start:i]))
			start = i
		}
	}
	if start < len(r) {
		out = append(out, string(r[start:]))
	}
	return out
}

// Receiver is the receiver name of methods on Go type typeName: the first
// word in lower case when it is an initialism (all capitals: "QPEx" -> qp,
// "CMID" -> cmid), else the initials of the words in lower case ("Context"
// -> c, "CompChannel" -> cc).
func Receiver(typeName string) string {
	ws := GoWords(typeName)
	if len(ws) == 0 {
		return "x"
	}
	if isInitialism(ws[0]) {
		return strings.ToLower(ws[0])
	}
	var b strings.Builder
	for _, w := range ws {
		if isInitialism(w) || unicode.IsDigit(rune(w[0])) {
			continue
		}
		b.WriteRune(unicode.ToLower(rune(w[0])))
	}
	if b.Len() == 0 {
		return strings.ToLower(ws[0])
	}
	return b.String()
}

func isInitialism(w string) bool {
	if len(w) < 2 {
		return false
	}
	for _, r := range w {
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
