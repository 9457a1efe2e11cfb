package diag

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Sources gives the text of a file named in a subject (nil when it is not
// available); the text writer quotes the lines a diagnostic points at.
type Sources func(filename string) []byte

// Text writes diags for people, each as
//
//	file:line:col: severity: Summary
//	    Detail, one line per line
//	       12: the source line(s) the subject covers
//	                 ^ (under the column, for a one-line subject)
//
// The first line is the form compilers use, which editors and scripts
// (and jobshift's own tests) parse; the source lines are what HCL's
// NewDiagnosticTextWriter shows, taken from it so that ranges, tabs,
// multi-line subjects and the HCL site config are quoted the way HCL does.
// src may be nil: the files are read from disk. Quoted lines never show a
// secret value or a raw control character (excerpt.go).
func Text(w io.Writer, diags hcl.Diagnostics, src Sources) error {
	var b bytes.Buffer
	files := newFileCache(src)
	for _, d := range diags {
		summary, _ := escapeControl(d.Summary, 1)
		fmt.Fprintf(&b, "%s%s: %s\n", Where(d.Subject), severity(d), summary)
		for _, line := range strings.Split(strings.TrimRight(d.Detail, "\n"), "\n") {
			if line != "" {
				line, _ = escapeControl(line, 1)
				fmt.Fprintf(&b, "    %s\n", line)
			}
		}
		for _, line := range snippet(d.Subject, files) {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func severity(d *hcl.Diagnostic) string {
	if d.Severity == hcl.DiagWarning {
		return "warning"
	}
	return "error"
}

// maxSnippet bounds the quoted lines: a subject spanning a whole block
// would otherwise repeat the file.
const maxSnippet = 3

// snippetLine is a source line as HCL's writer prints it ("%4d: text").
var snippetLine = regexp.MustCompile(`^ *(\d+): `)

// snippet returns the source lines of r as HCL's text writer quotes them,
// or nil when r has no line or the source is not available. HCL's writer
// is given only the quoted lines (it scans the whole file it gets, once
// per diagnostic), and its line numbers are shifted back.
func snippet(r *hcl.Range, files *fileCache) []string {
	f := files.get(r)
	if f == nil {
		return nil
	}
	first := r.Start.Line
	last := min(max(r.End.Line, first), first+maxSnippet-1)
	from, _, ok := f.line(first)
	if !ok {
		return nil // a stale or foreign position: quote nothing rather than the wrong line
	}
	_, to, _ := f.line(last)
	if to < from {
		_, to, _ = f.line(first)
	}
	window := f.text[from:to]
	subject := f.withBytes(*r)
	shift := first - 1
	subject.Start.Line -= shift
	subject.End.Line -= shift
	subject.Start.Byte -= from
	subject.End.Byte = min(max(subject.End.Byte-from, subject.Start.Byte), len(window))
	if subject.End.Line < subject.Start.Line {
		subject.End = subject.Start
	}
	var out bytes.Buffer
	// Summary and detail are written by Text; HCL's writer is asked for the
	// snippet only.
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Subject: &subject}
	file := &hcl.File{Bytes: window}
	if hcl.NewDiagnosticTextWriter(&out, map[string]*hcl.File{r.Filename: file}, 0, false).WriteDiagnostic(d) != nil {
		return nil
	}
	var lines []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, len(window)+64)
	for sc.Scan() {
		m := snippetLine.FindStringSubmatch(sc.Text())
		if m == nil || len(lines) == maxSnippet {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		text := strings.TrimRight(sc.Text()[len(m[0]):], " \t\r")
		lines = append(lines, fmt.Sprintf("%4d: %s", n+shift, text))
	}
	if len(lines) == 1 && r.End.Line <= r.Start.Line {
		prefix := snippetLine.FindString(lines[0])
		text, col := clip(lines[0][len(prefix):], r.Start.Column)
		text, col = escapeControl(text, col)
		lines[0] = prefix + text
		return append(lines, caret(lines[0], col))
	}
	for i, line := range lines {
		prefix := snippetLine.FindString(line)
		text, _ := clip(line[len(prefix):], 1)
		text, _ = escapeControl(text, 1)
		lines[i] = prefix + text
	}
	return lines
}

// maxQuoted bounds a quoted source line, in characters: a minified JSON
// job is one line, and every diagnostic in it would otherwise quote the
// whole file (up to the 1.5 MiB read limit) to the terminal.
const maxQuoted = 160

// clip returns at most maxQuoted characters of a quoted line around
// column col (1-based, in characters), with "…" where it was cut, and
// col's column in what it returns (for the caret).
func clip(text string, col int) (string, int) {
	r := []rune(text)
	if len(r) <= maxQuoted {
		return text, col
	}
	from := max(0, min(col-1-maxQuoted/4, len(r)-maxQuoted))
	to := from + maxQuoted
	out, c := string(r[from:to]), col-from
	if from > 0 {
		out, c = "…"+out, c+1
	}
	if to < len(r) {
		out += "…"
	}
	return out, c
}

// caret is the line under a quoted source line that points at column col
// (counted in characters, as HCL and the YAML parser count; tabs are kept
// so the caret lines up in a terminal).
func caret(quoted string, col int) string {
	prefix := snippetLine.FindString(quoted)
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", len(prefix)))
	n := 1
	for _, c := range quoted[len(prefix):] {
		if n >= col {
			break
		}
		if c == '\t' {
			b.WriteRune('\t')
		} else {
			b.WriteByte(' ')
		}
		n++
	}
	return b.String() + "^"
}
