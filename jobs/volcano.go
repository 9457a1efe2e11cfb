package jobs

import (
	"flag"
	"io"
	"strconv"
	"strings"
)

// Volcano is what a Volcano Job (batch.volcano.sh/v1alpha1, volcano-sh/apis
// pkg/apis/batch/v1alpha1/job.go @v1.15.0) declares beyond its tasks, after
// the admission webhook's defaults (volcano-sh/volcano
// pkg/webhooks/admission/jobs/mutate/mutate_job.go @v1.16.0-alpha.1).
type Volcano struct {
	// MinAvailable is the gang: spec.minAvailable, or the sum of the
	// tasks' minAvailable (each defaulting to its replicas).
	MinAvailable int `json:"minAvailable"`
	// MinSuccess is spec.minSuccess (nil = not set).
	MinSuccess *int `json:"minSuccess,omitempty"`
	// MaxRetry is spec.maxRetry (default 3): the job fails once its
	// restarts (RestartJob, RestartTask, RestartPod) reach it.
	MaxRetry int `json:"maxRetry"`
	// Policies are the job-level lifecycle policies in file order.
	Policies []VolcanoPolicy `json:"policies,omitempty"`
	// Tasks are the per-task fields in role order (one per jobs.Role).
	Tasks []VolcanoTask `json:"tasks"`
	// Plugins in file order, with the ones the webhook adds (Implicit).
	Plugins []VolcanoPlugin `json:"plugins,omitempty"`
	Queue   string          `json:"queue,omitempty"`
}

// VolcanoTask is one task's lifecycle fields.
type VolcanoTask struct {
	Name string `json:"name"`
	// MinAvailable is the task's minAvailable (default: its replicas).
	MinAvailable int `json:"minAvailable"`
	// MaxRetry is the task's maxRetry (default 3; -1 = no limit): the
	// container restarts of its pods after which TaskFailed fires.
	MaxRetry int             `json:"maxRetry"`
	Policies []VolcanoPolicy `json:"policies,omitempty"`
}

// VolcanoPolicy is one LifecyclePolicy: events (event and events merged)
// or an exit code, mapped to an action, optionally after a timeout.
type VolcanoPolicy struct {
	Events   []string `json:"events,omitempty"`
	ExitCode *int     `json:"exitCode,omitempty"`
	Action   string   `json:"action"`
	// TimeoutSeconds is the policy's timeout (0 = none).
	TimeoutSeconds float64 `json:"timeoutSeconds,omitempty"`
	Pos            Pos     `json:"pos"`
}

// VolcanoPlugin is one entry of spec.plugins.
type VolcanoPlugin struct {
	Name string   `json:"name"`
	Args []string `json:"args,omitempty"`
	// Implicit marks plugins the admission webhook added (svc for the
	// framework plugins, ssh for mpi).
	Implicit bool `json:"implicit,omitempty"`
	Pos      Pos  `json:"pos"`
}

// Plugin returns the plugin called name, or nil.
func (v *Volcano) Plugin(name string) *VolcanoPlugin {
	if v == nil {
		return nil
	}
	for i := range v.Plugins {
		if v.Plugins[i].Name == name {
			return &v.Plugins[i]
		}
	}
	return nil
}

// VolcanoFlags are a plugin's arguments after its flag set parsed them,
// with the plugin's defaults (pkg/controllers/job/plugins/*/ addFlags
// @v1.16.0-alpha.1).
type VolcanoFlags struct {
	Master, Worker, PS, Chief, Evaluator string // framework plugins' task names
	Port                                 int    // pytorch 23456, tensorflow 2222, mpi 22
	InjectHostsEnv                       bool   // svc: VC_<TASK>_HOSTS/_NUM (default true)
	SSHKeyFilePath                       string // ssh: /root/.ssh
	SSHPort                              int    // ssh: the Port of its ssh config (22)
	// Err is the flag package's error; the flags before it were parsed.
	Err string
}

