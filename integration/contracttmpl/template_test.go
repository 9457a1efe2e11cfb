// Package contracttmpl runs translate/contract's Nomad rendering through
// the real consul-template engine (the version Nomad 1.11.3 embeds) and
// Nomad's env-file parser (go-envparse), with service registrations put
// into the template's data store exactly where a live runner puts what it
// fetched from Nomad. It is its own module so that consul-template's
// dependencies never enter jobshift's go.mod.
package contracttmpl

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	ctdep "github.com/hashicorp/consul-template/dependency"
	cttmpl "github.com/hashicorp/consul-template/template"
	"github.com/hashicorp/go-envparse"
	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// registrations is what Nomad's service catalog holds for the job: every
// service of every task, in a random order (Nomad orders by alloc UUID), plus
// a registration of another job under the same name that must be ignored.
func registrations(t testing.TB, r *rand.Rand, job *jobs.Job, topo contract.Topology, jobID string, opts contract.Options, skip string) *cttmpl.Brain {
	t.Helper()
	brain := cttmpl.NewBrain()
	for _, s := range contract.NomadServicesFor(job, jobID, opts) {
		q, err := ctdep.NewNomadServiceQuery(s.Name)
		if err != nil {
			t.Fatalf("service name %q: %v", s.Name, err)
		}
		k := -1
		for n, role := range job.Roles {
			if role.Name == s.Role {
				k = n
			}
		}
		var regs []*ctdep.NomadService
		for i, task := range topo.Roles[k].Tasks {
			tag := "idx-" + fmt.Sprint(i)
			if skip == s.Name+"/"+tag {
				continue
			}
			port := 0
			if s.Label != "" {
				port = task.Ports[s.Label][s.Ordinal]
			}
			alloc := fmt.Sprintf("%08x-alloc", r.Uint32())
			regs = append(regs, &ctdep.NomadService{ID: "_nomad-task-" + alloc, Name: s.Name, Address: task.Addr,
				Port: port, Tags: ctdep.ServiceTags{"role", tag}, JobID: jobID, AllocID: alloc})
		}
		regs = append(regs, &ctdep.NomadService{ID: "other", Name: s.Name, Address: "192.0.2.1", Port: 9, Tags: ctdep.ServiceTags{"idx-0"}, JobID: jobID + "-other"})
		r.Shuffle(len(regs), func(a, b int) { regs[a], regs[b] = regs[b], regs[a] })
		brain.Remember(q, regs)
	}
	return brain
}

// render executes the template for task index i as Nomad's client would
// (node: the node attributes its env function also reads,
// contracttest.NomadNodeEnv) and parses the result as Nomad parses env
// templates.
func render(t testing.TB, text string, brain *cttmpl.Brain, jobID string, i int, node ...string) (map[string]string, error) {
	t.Helper()
	return renderEnv(t, text, brain, append([]string{"NOMAD_ALLOC_INDEX=" + fmt.Sprint(i), "NOMAD_JOB_ID=" + jobID}, node...))
}

// renderEnv executes the template with the task environment env (what the
// template's env function sees) and parses the output as Nomad does.
func renderEnv(t testing.TB, text string, brain *cttmpl.Brain, env []string) (map[string]string, error) {
	t.Helper()
	return envparse.Parse(strings.NewReader(renderText(t, text, brain, env)))
}

// TestTemplateMatchesOracle: hundreds of random jobs, every role, first
// and last task, compared with the oracle.
func TestTemplateMatchesOracle(t *testing.T) {
	cases := 400
	if testing.Short() {
		cases = 60
	}
	for n := range cases {
		c := contracttest.RandomNoTilde(1, n)
		r := rand.New(rand.NewPCG(2, uint64(n)))
		jobID := "job-" + fmt.Sprint(n)
		brain := registrations(t, r, c.Job, c.Topo, jobID, c.Opts, "")
		for k, role := range c.Job.Roles {
			text, err := contract.NomadTemplate(c.Job, role.Name, jobID, c.Opts)
			if err != nil {
				t.Fatalf("case %s role %s: NomadTemplate: %v", c.Name, role.Name, err)
			}
			if role.Instances == 0 {
				continue
			}
			for _, i := range []int{0, role.Instances - 1} {
				want, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: role.Name, Index: i}, c.Opts)
				if err != nil {
					t.Fatalf("case %s: Eval: %v", c.Name, err)
				}
				got, err := render(t, text, brain, jobID, i, contracttest.NomadNodeEnv(c.Topo, k, i)...)
				if err != nil {
					t.Fatalf("case %s task %d-%d: Nomad would reject the env file: %v", c.Name, k, i, err)
				}
				if diff := cmp.Diff(want.Map(), got); diff != "" {
					t.Fatalf("case %s task %d-%d (-oracle +nomad):\n%s", c.Name, k, i, diff)
				}
			}
		}
	}
}

