package derive

import (
	"strings"

	"github.com/goverbs/goverbs/gen/naming"
)

// GoName returns the Go name of a C function in the one naming scheme of
// package naming: the library prefix dropped, the rest in camel case with
// naming.Words in their spelling ("ibv_create_cq" -> "CreateCQ",
// "rdma_get_send_comp" -> "GetSendComp"). A name without the prefix is
// converted whole ("mbps_to_ibv_rate" -> "MbpsToIBVRate"). An
// implementation name with leading underscores gets the suffix "Impl" so it
// cannot take the name of its public wrapper ("_ibv_query_gid_ex" ->
// "QueryGIDExImpl"); the generator exports no binding of those.
func GoName(c, prefix string) string {
	s := strings.TrimLeft(c, "_")
	impl := s != c
	out := naming.Camel(strings.TrimPrefix(s, prefix))
	if impl {
		out += "Impl"
	}
	return out
}
