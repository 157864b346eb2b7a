package input

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"modernc.org/cc/v4"
)

// Parsed is one package's headers parsed against one root.
type Parsed struct {
	Root    Root
	Spec    Spec
	Headers []string // the spec's headers that the root ships
	AST     *cc.AST
	sys     []string // the host's system include directories
}

// Source is the translation unit that includes the headers.
func Source(headers []string) string {
	var b strings.Builder
	for _, h := range headers {
		fmt.Fprintf(&b, "#include <%s>\n", h)
	}
	return b.String()
}

// Parse parses spec's headers found in root. Headers the root lacks are left
// out (ionic_dv.h is not in rdma-core 44); no header at all yields a nil AST.
func Parse(root Root, spec Spec) (*Parsed, error) {
	p := &Parsed{Root: root, Spec: spec}
	for _, h := range spec.Headers {
		if root.Has(h) {
			p.Headers = append(p.Headers, h)
		}
	}
	if len(p.Headers) == 0 {
		return p, nil
	}
	cfg, err := cc.NewConfig(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return nil, fmt.Errorf("cc config: %w", err)
	}
	cfg.ABILayout = true
	cfg.EvalAllMacros = true
	cfg.Header = true
	cfg.UnsignedEnums = true
	cfg.SysIncludePaths = append(append([]string(nil), root.Include...), cfg.SysIncludePaths...)
	srcs := []cc.Source{
		{Name: "<predefined>", Value: cfg.Predefined},
		{Name: "<builtin>", Value: cc.Builtin},
		{Name: spec.Name + ".c", Value: Source(p.Headers)},
	}
	ast, err := cc.Translate(cfg, srcs)
	if err != nil {
		return nil, fmt.Errorf("parse %s headers of rdma-core %s: %w", spec.Name, root.Version, err)
	}
	p.AST = ast
	p.sys = cfg.SysIncludePaths[len(root.Include):]
	return p, nil
}

// Rel returns the include path of filename relative to the root's include
// directories, or "" when it lies elsewhere (host headers).
func (p *Parsed) Rel(filename string) string {
	return rel(filename, p.Root.Include)
}

// HostRel returns the include path of a host header (netinet/in.h), or
// its base name when no system include directory holds it.
func (p *Parsed) HostRel(filename string) string {
	if r := rel(filename, p.sys); r != "" {
		return r
	}
	return filepath.Base(filename)
}

func rel(filename string, dirs []string) string {
	best := ""
	for _, d := range dirs {
		d = strings.TrimSuffix(d, "/") + "/"
		if strings.HasPrefix(filename, d) && (best == "" || len(filename)-len(d) < len(best)) {
			best = strings.TrimPrefix(filename, d)
		}
	}
	return best
}

// Owned reports whether filename is one of the spec's owned headers.
func (p *Parsed) Owned(filename string) bool {
	r := p.Rel(filename)
	for _, o := range p.Spec.Owns {
		if r == o {
			return true
		}
	}
	return false
}
