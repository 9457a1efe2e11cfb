package lint

import (
	"path"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"mvdan.cc/sh/v3/syntax"
)

// ref is one variable reference: its name and where the text it is in (a
// script or an environment value) starts in the job file.
type ref struct {
	name string
	at   jobs.Pos
	env  bool // in an environment value, not a command
}

// commandRefs are the references of r's command, and the names the
// command assigns itself (`X=1`, `export X=1`, `read X`, `for X in`).
func commandRefs(r *jobs.Role) ([]ref, map[string]bool) {
	assigned := map[string]bool{}
	var refs []ref
	for _, script := range scripts(r.Command) {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
		if err != nil {
			continue // what the shell would refuse is not this lint's to report
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			collect(n, r.Command.Pos, false, &refs, assigned)
			return true
		})
	}
	return refs, assigned
}

// envRefs are the references of an environment value: `$NAME`, `${NAME}`
// as a shell reads the value once it is used, as one word.
func envRefs(e jobs.EnvVar) []ref {
	if !strings.Contains(e.Value, "$") {
		return nil
	}
	w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(e.Value))
	if err != nil {
		return nil
	}
	var refs []ref
	syntax.Walk(w, func(n syntax.Node) bool {
		collect(n, e.Pos, true, &refs, map[string]bool{})
		return true
	})
	return refs
}

// collect records n when it reads a variable without a default, or
// assigns one.
func collect(n syntax.Node, at jobs.Pos, env bool, refs *[]ref, assigned map[string]bool) {
	switch x := n.(type) {
	case *syntax.ParamExp:
		if x.Param == nil || x.Excl || x.Exp != nil && hasDefault(x.Exp.Op) {
			return
		}
		*refs = append(*refs, ref{name: x.Param.Value, at: at, env: env})
	case *syntax.Assign:
		if x.Name != nil {
			assigned[x.Name.Value] = true
		}
	case *syntax.WordIter:
		assigned[x.Name.Value] = true
	case *syntax.CallExpr:
		if len(x.Args) > 1 && x.Args[0].Lit() == "read" {
			for _, a := range x.Args[1:] {
				assigned[a.Lit()] = true
			}
		}
	}
}

// hasDefault: ${X:-d}, ${X-d}, ${X:=d}, ${X=d}, ${X:+a}, ${X+a}, ${X:?m},
// ${X?m} say what happens when X is unset: the author expected that.
func hasDefault(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.DefaultUnsetOrNull, syntax.DefaultUnset, syntax.AssignUnsetOrNull, syntax.AssignUnset,
		syntax.AlternateUnsetOrNull, syntax.AlternateUnset, syntax.ErrorUnsetOrNull, syntax.ErrorUnset:
		return true
	}
	return false
}

// shells run their -c argument as a script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "ksh": true, "zsh": true}

// scripts are the shell texts of a command: a PAI script (deployments
// included), or the argument after -c of a container run through a shell.
func scripts(c jobs.Command) []string {
	if c.Script != "" {
		return []string{c.Script}
	}
	argv := append(append([]string(nil), c.Command...), c.Args...)
	if len(argv) < 3 || !shells[path.Base(argv[0])] {
		return nil
	}
	for i := 1; i+1 < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			return nil
		}
		if strings.Contains(a, "c") {
			return []string{argv[i+1]}
		}
	}
	return nil
}
