package trainer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// The torchtune mode of the torch policy: a trainer command of exactly
// [tune, run] makes Trainer build the rest of the command line
// (kubeflow/trainer pkg/runtime/framework/plugins/torch/torch.go
// EnforceMLPolicy and torchtune.go, @v2.3.0; torch.go alone @v2.0.0).

// torchtune constants (pkg/constants/constants.go @v2.3.0).
const (
	ttRdzvEndpoint = "--rdzv_endpoint"
	ttConfig       = "--config"
	ttLoraAttn     = "model.lora_attn_modules"
	ttQuantizeBase = "model.quantize_base"
	ttUseDora      = "model.use_dora"
	ttModel70B     = "llama3_3/70B"
	ttModelQwen    = "qwen2_5/1.5B"
)

// ttModels are TorchTuneSupportedPretrainedModels; ttImmutable are
// TorchTuneImmutableConfigs, the runtime's own overrides.
var (
	ttModels    = []string{"llama3_2/1B", "llama3_2/3B", ttModel70B, ttModelQwen}
	ttImmutable = []string{"output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file"}
)

// nprocValue is trainer.numProcPerNode as an IntOrString: an int, or a
// string ("auto").
type nprocValue struct {
	n     int
	isInt bool
}

func nprocOf(s string) nprocValue {
	if v, err := strconv.Atoi(s); err == nil {
		return nprocValue{n: v, isInt: true}
	}
	return nprocValue{}
}

// torchtune appends to the trainer's [tune, run] what EnforceMLPolicy
// does: the rendezvous endpoint of node 0 (only for more than one node or
// process, so that `tune run` launches torchrun at all), the recipe and
// config for the node, process and GPU counts, and the runtime's own
// immutable overrides; the user's trainer.args stay the args.
func (b *builder) torchtune(t *jobs.Trainer, tr *jobs.Role) {
	b.validateTorchtune()
	nodes, nproc, gpus := tr.Instances, nprocOf(t.NprocPerNode), t.GPUPerNode
	var add []string
	if nodes > 1 || nproc.isInt && nproc.n > 1 || !nproc.isInt && gpus > 1 {
		add = append(add, TorchtuneEndpoint(b.job.Name))
	}
	recipe, config := ttRecipeAndConfig(nodes, nproc, gpus, b.ttModel(), tr.Command.Args)
	add = append(add, recipe, ttConfig, config)
	add = append(add, b.runtimeOverrides()...)
	tr.Command.Command = append(tr.Command.Command, add...)
	if nodes > 1 {
		// Peers find node 0 by its headless-service name: the task view
		// resolves it (contract HostsVar), a container or a node without
		// namespaces does not, and the command line cannot fall back.
		b.tj.f.warnf(orNode(b.numNodesNode, b.tj.trainerNode), "Rendezvous endpoint by name", "Trainer gives the nodes of a torchtune TrainJob node 0's endpoint by its service name (%s); it resolves where the tasks run under jobshift's task view (plain processes on nodes that allow namespaces), not in containers.", TorchtuneEndpoint(b.job.Name))
	}
}

// TorchtuneEndpoint is the --rdzv_endpoint argument Trainer gives `tune
// run` (torch.go EnforceMLPolicy @v2.3.0): node 0's pod by its name under
// the job's headless service, port 29500 (constants.ContainerTrainerPort).
// torchrun's static rendezvous on node 0 binds that port itself.
func TorchtuneEndpoint(job string) string {
	return fmt.Sprintf("%s=%s-%s-0-0.%s:%d", ttRdzvEndpoint, job, nodeName, job, trainerPort)
}

// ttRecipeAndConfig is getRecipeAndConfig (torchtune.go @v2.3.0).
func ttRecipeAndConfig(nodes int, nproc nprocValue, gpus int, model string, args []string) (string, string) {
	recipe, suffix := "full_finetune_distributed", "_full"
	qlora, lora := ttQLoRA(args), ttLoRA(args)
	switch {
	case nodes == 1 && (nproc.isInt && nproc.n == 1 || gpus == 1):
		switch {
		case qlora:
			recipe, suffix = "lora_finetune_single_device", "_qlora_single_device"
		case lora:
			recipe, suffix = "lora_finetune_single_device", "_lora_single_device"
		default:
			recipe, suffix = "full_finetune_single_device", "_full_single_device"
		}
	case nodes == 1 && qlora:
		recipe, suffix = "lora_finetune_distributed", "_qlora"
	case nodes == 1 && lora:
		recipe, suffix = "lora_finetune_distributed", "_lora"
	case nodes > 1:
		suffix = "_full_multinode"
	}
	return recipe, model + suffix
}

