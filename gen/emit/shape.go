package emit

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
	"github.com/goverbs/goverbs/gen/spec"
)

// shapeKind is what the exported Go binding makes of one C parameter (see
// docs/generator.md, "Go shapes of functions").
type shapeKind int

const (
	shPlain     shapeKind = iota // the raw binding's type
	shEnum                       // the named type of an enum (a C int holding its values)
	shBool                       // bool for a C int used as a boolean
	shInt                        // Go int for a count or index, range-checked
	shPort                       // uint8 for a port number the C API takes wider
	shDuration                   // time.Duration for a C int of milliseconds, checked
	shString                     // string for a const char *
	shBytes                      // []byte for memory and its length (peer)
	shSlice                      // []T for an array and its count (peer)
	shLen                        // the length or count of peer: no Go parameter
	shOut                        // a pointer the function fills: a result
	shRecvInOut                  // the receiver, passed by address (T **: the call may clear it)
	shSizeof                     // the size of the record peer points to: no Go parameter
)

// pshape is the shape of one parameter, with the evidence for it or, for an
// integer kept as it is, the reason.
type pshape struct {
	kind shapeKind
	enum string // shEnum, and shOut of an enum: the IR key of the enum
	peer int    // shBytes, shSlice: the index of the length; shLen: of the memory; shSizeof: of the record
	// out is the conversion of a shOut scalar: shPlain, shInt, shBool,
	// shDuration or shEnum.
	out      shapeKind
	retained bool // shBytes: C keeps the address after the call (a registration)
	// bytes says a shSlice's length (and its shLen) is in bytes, not
	// elements (uint16_t events_num[] with events_sz).
	bytes bool
	why   string
}

// fshape is the shape of one exported binding.
type fshape struct {
	params []pshape
	ret    pshape // shEnum or shPlain: the conversion of a value result
	// free is the function releasing a C array result (ibv_free_device_list
	// for ibv_get_device_list): the binding returns a list type whose Close
	// calls it (listType).
	free *ir.Func
}

// shapeLog is one inferred or kept parameter, for the coverage report.
type shapeLog struct {
	fn, param, c, shape, why string
	kept                     bool // an int32/uint32 kept as it is
}

var (
	countName  = regexp.MustCompile(`^(num_.+|n[a-z]+|max_.+|.+_(count|cnt|size|index|entries)|cqe|comp_vector|index|backlog|mult|mbps|length|len|amount|depth)$`)
	arrayCount = regexp.MustCompile(`^(num_.+|n[a-z]+|max_.+|.+_count|count|cnt)$`)
	valuesRe   = regexp.MustCompile(`(?i)\b(bitwise|or of|one of|following|combination|flags?|mask|use enum|can be|values?|either)\b`)
	lengthName = regexp.MustCompile(`^(length|len|size|.+_(len|length|size|sz)|optlen|inlen|outlen)$`)
	keyName    = regexp.MustCompile(`^(.*_)?(rkey|lkey|qkey|key)$`)
	qpnName    = regexp.MustCompile(`^(.+_qpn|qpn|qp_num|srq_num|.+_srqn|srqn|src_qp|.+_dctn|dctn)$`)
	addrName   = regexp.MustCompile(`^(.+_)?(addr|address)$`)
	releaseRe  = regexp.MustCompile(`_(delete|dereg|shutdown|destroy|free|close)$`)
	queryName  = regexp.MustCompile(`^(Query|Get|WCRead)`)
	mustZero   = regexp.MustCompile(`(?i)must be (0|zero)\b`)
	sizeofName = regexp.MustCompile(`^inlen$`)
)

// enumIndex maps the C names of enumerators and enum tags the package can
// name to enum keys.
func (e *Emitter) enumIndex() (vals, tags map[string]string) {
	vals, tags = map[string]string{}, map[string]string{}
	e.Names.AllEnums(func(en *ir.Enum) {
		tags[en.Tag] = en.Key
		for _, a := range en.Aliases {
			tags[a] = en.Key
		}
		for _, v := range en.Values {
			vals[v.Name] = en.Key
		}
	})
	return vals, tags
}

