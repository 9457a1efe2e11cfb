package nomad

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// shapeJobs are the job kinds of the shape table: files as users wrote
// them, each read and translated as `jobshift run` does.
var shapeJobs = []struct {
	kind, path string
	contracts  []string
}{
	{"pai-v1 ps/worker", "../../examples/pai-v1-ps-worker.json", nil},
	{"leinao ps/worker", "../../jobs/pai/testdata/v1-leinao-seed.json", nil},
	{"pai-v2 one task", "testdata/shapes/one-task.yaml", nil},
	{"pai-v2 uai", "testdata/shapes/uai.yaml", []string{"uai"}},
	{"tfjob", "../../examples/tfjob-mesh.yaml", nil},
	{"pytorchjob", "../../examples/pytorchjob-ddp.yaml", nil},
	{"mpijob v2beta1", "../../jobs/kubeflow/testdata/mpi_v2beta1.yaml", nil},
	{"pytorchjob init+secret", "../../examples/pytorchjob-init-secret.yaml", nil},
	{"trainjob initializer", "../../examples/trainjob-initializer.yaml", nil},
	{"pytorchjob claims", "testdata/shapes/claims.yaml", nil},
	{"volcano tf-shape", "../../examples/volcano-tf-shape.yaml", nil},
	{"volcano tf-shape +docker_network", "../../examples/volcano-tf-shape.yaml", nil},
	{"volcano tf-shape, one client", "../../examples/volcano-tf-shape.yaml", nil},
	{"pytorchjob init+memory emptyDir", "../../integration/testdata/view/init-memory.yaml", nil},
}

// shapeOptions are the plan options of a kind's rows besides OptWatched
// (what Submit finds on the cluster: OptOneClient).
var shapeOptions = map[string]map[string]string{"volcano tf-shape, one client": {OptOneClient: "true"}}

// shapeSites are the site rules of a kind's rows besides the nomad block
// (volume rules: mounts.go).
var shapeSites = map[string]string{"pytorchjob claims": "testdata/shapes/claims-site.hcl"}

// shapeNetworks are the kinds whose nomad block names a Docker network of
// the site's (nomad.docker_network: ownNetwork).
var shapeNetworks = map[string]string{"volcano tf-shape +docker_network": "jobshift"}

// helperOnly are the kinds refused without the helper (the step order's
// wait task runs it: TestStepOrderNeedsHelper).
var helperOnly = map[string]bool{"trainjob initializer": true}

// The shape table's other dimensions.
var (
	shapeDrivers = []string{"raw_exec", "exec", "docker", "podman"}
	// in Nomad's default chroot_env, so that exec tasks may run them
	shapeHelper    = "/usr/local/bin/jobshift"
	shapeEnvHelper = "/usr/local/bin/jobshift-env"
)

// shapeRow is one row of the table: the inputs and the job they give.
type shapeRow struct {
	kind, driver        string
	helper, envHelper   bool
	watched             bool
	plan                *translate.Plan
	job                 *api.Job
	shape               *Shape
	summary, inputsText string
}

// shapeRows decides and renders every row.
func shapeRows(t *testing.T) []shapeRow {
	t.Helper()
	var rows []shapeRow
	for _, sj := range shapeJobs {
		j, diags := load.Load(sj.path, jobs.ReadOptions{Path: filepath.Base(sj.path)})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", sj.path, diags)
		}
		for _, driver := range shapeDrivers {
			for _, helper := range []bool{false, true} {
				if !helper && helperOnly[sj.kind] {
					continue
				}
				for _, envHelper := range []bool{false, true} {
					for _, watched := range []bool{false, true} {
						nc := &siteconfig.NomadConfig{Driver: driver, DockerNetwork: shapeNetworks[sj.kind]}
						if helper {
							nc.Helper = shapeHelper
						}
						if envHelper {
							nc.EnvHelper = shapeEnvHelper
						}
						site := shapeSite(t, sj.kind)
						site.Nomad = nc
						p, diags := translate.Build(j, site, sj.contracts, "alice")
						if diags.HasErrors() {
							t.Fatalf("%s: %v", sj.path, diags)
						}
						p.Options[OptWatched] = strconv.FormatBool(watched)
						maps.Copy(p.Options, shapeOptions[sj.kind])
						row := shapeRow{kind: sj.kind, driver: driver, helper: helper, envHelper: envHelper, watched: watched, plan: p}
						job, shape, diags := buildJob(p, nil)
						if diags.HasErrors() {
							t.Fatalf("%s: %v", row.inputs(), diags)
						}
						row.job, row.shape, row.summary = job, shape, shapeSummary(shape)
						rows = append(rows, row)
					}
				}
			}
		}
	}
	return rows
}

