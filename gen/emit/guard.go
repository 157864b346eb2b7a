package emit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
	"github.com/goverbs/goverbs/gen/spec"
)

// DVGuard is the import path of the device guards of the direct-verbs wrappers.
const DVGuard = Module + "/internal/dvguard"

// guardObjects are the records a guarded object may point to: those whose device
// internal/dvguard.DeviceOf finds.
var guardObjects = []string{"struct ibv_device", "struct ibv_context", "struct ibv_pd", "struct ibv_cq", "struct ibv_cq_ex",
	"struct ibv_qp", "struct ibv_qp_ex", "struct ibv_srq", "struct ibv_wq", "struct ibv_mr", "struct ibv_mw", "struct ibv_ah",
	"struct ibv_xrcd", "struct ibv_dm", "struct ibv_comp_cntr"}

// guardFile is spec/guards/<library>.yaml of this package's library, or nil.
func (e *Emitter) guardFile() *spec.GuardFile {
	if e.Spec == nil {
		return nil
	}
	return e.Spec.GuardFile(Libraries[e.Names.Spec.Name])
}

// guardOf is the guard of a binding, or nil.
func (e *Emitter) guardOf(a apiFunc) *spec.Guard {
	if e.guardFile() == nil {
		return nil
	}
	return e.Spec.Guard(a.sf.Name)
}

// guardStmts are the first statements of a guarded binding (spec/guards): the provider's
// check of the device of each object the guard names, returning its *DeviceError before C
// is called. None for a binding without a guard.
func (e *Emitter) guardStmts(a apiFunc, names []string, fail func(jen.Code) jen.Code) ([]jen.Code, error) {
	g := e.guardOf(a)
	if g == nil {
		return nil, nil
	}
	if !a.hasErr {
		return nil, fmt.Errorf("guard: the binding has no error result")
	}
	args := []jen.Code{jen.Lit(a.sf.Name)}
	for _, o := range g.Objects {
		x, err := e.guardPath(a, names, o.Path)
		if err != nil {
			return nil, fmt.Errorf("guard object %s: %w", o.Path, err)
		}
		if o.When != "" {
			c, err := e.guardWhen(a, names, o)
			if err != nil {
				return nil, fmt.Errorf("guard object %s: %w", o.Path, err)
			}
			x = jen.Qual(DVGuard, "When").Call(c, x)
		}
		args = append(args, x)
	}
	return []jen.Code{
		jen.If(jen.Err().Op(":=").Id(providerVar(g)).Dot("Check").Call(args...), jen.Err().Op("!=").Nil()).Block(fail(jen.Err())),
	}, nil
}

// providerVar is the package variable of g's check: dvProvider, the file's, or
// dvProvider<Kind> for a guard with its own (dvProviderListed).
func providerVar(g *spec.Guard) string {
	if g.Provider == nil {
		return "dvProvider"
	}
	k := g.Provider.Kind()
	return "dvProvider" + strings.ToUpper(k[:1]) + k[1:]
}

