package extract

import "modernc.org/cc/v4"

// anonEnums registers the enums declared at file scope of owned headers
// that the scope does not bind by tag: `enum { IBV_SYSFS_NAME_MAX = 64 };`.
func (x *extractor) anonEnums() {
	for tu := x.p.AST.TranslationUnit; tu != nil; tu = tu.TranslationUnit {
		ed := tu.ExternalDeclaration
		if ed == nil || ed.Declaration == nil {
			continue
		}
		for ds := ed.Declaration.DeclarationSpecifiers; ds != nil; ds = ds.DeclarationSpecifiers {
			ts := ds.TypeSpecifier
			if ts == nil || ts.EnumSpecifier == nil || !x.p.Owned(ts.EnumSpecifier.Position().Filename) {
				continue
			}
			if et, ok := ts.EnumSpecifier.Type().(*cc.EnumType); ok {
				x.enum(et)
			}
		}
	}
}
