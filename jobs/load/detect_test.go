package load

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

func TestDetect(t *testing.T) {
	p := func(line, col int) jobs.Pos { return jobs.Pos{File: "f", Line: line, Col: col} }
	cases := map[string]struct {
		src  string
		want Detection
	}{
		"pai v1 json": {`{"jobName": "x", "taskRoles": []}`,
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv1, Key: "jobName", Pos: p(1, 2)}},
		"pai v1 with comments, BOM, CRLF, tabs": {"\xef\xbb\xbf// hello \"kind\": \"TFJob\"\r\n{\r\n\t/* \"protocolVersion\": 2 */\r\n\t\"taskRoles\": [{\"kind\": \"TFJob\"}]\r\n}",
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv1, Key: "taskRoles", Pos: p(4, 2)}},
		"nested keys do not count": {`{"a": {"protocolVersion": 2, "kind": "TFJob"}, "jobName": "j"}`,
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv1, Key: "jobName", Pos: p(1, 48)}},
		"yaml flow mapping": {"{apiVersion: kubeflow.org/v1, kind: PyTorchJob, spec: {kind: TFJob}}",
			Detection{Family: FamilyKubeflow, Format: jobs.FormatPyTorchJob, Key: "kind", Pos: p(1, 31), Kind: "PyTorchJob", APIVersion: "kubeflow.org/v1"}},
		"json literals are not keys": {`{"a": true, "b": 12, "jobName": "j"}`,
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv1, Key: "jobName", Pos: p(1, 22)}},
		"string values do not count": {`{"x": "jobName", "y": ["protocolVersion"]}`,
			Detection{Pos: p(1, 2)}},
		"pai v2 yaml": {"# c\nprotocolVersion: 2\nname: x\n",
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv2, Key: "protocolVersion", Pos: p(2, 1)}},
		"pai v2 json": {`{"protocolVersion": 2, "taskRoles": {}}`,
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv2, Key: "protocolVersion", Pos: p(1, 2)}},
		"pre-standard pai v2": {"protocol_version: v2\nname : x\n",
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv2, Key: "protocol_version", Pos: p(1, 1)}},
		"pai v2 with secrets document": {"protocolVersion: 2\nname: x\n---\nregistry: y\n",
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv2, Key: "protocolVersion", Pos: p(1, 1)}},
		"tfjob quoted": {"apiVersion: \"kubeflow.org/v1\"\nkind: \"TFJob\" # c\n",
			Detection{Family: FamilyKubeflow, Format: jobs.FormatTFJob, Key: "kind", Pos: p(2, 1), Kind: "TFJob", APIVersion: "kubeflow.org/v1"}},
		"2017 TfJob": {"apiVersion: \"mlkube.io/v1beta1\"\nkind: \"TfJob\"\n",
			Detection{Family: FamilyKubeflow, Format: jobs.FormatTFJob, Key: "kind", Pos: p(2, 1), Kind: "TfJob", APIVersion: "mlkube.io/v1beta1"}},
		"volcano job after a configmap": {"apiVersion: v1\nkind: ConfigMap\n---\napiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n",
			Detection{Family: FamilyVolcano, Format: jobs.FormatVolcano, Key: "kind", Pos: p(5, 1), Kind: "Job", APIVersion: "batch.volcano.sh/v1alpha1"}},
		"kubernetes batch job stays foreign": {"apiVersion: batch/v1\nkind: Job\n",
			Detection{Key: "kind", Pos: p(2, 1), Kind: "Job", APIVersion: "batch/v1"}},
		"pvc then tfjob": {"apiVersion: v1\nkind: PersistentVolumeClaim\n---\napiVersion: kubeflow.org/v1\nkind: TFJob\n",
			Detection{Family: FamilyKubeflow, Format: jobs.FormatTFJob, Key: "kind", Pos: p(5, 1), Kind: "TFJob", APIVersion: "kubeflow.org/v1"}},
		"whole file indented by one space": {" apiVersion: kubeflow.org/v1\n kind: PyTorchJob\n spec:\n   kind: TFJob\n",
			Detection{Family: FamilyKubeflow, Format: jobs.FormatPyTorchJob, Key: "kind", Pos: p(2, 2), Kind: "PyTorchJob", APIVersion: "kubeflow.org/v1"}},
		"mpijob": {"---\napiVersion: kubeflow.org/v2beta1\nkind: MPIJob\n",
			Detection{Family: FamilyKubeflow, Format: jobs.FormatMPIJob, Key: "kind", Pos: p(3, 1), Kind: "MPIJob", APIVersion: "kubeflow.org/v2beta1"}},
		"unknown kubeflow kind goes to the kubeflow reader": {"apiVersion: kubeflow.org/v1\nkind: DeepSpeedJob\n",
			Detection{Family: FamilyKubeflow, Key: "apiVersion", Pos: p(1, 1), Kind: "DeepSpeedJob", APIVersion: "kubeflow.org/v1"}},
		"XGBoostJob": {"apiVersion: kubeflow.org/v1\nkind: XGBoostJob\n",
			Detection{Family: FamilyKubeflow, Format: jobs.FormatXGBoostJob, Key: "kind", Pos: p(2, 1), Kind: "XGBoostJob", APIVersion: "kubeflow.org/v1"}},
		"MXJob": {"apiVersion: kubeflow.org/v1\nkind: MXJob\n",
			Detection{Family: FamilyKubeflow, Format: jobs.FormatMXJob, Key: "kind", Pos: p(2, 1), Kind: "MXJob", APIVersion: "kubeflow.org/v1"}},
		"foreign kind": {"apiVersion: apps/v1\nkind: Deployment\n",
			Detection{Key: "kind", Pos: p(2, 1), Kind: "Deployment", APIVersion: "apps/v1"}},
		"keys inside a block scalar do not count": {"description: |\n  kind: TFJob\nprotocolVersion: 2\n",
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv2, Key: "protocolVersion", Pos: p(3, 1)}},
		"only comments": {"# apiVersion: kubeflow.org/v1\n# kind: PyTorchJob\n\n", Detection{Empty: true, Pos: p(1, 1)}},
		"empty":         {"", Detection{Empty: true, Pos: p(1, 1)}},
		"unknown yaml":  {"\nfoo: bar\n", Detection{Pos: p(2, 1)}},
		"json array":    {"[1, 2]", Detection{Pos: p(1, 1)}},
		"unterminated":  {`{"jobName`, Detection{Pos: p(1, 1)}},
		"yaml directive": {"%YAML 1.2\n---\nprotocolVersion: String, required\n",
			Detection{Family: FamilyPAI, Format: jobs.FormatPAIv2, Key: "protocolVersion", Pos: p(3, 1)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Detect([]byte(tc.src), "f")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Detect (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{`{"jobName": "x"}`, "protocolVersion: 2\n", "kind: TFJob\n", "{\"a\\\"\": [", "// x\n{/*", "|\n  a: b\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d := Detect(src, "f")
		if d.Pos.Line < 1 || d.Pos.Col < 1 {
			t.Errorf("detection without a position: %+v", d)
		}
	})
}
