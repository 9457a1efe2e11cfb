package siteconfig

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Enumerated values, first = default.
var (
	NomadDrivers     = []string{"docker", "raw_exec", "exec", "podman"}
	SlurmLayouts     = []string{"auto", "het", "packed"}
	SlurmContainers  = []string{"none", "apptainer", "pyxis"}
	SlurmGPURequests = []string{"gpus-per-task", "gres"}
	SlurmAddresses   = []string{"nodeaddr", "hostname"}
	SlurmMPIs        = []string{"ssh", "pmix"}
)

// The file's schema. Unknown blocks and attributes are errors at their
// position (hcl reports them), so a typo never silently does nothing.
var (
	rootSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "nomad"}, {Type: "slurm"}, {Type: "plugins"}, {Type: "defaults"},
		{Type: "trainer"}, {Type: "secrets"},
		{Type: "image", LabelNames: []string{"pattern"}},
		{Type: "role", LabelNames: []string{"pattern"}},
		{Type: "gpu_type", LabelNames: []string{"pattern"}},
		{Type: "volume", LabelNames: []string{"pattern"}},
	}}
	nomadSchema = attrs("address", "region", "namespace", "datacenters", "node_pool", "priority",
		"driver", "cpu_mhz_per_core", "barrier_timeout", "helper", "env_helper", "work_dir", "spread_nodes",
		"docker_gpu_runtime", "docker_cap_add", "docker_network", "namespace_per_user", "task_logs")
	slurmSchema = attrs("partition", "account", "qos", "time_limit", "layout", "container",
		"gpu_request", "port_base", "address", "spread_nodes", "sbatch", "mpi")
	imageSchema    = attrs("replace")
	roleSchema     = attrs("driver", "env", "cpu", "memory_mib", "shm_mib", "docker_cap_add", "sbatch", "setup")
	defaultsSchema = attrs("cpu", "memory_mib", "shm_mib")
	gpuTypeSchema  = attrs("model", "min_memory_mib")
	pluginsSchema  = attrs("dirs", "allowed", "sha256")
)

func attrs(names ...string) *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, n := range names {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: n})
	}
	return s
}

// ParseConfig parses a jobshift.hcl file. It returns a Config (never nil,
// possibly partial) and every problem found, each at its position.
func ParseConfig(src []byte, filename string) (*Config, hcl.Diagnostics) {
	cfg := &Config{Path: filename, Source: append([]byte(nil), src...)}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return cfg, diags
	}
	content, d := f.Body.Content(rootSchema)
	diags = append(diags, d...)
	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		switch b.Type {
		case "nomad", "slurm", "plugins", "defaults", "trainer", "secrets":
			if prev, dup := seen[b.Type]; dup {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError,
					Summary: fmt.Sprintf("Duplicate %s block", b.Type),
					Detail:  fmt.Sprintf("Only one %s {} block is allowed; the first is at %s. Merge the two.", b.Type, at(prev)),
					Subject: b.DefRange.Ptr()})
				continue
			}
			seen[b.Type] = b.DefRange
		}
		switch b.Type {
		case "nomad":
			cfg.Nomad, d = decodeNomad(b)
		case "slurm":
			cfg.Slurm, d = decodeSlurm(b)
		case "plugins":
			cfg.Plugins, d = decodePlugins(b)
		case "defaults":
			cfg.Defaults, d = decodeDefaults(b)
		case "trainer":
			cfg.Trainer, d = decodeTrainer(b)
		case "secrets":
			cfg.Secrets, d = decodeSecrets(b)
		case "image":
			var r *ImageRule
			r, d = decodeImage(b)
			if r != nil {
				cfg.Images = append(cfg.Images, *r)
			}
		case "role":
			var r *RoleRule
			r, d = decodeRole(b)
			if r != nil {
				cfg.Roles = append(cfg.Roles, *r)
			}
		case "volume":
			var r *VolumeRule
			r, d = decodeVolume(b)
			if r != nil {
				cfg.Volumes = append(cfg.Volumes, *r)
			}
		case "gpu_type":
			var r *GPUTypeRule
			r, d = decodeGPUType(b)
			if r != nil {
				cfg.GPUTypes = append(cfg.GPUTypes, *r)
			}
		}
		diags = append(diags, d...)
	}
	diags = append(diags, shadowed(cfg)...)
	// Report in file order, as a person reads the file.
	sort.SliceStable(diags, func(i, j int) bool { return before(diags[i], diags[j]) })
	return cfg, diags
}

