package ibv

import (
	"unsafe"

	"github.com/goverbs/goverbs/internal/carg"
	"github.com/goverbs/goverbs/internal/cerr"
)

// The static inlines below only add the size of the caller's structure to
// an exported function (so that libibverbs can tell which release's layout
// it writes); their errors name the public function. Their Go shapes follow
// the generated bindings' (see the package documentation).

// QueryGIDEx is ibv_query_gid_ex (infiniband/verbs.h): the GID table entry
// gidIndex of port portNum, through _ibv_query_gid_ex with the size of
// [GIDEntry]. flags must be 0 (ibv_query_gid_ex(3): no flag is defined yet).
// A gidIndex C cannot hold is an error wrapping unix.EINVAL, without the
// call. Convention zero_or_errno.
func (c *Context) QueryGIDEx(portNum uint8, gidIndex int, flags uint32) (GIDEntry, error) {
	var entry GIDEntry
	idx, err := carg.Uint32("ibv_query_gid_ex", "gid_index", gidIndex)
	if err != nil {
		return entry, err
	}
	r, _, err := c__ibv_query_gid_ex(c, uint32(portNum), idx, &entry, flags, uint64(unsafe.Sizeof(entry)))
	if err != nil {
		return GIDEntry{}, err
	}
	if err := cerr.ZeroOrErrno("ibv_query_gid_ex", r); err != nil {
		return GIDEntry{}, err
	}
	return entry, nil
}

// QueryGIDTable is ibv_query_gid_table (infiniband/verbs.h): it fills
// entries (max_entries is len(entries)) with the device's valid GIDs and
// returns how many, through _ibv_query_gid_table with the size of
// [GIDEntry]. flags must be 0 (ibv_query_gid_table(3)). Convention
// count_or_neg_errno.
func (c *Context) QueryGIDTable(entries []GIDEntry, flags uint32) (int, error) {
	r, _, err := c__ibv_query_gid_table(c, carg.Slice(entries), uint64(len(entries)), flags, uint64(unsafe.Sizeof(GIDEntry{})))
	if err != nil {
		return 0, err
	}
	if err := cerr.CountOrNegErrno("ibv_query_gid_table", r); err != nil {
		return 0, err
	}
	return int(r), nil
}

// QueryCompCntrCaps is ibv_query_comp_cntr_caps (infiniband/verbs.h): the
// completion counter capabilities of the device, through
// _ibv_query_comp_cntr_caps with the size of [CompCntrCaps]. Convention
// zero_or_errno; before rdma-core 65 the error is a *[MissingError]
// (unix.EOPNOTSUPP).
func (c *Context) QueryCompCntrCaps() (CompCntrCaps, error) {
	var caps CompCntrCaps
	r, _, err := c__ibv_query_comp_cntr_caps(c, &caps, uint64(unsafe.Sizeof(caps)))
	if err != nil {
		return CompCntrCaps{}, err
	}
	if err := cerr.ZeroOrErrno("ibv_query_comp_cntr_caps", r); err != nil {
		return CompCntrCaps{}, err
	}
	return caps, nil
}
