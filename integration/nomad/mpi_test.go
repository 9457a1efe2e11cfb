package nomad_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/hcl"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestMPIAllreduceOnRawExec runs the MPI jobs of integration/testdata/mpi
// on raw_exec with the ssh emulation (sshd per task on its dynamic `ssh`
// port, the job key from the job's Nomad Variable): every rank prints the
// same sum, the launcher's success ends the job, and no sshd or rank is
// left on the client afterwards.
func TestMPIAllreduceOnRawExec(t *testing.T) {
	drivertest.NeedMPI(t)
	mpiOnNomad(t, site())
}

// mpiImage is the torch image with openssh-server, openmpi-bin and
// python3-mpi4py (build-mpi-image.sh).
const mpiImage = "jobshift/mpi:bookworm"

// TestMPIAllreduceOnDocker: the same jobs in containers (host network):
// the wrapper, the sshd and the ranks run in the image.
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
	mpiOnNomad(t, &hcl.Config{
		Nomad:  &hcl.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []hcl.ImageRule{{Pattern: torchImage, Replace: mpiImage}},
	})
}

func mpiOnNomad(t *testing.T, cfg *hcl.Config) {
	for _, tc := range drivertest.MPIJobs {
		t.Run(tc.Name, func(t *testing.T) {
			file, marker := drivertest.MPIJobFile(t, tc.File)
			p := loadPlan(t, file, cfg)
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
		})
	}
}

func catStderr(t *testing.T, alloc, task string) string {
	t.Helper()
	out, _ := exec.Command(agent.Binary(), "alloc", "logs", "-stderr", "-address", agent.Addr(t), alloc, task).CombinedOutput()
	return string(out)
}
