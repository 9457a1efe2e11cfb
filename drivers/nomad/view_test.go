package nomad

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/jobs"
)

// viewTemplates are the main task's templates by destination.
func viewTemplates(t *testing.T, job *api.Job) map[string]*api.Template {
	t.Helper()
	out := map[string]*api.Template{}
	for _, tk := range job.TaskGroups[0].Tasks {
		if tk.Name == MainTask {
			for _, tm := range tk.Templates {
				out[*tm.DestPath] = tm
			}
		}
	}
	return out
}

// decoded is a template's text with its base64Decode calls decoded and
// its env calls left as $NAME.
func decoded(t *testing.T, data string) string {
	t.Helper()
	re := regexp.MustCompile(`\{\{ base64Decode "([^"]*)" \}\}|\{\{ env "([^"]*)" \}\}`)
	return re.ReplaceAllStringFunc(data, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if sub[2] != "" {
			return "$" + sub[2]
		}
		b, err := base64.StdEncoding.DecodeString(sub[1])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	})
}

// TestTaskViewRendered: a raw_exec task of a PAI job (worker names
// worker-<i>, PAI's own) runs under the wrapper with a spec naming its
// host name from the allocation's index, its address from its port, and a
// platform file bound read-only at the job's path from a template of its
// content and mode; a docker task gets no wrapper.
func TestTaskViewRendered(t *testing.T) {
	j := psWorker("mesh", "python3 mesh.py")
	j.Roles[1].Files = []jobs.File{{Path: "/etc/volcano/worker.host", Content: "worker-0\nworker-1\n", Mode: 0o640}}
	job, diags := BuildJob(plan(j, rawExecSite()), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var main *api.Task
	for _, g := range job.TaskGroups {
		if *g.Name == groupName("worker") {
			for _, tk := range g.Tasks {
				if tk.Name == MainTask {
					main = tk
				}
			}
		}
	}
	argv := append([]string{main.Config["command"].(string)}, main.Config["args"].([]string)...)
	if want := []string{"sh", "${NOMAD_TASK_DIR}/jobshift-taskns.sh", "${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--"}; strings.Join(argv[:4], " ") != strings.Join(want, " ") {
		t.Fatalf("argv %q, want the wrapper first", argv[:4])
	}
	tm := map[string]*api.Template{}
	for _, x := range main.Templates {
		tm[*x.DestPath] = x
	}
	spec, file := tm["local/jobshift-taskns.spec"], tm["local/jobshift-files/0"]
	if spec == nil || file == nil || tm["local/jobshift-taskns.sh"] == nil {
		t.Fatalf("templates %v", tm)
	}
	ports := job.TaskGroups[1].Networks[0].DynamicPorts
	label := ports[0].Label
	want := "mode\tauto\nscratch\t$NOMAD_TASK_DIR/jobshift-taskns.d\nhostname\tworker-$NOMAD_ALLOC_INDEX\n" +
		"host\t$NOMAD_IP_" + label + "\tworker-$NOMAD_ALLOC_INDEX\n" +
		"bind\tro\t$NOMAD_TASK_DIR/jobshift-files/0\t/etc/volcano/worker.host\n" +
		"addr\t$NOMAD_IP_" + label + "\n"
	if got := decoded(t, *spec.EmbeddedTmpl); got != want {
		t.Errorf("spec:\n%s\nwant:\n%s", got, want)
	}
	if got := decoded(t, *file.EmbeddedTmpl); got != "worker-0\nworker-1\n" || *file.Perms != "0640" {
		t.Errorf("file %q perms %s", got, *file.Perms)
	}

	// watched, with the env helper: nomad-env writes the same spec (its
	// placeholders filled in the task) and the file, no template does
	wp := plan(j, rawExecSite())
	wp.Options[OptWatched], wp.Options[OptEnvHelper] = "true", "/usr/local/bin/jobshift-env"
	wj, diags := BuildJob(wp, fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	wmain := wj.TaskGroups[1].Tasks[0]
	if wargv := wmain.Config["args"].([]string); !strings.Contains(strings.Join(wargv, " "), "nomad-env -- sh ${NOMAD_TASK_DIR}/jobshift-taskns.sh ${NOMAD_TASK_DIR}/jobshift-taskns.spec -- ") {
		t.Errorf("argv %q: want nomad-env, then the wrapper", wargv)
	}
	for _, x := range wmain.Templates {
		if strings.HasPrefix(*x.DestPath, "local/jobshift-") {
			t.Errorf("template %s: nomad-env writes the view", *x.DestPath)
		}
	}
	wantIn := "mode\tauto\nscratch\t/@T@/jobshift-taskns.d\nhostname\tworker-@I@\nhost\t@A@\tworker-@I@\n" +
		"bind\tro\t/@T@/jobshift-files/0\t/etc/volcano/worker.host\naddr\t@A@\n"
	if got := viewSpecText(t, wmain); got != wantIn {
		t.Errorf("nomad-env's spec:\n%s\nwant:\n%s", got, wantIn)
	}
	if te, _ := intask.Decode(wmain.Env[TaskEnvVar]); te == nil || te.View.AddrVar != "NOMAD_IP_"+label ||
		len(te.View.Files) != 1 || te.View.Files[0] != (intask.ViewFile{Content: "worker-0\nworker-1\n", Mode: 0o640}) {
		t.Errorf("nomad-env's view %+v: want the address of port %s and the file", te.View, label)
	}

	j.Roles[1].Files[0].Secret = true
	if _, diags := BuildJob(plan(j, rawExecSite()), fixtureContract{}); !diags.HasErrors() || strings.Contains(diags.Error(), "worker-1") {
		t.Errorf("a secret file: %v, want a refusal that does not show the content", diags)
	}

	site := rawExecSite()
	site.Nomad.Driver = "docker"
	j.Roles[1].Files[0].Secret = false
	j.Roles[0].Image, j.Roles[1].Image = "python:3", "python:3"
	dj, diags := BuildJob(plan(j, site), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, ok := viewTemplates(t, dj)["local/jobshift-taskns.spec"]; ok {
		t.Error("a docker task got the wrapper")
	}
	for _, tk := range dj.TaskGroups[1].Tasks {
		if tk.Name == MainTask {
			if v, _ := tk.Config["volumes"].([]string); len(v) != 1 || v[0] != "local/jobshift-files/0:/etc/volcano/worker.host:ro" {
				t.Errorf("docker volumes %q, want the file bound read-only from the task directory", v)
			}
		}
	}
}
