package load

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/volcano"
)

// Family is the reader a file goes to.
type Family string

const (
	FamilyNone     Family = ""
	FamilyPAI      Family = "pai"      // jobs/pai: v1 JSON and v2 YAML
	FamilyKubeflow Family = "kubeflow" // jobs/kubeflow: TFJob, PyTorchJob, MPIJob, AppWrapper
	FamilyTrainer  Family = "trainer"  // jobs/trainer: Kubeflow Trainer v2 TrainJob and its runtimes
	FamilyVolcano  Family = "volcano"  // jobs/volcano: batch.volcano.sh Job
)

// Detection is what the content of a file says it is.
type Detection struct {
	Family Family
	// Format is the best guess of the format ("" when only the family is
	// known); the reader decides and records the real one on the job.
	Format jobs.Format
	// Key is the top-level key that decided, and where it is.
	Key string
	Pos jobs.Pos
	// Kind and APIVersion are the Kubernetes kind/apiVersion when the file
	// has them (also for kinds jobshift does not read, for the error).
	Kind       string
	APIVersion string
	// Empty reports a file with no content but whitespace and comments.
	Empty bool
}

// kubeflowKinds are the kinds jobs/kubeflow reads (or recognises to reject
// with a precise message, MPIJob); the value is the format guess.
var kubeflowKinds = map[string]jobs.Format{
	"TFJob":      jobs.FormatTFJob,
	"TfJob":      jobs.FormatTFJob, // 2017 tensorflow.org / mlkube.io spelling
	"PyTorchJob": jobs.FormatPyTorchJob,
	"MPIJob":     jobs.FormatMPIJob,
	"XGBoostJob": jobs.FormatXGBoostJob,
	"PaddleJob":  jobs.FormatPaddleJob,
	"JAXJob":     jobs.FormatJAXJob,
	"MXJob":      jobs.FormatMXJob,
	"AppWrapper": "", // Kueue/CodeFlare wrapper around one of the above
}

// trainerKinds are the Kubeflow Trainer v2 kinds jobs/trainer reads (a
// runtime alone is read to say the TrainJob is missing).
var trainerKinds = map[string]bool{"TrainJob": true, "TrainingRuntime": true, "ClusterTrainingRuntime": true}

// kubeflowGroups are API groups whose objects go to jobs/kubeflow even when
// the kind is unusual, so that its reader can say precisely what is wrong.
var kubeflowGroups = []string{"kubeflow.org", "tensorflow.org", "mlkube.io", "kubeflow.caicloud.io", "workload.codeflare.dev"}

type topKey struct {
	name, value string
	pos         jobs.Pos
}

