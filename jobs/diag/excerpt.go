package diag

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// What a quoted source line may show. A diagnostic quotes the user's file
// to a terminal, so two things never pass through as written:
//
//   - secret values: the value part of every line under a PAI v2
//     `secrets:` key, of every document after a job's first that is not a
//     job (the secrets document), and the whole of a file marked with
//     MarkSecretFile (-secrets FILE) are masked with "*", byte for byte,
//     so the columns the caret counts stay where they were;
//   - control characters (an escape sequence can set the terminal's title
//     or clear it, a binary file would dump its bytes): written as Go
//     escapes (\x1b, \u0085), and so are bytes that are not UTF-8.

var secretFiles sync.Map // filename → true

// MarkSecretFile makes every quoted line of filename masked: a file of
// secrets (-secrets FILE) never has a line worth showing.
func MarkSecretFile(filename string) { secretFiles.Store(filename, true) }

// ForgetSecretFiles unmarks every file: a command starts with none (a
// later command of the same process may read "-" as a job).
func ForgetSecretFiles() { secretFiles.Clear() }

var (
	secretsKey   = regexp.MustCompile(`^secrets[ \t]*:`)
	docStart     = regexp.MustCompile(`^---([ \t\r\n]|$)`)
	protocolKey  = regexp.MustCompile(`(?m)^protocolVersion[ \t]*:`)
	topLevelLine = regexp.MustCompile(`^[^ \t#\r\n]`)
)

// maskSecrets returns text with the secret values of a PAI v2 job (or of
// a file of secrets) masked; text itself is not changed.
func maskSecrets(filename string, text []byte) []byte {
	if v, _ := secretFiles.Load(filename); v == true {
		return maskLines(text, func(int, []byte) bool { return true })
	}
	if !bytes.Contains(text, []byte("secrets")) && !bytes.Contains(text, []byte("\n---")) {
		return text
	}
	doc, underKey, docIsJob := 0, false, protocolKey.Match(firstDoc(text))
	return maskLines(text, func(_ int, line []byte) bool {
		switch {
		case docStart.Match(line):
			doc++
			underKey = false
			return false
		case topLevelLine.Match(line):
			underKey = secretsKey.Match(line)
			return underKey || doc > 0 && docIsJob
		}
		return underKey || doc > 0 && docIsJob
	})
}

// firstDoc is the text up to the second YAML document.
func firstDoc(text []byte) []byte {
	lines := bytes.SplitAfter(text, []byte("\n"))
	n := 0
	for i, l := range lines {
		if docStart.Match(l) && i > 0 {
			return text[:n]
		}
		n += len(l)
	}
	return text
}

// maskLines masks the value part of each line secret says to mask: after
// the indentation, a "- " list marker and a "key:" (names are not secret).
func maskLines(text []byte, secret func(n int, line []byte) bool) []byte {
	out := append([]byte(nil), text...)
	off := 0
	for n, line := range bytes.SplitAfter(text, []byte("\n")) {
		if secret(n+1, line) {
			from := valueStart(line)
			for i := from; i < len(line); i++ {
				if c := line[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
					out[off+i] = '*'
				}
			}
		}
		off += len(line)
	}
	return out
}

var keyPrefix = regexp.MustCompile(`^[ \t]*(- +)*(("[^"\n]*"|'[^'\n]*'|[^ \t:#'"\n][^:#\n]*?)[ \t]*:([ \t]|$))?`)

func valueStart(line []byte) int {
	if loc := keyPrefix.FindIndex(line); loc != nil {
		return loc[1]
	}
	return 0
}

// escapeControl writes the control characters of s and its bytes that are
// not UTF-8 as Go escapes; tabs stay (the caret keeps them). col is a
// column of s (1-based, in characters) and is returned where it is in the
// escaped text.
func escapeControl(s string, col int) (string, int) {
	if !needsEscape(s) {
		return s, col
	}
	var b strings.Builder
	n, newCol := 1, col
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029'):
			if r < 0x80 {
				esc = fmt.Sprintf(`\x%02x`, r)
			} else {
				esc = fmt.Sprintf(`\u%04x`, r)
			}
		}
		if esc == "" {
			b.WriteString(s[i : i+size])
		} else {
			b.WriteString(esc)
			if n < col {
				newCol += len(esc) - 1
			}
		}
		i += size
		n++
	}
	return b.String(), newCol
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
			return true
		}
	}
	return false
}

// readFile is the Sources of a writer given none (a driver's warnings):
// the file as it is on disk, if it is a regular file of at most 1.5 MiB
// (the job-file limit).
func readFile(name string) []byte {
	fi, err := os.Stat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 3<<19 {
		return nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	return b
}