// decoder collects the attributes of one block and the diagnostics of
// decoding them, so that every bad value is reported, not just the first.
type decoder struct {
	attrs hcl.Attributes
	diags hcl.Diagnostics
}

func newDecoder(b *hcl.Block, schema *hcl.BodySchema) *decoder {
	c, diags := b.Body.Content(schema)
	return &decoder{attrs: c.Attributes, diags: diags}
}

func (d *decoder) decode(name string, dst any) *hcl.Attribute {
	a := d.attrs[name]
	if a == nil {
		return nil
	}
	// Evaluate first so that a function call or variable is reported once,
	// not once more as "unsuitable value" by the conversion.
	if _, diags := a.Expr.Value(nil); diags.HasErrors() {
		d.diags = append(d.diags, diags...)
		return nil
	}
	if diags := gohcl.DecodeExpression(a.Expr, nil, dst); diags.HasErrors() {
		d.diags = append(d.diags, diags...)
		return nil
	}
	return a
}

func (d *decoder) str(name string, dst *string) { d.decode(name, dst) }

func (d *decoder) list(name string, dst *[]string) { d.decode(name, dst) }

func (d *decoder) errAt(a *hcl.Attribute, summary, detail string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(detail, args...), Subject: a.Expr.Range().Ptr()})
}

func (d *decoder) enum(name string, dst *string, allowed []string) {
	var v string
	a := d.decode(name, &v)
	if a == nil {
		return
	}
	for _, ok := range allowed {
		if v == ok {
			*dst = v
			return
		}
	}
	d.errAt(a, fmt.Sprintf("Invalid %s", name), "%q is not one of %s.", v, quoteList(allowed))
}

// integer decodes a whole number in [min, max].
func (d *decoder) integer(name string, dst *int64, min, max int64) {
	var v float64
	a := d.decode(name, &v)
	if a == nil {
		return
	}
	if v != math.Trunc(v) || v < float64(min) || v > float64(max) {
		d.errAt(a, fmt.Sprintf("Invalid %s", name), "%s must be a whole number from %d to %d, got %v.", name, min, max, v)
		return
	}
	*dst = int64(v)
}

func (d *decoder) intField(name string, dst *int, min, max int64) {
	var v int64
	d.integer(name, &v, min, max)
	if v != 0 {
		*dst = int(v)
	}
}

func decodeNomad(b *hcl.Block) (*NomadConfig, hcl.Diagnostics) {
	d := newDecoder(b, nomadSchema)
	n := &NomadConfig{Range: b.DefRange}
	d.str("address", &n.Address)
	d.str("region", &n.Region)
	d.str("namespace", &n.Namespace)
	d.list("datacenters", &n.Datacenters)
	d.str("node_pool", &n.NodePool)
	d.intField("priority", &n.Priority, 1, 100) // Nomad's accepted job priority range
	d.enum("driver", &n.Driver, NomadDrivers)
	d.intField("cpu_mhz_per_core", &n.CPUMHzPerCore, 1, 1_000_000)
	var timeout string
	if a := d.decode("barrier_timeout", &timeout); a != nil {
		if t, err := time.ParseDuration(timeout); err != nil || t <= 0 {
			d.errAt(a, "Invalid barrier_timeout", "%q is not a positive duration; write it like \"90s\" or \"5m\".", timeout)
		} else {
			n.BarrierTimeout = timeout
		}
	}
	d.absPath("helper", &n.Helper)
	d.absPath("env_helper", &n.EnvHelper)
	d.absPath("work_dir", &n.WorkDir)
	d.intField("spread_nodes", &n.SpreadNodes, 0, 100000)
	var rt string
	if a := d.decode("docker_gpu_runtime", &rt); a != nil {
		n.DockerGPURuntime = &rt
	}
	d.caps("docker_cap_add", &n.DockerCapAdd)
	d.dockerNetwork("docker_network", &n.DockerNetwork)
	d.decode("namespace_per_user", &n.NamespacePerUser)
	var logs bool
	if a := d.decode("task_logs", &logs); a != nil {
		n.TaskLogs = &logs
	}
	return n, d.diags
}