// TestMissingRegistrationFailsTask: a template rendered before every peer
// registered must make Nomad fail the task, not start it with holes.
func TestMissingRegistrationFailsTask(t *testing.T) {
	c := contracttest.RandomNoTilde(3, 0)
	r := rand.New(rand.NewPCG(3, 0))
	svc := contract.NomadServicesFor(c.Job, "j", c.Opts)
	last := svc[len(svc)-1]
	brain := registrations(t, r, c.Job, c.Topo, "j", c.Opts, last.Name+"/idx-0")
	text, err := contract.NomadTemplate(c.Job, c.Job.Roles[0].Name, "j", c.Opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := render(t, text, brain, "j", 0); err == nil || !strings.Contains(err.Error(), "missing =") {
		t.Fatalf("env file parsed (%v); want Nomad's parse error", err)
	}
}

func TestTildeRejected(t *testing.T) {
	j := &jobs.Job{Name: "j", Contracts: []string{jobs.ContractPAI, jobs.ContractPAIYarn},
		Roles: []*jobs.Role{{Name: "x~y", Instances: 1, Ports: []jobs.Port{{Label: "ssh", Count: 1}, {Label: "http", Count: 1}}}}}
	_, err := contract.NomadTemplate(j, "x~y", "j", contract.Options{User: "u"})
	if !errors.Is(err, contract.ErrTarget) || !strings.Contains(err.Error(), "PAI_RESOURCE_x~y") {
		t.Fatalf("err = %v, want the '~' names reported", err)
	}
}

// snapshot is the topology snapshot Variable a coordinator writes for the
// job (contract.SnapshotAddrKey, SnapshotPortKey), built here from the
// topology the oracle evaluates, in the brain where the runner puts what
// nomadVar fetched.
func snapshot(t testing.TB, job *jobs.Job, topo contract.Topology, jobID, path, attempt string, opts contract.Options) *cttmpl.Brain {
	t.Helper()
	items := map[string]string{contract.SnapshotAttempt: attempt}
	for k := range job.Roles {
		var addrs []string
		for _, task := range topo.Roles[k].Tasks {
			addrs = append(addrs, task.Addr)
		}
		items[contract.SnapshotAddrKey(k)] = strings.Join(addrs, " ")
	}
	for n, s := range contract.NomadServicesFor(job, jobID, opts) {
		if s.Label == "" {
			continue
		}
		k := -1
		for kk, role := range job.Roles {
			if role.Name == s.Role {
				k = kk
			}
		}
		var ports []string
		for _, task := range topo.Roles[k].Tasks {
			ports = append(ports, fmt.Sprint(task.Ports[s.Label][s.Ordinal]))
		}
		items[contract.SnapshotPortKey(n)] = strings.Join(ports, " ")
	}
	// what nomadVar (blocking) and nomadVarExists (not) fetched
	brain := cttmpl.NewBrain()
	for _, blocking := range []bool{true, false} {
		q, err := ctdep.NewNVGetQuery("", path)
		if err != nil {
			t.Fatal(err)
		}
		if blocking {
			q.EnableBlocking()
		}
		brain.Remember(q, &ctdep.NewNomadVariable(&nomadapi.Variable{Path: path, Items: items}).Items)
	}
	return brain
}

// TestSnapshotTemplateMatchesOracle: the snapshot rendering of random jobs
// (GPUs, every contract, hostile literals) gives every task the oracle's
// environment, byte for byte, both as the env template and as the file a
// task's sh sources (NomadSnapshotShell, sourced by dash and bash), where
// every name is a shell name.
func TestSnapshotTemplateMatchesOracle(t *testing.T) {
	sourcedN, refused := 0, 0
	cases := 400
	if testing.Short() {
		cases = 60
	}
	for n := range cases {
		c := contracttest.RandomNoTilde(5, n)
		jobID := "job-" + fmt.Sprint(n)
		cj, err := contract.Compile(c.Job, c.Opts)
		if err != nil {
			t.Fatalf("case %s: Compile: %v", c.Name, err)
		}
		for k, role := range c.Job.Roles {
			path := "nomad/jobs/" + jobID + "/" + role.Name
			snap := contract.Snapshot{Path: path, AttemptEnv: "NOMAD_META_jobshift_attempt"}
			text, err := cj.NomadSnapshotTemplate(role.Name, c.Opts.Process, jobID, snap)
			if err != nil {
				t.Fatalf("case %s role %s: NomadSnapshotTemplate: %v", c.Name, role.Name, err)
			}
			shText, err := cj.NomadSnapshotShell(role.Name, c.Opts.Process, jobID, snap)
			if err != nil && !errors.Is(err, contract.ErrShellNames) {
				t.Fatalf("case %s role %s: NomadSnapshotShell: %v", c.Name, role.Name, err)
			}
			if err != nil {
				refused++
			}
			if role.Instances == 0 {
				continue
			}
			brain := snapshot(t, c.Job, c.Topo, jobID, path, "2", c.Opts)
			for _, i := range []int{0, role.Instances - 1} {
				want, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: role.Name, Index: i}, c.Opts)
				if err != nil {
					t.Fatalf("case %s: Eval: %v", c.Name, err)
				}
				env := append([]string{"NOMAD_ALLOC_INDEX=" + fmt.Sprint(i), "NOMAD_JOB_ID=" + jobID, "NOMAD_META_jobshift_attempt=2"}, contracttest.NomadNodeEnv(c.Topo, k, i)...)
				got, err := renderEnv(t, text, brain, env)
				if err != nil {
					t.Fatalf("case %s task %d-%d: Nomad would reject the env file: %v\n%s", c.Name, k, i, err, text)
				}
				if diff := cmp.Diff(want.Map(), got); diff != "" {
					t.Fatalf("case %s task %d-%d (-oracle +nomad):\n%s", c.Name, k, i, diff)
				}
				if shText == "" {
					continue
				}
				got, err = sourceTemplate(t, shText, brain, env)
				if err != nil {
					t.Fatalf("case %s task %d-%d: sh cannot source the file: %v\n%s", c.Name, k, i, err, shText)
				}
				if diff := cmp.Diff(want.Map(), got); diff != "" {
					t.Fatalf("case %s task %d-%d (-oracle +sourced):\n%s", c.Name, k, i, diff)
				}
				sourcedN++
			}
		}
	}
	t.Logf("%d task environments also sourced, %d roles' names not shell names", sourcedN, refused)
	if sourcedN == 0 {
		t.Fatal("no environment was sourced")
	}
}