// Detect looks at the top-level keys of src, without parsing it fully (the
// file may be JSON with comments, or YAML a strict parser rejects; the
// reader reports those problems precisely).
//
// Rules, in order: a top-level protocolVersion or protocol_version → OpenPAI
// v2; a Kubernetes kind of TFJob/TfJob/PyTorchJob/MPIJob/AppWrapper, or an
// apiVersion in a Kubeflow group → Kubeflow; taskRoles or jobName → OpenPAI
// v1. With several YAML documents, a document that decides wins over the
// others (a PVC next to a TFJob, a secrets document next to a PAI job).
func Detect(src []byte, path string) Detection {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	var docs [][]topKey
	if first, ok := firstContent(src); !ok {
		return Detection{Empty: true, Pos: jobs.Pos{File: path, Line: 1, Col: 1}}
	} else if first == '{' {
		docs = [][]topKey{jsonTopKeys(src, path)}
	} else {
		docs = yamlTopKeys(src, path)
	}
	var d Detection
	for _, keys := range docs {
		for _, k := range keys {
			switch k.name {
			case "protocolVersion", "protocol_version":
				return Detection{Family: FamilyPAI, Format: jobs.FormatPAIv2, Key: k.name, Pos: k.pos}
			}
		}
	}
	for _, keys := range docs {
		var kind, api topKey
		for _, k := range keys {
			switch k.name {
			case "kind":
				kind = k
			case "apiVersion":
				api = k
			}
		}
		if trainerKinds[kind.value] || strings.HasPrefix(api.value, "trainer.kubeflow.org/") {
			return Detection{Family: FamilyTrainer, Format: jobs.FormatTrainJob, Key: "kind", Pos: kind.pos, Kind: kind.value, APIVersion: api.value}
		}
		if volcano.IsVolcano(kind.value, api.value) {
			return Detection{Family: FamilyVolcano, Format: jobs.FormatVolcano, Key: "kind", Pos: kind.pos, Kind: kind.value, APIVersion: api.value}
		}
		if f, ok := kubeflowKinds[kind.value]; ok {
			return Detection{Family: FamilyKubeflow, Format: f, Key: "kind", Pos: kind.pos, Kind: kind.value, APIVersion: api.value}
		}
		if kubeflowGroup(api.value) {
			return Detection{Family: FamilyKubeflow, Key: "apiVersion", Pos: api.pos, Kind: kind.value, APIVersion: api.value}
		}
		if kind.name != "" && d.Kind == "" {
			// Remember the first foreign kind for the error message.
			d = Detection{Key: "kind", Pos: kind.pos, Kind: kind.value, APIVersion: api.value}
		}
	}
	for _, keys := range docs {
		for _, k := range keys {
			if k.name == "taskRoles" || k.name == "jobName" {
				return Detection{Family: FamilyPAI, Format: jobs.FormatPAIv1, Key: k.name, Pos: k.pos}
			}
		}
	}
	if d.Pos.IsZero() {
		d.Pos = jobs.Pos{File: path, Line: 1, Col: 1}
		for _, keys := range docs {
			if len(keys) > 0 {
				d.Pos = keys[0].pos
				break
			}
		}
	}
	return d
}

func kubeflowGroup(apiVersion string) bool {
	group, _, _ := strings.Cut(apiVersion, "/")
	for _, g := range kubeflowGroups {
		if group == g || strings.HasSuffix(group, "."+g) {
			return true
		}
	}
	return false
}

// firstContent returns the first byte that is not whitespace, a YAML/JSON
// comment, a YAML directive or a document marker.
func firstContent(src []byte) (byte, bool) {
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "", strings.HasPrefix(t, "#"), strings.HasPrefix(t, "//"), strings.HasPrefix(t, "%"),
			t == "---", t == "...":
			continue
		case strings.HasPrefix(t, "--- "):
			t = strings.TrimSpace(t[4:])
			if t == "" || t[0] == '#' {
				continue
			}
		}
		return t[0], true
	}
	return 0, false
}

// yamlKey matches "key:" or "key: value" with an optional quoted key.
var yamlKey = regexp.MustCompile(`^(\s*)(?:"([^"]+)"|'([^']+)'|([A-Za-z_][A-Za-z0-9_.-]*))\s*:(?:\s+(.*))?$`)

// yamlTopKeys returns, per YAML document, the keys at the document's own
// indentation (the indentation of its first key, so a file indented by
// one space throughout still works).
func yamlTopKeys(src []byte, path string) [][]topKey {
	var docs [][]topKey
	var cur []topKey
	indent := -1
	inBlockScalar := -1 // indentation of the key that opened a | or > scalar
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "---" || strings.HasPrefix(line, "--- ") || line == "..." {
			docs, cur, indent, inBlockScalar = append(docs, cur), nil, -1, -1
			continue
		}
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		if inBlockScalar >= 0 {
			if lead > inBlockScalar {
				continue
			}
			inBlockScalar = -1
		}
		m := yamlKey.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if indent < 0 {
			indent = lead
		}
		value := yamlScalar(m[5])
		if v := strings.TrimSpace(m[5]); strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">") {
			inBlockScalar = lead
		}
		if lead != indent {
			continue
		}
		name := m[2] + m[3] + m[4]
		cur = append(cur, topKey{name: name, value: value, pos: jobs.Pos{File: path, Line: i + 1, Col: lead + 1}})
	}
	return append(docs, cur)
}

// yamlScalar strips quotes and a trailing comment from a plain value.
func yamlScalar(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if j := strings.IndexByte(v[1:], v[0]); j >= 0 {
			return v[1 : j+1]
		}
	}
	if j := strings.Index(v, " #"); j >= 0 {
		v = strings.TrimSpace(v[:j])
	}
	return v
}
