package slurm

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// Layouts (spec/slurm.md §1).
const (
	// LayoutHet: one heterogeneous component per role, each role one
	// `srun --het-group=<i>` step. Needs a free node per component (§1.3).
	LayoutHet = "het"
	// LayoutPacked: one homogeneous allocation whose task slots are sized by
	// the largest role, one `srun --exact` step per role placed on its slots
	// with --distribution=arbitrary.
	LayoutPacked = "packed"
	// LayoutSingle: a one-role job: one plain allocation, one step.
	LayoutSingle = "single"
)

// Errors of the site/CLI settings.
var (
	ErrSetting = errors.New("invalid Slurm setting")
	ErrJob     = errors.New("job cannot run on Slurm")
)

// defaultMemMiB is the memory a task gets when the job names none: every
// step must carry an explicit memory request, or it takes all of the
// job's memory on its nodes and serialises the other steps (§1.4).
const defaultMemMiB = 1024

// defaultPoll is how often (seconds) the batch script looks for task ends:
// the verdict falls within one poll of the deciding end (issue 15: a
// worker's exit 0 → verdict took 958 ms at "1", BenchmarkSlurmStop), as
// quickly as the Nomad watcher's (≈ 0.2 s) at "0.2". A poll is one `[ -f ]`
// per task still running and one `sleep` fork: 5 forks a second.
const defaultPoll = "0.2"

// settings are the resolved `slurm {}` site block plus command-line options
// (Plan.Options override the site).
type settings struct {
	Partition, Account, QOS, TimeLimit string
	Layout                             string // auto, het, packed
	Container                          string // none, apptainer, pyxis
	GPURequest                         string // gpus-per-task, gres
	Address                            string // nodeaddr, hostname
	MPI                                string // ssh, pmix (pmix.go)
	PortBase, PortMax                  int
	SpreadNodes                        int      // --nodes of the packed allocation (0 = Slurm's choice)
	StateDir                           string   // "" = $SLURM_SUBMIT_DIR/.jobshift
	Processes                          []string // of every task (translate.Compiled)
	Poll                               string   // seconds between checks of task ends (defaultPoll)
	// OnePerNode: every task alone on its node (LeinaoPAI jobs, whose
	// tasks all bind 10001-10003 in the host's network).
	OnePerNode bool
	// Backoff is the wait before in-place restarts (the kubelet's;
	// option restart_backoff or $JOBSHIFT_TEST_RESTART_BACKOFF scale it
	// down for tests only).
	Backoff completion.Backoff
	// InlineLib: the library is inside the script (option library =
	// "inline"), not a file beside it (library.go).
	InlineLib bool
	// hooks are the site's extra directives and setup commands (site.go).
	hooks siteHooks
	// contractVars are the contract's own names in a task (render.go).
	contractVars []string
	// site and user map the job's volumes to node paths (view.go).
	site *siteconfig.Config
	user string
}

func resolveSettings(p *translate.Plan) (settings, error) {
	s := settings{Layout: "auto", Container: "none", GPURequest: "gpus-per-task", Address: "nodeaddr",
		MPI:      MPISSH,
		PortBase: 20000, PortMax: 29999, Poll: defaultPoll, Processes: p.Compiled().Processes,
		site: p.Site, user: p.User}
	var sc *siteconfig.SlurmConfig
	if p.Site != nil {
		sc = p.Site.Slurm
	}
	if sc != nil {
		s.Partition, s.Account, s.QOS, s.TimeLimit = sc.Partition, sc.Account, sc.QOS, sc.TimeLimit
		set := func(dst *string, v string) {
			if v != "" {
				*dst = v
			}
		}
		set(&s.Layout, sc.Layout)
		set(&s.Container, sc.Container)
		set(&s.GPURequest, sc.GPURequest)
		set(&s.Address, sc.Address)
		set(&s.MPI, sc.MPI)
		if sc.PortBase > 0 {
			s.PortBase = sc.PortBase
		}
		s.SpreadNodes = sc.SpreadNodes
	}
	b, err := completion.ParseBackoff(os.Getenv(completion.BackoffEnv))
	if err != nil {
		return s, fmt.Errorf("%w: %v", ErrSetting, err)
	}
	s.Backoff = b
	for k, v := range p.Options {
		if v == "" {
			continue // an empty option means "not set"
		}
		if err := s.option(k, v); err != nil {
			return s, err
		}
	}
	return s, s.check()
}

// option applies one -opt key=value.
func (s *settings) option(k, v string) error {
	switch k {
	case "layout":
		s.Layout = v
	case "container":
		s.Container = v
	case "gpu_request", "gpu-request":
		s.GPURequest = v
	case "address":
		s.Address = v
	case "mpi":
		s.MPI = v
	case "partition":
		s.Partition = v
	case "account":
		s.Account = v
	case "qos":
		s.QOS = v
	case "time_limit", "time":
		s.TimeLimit = v
	case "state_dir", "state-dir":
		s.StateDir = v
	case "poll":
		s.Poll = v
	case "library":
		if v != LibraryFile && v != LibraryInline {
			return fmt.Errorf("%w: library %q; use %q or %q", ErrSetting, v, LibraryFile, LibraryInline)
		}
		s.InlineLib = v == LibraryInline
	case "spread_nodes", "spread-nodes":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%w: spread_nodes %q is not a number of nodes", ErrSetting, v)
		}
		s.SpreadNodes = n
	case "restart_backoff", "restart-backoff":
		b, err := completion.ParseBackoff(v)
		if err != nil {
			return fmt.Errorf("%w: restart_backoff: %v", ErrSetting, err)
		}
		s.Backoff = b
	case "port_base", "port-base":
		if _, err := fmt.Sscanf(v, "%d", &s.PortBase); err != nil {
			return fmt.Errorf("%w: port_base %q is not a number", ErrSetting, v)
		}
	}
	return nil
}

