package shquote

import (
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// readBack is what a POSIX shell makes of word as a command's argument,
// by mvdan.cc/sh's parser and expander (not by this package).
func readBack(t *testing.T, word string) (string, bool) {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader("cmd "+word+"\n"), "")
	if err != nil || len(f.Stmts) != 1 {
		return "", false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 || len(call.Assigns) != 0 {
		return "", false
	}
	fields, err := expand.Fields(nil, call.Args[1])
	if err != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}

var samples = []string{
	"", "plain", "--lr=0.1", "50%", "a b", "it's", "''", "'", `\`, `"$HOME"`, "$(id)", "`id`", "a\nb", "\t", "*", "?", "[a]",
	"~", "~root", "#c", "a#b", "{a,b}", "a;b", "a|b", "a&b", "a>b", "<", "if", "then", "!", "x=1", "\x01\x7f", "\xff\xfe",
	"é ü", "<% $secrets.x %>", "line1\nline2\n", " lead", "trail ",
}

// Every string but one with NUL reads back byte for byte from Quote and
// from Word, as mvdan.cc/sh parses and expands it (its parser reads UTF-8
// only: invalid UTF-8, which sh keeps byte for byte in single quotes, is
// beyond the oracle).
func TestReadBack(t *testing.T) {
	for _, s := range samples {
		if !utf8.ValidString(s) {
			continue
		}
		for name, q := range map[string]string{"Quote": Quote(s), "Word": Word(s), "Append": string(Append(nil, s)), "WriteWord": writeWord(s)} {
			if got, ok := readBack(t, q); !ok || got != s {
				t.Errorf("%s(%q) = %s reads back as %q (ok %v)", name, s, q, got, ok)
			}
		}
	}
}

func writeWord(s string) string {
	var b strings.Builder
	WriteWord(&b, s)
	return b.String()
}

// Word leaves a string bare only when mvdan.cc/sh's own quoting would
// leave it bare too, but for '=' and reserved words (special only as, or
// before, a command name, where no Word is written) and '%' (special to
// no sh word).
func TestWordBareOnlyWhenPlain(t *testing.T) {
	for _, s := range append(samples, "abc_DEF-0.9,x:y/z+w@v") {
		if Word(s) != s || syntax.IsKeyword(s) {
			continue
		}
		mv, err := syntax.Quote(strings.NewReplacer("=", "", "%", "").Replace(s), syntax.LangPOSIX)
		if err != nil || mv != strings.NewReplacer("=", "", "%", "").Replace(s) {
			t.Errorf("Word leaves %q bare; mvdan.cc/sh quotes it as %s (%v)", s, mv, err)
		}
	}
}

func TestAll(t *testing.T) {
	if got, want := QuoteAll([]string{"a", "", "it's"}), `'a' '' 'it'\''s'`; got != want {
		t.Errorf("QuoteAll = %s, want %s", got, want)
	}
	if got, want := WordAll([]string{"a", "", "b c"}), `a '' 'b c'`; got != want {
		t.Errorf("WordAll = %s, want %s", got, want)
	}
	if got, want := Escape("it's"), `it'\''s`; got != want {
		t.Errorf("Escape = %s, want %s", got, want)
	}
}

func FuzzReadBack(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			t.Skip()
		}
		if got, ok := readBack(t, Word(s)); !ok || got != s {
			t.Errorf("Word(%q) = %s reads back as %q (ok %v)", s, Word(s), got, ok)
		}
	})
}
