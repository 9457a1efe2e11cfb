package slurm

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// PAI v2 commands keep `<% $secrets.path %>` references (jobs/pai): the
// OpenPAI runtime rendered them inside the container at start. The batch
// script never holds the values: they go to a 0600 companion file
// (<script>.secrets, or $JOBSHIFT_SECRETS) that the script copies, still
// 0600, into the job's state directory; each task reads it and writes its
// rendered user.sh there (0600) instead of passing the text in argv, where
// `ps` would show it.
var secretRE = regexp.MustCompile(`<%\s*\$secrets((?:\.[A-Za-z0-9_-]+|\[[0-9]+\])+)\s*%>`)

// secretPart is one piece of a script: a literal, or secret number N.
type secretPart struct {
	lit    string
	secret int // -1 for a literal
}

// secretTable numbers the distinct secret references of a job.
type secretTable struct {
	job    *jobs.Job
	paths  []string
	values []string
	index  map[string]int
}

// split cuts s at its secret references that resolve; unresolved ones stay
// literal, as OpenPAI wrote them back.
func (t *secretTable) split(s string) []secretPart {
	var parts []secretPart
	last := 0
	for _, m := range secretRE.FindAllStringSubmatchIndex(s, -1) {
		path := s[m[2]:m[3]]
		v, ok := translate.LookupSecret(t.job.Secrets, path)
		if !ok {
			continue
		}
		n, seen := t.index[path]
		if !seen {
			n = len(t.paths)
			t.index[path] = n
			t.paths = append(t.paths, path)
			t.values = append(t.values, v)
		}
		parts = append(parts, secretPart{lit: s[last:m[0]], secret: -1}, secretPart{secret: n})
		last = m[1]
	}
	return append(parts, secretPart{lit: s[last:], secret: -1})
}

// add numbers a secret value the job holds outside its scripts (a Secret
// volume's file) under key, which no `$secrets` path spells.
func (t *secretTable) add(key, v string) int {
	key = "\x00" + key
	if n, ok := t.index[key]; ok {
		return n
	}
	t.index[key] = len(t.paths)
	t.paths = append(t.paths, key)
	t.values = append(t.values, v)
	return len(t.paths) - 1
}

// file renders the secrets file: one shell assignment per secret.
func (t *secretTable) file() []byte {
	if len(t.values) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("# jobshift secrets (0600): read by the job's tasks, never put in the batch script\n")
	for i, v := range t.values {
		fmt.Fprintf(&b, "_jsh_secret_%d=%s\n", i, shQuote(v))
	}
	return []byte(b.String())
}
