package hcl

// Config is the site config (jobshift.hcl). The zero Config is valid: every
// field has a default a driver applies.
type Config struct {
	// Path is the file the config was read from ("" = none found).
	Path string

	Nomad *NomadConfig
	Slurm *SlurmConfig

	Images   []ImageRule
	Roles    []RoleRule
	GPUTypes []GPUTypeRule
}

// NomadConfig is the `nomad {}` block; drivers/nomad documents its fields.
type NomadConfig struct {
	Address        string
	Region         string
	Namespace      string
	Datacenters    []string
	NodePool       string
	Priority       int
	Driver         string // docker (default), raw_exec, exec, podman
	CPUMHzPerCore  int
	BarrierTimeout string
}

// SlurmConfig is the `slurm {}` block; drivers/slurm documents its fields.
type SlurmConfig struct {
	Partition  string
	Account    string
	QOS        string
	TimeLimit  string
	Layout     string // auto (default), het, packed
	Container  string // none (default), apptainer, pyxis
	GPURequest string // gpus-per-task (default), gres
	PortBase   int
	Address    string // nodeaddr (default), hostname
}

// ImageRule rewrites or annotates images whose name matches Pattern.
type ImageRule struct {
	Pattern string
	Replace string // image to use instead ("" = keep)
}

// RoleRule applies settings to roles whose name matches Pattern.
type RoleRule struct {
	Pattern string
}

// GPUTypeRule maps a source GPU type/SKU matching Pattern to constraints.
type GPUTypeRule struct {
	Pattern      string
	Model        string // Nomad device model / Slurm GRES type
	MinMemoryMiB int
}
