package nomad

import (
	"fmt"
	"path"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// A role's volumes that a site rule maps (siteconfig.VolumeRule: a claim,
// a volume or a PAI storage name) reach its main task at the job's own
// mount path, one of four ways, decided in decider.mounts (a row of the
// shape, with a Why line) and rendered from GroupShape.Mounts alone:
//
//   - a Nomad host volume or CSI volume: a group `volume` block and a
//     task `volume_mount` (Nomad's job specification, volume and
//     volume_mount blocks, developer.hashicorp.com/nomad/docs/
//     job-specification/volume and .../volume_mount, Nomad 1.11.x), for a
//     driver that takes mounts (Traits.VolumeMounts);
//   - raw_exec takes none (its plugin reports MountConfigSupportNone,
//     drivers/rawexec/driver.go, v1.11.3): there the rule's path, if it
//     gives one, is bound by the task view (view.go), else the job is
//     refused, located;
//   - a path only: on docker and podman a driver volume
//     "host:dest[:ro]" (the docker driver needs the client's plugin
//     option volumes { enabled = true } for a host path outside the
//     task directory: drivers/docker/config.go, v1.11.3), on raw_exec
//     and exec a bind of the task view (exec: the path must be inside
//     the client's chroot_env to be seen).

// MountWay is how a mapped volume reaches the main task.
type MountWay string

const (
	MountHostVolume MountWay = "nomad host volume"    // group volume type host + volume_mount
	MountCSIVolume  MountWay = "nomad csi volume"     // group volume type csi + volume_mount
	MountDriver     MountWay = "driver volume"        // docker/podman config volumes
	MountViewBind   MountWay = "task view bind"       // a bind of the task namespace wrapper
	MountViewEmpty  MountWay = "task view emptyDir"   // an emptyDir the wrapper makes
	MountAllocDir   MountWay = "allocation directory" // a container's emptyDir: a driver volume in the allocation
	MountTmpfs      MountWay = "tmpfs mount"          // a container's memory emptyDir
	MountNodeTmpfs  MountWay = "node tmpfs"           // a memory emptyDir an init task shares: a tmpfs in the allocation directory
)

// MountShape is one mapped volume of a group's main task.
type MountShape struct {
	// Volume is the job's volume name; the group's volume block has it.
	Volume string
	Way    MountWay
	// Source is the Nomad volume's name (host, csi) or the host path,
	// ${user} replaced by the job's user (driver volume, view bind).
	Source   string
	Dest     string
	ReadOnly bool
	// Tree and NoLink: the mapped tree a view bind's Source must stay in
	// (siteconfig.Mapped, checked by the wrapper on the client).
	Tree   string
	NoLink bool
	// Empty and SizeMiB: an emptyDir's medium and size (taskns.Bind).
	Empty   string
	SizeMiB int64
	// AccessMode and AttachmentMode: a CSI volume's.
	AccessMode, AttachmentMode string
}

// mounts decides how each of role's site-mapped volumes reaches its
// main task; a volume no rule maps is left to warnVolumes.
func (d *decider) mounts(g *GroupShape, role *jobs.Role) {
	for _, vol := range role.Volumes {
		if vol.Kind == "emptyDir" {
			d.emptyDir(g, role, vol)
			continue
		}
		rule := d.p.Site.Volume(vol.Source, vol.Name)
		if rule == nil && vol.Kind == "hostPath" {
			d.hostPath(g, role, vol)
		}
		if rule == nil {
			continue
		}
		m, why, err := d.mount(g, vol, rule)
		if err != "" {
			d.diags = append(d.diags, jobs.Errorf(vol.Pos, "Volume cannot be mounted on Nomad",
				"Role %s, volume %q at %s (site rule volume %q, %s): %s. Nothing was rendered.", role.Name, vol.Name, vol.MountPath, rule.Pattern, rule.Range, err))
			continue
		}
		g.Mounts = append(g.Mounts, m)
		g.Why = append(g.Why, fmt.Sprintf("volume %s: %s at %s, %s", vol.Name, m.Way, m.Dest, why))
	}
}

// emptyDir gives the main task the pod's emptyDir vol (Kubernetes'
// emptyDir, core/v1 types.go EmptyDirVolumeSource, v1.29; the kubelet
// makes it 0777, a tmpfs of the sizeLimit for medium Memory:
// pkg/volume/emptydir/empty_dir.go): per-task scratch, as each pod had its
// own, in the allocation directory, which the init task shares (the view's
// 'empty' line on raw_exec and exec, made 0777 there; a driver volume
// relative to the task directory on docker and podman, which need no
// client option inside the allocation: drivers/docker/driver.go
// isParentPath, v1.11.3, made 0777 by the scratch task: emptydirtasks.go).
// For medium Memory a tmpfs of the sizeLimit: the view's, or docker's
// tmpfs mount, podman's tmpfs list; one an init container also mounts is
// a tmpfs the init task's view mounts in the allocation directory on the
// node (raw_exec, whose tasks start in the node's mount namespace; the
// unmount task removes it), bound by both tasks' views. Elsewhere it stays
// a directory of the allocation on disk, with a warning: a container's
// tmpfs mount is its own, and no task that Nomad starts before the init
// container could mount one for both (Nomad starts a group's prestart
// tasks at once).
func (d *decider) emptyDir(g *GroupShape, role *jobs.Role, vol jobs.Volume) {
	if err := taskns.CheckPath(vol.MountPath); err != nil || g.Traits.Container && strings.ContainsAny(vol.MountPath, ":,") {
		if err == nil {
			err = fmt.Errorf("%q holds a ':' or ',', which a driver volume (host:dest) cannot carry", vol.MountPath)
		}
		d.diags = append(d.diags, jobs.Errorf(vol.Pos, "Volume cannot be mounted on Nomad", "Role %s, emptyDir %q: %v. Nothing was rendered.", role.Name, vol.Name, err))
		return
	}
	m := MountShape{Volume: vol.Name, Way: MountViewEmpty, Dest: vol.MountPath, Empty: taskns.EmptyDisk,
		Source: phAllocDir + "/" + viewEmptyDir + "/" + emptyDirName(vol.Name)}
	made := "made 0777 by the task namespace"
	if g.Traits.Container {
		m.Way, m.Source, made = MountAllocDir, allocEmptyDir(vol.Name), "a driver volume "+allocEmptyDir(vol.Name)+", made 0777 by the scratch task"
	}
	why := "a directory of the allocation (shared with the init task)"
	size := ""
	if vol.SizeMiB > 0 {
		size = fmt.Sprintf(" of %d MiB (sizeLimit)", vol.SizeMiB)
	}
	switch {
	case vol.Source == "Memory" && initMounts(role, vol.Name) && g.Traits.NodeMounts:
		m.Way, m.Empty, m.SizeMiB = MountNodeTmpfs, taskns.EmptyMemory, vol.SizeMiB
		why = "a tmpfs" + size + " in the allocation directory, shared with the init task"
		made = "mounted on the node by the init task's view (as root), bound by both views, unmounted by the unmount task"
	case vol.Source == "Memory" && initMounts(role, vol.Name):
		why += "; medium Memory, but on disk: " + g.Driver + " starts no task before the init container that could mount a tmpfs both see"
		d.diags = append(d.diags, jobs.Warnf(vol.Pos, "Memory emptyDir on disk",
			"Role %s, emptyDir %q: an init container fills it, which Nomad runs in a task of its own; on %s no task of the allocation runs before it in the node's mount namespace to mount a tmpfs it and the main task share (a container's tmpfs mount is its own), so it is a directory of the allocation, on the node's disk, with no sizeLimit. nomad.driver = \"raw_exec\" (with a client running as root) makes it a tmpfs of its sizeLimit.", role.Name, vol.Name, g.Driver))
	case vol.Source == "Memory":
		m.Empty, m.SizeMiB, m.Source, why = taskns.EmptyMemory, vol.SizeMiB, "", "a tmpfs of the task's own"+size
		made = "made by the task namespace"
		if g.Traits.Container {
			m.Way, made = MountTmpfs, g.Driver+"'s tmpfs mount"
			if g.Driver == "podman" && vol.SizeMiB > 0 {
				why += ", not enforced (podman's tmpfs option takes no size)"
			}
		}
	}
	g.Mounts = append(g.Mounts, m)
	g.Why = append(g.Why, fmt.Sprintf("volume %s: %s at %s, %s, %s", vol.Name, m.Way, m.Dest, why, made))
}

// allocEmptyDir is emptyDir name's directory as a container driver's
// volume source: relative to the task directory, in the allocation's.
func allocEmptyDir(name string) string {
	return "../alloc/" + viewEmptyDir + "/" + emptyDirName(name)
}

// initMounts: one of role's init containers mounts its volume name.
func initMounts(role *jobs.Role, name string) bool {
	for _, st := range role.Init {
		for _, v := range st.Volumes {
			if v.Name == name {
				return true
			}
		}
	}
	return false
}

// hostPath gives the task the pod's hostPath vol as written: a driver
// volume on docker and podman (the client's plugin must allow host
// paths: volumes { enabled = true }, drivers/docker/config.go, v1.11.3),
// a bind of the view where the job's path is another than the host's on
// raw_exec and exec (where it is the same, the task sees it already).
func (d *decider) hostPath(g *GroupShape, role *jobs.Role, vol jobs.Volume) {
	m, err := hostPathMount(g.Traits.Container, vol)
	if err != "" {
		d.diags = append(d.diags, jobs.Errorf(vol.Pos, "Volume cannot be mounted on Nomad", "Role %s, hostPath %q at %s: %s. Nothing was rendered.", role.Name, vol.Source, vol.MountPath, err))
		return
	}
	why := "the host's own path, which the task sees as it is"
	switch m.Way {
	case MountDriver:
		why = "driver config volumes " + m.Source + ":" + m.Dest + " (a site setting: the client's " + g.Driver + " plugin needs volumes { enabled = true } for a host path)"
	case MountViewBind:
		why = "bound from " + m.Source + " by the task namespace"
	}
	if m.Way != "" {
		g.Mounts = append(g.Mounts, m)
	}
	g.Why = append(g.Why, fmt.Sprintf("volume %s: hostPath %s at %s, %s", vol.Name, vol.Source, vol.MountPath, why))
}

// hostPathMount is vol (a hostPath) for a container or a plain process;
// no Way when the plain process needs no mount; or why it cannot be.
func hostPathMount(container bool, vol jobs.Volume) (MountShape, string) {
	m := MountShape{Volume: vol.Name, Source: vol.Source, Dest: vol.MountPath, ReadOnly: vol.ReadOnly}
	for _, p := range []string{vol.Source, vol.MountPath} {
		if err := taskns.CheckPath(p); err != nil {
			return m, err.Error()
		}
	}
	switch {
	case container && strings.ContainsAny(vol.Source+vol.MountPath, ":,"):
		return m, "a path holds a ':' or ',', which a driver volume (host:dest) cannot carry"
	case container:
		m.Way = MountDriver
	case path.Clean(vol.Source) != path.Clean(vol.MountPath):
		m.Way = MountViewBind
	}
	return m, ""
}

// dockerVolumesAttr is the docker plugin's fingerprint of its option
// volumes { enabled = true } (drivers/docker/fingerprint.go, v1.11.3: set
// only when enabled); without the option a host path outside the task
// directory fails the task when it starts.
const dockerVolumesAttr = "driver.docker.volumes.enabled"

// hostPathsAllowed: a docker group with a host path as a driver volume
// needs clients whose plugin allows host paths; the constraint keeps it
// off the others, and a cluster with none refuses the job at submission,
// naming the option, instead of failing its tasks. (podman's plugin
// fingerprints no such attribute; its volumes are on by default.)
func (d *decider) hostPathsAllowed(g *GroupShape) {
	if g.Driver != "docker" {
		return
	}
	for _, m := range g.Mounts {
		if m.Way == MountDriver && path.IsAbs(m.Source) {
			g.Requires = append(g.Requires, NodeAttr{Attr: dockerVolumesAttr, Value: "true"})
			g.Why = append(g.Why, "constraint ${attr."+dockerVolumesAttr+"} = true: the host path "+m.Source+" needs a client whose docker plugin has volumes { enabled = true }")
			return
		}
	}
}

// emptyDirName is the allocation directory's entry of emptyDir name (a
// DNS label on Kubernetes; anything else is made one path element).
func emptyDirName(name string) string {
	out := []byte(name)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			out[i] = '_'
		}
	}
	if s := string(out); s != "" && strings.Trim(s, ".") != "" {
		return s
	}
	return "_" + string(out)
}

