package slurm

import (
	"fmt"
	"github.com/jobshift/jobshift/drivers/sshemu"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

func hookSite(t *testing.T, src string) *siteconfig.Config {
	t.Helper()
	cfg, diags := siteconfig.ParseConfig([]byte(src), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return cfg
}

// sbatchLines are the #SBATCH lines of a script, in order.
func sbatchLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, "#SBATCH "); ok {
			out = append(out, v)
		}
	}
	return out
}

// TestSiteDirectives: the site's, the role rules' and the run's directives
// follow jobshift's own; in het each component gets the site's and the
// run's and its own role's; in packed the one allocation gets every role's.
func TestSiteDirectives(t *testing.T) {
	site := hookSite(t, `
slurm { sbatch = ["--constraint=fast"] }
role "worker" { sbatch = ["--reservation=gpu"] }
role "*"      { sbatch = ["--nice=5"] }
`)
	cases := map[string][]string{
		"het": {"--job-name=ps-worker", "--output=%x-%j.out --open-mode=append", "--requeue", "--comment=jobshift:pai-v2:job.yaml",
			"--ntasks=2 --cpus-per-task=2 --mem-per-cpu=2048M --gres=none --distribution=block",
			"--constraint=fast", "--nice=5", "--qos=high",
			"hetjob",
			"--ntasks=3 --cpus-per-task=1 --mem-per-cpu=8192M --gpus-per-task=2 --distribution=block",
			"--constraint=fast", "--reservation=gpu", "--qos=high"},
		"packed": {"--job-name=ps-worker", "--output=%x-%j.out --open-mode=append", "--requeue", "--comment=jobshift:pai-v2:job.yaml",
			"--ntasks=5 --cpus-per-task=2 --mem-per-cpu=8192M --gpus-per-task=2 --distribution=block",
			"--constraint=fast", "--nice=5", "--reservation=gpu", "--qos=high"},
	}
	for layout, want := range cases {
		t.Run(layout, func(t *testing.T) {
			sc, err := render(&translate.Plan{Job: paiJob(), User: "alice", Site: site,
				Options: map[string]string{"layout": layout, OptSbatchArgs: "--qos=high"}})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, sbatchLines(sc.Text)); d != "" {
				t.Errorf("#SBATCH lines (-want +got):\n%s", d)
			}
		})
	}
}

func TestCheckSbatchArg(t *testing.T) {
	ok := []string{"--constraint=a100", "--qos=high", "-q high", "--exclusive", "-pgpu", "--time=1:00:00", "--comment=x"}
	bad := []string{"constraint=a100", "", "-", "--", "--ntasks=2", "-n 2", "-n2", "--mem=4G", "--output=x", "--gres=gpu:1",
		"--job-name=x", "--requeue", "--array=1-3", "--a\n#SBATCH --b"}
	for _, a := range ok {
		if msg := siteconfig.CheckSbatchArg(a); msg != "" {
			t.Errorf("%q refused: %s", a, msg)
		}
	}
	for _, a := range bad {
		if siteconfig.CheckSbatchArg(a) == "" {
			t.Errorf("%q accepted", a)
		}
	}
	if _, err := render(&translate.Plan{Job: paiJob(), Site: &siteconfig.Config{}, Options: map[string]string{OptSbatchArgs: "--mem=1G"}}); err == nil {
		t.Error("render accepted -sbatch-arg --mem=1G")
	}
}

