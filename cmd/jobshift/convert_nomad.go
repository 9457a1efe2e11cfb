package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/freshfile"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// A Nomad job jobshift renders reads its secrets and its ssh key from the
// job's Nomad Variable (drivers/nomad secrets.go, ssh.go), which `jobshift
// run` stores before submitting. A converted file submitted with plain
// `nomad job run` would wait for it forever, so convert says what the job
// needs and hands over the Variable as `nomad var put` input: a 0600 file
// with -o, on standard output only when asked (-print-variable).

// nomadVariable is the Variable as `nomad var put @FILE.json` reads it
// (api.Variable's JSON fields; command/var_put.go of Nomad v1.11.3).
type nomadVariable struct {
	Namespace string            `json:"Namespace,omitempty"`
	Path      string            `json:"Path"`
	Items     map[string]string `json:"Items"`
}

// nomadVariableFor is the job's Variable, nil when the job needs none.
func nomadVariableFor(plan *translate.Plan, cfg *siteconfig.Config) (*nomadVariable, error) {
	items, err := nomad.VariableItems(plan)
	if err != nil || len(items) == 0 {
		return nil, err
	}
	v := &nomadVariable{Path: nomad.VariablePath(nomad.JobIDFor(plan)), Items: items}
	if n := cfg.Nomad; n != nil {
		v.Namespace = n.Namespace
		if n.NamespacePerUser {
			v.Namespace = nomad.NamespaceFor(plan.User)
		}
	}
	return v, nil
}

func (v *nomadVariable) itemNames() string {
	names := make([]string, 0, len(v.Items))
	for k := range v.Items {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// handOverVariable writes (outDir) or prints (print) the job's Variable and
// says what a hand-submitted job waits for; printed is true when it went
// to stdout in place of the job.
func handOverVariable(v *nomadVariable, outDir string, print bool, stdout, stderr io.Writer) (printed bool, err error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return false, err
	}
	data = append(data, '\n')
	switch {
	case print:
		_, err = stdout.Write(data)
		return true, err
	case outDir != "":
		name := filepath.Join(outDir, strings.ReplaceAll(strings.TrimPrefix(v.Path, "nomad/jobs/"), "/", "_")+".var.json")
		if err := freshfile.Write(name, data, 0o600); err != nil {
			return false, err
		}
		fmt.Fprintf(stderr, "jobshift convert: warning: submitted with 'nomad job run', the job's tasks wait for its Nomad Variable %s (%s); %s holds it (0600): store it first with\n    nomad var put @%s\n",
			v.Path, v.itemNames(), name, name)
	default:
		fmt.Fprintf(stderr, "jobshift convert: warning: submitted with 'nomad job run', the job's tasks wait for its Nomad Variable %s (%s), which this output does not hold; -o DIR writes it as a 0600 file for 'nomad var put', -print-variable prints it instead of the job ('jobshift run -to nomad' stores it itself)\n",
			v.Path, v.itemNames())
	}
	return false, nil
}
