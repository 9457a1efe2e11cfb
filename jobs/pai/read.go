package pai

import (
	"bytes"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// Read reads an OpenPAI job file, v1 JSON or v2 YAML, told apart by
// content: a file whose first meaningful character is '{' or '[' and that parses
// as a JSON object without protocolVersion is v1; anything else is read as
// protocol v2 YAML. It returns the job only when there are no errors; the
// diagnostics carry file:line:col.
func Read(src []byte, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
	if isV1(src) {
		return ReadV1(src, opts)
	}
	return ReadV2(src, opts)
}

var (
	v2Marker = regexp.MustCompile(`(?m)(^|[{,\s])["']?(protocolVersion|protocol_version)["']?\s*:`)
	v1Marker = regexp.MustCompile(`"(jobName|taskRoles)"\s*:`)
)

// isV1 reports whether src is JSON-looking with v1 content: it starts with
// '{' or '[' (after a BOM, blanks and comments) and does not hold
// protocolVersion as a key of its root object.
func isV1(src []byte) bool {
	s := bytes.TrimPrefix(src, []byte("\xEF\xBB\xBF"))
	for {
		s = bytes.TrimLeft(s, " \t\r\n")
		switch {
		case bytes.HasPrefix(s, []byte("//")):
			if i := bytes.IndexByte(s, '\n'); i >= 0 {
				s = s[i:]
				continue
			}
			return false
		case bytes.HasPrefix(s, []byte("/*")):
			if i := bytes.Index(s, []byte("*/")); i >= 0 {
				s = s[i+2:]
				continue
			}
			return false
		}
		break
	}
	if len(s) == 0 || (s[0] != '{' && s[0] != '[') {
		return false
	}
	root, _ := parseJSON(src, "")
	if root == nil {
		// Not parseable as JSON: v1 when it says so, so the user gets the
		// JSON syntax error rather than a YAML one.
		return v1Marker.Match(src) && !v2Marker.Match(src)
	}
	return root.get("protocolVersion") == nil && root.get("protocol_version") == nil
}

// IsPAI reports whether src looks like an OpenPAI job file (v1 JSON with
// jobName/taskRoles, or a YAML document with protocolVersion), for format
// detection by callers that handle several formats.
func IsPAI(src []byte) bool {
	if isV1(src) {
		return v1Marker.Match(src)
	}
	return v2Marker.Match(src)
}
