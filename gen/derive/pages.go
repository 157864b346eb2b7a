package derive

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/goverbs/goverbs/gen/manpage"
)

// page is one parsed man page file and the functions it covers.
type page struct {
	// Name is the page name with section, "ibv_create_cq.3".
	Name string
	Page *manpage.Page
	// Funcs are the functions the page talks about, in page order: the
	// NAME entries, then SYNOPSIS declarations of known functions, then
	// the names of symlinks to the page. The subject rule works on these.
	Funcs []string
	// NameFuncs are the functions NAME lists.
	NameFuncs []string
	// Synopsis are the known functions SYNOPSIS declares.
	Synopsis []string
	// Declared are the known functions whose prototype appears in the
	// page body (see manpage.Page.Declared).
	Declared []string
}

// pageSet is the pages of one library.
type pageSet struct {
	pages []*page
	// byFile maps a page name ("ibv_create_cq.3") to its page.
	byFile map[string]*page
	// links maps a symlinked page name to the page it points to
	// ("ibv_destroy_cq.3" -> "ibv_create_cq.3").
	links map[string]string
}

// readPages renders and parses every page of dir whose file name starts
// with one of prefixes. known are the header functions of the library,
// used to keep only real functions from SYNOPSIS.
func readPages(dir string, prefixes []string, known map[string]bool) (*pageSet, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("derive: read man pages: %w (run make inputs)", err)
	}
	ps := &pageSet{byFile: map[string]*page{}, links: map[string]string{}}
	var linkNames []string
	var files []pageFile
	for _, e := range ents {
		file := e.Name()
		if !hasAnyPrefix(file, prefixes) || !strings.HasSuffix(file, ".3.gz") && !strings.HasSuffix(file, ".3") {
			continue
		}
		name := strings.TrimSuffix(file, ".gz")
		path := filepath.Join(dir, file)
		if e.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			if err != nil {
				return nil, fmt.Errorf("derive: %w", err)
			}
			ps.links[name] = strings.TrimSuffix(filepath.Base(target), ".gz")
			linkNames = append(linkNames, name)
			continue
		}
		files = append(files, pageFile{name: name, path: path})
	}
	parsed, err := parseAll(files)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		mp, name := parsed[i], f.name
		p := &page{Name: name, Page: mp}
		for _, e := range mp.Names() {
			p.NameFuncs = append(p.NameFuncs, e.Names...)
		}
		for _, c := range mp.SynopsisCalls() {
			if known[c] {
				p.Synopsis = append(p.Synopsis, c)
			}
		}
		for _, c := range mp.Declared() {
			if known[c] {
				p.Declared = append(p.Declared, c)
			}
		}
		p.Funcs = appendNew(p.Funcs, p.NameFuncs...)
		p.Funcs = appendNew(p.Funcs, p.Synopsis...)
		p.Funcs = appendNew(p.Funcs, p.Declared...)
		ps.pages = append(ps.pages, p)
		ps.byFile[name] = p
	}
	sort.Strings(linkNames)
	for _, l := range linkNames {
		if p := ps.byFile[ps.links[l]]; p != nil {
			p.Funcs = appendNew(p.Funcs, strings.TrimSuffix(l, ".3"))
		}
	}
	sort.Slice(ps.pages, func(i, j int) bool { return ps.pages[i].Name < ps.pages[j].Name })
	return ps, nil
}

// pageFor returns the page that documents fn, trying in order: the page
// named after fn, the page a symlink named after fn points to, the first
// page whose NAME lists fn, the first page whose SYNOPSIS declares fn, the
// first page whose body shows fn's prototype.
func (ps *pageSet) pageFor(fn string) *page {
	if p := ps.byFile[fn+".3"]; p != nil {
		return p
	}
	if t, ok := ps.links[fn+".3"]; ok && ps.byFile[t] != nil {
		return ps.byFile[t]
	}
	for _, p := range ps.pages {
		if slices.Contains(p.NameFuncs, fn) {
			return p
		}
	}
	for _, p := range ps.pages {
		if slices.Contains(p.Synopsis, fn) {
			return p
		}
	}
	for _, p := range ps.pages {
		if slices.Contains(p.Declared, fn) {
			return p
		}
	}
	return nil
}

// pageFile is a page to render: its name ("ibv_create_cq.3") and path.
type pageFile struct{ name, path string }

// rendered memoizes mandoc output by path for the life of the process
// (the inputs are pinned; tests derive several times).
var rendered sync.Map // path -> []byte

// parseAll renders (through mandoc, a few at a time) and parses files,
// returning the pages in the order of files.
func parseAll(files []pageFile) ([]*manpage.Page, error) {
	out := make([]*manpage.Page, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var html []byte
			if v, ok := rendered.Load(f.path); ok {
				html = v.([]byte)
			} else {
				b, err := manpage.Render(f.path)
				if err != nil {
					errs[i] = err
					return
				}
				rendered.Store(f.path, b)
				html = b
			}
			mp, err := manpage.Parse(html)
			if err != nil {
				errs[i] = fmt.Errorf("derive: %s: %w", f.path, err)
				return
			}
			out[i] = mp
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func appendNew(dst []string, src ...string) []string {
	for _, s := range src {
		if !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}
