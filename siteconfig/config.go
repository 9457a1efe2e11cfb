package siteconfig

import (
	"github.com/hashicorp/hcl/v2"
)

// Config is the site config (jobshift.hcl). The zero Config is valid: every
// field has a default a driver applies.
//
// An example file:
//
//	nomad {
//	  address     = "http://nomad.example:4646"
//	  datacenters = ["dc1"]
//	  driver      = "docker"
//	}
//	slurm {
//	  partition = "gpu"
//	  layout    = "auto"      # auto | het | packed
//	  container = "apptainer" # none | apptainer | pyxis
//	}
//	# Pull images of a dead registry from a mirror; "*" in replace stands
//	# for the text the single "*" of the pattern matched.
//	image "10.11.3.8:5000/*" { replace = "registry.example/mirror/*" }
//	role "ps" { driver = "raw_exec" }
//	role "*"  { env = { NCCL_DEBUG = "INFO" } }
//	gpu_type "titanxp" { model = "TITAN Xp" }
//	gpu_type "*"       { min_memory_mib = 11000 }
//	plugins {
//	  dirs    = ["/opt/jobshift/plugins"]
//	  allowed = ["jobshift-driver-*"]
//	}
//
// Rule precedence (image, role and gpu_type rules): the FIRST rule in file
// order whose pattern matches wins, as a whole; rules are not merged. Write
// specific patterns before general ones. A rule that can never win (same
// pattern as an earlier rule, or after a catch-all "*") is reported as a
// warning. Patterns are github.com/ryanuber/go-glob globs: "*" matches any
// run of characters (including "/" and ":"), everything else is literal.
type Config struct {
	// Path is the file the config was read from ("" = none found).
	Path string
	// Source is the file's text as read (nil for a config built in code).
	// Plugins receive it and parse it again, so that every source range
	// survives the trip to another process.
	Source []byte `json:"-"`

	Nomad *NomadConfig
	Slurm *SlurmConfig

	Images   []ImageRule
	Roles    []RoleRule
	GPUTypes []GPUTypeRule
	// Volumes map the storage jobs name to the site's (config_volume.go).
	Volumes []VolumeRule `json:",omitempty"`

	// Plugins is the `plugins {}` block (nil = none).
	Plugins *PluginsConfig
	// Defaults is the `defaults {}` block (nil = none): resources for roles
	// whose job asks for none.
	Defaults *DefaultsConfig
	// Trainer is the `trainer {}` block (nil = none): Kubeflow Trainer
	// runtimes the site provides (config_trainer.go).
	Trainer *TrainerConfig `json:",omitempty"`
	// Secrets is the `secrets {}` block (nil = none): where the site
	// keeps the Secrets and ConfigMaps its jobs name (config_secrets.go).
	Secrets *SecretsConfig `json:",omitempty"`
}

// NomadConfig is the `nomad {}` block; drivers/nomad documents its fields.
type NomadConfig struct {
	Address   string
	Region    string
	Namespace string
	// NamespacePerUser puts each user's jobs in a namespace named after
	// the user (made Nomad-safe); the operator creates the namespaces
	// (and may give each user an ACL policy for theirs). Wins over
	// Namespace.
	NamespacePerUser bool
	Datacenters      []string
	NodePool         string
	Priority         int
	Driver           string // docker (default), raw_exec, exec, podman
	CPUMHzPerCore    int
	BarrierTimeout   string // a Go duration ("90s", "5m")
	// Helper is the absolute path of a jobshift binary on every Nomad
	// client. When set, each group gets a poststop task that applies the
	// completion rule through the Task API, so a job submitted with plain
	// `nomad job run` ends without a jobshift process (drivers/nomad).
	Helper string
	// EnvHelper is the absolute path of the jobshift-env binary on every
	// client ("" = Helper): the raw_exec tasks of jobs `jobshift run`
	// submits run it to set their environment (drivers/nomad taskenv.go).
	// It holds nomad-env alone and starts in about half the time of the
	// whole jobshift binary, once per task (BENCHMARKS.md).
	EnvHelper string
	// SpreadNodes > 0 spreads a job's allocations over that many clients
	// at least (as OpenPAI/Kubernetes spread a job's containers): at most
	// ceil(tasks / SpreadNodes) allocations of the job per client
	// (drivers/nomad). With fewer clients up at submit or at a retry
	// (a host lost), the cap is raised to what those can hold.
	SpreadNodes int
	// WorkDir is the working directory of raw_exec/exec tasks (absolute,
	// on every client; "" = the task directory).
	WorkDir string
	// DockerGPURuntime is the Docker runtime written into container tasks
	// that hold GPUs (nil = "nvidia", Nomad's default nvidia_runtime;
	// "" = none written, the client's nvidia_runtime applies).
	DockerGPURuntime *string
	// DockerCapAdd are Linux capabilities added to every container task
	// (upper case, no CAP_ prefix). None by default: a stock client's
	// allow_caps refuses e.g. SYS_ADMIN, and Kubernetes pods had none.
	DockerCapAdd []string
	// DockerNetwork is a user-defined Docker network the operator made
	// on the clients ("" = none). A job whose docker tasks each need a
	// network of their own (Volcano's TensorFlow shape: every task listens
	// on the same port at its pod's names) joins it, each task with its
	// platform names as network_aliases, so it runs on one client instead
	// of a client per task (drivers/nomad shape.go, fixedPortPeers).
	DockerNetwork string `json:",omitempty"` // (omitted from the goldens when unset)
	// TaskLogs false (`task_logs = false`) disables Nomad's log collection
	// for every task (`logs { disabled = true }`): no logmon process per
	// task (≈ 13 MB private memory each, half of a raw_exec task's cost),
	// and no task output kept (drivers/nomad). nil = true.
	TaskLogs *bool `json:",omitempty"` // (omitted from the goldens when unset)

	Range hcl.Range `json:"-"` // where the block is, for drivers' diagnostics
}

