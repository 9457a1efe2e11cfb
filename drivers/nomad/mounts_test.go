package nomad

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// claimsPlan is testdata/shapes/claims.yaml (three claims) on the site
// of claimsSite, for driver, as user.
func claimsPlan(t *testing.T, driver, user, rules string) (*translate.Plan, error) {
	t.Helper()
	j, diags := load.Load("testdata/shapes/claims.yaml", jobs.ReadOptions{Path: "claims.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	site, diags := siteconfig.ParseConfig([]byte(rules), "jobshift.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	site.Nomad = rawExecSite().Nomad
	site.Nomad.Driver = driver
	p, diags := translate.Build(j, site, nil, user)
	if diags.HasErrors() {
		return nil, diags
	}
	return p, nil
}

func claimsSite(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/shapes/claims-site.hcl")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The group and task blocks of Nomad's job specification (volume:
// type, source, read_only, access_mode, attachment_mode; volume_mount:
// volume, destination, read_only; developer.hashicorp.com/nomad/docs/
// job-specification/volume and volume_mount, Nomad 1.11.x), as a user
// would write them for the claims of claims-site.hcl.
const (
	hostVolumeHCL = `volume "dataset" {
      type      = "host"
      source    = "training"
      read_only = true
    }`
	csiVolumeHCL = `volume "scratch" {
      type            = "csi"
      source          = "scratch"
      access_mode     = "multi-node-multi-writer"
      attachment_mode = "file-system"
    }`
	datasetMountHCL = `volume_mount {
        volume      = "dataset"
        destination = "/dataset"
        read_only   = true
      }`
	scratchMountHCL = `volume_mount {
        volume      = "scratch"
        destination = "/scratch"
        read_only   = false
      }`
)

// TestMountsRendered: each way a site rule's volume reaches a task, per
// task driver, in the HCL and the JSON artifact: a Nomad host or CSI
// volume with its volume_mount where the driver takes mounts (exec,
// docker, podman), the rule's path as a driver volume on docker/podman,
// and as a bind of the task view on raw_exec/exec (raw_exec, which
// takes no mount, binds even the Nomad volumes' paths); ${user} is the
// job's user.
func TestMountsRendered(t *testing.T) {
	for _, c := range []struct {
		driver     string
		nomad      bool     // group volumes and volume_mounts
		driverVols string   // the task's config volumes
		binds      []string // lines of the view's spec
	}{
		{"raw_exec", false, "", []string{"bind\tro\t/lustre/proj/training\t/dataset\t/lustre/proj/training", "bind\trw\t/gpfs/ckpt/alice\t/ckpt\t/gpfs/ckpt/alice\tnolink", "bind\trw\t/scratch/shared\t/scratch\t/scratch/shared"}},
		{"exec", true, "", []string{"bind\trw\t/gpfs/ckpt/alice\t/ckpt\t/gpfs/ckpt/alice\tnolink"}},
		{"docker", true, `["/gpfs/ckpt/alice:/ckpt"]`, nil},
		{"podman", true, `["/gpfs/ckpt/alice:/ckpt"]`, nil},
	} {
		p, err := claimsPlan(t, c.driver, "alice", claimsSite(t))
		if err != nil {
			t.Fatalf("%s: %v", c.driver, err)
		}
		hcl := string(render(t, false, p))
		for _, frag := range []string{hostVolumeHCL, csiVolumeHCL, datasetMountHCL, scratchMountHCL} {
			if got := strings.Count(hcl, frag); got != map[bool]int{true: 2, false: 0}[c.nomad] {
				t.Errorf("%s: %d of\n%s", c.driver, got, frag)
			}
		}
		vols := regexp.MustCompile(`(?m)^ +volumes += (.*)$`).FindAllStringSubmatch(hcl, -1)
		if c.driverVols == "" && len(vols) > 0 || c.driverVols != "" && (len(vols) != 2 || vols[0][1] != c.driverVols || vols[1][1] != c.driverVols) {
			t.Errorf("%s: driver volumes %q, want %s in both groups", c.driver, vols, c.driverVols)
		}
		job := renderedJSON(t, p)
		for _, g := range job.TaskGroups {
			checkJSONMounts(t, c.driver, g, c.nomad)
			// docker's plugin takes a host path only with its volumes option,
			// which it fingerprints (drivers/docker/fingerprint.go, v1.11.3)
			want := map[bool]int{true: 1}[c.driver == "docker"]
			if n := slices.IndexFunc(g.Constraints, func(k *api.Constraint) bool {
				return k.LTarget == "${attr.driver.docker.volumes.enabled}" && k.RTarget == "true" && k.Operand == "="
			}); (n >= 0) != (want == 1) || len(g.Constraints) != want {
				t.Errorf("%s: group %s constraints %+v, want the docker volumes attribute: %v", c.driver, *g.Name, g.Constraints, want == 1)
			}
			spec := viewSpecText(t, mainOf(g))
			for _, b := range c.binds {
				if !strings.Contains(spec, "\n"+b+"\n") {
					t.Errorf("%s: group %s: no %q in the view's spec:\n%s", c.driver, *g.Name, b, spec)
				}
			}
			if n := strings.Count(spec, "\nbind\t"); n != len(c.binds) {
				t.Errorf("%s: %d binds, want %d:\n%s", c.driver, n, len(c.binds), spec)
			}
		}
	}
}

// checkJSONMounts: the JSON artifact's group volumes and volume mounts.
func checkJSONMounts(t *testing.T, driver string, g *api.TaskGroup, nomad bool) {
	t.Helper()
	main := mainOf(g)
	if !nomad {
		if len(g.Volumes) > 0 || len(main.VolumeMounts) > 0 {
			t.Errorf("%s: group %s: volumes %v mounts %v, want none", driver, *g.Name, g.Volumes, main.VolumeMounts)
		}
		return
	}
	want := map[string]api.VolumeRequest{
		"dataset": {Name: "dataset", Type: "host", Source: "training", ReadOnly: true},
		"scratch": {Name: "scratch", Type: "csi", Source: "scratch", AccessMode: "multi-node-multi-writer", AttachmentMode: "file-system"},
	}
	if len(g.Volumes) != len(want) {
		t.Errorf("%s: group %s volumes %v", driver, *g.Name, g.Volumes)
	}
	for k, w := range want {
		if v := g.Volumes[k]; v == nil || !reflect.DeepEqual(*v, w) {
			t.Errorf("%s: group %s volume %s = %+v, want %+v", driver, *g.Name, k, v, w)
		}
	}
	if len(main.VolumeMounts) != 2 || *main.VolumeMounts[0].Destination != "/dataset" || !*main.VolumeMounts[0].ReadOnly ||
		*main.VolumeMounts[1].Volume != "scratch" || *main.VolumeMounts[1].ReadOnly {
		t.Errorf("%s: group %s volume mounts %+v", driver, *g.Name, main.VolumeMounts)
	}
}

func mainOf(g *api.TaskGroup) *api.Task {
	for _, tk := range g.Tasks {
		if tk.Name == MainTask {
			return tk
		}
	}
	return nil
}

func renderedJSON(t *testing.T, p *translate.Plan) *api.Job {
	t.Helper()
	var doc struct{ Job *api.Job }
	if err := json.Unmarshal(render(t, true, p), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Job
}

// TestMountsRefused: what cannot reach the task at the job's path is
// refused, located at the job's volume and naming the site rule: a Nomad
// volume on raw_exec (which takes no mount) without a path to bind, a CSI
// volume without the modes Nomad requires, a user name that would leave
// the ${user} tree, a path a driver volume cannot carry.
func TestMountsRefused(t *testing.T) {
	for _, c := range []struct {
		name, driver, user, rules, want string
	}{
		{"csi on raw_exec", "raw_exec", "alice", `volume "*" { nomad_csi_volume = "shared", access_mode = "multi-node-multi-writer", attachment_mode = "file-system" }`, "cannot mount a Nomad volume"},
		{"host volume on raw_exec", "raw_exec", "alice", `volume "*" { nomad_host_volume = "shared" }`, "give the rule a path"},
		{"csi without modes", "docker", "alice", `volume "*" { nomad_csi_volume = "shared" }`, "access_mode and attachment_mode"},
		{"user leaves the tree", "docker", "../bob", `volume "*" { path = "/gpfs/home/${user}" }`, "cannot stand for ${user}"},
		{"colon in a driver volume", "docker", "alice", `volume "*" { path = "/gpfs/a:b" }`, "':' or ','"},
		{"below a user's tree on docker", "docker", "alice", `volume "*" { path = "/gpfs/home/${user}/ckpt" }`, "symbolic link that docker would follow"},
		{"subPath on docker", "podman", "alice", `volume "*" { path = "/gpfs/data" }`, "lies below /gpfs/data"},
		{"subPath leaves the tree", "raw_exec", "alice", `volume "*" { path = "/gpfs/data" }`, "leaves the mapped directory"},
		{"subPath of a Nomad volume", "exec", "alice", `volume "*" { nomad_host_volume = "data" }`, "not its subPath"},
	} {
		rules := strings.NewReplacer("{ ", "{\n", ", ", "\n", " }", "\n}").Replace(c.rules)
		p, err := claimsPlan(t, c.driver, "alice", rules)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// translate.Build refuses such a -user already; the driver must
		// not rely on it (a plan also comes from the controller)
		p.User = c.user
		if sub := map[string]string{"subPath on docker": "run1", "subPath leaves the tree": "../etc", "subPath of a Nomad volume": "run1"}[c.name]; sub != "" {
			for _, r := range p.Job.Roles {
				r.Volumes[0].SubPath = sub
			}
		}
		_, diags := BuildJob(p, fixtureContract{})
		msg := diags.Error()
		if !diags.HasErrors() || !strings.Contains(msg, c.want) || !strings.Contains(msg, `site rule volume "*"`) || !strings.Contains(msg, "Volume cannot be mounted on Nomad") {
			t.Errorf("%s: %v, want a refusal saying %q", c.name, diags, c.want)
			continue
		}
		if s := diags[0].Subject; s == nil || s.Filename != "claims.yaml" || s.Start.Line == 0 {
			t.Errorf("%s: refusal not located in the job file: %+v", c.name, s)
		}
	}
}

// TestEmptyDirRendered: a pod's emptyDir reaches a raw_exec or exec task
// through its view, a directory of the allocation (which the init task
// shares), or a tmpfs of its sizeLimit for medium Memory (2Gi: 2048 MiB);
// a docker task, which has its own writable file system there, gets no
// mount of it.
func TestEmptyDirRendered(t *testing.T) {
	j := psWorker("cache", "python3 train.py")
	j.Roles[1].Volumes = []jobs.Volume{{Name: "cache", Kind: "emptyDir", MountPath: "/cache"},
		{Name: "fast", Kind: "emptyDir", Source: "Memory", SizeMiB: 2048, MountPath: "/cache/fast"}}
	for _, driver := range []string{"raw_exec", "exec", "docker"} {
		site := rawExecSite()
		site.Nomad.Driver = driver
		job, diags := BuildJob(plan(j, site), fixtureContract{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var spec string
		var vols []string
		for _, g := range job.TaskGroups {
			if *g.Name == groupName("worker") {
				spec = viewSpecText(t, mainOf(g))
				vols, _ = mainOf(g).Config["volumes"].([]string)
			}
		}
		want := "\nempty\tdisk\t0\t/cache\t$NOMAD_ALLOC_DIR/jobshift-emptydir/cache\nempty\tmemory\t2048\t/cache/fast\n"
		if driver == "docker" {
			mounts := fmt.Sprint(mainOf(groupOf(job, "worker")).Config["mount"])
			if spec != "" || fmt.Sprint(vols) != "[../alloc/jobshift-emptydir/cache:/cache]" ||
				mounts != "[map[readonly:false target:/cache/fast tmpfs_options:[map[size:2147483648]] type:tmpfs]]" {
				t.Errorf("docker: spec %q volumes %q mounts %s, want the allocation's directory at /cache and a tmpfs of 2 GiB at /cache/fast", spec, vols, mounts)
			}
			continue
		}
		if !strings.Contains(spec, want) {
			t.Errorf("%s: spec:\n%s\nwant the emptyDirs, parent first:%s", driver, spec, want)
		}
	}
}

// TestInitMemoryEmptyDirRendered: a memory emptyDir an init container
// fills is, on raw_exec, the tmpfs of its sizeLimit in the allocation
// directory that both tasks' views name (the first mounts it on the node)
// and the unmount task removes; on docker and exec, whose tasks cannot
// mount one both see, the allocation's directory on disk, with a warning
// at the volume; on docker both containers get it as a driver volume,
// made 0777 by the scratch task, as root.
func TestInitMemoryEmptyDirRendered(t *testing.T) {
	j, diags := load.Load("../../integration/testdata/view/init-memory.yaml", jobs.ReadOptions{Path: "init-memory.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	const dir = "jobshift-emptydir/fast"
	for _, driver := range []string{"raw_exec", "exec", "docker"} {
		p, diags := translate.Build(j, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: driver}}, nil, "alice")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		job, diags := BuildJob(p, fixtureContract{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var all strings.Builder
		for _, d := range diags {
			all.WriteString(d.Error() + "\n")
		}
		warned := all.String()
		onDisk := strings.Contains(warned, "init-memory.yaml:33,") && strings.Contains(warned, "Memory emptyDir on disk")
		if onDisk != (driver != "raw_exec") {
			t.Errorf("%s: warnings %v; want one at the main container's mount (line 33): %v", driver, diags, driver != "raw_exec")
		}
		g := groupOf(job, "master")
		tasks := map[string]*api.Task{}
		var names []string
		for _, task := range g.Tasks {
			tasks[task.Name] = task
			names = append(names, task.Name)
		}
		main, init := tasks[MainTask], tasks[InitTask]
		switch driver {
		case "docker":
			for _, task := range []*api.Task{main, init} {
				if v := fmt.Sprint(task.Config["volumes"]); v != "[../alloc/"+dir+":/fast]" || task.Config["mount"] != nil {
					t.Errorf("docker %s: volumes %s mount %v, want the allocation's directory only", task.Name, v, task.Config["mount"])
				}
			}
			sc := tasks[ScratchTask]
			if fmt.Sprint(names) != "[init scratch main]" || sc.User != "0" || sc.Lifecycle.Hook != "prestart" ||
				fmt.Sprint(sc.Config["args"]) != `[-c mkdir -p -- "$@" && chmod 0777 -- "$@" sh ${NOMAD_ALLOC_DIR}/`+dir+`]` {
				t.Errorf("docker: tasks %v, scratch task %+v %v, want a prestart scratch task as root making ${NOMAD_ALLOC_DIR}/%s 0777", names, sc, sc.Config, dir)
			}
			if !strings.Contains(warned, "init-memory.yaml:21,") || !strings.Contains(warned, "writable by every user only for the main task") {
				t.Errorf("docker: warnings %v, want one at the init container's mount (line 21)", diags)
			}
		case "exec":
			want := "\nempty\tdisk\t0\t/fast\t$NOMAD_ALLOC_DIR/" + dir + "\n"
			if spec := viewSpecText(t, main); !strings.Contains(spec, want) || fmt.Sprint(names) != "[init main]" {
				t.Errorf("exec: tasks %v, main's spec\n%s\nwant %q", names, spec, want)
			}
		default:
			want := "\nempty\tmemory\t16\t/fast\t$NOMAD_ALLOC_DIR/" + dir + "\n"
			for _, task := range []*api.Task{main, init} {
				if spec := viewSpecText(t, task); !strings.Contains(spec, want) {
					t.Errorf("raw_exec %s: spec\n%s\nwant %q", task.Name, spec, want)
				}
			}
			um := tasks[UnmountTask]
			if fmt.Sprint(names) != "[init main unmount]" || um.Driver != "raw_exec" || um.Lifecycle.Hook != "poststop" ||
				fmt.Sprint(um.Config["args"]) != "[-c "+unmountScript+" sh ${NOMAD_ALLOC_DIR}/"+dir+"]" {
				t.Errorf("raw_exec: tasks %v, unmount task %+v %v, want a poststop raw_exec task unmounting ${NOMAD_ALLOC_DIR}/%s", names, um, um.Config, dir)
			}
		}
	}
}

// TestHostPathRendered: the init-secret example's hostPath, shared by its
// init container and its main container, is a driver volume of both
// tasks on docker; on raw_exec the path is the host's own, so the view
// binds nothing, and a hostPath mounted at another path is bound.
func TestHostPathRendered(t *testing.T) {
	j, diags := load.Load("../../examples/pytorchjob-init-secret.yaml", jobs.ReadOptions{Path: "pytorchjob-init-secret.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	const vol = "/tmp/jobshift-example-init:/tmp/jobshift-example-init"
	for _, driver := range []string{"docker", "raw_exec"} {
		p, diags := translate.Build(j, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: driver}}, nil, "alice")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		job, diags := BuildJob(p, fixtureContract{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, tk := range job.TaskGroups[0].Tasks {
			vols, _ := tk.Config["volumes"].([]string)
			if want := driver == "docker" && (tk.Name == MainTask || tk.Name == InitTask); want != slices.Contains(vols, vol) {
				t.Errorf("%s: task %s volumes %q", driver, tk.Name, vols)
			}
			if tk.Name == MainTask && driver == "raw_exec" && strings.Contains(viewSpecText(t, tk), "\nbind\t") {
				t.Errorf("raw_exec: the view binds the host's own path:\n%s", viewSpecText(t, tk))
			}
		}
	}
	j.Roles[0].Volumes[0].MountPath = "/data"
	p, _ := translate.Build(j, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec"}}, nil, "alice")
	job, diags := BuildJob(p, fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if spec := viewSpecText(t, mainOf(job.TaskGroups[0])); !strings.Contains(spec, "\nbind\trw\t/tmp/jobshift-example-init\t/data\n") {
		t.Errorf("raw_exec: the view does not bind the hostPath at /data:\n%s", spec)
	}
}
