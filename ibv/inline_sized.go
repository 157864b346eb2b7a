package ibv

import (
	"unsafe"

	"github.com/goverbs/goverbs/internal/cerr"
)

// The static inlines below only add the size of the caller's structure to
// an exported function (so that libibverbs can tell which release's layout
// it writes); their errors name the public function.

// QueryGIDEx is ibv_query_gid_ex (infiniband/verbs.h): the GID table entry
// gidIndex of port portNum, through _ibv_query_gid_ex with the size of
// [GIDEntry]. A failure is an *[Error] naming ibv_query_gid_ex that unwraps
// to the errno (zero_or_errno).
func (context *Context) QueryGIDEx(portNum, gidIndex uint32, entry *GIDEntry, flags uint32) error {
	r, _, err := c__ibv_query_gid_ex(context, portNum, gidIndex, entry, flags, uint64(unsafe.Sizeof(*entry)))
	if err != nil {
		return err
	}
	return cerr.ZeroOrErrno("ibv_query_gid_ex", r)
}

// QueryGIDTable is ibv_query_gid_table (infiniband/verbs.h): it fills
// entries (an array of maxEntries [GIDEntry] in memory the caller owns)
// with the device's valid GIDs and returns how many, through
// _ibv_query_gid_table with the size of [GIDEntry]. A failure is an
// *[Error] naming ibv_query_gid_table that unwraps to the errno
// (count_or_neg_errno).
func (context *Context) QueryGIDTable(entries *GIDEntry, maxEntries uint64, flags uint32) (int, error) {
	r, _, err := c__ibv_query_gid_table(context, entries, maxEntries, flags, uint64(unsafe.Sizeof(*entries)))
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
// _ibv_query_comp_cntr_caps with the size of [CompCntrCaps]. A failure is
// an *[Error] naming ibv_query_comp_cntr_caps that unwraps to the errno
// (zero_or_errno); before rdma-core 65 it is a *[MissingError] wrapping
// unix.EOPNOTSUPP.
func (context *Context) QueryCompCntrCaps(caps *CompCntrCaps) error {
	r, _, err := c__ibv_query_comp_cntr_caps(context, caps, uint64(unsafe.Sizeof(*caps)))
	if err != nil {
		return err
	}
	return cerr.ZeroOrErrno("ibv_query_comp_cntr_caps", r)
}
