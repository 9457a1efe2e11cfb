package siteconfig

import (
	"fmt"
	"path"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/ryanuber/go-glob"
	"github.com/zclconf/go-cty/cty"
)

// VolumeRule maps storage a job names — a PVC claim name, a pod volume
// name, an OpenPAI storage config name — to what the site has:
//
//	volume "training" { path = "/lustre/proj/training" }
//	volume "home-*"   { path = "/gpfs/home/${user}" }
//	volume "ckpt"     { nomad_csi_volume = "ckpt", access_mode = "multi-node-multi-writer" }
//
// Path is a directory of a file system every node mounts (NFS, Lustre,
// GPFS), shown to the task at the job's mount path (drivers/taskns);
// ${user} is the submitting user. The nomad_* attributes name a Nomad
// host volume or CSI volume instead, for the Nomad target.
type VolumeRule struct {
	Pattern string
	// Path is the host path, "${user}" not yet substituted ("" = none).
	Path string
	// NomadHostVolume / NomadCSIVolume name a Nomad volume ("" = none).
	NomadHostVolume string
	NomadCSIVolume  string
	// AccessMode and AttachmentMode are the CSI volume's (Nomad's
	// volume block access_mode / attachment_mode).
	AccessMode     string
	AttachmentMode string
	// ReadOnly mounts it read-only whatever the job says.
	ReadOnly bool

	Range hcl.Range `json:"-"`
}

// Nomad's CSI access and attachment modes (nomad/structs/csi.go,
// CSIVolumeAccessMode and CSIVolumeAttachmentMode, v1.9).
var (
	CSIAccessModes     = []string{"single-node-reader-only", "single-node-writer", "multi-node-reader-only", "multi-node-single-writer", "multi-node-multi-writer"}
	CSIAttachmentModes = []string{"file-system", "block-device"}
)

var volumeSchema = attrs("path", "nomad_host_volume", "nomad_csi_volume", "access_mode", "attachment_mode", "read_only")

// userVar keeps ${user} in a path as written: HCL would otherwise take it
// for a variable it does not know.
var userVar = &hcl.EvalContext{Variables: map[string]cty.Value{"user": cty.StringVal("${user}")}}

func decodeVolume(b *hcl.Block) (*VolumeRule, hcl.Diagnostics) {
	pat, diags := label(b)
	if strings.ContainsAny(pat, "\n\r\x00") {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid volume pattern",
			Detail: "A volume pattern cannot hold a newline or NUL.", Subject: b.LabelRanges[0].Ptr()})
		pat = ""
	}
	d := newDecoder(b, volumeSchema)
	d.diags = append(diags, d.diags...)
	r := &VolumeRule{Pattern: pat, Range: b.DefRange}
	if a := d.attrs["path"]; a != nil {
		if ds := gohcl.DecodeExpression(a.Expr, userVar, &r.Path); ds.HasErrors() {
			d.diags = append(d.diags, ds...)
		} else if err := checkVolumePath(r.Path); err != nil {
			d.errAt(a, "Invalid volume path", "%v", err)
			r.Path = ""
		}
	}
	d.str("nomad_host_volume", &r.NomadHostVolume)
	d.str("nomad_csi_volume", &r.NomadCSIVolume)
	d.enum("access_mode", &r.AccessMode, CSIAccessModes)
	d.enum("attachment_mode", &r.AttachmentMode, CSIAttachmentModes)
	d.decode("read_only", &r.ReadOnly)
	r.check(d, b)
	if pat == "" {
		return nil, d.diags
	}
	return r, d.diags
}