// dockerNetwork decodes the name of a user-defined Docker network. Docker
// itself takes any name (20.10 made "a b"); jobshift takes the grammar of
// Docker's container names (moby daemon/names/names.go
// RestrictedNameChars), which Nomad's interpolation leaves as it is, and
// refuses the modes that are no network of the operator's (moby
// api/types/container NetworkMode.IsUserDefined: default, bridge, host,
// none, container:ID): Docker's embedded DNS resolves containers' names
// and aliases in a user-defined network only, and Nomad passes
// network_aliases to that network (drivers/docker/driver.go, v1.11.3).
func (d *decoder) dockerNetwork(name string, dst *string) {
	var v string
	a := d.decode(name, &v)
	if a == nil {
		return
	}
	switch {
	case v == "default" || v == "bridge" || v == "host" || v == "none" || strings.HasPrefix(v, "container:"):
		d.errAt(a, fmt.Sprintf("Invalid %s", name), "%q is a Docker network mode, not a network of your own: Docker's embedded DNS resolves the tasks' names only in a user-defined network. Create one on the client (docker network create jobshift) and name it here.", v)
	case !dockerNetworkName.MatchString(v):
		d.errAt(a, fmt.Sprintf("Invalid %s", name), "%q is not a network name jobshift takes: a letter or digit, then letters, digits, '_', '.' or '-'.", v)
	default:
		*dst = v
	}
}

var dockerNetworkName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// caps decodes a list of Linux capability names as Docker accepts them
// (any case, with or without the CAP_ prefix), so that a typo is a located
// error here rather than a task Nomad refuses on the client.
func (d *decoder) caps(name string, dst *[]string) {
	var v []string
	a := d.decode(name, &v)
	if a == nil {
		return
	}
	out := []string{}
	for _, c := range v {
		n := strings.TrimPrefix(strings.ToUpper(c), "CAP_")
		if !linuxCaps[n] && n != "ALL" {
			d.errAt(a, fmt.Sprintf("Invalid %s", name), "%q is not a Linux capability (see capabilities(7)); write names like \"SYS_ADMIN\" or \"ipc_lock\".", c)
			continue
		}
		out = append(out, n)
	}
	*dst = out
}

