package yamlfile

import (
	"errors"
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Decode decodes data, read from path, into v, rejecting unknown and duplicate fields (go-yaml refuses a duplicate key by default), and
// returns the parsed document for At. Errors start with "path:line:col: " where go-yaml
// knows the position, else with "path: ".
//
// go-yaml can panic on malformed input (a bare tag: "overrides: ! ", found by the fuzzer);
// that becomes an error naming the file.
func Decode(path string, data []byte, v any) (_ *ast.File, err error) {
	data, err = lineBreaks(path, data)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: malformed YAML (the decoder failed: %v)", path, r)
		}
	}()
	if err := yaml.UnmarshalWithOptions(data, v, yaml.Strict()); err != nil {
		return nil, posError(path, err)
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, posError(path, err)
	}
	return file, nil
}

// posError prefixes a go-yaml error with path:line:column.
func posError(path string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil {
		p := ye.GetToken().Position
		return fmt.Errorf("%s:%d:%d: %s", path, p.Line, p.Column, ye.GetMessage())
	}
	return fmt.Errorf("%s: %w", path, err)
}

// At returns "path:line" for the node at the YAML path expr ("$.functions[3].name") in
// file, or "path" when it cannot be found.
func At(path string, file *ast.File, expr string) string {
	p, err := yaml.PathString(expr)
	if err != nil {
		return path
	}
	n, err := p.FilterFile(file)
	if err != nil || n == nil || n.GetToken() == nil {
		return path
	}
	return fmt.Sprintf("%s:%d", path, n.GetToken().Position.Line)
}
