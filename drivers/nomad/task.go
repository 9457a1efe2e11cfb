package nomad

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/internal/shquote"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// ErrNoEntrypoint: a Kubeflow container relies on its image's ENTRYPOINT
// but its args cannot be passed through Nomad unchanged.
var ErrNoEntrypoint = errors.New("no command and args that Nomad would rewrite")

// Plan options (override the site config's nomad block):
//   - OptWorkDir: working directory of raw_exec/exec tasks (absolute, on
//     every client);
//   - OptHelper: path of a jobshift binary on every client (finisher.go);
//   - OptEnvHelper: path of jobshift-env on every client (taskenv.go).
const (
	OptWorkDir   = "work-dir"
	OptHelper    = "helper"
	OptEnvHelper = "env-helper"
)

// userCommand is how the main task starts the user's command: argv for the
// driver, and possibly a file the command is delivered in.
//
// Nomad rewrites `${name}` in driver config and env values at run time
// whenever name is a variable of the task (helper/args), with no escape. A
// command or argument containing such a pattern therefore never goes into
// the config: it travels in a template file instead, written with
// consul-template's base64Decode so no delimiter in it can be interpreted,
// and the config only names the file (`${NOMAD_TASK_DIR}` is the one
// interpolation jobshift itself relies on).
type userCommand struct {
	argv []string
	file *api.Template
	// wrapped: argv is already the in-place restart loop around the
	// command (restart.go), which passes a stop to its process group.
	wrapped bool
	// extra templates and env of the ssh emulation (ssh.go).
	extra []*api.Template
	env   map[string]string
}

// maxEnvLine is bufio.MaxScanTokenSize, the longest line Nomad's env
// template parser (go-envparse) reads; a longer one fails the task with
// "error parsing env template" (the contract's own lines are checked in
// translate/contract).
const maxEnvLine = 64 * 1024

// envLineLen is the length of e's rendered env-template line: NAME=, the
// value as consul-template's toJSON writes it (json.Marshal, HTML-escaped);
// counted like translate/contract counts the contract's lines.
func envLineLen(e jobs.EnvVar) int {
	b, _ := json.Marshal(e.Value)
	return len(e.Name) + 1 + len(b)
}

func (r *renderer) command(role *jobs.Role, container bool) (*userCommand, error) {
	uc, err := r.command1(role, container)
	if err != nil {
		return uc, err
	}
	// As PAI's runtime did, right before the user command.
	uc.argv = r.plan.Compiled().Role(role.Name).Launch.WithWorkDir(uc.argv)
	return uc, nil
}

func (r *renderer) command1(role *jobs.Role, container bool) (*userCommand, error) {
	c := role.Command
	launch := r.plan.Compiled().Role(role.Name).Launch
	switch c.Kind {
	case jobs.CommandEval, jobs.CommandBashScript:
		if !interpolated(c.Script) && !r.secretRefs(c.Script) {
			return &userCommand{argv: append([]string(nil), launch.Argv...)}, nil
		}
		// The file's name: $0 of a v2 script is its path, so it is
		// user.sh like PAI's.
		name := "jobshift-command"
		if c.Kind == jobs.CommandBashScript {
			name = translate.PAIScriptName
		}
		// a script filled in with secret values goes to secrets/ (0600,
		// fileTemplate): local/ is world-writable and served by the file API
		dir, env := "local/", "${NOMAD_TASK_DIR}/"
		if r.secretRefs(c.Script) {
			dir, env = "secrets/", "${NOMAD_SECRETS_DIR}/"
		}
		argv, text, _ := launch.File(env + name)
		return &userCommand{argv: argv, file: r.fileTemplate(dir+name, text)}, nil
	case jobs.CommandArgv:
		argv := append(append([]string(nil), c.Command...), c.Args...)
		clean := true
		for _, a := range argv {
			if interpolated(a) {
				clean = false
			}
		}
		if clean {
			if len(c.Command) == 0 && !container {
				return nil, fmt.Errorf("%w: role %q has no `command`, so it runs the ENTRYPOINT of image %q, which only a container driver can run; add `command:` or use nomad.driver = \"docker\"", ErrNoEntrypoint, role.Name, role.Image)
			}
			return &userCommand{argv: argv}, nil
		}
		if len(c.Command) == 0 {
			return nil, fmt.Errorf("%w: role %q runs its image's ENTRYPOINT with arguments containing ${...}, which Nomad would replace; add the entrypoint as `command:` so jobshift can deliver the arguments unchanged", ErrNoEntrypoint, role.Name)
		}
		return &userCommand{
			argv: []string{"/bin/sh", "${NOMAD_TASK_DIR}/jobshift-argv.sh"},
			file: r.fileTemplate("local/jobshift-argv.sh", "exec "+shquote.QuoteAll(argv)+"\n"),
		}, nil
	}
	return nil, fmt.Errorf("role %q: unknown command kind %q", role.Name, c.Kind)
}