// linuxCaps are the capability names of capabilities(7) (Linux 6.x).
var linuxCaps = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP
		LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO
		SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD
		LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND
		AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE`) {
		linuxCaps[c] = true
	}
}

// absPath decodes a path that must be absolute: it names a place on every
// Nomad client, where no relative path has a meaning.
func (d *decoder) absPath(name string, dst *string) {
	var v string
	a := d.decode(name, &v)
	if a == nil {
		return
	}
	if !path.IsAbs(v) {
		d.errAt(a, fmt.Sprintf("Invalid %s", name), "%s is a path on every Nomad client and must be absolute, got %q.", name, v)
		return
	}
	*dst = v
}

// slurmTime is the syntax of sbatch --time (man sbatch): "minutes",
// "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes", "days-hours:minutes:seconds", or UNLIMITED/INFINITE.
var slurmTime = regexp.MustCompile(`^(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+|UNLIMITED|INFINITE)$`)

func decodeSlurm(b *hcl.Block) (*SlurmConfig, hcl.Diagnostics) {
	d := newDecoder(b, slurmSchema)
	s := &SlurmConfig{Range: b.DefRange}
	d.str("partition", &s.Partition)
	d.str("account", &s.Account)
	d.str("qos", &s.QOS)
	var limit string
	if a := d.decode("time_limit", &limit); a != nil {
		if slurmTime.MatchString(limit) {
			s.TimeLimit = limit
		} else {
			d.errAt(a, "Invalid time_limit", "%q is not a Slurm time limit; write minutes (\"90\"), \"HH:MM:SS\", \"D-HH:MM:SS\" or \"UNLIMITED\".", limit)
		}
	}
	d.enum("layout", &s.Layout, SlurmLayouts)
	d.enum("container", &s.Container, SlurmContainers)
	d.enum("gpu_request", &s.GPURequest, SlurmGPURequests)
	d.intField("port_base", &s.PortBase, 1024, 65535)
	d.enum("address", &s.Address, SlurmAddresses)
	d.intField("spread_nodes", &s.SpreadNodes, 0, 100000)
	d.sbatch("sbatch", &s.Sbatch)
	d.enum("mpi", &s.MPI, SlurmMPIs)
	return s, d.diags
}

func decodePlugins(b *hcl.Block) (*PluginsConfig, hcl.Diagnostics) {
	d := newDecoder(b, pluginsSchema)
	p := &PluginsConfig{Range: b.DefRange}
	d.list("dirs", &p.Dirs)
	d.list("allowed", &p.Allowed)
	if a := d.decode("sha256", &p.SHA256); a != nil {
		for name, sum := range p.SHA256 {
			if !sha256RE.MatchString(sum) {
				d.errAt(a, "Bad plugin digest", "plugins.sha256[%q] is %q: write the file's SHA-256 as 64 lower-case hex digits (sha256sum prints it).", name, sum)
			}
		}
	}
	return p, d.diags
}

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

func label(b *hcl.Block) (string, hcl.Diagnostics) {
	if b.Labels[0] == "" {
		return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Empty pattern",
			Detail:  fmt.Sprintf("A %s rule needs a pattern; use \"*\" to match everything.", b.Type),
			Subject: b.LabelRanges[0].Ptr()}}
	}
	return b.Labels[0], nil
}

func decodeImage(b *hcl.Block) (*ImageRule, hcl.Diagnostics) {
	pat, diags := label(b)
	d := newDecoder(b, imageSchema)
	d.diags = append(diags, d.diags...)
	r := &ImageRule{Pattern: pat, Range: b.DefRange}
	if a := d.decode("replace", &r.Replace); a != nil {
		switch n := strings.Count(r.Replace, "*"); {
		case n > 1:
			d.errAt(a, "Invalid replace", "replace may hold at most one \"*\" (the text the pattern's \"*\" matched); %q has %d.", r.Replace, n)
		case n == 1 && strings.Count(pat, "*") != 1:
			d.errAt(a, "Invalid replace", "A \"*\" in replace stands for what the pattern's single \"*\" matched, but pattern %q has %d; write a pattern with exactly one \"*\" or a literal replace.", pat, strings.Count(pat, "*"))
		}
	}
	if pat == "" {
		return nil, d.diags
	}
	return r, d.diags
}

// envName is what a POSIX shell accepts as a variable name; anything else
// could not be exported to a task on every target.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func decodeRole(b *hcl.Block) (*RoleRule, hcl.Diagnostics) {
	pat, diags := label(b)
	d := newDecoder(b, roleSchema)
	d.diags = append(diags, d.diags...)
	r := &RoleRule{Pattern: pat, Range: b.DefRange}
	d.enum("driver", &r.Driver, NomadDrivers)
	d.caps("docker_cap_add", &r.DockerCapAdd)
	if a := d.attrs["env"]; a != nil {
		v, diags := a.Expr.Value(nil)
		switch {
		case diags.HasErrors():
			d.diags = append(d.diags, diags...)
		case v.IsNull() || !v.IsKnown() || !(v.Type().IsObjectType() || v.Type().IsMapType()):
			d.errAt(a, "Invalid env", "env is a map of names to strings, like env = { NCCL_DEBUG = \"INFO\" }.")
		default:
			r.Env = map[string]string{}
			m := v.AsValueMap()
			for _, k := range sortedKeys(m) {
				v := m[k]
				if !envName.MatchString(k) {
					d.errAt(a, "Invalid env name", "%q is not a valid environment variable name (letters, digits, _; not starting with a digit).", k)
					continue
				}
				if v.IsNull() || !v.Type().Equals(cty.String) {
					d.errAt(a, "Invalid env value", "The value of %s must be a string; quote it.", k)
					continue
				}
				r.Env[k] = v.AsString()
			}
		}
	}
	d.cores("cpu", &r.CPUMilli)
	d.integer("memory_mib", &r.MemoryMiB, 1, 1<<40)
	d.integer("shm_mib", &r.ShmMiB, 1, 1<<40)
	d.sbatch("sbatch", &r.Sbatch)
	d.setup("setup", &r.Setup)
	if pat == "" {
		return nil, d.diags
	}
	return r, d.diags
}

func decodeGPUType(b *hcl.Block) (*GPUTypeRule, hcl.Diagnostics) {
	pat, diags := label(b)
	d := newDecoder(b, gpuTypeSchema)
	d.diags = append(diags, d.diags...)
	r := &GPUTypeRule{Pattern: pat, Range: b.DefRange}
	d.str("model", &r.Model)
	d.intField("min_memory_mib", &r.MinMemoryMiB, 1, 1<<30)
	if pat == "" {
		return nil, d.diags
	}
	return r, d.diags
}

func sortedKeys(m map[string]cty.Value) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

func before(a, b *hcl.Diagnostic) bool {
	if a.Subject == nil || b.Subject == nil {
		return a.Subject == nil && b.Subject != nil
	}
	if a.Subject.Start.Line != b.Subject.Start.Line {
		return a.Subject.Start.Line < b.Subject.Start.Line
	}
	return a.Subject.Start.Column < b.Subject.Start.Column
}

// at prints a range the way jobshift prints positions: line:col.
func at(r hcl.Range) string {
	return fmt.Sprintf("line %d, column %d", r.Start.Line, r.Start.Column)
}