// mount is vol's MountShape under rule, the reason for its way, or why
// it cannot be given.
func (d *decider) mount(g *GroupShape, vol jobs.Volume, rule *siteconfig.VolumeRule) (MountShape, string, string) {
	m := MountShape{Volume: vol.Name, Dest: vol.MountPath, ReadOnly: vol.ReadOnly || rule.ReadOnly}
	if err := taskns.CheckPath(vol.MountPath); err != nil {
		return m, "", fmt.Sprintf("the mount path cannot be used: %v", err)
	}
	mp, err := rule.Map(d.p.User, vol.SubPath)
	if err != nil {
		return m, "", err.Error()
	}
	host := mp.Src
	nomadVol := rule.NomadHostVolume != "" || rule.NomadCSIVolume != ""
	switch {
	case nomadVol && g.Traits.VolumeMounts && vol.SubPath != "":
		return m, "", fmt.Sprintf("jobshift mounts a Nomad volume whole, not its subPath %q; map the subPath's directory with a rule of its own, or give this rule a path and set nomad.driver = \"raw_exec\"", vol.SubPath)
	case nomadVol && g.Traits.VolumeMounts:
		return d.nomadMount(m, rule)
	case nomadVol && host == "":
		return m, "", fmt.Sprintf("driver %s cannot mount a Nomad volume (Nomad mounts none into its tasks); give the rule a path (path = \"/shared/...\", the host volume's directory on every client) for the task namespace to bind, or set nomad.driver = \"exec\" or \"docker\"", g.Driver)
	case g.Traits.Container && (strings.ContainsAny(host, ":,") || strings.ContainsAny(vol.MountPath, ":,")):
		return m, "", fmt.Sprintf("the path %s or %s holds a ':' or ',', which a driver volume (host:dest) cannot carry", host, vol.MountPath)
	case g.Traits.Container && mp.Src != mp.Tree:
		return m, "", fmt.Sprintf("%s lies below %s, where a user may make a symbolic link that %s would follow out of the mapped tree when it mounts the path (it resolves links itself); run the role on raw_exec or exec, whose task view refuses such a link on the client, or map %s itself", host, mp.Tree, g.Driver, mp.Tree)
	}
	m.Source, m.Tree, m.NoLink = host, mp.Tree, mp.NoLink
	if g.Traits.Container {
		m.Way = MountDriver
		return m, "driver config volumes " + m.Source + ":" + m.Dest + " (a site setting: the client's " + g.Driver + " plugin needs volumes { enabled = true } for a host path)", ""
	}
	m.Way = MountViewBind
	why := "bound from " + m.Source + " by the task namespace"
	if nomadVol {
		why += " (driver " + g.Driver + " cannot mount the rule's Nomad volume; its path is used)"
	}
	if g.Traits.ChrootBinaries {
		why += " (exec: the path must be inside the client's chroot_env)"
	}
	return m, why, ""
}

