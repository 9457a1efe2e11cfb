package slurm

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// viewData is what js_exec_view (sh/run.sh) reads for role ri: a task
// that runs on the node itself (no container) runs under the task
// namespace wrapper (drivers/taskns) with its platform host names, the
// index left as @I@ for the task to fill in (no name of any format holds
// an '@'), and the volumes a site rule maps (_t_nsbind_K: taskns spec
// lines). A container role gets nothing: Apptainer keeps the node's name.
func viewData(ri roleInfo, job *jobs.Job, ctr string, st settings) (string, error) {
	if ctr != "" {
		return "", nil
	}
	names := contract.HostNamesAt(job, ri.k, "@I@")
	out := fmt.Sprintf("_t_ns_%d=1 _t_nsname_%d=%s\n", ri.k, ri.k, shQuote(strings.Join(names, " ")))
	binds, err := volumeBinds(ri.Role, st)
	if err != nil || binds == "" {
		return out, err
	}
	return out + fmt.Sprintf("_t_nsbind_%d=%s\n", ri.k, shQuote(binds)), nil
}

// volumeBinds are the taskns "bind" lines of r's volumes that a site
// volume rule maps to a path (siteconfig.VolumeRule.HostPath, ${user}
// being the job's user), parents before the paths under them. Volumes no
// rule maps were refused by translate.Build (or accepted with -lossy).
func volumeBinds(r *jobs.Role, st settings) (string, error) {
	type bind struct{ ro, src, dst string }
	var binds []bind
	for _, v := range r.Volumes {
		rule := st.site.Volume(v.Source, v.Name)
		if rule == nil || rule.Path == "" {
			continue
		}
		src, err := rule.HostPath(st.user)
		if err == nil {
			err = taskns.CheckPath(v.MountPath)
		}
		if err == nil && (strings.ContainsAny(v.SubPath, "\t\n\r\x00") || path.IsAbs(v.SubPath) || strings.Contains("/"+v.SubPath+"/", "/../")) {
			err = fmt.Errorf("the subPath %q leaves the mapped directory", v.SubPath)
		}
		if err != nil {
			return "", refuse(v.Pos, "Role %s, volume %q: %v.", r.Name, v.Name, err)
		}
		if v.SubPath != "" {
			src = path.Join(src, v.SubPath)
		}
		ro := "rw"
		if v.ReadOnly || rule.ReadOnly {
			ro = "ro"
		}
		binds = append(binds, bind{ro, src, v.MountPath})
	}
	sort.SliceStable(binds, func(i, j int) bool { return binds[i].dst < binds[j].dst })
	lines := make([]string, len(binds))
	for i, b := range binds {
		lines[i] = "bind\t" + b.ro + "\t" + b.src + "\t" + b.dst
	}
	return strings.Join(lines, "\n"), nil
}
