package nomad

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// tfShapePlan is examples/volcano-tf-shape.yaml (or another example, or a
// file of testdata/shapes) on the site's nomad block nc, watched, with the
// site's role rules.
func tfShapePlan(t *testing.T, file string, nc *siteconfig.NomadConfig, roles ...siteconfig.RoleRule) *translate.Plan {
	t.Helper()
	path := "../../examples/" + file
	if _, err := os.Stat(path); err != nil {
		path = "testdata/shapes/" + file
	}
	j, diags := load.Load(path, jobs.ReadOptions{Path: file})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := translate.Build(j, &siteconfig.Config{Nomad: nc, Roles: roles}, nil, "alice")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p.Options[OptWatched] = "true"
	return p
}

// TestFixedPortPeersDockerNetwork: Volcano's TensorFlow shape on docker
// with the site's Docker network (nomad.docker_network) runs on one
// client: no distinct_hosts, every main task in the network with its
// pod's two names as aliases and its first as its host name, its group's
// port published (the contract's addresses reach it), and no
// /etc/hosts entry, neither in the driver config nor in the contract
// (JOBSHIFT_PEER_HOST_n), that could contradict Docker's DNS. Without
// the setting, with podman, with a role on raw_exec, the job keeps a
// node per task, and only the all-docker job is told of the setting; so
// does a job of the shape under the ssh emulation (its config names the
// clients' addresses); a job not of the shape ignores it.
func TestFixedPortPeersDockerNetwork(t *testing.T) {
	own := map[string][]string{
		"ps":     {"tensorflow-dist-ps-${NOMAD_ALLOC_INDEX}", "tensorflow-dist-ps-${NOMAD_ALLOC_INDEX}.tensorflow-dist"},
		"worker": {"tensorflow-dist-worker-${NOMAD_ALLOC_INDEX}", "tensorflow-dist-worker-${NOMAD_ALLOC_INDEX}.tensorflow-dist"},
	}
	for _, c := range []struct {
		name, file, driver, network string
		roles                       []siteconfig.RoleRule
		inNetwork, told             bool
		why                         string // a job-level Why line holds it
	}{
		{"docker+network", "volcano-tf-shape.yaml", "docker", "tfnet", nil, true, false, "every task has a network of its own in Docker network tfnet"},
		{"docker", "volcano-tf-shape.yaml", "docker", "", nil, false, true, "Docker's default bridge resolves no task's name"},
		{"podman+network", "volcano-tf-shape.yaml", "podman", "tfnet", nil, false, false, "distinct_hosts: role ps"},
		{"docker+network, ps on raw_exec", "volcano-tf-shape.yaml", "docker", "tfnet", []siteconfig.RoleRule{{Pattern: "ps", Driver: "raw_exec"}}, false, false, "role ps runs on raw_exec, not docker"},
		{"mpi docker+network", "volcano-mpi.yaml", "docker", "tfnet", nil, false, false, ""},
		{"ssh docker+network", "volcano-tf-ssh.yaml", "docker", "tfnet", nil, false, false, "role master runs the ssh emulation"},
	} {
		p := tfShapePlan(t, c.file, &siteconfig.NomadConfig{Driver: c.driver, DockerNetwork: c.network}, c.roles...)
		job, shape, diags := buildJob(p, nil)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", c.name, diags)
		}
		distinct := slices.ContainsFunc(job.Constraints, func(k *api.Constraint) bool { return k.Operand == api.ConstraintDistinctHosts })
		tfShape := c.file != "volcano-mpi.yaml"
		if distinct != (tfShape && !c.inNetwork) {
			t.Errorf("%s: distinct_hosts %v", c.name, distinct)
		}
		told := slices.ContainsFunc(diags, func(d *hcl.Diagnostic) bool {
			return d.Summary == "One task per node" && strings.Contains(d.Detail, `docker_network = "jobshift"`)
		})
		if told != c.told {
			t.Errorf("%s: told of nomad.docker_network %v, want %v: %v", c.name, told, c.told, diags)
		}
		if c.why != "" && !slices.ContainsFunc(shape.Why, func(w string) bool { return strings.Contains(w, c.why) }) {
			t.Errorf("%s: no why line saying %q:\n%s", c.name, c.why, strings.Join(shape.Why, "\n"))
		}
		for _, g := range job.TaskGroups {
			task := mainTask(t, job, *g.Name)
			if task.Driver != "docker" {
				continue
			}
			mode, _ := task.Config["network_mode"].(string)
			aliases, _ := task.Config["network_aliases"].([]string)
			hosts, _ := task.Config["extra_hosts"].([]string)
			env := ""
			for _, tm := range task.Templates {
				if tm.Envvars != nil && *tm.Envvars {
					env += *tm.EmbeddedTmpl
				}
			}
			peers := strings.Contains(env, "JOBSHIFT_PEER_HOST_0=")
			switch {
			case c.inNetwork:
				ports, _ := task.Config["ports"].([]string)
				if mode != c.network || !slices.Equal(aliases, own[*g.Name]) || task.Config["hostname"] != own[*g.Name][0] || len(hosts) > 0 || peers {
					t.Errorf("%s: group %s: network_mode %q, aliases %q, hostname %v, extra_hosts %q, peer entries in the env %v", c.name, *g.Name, mode, aliases, task.Config["hostname"], hosts, peers)
				}
				if !slices.Equal(ports, []string{"tfjob_port"}) {
					t.Errorf("%s: group %s: ports %q, want the group's port published (the contract's addresses)", c.name, *g.Name, ports)
				}
			case tfShape:
				if mode != "host" || len(aliases) > 0 || len(hosts) != 2+2*p.Job.TaskCount() || !peers {
					t.Errorf("%s: group %s: network_mode %q, aliases %q, extra_hosts %q, peer entries in the env %v; want the host's network and every peer in /etc/hosts", c.name, *g.Name, mode, aliases, hosts, peers)
				}
			default:
				if mode == c.network || len(aliases) > 0 {
					t.Errorf("%s: group %s: network_mode %q, aliases %q, want none of the site's network", c.name, *g.Name, mode, aliases)
				}
			}
		}
	}
}

