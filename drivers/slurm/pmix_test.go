package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// fakeBin writes the stand-ins of srun and OpenMPI's mpirun the shim may
// exec: each prints what it got (srun: its argv, the ranks' nodes from
// SLURM_HOSTFILE, the variables the ranks would see), so the test reads
// what the shim asked Slurm for.
func fakeBin(t *testing.T) (bin, real string) {
	t.Helper()
	dir := t.TempDir()
	bin, real = filepath.Join(dir, "bin"), filepath.Join(dir, "real")
	for _, d := range []string{bin, real} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// srun: the options, then the shim's rank wrapper (/bin/sh -c SCRIPT
	// RCFILE) run once per code of FAKE_RCS, srun's exit the highest
	srun := `#!/bin/sh
opts=
while [ $# -gt 0 ] && [ "$1" != /bin/sh ]; do opts="$opts $1"; shift; done
echo "srun$opts"
echo "nodes $(tr '\n' ' ' <"$SLURM_HOSTFILE")"
echo "env FOO=${FOO-} btl=${OMPI_MCA_btl-} ntasks=${SLURM_NTASKS-} label=${SLURM_LABELIO-}"
script=$3 rcfile=$4
shift 4
echo "rank $*"
hi=0
for c in ${FAKE_RCS:-0}; do
	/bin/sh -c "$script" "$rcfile" sh -c "exit $c"
	r=$?
	[ "$r" -gt "$hi" ] && hi=$r
done
exit "$hi"
`
	mpirun := "#!/bin/sh\necho \"real mpirun $*\"\n"
	for p, text := range map[string]string{filepath.Join(bin, "srun"): srun, filepath.Join(real, "mpirun"): mpirun} {
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, real
}

// TestMpirunShim: the mpirun lines of the MPI jobs (and the options and
// host forms OpenMPI 4.1 reads) become the srun --mpi=pmix step they
// should, with the ranks on the nodes a real mpirun would have put them
// (by slot unless --map-by node); what the shim does not translate runs
// OpenMPI's mpirun, saying why. Expected nodes are worked out by hand
// from OpenMPI's mapping rules.
func TestMpirunShim(t *testing.T) {
	const srunOpts = "srun --mpi=pmix --overlap --overcommit --kill-on-bad-exit=1 --job-name=mpirun --ntasks="
	cases := []struct {
		name     string
		args     []string
		hostfile string // the MPIJob default hostfile ("" = none)
		want     []string
		stderr   string
	}{
		{"pai -H", []string{"--allow-run-as-root", "-np", "4", "-H", "master-0:2,worker-0:2", "python3", "-c", "x y"},
			"", []string{srunOpts + "4 --cpus-per-task=1 --distribution=arbitrary --chdir=/\n", "rank python3 -c x y\n", "nodes n1 n1 n2 n2 ", "ntasks= "}, ""},
		{"mpijob default hostfile", []string{"-np", "4", "-bind-to", "none", "-map-by", "slot", "prog"},
			"j-worker-0.j.ns.svc slots=2\n# comment\nj-worker-1.j.ns.svc slots=2\n", []string{"--ntasks=4 ", "nodes n2 n2 n3 n3 "}, ""},
		{"mpijob no -np", []string{"prog"}, "j-worker-0.j.ns.svc slots=2\nj-worker-1.j.ns.svc slots=2\n", []string{"--ntasks=4 ", "nodes n2 n2 n3 n3 "}, ""},
		{"fewer ranks than slots", []string{"-n", "3", "-H", "worker-0:2,master-0:2", "prog"}, "", []string{"nodes n2 n2 n1 "}, ""},
		{"map by node", []string{"--map-by", "node", "-np", "3", "-H", "master-0:2,worker-0:2", "prog"}, "", []string{"nodes n1 n2 n1 "}, ""},
		{"npernode", []string{"-N", "1", "-H", "master-0,worker-0", "prog"}, "", []string{"--ntasks=2 ", "nodes n1 n2 "}, ""},
		{"plain hosts, one slot each", []string{"-H", "master-0,worker-0,j-launcher", "prog"}, "", []string{"--ntasks=3 ", "nodes n1 n2 n1 "}, ""},
		{"localhost", []string{"-np", "2", "prog"}, "", []string{"nodes n1 n1 "}, ""},
		{"-x and --mca", []string{"-x", "FOO=bar", "-x", "PATH", "--mca", "btl", "tcp,self", "--tag-output", "-np", "1", "-H", "worker-0", "prog"},
			"", []string{"env FOO=bar btl=tcp,self ntasks= label=1"}, ""},
		{"wdir", []string{"-wdir", "/tmp", "-np", "1", "prog", "-np", "9"}, "", []string{"--chdir=/tmp\n", "rank prog -np 9\n"}, ""},
		{"more ranks than slots", []string{"-np", "5", "-H", "master-0:2,worker-0:2", "prog"}, "",
			[]string{"real mpirun -np 5 -H master-0:2,worker-0:2 prog"}, "5 ranks but 4 slots"},
		{"oversubscribe", []string{"--oversubscribe", "-np", "5", "-H", "master-0:2,worker-0:2", "prog"}, "", []string{"nodes n1 n1 n2 n2 n1 "}, ""},
		{"unknown option", []string{"--output-filename", "x", "prog"}, "", []string{"real mpirun --output-filename x prog"}, "option --output-filename is not translated"},
		{"unknown host", []string{"-H", "elsewhere:2", "prog"}, "", []string{"real mpirun -H elsewhere:2 prog"}, "host elsewhere is not a task of this job"},
		{"version", []string{"--version"}, "", []string{"real mpirun --version"}, ""},
		{"mpmd", []string{"-np", "1", "a", ":", "-np", "1", "b"}, "", []string{"real mpirun -np 1 a : -np 1 b"}, "MPMD"},
	}
	bin, real := fakeBin(t)
	dir := t.TempDir()
	shim := filepath.Join(dir, "mpirun.sh")
	nodes := filepath.Join(dir, "pmix-nodes")
	os.WriteFile(shim, []byte(shMpirun), 0o644)
	os.WriteFile(nodes, []byte("n1 master-0\nn2 worker-0 j-worker-0.j.ns.svc\nn3 j-worker-1.j.ns.svc j-worker-1\nn1 j-launcher\n"), 0o644)
	for _, sh := range shells {
		path, err := exec.LookPath(sh)
		if err != nil {
			t.Skipf("%s not installed", sh)
		}
		for _, c := range cases {
			t.Run(sh+"/"+c.name, func(t *testing.T) {
				cmd := exec.Command(path, append([]string{shim}, c.args...)...)
				cmd.Dir = "/"
				cmd.Env = []string{"PATH=" + bin + ":" + real + ":/usr/bin:/bin", "JOBSHIFT_MPIRUN_SKIP=" + bin,
					"JOBSHIFT_PMIX_NODES=" + nodes, "SLURMD_NODENAME=n1", "JOBSHIFT_SSH_DIR=" + t.TempDir(), "SLURM_NTASKS=1", "PWD=/"}
				if c.hostfile != "" {
					hf := filepath.Join(t.TempDir(), "hostfile")
					os.WriteFile(hf, []byte(c.hostfile), 0o644)
					cmd.Env = append(cmd.Env, "OMPI_MCA_orte_default_hostfile="+hf)
				}
				var out, errb strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil {
					t.Fatalf("%v; stderr %s", err, errb.String())
				}
				for _, w := range c.want {
					if !strings.Contains(out.String(), w) {
						t.Errorf("output lacks %q:\n%s", w, out.String())
					}
				}
				if c.stderr == "" && errb.Len() > 0 || !strings.Contains(errb.String(), c.stderr) {
					t.Errorf("stderr %q, want %q", errb.String(), c.stderr)
				}
			})
		}
	}
}

// TestMpirunShimExitCode: the shim exits as mpirun does, with the code of
// the first rank that failed, not srun's highest (the SIGTERM of the ranks
// srun killed after it); 0 when every rank succeeded.
func TestMpirunShimExitCode(t *testing.T) {
	bin, real := fakeBin(t)
	dir := t.TempDir()
	shim := filepath.Join(dir, "mpirun.sh")
	os.WriteFile(shim, []byte(shMpirun), 0o644)
	os.WriteFile(filepath.Join(dir, "nodes"), []byte("n1 master-0\n"), 0o644)
	for _, c := range []struct {
		rcs  string
		want int
	}{{"0 0 0", 0}, {"0 3 143 143", 3}, {"139 143", 139}, {"0 143 3", 143}} {
		for _, sh := range shells {
			ssh := t.TempDir()
			cmd := exec.Command(sh, shim, "-np", "3", "prog")
			cmd.Env = []string{"PATH=" + bin + ":" + real + ":/usr/bin:/bin", "JOBSHIFT_MPIRUN_SKIP=" + bin, "FAKE_RCS=" + c.rcs,
				"JOBSHIFT_PMIX_NODES=" + filepath.Join(dir, "nodes"), "SLURMD_NODENAME=n1", "JOBSHIFT_SSH_DIR=" + ssh}
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.want {
				t.Errorf("%s: ranks ending %s: exit %d, want %d\n%s", sh, c.rcs, code, c.want, out)
			}
			if left, _ := os.ReadDir(ssh); len(left) > 0 {
				t.Errorf("%s: files left: %v", sh, left)
			}
		}
	}
}

// TestPmixOn: the opt-in covers OpenMPI jobs that run the ssh emulation;
// an Intel MPI job keeps ssh with a located warning; a job without the
// emulation is untouched.
func TestPmixOn(t *testing.T) {
	pmix := settings{MPI: MPIPMIx}
	for _, c := range []struct {
		gen      string
		st       settings
		on, warn bool
	}{
		{"v1", pmix, true, false},
		{"v1", settings{MPI: MPISSH}, false, false},
		{"v2beta1", pmix, false, true}, // mpiImplementation: Intel
	} {
		on, d := pmixOn(mpiJob(c.gen)(), c.st)
		if on != c.on || (len(d) > 0) != c.warn {
			t.Errorf("%s %s: on %v diags %v, want on %v warning %v", c.gen, c.st.MPI, on, d, c.on, c.warn)
		}
		if c.warn && (d[0].Subject == nil || d[0].Subject.Filename == "") {
			t.Errorf("%s: warning without a position: %v", c.gen, d)
		}
	}
	if on, _ := pmixOn(paiJob(), pmix); on {
		t.Error("a PAI job without the ssh plugin turned pmix on")
	}
	sc, err := render(&translate.Plan{Job: mpiJob("v1")(), Site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{MPI: MPIPMIx}},
		Options: map[string]string{"layout": LayoutHet}})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Layout != LayoutPacked || !hasSummary(sc.Warnings, "Layout het ignored") {
		t.Errorf("layout %s warnings %v, want packed and a warning", sc.Layout, sc.Warnings)
	}
}

func hasSummary(ds hcl.Diagnostics, s string) bool {
	for _, d := range ds {
		if d.Summary == s {
			return true
		}
	}
	return false
}
