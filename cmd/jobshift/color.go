package main

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// Colour, as compilers and git show it: on a terminal, the severity of a
// diagnostic (error red, warning yellow) and the verdict of a job; never
// when NO_COLOR is set to anything non-empty (no-color.org) or -no-color
// is given, and never into a pipe or a file.

// noColor is -no-color, which every command takes (newFlagSet).
var noColor bool

const (
	sgrRed    = "\033[1;31m"
	sgrYellow = "\033[1;33m"
	sgrGreen  = "\033[1;32m"
	sgrReset  = "\033[0m"
)

// colorOn: may w get colour?
func colorOn(w io.Writer) bool {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colorDiags colours the severity of each diagnostic's first line of text
// diag.Text wrote ("file:line:col: error: ...", or "error: ..." for one
// about the command line); quoted source and details are left alone.
func colorDiags(text []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		if len(line) > 0 && line[0] != ' ' {
			line = colorWord(line, "error", sgrRed)
			line = colorWord(line, "warning", sgrYellow)
		}
		out.Write(line)
	}
	return out.Bytes()
}

// colorWord colours the first "WORD: " that follows ": " or starts line.
func colorWord(line []byte, word, sgr string) []byte {
	tag := []byte(word + ": ")
	i := -1
	if bytes.HasPrefix(line, tag) {
		i = 0
	} else if j := bytes.Index(line, append([]byte(": "), tag...)); j >= 0 {
		i = j + 2
	}
	if i < 0 {
		return line
	}
	var b bytes.Buffer
	b.Write(line[:i])
	b.WriteString(sgr + word + sgrReset)
	b.Write(line[i+len(word):])
	return b.Bytes()
}

// phaseText is a job's final phase, green when it succeeded and red when
// it failed, on a terminal that takes colour.
func phaseText(w io.Writer, phase string) string {
	if !colorOn(w) {
		return phase
	}
	switch phase {
	case "succeeded":
		return sgrGreen + phase + sgrReset
	case "failed":
		return sgrRed + phase + sgrReset
	}
	return phase
}
