// Command releasedates writes spec/since/<library>.yaml: the rdma-core release that
// introduced each exported symbol, static inline function, struct member and enumerator,
// for every release from the oldest supported one on. It reads the facts from a git clone
// of rdma-core (its release tags vN.0): each library's version map
// (libibverbs/libibverbs.map.in, librdmacm/librdmacm.map, providers/*/lib*.map) and its
// public headers. Nothing of rdma-core is copied: the output is
// names and release numbers. A symbol or member the newest tag lacks dates from the
// release after it, the newest pinned input (gen/generate.TestSince checks every entry
// against the pinned inputs).
//
//	go run ./tools/releasedates -repo ../rdma-core [-from 33] [-to 64] [-out spec/since]
//
// It is run by hand when the pinned inputs move to a new rdma-core release
// (docs/updating.md); CI checks its output, it does not run it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// libraries are the spec libraries dated here: their version map and the structs whose
// members the bindings call through (lib-owned, extended by appending members, with no
// size field of their own to check, unlike struct verbs_context).
var libraries = []struct {
	name, mapFile string
	headers       []string // whose struct members and enumerators are dated too
}{
	{"libibverbs", "libibverbs/libibverbs.map.in", []string{"libibverbs/verbs.h", "libibverbs/verbs_api.h", "kernel-headers/rdma/ib_user_ioctl_verbs.h"}},
	{"librdmacm", "librdmacm/librdmacm.map", []string{"librdmacm/rdma_cma.h", "librdmacm/rdma_verbs.h"}},
	{"ionic", "providers/ionic/libionic.map", []string{"providers/ionic/ionic_dv.h"}},
}

func main() {
	repo := flag.String("repo", "", "a git clone of rdma-core (required)")
	from := flag.Int("from", 33, "the oldest supported release")
	to := flag.Int("to", 64, "the newest release tag to read (vN.0)")
	out := flag.String("out", "spec/since", "the directory to write")
	flag.Parse()
	if *repo == "" {
		flag.Usage()
		os.Exit(2)
	}
	for _, l := range libraries {
		syms := map[string]int{}
		members := map[string]int{}
		for v := *from; v <= *to; v++ {
			tag := fmt.Sprintf("v%d.0", v)
			var public strings.Builder // the release's public headers
			for _, hdr := range l.headers {
				if h, ok := show(*repo, tag, hdr); ok {
					public.WriteString(h)
				}
			}
			if m, ok := show(*repo, tag, l.mapFile); ok {
				for _, s := range mapSymbols(m, public.String()) {
					if _, seen := syms[s]; !seen {
						syms[s] = v
					}
				}
			}
			for _, hdr := range l.headers {
				h, ok := show(*repo, tag, hdr)
				if !ok {
					continue // the header is newer than this release
				}
				for _, key := range declared(h) {
					if _, seen := members[key]; !seen {
						members[key] = v
					}
				}
				// Static inline functions have no symbol: the header dates them.
				for _, fn := range inlines(h) {
					if _, seen := syms[fn]; !seen {
						syms[fn] = v
					}
				}
			}
		}
		if err := write(filepath.Join(*out, l.name+".yaml"), l.name, *from, *to, syms, members); err != nil {
			fail("%v", err)
		}
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "releasedates: "+format+"\n", args...)
	os.Exit(1)
}

// show is `git show tag:path`; false when the tag lacks the file.
func show(repo, tag, path string) (string, bool) {
	cmd := exec.Command("git", "-C", repo, "show", tag+":"+path)
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return "", false
	}
	return out.String(), true
}

var (
	comment  = regexp.MustCompile(`(?s)/\*.*?\*/`)
	node     = regexp.MustCompile(`(?s)([\w@]+)\s*\{(.*?)\}`)
	scope    = regexp.MustCompile(`\b(global|local)\s*:`)
	mapEntry = regexp.MustCompile(`([A-Za-z_]\w*)\s*;`)
)

