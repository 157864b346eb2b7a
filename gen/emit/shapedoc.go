package emit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
)

// shapeDoc says, in the C parameter names the page uses, how the Go
// binding differs from the C function.
func (e *Emitter) shapeDoc(a apiFunc) string {
	fn, sh := a.fn, a.shape
	var parts, outs []string
	checked := false
	for i, p := range fn.Params {
		ps := sh.params[i]
		switch ps.kind {
		case shOut:
			if sh.free != nil && i == 0 {
				continue
			}
			outs = append(outs, p.Name)
		case shLen:
			if ps.bytes {
				parts = append(parts, fmt.Sprintf("%s is len(%s) times %d, its size in bytes", p.Name, paramName(fn.Params[ps.peer], ps.peer), fn.Params[ps.peer].Type.Elem.Size))
			} else {
				parts = append(parts, fmt.Sprintf("%s is len(%s)", p.Name, paramName(fn.Params[ps.peer], ps.peer)))
			}
			checked = checked || p.Type.Size < 8
		case shSizeof:
			parts = append(parts, fmt.Sprintf("%s is the size of the Go record %s points to", p.Name, paramName(fn.Params[ps.peer], ps.peer)))
		case shString:
			parts = append(parts, p.Name+` is a Go string ("" passes NULL)`)
			checked = true
		case shBool:
			parts = append(parts, p.Name+" is a bool")
		case shInt:
			parts = append(parts, p.Name+" is an int")
			checked = checked || p.Type.Size < 8
		case shDuration:
			parts = append(parts, p.Name+" is a time.Duration (rounded up to milliseconds)")
			checked = true
		case shPort:
			parts = append(parts, p.Name+" is a uint8")
		case shEnum:
			parts = append(parts, fmt.Sprintf("%s is of type [%s]", p.Name, e.docType(ps.enum)))
		case shRecvInOut:
			parts = append(parts, p.Name+" is the receiver, passed by address: the call may release it, even when it fails (see the page), so do not use the receiver after the call")
		}
	}
	if len(outs) > 0 {
		verb := "is a result"
		if len(outs) > 1 {
			verb = "are results"
		}
		parts = append([]string{joinAnd(outs) + " " + verb}, parts...)
	}
	if sh.free != nil {
		parts = append(parts, fmt.Sprintf("the array is returned as a list whose Close releases it (%s); the entries are valid until then", sh.free.Name))
	}
	if sh.ret.kind == shEnum {
		parts = append(parts, fmt.Sprintf("the result is of type [%s]", e.docType(sh.ret.enum)))
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ") + "."
	if checked && a.hasErr {
		s += " A value C cannot hold is an error wrapping unix.EINVAL, and the function is not called."
	}
	return s
}

// docType is the doc link name of an enum: local, or qualified.
func (e *Emitter) docType(key string) string {
	path, g, _ := e.Names.Type(key)
	if path == "" {
		return g
	}
	return path[strings.LastIndex(path, "/")+1:] + "." + g
}

func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// memoryDoc states the memory rules of the cgo calls for the parameters
// that take memory: registered memory C keeps, and records holding
// pointers.
func (e *Emitter) memoryDoc(a apiFunc) string {
	fn, sh := a.fn, a.shape
	var parts []string
	for i, p := range fn.Params {
		ps := sh.params[i]
		n := paramName(p, i)
		switch {
		case ps.kind == shBytes && ps.retained:
			parts = append(parts, fmt.Sprintf("C keeps the address of %s after the call, for as long as the registration lives: it must be memory the Go runtime does not manage (mmap'd with unix.Mmap, or allocated by C), or Go memory pinned with a runtime.Pinner for that whole time; a plain Go slice can be freed while the device still uses it.", n))
		case ps.kind == shBytes:
			parts = append(parts, fmt.Sprintf("C reads %s during the call only: any memory will do.", n))
		case ps.kind == shSlice && p.Type.Elem.Kind == ir.Pointer && p.Type.Elem.Elem != nil && p.Type.Elem.Elem.Kind == ir.Record && !e.created(p.Type.Elem.Elem.Ref):
			// An array of pointers to records the caller fills
			// (mlx5dv_dr_action_create_dest_array's dests); pointers to
			// objects a function of the package made are C memory.
			parts = append(parts, fmt.Sprintf("cgo lets C read the pointers in %s only if they point to C or mmap'd memory, not to Go memory (else the call panics: \"Go pointer to unpinned Go pointer\"): allocate the records they point to in C or mmap'd memory.", n))
		case (ps.kind == shPlain || ps.kind == shSlice) && p.Type.Kind == ir.Pointer && p.Type.Elem.Kind == ir.Record && !(i == 0 && a.recv != ""):
			ptrs, sge := e.pointerMembers(p.Type.Elem.Ref, map[string]bool{})
			if len(ptrs) == 0 {
				continue
			}
			s := fmt.Sprintf("cgo lets C read %s in Go memory only if the pointers it holds (%s) point to C or mmap'd memory, not to Go memory (else the call panics: \"Go pointer to unpinned Go pointer\"): build linked requests and their lists in C or mmap'd memory.", n, strings.Join(ptrs, ", "))
			if sge {
				s += " The data the SGEs name must be registered memory that stays valid until the work completes."
			}
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// pointerMembers lists the Go names of the pointer members of a record
// (anonymous members and unions included), and whether one points to
// struct ibv_sge.
func (e *Emitter) pointerMembers(key string, seen map[string]bool) ([]string, bool) {
	s := e.Pkg.Struct(key)
	if s == nil || seen[key] || s.Foreign || s.Union {
		return nil, false
	}
	seen[key] = true
	var out []string
	sge := false
	for _, f := range s.Fields {
		switch f.Type.Kind {
		case ir.Pointer:
			if f.Name != "" {
				out = append(out, naming.Camel(f.Name))
			}
			sge = sge || (f.Type.Elem != nil && f.Type.Elem.Ref == "struct ibv_sge")
		case ir.Record:
			in, s2 := e.pointerMembers(f.Type.Ref, seen)
			out = append(out, in...)
			sge = sge || s2
		}
	}
	return out, sge
}

// logShapes records the shape of every parameter for the coverage report.
func (e *Emitter) logShapes(fs []apiFunc) {
	for _, a := range fs {
		for i, p := range a.fn.Params {
			ps := a.shape.params[i]
			if i == 0 && a.recv != "" && ps.kind != shRecvInOut {
				continue
			}
			l := shapeLog{fn: a.sf.Name, param: p.Name, c: p.Type.C, why: ps.why}
			switch ps.kind {
			case shPlain:
				if p.Type.Kind != ir.Int || p.Type.Size != 4 || p.Type.Char {
					continue
				}
				l.kept, l.shape = true, goInt(p.Type)
			case shLen:
				continue
			default:
				l.shape = e.shapeName(a, i)
			}
			e.shapes = append(e.shapes, l)
		}
	}
	sort.SliceStable(e.shapes, func(i, j int) bool { return e.shapes[i].fn < e.shapes[j].fn })
}

// shapeName is a short name of parameter i's Go shape for the report.
func (e *Emitter) shapeName(a apiFunc, i int) string {
	ps := a.shape.params[i]
	switch ps.kind {
	case shEnum:
		return e.docType(ps.enum)
	case shBool:
		return "bool"
	case shInt:
		return "int"
	case shPort:
		return "uint8"
	case shDuration:
		return "time.Duration"
	case shString:
		return "string"
	case shBytes:
		return "[]byte with " + a.fn.Params[ps.peer].Name
	case shSlice:
		return "slice with " + a.fn.Params[ps.peer].Name
	case shOut:
		return "result"
	case shRecvInOut:
		return "receiver by address"
	case shSizeof:
		return "sizeof " + a.fn.Params[ps.peer].Name
	}
	return "?"
}

// shapeReport is the shapes section of zcoverage.go.
func (e *Emitter) shapeReport() []string {
	if len(e.shapes) == 0 {
		return nil
	}
	counts := map[string]int{}
	var kept, typed []string
	undecided := 0
	for _, l := range e.shapes {
		if l.kept {
			kept = append(kept, fmt.Sprintf("  - %s %s (%s): %s", l.fn, l.param, l.shape, l.why))
			if strings.HasPrefix(l.why, "undecided") {
				undecided++
			}
			continue
		}
		k := l.shape
		if strings.HasPrefix(k, "[]byte") {
			k = "[]byte"
		} else if strings.HasPrefix(k, "slice") {
			k = "slice"
		} else if strings.HasPrefix(k, "sizeof") {
			k = "sizeof"
		} else if !strings.Contains("bool int uint8 time.Duration string result receiver by address", k) {
			k = "enum or flag type"
		}
		counts[k]++
		typed = append(typed, fmt.Sprintf("  - %s %s -> %s: %s", l.fn, l.param, l.shape, l.why))
	}
	var ks []string
	for k, n := range counts {
		ks = append(ks, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(ks)
	out := []string{"", fmt.Sprintf("Go shapes of the parameters of the exported bindings (gen/emit/shape.go; spec params decide first): %s.", strings.Join(ks, ", ")), ""}
	out = append(out, fmt.Sprintf("int32/uint32 parameters kept as integers: %d (%d undecided), each with its reason:", len(kept), undecided), "")
	out = append(out, kept...)
	out = append(out, "", "Shaped parameters and the evidence:", "")
	return append(out, typed...)
}

// KeptInts returns the report lines of the int32/uint32 parameters kept as
// integers, with their reasons (goverbs-gen -shapes prints them).
func (e *Emitter) KeptInts() []string {
	var out []string
	for _, l := range e.shapes {
		if l.kept {
			out = append(out, fmt.Sprintf("%s %s (%s): %s", l.fn, l.param, l.shape, l.why))
		}
	}
	return out
}
