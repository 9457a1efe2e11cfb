package nomad

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
)

// checkDriverMounts refuses, located, a driver volume whose source is a
// user's own directory (a ${user} rule: MountShape.NoLink) that is a
// symbolic link. Docker and Podman follow a link in a volume's source
// when they mount it (nothing on the client checks it, as the task view
// does for raw_exec and exec), so mallory's directory linked to bob's
// would show her tasks bob's tree. The check is made on the submitting
// machine, which sees the path where the site mounts its shared file
// systems on its login nodes as on its clients; a path this machine does
// not see is left to the site, which creates users' directories itself
// (docs/operators.md, Storage).
func checkDriverMounts(p *translate.Plan, shape *Shape) error {
	var diags hcl.Diagnostics
	for _, g := range shape.Groups {
		for _, m := range g.Mounts {
			if m.Way != MountDriver || !m.NoLink {
				continue
			}
			// not seen here (missing, or not searchable by this user):
			// left to the site, as a path on no shared file system is
			if fi, err := os.Lstat(m.Tree); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			why := fmt.Sprintf("the user's directory %s is a symbolic link, which %s would follow out of the mapped tree when it mounts it", m.Tree, g.Driver)
			diags = append(diags, jobs.Errorf(volumePos(p, g.Role, m.Volume), "Volume cannot be mounted on Nomad",
				"Role %s, volume %q: %s. Nothing was submitted.", g.Role, m.Volume, why))
		}
	}
	if diags.HasErrors() {
		return &diag.Error{Kind: taskns.ErrValue, Diags: diags}
	}
	return nil
}

// volumePos is where role's volume name is written.
func volumePos(p *translate.Plan, role, name string) jobs.Pos {
	if r := p.Job.Role(role); r != nil {
		for _, v := range r.Volumes {
			if v.Name == name {
				return v.Pos
			}
		}
		return r.Pos
	}
	return jobs.Pos{}
}
