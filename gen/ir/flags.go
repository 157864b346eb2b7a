package ir

import "strings"

// ClassifyFlags decides, for every owned tagged enum, whether it is a set of
// bit flags (see isFlags); flag enums are emitted as bit types.
func (p *Package) ClassifyFlags() {
	for _, e := range p.Enums {
		e.Flags = !e.Foreign && e.Tag != "" && isFlags(e)
	}
}

// isFlags: no negative values and at least one single-bit value, and either
//   - the tag says so (flags, mask, caps, access, fields, bits) and the
//     enum is not a small sequence (0, 1, 2 as in ibv_atomic_cap), or
//   - all values are 0 or single bits, at least three of them, one >= 4.
//
// Sequential enums such as ibv_mig_state (0, 1, 2) and ibv_qp_state (0..6)
// stay enums.
func isFlags(e *Enum) bool {
	var bits uint64
	single, composite, zero := 0, 0, false
	for _, v := range e.Values {
		u := uint64(v.Value)
		switch {
		case v.Value < 0:
			return false
		case u == 0:
			zero = true
		case u&(u-1) == 0:
			single++
			bits |= u
		default:
			composite++
		}
	}
	if single == 0 {
		return false
	}
	named := false
	for _, w := range []string{"flag", "mask", "cap", "access", "fields", "bits"} {
		if strings.Contains(e.Tag, w) {
			named = true
		}
	}
	if named {
		return !(zero && bits < 4)
	}
	return composite == 0 && bits >= 4 && single >= 3
}