// check rejects settings the script cannot carry.
func (s *settings) check() error {
	check := func(name, v string, allowed ...string) error {
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return fmt.Errorf("%w: %s = %q; use one of %s", ErrSetting, name, v, strings.Join(allowed, ", "))
	}
	for _, err := range []error{
		check("layout", s.Layout, "auto", LayoutHet, LayoutPacked),
		check("container", s.Container, "none", "apptainer", "pyxis"),
		check("gpu_request", s.GPURequest, "gpus-per-task", "gres"),
		check("address", s.Address, "nodeaddr", "hostname"),
		check("mpi", s.MPI, MPISSH, MPIPMIx),
	} {
		if err != nil {
			return err
		}
	}
	if s.PortBase < 1024 || s.PortBase > 60000 {
		return fmt.Errorf("%w: port_base %d must be within 1024..60000", ErrSetting, s.PortBase)
	}
	if s.PortMax < s.PortBase+1000 {
		s.PortMax = s.PortBase + 9999
	}
	if s.PortMax > 65535 {
		s.PortMax = 65535
	}
	if strings.ContainsAny(s.StateDir, " \t\n\"'\\") {
		return fmt.Errorf("%w: state_dir %q: use a path without blanks or quotes (it goes into #SBATCH lines)", ErrSetting, s.StateDir)
	}
	for _, c := range s.Poll {
		if (c < '0' || c > '9') && c != '.' {
			return fmt.Errorf("%w: poll %q is not a number of seconds", ErrSetting, s.Poll)
		}
	}
	return nil
}

// res are one role's per-task Slurm resources.
type res struct {
	CPUs      int    // --cpus-per-task
	MemPerCPU int64  // --mem-per-cpu, MiB
	GPUs      int    // GPUs per task
	GPUType   string // GRES type ("" = any)
}

func roleRes(site *siteconfig.Config, r *jobs.Role) res {
	c := int((r.Resources.CPUMilli + 999) / 1000)
	if c < 1 {
		c = 1
	}
	mem := r.Resources.MemoryMiB
	if mem <= 0 {
		mem = defaultMemMiB
	}
	out := res{CPUs: c, MemPerCPU: (mem + int64(c) - 1) / int64(c), GPUs: r.Resources.GPU}
	// A source GPU type names the source cluster's SKU; only a site rule
	// says which GRES type it is here.
	if r.Resources.GPUType != "" && site != nil {
		if rule := site.GPUType(r.Resources.GPUType); rule != nil && rule.Model != "" {
			out.GPUType = rule.Model
		}
	}
	return out
}

// chooseLayout applies the setting: auto picks single for one role, het
// when roles differ in resources (so a CPU-only parameter server does not
// hold GPUs), packed otherwise. With spread_nodes, auto picks packed: het
// components cannot share nodes (spec/slurm.md §1.3), so a het job spread
// over the nodes would need more nodes than a small cluster has, and one
// role's tasks would still share their component's nodes.
func chooseLayout(job *jobs.Job, rs []res, setting string, spread int) string {
	active := 0
	for _, r := range job.Roles {
		if r.Instances > 0 {
			active++
		}
	}
	if active <= 1 && len(job.Roles) == 1 {
		return LayoutSingle
	}
	if setting == LayoutHet || setting == LayoutPacked {
		return setting
	}
	if spread > 0 {
		return LayoutPacked
	}
	for i := 1; i < len(rs); i++ {
		if rs[i] != rs[0] {
			return LayoutHet
		}
	}
	return LayoutPacked
}

// packedSlot is the slot size of the packed layout: the largest role in
// every dimension, so each role's step fits in its slots.
func packedSlot(rs []res) res {
	var m res
	for _, r := range rs {
		m.CPUs = max(m.CPUs, r.CPUs)
		m.MemPerCPU = max(m.MemPerCPU, r.MemPerCPU)
		m.GPUs = max(m.GPUs, r.GPUs)
		if r.GPUType != "" {
			m.GPUType = r.GPUType
		}
	}
	return m
}

// gpuOpts are the GPU options of one allocation component or step.
func gpuOpts(r res, mode string) []string {
	if r.GPUs == 0 {
		return []string{"--gres=none"}
	}
	t := ""
	if r.GPUType != "" {
		t = r.GPUType + ":"
	}
	if mode == "gres" {
		// --gres is per node: with one task per node it is per task.
		return []string{"--ntasks-per-node=1", fmt.Sprintf("--gres=gpu:%s%d", t, r.GPUs)}
	}
	return []string{fmt.Sprintf("--gpus-per-task=%s%d", t, r.GPUs)}
}

// resOpts are the resource options every component and every srun carries
// explicitly (Slurm resets or does not inherit several of them, §1.1, §1.4).
func resOpts(n int, r res, mode string) []string {
	o := []string{fmt.Sprintf("--ntasks=%d", n), fmt.Sprintf("--cpus-per-task=%d", r.CPUs),
		fmt.Sprintf("--mem-per-cpu=%dM", r.MemPerCPU)}
	return append(o, gpuOpts(r, mode)...)
}