// nomadMount is m as a Nomad host or CSI volume. A CSI volume is not
// per_alloc: the rule names one volume that every allocation of the
// group shares, as the job's claim was shared by its pods; per_alloc
// would ask for volumes named source[0], source[1], ... that no rule
// names. Nomad requires a CSI request's access and attachment modes
// (job-specification/volume: access_mode, attachment_mode), and a
// reader-only access mode mounts read-only.
func (d *decider) nomadMount(m MountShape, rule *siteconfig.VolumeRule) (MountShape, string, string) {
	if rule.NomadHostVolume != "" {
		m.Way, m.Source = MountHostVolume, rule.NomadHostVolume
		return m, "group volume type host, source " + m.Source, ""
	}
	if rule.AccessMode == "" || rule.AttachmentMode == "" {
		return m, "", "Nomad needs a CSI volume's access_mode and attachment_mode; add both to the rule"
	}
	m.Way, m.Source = MountCSIVolume, rule.NomadCSIVolume
	m.AccessMode, m.AttachmentMode = rule.AccessMode, rule.AttachmentMode
	m.ReadOnly = m.ReadOnly || strings.HasSuffix(m.AccessMode, "reader-only")
	return m, "group volume type csi, source " + m.Source + ", " + m.AccessMode + ", " + m.AttachmentMode + ", not per_alloc (one volume the group's allocations share)", ""
}

