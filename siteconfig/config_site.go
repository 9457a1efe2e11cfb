package siteconfig

import (
	"fmt"
	"math"
	"net"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// DefaultsConfig is the `defaults {}` block: the resources of a role whose
// job file asks for none. Without it such a role gets the target's own
// default (Nomad: 100 MHz and 300 MB; Slurm: the partition's DefMemPerCPU
// and one CPU), which is rarely what a training task needs, so jobshift
// warns either way.
type DefaultsConfig struct {
	CPUMilli  int64 // cores × 1000 (cpu = 2 → 2000)
	MemoryMiB int64
	ShmMiB    int64

	Range hcl.Range `json:"-"`
}

func decodeDefaults(b *hcl.Block) (*DefaultsConfig, hcl.Diagnostics) {
	d := newDecoder(b, defaultsSchema)
	r := &DefaultsConfig{Range: b.DefRange}
	d.cores("cpu", &r.CPUMilli)
	d.integer("memory_mib", &r.MemoryMiB, 1, 1<<40)
	d.integer("shm_mib", &r.ShmMiB, 1, 1<<40)
	return r, d.diags
}

// decodeTaskNetwork decodes the task_network block: its range must hold
// a task's address per task (the wrapper numbers them from its network's
// address, drivers/taskns taskns.sh netns_addr).
func decodeTaskNetwork(b *hcl.Block) (*TaskNetworkConfig, hcl.Diagnostics) {
	d := newDecoder(b, taskNetSchema)
	r := &TaskNetworkConfig{}
	if a := d.decode("range", &r.Range); a != nil {
		ip, n, err := net.ParseCIDR(r.Range)
		switch {
		case err != nil || ip.To4() == nil:
			d.errAt(a, "Invalid range", "range is an IPv4 CIDR such as \"198.18.0.0/15\", got %q.", r.Range)
		case !ip.Equal(n.IP):
			d.errAt(a, "Invalid range", "range starts at its network's address: %s, not %q.", n, r.Range)
		default:
			if ones, _ := n.Mask.Size(); ones > 24 {
				d.errAt(a, "Invalid range", "range holds at least 254 addresses (/24 or wider), got %q.", r.Range)
			}
		}
	}
	return r, d.diags
}

// cores decodes a number of cores as millicores.
func (d *decoder) cores(name string, dst *int64) {
	var cores float64
	if a := d.decode(name, &cores); a != nil {
		if cores <= 0 || cores > 1e6 {
			d.errAt(a, "Invalid "+name, "%s is a number of cores greater than 0 (\"0.5\" = 500 millicores), got %v.", name, cores)
		} else {
			*dst = int64(math.Round(cores * 1000))
		}
	}
}

// ReservedSbatch are the sbatch options jobshift writes from the job itself
// (names, resources, placement, output, requeue): a site directive that set
// one would silently change what the job asks for, or break jobshift's own
// status and logs, so it is refused where it is written.
var ReservedSbatch = []string{
	"-J", "--job-name", "-o", "--output", "-e", "--error", "--open-mode",
	"--requeue", "--no-requeue", "-n", "--ntasks", "--ntasks-per-node",
	"-c", "--cpus-per-task", "--mem", "--mem-per-cpu", "--mem-per-gpu",
	"-G", "--gpus", "--gpus-per-task", "--gpus-per-node", "--gres",
	"-N", "--nodes", "-m", "--distribution", "-a", "--array", "--wrap",
	"--hetjob", "--packjob",
}

// CheckSbatchArg reports what is wrong with one extra sbatch directive
// ("" = fine): it must be one option ("--constraint=a100",
// "--qos=high"), as written after "#SBATCH ", on one line, and not one
// jobshift writes from the job.
func CheckSbatchArg(a string) string {
	if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
		return fmt.Sprintf("%q is not an sbatch option; write it as on the command line, e.g. \"--constraint=a100\"", a)
	}
	if strings.ContainsAny(a, "\n\r\x00") {
		return fmt.Sprintf("%q spans lines; one #SBATCH line holds one option", a)
	}
	name := a
	if i := strings.IndexAny(a, "= "); i > 0 {
		name = a[:i]
	}
	if !strings.HasPrefix(name, "--") && len(name) > 2 {
		name = name[:2] // -pgpu, -q high
	}
	for _, r := range ReservedSbatch {
		if name == r {
			return fmt.Sprintf("%s is written by jobshift from the job (names, resources, placement, output, requeue); "+
				"change the job or the site config's slurm/role settings instead", name)
		}
	}
	return ""
}

func (d *decoder) sbatch(name string, dst *[]string) {
	var v []string
	a := d.decode(name, &v)
	if a == nil {
		return
	}
	for _, s := range v {
		if msg := CheckSbatchArg(s); msg != "" {
			d.errAt(a, "Invalid "+name, "%s.", msg)
			return
		}
	}
	*dst = v
}

// setup decodes shell command lines run before the user's command.
func (d *decoder) setup(name string, dst *[]string) {
	var v []string
	a := d.decode(name, &v)
	if a == nil {
		return
	}
	for _, s := range v {
		if strings.IndexByte(s, 0) >= 0 {
			d.errAt(a, "Invalid "+name, "A setup command contains a NUL byte, which no shell can run.")
			return
		}
	}
	*dst = v
}
