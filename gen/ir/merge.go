package ir

import "fmt"

// Merge folds older, the same package extracted from older inputs, into p,
// extracted from the newest input: every symbol of p learns which versions
// declare it. Symbols only the older inputs declare are recorded in Skipped,
// since the generated Go follows the newest headers.
func (p *Package) Merge(older *Package) {
	v := older.Versions[0]
	p.Versions = append(p.Versions, v)
	for i := range p.Headers {
		for _, h := range older.Headers {
			if h.Path == p.Headers[i].Path {
				p.Headers[i].In = append(p.Headers[i].In, v)
				p.Headers[i].Since = v
			}
		}
	}
	for _, s := range p.Structs {
		o := older.Struct(s.Key)
		if o == nil {
			continue
		}
		s.In = append(s.In, v)
		if o.SizeIn != nil {
			if sz, ok := o.SizeIn[v]; ok {
				s.SizeIn[v] = sz
			}
		}
		for _, f := range s.Fields {
			for _, of := range o.Fields {
				if of.Name == f.Name && (f.Name != "" || of.Type.Ref == f.Type.Ref) {
					f.In = append(f.In, v)
					if of.Offset != f.Offset {
						if f.OffsetIn == nil {
							f.OffsetIn = map[Version]int64{}
						}
						f.OffsetIn[v] = of.Offset
					}
					if of.Type.Size != f.Type.Size {
						if f.SizeIn == nil {
							f.SizeIn = map[Version]int64{}
						}
						f.SizeIn[v] = of.Type.Size
					}
					break
				}
			}
		}
	}
	for _, e := range p.Enums {
		o := older.Enum(e.Key)
		if o == nil {
			continue
		}
		e.In = append(e.In, v)
		for _, ev := range e.Values {
			for _, ov := range o.Values {
				if ov.Name == ev.Name {
					ev.In = append(ev.In, v)
				}
			}
		}
	}
	consts := map[string]bool{}
	for _, c := range older.Consts {
		consts[c.Name] = true
	}
	for _, c := range p.Consts {
		if consts[c.Name] {
			c.In = append(c.In, v)
		}
	}
	funcs := map[string]bool{}
	for _, f := range older.Funcs {
		funcs[f.Name] = true
	}
	for _, f := range p.Funcs {
		if funcs[f.Name] {
			f.In = append(f.In, v)
		}
	}
	macros := map[string]bool{}
	for _, m := range older.Macros {
		macros[m.Name] = true
	}
	for _, m := range p.Macros {
		if macros[m.Name] {
			m.In = append(m.In, v)
		}
	}
	p.removed(older, v)
}

// removed records what only the older package declares.
func (p *Package) removed(older *Package, v Version) {
	why := fmt.Sprintf("declared by rdma-core %s but not by the newest input", v)
	for _, s := range older.Structs {
		if p.Struct(s.Key) == nil {
			p.Skipped = append(p.Skipped, Skip{Name: s.Key, Reason: why})
		}
	}
	for _, f := range older.Funcs {
		if p.Func(f.Name) == nil {
			p.Skipped = append(p.Skipped, Skip{Name: f.Name, Reason: why})
		}
	}
}

// Func returns the function named name, or nil.
func (p *Package) Func(name string) *Func {
	for _, f := range p.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}
