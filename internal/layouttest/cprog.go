package layouttest

import (
	"fmt"
	"strings"
)

// Program is the C source printing the C side of tb for version v: one line
// per record ("R name size align"), member ("F record member offset size")
// and constant ("C name value").
func Program(tb *Table, v string) string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stddef.h>\n")
	for _, h := range tb.Headers {
		if has(h.In, v) {
			fmt.Fprintf(&b, "#include <%s>\n", h.Path)
		}
	}
	b.WriteString("\nint main(void)\n{\n")
	for _, r := range tb.Records {
		if !has(r.In, v) {
			continue
		}
		fmt.Fprintf(&b, "\tprintf(\"R %%s %%zu %%zu\\n\", %q, sizeof(%s), _Alignof(%s));\n", r.C, r.C, r.C)
		for _, f := range r.Fields {
			if !has(f.In, v) {
				continue
			}
			if f.Flex {
				fmt.Fprintf(&b, "\tprintf(\"F %%s %%s %%zu 0\\n\", %q, %q, offsetof(%s, %s));\n", r.C, f.C, r.C, f.C)
				continue
			}
			fmt.Fprintf(&b, "\tprintf(\"F %%s %%s %%zu %%zu\\n\", %q, %q, offsetof(%s, %s), sizeof(((%s *)0)->%s));\n",
				r.C, f.C, r.C, f.C, r.C, f.C)
		}
	}
	for _, c := range tb.Consts {
		if has(c.In, v) {
			fmt.Fprintf(&b, "\tprintf(\"C %%s %%llu\\n\", %q, (unsigned long long)(%s));\n", c.C, c.C)
		}
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.String()
}