// under is uc run by program's subcommand: program sub args... argv.
func (uc *userCommand) under(program string, args ...string) *userCommand {
	out := *uc
	out.argv = append(append([]string{program}, args...), uc.argv...)
	return &out
}

// secretRefs: the job has secrets and s refers to them (PAI v2).
func (r *renderer) secretRefs(s string) bool { return len(r.plan.Job.Secrets) > 0 && hasSecretRefs(s) }

// fileTemplate writes content to dest byte for byte: the template is
// base64Decode calls, so neither consul-template delimiters nor HCL or
// Nomad interpolation in content matter; secret references are read from
// the job's variable.
func (r *renderer) fileTemplate(dest, content string) *api.Template {
	data := `{{ base64Decode "` + base64.StdEncoding.EncodeToString([]byte(content)) + `" }}`
	perms := "0755"
	if r.secretRefs(content) {
		data, perms = secretTemplate(content, r.jobID), "0600"
	}
	return &api.Template{
		EmbeddedTmpl: new(data),
		DestPath:     new(dest),
		ChangeMode:   new("noop"),
		Once:         new(true),
		Perms:        new(perms),
	}
}

// image is the role's image as the plan has it: translate.Build already
// applied the site config's image rules (applying them again would rewrite
// a mirrored image twice).
func (r *renderer) image(role *jobs.Role) string { return role.Image }

// mainTask renders the task running the user's command as process proc
// of the node ("" = the training task, MainTask; contract.ProcessPS = the
// UAI parameter server, PSTask, which differs only in its contract
// environment and holds no GPU: Nomad cannot share a device between two
// tasks, and a parameter server does not compute).
//
// gs is the group's shape: the task's wrappers, its environment and its
// finisher are read from it.
func (r *renderer) mainTask(role *jobs.Role, gs *GroupShape, net *api.NetworkResource, proc string) *api.Task {
	driver, container := gs.Driver, gs.Traits.Container
	uc := &userCommand{} // an idle MPIJob worker runs only the emulation's sshd
	if !r.plan.Compiled().Role(role.Name).SSHIdle {
		var err error
		if uc, err = r.command(role, container); err != nil {
			r.errorf(role.Command.Pos, "Command cannot run on Nomad", "%v", err)
			return nil
		}
	}
	name, gpus := MainTask, role.Resources.GPU
	if proc != "" {
		name, gpus = PSTask, 0
	}
	ws := taskWrappers(gs, name)
	fin := ""
	if has(ws, WrapFinisher) {
		fin = gs.Finisher
	}
	// innermost first: a stop reaches the command's whole process group
	// (restart loop, or stop wrapper), the ssh emulation outlives restarts
	if has(ws, WrapRestart) {
		uc = r.restartLoop(role, uc, has(ws, WrapLogDrain), fin)
	}
	if has(ws, WrapStop) {
		uc = stopWrap(uc, has(ws, WrapLogDrain), fin)
	}
	if has(ws, WrapSSH) {
		uc = r.sshWrap(role, uc)
	}
	view, ok := r.viewOf(role, gs, ws, net, uc, proc)
	if !ok {
		return nil
	}
	uc = view.uc
	if container && r.image(role) == "" {
		r.errorf(role.ImagePos, "No image", "Role %q has no image, which driver %q needs; set nomad.driver = \"raw_exec\" or \"exec\" in the site config, or give the role an image.", role.Name, driver)
		return nil
	}
	t := &api.Task{Name: name, Driver: driver, Resources: r.resources(role), Env: map[string]string{}}
	// SIGTERM, as Kubernetes (OpenPAI, Kubeflow) and Slurm stop a task, so
	// a task's checkpoint-on-SIGTERM handler runs; Nomad's default for
	// non-container drivers is SIGINT (spec/nomad.md §3, exp. 3).
	t.KillSignal = "SIGTERM"
	if gpus == 0 {
		t.Resources.Devices = nil
	}
	r.warnVolumes(role, gs, proc)

	uc, ok = r.environment(role, gs, t, gpus, proc, uc, view.inTask)
	if !ok {
		return nil
	}
	if fin != "" && len(t.Identities) == 0 {
		// the in-task finisher's token, in the secrets directory, not in
		// the task's environment (nomad-env's task has it already; one
		// whose environment is too large for nomad-env has not)
		t.Identities = []*api.WorkloadIdentity{{Name: "default", File: true}}
	}
	if len(t.Env) == 0 {
		t.Env = nil
	}
	if uc.file != nil {
		t.Templates = append(t.Templates, uc.file)
	}
	t.Templates = append(append(t.Templates, uc.extra...), r.secretEnvTemplate(role)...)
	t.Templates = append(t.Templates, view.tmpls...)
	for k, v := range uc.env {
		if t.Env == nil {
			t.Env = map[string]string{}
		}
		t.Env[k] = v
	}
	t.Config = r.driverConfig(role, gs, net, uc, gpus)
	taskMounts(t, gs, view.vols)
	return t
}