// ttLoRA is isLoraConfigEnabled: some argument mentions the LoRA
// attention modules.
func ttLoRA(args []string) bool {
	for _, a := range args {
		if strings.Contains(a, ttLoraAttn) {
			return true
		}
	}
	return false
}

// ttBool is isBoolArgEnabled: a key=value argument whose key contains item
// and whose value is true in any case.
func ttBool(args []string, item string) bool {
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if ok && strings.Contains(name, item) && strings.EqualFold(strings.TrimSpace(value), "true") {
			return true
		}
	}
	return false
}

// ttQLoRA is isUseQLoraFinetune: quantize_base true, unless DoRA is on.
func ttQLoRA(args []string) bool {
	return !ttBool(args, ttUseDora) && ttBool(args, ttQuantizeBase)
}

// ttModel is getModelFromRuntimeRef: "torchtune-llama3.2-1b" gives
// "llama3_2/1B"; "" unless the name has exactly three dash-separated
// fields.
func (b *builder) ttModel() string {
	f := strings.Split(b.tj.refName, "-")
	if len(f) != 3 {
		return ""
	}
	return strings.ReplaceAll(f[1], ".", "_") + "/" + strings.ToUpper(f[2])
}

// runtimeOverrides is extractOverridesFromRuntime: the command entries of
// the runtime's trainer node container whose key is an immutable config.
func (b *builder) runtimeOverrides() []string {
	var out []string
	for _, rj := range b.rt.rjobs {
		if rj.ancestor != ancestorTrainer {
			continue
		}
		for _, c := range yamlSeq(child(rj.pod, "spec", "containers")) {
			if scalar(child(c, "name")) != nodeName {
				continue
			}
			for _, w := range yamlSeq(child(c, "command")) {
				if ttIsImmutable(strings.Split(scalar(w), "=")[0]) {
					out = append(out, scalar(w))
				}
			}
		}
	}
	return out
}

func ttIsImmutable(key string) bool {
	for _, k := range ttImmutable {
		if k == key {
			return true
		}
	}
	return false
}

// validateTorchtune is validateTorchTune (torchtune.go @v2.3.0), located
// at the field Trainer's admission names.
func (b *builder) validateTorchtune() {
	f, model := b.tj.f, b.ttModel()
	if !contains(ttModels, model) {
		f.errorf(b.tj.refNode, "Unsupported torchtune model", "runtimeRef.name %q must name a supported pretrained model (%s) for `tune run`, not %q; Trainer rejects the TrainJob.", b.tj.refName, strings.Join(ttModels, ", "), model)
	}
	nodes := max(b.numNodes, 1) // ptr.Deref(trainer.numNodes, 1)
	if nodes > 1 && model != ttModel70B {
		f.errorf(b.numNodesNode, "torchtune needs one node", "trainer.numNodes must be 1 for the %s model; Trainer rejects the TrainJob.", model)
	}
	args := b.ttArgs()
	nproc := nprocOf(b.nproc) // unset: "auto"
	_, config := ttRecipeAndConfig(nodes, nproc, b.gpuPerNode(), model, values(args))
	if strings.Contains(config, "_qlora") {
		if model == ttModelQwen {
			f.errorf(b.tj.refNode, "QLoRA not supported", "QLoRA is not supported for the %s model; Trainer rejects the TrainJob.", model)
		}
		if !strings.Contains(config, "_qlora_single_device") && (model == "llama3_2/1B" || model == "llama3_2/3B") {
			f.errorf(orNode(b.nprocNode, b.tj.trainerNode), "QLoRA needs one device", "With QLoRA the %s model needs numProcPerNode auto or 1 and resourcesPerNode with exactly one GPU; Trainer rejects the TrainJob.", model)
		}
	}
	if nodes > 1 && (ttLoRA(values(args)) || ttQLoRA(values(args))) {
		f.errorf(b.numNodesNode, "LoRA on one node only", "LoRA fine-tuning is not supported for multi-node training in torchtune; Trainer rejects the TrainJob.")
	}
	for _, a := range args {
		if key := strings.SplitN(scalar(a), "=", 2)[0]; ttIsImmutable(key) {
			f.errorf(a, "Immutable torchtune config", "trainer.args must not set %q: the runtime manages it (its command's %s); Trainer rejects the TrainJob.", key, key)
		}
	}
}

// ttArgs are the trainer.args nodes (for their positions).
func (b *builder) ttArgs() []*yaml.Node { return yamlSeq(b.tj.trainer.get("args")) }

func values(ns []*yaml.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = scalar(n)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
