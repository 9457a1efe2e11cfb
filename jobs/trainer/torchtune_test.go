package trainer

import (
	"strings"
	"testing"
)

// tuneJob is a torchtune TrainJob on a built-in runtime; trainer holds
// the lines under spec.trainer after its command.
func tuneJob(runtime, trainer string) string {
	return `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: test-job
spec:
  runtimeRef:
    name: ` + runtime + `
  trainer:
    command: [tune, run]
` + trainer
}

// The command Trainer builds for `tune run` and what its admission refuses
// (kubeflow/trainer pkg/runtime/framework/plugins/torch/torch.go
// EnforceMLPolicy, torchtune.go getRecipeAndConfig and validateTorchTune,
// cases of torch_test.go and core/trainingruntime_test.go, @v2.3.0). The
// built-in torchtune runtimes' node container asks for 2 GPUs and names
// output_dir, tokenizer.path and checkpointer.checkpoint_dir in its command.
func TestTorchtuneCommand(t *testing.T) {
	const overrides = " output_dir=/workspace/output tokenizer.path=/workspace/model/original/tokenizer.model checkpointer.checkpoint_dir=/workspace/model"
	cases := []struct {
		name, runtime, trainer string
		command, args          string // "" = an error case
		diag                   string
	}{
		{"multi-devices full fine-tuning", "torchtune-llama3.2-1b",
			"    args: [dtype=fp16, batch_size=32]\n",
			"tune run --rdzv_endpoint=test-job-node-0-0.test-job:29500 full_finetune_distributed --config llama3_2/1B_full" + overrides,
			"dtype=fp16 batch_size=32", ""},
		{"single-device full fine-tuning", "torchtune-llama3.2-3b",
			"    numProcPerNode: 1\n",
			"tune run full_finetune_single_device --config llama3_2/3B_full_single_device" + overrides, "", ""},
		{"single GPU LoRA", "torchtune-qwen2.5-1.5b",
			"    args: [\"model.lora_attn_modules=[q_proj,v_proj]\"]\n    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 1\n",
			"tune run lora_finetune_single_device --config qwen2_5/1.5B_lora_single_device output_dir=/workspace/output tokenizer.path=/workspace/model/vocab.json tokenizer.merges_file=/workspace/model/merges.txt checkpointer.checkpoint_dir=/workspace/model", "model.lora_attn_modules=[q_proj,v_proj]", ""},
		{"multi-devices LoRA", "torchtune-llama3.2-1b",
			"    args: [\"model.lora_attn_modules=[q_proj]\"]\n",
			"tune run --rdzv_endpoint=test-job-node-0-0.test-job:29500 lora_finetune_distributed --config llama3_2/1B_lora" + overrides, "model.lora_attn_modules=[q_proj]", ""},
		{"single GPU QLoRA", "torchtune-llama3.2-1b",
			"    args: [model.quantize_base=True]\n    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 1\n",
			"tune run lora_finetune_single_device --config llama3_2/1B_qlora_single_device" + overrides, "model.quantize_base=True", ""},
		{"DoRA is not QLoRA", "torchtune-llama3.2-1b",
			"    args: [model.quantize_base=True, model.use_dora=true]\n    numProcPerNode: 1\n",
			"tune run full_finetune_single_device --config llama3_2/1B_full_single_device" + overrides, "model.quantize_base=True model.use_dora=true", ""},
		{"qlora is not supported for qwen", "torchtune-qwen2.5-1.5b",
			"    args: [model.quantize_base=True]\n", "", "", "job.yaml:7: QLoRA not supported"},
		{"multi-devices qlora is not supported for llama3.2-1b", "torchtune-llama3.2-1b",
			"    numProcPerNode: 2\n    args: [model.quantize_base=True]\n", "", "", "job.yaml:10: QLoRA needs one device"},
		{"one node for llama3.2", "torchtune-llama3.2-1b",
			"    numNodes: 2\n", "", "", "job.yaml:10: torchtune needs one node"},
		{"immutable config in args", "torchtune-llama3.2-1b",
			"    args:\n      - dtype=fp16\n      - output_dir=/mine\n", "", "", "job.yaml:12: Immutable torchtune config"},
		{"no model in the runtime's name", "torch-distributed",
			"", "", "", "job.yaml:7: Unsupported torchtune model"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			job, d := read(t, tuneJob(c.runtime, c.trainer))
			if c.command == "" {
				if !strings.Contains(d, c.diag) {
					t.Errorf("want %q in:\n%s", c.diag, d)
				}
				return
			}
			if strings.Contains(d, "error") || job == nil {
				t.Fatalf("diagnostics:\n%s", d)
			}
			node := job.Role("node")
			if got := strings.Join(node.Command.Command, " "); got != c.command {
				t.Errorf("command\n got %s\nwant %s", got, c.command)
			}
			if got := strings.Join(node.Command.Args, " "); got != c.args {
				t.Errorf("args %q, want %q", got, c.args)
			}
			if !job.Extras.Trainer.Torchtune {
				t.Error("not in torchtune mode")
			}
		})
	}
}

// llama70B is the TrainJob of core/trainingruntime_test.go "succeeded to
// build JobSet with TorchTune values from the TrainJob" (@v2.3.0), with
// two nodes: the one model Trainer runs on more than one node.
const llama70B = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: test-job
spec:
  runtimeRef:
    name: torchtune-llama3.3-70b
    kind: TrainingRuntime
  trainer:
    command: [tune, run]
    args: [dtype=fp16, batch_size=32, epochs=10]
    numNodes: 2
    numProcPerNode: 3
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: torchtune-llama3.3-70b
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: test:runtime
                      command: [tune, run, full_finetune_distributed, --config, llama3_3/70B_full_multinode, output_dir=/workspace/model/llama3_3/70B, tokenizer.path=/workspace/model/original/tokenizer.model, checkpointer.checkpoint_dir=/workspace/model]
`

func TestTorchtuneMultiNode(t *testing.T) {
	job, d := read(t, llama70B)
	if strings.Contains(d, "error") || job == nil || !strings.Contains(d, "job.yaml:12: Rendezvous endpoint by name") {
		t.Fatalf("diagnostics:\n%s", d)
	}
	want := "tune run --rdzv_endpoint=test-job-node-0-0.test-job:29500 full_finetune_distributed --config llama3_3/70B_full_multinode output_dir=/workspace/model/llama3_3/70B tokenizer.path=/workspace/model/original/tokenizer.model checkpointer.checkpoint_dir=/workspace/model"
	if got := strings.Join(job.Role("node").Command.Command, " "); got != want {
		t.Errorf("command\n got %s\nwant %s", got, want)
	}
}