// shapeSite is kind's site config of shapeSites (empty if none).
func shapeSite(t *testing.T, kind string) *siteconfig.Config {
	t.Helper()
	path := shapeSites[kind]
	if path == "" {
		return &siteconfig.Config{}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, diags := siteconfig.ParseConfig(src, path)
	if diags.HasErrors() {
		t.Fatalf("%s: %v", path, diags)
	}
	return c
}

func (r shapeRow) inputs() string {
	return fmt.Sprintf("%s | %s | helper %s | env helper %s | %s", r.kind, r.driver, yesNo(r.helper), yesNo(r.envHelper), watchWord(r.watched))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func watchWord(b bool) string {
	if b {
		return "watched"
	}
	return "unwatched"
}

// shapeSummary is one line of the table: the rendezvous, then each
// distinct group shape with the groups that have it.
func shapeSummary(s *Shape) string {
	var order []string
	groups := map[string][]string{}
	for k := range s.Groups {
		g := &s.Groups[k]
		var tasks []string
		for _, t := range g.Tasks {
			name := t.Name
			if t.Hook != "" {
				name += "(" + t.Hook + ")"
			}
			if len(t.Wrappers) > 0 {
				ws := make([]string, len(t.Wrappers))
				for i, w := range t.Wrappers {
					ws[i] = string(w)
				}
				name += "[" + strings.Join(ws, " > ") + "]"
			}
			tasks = append(tasks, name)
		}
		line := fmt.Sprintf("env %s; judged by %s; tasks %s", g.Env, joinJudges(g.Judges), strings.Join(tasks, ", "))
		if g.View != "" {
			line += "; task namespace files by " + string(g.View)
		}
		for _, m := range g.Mounts {
			line += fmt.Sprintf("; %s by %s", m.Dest, m.Way)
		}
		if g.Network != "" {
			line += "; docker network " + g.Network
		}
		if _, ok := groups[line]; !ok {
			order = append(order, line)
		}
		groups[line] = append(groups[line], g.Group)
	}
	var b strings.Builder
	b.WriteString("rendezvous " + s.Rendezvous)
	if s.DistinctHosts {
		b.WriteString(", distinct hosts")
	}
	if s.TaskNets {
		b.WriteString(", a network per task")
	}
	for _, g := range order {
		if len(order) > 1 {
			b.WriteString("; " + strings.Join(groups[g], ",") + ": " + g)
		} else {
			b.WriteString("; " + g)
		}
	}
	return b.String()
}

// TestShapeTable: every shape the driver can produce (job kind × task
// driver × helper × env helper × watched), its decisions pinned by the
// golden table testdata/shapes.txt, and each rendered job checked against
// its shape by what the api.Job shows: tasks and hooks, the wrappers in
// the main task's command line, how its environment arrives, who judges,
// the rendezvous, and the shape stored in meta.
func TestShapeTable(t *testing.T) {
	rows := shapeRows(t)
	var b strings.Builder
	groupShapes := map[string]bool{}
	for _, r := range rows {
		fmt.Fprintf(&b, "%s => %s\n", r.inputs(), r.summary)
		checkRendered(t, r)
		for _, g := range r.shape.Groups {
			groupShapes[fmt.Sprintf("%s|%s|%v|%v", g.Driver, g.Env, g.Judges, g.Tasks)] = true
		}
	}
	golden(t, "shapes.txt", []byte(b.String()))
	t.Logf("%d rows, %d distinct group shapes", len(rows), len(groupShapes))
}

// checkRendered checks the rendered job of r against its shape.
func checkRendered(t *testing.T, r shapeRow) {
	t.Helper()
	s, job := r.shape, r.job
	name := r.inputs()
	if len(job.TaskGroups) != len(s.Groups) {
		t.Fatalf("%s: %d groups rendered, %d shaped", name, len(job.TaskGroups), len(s.Groups))
	}
	snap := job.Meta[MetaRendezvous] == RendezvousSnap
	if snap != (s.Rendezvous == RendezvousSnap) {
		t.Errorf("%s: meta rendezvous %q, shape %s", name, job.Meta[MetaRendezvous], s.Rendezvous)
	}
	distinct := false
	for _, c := range job.Constraints {
		distinct = distinct || c.Operand == api.ConstraintDistinctHosts
	}
	if distinct != s.DistinctHosts {
		t.Errorf("%s: distinct_hosts %v, shape %v", name, distinct, s.DistinctHosts)
	}
	for _, g := range job.TaskGroups {
		i := slices.IndexFunc(g.Tasks, func(tk *api.Task) bool { return tk.Name == MainTask })
		if gs := s.Group(g.Meta[MetaRole]); i >= 0 && gs != nil && gs.View != "" {
			task := g.Tasks[i]
			if got := hasNetLine(viewSpecText(t, task), JobIDFor(r.plan), taskns.DefaultNetRange); got != s.TaskNets {
				t.Errorf("%s: group %s: the view's spec gives a network of its own %v, shape %v", name, *g.Name, got, s.TaskNets)
			}
		}
	}
	stored := ShapeOf(job)
	if stored.Watched != s.Watched || stored.Rendezvous != s.Rendezvous {
		t.Errorf("%s: stored shape %+v", name, stored)
	}
	for k, g := range job.TaskGroups {
		gs := &s.Groups[k]
		if !slices.Equal(stored.Judges[*g.Name], gs.Judges) {
			t.Errorf("%s: group %s stored judges %v, shape %v", name, *g.Name, stored.Judges[*g.Name], gs.Judges)
		}
		// the snapshot's groups register no services, only port slots
		if _, slots := g.Meta[MetaSnapPorts]; slots != snap || snap && len(g.Services) > 0 {
			t.Errorf("%s: group %s has %d services and port slots %v with rendezvous %s", name, *g.Name, len(g.Services), slots, s.Rendezvous)
		}
		checkTasks(t, name, g, gs)
	}
}

// checkMounts checks that each of the shape's mounts is in the rendered
// group and task, the way the shape says, and that no other is.
func checkMounts(t *testing.T, name string, g *api.TaskGroup, task *api.Task, gs *GroupShape) {
	t.Helper()
	vols, _ := task.Config["volumes"].([]string)
	nomadMounts := 0
	for _, m := range gs.Mounts {
		switch m.Way {
		case MountHostVolume, MountCSIVolume:
			nomadMounts++
			v := g.Volumes[m.Volume]
			if v == nil || v.Source != m.Source || (v.Type == "host") != (m.Way == MountHostVolume) {
				t.Errorf("%s: group %s: volume %s rendered %+v, shaped %+v", name, *g.Name, m.Volume, v, m)
			}
			if !slices.ContainsFunc(task.VolumeMounts, func(vm *api.VolumeMount) bool {
				return *vm.Volume == m.Volume && *vm.Destination == m.Dest && *vm.ReadOnly == m.ReadOnly
			}) {
				t.Errorf("%s: task %s has no volume_mount of %s at %s", name, task.Name, m.Volume, m.Dest)
			}
		case MountDriver:
			if !slices.Contains(vols, m.Source+":"+m.Dest) && !slices.Contains(vols, m.Source+":"+m.Dest+":ro") {
				t.Errorf("%s: task %s volumes %v lack %s:%s", name, task.Name, vols, m.Source, m.Dest)
			}
		case MountViewBind:
			ro := map[bool]string{true: "ro", false: "rw"}[m.ReadOnly]
			line := "\nbind\t" + ro + "\t" + m.Source + "\t" + m.Dest
			if m.Tree != "" {
				line += "\t" + m.Tree + map[bool]string{true: "\tnolink"}[m.NoLink]
			}
			line += "\n"
			if task.Name == MainTask && !strings.Contains(viewSpecText(t, task), line) {
				t.Errorf("%s: task %s: the view's spec has no bind of %s at %s", name, task.Name, m.Source, m.Dest)
			}
		case MountViewEmpty:
			line := fmt.Sprintf("\nempty\t%s\t%d\t%s\n", m.Empty, m.SizeMiB, m.Dest)
			if m.Source != "" {
				line = fmt.Sprintf("\nempty\t%s\t%d\t%s\t%s\n", m.Empty, m.SizeMiB, m.Dest, strings.Replace(m.Source, phAllocDir, "$NOMAD_ALLOC_DIR", 1))
			}
			if task.Name == MainTask && !strings.Contains(viewSpecText(t, task), line) {
				t.Errorf("%s: task %s: the view's spec has no emptyDir at %s", name, task.Name, m.Dest)
			}
		}
	}
	if len(task.VolumeMounts) != nomadMounts || len(g.Volumes) > nomadMounts {
		t.Errorf("%s: group %s task %s: %d volume_mounts, %d group volumes, %d shaped", name, *g.Name, task.Name, len(task.VolumeMounts), len(g.Volumes), nomadMounts)
	}
}

// hasNetLine: spec (viewSpecText) gives the task a network in cidr keyed
// by the namespace, the user and job id's attempt (nomad-env's
// placeholder, or the template's meta).
func hasNetLine(spec, id, cidr string) bool {
	for _, attempt := range []string{"@N@", "$NOMAD_META_jobshift_attempt"} {
		re := regexp.MustCompile(`\nnetns\t[^\t/]*/[^\t/]+/` + regexp.QuoteMeta(id+"/"+attempt+"\t"+cidr) + `\n`)
		if re.MatchString(spec) {
			return true
		}
	}
	return false
}

// viewSpecText is task's decoded task-view spec, from its template or
// from the view nomad-env writes ("" if none).
func viewSpecText(t *testing.T, task *api.Task) string {
	for _, tm := range task.Templates {
		if *tm.DestPath == "local/"+viewSpecFile {
			return decoded(t, *tm.EmbeddedTmpl)
		}
	}
	if p := task.Env[TaskEnvVar]; p != "" {
		te, err := intask.Decode(p)
		if err != nil {
			t.Fatal(err)
		}
		if te.View != nil {
			return te.View.Spec
		}
	}
	return ""
}

// checkTasks checks a group's tasks against its shape.
func checkTasks(t *testing.T, name string, g *api.TaskGroup, gs *GroupShape) {
	t.Helper()
	if len(g.Tasks) != len(gs.Tasks) {
		t.Fatalf("%s: group %s: %d tasks rendered, %d shaped", name, *g.Name, len(g.Tasks), len(gs.Tasks))
	}
	for i, task := range g.Tasks {
		ts := gs.Tasks[i]
		hook := ""
		if task.Lifecycle != nil {
			hook = task.Lifecycle.Hook
		}
		if task.Name != ts.Name || hook != ts.Hook {
			t.Errorf("%s: group %s task %d is %s(%s), shaped %s(%s)", name, *g.Name, i, task.Name, hook, ts.Name, ts.Hook)
			continue
		}
		if task.Name == InitTask {
			checkInitTask(t, name, task, gs)
		}
		if task.Name == WaitTask {
			checkWaitTask(t, name, task)
		}
		if task.Name == ScratchTask && (task.User != "0" || task.Driver != gs.Driver) {
			t.Errorf("%s: group %s: the scratch task runs as %q on %s, want root on %s", name, *g.Name, task.User, task.Driver, gs.Driver)
		}
		if task.Name == UnmountTask && (task.Driver != "raw_exec" || !gs.Traits.NodeMounts) {
			t.Errorf("%s: group %s: an unmount task on %s for a %s group", name, *g.Name, task.Driver, gs.Driver)
		}
		if task.Name != MainTask && task.Name != PSTask {
			continue
		}
		checkSecretEnv(t, name, task)
		checkMounts(t, name, g, task, gs)
		argv := commandLine(task)
		for w, marker := range wrapperMarkers {
			if got, want := strings.Contains(argv, marker), has(ts.Wrappers, w); got != want {
				t.Errorf("%s: group %s task %s: wrapper %q in the command %v, shaped %v\n%s", name, *g.Name, task.Name, w, got, want, argv)
			}
		}
		if task.Name == MainTask {
			if got := viewWayOf(t, task); got != gs.View {
				t.Errorf("%s: group %s task %s: task namespace files by %q, shaped %q", name, *g.Name, task.Name, got, gs.View)
			}
		}
		if got := envWayOf(task); got != gs.Env {
			t.Errorf("%s: group %s task %s: environment by %s, shaped %s", name, *g.Name, task.Name, got, gs.Env)
		}
		if task.Driver != gs.Driver {
			t.Errorf("%s: group %s task %s: driver %s, shaped %s", name, *g.Name, task.Name, task.Driver, gs.Driver)
		}
		checkNetwork(t, name, task, gs)
	}
	fin := slices.Contains(gs.Judges, JudgeInTask)
	last := gs.Tasks[len(gs.Tasks)-1] // the main task, or the PS task after it
	if last.Hook != "" {
		last = gs.Tasks[len(gs.Tasks)-2] // a poststop task after them (unmount)
	}
	if fin != (gs.Finisher != "") || fin && !has(last.Wrappers, WrapFinisher) {
		t.Errorf("%s: group %s: judges %v but finisher %q", name, *g.Name, gs.Judges, gs.Finisher)
	}
	if slices.Contains(gs.Judges, JudgePoststop) != gs.Has(FinisherTask) || slices.Contains(gs.Judges, JudgeUAI) != gs.Has(JudgeTask) {
		t.Errorf("%s: group %s: judges %v, tasks %v", name, *g.Name, gs.Judges, gs.Tasks)
	}
}

// checkNetwork checks a main task's network against its group's shape: in
// the shape's Docker network, with its host name first among its
// network_aliases and no /etc/hosts entry besides (Docker's DNS resolves
// the peers); else in no network of the site's, with no alias.
func checkNetwork(t *testing.T, name string, task *api.Task, gs *GroupShape) {
	t.Helper()
	mode, _ := task.Config["network_mode"].(string)
	aliases, _ := task.Config["network_aliases"].([]string)
	hosts, _ := task.Config["extra_hosts"].([]string)
	if gs.Network == "" {
		if len(aliases) > 0 || task.Driver == "docker" && mode != "host" && task.Config["ports"] == nil {
			t.Errorf("%s: task %s: network_mode %q, aliases %q, shaped in no network", name, task.Name, mode, aliases)
		}
		return
	}
	if mode != gs.Network || len(aliases) == 0 || aliases[0] != task.Config["hostname"] || len(hosts) > 0 {
		t.Errorf("%s: task %s: network_mode %q, aliases %q, hostname %v, extra_hosts %q; shaped in network %s", name, task.Name, mode, aliases, task.Config["hostname"], hosts, gs.Network)
	}
}

// wrapperMarkers are what each wrapper leaves in a task's command line.
var wrapperMarkers = map[Wrapper]string{
	WrapEnvHelper: " " + TaskEnvCommand + " -- ",
	WrapEnvWait:   " " + envWaitArg0 + " ",
	WrapTaskNS:    viewScriptFile,
	WrapSSH:       "jobshift-sshemu.sh",
	WrapRestart:   " " + restartArg0 + " ",
	WrapStop:      " jobshift-group ",
	WrapLogDrain:  "\n" + drainLine,
	WrapFinisher:  "nomad-finish " + FinishExit,
}

// commandLine is a task's command and arguments (any driver's keys),
// space-separated with a space at each end.
func commandLine(task *api.Task) string {
	var parts []string
	for _, k := range []string{"command", "entrypoint", "args"} {
		switch v := task.Config[k].(type) {
		case string:
			parts = append(parts, v)
		case []string:
			parts = append(parts, v...)
		}
	}
	return " " + strings.Join(parts, " ") + " "
}

// viewWayOf is how the rendered task's namespace files arrive: the spec
// as a template, or in nomad-env's payload ("" = neither).
func viewWayOf(t *testing.T, task *api.Task) ViewWay {
	for _, tm := range task.Templates {
		if *tm.DestPath == "local/"+viewSpecFile {
			return ViewTemplates
		}
	}
	if viewSpecText(t, task) != "" {
		return ViewInTask
	}
	return ""
}

// envWayOf is how the rendered task gets its environment.
func envWayOf(task *api.Task) EnvWay {
	if _, ok := task.Env[TaskEnvVar]; ok {
		return EnvInTask
	}
	for _, tm := range task.Templates {
		switch {
		case tm.DestPath != nil && *tm.DestPath == SecretEnvFile:
		case tm.DestPath != nil && *tm.DestPath == ShellEnvFile:
			return EnvSourced
		case tm.Envvars != nil && *tm.Envvars && strings.Contains(*tm.EmbeddedTmpl, "nomadVar \"nomad/jobs/"):
			return EnvSnapTemplate
		case tm.Envvars != nil && *tm.Envvars:
			return EnvRegistrations
		}
	}
	return "none"
}

// TestShapeDocIsCurrent: the package doc's shape table (doc.go) is the
// one the rows of TestShapeTable give.
func TestShapeDocIsCurrent(t *testing.T) {
	rows := shapeRows(t)
	got := shapeDoc(rows)
	p := "doc.go"
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("doc.go is stale: go test ./drivers/nomad -run TestShapeDocIsCurrent -update")
	}
}

// shapeDoc is doc.go: the package doc led by the shape table.
func shapeDoc(rows []shapeRow) string {
	var b strings.Builder
	b.WriteString(docHead)
	b.WriteString("//\tdriver    container  host binaries  chroot binaries  group signal  maps ports  volume mounts\n")
	for _, d := range append(slices.Clone(shapeDrivers), "(other)") {
		tr := TraitsOf(d)
		fmt.Fprintf(&b, "//\t%-9s %-10s %-14s %-16s %-13s %-11s %s\n", d, yesNo(tr.Container), yesNo(tr.HostBinaries), yesNo(tr.ChrootBinaries), yesNo(tr.GroupSignal), yesNo(tr.MapsPorts), yesNo(tr.VolumeMounts))
	}
	b.WriteString(docTable)
	for i := 0; i < len(rows); i++ {
		r := rows[i]
		in := r.inputs()
		// the env helper's two rows, when it changes nothing, as one
		if !r.envHelper && i+2 < len(rows) && rows[i+2].envHelper && rows[i+2].watched == r.watched && rows[i+2].summary == r.summary {
			in = strings.Replace(in, "env helper no", "env helper -", 1)
		} else if r.envHelper && i >= 2 && !rows[i-2].envHelper && rows[i-2].summary == r.summary {
			continue
		}
		fmt.Fprintf(&b, "//\t%s\n//\t    => %s\n", in, r.summary)
	}
	b.WriteString("package nomad\n")
	return b.String()
}

const docHead = `// Code generated by TestShapeDocIsCurrent (shape_test.go) from the rows
// of TestShapeTable; DO NOT EDIT. Regenerate with
// go test ./drivers/nomad -run TestShapeDocIsCurrent -update.

// Package nomad runs jobshift jobs on HashiCorp Nomad: it renders a job as
// a sparse api.Job (and HCL2), submits it, watches it, and enforces the
// source platform's completion rules, which Nomad lacks.
//
// # Shapes
//
// Every mode of a job is decided once, by Decide (shape.go), from the
// plan, the site's nomad block and one input: whether anybody watches the
// job (OptWatched: jobshift run, the controller) or not (a converted
// file submitted with nomad job run, run -detach); and, for a job in
// Volcano's TensorFlow shape, a second: whether the cluster has one client
// that can run it (OptOneClient: Submit and PlanDiff count the clients,
// convert -one-client says so). Render (convert), Submit (run) and
// PlanDiff (run -plan) build the job from that one Shape, so convert
// -watched [-one-client] prints what run submits and convert prints what
// run -detach submits. The HCL artifact's header and the job meta
// (MetaShape, MetaEnv, MetaJudges: keys.go) say which shape a job has.
//
// A shape has a rendezvous — none (one task), barrier (a prestart task
// per allocation waits for every group service: barrier.go) or snapshot
// (the watcher writes every task's address once all are placed:
// topology.go) — and per group: the task driver's traits, how the
// environment arrives (an env template over the registrations or over
// the snapshot, a file sh sources: shellenv.go, or nomad-env in the task:
// taskenv.go), who judges (the watcher, a poststop finisher, the in-task
// finisher, the UAI judge: finisher.go) and the command's wrappers,
// outermost first (nomad-env or env-wait, the task namespace: view.go,
// the ssh emulation: ssh.go, the
// restart loop or the stop wrapper: restart.go, the finisher's tail).
//
// What each task driver gives a task (Traits, after Nomad's
// plugins/drivers Capabilities):
//
`

const docTable = `//
// Every shape of the job kinds TestShapeTable renders, with the helper
// /usr/local/bin/jobshift (nomad.helper) and jobshift-env
// (nomad.env_helper) or without. A row reads: job kind | task driver |
// helper | env helper ("-": either) | watched or not => the rendezvous,
// then each group's environment, judges and tasks (hook, [wrappers]).
//
`
