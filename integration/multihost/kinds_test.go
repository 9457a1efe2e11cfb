package multihost_test

import (
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/siteconfig"
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
	site := *c.Site
	ns := *site.Nomad
	ns.Driver = "docker"
	site.Nomad = &ns
	site.Images = append([]siteconfig.ImageRule{{Pattern: "*", Replace: torchImage}}, site.Images...)
	dc := &cluster{Engine: c.Engine, Env: c.Env, Hosts: c.Hosts, Site: &site}
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
