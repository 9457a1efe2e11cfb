package nomad_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

var checksumRe = regexp.MustCompile(`rank (\d) of 2 checksum (\S+)`)

// ddp runs examples/pai-v2-ddp-torch.yaml (2 workers, gloo, CPU) and
// checks that both ranks trained and ended with identical parameters.
func ddp(t *testing.T, cfg *siteconfig.Config, inImage bool) {
	t.Helper()
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pai-v2-ddp-torch.yaml"), cfg)
	if inImage {
		// No volume carries the checkout into the container: send the
		// script itself (the rest of the user's commands is unchanged).
		src, err := os.ReadFile(filepath.Join(agent.Repo(), "examples", "ddp_train.py"))
		if err != nil {
			t.Fatal(err)
		}
		w := p.Job.Role("worker")
		w.Command.Script = strings.Replace(w.Command.Script, "python3 examples/ddp_train.py",
			`python3 -c "$(echo `+base64.StdEncoding.EncodeToString(src)+` | base64 -d)"`, 1)
	}
	res, sums := runTraining(t, p, checksumRe, nil)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	if len(sums) != 2 || sums["0"] != sums["1"] {
		t.Errorf("checksums %v, want two equal", sums)
	}
	t.Logf("both ranks: checksum %s", sums["0"])
}

// torchPath: raw_exec tasks inherit the agent's PATH; Debian's
// python3-torch is for /usr/bin/python3.
var torchPath = []siteconfig.RoleRule{{Pattern: "*", Env: map[string]string{"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}}}

func TestDDPTrainsOnRawExec(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/torch"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-torch is not installed")
		}
		t.Skip("python3-torch is not installed")
	}
	ddp(t, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m"}, Roles: torchPath}, false)
}

func TestDDPTrainsOnDocker(t *testing.T) {
	needDocker(t)
	ddp(t, &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "openpai/standard:*", Replace: torchImage}},
	}, true)
}

// runTraining runs p to its end and reads every main task's log: each rank's
// model checksum (re: rank, checksum) and that it trained its five steps;
// after (if any) sees the ended job before it is purged.
func runTraining(t *testing.T, p *translate.Plan, re *regexp.Regexp, after func(id string)) (*drivers.Result, map[string]string) {
	t.Helper()
	res, id := run(t, p)
	c := agent.Client(t)
	defer c.Jobs().Deregister(id, true, nil)
	if after != nil {
		after(id)
	}
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	sums := map[string]string{}
	for _, a := range allocs {
		logs := catLogs(t, a.ID, nomad.MainTask)
		for _, m := range re.FindAllStringSubmatch(logs, -1) {
			sums[m[1]] = m[2]
		}
		if !strings.Contains(logs, "step 4 loss") {
			t.Errorf("%s did not train 5 steps:\n%s", a.Name, logs)
		}
	}
	return res, sums
}
