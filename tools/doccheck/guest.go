//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
)

// GoRaw is what goprobe observed for one probe's Go side (tools/doccheck/goprobe.Result).
type GoRaw struct {
	ID       int      `json:"id"`
	Status   string   `json:"status"`
	Err      string   `json:"err"`
	Is       []string `json:"is"`
	Func     string   `json:"func"`
	Guard    string   `json:"guard"` // the function a direct-verbs guard's *DeviceError names
	Value    int64    `json:"value"`
	HasValue bool     `json:"has_value"`
	LeakUS   int64    `json:"leak_us"` // how long the child's leak check took, in µs
}

// Leftovers are the verbs objects user processes own after every probe of a root (there
// must be none), or why they could not be listed.
type Leftovers struct {
	Objects   []string `json:"objects"`
	ListError string   `json:"list_error"`
	Seen      bool     `json:"-"` // the line was printed
}

// GuestOutput is one root's run: the C harness's lines (no side), goprobe's (side "go") and
// the final "resources" line.
type GuestOutput struct {
	C    map[int]Raw
	Go   map[int]GoRaw
	Left Leftovers
	// Printed are the lines that are not JSON objects: what the libraries print to the
	// harness's stdout themselves (librxe 33's "validate send failed" on a failing post).
	Printed []string
}

// ParseGuestOutput decodes the JSON lines goprobe prints.
func ParseGuestOutput(b []byte) (*GuestOutput, error) {
	out := &GuestOutput{C: map[int]Raw{}, Go: map[int]GoRaw{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("{")) {
			out.Printed = append(out.Printed, string(line))
			continue
		}
		var side struct {
			Side string `json:"side"`
		}
		if err := json.Unmarshal(line, &side); err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		var err error
		switch side.Side {
		case "":
			var r Raw
			err = strictJSON(line, &r, "side")
			out.C[r.ID] = r
		case "go":
			var r GoRaw
			err = strictJSON(line, &r, "side")
			out.Go[r.ID] = r
		case "resources":
			err = strictJSON(line, &out.Left, "side")
			out.Left.Seen = true
		default:
			err = fmt.Errorf("unknown side %q", side.Side)
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
	}
	return out, sc.Err()
}

// strictJSON decodes line into v, refusing fields v does not have (other than skip).
func strictJSON(line []byte, v any, skip string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return err
	}
	delete(m, skip)
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