// mapSymbols are the public symbols of a linker version map: those of the public
// nodes, and those of the private nodes (IBVERBS_PRIVATE_*, which providers link to)
// that the public headers declare (ibv_wr_opcode_str).
func mapSymbols(m, headers string) []string {
	m = comment.ReplaceAllString(m, "")
	var out []string
	for _, n := range node.FindAllStringSubmatch(m, -1) {
		private := strings.Contains(n[1], "PRIVATE")
		for _, e := range mapEntry.FindAllStringSubmatch(scope.ReplaceAllString(n[2], ""), -1) {
			if private && !regexp.MustCompile(`\b`+e[1]+`\s*\(`).MatchString(headers) {
				continue
			}
			out = append(out, e[1])
		}
	}
	return out
}

var (
	funcPtr   = regexp.MustCompile(`\(\s*\*\s*(\w+)\s*\)`)
	lastName  = regexp.MustCompile(`(\w+)\s*(\[[^\]]*\])?\s*(:\s*\d+\s*)?$`)
	structDef = regexp.MustCompile(`(?s)(?m)^struct (\w+)\s*\{(.*?)\n\};`)
	enumDef   = regexp.MustCompile(`(?s)(?m)^enum (\w+)\s*\{(.*?)\n\};`)
	enumerant = regexp.MustCompile(`(?m)^\s*([A-Z_][A-Z0-9_]*)\s*(=|,|$)`)
	cppLine   = regexp.MustCompile(`(?m)^\s*#.*$`)
)

// declared are the struct members ("ibv_qp_ex.wr_flush", members of nested anonymous
// records counted as the struct's) and enumerators ("IBV_WR_FLUSH") header h declares.
func declared(h string) []string {
	h = comment.ReplaceAllString(h, "")
	var out []string
	for _, m := range structDef.FindAllStringSubmatch(h, -1) {
		for _, f := range members(m[2]) {
			out = append(out, m[1]+"."+f)
		}
	}
	for _, m := range enumDef.FindAllStringSubmatch(h, -1) {
		for _, e := range enumerant.FindAllStringSubmatch(cppLine.ReplaceAllString(m[2], ""), -1) {
			out = append(out, e[1])
		}
	}
	return out
}

var inlineDef = regexp.MustCompile(`(?m)^static inline\b[^(;{]*?\b(\w+)\s*\(`)

// inlines are the static inline functions header h defines.
func inlines(h string) []string {
	var out []string
	for _, m := range inlineDef.FindAllStringSubmatch(comment.ReplaceAllString(h, ""), -1) {
		out = append(out, m[1])
	}
	return out
}

// members are the member names in a struct's body.
func members(body string) []string {
	body = cppLine.ReplaceAllString(body, "")
	body = strings.NewReplacer("{", ";", "}", ";").Replace(body)
	var out []string
	for _, stmt := range strings.Split(body, ";") {
		stmt = strings.TrimSpace(stmt)
		if stmt == "" {
			continue
		}
		if fp := funcPtr.FindStringSubmatch(stmt); fp != nil {
			out = append(out, fp[1])
			continue
		}
		if n := lastName.FindStringSubmatch(stmt); n != nil {
			out = append(out, n[1])
		}
	}
	return out
}

// write writes the entries newer than from (the oldest release has everything else).
func write(path, lib string, from, to int, syms, members map[string]int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by go run ./tools/releasedates (from rdma-core's release tags v%d.0 to v%d.0): the\n", from, to)
	fmt.Fprintf(&b, "# rdma-core release that introduced each symbol and struct member newer than rdma-core %d.\n", from)
	fmt.Fprintf(&b, "# Symbols and members the pinned inputs have but v%d.0 lacks are dated %d, the next release.\n", to, to+1)
	fmt.Fprintf(&b, "# Checked against the pinned inputs by gen/generate.TestSince. Do not edit by hand.\n")
	fmt.Fprintf(&b, "library: %s\noldest: %d\nnewest_tag: %d\n", lib, from, to)
	section := func(title string, m map[string]int) {
		var keys []string
		for k, v := range m {
			if v > from {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			if m[keys[i]] != m[keys[j]] {
				return m[keys[i]] < m[keys[j]]
			}
			return keys[i] < keys[j]
		})
		if len(keys) == 0 {
			fmt.Fprintf(&b, "%s: {}\n", title)
			return
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %d\n", k, m[k])
		}
	}
	section("symbols", syms)
	section("declarations", members)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
