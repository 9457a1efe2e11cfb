package multihost_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// checkMPILeftovers: no process whose command line holds a marker (the
// job's directories, its ranks' MPIJobFile marker) is alive on any host
// (the hosts are network namespaces of this machine: one process table).
func checkMPILeftovers(t *testing.T, markers ...string) {
	t.Helper()
	var left []string
	deadline := time.Now().Add(30 * time.Second)
	for {
		left = nil
		for _, m := range markers {
			left = append(left, drivertest.Leftovers(m)...)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
	}
}

// TestMPIAllreduceNomad: the MPI jobs on the Nomad cluster (raw_exec),
// tasks spread over the clients, ssh and MPI over the cluster network, the
// jobs unchanged: each task's view names its address's interface for
// OpenMPI (drivers/taskns), ranks of one task share memory and ranks of
// different tasks do not, on one client or two.
func TestMPIAllreduceNomad(t *testing.T) {
	c := need(t, "nomad")
	drivertest.NeedMPI(t)
	mpiAllreduceNomad(t, c)
}

// mpiImage is the torch image with sshd, OpenMPI and mpi4py
// (integration/nomad/build-mpi-image.sh), which cluster.sh loads into the
// clients' daemons.
const mpiImage = "jobshift/mpi:bookworm"

// TestMPIAllreduceNomadDocker: the same jobs in containers on the clients'
// own Docker daemons (host network, as the Docker driver runs an ssh
// job): each container has its task's host name, the ranks reach the
// other clients' containers over the cluster network.
func TestMPIAllreduceNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	needClientImage(t, c, mpiImage, "build-mpi-image.sh")
	mpiAllreduceNomad(t, onDocker(c, siteconfig.ImageRule{Pattern: torchImage, Replace: mpiImage}))
}

func mpiAllreduceNomad(t *testing.T, c *cluster) {
	for _, tc := range drivertest.MPIJobs {
		t.Run(tc.Name, func(t *testing.T) {
			file, marker := drivertest.MPIJobFile(t, tc.File)
			plan := loadPlan(t, c, file)
			res, id := runNomad(t, c, plan, 4*time.Minute)
			cl := nomadClient(t, c)
			var logs strings.Builder
			var allocs []string
			tasks := nomadTasks(t, cl, id)
			for _, nt := range tasks {
				allocs = append(allocs, nt.alloc.ID)
				if rc, err := cl.AllocFS().Cat(nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0", nil); err == nil {
					b, _ := io.ReadAll(rc)
					rc.Close()
					logs.Write(b)
				}
			}
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v", res)
			}
			drivertest.CheckAllreduce(t, logs.String(), tc.Ranks)
			if tc.SharedMemory != nil {
				drivertest.CheckSharedMemory(t, logs.String(), tc.SharedMemory)
			}
			checkNodes(t, c, cl, plan, nomadTopology(plan, id, tasks), tasks)
			checkMPILeftovers(t, append(allocs, marker)...)
			// the hosts share this machine's /tmp: the job's last task on
			// each client removed the MPI directory there
			if _, err := os.Stat(nomad.MPIDir(id)); !os.IsNotExist(err) {
				t.Errorf("MPI directory %s left: %v", nomad.MPIDir(id), err)
			}
		})
	}
}

// TestMPIAllreduceSlurm: the three MPI jobs on the Slurm cluster, tasks
// spread over the nodes.
func TestMPIAllreduceSlurm(t *testing.T) {
	c := need(t, "slurm")
	drivertest.NeedMPI(t)
	mpiAllreduceSlurm(t, c, "")
}

// TestMPIAllreduceSlurmPMIx: the same under slurm { mpi = "pmix" }: the
// ranks are the tasks of one srun --mpi=pmix step over the nodes of the
// tasks the mpirun line names, PMIx wiring them across hosts.
func TestMPIAllreduceSlurmPMIx(t *testing.T) {
	c := need(t, "slurm")
	drivertest.NeedMPI(t)
	drivertest.NeedPMIx(t)
	mpiAllreduceSlurm(t, c, "pmix")
}

func mpiAllreduceSlurm(t *testing.T, c *cluster, mpi string) {
	for _, tc := range drivertest.MPIJobs {
		t.Run(tc.Name, func(t *testing.T) {
			file, marker := drivertest.MPIJobFile(t, tc.File)
			plan := loadPlan(t, c, file)
			if mpi != "" {
				plan.Options["mpi"] = mpi
			}
			r := runSlurm(t, plan, 4*time.Minute)
			role, _, _ := strings.Cut(tc.Launcher, "-")
			out := r.taskLog(t, role, 0)
			if r.final.Phase != completion.PhaseSucceeded {
				t.Fatalf("final %+v; launcher output:\n%s", r.final, out)
			}
			drivertest.CheckAllreduce(t, out, tc.Ranks)
			// under pmix the ranks are the tasks of Slurm's own step, not
			// processes in the workers' namespaces
			if tc.SharedMemory != nil && mpi == "" {
				drivertest.CheckSharedMemory(t, out, tc.SharedMemory)
			}
			if mpi == "pmix" {
				errOut, _ := os.ReadFile(filepath.Join(r.adir, role+"-0.err"))
				// the ranks' step spans the workers' hosts
				if nodes := drivertest.CheckPMIxStep(t, r.id, out+string(errOut)); len(nodes) < 2 {
					t.Errorf("the mpirun step ran on %v, want the hosts of the tasks the line names", nodes)
				}
			}
			checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
			checkMPILeftovers(t, filepath.Dir(r.adir), marker)
		})
	}
}
