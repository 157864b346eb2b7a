// Package naming turns C identifiers into Go identifiers: a package prefix is
// stripped, words split at underscores are title-cased, known initialisms are
// upper-cased, and adjacent numeric words keep an underscore between them
// (IBV_RATE_2_5_GBPS -> Rate2_5Gbps, not Rate25Gbps).
package naming

import (
	"strings"
	"unicode"
)

// initialisms are upper-cased whole words.
var initialisms = map[string]bool{
	"ack": true, "ah": true, "api": true, "abi": true, "cm": true, "cq": true,
	"cqe": true, "dc": true, "dct": true, "dm": true, "dma": true, "dv": true,
	"ece": true, "esp": true, "fd": true, "gid": true, "gre": true, "grh": true,
	"gso": true, "ib": true, "id": true, "io": true, "ip": true,
	"ipv4": true, "ipv6": true, "iwarp": true, "lid": true, "mac": true,
	"mpls": true, "mr": true, "mtu": true, "mw": true, "odp": true,
	"pci": true, "pd": true, "psn": true, "qp": true, "qpn": true,
	"rc": true, "rdma": true, "rnr": true, "roce": true, "rss": true,
	"rwq": true, "sa": true, "sge": true, "sgid": true, "dgid": true,
	"sl": true, "smi": true, "srq": true, "tcp": true, "td": true,
	"tso": true, "uc": true, "ud": true, "udp": true, "uar": true, "url": true,
	"vlan": true, "vxlan": true, "wc": true, "wq": true, "wr": true,
	"xrc": true, "xrcd": true, "cc": true, "mcast": false,
}

// Go returns the Go name of C identifier c, with the first matching prefix
// removed and a trailing "_t" of typedef names dropped.
func Go(c string, prefixes []string) string {
	s := c
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) && len(s) > len(p) {
			s = s[len(p):]
			break
		}
	}
	s = strings.TrimSuffix(s, "_t")
	return Camel(s)
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
		switch {
		case initialisms[lw]:
			b.WriteString(strings.ToUpper(lw))
		default:
			b.WriteString(strings.ToUpper(lw[:1]) + lw[1:])
		}
	}
	r := b.String()
	if r == "" || !unicode.IsLetter(rune(r[0])) {
		r = "X" + r
	}
	return r
}
