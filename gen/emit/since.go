package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/spec"
)

// dating is the exact dating of the package's library (spec/since), nil for a
// library it does not cover (librpma, the demo package).
func (e *Emitter) dating() *spec.SinceFile {
	if e.Spec == nil {
		return nil
	}
	return e.Spec.Since(Libraries[e.Names.Spec.Name])
}

// release is the rdma-core release that introduced a symbol or declaration:
// exact, the value spec/since lists (r), else from the pinned inputs that
// declare it (in): the oldest input when it is there, else the oldest input
// that has it (spec/since lists everything newer than the oldest input that
// an older release than the newest input introduced: gen/generate.TestSince).
func (e *Emitter) release(r int, in []ir.Version) ir.Version {
	if r > 0 {
		return ir.Version(strconv.Itoa(r))
	}
	return ir.Since(e.Pkg.Versions, in)
}

// newer reports whether release v is newer than the oldest input.
func (e *Emitter) newer(v ir.Version) bool {
	old := e.Pkg.Versions[len(e.Pkg.Versions)-1]
	oldest, err1 := strconv.Atoi(string(old))
	got, err2 := strconv.Atoi(string(v))
	if err1 != nil || err2 != nil {
		return v != "" && v != old // versions that are not release numbers (the demo's v1, v2)
	}
	return got > oldest
}

// symbolRelease is the release that introduced function fn.
func (e *Emitter) symbolRelease(fn *ir.Func) ir.Version {
	return e.release(e.dating().Symbol(fn.Name), fn.In)
}

// declKey is the key of a declaration in spec/since: "ibv_qp_ex.wr_flush" for
// a member of record key ("struct ibv_qp_ex"), the name itself for an
// enumerator or constant ("IBV_WR_FLUSH").
func declKey(record, name string) string {
	if record == "" {
		return name
	}
	return strings.TrimPrefix(strings.TrimPrefix(record, "struct "), "union ") + "." + name
}

// note says since when a declaration exists ("Since rdma-core 45."), empty
// for the oldest release.
func (e *Emitter) note(key string, in []ir.Version) string {
	if len(in) == 0 {
		return ""
	}
	v := e.release(e.dating().Declaration(key), in)
	if !e.newer(v) {
		return ""
	}
	return fmt.Sprintf("Since rdma-core %s.", v)
}

// memberSince is the newest release among the members a forward shim reads
// on its way from fn's parameter root through path (cq->context->ops.poll_cq),
// with the member that needs it, or 0 when every one is in the oldest release.
func (e *Emitter) memberSince(fn *ir.Func, root string, path []string) (int, string) {
	var t ir.Type
	found := false
	for _, p := range fn.Params {
		if p.Name == root {
			t, found = p.Type, true
		}
	}
	if !found {
		return 0, ""
	}
	best, which := 0, ""
	for _, m := range path {
		var key string
		switch {
		case t.Kind == ir.Pointer && t.Elem.Kind == ir.Record:
			key = t.Elem.Ref
		case t.Kind == ir.Record:
			key = t.Ref
		default:
			return best, which
		}
		f := e.member(key, m)
		if f == nil {
			return best, which
		}
		v := e.release(e.dating().Declaration(declKey(key, m)), f.In)
		if e.newer(v) {
			if r, _ := strconv.Atoi(string(v)); r > best {
				best, which = r, declKey(key, m)
			}
		}
		t = f.Type
	}
	return best, which
}
