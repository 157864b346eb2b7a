package emit

import (
	"fmt"
	"os"
	"strings"

	"github.com/goverbs/goverbs/gen/yamlfile"
)

// Measured is what doccheck measured on rxe where it differs from a page
// (tools/doccheck/known.yaml, reported in docs/contracts.md): the binding's
// doc carries it.
type Measured struct {
	Function string `yaml:"function"`
	Case     string `yaml:"case"`
	Root     string `yaml:"root"`
	Release  string `yaml:"release"` // one rdma-core release ("33"), where not both roots
	Verdict  string `yaml:"verdict"`
	Note     string `yaml:"note"`
}

// LoadMeasured reads the known mismatches of doccheck; a missing file holds
// none.
func LoadMeasured(path string) ([]Measured, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ms []Measured
	if _, err := yamlfile.Decode(path, raw, &ms); err != nil {
		return nil, err
	}
	return ms, nil
}

// measuredDoc is the "Measured on rxe" text of function fn.
func (e *Emitter) measuredDoc(fn string) string {
	var parts []string
	for _, m := range e.Measured {
		if m.Function != fn {
			continue
		}
		where := "rdma-core 44 and 65"
		switch m.Root {
		case "host":
			where = "rdma-core 44"
		case "sid":
			where = "rdma-core 65"
		}
		if m.Release != "" {
			where = "rdma-core " + m.Release
		}
		parts = append(parts, fmt.Sprintf("Probe %q on %s (%s): %s", m.Case, where, m.Verdict, strings.Join(strings.Fields(m.Note), " ")))
	}
	return strings.Join(parts, "\n\n")
}
