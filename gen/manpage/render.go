package manpage

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
)

// Mandoc is the mandoc(1) binary Render runs.
var Mandoc = "mandoc"

// Render runs mandoc on the page file at path (plain or gzip-compressed
// roff, man(7) or mdoc(7)) and returns its HTML fragment output.
func Render(path string) ([]byte, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(Mandoc, "-T", "html", "-O", "fragment", path)
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("manpage: render %s: %w (install the packages in tools/host-deps.txt)", path, err)
		}
		return nil, fmt.Errorf("manpage: render %s with %s: %w: %s", path, Mandoc, err, bytes.TrimSpace(errb.Bytes()))
	}
	return out.Bytes(), nil
}
