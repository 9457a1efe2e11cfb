package nomad

import (
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/internal/shquote"
	"github.com/jobshift/jobshift/jobs"
)

// Init containers (jobs.Role.Init) become one prestart task of the role's
// group, InitTask: Nomad runs a group's prestart tasks that are not
// sidecars to completion before it starts the main tasks ("prestart ...
// main tasks will not start until all prestart tasks have completed
// successfully"), but runs the prestart tasks themselves concurrently
// (website/content/docs/job-specification/lifecycle.mdx, v1.11.3), and
// the kubelet ran init containers one after the other, each to success
// (kubernetes/website content/en/docs/concepts/workloads/pods/
// init-containers.md, "Detailed behavior"). So the order is kept inside
// the one task:
//   - a host driver (raw_exec, exec) runs a script, local/jobshift-init.sh,
//     that runs the steps in order, each with its own argument vector,
//     variables (env, on top of the task's) and working directory, and
//     stops at the first that fails, with its exit code; under the main
//     task's view (view.go: host name, mapped volumes, files, emptyDirs in
//     the allocation directory), so a step writes where the main task
//     reads;
//   - a container driver runs the one init container in its own image,
//     entrypoint, args and env; a role with more than one is refused
//     (separate tasks would run at once, and chaining them needs a shell
//     the images need not have).
//
// A failing step fails the task: the group's restart policy (no attempts,
// mode fail: render.go) fails the allocation, so the main task never
// starts and the attempt fails by the completion rules, as a pod whose
// init container failed under restartPolicy Never. Every task of a group
// shares the allocation directory (NOMAD_ALLOC_DIR, /alloc in a
// container), and a host driver's steps see the host's paths as the main
// task does: what a step writes there the main task reads.
// A step that succeeded is not run again by an in-place restart (the
// restart loop wraps only the main task's command); a new attempt runs
// them all.

// InitTask is the prestart task running a role's init containers.
const InitTask = "init"

// initScript runs role's init steps in order (host drivers).
func initScript(role *jobs.Role) string {
	var b strings.Builder
	b.WriteString("# jobshift: the role's init containers, in order, each to success\n")
	var secrets []string // every step's secret variables (secretInitVar)
	for j, st := range role.Init {
		for i, e := range st.Env {
			if e.Secret {
				secrets = append(secrets, secretInitVar(j, i))
			}
		}
	}
	for j, st := range role.Init {
		argv := append(append([]string(nil), st.Command.Command...), st.Command.Args...)
		cd := ""
		if st.WorkingDir != "" {
			cd = "cd " + shquote.QuoteAll([]string{st.WorkingDir}) + " && "
		}
		var env []string
		for i, e := range st.Env {
			if e.Secret {
				// its value taken from the init task's environment into
				// an unexported variable, then no step's secret
				// variable is left in the environment
				cd += fmt.Sprintf(`_jsv%d="$%s" && `, i, secretInitVar(j, i))
				env = append(env, shquote.QuoteAll([]string{e.Name + "="})+fmt.Sprintf(`"$_jsv%d"`, i))
				continue
			}
			env = append(env, shquote.QuoteAll([]string{e.Name + "=" + e.Value}))
		}
		if len(secrets) > 0 {
			cd += "unset " + strings.Join(secrets, " ") + " && "
		}
		run := "exec " + shquote.QuoteAll(argv)
		if len(env) > 0 {
			run = "exec env -- " + strings.Join(env, " ") + " " + shquote.QuoteAll(argv)
		}
		fmt.Fprintf(&b, "(%s%s)\nrc=$?\nif [ \"$rc\" -ne 0 ]; then echo %s\"$rc\" >&2; exit \"$rc\"; fi\n",
			cd, run, shquote.QuoteAll([]string{"jobshift: init container " + st.Name + " failed with exit code "}))
	}
	return b.String()
}

