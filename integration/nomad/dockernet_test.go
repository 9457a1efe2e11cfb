package nomad_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// workerMeshRe is a worker's line of examples/mesh.py: whom it reached.
var workerMeshRe = regexp.MustCompile(`(?m)^worker:(\d): mesh ok: reached (\S+); sum=(\d+)$`)

// TestVolcanoTFShapeDockerOneHost: Volcano's TensorFlow shape
// (examples/volcano-tf-shape.yaml: every task listens on 2222 at the
// names of /etc/volcano/*.host) runs to success on the one-client agent in
// docker, as the operator sets it up: a Docker network of the site's
// (nomad.docker_network; the test makes it on the agent's Docker and
// removes it), in which every task has a network of its own and its pod's
// names as aliases. Every task listens at its own name, and each worker
// reaches the ps and the other worker there (TestVolcanoTFShapeNomad in
// integration/multihost runs the job with a client per task instead).
func TestVolcanoTFShapeDockerOneHost(t *testing.T) {
	needDocker(t)
	c := agent.Client(t)
	if nodes, _, err := c.Nodes().List(nil); err != nil || len(nodes) != 1 {
		t.Skipf("the agent has %d clients (%v), the test needs one", len(nodes), err)
	}
	network := fmt.Sprintf("jobshift-tf-%d", time.Now().UnixNano()%1e9)
	if out, err := exec.Command("docker", "network", "create", network).CombinedOutput(); err != nil {
		t.Fatalf("docker network create %s: %v %s", network, err, out)
	}
	t.Cleanup(func() {
		// after the job's containers are gone (run's deregistration below)
		if out, err := exec.Command("docker", "network", "rm", network).CombinedOutput(); err != nil {
			t.Errorf("docker network rm %s: %v %s", network, err, out)
		}
	})
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "volcano-tf-shape.yaml"), &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m", DockerNetwork: network},
		Images: []siteconfig.ImageRule{{Pattern: "volcanosh/*", Replace: torchImage}},
	})
	src, err := os.ReadFile(filepath.Join(agent.Repo(), "examples", "mesh.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Job.Roles {
		// No volume carries the checkout into the container: the program
		// travels in the environment, the job's shell and its host files
		// unchanged (as integration/multihost's docker run).
		for _, argv := range [][]string{r.Command.Command, r.Command.Args} {
			for i := range argv {
				argv[i] = strings.Replace(argv[i], "python3 examples/mesh.py", `python3 -c "$JS_MESH"`, 1)
			}
		}
		r.Env = append(r.Env, jobs.EnvVar{Name: "JS_MESH", Value: string(src)})
	}
	res, id := run(t, p)
	defer func() {
		// purge, and wait until the containers have left the network
		c.Jobs().Deregister(id, true, nil)
		for range 60 {
			out, _ := exec.Command("docker", "network", "inspect", "-f", "{{len .Containers}}", network).Output()
			if strings.TrimSpace(string(out)) == "0" {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	job, _, err := c.Jobs().Info(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(job.Constraints) > 0 {
		t.Errorf("job constraints %v, want none (no distinct_hosts)", job.Constraints)
	}
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	var out strings.Builder
	nodes := map[string]bool{}
	for _, a := range allocs {
		nodes[a.NodeID] = true
		out.WriteString(catLogs(t, a.ID, nomad.MainTask))
		out.WriteString(catStderr(t, a.ID, nomad.MainTask))
	}
	logs := out.String()
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v\n%s", res, logs)
	}
	if len(nodes) != 1 {
		t.Errorf("the tasks ran on %d clients, want 1", len(nodes))
	}
	// each task listens at its own name from the host files, on 2222
	for _, name := range []string{"ps:0", "worker:0", "worker:1"} {
		role, idx, _ := strings.Cut(name, ":")
		want := fmt.Sprintf("%s: listening on tensorflow-dist-%s-%s.tensorflow-dist:2222\n", name, role, idx)
		if !strings.Contains(logs, want) {
			t.Errorf("no line %q:\n%s", want, logs)
		}
	}
	// each worker reached the ps and the other worker: 1000 (ps) + 10 + 20
	reached := workerMeshRe.FindAllStringSubmatch(logs, -1)
	if len(reached) != 2 {
		t.Fatalf("%d workers reached every peer, want 2:\n%s", len(reached), logs)
	}
	for _, m := range reached {
		other := map[string]string{"0": "1", "1": "0"}[m[1]]
		if m[2] != "ps:0,worker:"+other || m[3] != "1030" {
			t.Errorf("worker %s reached %s with sum %s, want ps:0,worker:%s and 1030", m[1], m[2], m[3], other)
		}
	}
}

// TestVolcanoTFShapeDockerNoNetwork: the same job in docker on the
// one-client agent without the site's Docker network needs a client per
// task, and its submission is refused at the job's name, naming
// nomad.docker_network; nothing is registered.
func TestVolcanoTFShapeDockerNoNetwork(t *testing.T) {
	needDocker(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	c := agent.Client(t)
	if nodes, _, err := c.Nodes().List(nil); err != nil || len(nodes) != 1 {
		t.Skipf("the agent has %d clients (%v), the test needs one", len(nodes), err)
	}
	path := filepath.Join(agent.Repo(), "examples", "volcano-tf-shape.yaml")
	p := loadPlan(t, path, &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "volcanosh/*", Replace: torchImage}},
	})
	p.Options["id"] = fmt.Sprintf("%s-%d", p.Job.Name, time.Now().UnixNano()%1e9)
	p.Options[nomad.OptWatched] = "true"
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = d.Submit(ctx, p)
	at := path + ":13:9: One task per node is impossible here"
	if !errors.Is(err, nomad.ErrPlacement) || !strings.Contains(fmt.Sprint(err), at) || !strings.Contains(fmt.Sprint(err), `docker_network = "jobshift"`) {
		t.Errorf("Submit: %v, want a placement error at %s naming nomad.docker_network", err, at)
	}
	if _, _, err := c.Jobs().Info(nomad.JobIDFor(p), nil); err == nil {
		t.Errorf("the job %s was registered", nomad.JobIDFor(p))
	}
}
