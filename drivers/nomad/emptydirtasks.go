package nomad

import (
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
)

// The tasks a role's emptyDirs need besides its own (mounts.go emptyDir).
// The kubelet makes an emptyDir 0777 (pkg/volume/emptydir/empty_dir.go,
// perm, v1.29), so an image whose user is not root writes there; a driver
// volume's directory that Docker makes itself is root's, 0755 (moby
// volume/mounts/mounts.go MountPoint.Setup: MkdirAllAndChownNew 0o755),
// so on docker and podman
// ScratchTask, a prestart task of the role's image run as root, makes
// each one 0777 in the allocation directory before the main task starts
// (/bin/sh, which the barrier task assumes of every image too). Nomad
// starts a group's prestart tasks at once, so an init container may start
// before it: one whose image runs as another user than root may find the
// directory not yet writable (a located warning says so).
//
// A memory emptyDir an init container shares on raw_exec is a tmpfs the
// init task's view mounts on the node (MountNodeTmpfs); Nomad's removal of
// the allocation directory unmounts nothing of its own making
// (client/allocdir/alloc_dir.go Destroy, v1.11.3), so UnmountTask, a
// poststop raw_exec task, unmounts it once the main task has ended.

const (
	// ScratchTask makes the group's emptyDir directories 0777 (containers).
	ScratchTask = "scratch"
	// UnmountTask unmounts the group's node tmpfs emptyDirs (raw_exec).
	UnmountTask = "unmount"
)

// emptyDirTasks adds the tasks g's emptyDirs need (after its mounts are
// decided): the scratch task before the main task, the unmount task last.
func (d *decider) emptyDirTasks(g *GroupShape, role *jobs.Role) {
	if dirs := scratchDirs(g); len(dirs) > 0 {
		main := len(g.Tasks) - 1
		for i, t := range g.Tasks {
			if t.Name == MainTask {
				main = i
			}
		}
		g.Tasks = append(g.Tasks[:main], append([]TaskShape{{Name: ScratchTask, Hook: "prestart"}}, g.Tasks[main:]...)...)
		g.Why = append(g.Why, fmt.Sprintf("scratch task: makes the emptyDir directories %s 0777, as the kubelet does (%s makes a driver volume's directory root's, 0755)", strings.Join(dirs, ", "), g.Driver))
		for _, st := range role.Init {
			for _, v := range st.Volumes {
				if v.Kind == "emptyDir" {
					d.diags = append(d.diags, jobs.Warnf(v.Pos, "emptyDir writable by every user only for the main task",
						"Role %s, init container %s: Nomad starts it while the scratch task makes the emptyDir %q writable by every user (0777, as the kubelet made it); if its image runs as another user than root, it may find the directory root's (0755). The main container finds it 0777.", role.Name, st.Name, v.Name))
					break
				}
			}
		}
	}
	if len(nodeTmpfs(g)) > 0 {
		g.Tasks = append(g.Tasks, TaskShape{Name: UnmountTask, Hook: "poststop"})
		g.Why = append(g.Why, "unmount task: unmounts the tmpfs emptyDirs the init task mounted in the allocation directory once the main task has ended")
	}
}

// scratchDirs are the allocation directory's entries of g's container
// emptyDirs (MountAllocDir).
func scratchDirs(g *GroupShape) []string {
	var out []string
	for _, m := range g.Mounts {
		if m.Way == MountAllocDir {
			out = append(out, viewEmptyDir+"/"+emptyDirName(m.Volume))
		}
	}
	return out
}

// nodeTmpfs are the allocation directory's entries of g's node tmpfs
// emptyDirs (MountNodeTmpfs).
func nodeTmpfs(g *GroupShape) []string {
	var out []string
	for _, m := range g.Mounts {
		if m.Way == MountNodeTmpfs {
			out = append(out, viewEmptyDir+"/"+emptyDirName(m.Volume))
		}
	}
	return out
}

// allocPaths are entries as arguments the client interpolates: paths in
// the task's allocation directory.
func allocPaths(entries []string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = "${NOMAD_ALLOC_DIR}/" + e
	}
	return out
}

// scratchTask is the group's ScratchTask: the role's image, as root.
func (r *renderer) scratchTask(role *jobs.Role, gs *GroupShape) *api.Task {
	args := append([]string{"-c", `mkdir -p -- "$@" && chmod 0777 -- "$@"`, "sh"}, allocPaths(scratchDirs(gs))...)
	t := &api.Task{
		Name:      ScratchTask,
		Driver:    gs.Driver,
		User:      "0",
		Lifecycle: &api.TaskLifecycle{Hook: "prestart", Sidecar: false},
		Resources: &api.Resources{CPU: new(20), MemoryMB: new(32)},
		Config:    map[string]any{"image": r.image(role), "entrypoint": []string{"/bin/sh"}, "args": args},
	}
	if gs.Driver == "podman" {
		t.Config["entrypoint"] = "/bin/sh"
	}
	return t
}

// unmountScript unmounts each argument that is a mount point (the init
// task's view may have made none: not root), lazily if it is still busy;
// never through a symbolic link a task may have put there.
const unmountScript = `for d do
  [ -L "$d" ] && continue
  [ "$(stat -c %d "$d" 2>/dev/null)" != "$(stat -c %d "$d/.." 2>/dev/null)" ] || continue
  umount "$d" 2>/dev/null || umount -l "$d" || echo "jobshift: cannot unmount the emptyDir tmpfs at $d" >&2
done
exit 0`

// unmountTask is the group's UnmountTask.
func (r *renderer) unmountTask(gs *GroupShape) *api.Task {
	return &api.Task{
		Name:      UnmountTask,
		Driver:    "raw_exec",
		Lifecycle: &api.TaskLifecycle{Hook: "poststop"},
		Resources: &api.Resources{CPU: new(20), MemoryMB: new(32)},
		Config:    map[string]any{"command": "/bin/sh", "args": append([]string{"-c", unmountScript, "sh"}, allocPaths(nodeTmpfs(gs))...)},
	}
}