// SlurmConfig is the `slurm {}` block; drivers/slurm documents its fields.
type SlurmConfig struct {
	Partition  string
	Account    string
	QOS        string
	TimeLimit  string // Slurm --time syntax ("90", "2:00:00", "1-12", "UNLIMITED")
	Layout     string // auto (default), het, packed
	Container  string // none (default), apptainer, pyxis
	GPURequest string // gpus-per-task (default), gres
	PortBase   int
	Address    string // nodeaddr (default), hostname
	// SpreadNodes spreads a job's tasks over that many nodes (fewer when it
	// has fewer tasks), as OpenPAI and Kubernetes spread a job's containers
	// over hosts; 0 = Slurm's choice (it packs). Sets the packed layout, whose
	// allocation gets --nodes (drivers/slurm).
	SpreadNodes int
	// Sbatch are extra #SBATCH directives for every job ("--constraint=a100",
	// "--reservation=x"), after jobshift's own; see CheckSbatchArg.
	Sbatch []string
	// MPI is how an OpenMPI job's mpirun line starts its ranks: "ssh"
	// (default: OpenMPI's own launch over the ssh emulation, as on the
	// source platform) or "pmix" (the line becomes `srun --mpi=pmix`, the
	// ranks are Slurm tasks; drivers/slurm/sh/mpirun.sh).
	MPI string

	Range hcl.Range `json:"-"`
}

// ImageRule rewrites images whose name matches Pattern.
type ImageRule struct {
	Pattern string
	// Replace is the image to use instead ("" = keep). When Replace holds a
	// "*", the pattern has exactly one "*" and Replace's "*" is substituted
	// with the text it matched (registry mirrors).
	Replace string

	Range hcl.Range `json:"-"` // the block header, for diagnostics
}

// RoleRule applies settings to roles whose name matches Pattern.
type RoleRule struct {
	Pattern string
	// Driver overrides nomad.driver for matching roles ("" = keep).
	Driver string
	// Env are extra environment variables. A variable the job itself sets
	// is never overridden (nothing the user wrote is altered); the clash is
	// a warning.
	Env map[string]string
	// CPUMilli, MemoryMiB, ShmMiB replace the role's request when > 0.
	CPUMilli  int64
	MemoryMiB int64
	ShmMiB    int64
	// DockerCapAdd, when set, replaces nomad.docker_cap_add for matching
	// roles (an empty list removes them).
	DockerCapAdd []string
	// Sbatch are extra #SBATCH directives for matching roles (Slurm; in a
	// layout where roles share one allocation they apply to it).
	Sbatch []string
	// Setup are shell command lines (e.g. "module load cuda/12.2") run in
	// the task's shell before the user's command, on Slurm; what they export
	// the command sees.
	Setup []string

	Range hcl.Range `json:"-"`
}

// GPUTypeRule maps a source GPU type/SKU matching Pattern to constraints.
type GPUTypeRule struct {
	Pattern      string
	Model        string // Nomad device model / Slurm GRES type
	MinMemoryMiB int

	Range hcl.Range `json:"-"`
}

// PluginsConfig is the `plugins {}` block: where external
// jobshift-driver-* binaries are looked up and which may be loaded.
type PluginsConfig struct {
	Dirs    []string // searched in order
	Allowed []string // glob patterns over the binary's base name; empty = every plugin allowed
	// SHA256 pins plugins: binary base name → hex SHA-256 of the file; a
	// pinned plugin runs only when its file has that digest.
	SHA256 map[string]string `json:",omitempty"`

	Range hcl.Range `json:"-"`
}
