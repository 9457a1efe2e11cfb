package nomad

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// fixtureContract is a TEST-ONLY stand-in for translate/contract's Nomad
// rendering, so Render's own decisions can be tested alone: one service per
// role and port label, and a template that exports JS_HOSTS_<role> =
// "addr:port,..." in index order, built the way spec/nomad.md §2 shows.
type fixtureContract struct{}

func fixtureLabel(l string) string { return unsafeService.ReplaceAllString(strings.ToLower(l), "_") }

func (fixtureContract) Services(p *translate.Plan, jobID string) ([]Service, error) {
	var out []Service
	for _, r := range p.Job.Roles {
		for _, port := range r.Ports {
			for i := 0; i < port.Count; i++ {
				l := fmt.Sprintf("%s_%d", fixtureLabel(port.Label), i)
				out = append(out, Service{Role: r.Name, Name: ServiceName(jobID, r.Name, l), PortLabel: l,
					Tags: []string{"idx-${NOMAD_ALLOC_INDEX}"}})
			}
		}
	}
	return out, nil
}

// Processes: the fixture never has a parameter-server process.
func (fixtureContract) Processes(*translate.Plan) []string { return []string{""} }

func (c fixtureContract) EnvTemplate(p *translate.Plan, role *jobs.Role, jobID, _, snapshot string) (string, error) {
	if snapshot != "" {
		return c.snapshotTemplate(p, role, jobID, snapshot), nil
	}
	svcs, _ := c.Services(p, jobID)
	var b strings.Builder
	seen := map[string]bool{}
	for k, s := range svcs {
		if seen[s.Role] {
			continue
		}
		seen[s.Role] = true
		n := p.Job.Role(s.Role).Instances
		fmt.Fprintf(&b, "{{- $h := \"\" -}}{{- $all := nomadService %q -}}{{- range $i := loop %d -}}{{- range $all -}}"+
			"{{- if and (eq .JobID (env \"NOMAD_JOB_ID\")) (.Tags | contains (printf \"idx-%%d\" $i)) -}}"+
			"{{- if ne $h \"\" }}{{ $h = printf \"%%s,\" $h }}{{ end -}}{{- $h = printf \"%%s%%s:%%d\" $h .Address .Port -}}"+
			"{{- end -}}{{- end -}}{{- end }}\nJS_HOSTS_%s={{ $h }}\n", s.Name, n, strings.ToUpper(fixtureLabel(s.Role)))
		_ = k
	}
	b.WriteString("JS_ROLE=" + role.Name + "\nJS_INDEX={{ env \"NOMAD_ALLOC_INDEX\" }}\n")
	return b.String(), nil
}

// snapshotTemplate is EnvTemplate reading the topology snapshot (the
// items of contract.SnapshotAddrKey and SnapshotPortKey): JS_HOSTS_<role>
// from the role's addresses and its first service's ports.
func (c fixtureContract) snapshotTemplate(p *translate.Plan, role *jobs.Role, jobID, path string) string {
	svcs, _ := c.Services(p, jobID)
	var b strings.Builder
	fmt.Fprintf(&b, "{{ with nomadVar %q }}{{ $v := .ItemsMap -}}\n", path)
	seen := map[string]bool{}
	for n, s := range svcs {
		if seen[s.Role] {
			continue
		}
		seen[s.Role] = true
		k := 0
		for i, r := range p.Job.Roles {
			if r.Name == s.Role {
				k = i
			}
		}
		fmt.Fprintf(&b, "{{- $a := split \" \" (print (index $v \"a%d\")) }}{{ $p := split \" \" (print (index $v \"p%d\")) }}{{ $h := \"\" -}}"+
			"{{- range $i, $x := $a }}{{ if ne $i 0 }}{{ $h = printf \"%%s,\" $h }}{{ end }}{{ $h = printf \"%%s%%s:%%s\" $h $x (index $p $i) }}{{ end }}\n"+
			"JS_HOSTS_%s={{ $h }}\n", k, n, strings.ToUpper(fixtureLabel(s.Role)))
	}
	b.WriteString("JS_ROLE=" + role.Name + "\nJS_INDEX={{ env \"NOMAD_ALLOC_INDEX\" }}\n{{ end }}")
	return b.String()
}

// psWorker is a PAI v1-shaped ps×2/worker×2 job with a port per role.
func psWorker(name, cmd string) *jobs.Job {
	one := 1
	mk := func(role string, ms *int) *jobs.Role {
		return &jobs.Role{Name: role, Instances: 2, Image: "img",
			Command:      jobs.Command{Kind: jobs.CommandEval, Script: cmd},
			Resources:    jobs.Resources{CPUMilli: 1000, MemoryMiB: 256},
			Ports:        []jobs.Port{{Label: "SynPort", Count: 1}},
			MinSucceeded: ms, MinFailed: &one}
	}
	neg := -1
	return &jobs.Job{Name: name, Source: jobs.Source{Format: jobs.FormatPAIv1, Path: "job.json"},
		Roles:      []*jobs.Role{mk("ps", &neg), mk("worker", nil)},
		Completion: jobs.Completion{Kind: jobs.CompletionPAI}}
}

// EnvShell: the fixture's environment always travels in its env template
// (the fixture pins what Render does with that one).
func (fixtureContract) EnvShell(*translate.Plan, *jobs.Role, string, string, string) (string, error) {
	return "", contract.ErrShellNames
}