// warnVolumes says, once per role, that its volumes no site rule maps
// (GroupShape.Mounts) are not mounted.
func (r *renderer) warnVolumes(role *jobs.Role, gs *GroupShape, proc string) {
	for _, v := range role.Volumes {
		if proc != "" {
			return // warned once, for the training task
		}
		if mounted(gs, v) || v.Kind == "leinao" {
			continue // a LeinaoPAI cluster mount no rule maps: the node's own path, as before
		}
		// Nomad volumes need cluster-side setup (host_volume, CSI) that
		// a job file cannot assume; say so rather than drop it silently.
		r.diags = append(r.diags, jobs.Warnf(v.Pos, "Volume not mounted on Nomad",
			"Role %q mounts %s volume %q at %s; no site rule maps it, so the Nomad target does not mount it. Map it with a volume rule in the site config (volume \"NAME\" { path = ..., nomad_host_volume = ... or nomad_csi_volume = ... }) or use -to local / -to slurm.",
			role.Name, v.Kind, v.Name, v.MountPath))
	}
}

// environment gives task t its environment as the group's shape says:
// the role's own variables in its env block (ownEnv) and the rest — the
// contract, GPU visibility, user values Nomad would rewrite — from the env
// template, a sourced file (shellenv.go) or the helper's nomad-env
// (taskenv.go), which then runs uc (and writes view, the task namespace's
// files, first).
func (r *renderer) environment(role *jobs.Role, gs *GroupShape, t *api.Task, gpus int, proc string, uc *userCommand, view *intask.View) (*userCommand, bool) {
	before, cuda := r.ownEnv(role, t, gs.Traits.Container, gpus)
	// The template is rendered even when the task evaluates its
	// environment itself: its checks (names and lines Nomad carries, the
	// contract's program) then hold whichever way the job runs.
	tmpl, ok := r.envTemplate(role, proc, before, cuda)
	if !ok {
		return uc, false
	}
	switch gs.Env {
	case EnvInTask:
		te := taskEnvPayload(r.plan, r.jobID, role, proc, before, cuda, view)
		if te == "" {
			r.errorf(role.Pos, "Cannot render the environment contract", "the in-task environment of role %q does not fit its env block", role.Name)
			return uc, false
		}
		t.Env[TaskEnvVar] = te
		t.Identities = []*api.WorkloadIdentity{{Name: "default", File: true}}
		return uc.under(r.set.envHelper(), TaskEnvCommand, "--"), true
	case EnvSourced:
		sh, ok := r.envShell(role, proc, before, cuda)
		if !ok {
			if !r.diags.HasErrors() {
				r.errorf(role.Pos, "Cannot render the environment contract", "role %q's environment cannot be sourced by sh", role.Name)
			}
			return uc, false
		}
		t.Templates = append(t.Templates, shellEnvTemplate(sh))
		return uc.under("/bin/sh", "-c", envWaitArg, envWaitArg0), true
	}
	t.Templates = append(t.Templates, &api.Template{
		EmbeddedTmpl: new(tmpl),
		DestPath:     new("local/jobshift.env"), // not secrets/: readable for debugging, holds no secret
		Envvars:      new(true),
		// Rendered once, after the barrier: peers coming and going later
		// must not restart or re-environment a running task.
		Once:       new(true),
		ChangeMode: new("noop"),
	})
	return uc, true
}

