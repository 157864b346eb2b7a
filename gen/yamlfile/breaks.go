package yamlfile

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// lineBreaks returns data with every CRLF line break as LF, and refuses a CR that is not
// followed by LF with an error naming its line (counted in LF line breaks) and column.
//
// go-yaml (v1.19) counts the lines after a CRLF that ends a comment twice (it ends the
// comment at the CR, then counts the LF as another line break), so every position it
// reports below such a comment is wrong; with LF breaks only, its positions are right.
// YAML also takes a lone CR for a line break, where editors and grep see one line: a
// position would again disagree with what the reader sees, so such a file is refused.
func lineBreaks(path string, data []byte) ([]byte, error) {
	if !bytes.Contains(data, []byte{'\r'}) {
		return data, nil
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if i := bytes.IndexByte(data, '\r'); i >= 0 {
		line := bytes.Count(data[:i], []byte("\n")) + 1
		col := utf8.RuneCount(data[bytes.LastIndexByte(data[:i], '\n')+1:i]) + 1
		return nil, fmt.Errorf("%s:%d:%d: carriage return without a line feed (use LF or CRLF line breaks; write a CR inside a value as \"\\r\")", path, line, col)
	}
	return data, nil
}