// constIndex holds the C names of the package's untyped constants: macros
// and the values of anonymous enums.
func (e *Emitter) constIndex() map[string]bool {
	m := map[string]bool{}
	for _, c := range e.Pkg.Consts {
		m[c.Name] = true
	}
	for _, en := range e.Pkg.Enums {
		if en.Tag == "" {
			for _, v := range en.Values {
				m[v.Name] = true
			}
		}
	}
	return m
}

func (e *Emitter) enumOf(key string) *ir.Enum { return e.Names.Enum(key) }

// enumName is the Go name of an enum key ("AccessFlags").
func (e *Emitter) enumName(key string) string {
	_, n, _ := e.Names.Type(key)
	return n
}

// isString reports a const char * parameter.
func isString(t ir.Type) bool {
	return t.Kind == ir.Pointer && t.Elem != nil && t.Elem.Kind == ir.Int && t.Elem.Char && t.Elem.Const
}

// isOutPtr reports a pointer through which a function can return a value:
// to a pointer (T **, void **), or a non-const pointer to a scalar.
func isOutPtr(t ir.Type) bool {
	if t.Kind != ir.Pointer || t.Elem == nil || t.Elem.Const {
		return false
	}
	switch t.Elem.Kind {
	case ir.Pointer:
		return t.Elem.Elem != nil && (t.Elem.Elem.Kind == ir.Record || t.Elem.Elem.Kind == ir.Void)
	case ir.Int, ir.EnumRef, ir.Bool:
		return !t.Elem.Char
	}
	return false
}

// owns reports a pointer to a record of the package itself; a package
// function's first parameter of another package's record
// (efadv_query_device(struct ibv_context *, ...)) is the object a query
// asks, not a result.
func (e *Emitter) owns(t ir.Type) bool {
	_, ok := e.Names.Types[t.Elem.Ref]
	return ok
}

// created reports a record some function of the package returns a pointer
// to: an object the caller passes (mlx5dv_devx_obj_query_async's cmd_comp,
// made by mlx5dv_devx_create_cmd_comp), not a record a query fills.
func (e *Emitter) created(key string) bool {
	for _, f := range e.Pkg.Funcs {
		if f.Ret.Kind == ir.Pointer && f.Ret.Elem != nil && f.Ret.Elem.Kind == ir.Record && f.Ret.Elem.Ref == key {
			return true
		}
	}
	return false
}

// recordPtr reports a non-const pointer to a record.
func recordPtr(t ir.Type) bool {
	return t.Kind == ir.Pointer && t.Elem != nil && t.Elem.Kind == ir.Record && !t.Elem.Const
}

// inOutReceiver reports a first parameter T ** of a package record that a
// releasing function takes by address (rpma_conn_delete(&conn)).
func (e *Emitter) inOutReceiver(sf *spec.Function, fn *ir.Func) (string, bool) {
	if len(fn.Params) == 0 {
		return "", false
	}
	t := fn.Params[0].Type
	if t.Kind != ir.Pointer || t.Elem.Kind != ir.Pointer || t.Elem.Elem == nil || t.Elem.Elem.Kind != ir.Record {
		return "", false
	}
	g, ok := e.Names.Types[t.Elem.Elem.Ref]
	if !ok {
		return "", false
	}
	if releaseRe.MatchString(fn.Name) {
		return g, true
	}
	for _, p := range sf.Params {
		if p.Name == fn.Params[0].Name && p.Shape == "inout" {
			return g, true
		}
	}
	return "", false
}