// guardParam is the index of the C parameter named name.
func guardParam(fn *ir.Func, name string) (int, error) {
	for i, p := range fn.Params {
		if p.Name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s has no parameter %s", fn.Name, name)
}

// guardPath is the Go expression of a parameter or member path ("obj.qp.in" -> o.QP.In),
// which must end at a pointer to a verbs object (guardObjects).
func (e *Emitter) guardPath(a apiFunc, names []string, path string) (jen.Code, error) {
	segs := strings.Split(path, ".")
	i, err := guardParam(a.fn, segs[0])
	if err != nil {
		return nil, err
	}
	if k := a.shape.params[i].kind; k != shPlain && !(i == 0 && a.recv != "") {
		return nil, fmt.Errorf("parameter %s is not passed as it is (shape %d)", segs[0], k)
	}
	x := jen.Id(names[i])
	t := a.fn.Params[i].Type
	for _, m := range segs[1:] {
		rec := t
		if rec.Kind == ir.Pointer && rec.Elem != nil {
			rec = *rec.Elem
		}
		s := e.Pkg.Struct(rec.Ref)
		if rec.Kind != ir.Record || s == nil || s.Union || s.Foreign {
			return nil, fmt.Errorf("%s: member %s of %s, which is no struct of this package", path, m, t.C)
		}
		i := slices.IndexFunc(s.Fields, func(f *ir.Field) bool { return f.Name == m })
		if i < 0 {
			return nil, fmt.Errorf("%s: %s has no member %s", path, s.Key, m)
		}
		x = jen.Add(x).Dot(naming.Camel(m))
		t = s.Fields[i].Type
	}
	if t.Kind != ir.Pointer || t.Elem == nil || t.Elem.Kind != ir.Record || !slices.Contains(guardObjects, t.Elem.Ref) {
		return nil, fmt.Errorf("%s is a %s, not a pointer to a verbs object (%s)", path, t.C, strings.Join(guardObjects, ", "))
	}
	return x, nil
}

// guardWhen is the Go condition of o.When ("obj_type & MLX4DV_OBJ_QP" ->
// uint64(objType)&uint64(ObjTypeQP) != 0).
func (e *Emitter) guardWhen(a apiFunc, names []string, o spec.GuardObject) (jen.Code, error) {
	p, c := o.WhenParts()
	i, err := guardParam(a.fn, p)
	if err != nil {
		return nil, err
	}
	if k := a.fn.Params[i].Type.Kind; k != ir.Int && k != ir.EnumRef {
		return nil, fmt.Errorf("when: %s is not an integer", p)
	}
	path, g, ok := e.Names.val(c)
	if !ok {
		return nil, fmt.Errorf("when: no constant %s", c)
	}
	return jen.Uint64().Call(jen.Id(names[i])).Op("&").Uint64().Call(qual(path, g)).Op("!=").Lit(0), nil
}

// val resolves an enumerator or macro of this package or a dependency to (import path,
// Go name); the path is empty for local ones.
func (n *Names) val(c string) (path, name string, ok bool) {
	if g, ok := n.Vals[c]; ok {
		return "", g, true
	}
	for _, d := range n.deps {
		if _, g, ok := d.val(c); ok {
			return d.Path, g, true
		}
	}
	return "", "", false
}

// guardProvider emits dvProvider, the package's internal/dvguard.Provider, when a binding
// is guarded, and the providers of guards with their own check (one per kind: a
// dvProviderListed); every guard of the library's file must belong to a binding emitted here.
func (e *Emitter) guardProvider(f *jen.File, fs []apiFunc, links map[string]string) error {
	gf := e.guardFile()
	if gf == nil {
		return nil
	}
	bound := map[string]bool{}
	for _, a := range fs {
		bound[a.sf.Name] = true
	}
	own := map[string]spec.GuardProvider{}
	var kinds []string
	for _, g := range gf.Guards {
		if !bound[g.Function] {
			return fmt.Errorf("spec/guards/%s.yaml guards %s, which has no binding here", gf.Library, g.Function)
		}
		if g.Provider == nil {
			continue
		}
		v := providerVar(&g)
		if p, ok := own[v]; ok && p != *g.Provider {
			return fmt.Errorf("spec/guards/%s.yaml: %s checks another %s provider than an earlier guard (one per kind)", gf.Library, g.Function, g.Provider.Kind())
		} else if !ok {
			kinds = append(kinds, v)
		}
		own[v] = *g.Provider
	}
	if err := e.emitProvider(f, "dvProvider", gf.Library, gf.Provider, links, "the guarded functions of this package"); err != nil {
		return err
	}
	for _, v := range kinds {
		if err := e.emitProvider(f, v, gf.Library, own[v], links, "the guarded functions of this package with their own check"); err != nil {
			return err
		}
	}
	return nil
}

// emitProvider emits the internal/dvguard.Provider p of library lib as the variable name.
func (e *Emitter) emitProvider(f *jen.File, name, lib string, p spec.GuardProvider, links map[string]string, whose string) error {
	who := p.Who(lib)
	fields := jen.Dict{jen.Id("Name"): jen.Lit(who)}
	var doc string
	switch p.Kind() {
	case "supported":
		g := links[p.Supported]
		if g == "" || strings.Contains(g, ".") {
			return fmt.Errorf("guard provider: %s has no package-level binding here", p.Supported)
		}
		fields[jen.Id("Supported")] = jen.Id(g)
		fields[jen.Id("SupportedName")] = jen.Lit(p.Supported)
		doc = fmt.Sprintf("%s is how %s tell %s's devices: %s, the library's own check ([%s]).", name, whose, who, p.Supported, g)
	case "listed":
		fields[jen.Id("Listed")] = jen.Lit(p.Listed)
		doc = fmt.Sprintf("%s is how %s tell %s's devices: devices no kernel driver has, which %s lists (they have no name; every kernel device has one).", name, whose, who, p.Listed)
	default:
		path, g, ok := e.Names.val(p.Driver)
		if !ok {
			return fmt.Errorf("guard provider: no constant %s", p.Driver)
		}
		fields[jen.Id("Driver")] = qual(path, g)
		doc = fmt.Sprintf("%s is how %s tell %s's devices: by the kernel's driver id of the device, %s, which the kernel reports over RDMA netlink.", name, whose, who, p.Driver)
	}
	f.Comment(doc)
	f.Var().Id(name).Op("=").Op("&").Qual(DVGuard, "Provider").Values(fields)
	f.Line()
	return nil
}

// guardDoc is the "Guarded:" paragraph of a guarded binding's doc comment: what the C
// function does unchecked, the evidence, and what the wrapper checks instead.
func (e *Emitter) guardDoc(a apiFunc, links map[string]string) string {
	g := e.guardOf(a)
	if g == nil {
		return ""
	}
	gf := e.guardFile()
	var ev []string
	for _, x := range g.Evidence {
		ev = append(ev, "probe "+x.Probe+" "+x.Text())
	}
	var objs []string
	for _, o := range g.Objects {
		s := o.Path
		if o.When != "" {
			_, c := o.WhenParts()
			s += " (when " + strings.SplitN(o.When, " ", 2)[0] + " has " + c + ")"
		}
		objs = append(objs, s)
	}
	p := gf.ProviderOf(g)
	return fmt.Sprintf("Guarded: %s %s (doccheck on rxe: %s). This wrapper first checks that %s (%s) and otherwise returns a *[DeviceError] naming the function and the device (unix.EOPNOTSUPP), without calling it.",
		a.sf.Name, linkify(strings.Join(strings.Fields(g.Why), " "), links), strings.Join(ev, "; "),
		"the device of "+strings.Join(objs, ", ")+" is "+p.Who(gf.Library)+"'s", p.How())
}