// taskWrappers are the wrappers of the group's task of that name.
func taskWrappers(gs *GroupShape, name string) []Wrapper {
	for _, t := range gs.Tasks {
		if t.Name == name {
			return t.Wrappers
		}
	}
	return nil
}

// ownEnv fills t.Env with the role's own variables and returns what the
// env block cannot carry, in the order the template writes it before the
// contract: the user's values holding ${...} (Nomad would rewrite them
// there), then whether CUDA_VISIBLE_DEVICES is the task's
// NVIDIA_VISIBLE_DEVICES (a plain process with GPUs).
func (r *renderer) ownEnv(role *jobs.Role, t *api.Task, container bool, gpus int) (before []contract.Var, cuda bool) {
	rule := r.plan.Site.Role(role.Name)
	userSet := map[string]bool{}
	for _, e := range role.Env {
		userSet[e.Name] = true
		if e.Secret || e.FieldPath != "" {
			continue // secretEnvTemplate; the contract's (fieldRef)
		}
		if interpolated(e.Value) {
			if n := envLineLen(e); n >= maxEnvLine {
				r.errorf(e.Pos, "Environment value too long for Nomad",
					"%s contains \"${...}\", which Nomad would rewrite in the task's env block, so it travels through the env template; its line there would be %d bytes and Nomad reads env templates with a %d-byte line limit. Run the job with -to slurm or -to local, or shorten the value.", e.Name, n, maxEnvLine)
				continue
			}
			before = append(before, contract.Var{Name: e.Name, Value: e.Value})
			continue
		}
		t.Env[e.Name] = e.Value
	}
	if rule != nil {
		for _, k := range sortedKeys(rule.Env) {
			if !userSet[k] && !interpolated(rule.Env[k]) {
				t.Env[k] = rule.Env[k]
			}
		}
	}
	if !container && !userSet["CUDA_VISIBLE_DEVICES"] {
		if gpus > 0 {
			// NVIDIA_VISIBLE_DEVICES is only honoured by the NVIDIA
			// container runtime; plain processes need CUDA's variable.
			cuda = true
		} else {
			// A CPU-only container saw no GPU; neither does this process.
			t.Env["CUDA_VISIBLE_DEVICES"] = ""
		}
	}
	return before, cuda
}

// ownEnvSplit is what ownEnv leaves to the template, without the
// diagnostics (the shape reads it to size the task's environment).
func ownEnvSplit(role *jobs.Role, container bool, gpus int) (before []contract.Var, cuda bool) {
	userSet := map[string]bool{}
	for _, e := range role.Env {
		userSet[e.Name] = true
		if !e.Secret && e.FieldPath == "" && interpolated(e.Value) && envLineLen(e) < maxEnvLine {
			before = append(before, contract.Var{Name: e.Name, Value: e.Value})
		}
	}
	return before, !container && !userSet["CUDA_VISIBLE_DEVICES"] && gpus > 0
}

// envTemplate is the env template of the variables ownEnv left (before,
// cuda) and the contract, each on its own line whatever comes before it.
func (r *renderer) envTemplate(role *jobs.Role, proc string, before []contract.Var, cuda bool) (string, bool) {
	var lines []string
	for _, e := range before {
		lines = append(lines, fmt.Sprintf("%s={{ base64Decode %q | toJSON }}", e.Name, base64.StdEncoding.EncodeToString([]byte(e.Value))))
	}
	if cuda {
		lines = append(lines, `CUDA_VISIBLE_DEVICES={{ env "NVIDIA_VISIBLE_DEVICES" }}`)
	}
	snap := ""
	if r.shape.Rendezvous == RendezvousSnap {
		snap = TopologyPath(r.jobID, groupName(role.Name))
	}
	contractText, err := r.contract.EnvTemplate(r.plan, role, r.jobID, proc, snap)
	if err != nil {
		r.errorf(role.Pos, "Cannot render the environment contract", "%v", err)
		return "", false
	}
	return joinEnvLines(append(lines, contractText)), true
}

