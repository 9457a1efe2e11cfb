package drivers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/jobshift/jobshift/drivers"
	_ "github.com/jobshift/jobshift/drivers/local"
	_ "github.com/jobshift/jobshift/drivers/nomad"
	_ "github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// FuzzRenderers reads any input as a job file and renders every job that
// reads for every built-in target: a renderer returns an artifact or an
// error, never panics, and the Nomad HCL it writes always parses.
func FuzzRenderers(f *testing.F) {
	for _, s := range []string{
		`{"jobName": "x", "image": "i", "taskRoles": [{"name": "a", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 1, "command": "echo $PAI_TASK_ROLE_a_HOST_LIST ${X} {{ .y }}"}]}`,
		"protocolVersion: 2\nname: x\ntype: job\ntaskRoles:\n  a:\n    instances: 2\n    dockerImage: i\n    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 1, ports: {p: 2}}\n    commands: [\"echo '<% $secrets.k %>' ${A}\"]\nprerequisites:\n  - {name: i, type: dockerimage, uri: busybox}\nsecrets: {k: v}\n",
		"apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: x}\nspec:\n  tfReplicaSpecs:\n    PS:\n      replicas: 1\n      template:\n        spec:\n          containers: [{name: tensorflow, image: tf, command: [python, x.py], env: [{name: A, value: \"${B} é\"}]}]\n    Worker:\n      replicas: 2\n      template:\n        spec:\n          containers: [{name: tensorflow, image: tf, command: [python, x.py], resources: {limits: {nvidia.com/gpu: 1}}}]\n",
		"apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: x}\nspec:\n  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      template:\n        spec:\n          containers: [{name: pytorch, image: pt, command: [python, t.py]}]\n    Worker:\n      replicas: 2\n      template:\n        spec:\n          containers: [{name: pytorch, image: pt, command: [python, t.py]}]\n",
		// the ssh emulation: an MPIJob (worker runs sshd), a PAI job with the ssh plugin
		"apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: m, namespace: n}\nspec:\n  slotsPerWorker: 2\n  mpiReplicaSpecs:\n    Launcher:\n      replicas: 1\n      template:\n        spec:\n          containers: [{name: l, image: i, command: [mpirun, -np, \"4\", python3, x.py]}]\n    Worker:\n      replicas: 2\n      template:\n        spec:\n          containers: [{name: w, image: i, command: [/usr/sbin/sshd, -De]}]\n",
		"protocolVersion: 2\nname: h\ntype: job\ntaskRoles:\n  master:\n    instances: 1\n    dockerImage: i\n    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [\"mpirun -np 2 -H master-0:1,worker-0:1 x\"]\n  worker:\n    instances: 1\n    dockerImage: i\n    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [sleep infinity]\nprerequisites:\n  - {name: i, type: dockerimage, uri: busybox}\nextras:\n  com.microsoft.pai.runtimeplugin:\n    - {plugin: ssh, parameters: {jobssh: true, sshbarrier: true, userssh: {type: custom, value: \"ssh-rsa AAA x\"}}}\n",
	} {
		f.Add([]byte(s))
	}
	sites := []*siteconfig.Config{{}, {Nomad: &siteconfig.NomadConfig{Driver: "raw_exec"}}}
	f.Fuzz(func(t *testing.T, src []byte) {
		job, diags := load.Read(src, jobs.ReadOptions{Path: "fuzz.yaml"})
		if diags.HasErrors() || job == nil || job.TaskCount() > 256 {
			return // the readers' own fuzz targets check their errors
		}
		for _, site := range sites {
			p, diags := translate.Build(job, site, nil, "alice")
			if diags.HasErrors() {
				continue
			}
			for _, target := range []string{"nomad", "nomad-json", "slurm", "local"} {
				renderOne(t, p, site, target)
			}
		}
	})
}

func renderOne(t *testing.T, p *translate.Plan, site *siteconfig.Config, target string) {
	d, err := drivers.New(target, drivers.Config{Site: site})
	if err != nil {
		t.Fatal(err)
	}
	p.Options = map[string]string{}
	art, err := d.Render(context.Background(), p)
	if err != nil {
		return
	}
	if art == nil || len(art.Files) == 0 {
		t.Fatalf("%s: no artifact and no error", target)
	}
	if target != "nomad" {
		return
	}
	for _, file := range art.Files {
		if !strings.HasSuffix(file.Name, ".hcl") {
			continue
		}
		if _, diags := hclsyntax.ParseConfig(file.Data, file.Name, hcl.InitialPos); diags.HasErrors() {
			t.Fatalf("the rendered HCL does not parse: %s\n%s", diags.Error(), file.Data)
		}
	}
}
