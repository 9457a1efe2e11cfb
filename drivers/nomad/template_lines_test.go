package nomad

import (
	"strings"
	"testing"
	"text/template/parse"

	"github.com/jobshift/jobshift/jobs"
)

// TestEnvTemplateLinesEndWithNewline: in the env template of a GPU task on
// raw_exec with a user variable that Nomad interpolates, every line the
// driver writes before the contract still ends with a newline once Go
// template trim markers ({{- of the contract's first action) are applied;
// a glued line once turned CUDA_VISIBLE_DEVICES into
// "GPU-fake-0PAI_FRAMEWORK_NAME=..." and dropped PAI_FRAMEWORK_NAME.
func TestEnvTemplateLinesEndWithNewline(t *testing.T) {
	withPAIPorts := func(j *jobs.Job) *jobs.Job {
		for _, r := range j.Roles {
			r.Ports = append(r.Ports, jobs.Port{Label: "http", Count: 1, Implicit: true}, jobs.Port{Label: "ssh", Count: 1, Implicit: true})
		}
		return j
	}
	cases := map[string]struct {
		job       *jobs.Job
		contracts []string
	}{
		"pai": {withPAIPorts(psWorker("glue", "true")), []string{jobs.ContractPAI}},
		"uai": {uaiJob(), []string{jobs.ContractUAI}},
		"tf":  {psWorker("glue", "true"), []string{jobs.ContractTF}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j, contracts := tc.job, tc.contracts
			j.Contracts = contracts
			for _, r := range j.Roles {
				r.Resources.GPU = 1
				r.Env = append(r.Env, jobs.EnvVar{Name: "MY_ALLOC", Value: "${NOMAD_ALLOC_ID}"})
			}
			p := plan(j, rawExecSite())
			p.Contracts = contracts
			job, diags := BuildJob(p, nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, g := range job.TaskGroups {
				for _, task := range g.Tasks {
					if task.Name != MainTask || len(task.Templates) == 0 {
						continue
					}
					checkLinesKept(t, *g.Name, *task.Templates[0].EmbeddedTmpl, "CUDA_VISIBLE_DEVICES=", "MY_ALLOC=")
				}
			}
		})
	}
}

// checkLinesKept parses the template (trim markers applied by the parser)
// and requires, after the action of each line starting with one of
// prefixes, text that begins with a newline.
func checkLinesKept(t *testing.T, group, tmpl string, prefixes ...string) {
	t.Helper()
	tr := parse.New("env")
	tr.Mode = parse.SkipFuncCheck | parse.ParseComments
	if _, err := tr.Parse(tmpl, "{{", "}}", map[string]*parse.Tree{}); err != nil {
		t.Fatalf("%s: %v", group, err)
	}
	nodes := tr.Root.Nodes
	for _, prefix := range prefixes {
		found := false
		for i, n := range nodes {
			text, ok := n.(*parse.TextNode)
			if !ok || !strings.HasSuffix(string(text.Text), prefix) {
				continue
			}
			found = true
			// the line's value is the action after the text; what follows must open with "\n"
			if i+2 >= len(nodes) {
				t.Errorf("%s: %s line is the end of the template", group, prefix)
				continue
			}
			next, ok := nodes[i+2].(*parse.TextNode)
			if !ok || !strings.HasPrefix(string(next.Text), "\n") {
				t.Errorf("%s: the %s line is glued to what follows it (%s)", group, prefix, nodes[i+2])
			}
		}
		if !found {
			t.Errorf("%s: no %s line in the template:\n%s", group, prefix, tmpl)
		}
	}
}