// joinEnvLines joins template fragments so that each starts on a line of
// its own: a fragment that begins by trimming whitespace ("{{-") can then
// only eat the separator it was given, never the end of the line before.
func joinEnvLines(parts []string) string {
	if len(parts) == 1 && strings.HasSuffix(parts[0], "\n") {
		return parts[0] // the contract alone: no copy of a large template
	}
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		b.WriteString(p)
		if !strings.HasSuffix(p, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// driverConfig is the task's driver block.
func (r *renderer) driverConfig(role *jobs.Role, gs *GroupShape, net *api.NetworkResource, uc *userCommand, gpus int) map[string]any {
	switch gs.Driver {
	case "docker":
		cfg := map[string]any{"image": r.image(role)}
		if caps := r.capAdd(role); len(caps) > 0 {
			cfg["cap_add"] = caps
		}
		if gpus > 0 && r.set.GPURuntime != "" {
			// Nomad's client uses its nvidia_runtime for GPU tasks anyway;
			// naming it makes the requirement visible in the job (and a
			// client configured otherwise refuses it at once).
			cfg["runtime"] = r.set.GPURuntime
		}
		if len(role.Command.Command) > 0 || role.Command.Kind != jobs.CommandArgv || uc.env != nil {
			cfg["entrypoint"] = uc.argv[:1]
			cfg["args"] = uc.argv[1:]
		} else if len(uc.argv) > 0 {
			cfg["args"] = uc.argv
		}
		switch {
		case gs.Network != "":
			// a network of its own, as its pod had (ownNetwork); its
			// ports published too, so that the contract's addresses (the
			// client's, a port of the group's) reach it where the client's
			// address is routable (not a dev agent's 127.0.0.1): Nomad
			// maps a port without `to` to the same number in the container
			// (drivers/docker/ports.go addMapped, v1.11.3)
			cfg["network_mode"] = gs.Network
			if labels := portLabels(net); len(labels) > 0 {
				cfg["ports"] = labels
			}
		case bridged(net):
			cfg["ports"] = portLabels(net) // Docker's bridge network, published on the node's address
		default:
			cfg["network_mode"] = "host" // as OpenPAI and Kubeflow hostNetwork jobs ran
		}
		if shm := role.Resources.ShmMiB; shm > 0 {
			cfg["shm_size"] = shm * 1024 * 1024
		}
		if role.WorkingDir != "" {
			cfg["work_dir"] = role.WorkingDir
		}
		r.containerHostName(role, cfg, net, gs.Network)
		return cfg
	case "podman":
		cfg := map[string]any{"image": r.image(role), "network_mode": "host"}
		if caps := r.capAdd(role); len(caps) > 0 {
			cfg["cap_add"] = caps
		}
		if len(role.Command.Command) > 0 || role.Command.Kind != jobs.CommandArgv {
			cfg["entrypoint"] = uc.argv[:1]
			cfg["args"] = uc.argv[1:]
		} else {
			cfg["args"] = uc.argv
		}
		if role.WorkingDir != "" {
			cfg["working_dir"] = role.WorkingDir
		}
		return cfg
	default: // raw_exec, exec
		cfg := map[string]any{"command": uc.argv[0], "args": uc.argv[1:]}
		// Processes start in the task directory unless told otherwise:
		// the plan's "work-dir" option (a shared checkout, as the local
		// driver's current directory), else the role's absolute workingDir.
		if wd := r.set.WorkDir; wd != "" {
			cfg["work_dir"] = wd
		} else if strings.HasPrefix(role.WorkingDir, "/") {
			cfg["work_dir"] = role.WorkingDir
		}
		return cfg
	}
}

// portLabels are the labels of the group network's dynamic ports.
func portLabels(net *api.NetworkResource) []string {
	if net == nil {
		return nil
	}
	var labels []string
	for _, p := range net.DynamicPorts {
		labels = append(labels, p.Label)
	}
	return labels
}

// capAdd: the role rule's list when it has one, else the nomad block's.
// None by default: a stock Nomad client's allow_caps refuses the ones
// OpenPAI granted (SYS_ADMIN, IPC_LOCK, DAC_READ_SEARCH), and Kubeflow
// pods never had them.
func (r *renderer) capAdd(role *jobs.Role) []string {
	if rule := r.plan.Site.Role(role.Name); rule != nil && rule.DockerCapAdd != nil {
		return rule.DockerCapAdd
	}
	return r.set.CapAdd
}