// TestRenderVolcanoTFDockerNetworkGolden: the job `jobshift run` submits
// for Volcano's TensorFlow shape in the site's Docker network, with the
// real contract.
func TestRenderVolcanoTFDockerNetworkGolden(t *testing.T) {
	p := tfShapePlan(t, "volcano-tf-shape.yaml", &siteconfig.NomadConfig{Driver: "docker", DockerNetwork: "jobshift"})
	d, _ := New(drivers.Config{Site: p.Site}, false)
	art, err := d.Render(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "volcano-tf-docker-network.nomad.hcl", art.Files[0].Data)
}

// TestHostNetHintNamesDockerNetwork: a docker job of Volcano's TensorFlow
// shape that one client cannot place is refused at the job's name, naming
// nomad.docker_network; on raw_exec it is told to use more nodes.
func TestHostNetHintNamesDockerNetwork(t *testing.T) {
	for driver, want := range map[string]string{
		"docker":   `docker_network = "jobshift"`,
		"raw_exec": "Run it on more nodes, or on a Slurm cluster",
	} {
		p := tfShapePlan(t, "volcano-tf-shape.yaml", &siteconfig.NomadConfig{Driver: driver})
		job, diags := BuildJob(p, nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		hint := hostNetHint(job, p)
		if !strings.Contains(hint, "\nvolcano-tf-shape.yaml:13:9: One task per node is impossible here") || !strings.Contains(hint, want) {
			t.Errorf("%s: %q, want it at volcano-tf-shape.yaml:13:9 saying %q", driver, hint, want)
		}
	}
}
