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

// secretScriptRun is stage 2's command for a PAI v2 script that uses
// secrets: render user.sh into the state directory (0600) and run it.
func secretScriptRun(parts []secretPart, k int, prefix string) string {
	var b strings.Builder
	// Only the rendered file is private: umask 077 in a subshell, so the
	// user's command keeps the site's umask (its checkpoints were private
	// when the whole stage ran under 077). rm + noclobber (O_EXCL) create
	// the file fresh: never a stale file's mode, never through a link.
	b.WriteString(". \"$2/../secrets\" || exit 97\n\t_f=\"$2/user-" + fmt.Sprint(k) + "-$SLURM_PROCID.sh\"\n\trm -f \"$_f\" || exit 97\n\t(\n\tumask 077\n\tset -C\n\t{\n")
	fmt.Fprintf(&b, "\t\tprintf '%%s' %s\n", shQuote(translate.PAIPrelude))
	for _, p := range parts {
		if p.secret >= 0 {
			fmt.Fprintf(&b, "\t\tprintf '%%s' \"$_jsh_secret_%d\"\n", p.secret)
		} else if p.lit != "" {
			fmt.Fprintf(&b, "\t\tprintf '%%s' %s\n", shQuote(p.lit))
		}
	}
	b.WriteString("\t} >\"$_f\"\n\t) || exit 97\n\texec " + prefix + "bash \"$_f\"")
	return b.String()
}
