package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/shvars"
)

// mpirunOutput is true for what mpirun.sh sets for the ranks on purpose
// (mpirun's -x and --mca, srun's own SLURM_HOSTFILE and SLURM_LABELIO),
// and its inputs.
func mpirunOutput(n string) bool {
	switch n {
	case "SLURM_HOSTFILE", "SLURM_LABELIO", "SLURMD_NODENAME":
		return true
	}
	return shvars.Shell(n) || strings.HasPrefix(n, "OMPI_MCA_") || strings.HasPrefix(n, "JOBSHIFT_")
}

// TestMpirunShimKeepsJobVariables: a job variable named as one of the
// shim's own (np, hosts, a, rc, ...) reaches the ranks unchanged, whether
// srun starts them or OpenMPI's own mpirun does (a line the shim does not
// translate).
func TestMpirunShimKeepsJobVariables(t *testing.T) {
	dir := t.TempDir()
	bin, real := filepath.Join(dir, "bin"), filepath.Join(dir, "real")
	// srun runs the shim's rank wrapper once, mpirun prints what it got:
	// neither assigns a variable of its own
	files := map[string]string{
		filepath.Join(bin, "srun"):      "#!/bin/sh\nwhile [ \"$1\" != /bin/sh ]; do shift; done\nexec \"$@\"\n",
		filepath.Join(real, "mpirun"):   "#!/bin/sh\nexec env\n",
		filepath.Join(dir, "mpirun.sh"): shMpirun,
		filepath.Join(dir, "nodes"):     "n1 master-0\n",
	}
	for _, d := range []string{bin, real} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sentinels := shvars.Sentinels(shMpirun, regexp.MustCompile(`^_jsm_`), mpirunOutput)
	for _, sh := range shells {
		if _, err := exec.LookPath(sh); err != nil {
			t.Skipf("%s not installed", sh)
		}
		for name, args := range map[string][]string{"srun": {"-np", "1", "-H", "master-0", "env"}, "mpirun": {"--output-filename", "x", "env"}} {
			t.Run(sh+"/"+name, func(t *testing.T) {
				cmd := exec.Command(sh, append([]string{filepath.Join(dir, "mpirun.sh")}, args...)...)
				cmd.Dir = "/"
				cmd.Env = append(shvars.Env(sentinels), "PATH="+bin+":"+real+":/usr/bin:/bin", "JOBSHIFT_MPIRUN_SKIP="+bin,
					"JOBSHIFT_PMIX_NODES="+filepath.Join(dir, "nodes"), "SLURMD_NODENAME=n1", "JOBSHIFT_SSH_DIR="+t.TempDir())
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				shvars.Check(t, string(out), sentinels)
			})
		}
	}
}