// groupVolumes are the group volume blocks of gs's Nomad mounts; a volume
// mounted twice is read-only only if every mount is.
func groupVolumes(gs *GroupShape) map[string]*api.VolumeRequest {
	out := map[string]*api.VolumeRequest{}
	for _, m := range gs.Mounts {
		typ := map[MountWay]string{MountHostVolume: "host", MountCSIVolume: "csi"}[m.Way]
		if typ == "" {
			continue
		}
		if v := out[m.Volume]; v != nil {
			v.ReadOnly = v.ReadOnly && m.ReadOnly
			continue
		}
		out[m.Volume] = &api.VolumeRequest{Name: m.Volume, Type: typ, Source: m.Source, ReadOnly: m.ReadOnly,
			AccessMode: m.AccessMode, AttachmentMode: m.AttachmentMode}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// volumeMounts are the main task's volume_mount blocks.
func volumeMounts(gs *GroupShape) []*api.VolumeMount {
	var out []*api.VolumeMount
	for _, m := range gs.Mounts {
		if m.Way == MountHostVolume || m.Way == MountCSIVolume {
			out = append(out, &api.VolumeMount{Volume: new(m.Volume), Destination: new(m.Dest), ReadOnly: new(m.ReadOnly)})
		}
	}
	return out
}

// driverVolumes are the container driver's "host:dest[:ro]" entries.
func driverVolumes(gs *GroupShape) []string {
	var out []string
	for _, m := range gs.Mounts {
		if m.Way == MountDriver || m.Way == MountAllocDir {
			v := m.Source + ":" + m.Dest
			if m.ReadOnly {
				v += ":ro"
			}
			out = append(out, v)
		}
	}
	return out
}

// viewBinds are the task view's binds of the mapped volumes.
func viewBinds(gs *GroupShape) []taskns.Bind {
	var out []taskns.Bind
	for _, m := range gs.Mounts {
		switch m.Way {
		case MountViewBind:
			out = append(out, taskns.Bind{Src: m.Source, Dst: m.Dest, ReadOnly: m.ReadOnly, Tree: m.Tree, NoLink: m.NoLink})
		case MountViewEmpty, MountNodeTmpfs:
			out = append(out, taskns.Bind{Src: m.Source, Dst: m.Dest, Empty: m.Empty, SizeMiB: m.SizeMiB})
		}
	}
	return out
}

// mounted: role's volume vol has a mount in gs.
func mounted(gs *GroupShape, vol jobs.Volume) bool {
	for _, m := range gs.Mounts {
		if m.Volume == vol.Name && m.Dest == vol.MountPath {
			return true
		}
	}
	return false
}

// taskMounts gives main task t gs's mounts: its volume_mount blocks, the
// driver volumes (vols, the view's files, first) and tmpfs mounts.
func taskMounts(t *api.Task, gs *GroupShape, vols []string) {
	t.VolumeMounts = volumeMounts(gs)
	if vols := append(vols, driverVolumes(gs)...); len(vols) > 0 {
		t.Config["volumes"] = vols
	}
	tmpfsConfig(gs, t.Config)
}

// tmpfsConfig sets the container driver's tmpfs mounts of gs's memory
// emptyDirs in cfg: docker's mount blocks of type tmpfs with the size in
// bytes (drivers/docker/config.go DockerMount, tmpfs_options, v1.11.3),
// podman's tmpfs list of paths (drivers/podman config.go, tmpfs).
func tmpfsConfig(gs *GroupShape, cfg map[string]any) {
	var mounts []map[string]any
	var paths []string
	for _, m := range gs.Mounts {
		if m.Way != MountTmpfs {
			continue
		}
		paths = append(paths, m.Dest)
		mt := map[string]any{"type": "tmpfs", "target": m.Dest, "readonly": false}
		if m.SizeMiB > 0 {
			mt["tmpfs_options"] = []map[string]any{{"size": m.SizeMiB * 1024 * 1024}}
		}
		mounts = append(mounts, mt)
	}
	switch {
	case len(paths) == 0:
	case gs.Driver == "podman":
		cfg["tmpfs"] = paths
	default:
		cfg["mount"] = mounts
	}
}