// TestSetupCommands: a role's setup lines run, in order, in the shell that
// then execs the user's command (their exports reach it); a failing line
// ends the task with 97 and names itself; other roles run no setup.
func TestSetupCommands(t *testing.T) {
	site := hookSite(t, `role "worker" { setup = ["X=one", "X=\"$X two\"; export X"] }
role "ps" { setup = ["false"] }`)
	job := paiJob()
	job.Roles[1].Command.Script = `printf '%s\n' "$X"`
	plan := &translate.Plan{Job: job, Site: site}
	st, err := resolveSettings(plan)
	if err != nil {
		t.Fatal(err)
	}
	var roles []roleInfo
	for k, r := range job.Roles {
		rp := plan.Compiled().Roles[k]
		roles = append(roles, roleInfo{Role: r, k: k, res: roleRes(site, r), launch: rp.Launch, ssh: rp.SSH, sshIdle: rp.SSHIdle})
	}
	if st.hooks, err = resolveHooks(&translate.Plan{Job: job, Site: site}, roles); err != nil {
		t.Fatal(err)
	}
	task, err := taskProgram(job, roles, st)
	if err != nil {
		t.Fatal(err)
	}
	task, _, _ = strings.Cut(task, "case $0 in") // the functions only
	for _, sh := range shells {
		out, code := runSh(t, sh, task, `js_run 1 "$PWD"`)
		if code != 0 || out != "one two\n" {
			t.Errorf("%s: worker printed %q, exit %d; want the setup's export", sh, out, code)
		}
		path, _ := exec.LookPath(sh)
		b, err := exec.Command(path, "-c", task+"\njs_run 0 \"$PWD\"").CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 97 || !strings.Contains(string(b), "setup command failed (1): ps: false") {
			t.Errorf("%s: failing setup: %v %q", sh, err, b)
		}
	}
}

// TestShmCheck: a role that sized /dev/shm gets a start-up check that warns
// when the node's /dev/shm has less free space; no warning when it has.
func TestShmCheck(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	for _, tc := range []struct {
		mib  int64
		warn bool
	}{{1, false}, {1 << 40, true}} {
		for _, sh := range shells {
			path, err := exec.LookPath(sh)
			if err != nil {
				continue
			}
			b, err := exec.Command(path, "-c", shStage+fmt.Sprintf("\njs_shm_check %d\n", tc.mib)).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v %s", sh, err, b)
			}
			if got := strings.Contains(string(b), "jobshift: warning: /dev/shm on"); got != tc.warn {
				t.Errorf("%s: %d MiB: warned %v (%q), want %v", sh, tc.mib, got, b, tc.warn)
			}
		}
	}
}

// TestLibrarySourcing: the script refuses a missing library and one with
// other content (exit 97, saying which), and sources the right one (js_main
// then runs and asks for sbatch's SLURM_JOB_ID).
func TestLibrarySourcing(t *testing.T) {
	sc, err := render(&translate.Plan{Job: paiJob(), User: "alice", Site: &siteconfig.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	name, _ := libraryName(sc.Library)
	dir := t.TempDir()
	script := filepath.Join(dir, "job.sbatch")
	os.WriteFile(script, []byte(sc.Text), 0o755)
	run := func() (string, int) {
		cmd := exec.Command("/bin/sh", script)
		cmd.Env = append(os.Environ(), "SLURM_SUBMIT_DIR="+dir, "SLURM_JOB_ID=", "JOBSHIFT_SLURM_LIB=", "JOBSHIFT_STATE_DIR=")
		b, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(b), code
	}
	if out, code := run(); code != 97 || !strings.Contains(out, "library "+name+" not found") {
		t.Errorf("missing library: exit %d %q", code, out)
	}
	os.WriteFile(filepath.Join(dir, name), []byte(sc.Library+"\n# changed\n"), 0o644)
	if out, code := run(); code != 97 || !strings.Contains(out, "is not the library this script was generated with") {
		t.Errorf("changed library: exit %d %q", code, out)
	}
	os.WriteFile(filepath.Join(dir, name), []byte(sc.Library), 0o644)
	if out, code := run(); code == 0 || !strings.Contains(out, "run this script with sbatch") {
		t.Errorf("right library: exit %d %q, want js_main's check of SLURM_JOB_ID", code, out)
	}
}

// TestRunShellNames: sh/run.sh sets the ssh emulation's variables by name;
// the names are drivers/sshemu's.
func TestRunShellNames(t *testing.T) {
	for _, v := range []string{sshemu.KeyVar, sshemu.DirVar} {
		if !strings.Contains(shRun, v+"=") || !strings.Contains(shRun, "export "+sshemu.KeyVar+" "+sshemu.DirVar) {
			t.Errorf("sh/run.sh does not set and export %s", v)
		}
	}
}