// shape infers the Go shape of a's parameters from the header types, the
// parameter names and the page (spec Params decide first).
func (e *Emitter) shape(a apiFunc, vals, tags map[string]string, consts map[string]bool) (fshape, error) {
	fn, sf := a.fn, a.sf
	sh := fshape{params: make([]pshape, len(fn.Params))}
	over := map[string]spec.Param{}
	for _, p := range sf.Params {
		over[p.Name] = p
	}
	names := make([]string, len(fn.Params))
	for i, p := range fn.Params {
		names[i] = p.Name
	}
	for name := range over {
		found := false
		for _, n := range names {
			found = found || n == name
		}
		if !found {
			return sh, fmt.Errorf("spec params: %s has no parameter %s", fn.Name, name)
		}
	}
	us := units(sf.Doc)
	recv := a.recv != ""
	taken := map[int]bool{}
	if recv {
		taken[0] = true
		if a.inOut {
			sh.params[0] = pshape{kind: shRecvInOut, why: "the receiver, passed by address: " + fn.Params[0].Type.C}
		}
	}
	// Curated shapes.
	for i, p := range fn.Params {
		o, ok := over[p.Name]
		if !ok || taken[i] {
			continue
		}
		w := strings.Fields(o.Shape)
		why := "spec: " + o.Reason
		switch w[0] {
		case "keep", "in", "inout":
			sh.params[i] = pshape{kind: shPlain, why: why}
		case "int":
			sh.params[i] = pshape{kind: shInt, why: why}
		case "bool":
			sh.params[i] = pshape{kind: shBool, why: why}
		case "out":
			sh.params[i] = pshape{kind: shOut, why: why}
		case "enum":
			key := tags[w[1]]
			if key == "" {
				return sh, fmt.Errorf("spec params: %s %s: no enum %s", fn.Name, p.Name, w[1])
			}
			if p.Type.Kind == ir.Pointer {
				sh.params[i] = pshape{kind: shOut, out: shEnum, enum: key, why: why}
			} else {
				sh.params[i] = pshape{kind: shEnum, enum: key, why: why}
			}
		case "bytes", "slice":
			j := indexOf(names, w[1])
			if j < 0 {
				return sh, fmt.Errorf("spec params: %s %s: no parameter %s", fn.Name, p.Name, w[1])
			}
			k := shBytes
			if w[0] == "slice" {
				k = shSlice
			}
			inBytes := k == shSlice && len(w) > 2 && w[2] == "bytes"
			if k == shSlice && (p.Type.Kind != ir.Pointer && p.Type.Kind != ir.Array || p.Type.Elem == nil || p.Type.Elem.Kind == ir.Void) {
				return sh, fmt.Errorf("spec params: %s %s: a slice of %s", fn.Name, p.Name, p.Type.C)
			}
			sh.params[i] = pshape{kind: k, peer: j, bytes: inBytes, why: why}
			sh.params[j] = pshape{kind: shLen, peer: i, bytes: inBytes, why: why}
			taken[j] = true
		}
		taken[i] = true
	}
	// Memory and arrays with their lengths.
	for i, p := range fn.Params {
		t := p.Type
		if taken[i] || t.Kind != ir.Pointer || t.Elem == nil || t.Elem.Kind == ir.FuncPtr || t.Elem.Kind == ir.Pointer || t.Elem.Char {
			continue
		}
		for _, j := range []int{i + 1, i - 1} {
			if j < i && t.Elem.Kind == ir.Void && !strings.HasPrefix(fn.Params[j].Name, p.Name+"_") {
				continue // memory comes before its length, unless the length is named after it (data_sz, data)
			}
			if j < 0 || j >= len(fn.Params) || taken[j] || fn.Params[j].Type.Kind != ir.Int {
				continue
			}
			n := fn.Params[j].Name
			switch {
			case t.Elem.Kind == ir.Void && lengthName.MatchString(n):
				sh.params[i] = pshape{kind: shBytes, peer: j, why: fmt.Sprintf("memory %s (%s) and its length %s beside it", p.Name, t.C, n)}
			case (t.Elem.Kind == ir.Record || t.Elem.Kind == ir.Int) && arrayCount.MatchString(n):
				sh.params[i] = pshape{kind: shSlice, peer: j, why: fmt.Sprintf("an array %s (%s) and its count %s beside it", p.Name, t.C, n)}
			default:
				continue
			}
			sh.params[j] = pshape{kind: shLen, peer: i, why: sh.params[i].why}
			taken[i], taken[j] = true, true
			break
		}
	}
	// The size of the record before it (efadv_query_device(ctx, attr,
	// inlen)): the caller's sizeof, which lets an older or newer provider
	// tell the layout the caller was built with.
	for i, p := range fn.Params {
		if taken[i] || i == 0 || p.Type.Kind != ir.Int || !sizeofName.MatchString(p.Name) {
			continue
		}
		if t := fn.Params[i-1].Type; t.Kind == ir.Pointer && t.Elem != nil && t.Elem.Kind == ir.Record && t.Elem.Size > 0 {
			sh.params[i] = pshape{kind: shSizeof, peer: i - 1, why: fmt.Sprintf("the size of the record %s points to (%s), after it", fn.Params[i-1].Name, t.C)}
			taken[i] = true
		}
	}
	for i := range sh.params {
		if sh.params[i].kind == shBytes {
			sh.params[i].retained = strings.Contains(a.name, "Reg") || strings.Contains(sf.Name, "_reg")
		}
	}
	// Strings, results, the rest.
	for i, p := range fn.Params {
		if taken[i] {
			continue
		}
		t := p.Type
		switch {
		case isString(t):
			sh.params[i] = pshape{kind: shString, why: "a C string (" + t.C + ")"}
		case isOutPtr(t):
			ps := pshape{kind: shOut, why: "the function returns a value through it (" + t.C + ")"}
			if t.Elem.Kind == ir.Int {
				k, enum, why := e.intShape(sf, fn, i, *t.Elem, us, vals, tags, consts, true)
				ps.out, ps.enum = k, enum
				if k != shPlain {
					ps.why += "; " + why
				}
			}
			if t.Elem.Kind == ir.EnumRef {
				ps.out = shPlain
			}
			sh.params[i] = ps
		case recordPtr(t) && queryName.MatchString(a.name) && (i > 0 || recv || e.owns(t)) && !e.created(t.Elem.Ref):
			sh.params[i] = pshape{kind: shOut, why: "a query (" + a.name + ") fills the record it points to (" + t.C + ")"}
		case t.Kind == ir.Int && !t.Char && t.Size >= 4:
			k, enum, why := e.intShape(sf, fn, i, t, us, vals, tags, consts, a.hasErr)
			sh.params[i] = pshape{kind: k, enum: enum, why: why}
		}
	}
	// A C array result with its count and its release function.
	if fn.Ret.Kind == ir.Pointer && fn.Ret.Elem.Kind == ir.Pointer && fn.Ret.Elem.Elem != nil && fn.Ret.Elem.Elem.Kind == ir.Record {
		free := e.irFunc(strings.Replace(fn.Name, "_get_", "_free_", 1))
		if free != nil && free != fn && len(fn.Params) == 1 && sh.params[0].kind == shOut {
			sh.free = free
			sh.params[0].why = "the count of the array the function returns"
		}
	}
	// A value result named after an enum (ibv_wc_read_wc_flags -> WCFlags).
	if (sf.Convention == spec.Value || sf.Convention == spec.Undocumented) && fn.Ret.Kind == ir.Int && !fn.Ret.Char {
		for _, en := range e.Pkg.Enums {
			g := e.enumName(en.Key)
			if en.Tag != "" && g != "" && en.Size <= fn.Ret.Size && strings.HasSuffix(a.name, g) && len(naming.GoWords(g)) > 1 {
				sh.ret = pshape{kind: shEnum, enum: en.Key, why: "the function's name ends in the enum's (" + en.Tag + ")"}
			}
		}
	}
	return sh, nil
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// intShape decides a C integer parameter (or the value behind an out
// pointer): an enum the page names for it, a boolean, an int, or the
// integer itself with the reason. checked says whether the binding can
// report an out-of-range value (it has an error result).
func (e *Emitter) intShape(sf *spec.Function, fn *ir.Func, i int, t ir.Type, us []unit, vals, tags map[string]string, consts map[string]bool, checked bool) (shapeKind, string, string) {
	p := fn.Params[i]
	var params []string
	for _, q := range fn.Params {
		params = append(params, q.Name)
	}
	ws := windows(us, p.Name, params)
	// Wire values by their names, whatever the text around them names
	// (mlx5dv_wr_memcpy's dest_addr beside IBV_SEND_FENCE).
	switch n := p.Name; {
	case keyName.MatchString(n):
		return shPlain, "", "a memory or queue key: a bit-exact wire value"
	case qpnName.MatchString(n):
		return shPlain, "", "a QP or SRQ number: a 24-bit wire value"
	case addrName.MatchString(n) && t.Size == 8:
		return shPlain, "", "an address: a bit-exact 64-bit value"
	}
	// An enum the page names in the text about the parameter.
	type cand struct {
		hits   int
		strong bool
		ev     string
	}
	cands := map[string]*cand{}
	var macros []string
	for _, w := range ws {
		if !valuesRe.MatchString(strings.Join(w.text, " ")) {
			continue
		}
		for _, s := range w.text {
			for _, tok := range cIdentRe.FindAllString(s, -1) {
				key := vals[tok]
				if key == "" {
					key = tags[tok]
				}
				if key == "" {
					if consts[tok] && !strings.HasPrefix(tok, "E") {
						macros = append(macros, tok)
					}
					continue
				}
				en := e.enumOf(key)
				if en == nil || en.Size > t.Size || (fn.Ret.Kind == ir.EnumRef && fn.Ret.Ref == key) {
					continue
				}
				c := cands[key]
				if c == nil {
					c = &cand{ev: fmt.Sprintf("the page names %s for %s: %q", tok, p.Name, clip(strings.Join(w.text, " ")))}
					cands[key] = c
				}
				c.hits++
				c.strong = c.strong || w.strong
			}
		}
	}
	var keys []string
	strong := false
	for k, c := range cands {
		keys = append(keys, k)
		strong = strong || c.strong
	}
	if strong {
		keys = keys[:0]
		for k, c := range cands {
			if c.strong {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	if len(keys) > 1 {
		sort.SliceStable(keys, func(a, b int) bool { return cands[keys[a]].hits > cands[keys[b]].hits })
		if cands[keys[0]].hits == cands[keys[1]].hits {
			return shPlain, "", "undecided: the page names values of several enums for it (" + strings.Join(keys, ", ") + "): needs a spec override"
		}
	}
	if len(keys) > 0 {
		return shEnum, keys[0], cands[keys[0]].ev
	}
	// A boolean: the page says what zero and non-zero mean.
	for _, w := range ws {
		text := strings.Join(w.text, " ")
		if zeroRe.MatchString(text) && nonZeroRe.MatchString(text) {
			return shBool, "", fmt.Sprintf("the page says what zero and non-zero %s mean: %q", p.Name, clip(text))
		}
	}
	if strings.HasPrefix(p.Name, "is_") {
		return shBool, "", "a flag by its name (is_...)"
	}
	n := p.Name
	kept := func(why string) (shapeKind, string, string) { return shPlain, "", why }
	switch {
	case len(macros) > 0:
		return kept(fmt.Sprintf("its values are the constants %s (macros or an anonymous enum: constants of type %s here, no enum type)", strings.Join(dedup(macros), ", "), goInt(t)))
	case keyName.MatchString(n):
		return kept("a memory or queue key: a bit-exact wire value")
	case qpnName.MatchString(n):
		return kept("a QP or SRQ number: a 24-bit wire value")
	case strings.HasSuffix(n, "_handle"):
		return kept("a kernel object handle")
	case strings.HasPrefix(n, "imm") || strings.HasPrefix(t.C, "__be"):
		return kept("immediate data: 32 bits sent as they are, in network byte order")
	case n == "port_num" && t.Size > 1:
		return shPort, "", "a port number: uint8 as in the other verbs (the C type is wider)"
	case strings.HasSuffix(n, "_ms") && t.Signed && t.Size == 4:
		if !checked {
			return kept("milliseconds, but the function has no error result to report a value C cannot hold")
		}
		return shDuration, "", "milliseconds by its name (" + n + ")"
	case n == "fd" || strings.HasSuffix(n, "_fd"):
		if !checked {
			return kept("a file descriptor, but the function has no error result to report a value C cannot hold")
		}
		return shInt, "", "a file descriptor: int, as in packages os and unix"
	case countName.MatchString(n):
		if !checked && t.Size < 8 {
			return kept("a count or index, but the function has no error result to report a value C cannot hold")
		}
		if t.Size == 8 && !t.Signed {
			return kept("a size_t count: uint64 as C has it")
		}
		return shInt, "", "a count or index by its name (" + n + ")"
	case n == "flags" || strings.HasSuffix(n, "_flags"):
		for _, w := range ws {
			if text := strings.Join(w.text, " "); mustZero.MatchString(text) {
				return kept("reserved: the page says it must be 0, and no flag is defined: " + strconvQuote(clip(text)))
			}
		}
		return kept("undecided: flags, but the page names no enum or constants for them: needs a spec override")
	}
	return kept("undecided: no rule decides (" + n + "): needs a spec override")
}

func goInt(t ir.Type) string {
	s, _ := intName(t.Size, t.Signed)
	return s
}

func dedup(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	if len(out) > 3 {
		out = append(out[:3], "...")
	}
	return out
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:157] + "..."
	}
	return s
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// propagate gives a parameter the enum of the parameter of the same name
// of another binding when this one's page says nothing: one on the same
// page first, then the library's, if all of those agree; or the binding
// the page says it has "the same form as".
func propagate(fs []apiFunc) {
	type ref struct {
		fn  string
		key string
	}
	byName := map[string][]ref{}
	pages := map[string]map[string][]ref{}
	byFn := map[string]apiFunc{}
	for _, a := range fs {
		byFn[a.sf.Name] = a
		for i, p := range a.fn.Params {
			if s := a.shape.params[i]; s.kind == shEnum {
				r := ref{a.sf.Name, s.enum}
				byName[p.Name] = append(byName[p.Name], r)
				if pages[a.sf.Page] == nil {
					pages[a.sf.Page] = map[string][]ref{}
				}
				pages[a.sf.Page][p.Name] = append(pages[a.sf.Page][p.Name], r)
			}
		}
	}
	unanimous := func(rs []ref) (ref, bool) {
		if len(rs) == 0 {
			return ref{}, false
		}
		for _, r := range rs[1:] {
			if r.key != rs[0].key {
				return ref{}, false
			}
		}
		return rs[0], true
	}
	for _, a := range fs {
		us := units(a.sf.Doc)
		for i, p := range a.fn.Params {
			s := &a.shape.params[i]
			if s.kind != shPlain || p.Type.Kind != ir.Int || strings.HasPrefix(s.why, "spec:") || !strings.HasPrefix(s.why, "undecided") {
				continue
			}
			var params []string
			for _, q := range a.fn.Params {
				params = append(params, q.Name)
			}
			for _, w := range windows(us, p.Name, params) {
				if m := sameAsRe.FindStringSubmatch(strings.Join(w.text, " ")); m != nil {
					if b, ok := byFn[m[1]]; ok {
						for j, q := range b.fn.Params {
							if q.Name == p.Name && b.shape.params[j].kind == shEnum {
								*s = pshape{kind: shEnum, enum: b.shape.params[j].enum, why: fmt.Sprintf("the page says %s has the same form as in %s()", p.Name, m[1])}
							}
						}
					}
				}
			}
			if s.kind == shEnum {
				continue
			}
			if r, ok := unanimous(pages[a.sf.Page][p.Name]); ok && a.sf.Page != "" {
				*s = pshape{kind: shEnum, enum: r.key, why: fmt.Sprintf("as %s of %s, on the same page (%s)", p.Name, r.fn, a.sf.Page)}
			} else if r, ok := unanimous(byName[p.Name]); ok {
				*s = pshape{kind: shEnum, enum: r.key, why: fmt.Sprintf("as %s of %s and every other binding of the library with a parameter %s", p.Name, r.fn, p.Name)}
			}
		}
	}
}
