package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// MaxDocs bounds the documents of one file: ten thousand `---` separators
// are no job file.
const MaxDocs = 10000

// Options are what differs between the platforms when parsing.
type Options struct {
	// YAML12 accepts `%YAML 1.2` directives (js-yaml, OpenPAI's parser, read
	// them; yaml.v3 knows only 1.1). The directive is rewritten to 1.1 in a
	// copy, same length, so positions hold.
	YAML12 bool
	// Hint ends the "Invalid YAML" detail (what the platform would have
	// done with the file).
	Hint string
}

// Docs decodes every document of src. A syntax error, a parser failure or
// too many documents end decoding with one located error diagnostic; the
// documents before it are returned too.
func Docs(src []byte, file string, opts Options) ([]*yaml.Node, *hcl.Diagnostic) {
	docs, err := decode(src)
	if err != nil && opts.YAML12 && strings.Contains(err.Error(), "incompatible YAML document") && yaml12Re.Match(src) {
		docs, err = decode(yaml12Re.ReplaceAll(src, []byte("${1}1.1")))
	}
	switch {
	case errors.Is(err, errTooMany):
		return docs, jobs.Errorf(jobs.Pos{File: file, Line: 1, Col: 1}, "Too many YAML documents",
			"The file holds more than %d documents; jobshift reads one job per file.", MaxDocs)
	case err != nil:
		return docs, syntaxError(src, file, err, opts.Hint)
	}
	return docs, nil
}

var (
	yaml12Re   = regexp.MustCompile(`(?m)^(%YAML[ \t]+)1\.2`)
	errTooMany = errors.New("too many documents")
)

func decode(src []byte) (docs []*yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil { // the parser must never take the process down
			err = fmt.Errorf("YAML parser failure: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml.Node
		if e := dec.Decode(&n); errors.Is(e, io.EOF) {
			return docs, nil
		} else if e != nil {
			return docs, e
		}
		if len(docs) >= MaxDocs {
			return docs, errTooMany
		}
		docs = append(docs, &n)
	}
}

var lineRe = regexp.MustCompile(`line (\d+): `)

// syntaxError locates a parser error: the line the parser names, else what
// jobs.YAMLErrorPos finds (bytes that are not UTF-8, an unknown anchor),
// else the file's start. The position is the subject, so the text loses
// its "yaml: line N:" prefix.
func syntaxError(src []byte, file string, err error, hint string) *hcl.Diagnostic {
	if d := jobs.BlockCommentError(src, file); d != nil {
		return d
	}
	msg := err.Error()
	at := jobs.Pos{File: file, Line: 1, Col: 1}
	if m := lineRe.FindStringSubmatch(msg); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil && n > 0 {
			at.Line = n
		}
	} else if l, c, ok := jobs.YAMLErrorPos(src, msg); ok {
		at.Line, at.Col = l, c
	}
	msg = lineRe.ReplaceAllString(strings.TrimPrefix(msg, "yaml: "), "")
	if lines := bytes.Split(src, []byte("\n")); at.Line <= len(lines) && bytes.HasPrefix(bytes.TrimLeft(lines[at.Line-1], " "), []byte("\t")) {
		hint = "The line is indented with a tab; YAML allows only spaces for indentation."
	}
	return jobs.Errorf(at, "Invalid YAML", "%s. %s", msg, hint)
}

// Root is the content of a document node: nil for an empty document (only
// comments, or `---` alone) and for an explicit null.
func Root(doc *yaml.Node) *yaml.Node {
	n := doc
	if n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	if IsNull(n) {
		return nil
	}
	return n
}
