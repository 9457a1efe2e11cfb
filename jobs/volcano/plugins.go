package volcano

import (
	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// Plugins jobshift carries, and the ones Volcano has that it cannot
// (pkg/controllers/job/plugins/factory.go @v1.16.0-alpha.1).
var (
	carried     = []string{"env", "svc", "ssh", "pytorch", "tensorflow", "mpi"}
	notCarried  = map[string]string{"ray": "the ray plugin starts a Ray head and its services", "hcclrank": "the hcclrank plugin writes Ascend HCCL rank tables"}
	secretFlags = map[string]bool{"ssh-private-key": true, "ssh-public-key": true}
)

// plugins reads spec.plugins (name → arguments) in file order, checks the
// arguments as each plugin's flag set does, then adds what
// patchDefaultPlugins adds: svc for tensorflow, mpi, pytorch and ray; ssh
// for mpi (mutate_job.go @v1.16.0-alpha.1).
func (r *reader) plugins(job *jobs.Job, v *jobs.Volcano, n *yaml.Node) {
	m := r.mapOf(n, "spec.plugins")
	for _, kv := range m.kvs {
		m.used[kv.Key] = true
		p := jobs.VolcanoPlugin{Name: kv.Key, Pos: r.pos(kv.KeyNode)}
		if why, ok := notCarried[kv.Key]; ok {
			r.lossyf(kv.KeyNode, "Plugin not supported: "+kv.Key, "%s; jobshift cannot reproduce it.", why)
			continue
		}
		if !member(carried, kv.Key) {
			r.errorf(kv.KeyNode, "Unknown job plugin", "Volcano has no job plugin %q; its webhook rejects the job (\"unable to find job plugin\"). Known: env, svc, ssh, pytorch, tensorflow, mpi, ray, hcclrank.", kv.Key)
			continue
		}
		p.Args = r.pluginArgs(kv.Key, kv.Val)
		v.Plugins = append(v.Plugins, p)
	}
	implied := func(name string, by ...string) {
		if v.Plugin(name) != nil {
			return
		}
		for _, b := range by {
			if v.Plugin(b) != nil {
				v.Plugins = append(v.Plugins, jobs.VolcanoPlugin{Name: name, Implicit: true, Pos: v.Plugin(b).Pos})
				return
			}
		}
	}
	implied("svc", "tensorflow", "mpi", "pytorch")
	implied("ssh", "mpi")
	r.checkPlugins(job, v)
}

// pluginArgs reads one plugin's argument list and parses it with the
// plugin's flags. A flag the plugin does not know makes Go's flag package
// stop (ContinueOnError): Volcano logs the error and keeps the defaults
// for the rest, so jobshift warns and does the same. Key material given as
// arguments is not kept (jobshift's ssh emulation makes the job's keys).
func (r *reader) pluginArgs(name string, n *yaml.Node) []string {
	args := r.strList(n, "spec.plugins."+name)
	f := jobs.ParseVolcanoFlags(name, args)
	if f.Err != "" {
		r.warnf(n, "Plugin argument not understood", "The %s plugin cannot parse its arguments (%s); Volcano logs this and uses the defaults for the arguments after it. jobshift does the same.", name, f.Err)
	}
	var kept []string
	for i := 0; i < len(args); i++ {
		if flag, hasVal := jobs.SplitFlag(args[i]); secretFlags[flag] {
			r.warnf(n, "ssh key argument not used", "--%s gives the job's ssh key as a plugin argument; jobshift's ssh emulation makes a key pair for every run and does not carry this one (it never appears in an artifact).", flag)
			if !hasVal && i+1 < len(args) {
				i++
			}
			continue
		}
		kept = append(kept, args[i])
	}
	return kept
}

// checkPlugins applies the webhook's plugin rules that name tasks.
func (r *reader) checkPlugins(job *jobs.Job, v *jobs.Volcano) {
	if p := v.Plugin("mpi"); p != nil {
		f := jobs.ParseVolcanoFlags("mpi", p.Args)
		if job.Role(f.Master) == nil {
			// validateJobCreate: "The specified mpi master task was not found"
			r.Errorf(p.Pos, "MPI master task not found", "The mpi plugin's master task %q is not a task of this job; Volcano's webhook rejects it (\"The specified mpi master task was not found\"). Name a task with --master.", f.Master)
		}
	}
	if p := v.Plugin("pytorch"); p != nil {
		f := jobs.ParseVolcanoFlags("pytorch", p.Args)
		if job.Role(f.Master) == nil {
			// OnPodCreate logs "job doesn't have task" and sets nothing.
			r.warnf(nil, "pytorch plugin without its master task", "The pytorch plugin's master task %q is not a task of this job; Volcano then sets no MASTER_ADDR, RANK or WORLD_SIZE, and neither does jobshift.", f.Master)
		}
	}
}