// TestSnapshotOfAnotherAttemptFailsTask: a snapshot left by an earlier
// attempt must make Nomad fail the task, not start it with old peers.
func TestSnapshotOfAnotherAttemptFailsTask(t *testing.T) {
	c := contracttest.RandomNoTilde(6, 0)
	role := c.Job.Roles[0].Name
	path := "nomad/jobs/j/" + role
	text, err := contract.NomadSnapshotTemplate(c.Job, role, "j", contract.Snapshot{Path: path, AttemptEnv: "NOMAD_META_jobshift_attempt"}, c.Opts)
	if err != nil {
		t.Fatal(err)
	}
	brain := snapshot(t, c.Job, c.Topo, "j", path, "0", c.Opts)
	env := []string{"NOMAD_ALLOC_INDEX=0", "NOMAD_JOB_ID=j", "NOMAD_META_jobshift_attempt=1"}
	if _, err := renderEnv(t, text, brain, env); err == nil || !strings.Contains(err.Error(), "missing =") {
		t.Fatalf("env file parsed (%v); want Nomad's parse error", err)
	}
}

// TestForgedSnapshotFailsTask: a snapshot whose address or port item is
// not in the grammar (contract.SnapshotAddrsPattern, SnapshotPortsPattern)
// — here an address carrying a newline and ssh client configuration, as
// someone able to write the Variable could forge it — makes Nomad fail the
// task (env file) or the sourcing shell exit 1 (shell file) before any
// variable is set; the in-task helper (SnapshotTopology) refuses it too.
func TestForgedSnapshotFailsTask(t *testing.T) {
	c := contracttest.RandomNoTilde(6, 0)
	role := c.Job.Roles[0].Name
	path := "nomad/jobs/j/" + role
	snap := contract.Snapshot{Path: path, AttemptEnv: "NOMAD_META_jobshift_attempt"}
	text, err := contract.NomadSnapshotTemplate(c.Job, role, "j", snap, c.Opts)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"NOMAD_ALLOC_INDEX=0", "NOMAD_JOB_ID=j", "NOMAD_META_jobshift_attempt=0"}
	for _, forged := range []string{"10.0.0.1\nProxyCommand sh -c id", `10.0.0.1"`, "10.0.0.1 ", "10.0.0.1;id"} {
		topo := c.Topo
		topo.Roles = append([]contract.RoleTopology(nil), c.Topo.Roles...)
		tasks := append([]contract.TaskTopology(nil), topo.Roles[0].Tasks...)
		tasks[0].Addr = forged
		topo.Roles[0].Tasks = tasks
		brain := snapshot(t, c.Job, topo, "j", path, "0", c.Opts)
		if _, err := renderEnv(t, text, brain, env); err == nil || !strings.Contains(err.Error(), "missing =") {
			t.Errorf("%q: env file parsed (%v); want Nomad's parse error", forged, err)
		}
		if _, err := contract.SnapshotTopology(c.Job, c.Opts, snapshotItems(t, brain, path)); err == nil {
			t.Errorf("%q: the in-task helper took the snapshot", forged)
		}
	}
}

// snapshotItems is what nomadVar fetched for path in brain.
func snapshotItems(t *testing.T, brain *cttmpl.Brain, path string) map[string]string {
	t.Helper()
	q, err := ctdep.NewNVGetQuery("", path)
	if err != nil {
		t.Fatal(err)
	}
	q.EnableBlocking()
	v, ok := brain.Recall(q)
	if !ok {
		t.Fatal("no snapshot in the brain")
	}
	items := map[string]string{}
	for k, val := range *v.(*ctdep.NomadVarItems) {
		items[k] = val.Value
	}
	return items
}