// initTask is the group's InitTask.
func (r *renderer) initTask(role *jobs.Role, gs *GroupShape, net *api.NetworkResource) *api.Task {
	t := &api.Task{
		Name:      InitTask,
		Driver:    gs.Driver,
		Lifecycle: &api.TaskLifecycle{Hook: "prestart", Sidecar: false},
		// The role's CPU and memory, no devices: Nomad reserves the larger
		// of the prestart tasks that end and the tasks that stay.
		Resources:  r.resources(role),
		KillSignal: "SIGTERM",
	}
	t.Resources.Devices = nil
	if !gs.Traits.Container {
		// the pod's view, as the kubelet gave init containers the pod's
		// volumes and host name: the main task's binds, files and
		// emptyDirs (in the allocation directory, so shared); by
		// templates, as no nomad-env runs before the init steps
		byTmpl := *gs
		byTmpl.View = ViewTemplates
		view, ok := r.taskView(role, &byTmpl, net, &userCommand{argv: []string{"/bin/sh", "${NOMAD_TASK_DIR}/jobshift-init.sh"}})
		if !ok {
			return t
		}
		t.Templates = append(append([]*api.Template{r.fileTemplate("local/jobshift-init.sh", initScript(role))}, view.tmpls...), r.secretInitTemplate(role, false)...)
		t.Config = map[string]any{"command": view.uc.argv[0], "args": view.uc.argv[1:]}
		if wd := r.set.WorkDir; wd != "" {
			t.Config["work_dir"] = wd
		} else if strings.HasPrefix(role.WorkingDir, "/") {
			t.Config["work_dir"] = role.WorkingDir
		}
		return t
	}
	st := role.Init[0]
	t.Config = map[string]any{"image": st.Image}
	if len(st.Command.Command) > 0 {
		// as the main task's (driverConfig): the first word, then the rest
		t.Config["entrypoint"] = st.Command.Command[:1]
		t.Config["args"] = append(append([]string(nil), st.Command.Command[1:]...), st.Command.Args...)
	} else {
		t.Config["args"] = st.Command.Args
	}
	if gs.Driver == "docker" {
		// the main task's network, as a pod's init containers share it
		t.Config["network_mode"] = "host"
		if gs.Network != "" {
			t.Config["network_mode"] = gs.Network
		}
	}
	if st.WorkingDir != "" {
		wk := "work_dir"
		if gs.Driver == "podman" {
			wk = "working_dir"
		}
		t.Config[wk] = st.WorkingDir
	}
	if vols := r.initVolumes(role, gs, st); len(vols) > 0 {
		t.Config["volumes"] = vols
	}
	for _, e := range st.Env {
		if t.Env == nil {
			t.Env = map[string]string{}
		}
		if !e.Secret {
			t.Env[e.Name] = e.Value
		}
	}
	t.Templates = r.secretInitTemplate(role, true)
	return t
}

// initVolumes are the driver volumes of init container st's hostPath
// volumes (as the main task's: hostPathMount), which it shares with the
// main container through the host path, and of its emptyDirs, which it
// shares through the allocation directory (mounts.go emptyDir).
func (r *renderer) initVolumes(role *jobs.Role, gs *GroupShape, st jobs.InitStep) []string {
	var vols []string
	for _, v := range st.Volumes {
		if v.Kind == "emptyDir" {
			err := taskns.CheckPath(v.MountPath)
			if err == nil && strings.ContainsAny(v.MountPath, ":,") {
				err = fmt.Errorf("%q holds a ':' or ',', which a driver volume (host:dest) cannot carry", v.MountPath)
			}
			if err != nil {
				r.errorf(v.Pos, "Volume cannot be mounted on Nomad", "Role %s, init container %s, emptyDir %q: %v.", role.Name, st.Name, v.Name, err)
				continue
			}
			vols = append(vols, allocEmptyDir(v.Name)+":"+v.MountPath)
			continue
		}
		if v.Kind != "hostPath" || r.plan.Site.Volume(v.Source, v.Name) != nil {
			continue
		}
		m, err := hostPathMount(true, v)
		if err != "" {
			r.errorf(v.Pos, "Volume cannot be mounted on Nomad", "Role %s, init container %s, hostPath %q at %s: %s.", role.Name, st.Name, v.Source, v.MountPath, err)
			continue
		}
		vols = append(vols, driverVolumes(&GroupShape{Mounts: []MountShape{m}})...)
	}
	return vols
}