// ParseVolcanoFlags parses args as plugin name's flag set does (Go's flag
// package, ContinueOnError: the first bad argument stops the parse, the
// values read before it stay).
func ParseVolcanoFlags(name string, args []string) VolcanoFlags {
	f := VolcanoFlags{Master: "master", Worker: "worker", PS: "ps", Chief: "chief", Evaluator: "evaluator",
		InjectHostsEnv: true, SSHKeyFilePath: "/root/.ssh", SSHPort: 22}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var ignoredStr string
	var ignoredBool bool
	var ignoredInt int
	switch name {
	case "pytorch":
		f.Port = 23456
		fs.StringVar(&f.Master, "master", f.Master, "")
		fs.StringVar(&f.Worker, "worker", f.Worker, "")
		fs.IntVar(&f.Port, "port", f.Port, "")
		fs.BoolVar(&ignoredBool, "wait-master-enabled", false, "")
		fs.IntVar(&ignoredInt, "wait-master-timeout", 300, "")
		fs.StringVar(&ignoredStr, "wait-master-image", "", "")
	case "mpi":
		f.Port = 22
		fs.StringVar(&f.Master, "master", f.Master, "")
		fs.StringVar(&f.Worker, "worker", f.Worker, "")
		fs.IntVar(&f.Port, "port", f.Port, "")
	case "tensorflow":
		f.Port = 2222
		fs.StringVar(&f.PS, "ps", f.PS, "")
		fs.StringVar(&f.Worker, "worker", f.Worker, "")
		fs.StringVar(&f.Chief, "chief", f.Chief, "")
		fs.StringVar(&f.Evaluator, "evaluator", f.Evaluator, "")
		fs.IntVar(&f.Port, "port", f.Port, "")
	case "svc":
		fs.BoolVar(&ignoredBool, "publish-not-ready-addresses", false, "")
		fs.BoolVar(&ignoredBool, "disable-network-policy", false, "")
		fs.BoolVar(&f.InjectHostsEnv, "inject-hosts-env", true, "")
	case "ssh":
		fs.StringVar(&f.SSHKeyFilePath, "ssh-key-file-path", f.SSHKeyFilePath, "")
		fs.StringVar(&ignoredStr, "ssh-private-key", "", "")
		fs.StringVar(&ignoredStr, "ssh-public-key", "", "")
		fs.IntVar(&f.SSHPort, "ssh-port", f.SSHPort, "")
	}
	if err := fs.Parse(args); err != nil {
		f.Err = err.Error()
	}
	if f.SSHPort <= 0 || f.SSHPort > 65535 {
		f.SSHPort = 22 // validateSSHPort
	}
	return f
}

// SplitFlag returns the name of a -flag / --flag[=value] argument ("" for
// a non-flag) and whether the value is in the same argument.
func SplitFlag(arg string) (string, bool) {
	if len(arg) < 2 || arg[0] != '-' {
		return "", false
	}
	s := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, hasVal := strings.Cut(s, "=")
	return name, hasVal
}

// Port labels of the ports Volcano's plugins use when the container does
// not declare that number: pytorch's openContainerPort name, the Kubeflow
// label for the tensorflow plugin's port (which it uses without opening
// it), and the ssh emulation's label for the ssh plugin's sshd.
const (
	VolcanoPytorchLabel = "pytorchjob-port"
	VolcanoTFLabel      = "tfjob-port"
	VolcanoSSHLabel     = "ssh"
)

// VolcanoPodName is pod i of task: jobhelpers.MakePodName, PodNameFmt
// "%s-%s-%d" (pkg/controllers/job/helpers/helpers.go @v1.16.0-alpha.1).
func VolcanoPodName(job, task string, i int) string { return job + "-" + task + "-" + strconv.Itoa(i) }

// VolcanoDomainName is the pod's name in the job's headless service, what
// the svc, pytorch, tensorflow, mpi and ssh plugins write (MakeDomainName).
func VolcanoDomainName(job, task string, i int) string {
	return VolcanoPodName(job, task, i) + "." + job
}

// VolcanoEnvKey is a task name as the svc plugin puts it in variable and
// file names: '-' becomes '_' (formateENVKey).
func VolcanoEnvKey(task string) string { return strings.ReplaceAll(task, "-", "_") }