// check refuses a rule that maps to nothing, or to two Nomad volumes, or
// gives CSI modes to a host volume.
func (r *VolumeRule) check(d *decoder, b *hcl.Block) {
	bad := func(detail string) {
		d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid volume rule", Detail: detail, Subject: b.DefRange.Ptr()})
	}
	switch {
	case r.Path == "" && r.NomadHostVolume == "" && r.NomadCSIVolume == "" && len(d.diags) == 0:
		bad("A volume rule maps the job's volume to a path (path = \"/shared/data\"), a Nomad host volume (nomad_host_volume) or a Nomad CSI volume (nomad_csi_volume); this one names none.")
	case r.NomadHostVolume != "" && r.NomadCSIVolume != "":
		bad("A volume is either a Nomad host volume or a CSI volume, not both.")
	case r.NomadCSIVolume == "" && (d.attrs["access_mode"] != nil || d.attrs["attachment_mode"] != nil):
		bad("access_mode and attachment_mode are a CSI volume's; set nomad_csi_volume, or remove them.")
	}
}

// checkVolumePath: absolute, clean, no element "..", no control character.
func checkVolumePath(p string) error {
	if !path.IsAbs(p) {
		return fmt.Errorf("path must be absolute, got %q", p)
	}
	if strings.ContainsAny(p, "\n\r\t\x00") {
		return fmt.Errorf("path %q holds a control character", p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." || el == "." {
			return fmt.Errorf("path %q holds a %q element", p, el)
		}
	}
	if p == "/" {
		return fmt.Errorf("path %q is the whole file system", p)
	}
	return nil
}

// Volume returns the first volume rule matching any of names (a claim
// name, then a volume name, ...), or nil.
func (c *Config) Volume(names ...string) *VolumeRule {
	if c == nil {
		return nil
	}
	for i := range c.Volumes {
		for _, n := range names {
			if n != "" && glob.Glob(c.Volumes[i].Pattern, n) {
				return &c.Volumes[i]
			}
		}
	}
	return nil
}

// HostPath is r's path for user: ${user} substituted. A user name that
// would leave the mapped tree (a '/', "..", a control character) is
// refused, so one user cannot reach another's data.
func (r *VolumeRule) HostPath(user string) (string, error) {
	if r.Path == "" {
		return "", nil
	}
	if strings.Contains(r.Path, "${user}") {
		if user == "" || user == "." || user == ".." || strings.ContainsAny(user, "/\n\r\t\x00") {
			return "", fmt.Errorf("volume rule %q: the user name %q cannot stand for ${user} in %s", r.Pattern, user, r.Path)
		}
	}
	return strings.ReplaceAll(r.Path, "${user}", user), nil
}

// Mapped is where a rule puts one volume mount for a user: Src is the
// directory (or file) shown at the job's path, Tree the mapped tree it
// must stay in once symbolic links are resolved on the node (the rule's
// path; for a ${user} path, the user's own directory, which must not be
// a link itself: NoLink), so that neither a subPath nor a link a user
// made shows a task anything outside it (drivers/taskns checks it where
// the mount is made).
type Mapped struct {
	Src, Tree string
	NoLink    bool
}

// Map is r's mapping of a mount with subPath for user; an error says why
// it cannot be given (a subPath leaving the tree, a bad user name, a rule
// with no path).
func (r *VolumeRule) Map(user, subPath string) (Mapped, error) {
	src, err := r.HostPath(user)
	if err != nil || src == "" {
		return Mapped{}, err
	}
	m := Mapped{Src: src, Tree: src}
	if i := strings.Index(r.Path, "${user}"); i >= 0 {
		end := strings.IndexByte(r.Path[i:], '/')
		if end < 0 {
			end = len(r.Path) - i
		}
		m.Tree, m.NoLink = strings.ReplaceAll(r.Path[:i+end], "${user}", user), true
	}
	if subPath == "" {
		return m, nil
	}
	if path.IsAbs(subPath) || strings.ContainsAny(subPath, "\t\n\r\x00") || strings.Contains("/"+subPath+"/", "/../") {
		return Mapped{}, fmt.Errorf("the subPath %q leaves the mapped directory %s", subPath, src)
	}
	m.Src = path.Join(src, subPath)
	return m, nil
}
