package multihost_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestNomadPaddleDocker: the PaddleJob example (collective mode) on the
// clients' own Docker daemons, its tasks on several hosts. A Kubeflow
// kind's container shares its client's network (network_mode host, as a
// hostNetwork pod), so POD_IP_DUMMY, the client's address, is what the
// operator's status.podIP was: the task's own address (the stand-in's
// master binds it and reaches itself at PADDLE_MASTER, as Paddle's
// HTTPMaster does) and the one its peers on the other hosts dial. Every
// process was given exactly the oracle's variables.
func TestNomadPaddleDocker(t *testing.T) {
	c := need(t, "nomad")
	needClientImage(t, c, torchImage, "build-torch-image.sh")
	cl := nomadClient(t, c)
	dc := onDocker(c, siteconfig.ImageRule{Pattern: "*", Replace: torchImage})
	plan := loadPlan(t, dc, drivertest.StandInImageJob(t, "paddlejob-collective.yaml", "paddle"))
	tasks, topo := runNomadPlaced(t, dc, cl, plan)
	for _, nt := range tasks {
		for _, task := range nt.alloc.Job.LookupTaskGroup(nt.alloc.TaskGroup).Tasks {
			if task.Name == nomad.MainTask && (task.Driver != "docker" || task.Config["network_mode"] != "host") {
				t.Errorf("%s: driver %s network_mode %v, want docker in its client's network", nt.alloc.Name, task.Driver, task.Config["network_mode"])
			}
		}
	}
	checkNomadPrintedEnv(t, cl, plan, topo, tasks)
}

// TestNomadDDPTorchDocker: the PyTorch DDP examples (gloo, CPU, no
// GLOO_SOCKET_IFNAME) in containers on the clients' own Docker daemons,
// ranks on several hosts. Gloo binds the address the container's host
// name resolves to, and loopback when it resolves to none (PyTorch
// v1.13.1, the image's Debian python3-torch:
// torch/csrc/distributed/c10d/ProcessGroupGloo.cpp, createDefaultDevice),
// so each container's host name must resolve to its task's address on the
// cluster network (extra_hosts) for the ranks on other hosts to connect;
// every rank ends with the same parameters.
func TestNomadDDPTorchDocker(t *testing.T) {
	c := need(t, "nomad")
	needClientImage(t, c, torchImage, "build-torch-image.sh")
	cl := nomadClient(t, c)
	dc := onDocker(c, siteconfig.ImageRule{Pattern: "*", Replace: torchImage})
	for _, f := range []string{"pytorchjob-ddp.yaml", "pai-v2-ddp-torch.yaml"} {
		t.Run(f, func(t *testing.T) {
			plan := loadPlan(t, dc, drivertest.StandInScriptJob(t, f, "ddp_train.py"))
			res, id := runNomad(t, dc, plan, 2*time.Minute)
			tasks := nomadTasks(t, cl, id)
			var logs strings.Builder
			for _, nt := range tasks {
				for _, task := range nt.alloc.Job.LookupTaskGroup(nt.alloc.TaskGroup).Tasks {
					if task.Name == nomad.MainTask && task.Driver != "docker" {
						t.Errorf("%s: driver %s, want docker", nt.alloc.Name, task.Driver)
					}
				}
				logs.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
			}
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v\n%s", res, logs.String())
			}
			checkChecksums(t, logs.String())
			checkNodes(t, c, cl, plan, nomadTopology(plan, id, tasks), tasks)
		})
	}
}
