// Package shquote quotes strings for POSIX sh, the one implementation of
// every driver and evaluator (the Slurm batch script, the contract's shell
// stage, Nomad task wrappers, the local driver's printed commands).
//
// mvdan.cc/sh/v3/syntax.Quote is not used to produce the text: in its
// POSIX variant it refuses newlines, tabs, other control characters and
// invalid UTF-8 (POSIX sh has no escape sequences; its other variants
// write bash's $'...', which dash, the /bin/sh of Debian and Ubuntu, does
// not read), and job commands are multi-line scripts. Single quotes carry
// every byte but NUL. The tests hold the output to mvdan.cc/sh's parser:
// every quoted word expands back to exactly its input.
package shquote

import "strings"

// plain are the bytes a Word may consist of unquoted: none of them is
// special to sh anywhere in a word (no expansion, globbing, tilde,
// comment, field splitting or operator), so such a word stands for itself.
const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:/=+@%"

// Quote is s single-quoted, each single quote inside written as quote,
// backslash, quote, quote: sh reads it back as exactly s (any byte but NUL,
// which no sh word can hold; callers refuse it first).
func Quote(s string) string {
	return string(Append(make([]byte, 0, len(s)+2), s))
}

// Append appends Quote(s) to dst without building it first.
func Append(dst []byte, s string) []byte {
	dst = append(dst, '\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		dst = append(append(dst, s[:i]...), `'\''`...)
		s = s[i+1:]
	}
	return append(append(dst, s...), '\'')
}

// Escape is s for the inside of single quotes the caller writes itself.
func Escape(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }

// Word is s as it is when it is a plain word, else Quote(s): the shortest
// text that reads back as s, for scripts and commands people read.
func Word(s string) string {
	if isPlain(s) {
		return s
	}
	return Quote(s)
}

// WriteWord writes Word(s) to b without building it first.
func WriteWord(b *strings.Builder, s string) {
	if isPlain(s) {
		b.WriteString(s)
		return
	}
	b.WriteByte('\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(`'\''`)
		s = s[i+1:]
	}
	b.WriteString(s)
	b.WriteByte('\'')
}

// QuoteAll is every argument quoted, separated by spaces.
func QuoteAll(args []string) string {
	var b []byte
	for i, a := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = Append(b, a)
	}
	return string(b)
}

// WordAll is every argument as a Word, separated by spaces.
func WordAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Word(a)
	}
	return strings.Join(q, " ")
}

func isPlain(s string) bool {
	return s != "" && strings.Trim(s, plain) == ""
}
