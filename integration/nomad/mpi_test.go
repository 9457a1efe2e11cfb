package nomad_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestMPIAllreduceOnRawExec runs the MPI jobs of integration/testdata/mpi
// on raw_exec with the ssh emulation (sshd per task on its dynamic `ssh`
// port, the job key from the job's Nomad Variable): every rank prints the
// same sum, the launcher's success ends the job, and no sshd or rank is
// left on the client afterwards. The ranks of one task share memory, the
// ranks of different tasks do not (each task its own host name).
func TestMPIAllreduceOnRawExec(t *testing.T) {
	drivertest.NeedMPI(t)
	mpiOnNomad(t, site())
}

// mpiImage is the torch image with openssh-server, openmpi-bin and
// python3-mpi4py (build-mpi-image.sh).
const mpiImage = "jobshift/mpi:bookworm"

// TestMPIAllreduceOnDocker: the same jobs in containers (host network):
// the wrapper, the sshd and the ranks run in the image; each container has
// its task's host name, so ranks of different containers use TCP.
func TestMPIAllreduceOnDocker(t *testing.T) {
	needDocker(t)
	if err := exec.Command("docker", "image", "inspect", mpiImage).Run(); err != nil {
		if os.Getenv("CI") != "true" && os.Getenv("JOBSHIFT_BUILD_IMAGES") != "1" {
			t.Skip("image " + mpiImage + " is missing: run integration/nomad/build-mpi-image.sh")
		}
		if out, err := exec.Command("bash", filepath.Join(agent.Repo(), "integration", "nomad", "build-mpi-image.sh"), mpiImage).CombinedOutput(); err != nil {
			t.Fatalf("build-mpi-image.sh: %v\n%s", err, out)
		}
	}
	mpiOnNomad(t, &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: torchImage, Replace: mpiImage}},
	})
}

func mpiOnNomad(t *testing.T, cfg *siteconfig.Config) {
	for _, tc := range drivertest.MPIJobs {
		t.Run(tc.Name, func(t *testing.T) {
			file, marker := drivertest.MPIJobFile(t, tc.File)
			p := loadPlan(t, file, cfg)
			// raw_exec tasks share this machine's file system: each
			// command's environment is checked
			// and in containers the environment the task was given
			checkEnv := func(id string) { checkRenderedEnv(t, agent.Client(t), p, id, nomad.ContractOptions(p), nil) }
			if cfg.Nomad.Driver == "raw_exec" {
				checkEnv = envDumped(t, p)
			}
			res, id := run(t, p)
			c, err := api.NewClient(&api.Config{Address: agent.Addr(t)})
			if err != nil {
				t.Fatal(err)
			}
			allocs, _, err := c.Jobs().Allocations(id, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			var logs strings.Builder
			for _, a := range allocs {
				logs.WriteString(catLogs(t, a.ID, nomad.MainTask))
			}
			if res.Phase != completion.PhaseSucceeded {
				for _, a := range allocs {
					t.Logf("%s stderr:\n%s", a.Name, catStderr(t, a.ID, nomad.MainTask))
				}
				t.Fatalf("result %+v", res)
			}
			drivertest.CheckAllreduce(t, logs.String(), tc.Ranks)
			if tc.SharedMemory != nil {
				drivertest.CheckSharedMemory(t, logs.String(), tc.SharedMemory)
			}
			checkEnv(id)
			// the job key is a secret: gone with the verdict
			drivertest.NoNomadVariable(t, c, nomad.VariablePath(id))
			var left []string
			deadline := time.Now().Add(30 * time.Second)
			for {
				left = drivertest.Leftovers(marker)
				for _, a := range allocs {
					left = append(left, drivertest.Leftovers(a.ID)...)
				}
				if len(left) == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if len(left) > 0 {
				t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
			}
			// raw_exec tasks wrote the hostfile into the client's /tmp;
			// the last task of the job there removed it
			if _, err := os.Stat(nomad.MPIDir(id)); !os.IsNotExist(err) {
				t.Errorf("MPI directory %s left on the client: %v", nomad.MPIDir(id), err)
			}
		})
	}
}

func catStderr(t *testing.T, alloc, task string) string {
	t.Helper()
	out, _ := exec.Command(agent.Binary(), "alloc", "logs", "-stderr", "-address", agent.Addr(t), alloc, task).CombinedOutput()
	return string(out)
}

// TestMPIConvertedPlainNomadRun: an MPI job converted to HCL and submitted
// with plain `nomad job run` — no jobshift process, so no job key written
// beforehand — makes its own key (the sshkey prestart task), runs the
// allreduce on every rank, ends by the finisher's verdict, and the key's
// Variable is gone afterwards.
func TestMPIConvertedPlainNomadRun(t *testing.T) {
	drivertest.NeedMPI(t)
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	for _, tc := range drivertest.MPIJobs[:1] {
		t.Run(tc.Name, func(t *testing.T) {
			file, marker := drivertest.MPIJobFile(t, tc.File)
			p := loadPlan(t, file, site())
			id := fmt.Sprintf("mpiplain-%d", time.Now().UnixNano()%1e9)
			p.Options["id"] = id
			p.Options[nomad.OptWorkDir] = filepath.Dir(file)
			p.Options[nomad.OptHelper] = helper(t)
			d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
			art, err := d.Render(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(t.TempDir(), "job.nomad.hcl")
			if err := os.WriteFile(f, art.Files[0].Data, 0o644); err != nil {
				t.Fatal(err)
			}
			if v, _, _ := c.Variables().Peek(nomad.VariablePath(id), nil); v != nil {
				t.Fatalf("Variable %s exists before the job", nomad.VariablePath(id))
			}
			if out, err := exec.Command(agent.Binary(), "job", "run", "-detach", f).CombinedOutput(); err != nil {
				t.Fatalf("nomad job run: %v\n%s", err, out)
			}
			defer c.Jobs().Deregister(id, true, nil)
			var verdict *api.Variable
			for end := time.Now().Add(3 * time.Minute); verdict == nil && time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
				verdict, _, _ = c.Variables().Peek(nomad.ResultPath(id), nil)
			}
			allocs, _, err := c.Jobs().Allocations(id, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			if verdict == nil || verdict.Items["phase"] != "succeeded" {
				for _, a := range allocs {
					t.Logf("%s stderr:\n%s\nsshkey:\n%s", a.Name, catStderr(t, a.ID, nomad.MainTask), catStderr(t, a.ID, nomad.SSHKeyTask))
				}
				t.Fatalf("verdict %v, want succeeded", verdict)
			}
			var logs, keyLogs strings.Builder
			for _, a := range allocs {
				logs.WriteString(catLogs(t, a.ID, nomad.MainTask))
				keyLogs.WriteString(catLogs(t, a.ID, nomad.SSHKeyTask))
			}
			drivertest.CheckAllreduce(t, logs.String(), tc.Ranks)
			if n := strings.Count(keyLogs.String(), "made the job key"); n != 1 {
				t.Errorf("%d sshkey tasks made the job key, want exactly 1:\n%s", n, keyLogs.String())
			}
			drivertest.NoNomadVariable(t, c, nomad.VariablePath(id))
			deadline := time.Now().Add(30 * time.Second)
			for left := drivertest.Leftovers(marker); len(left) > 0; left = drivertest.Leftovers(marker) {
				if time.Now().After(deadline) {
					t.Fatalf("left behind:\n%s", strings.Join(left, "\n"))
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
}
