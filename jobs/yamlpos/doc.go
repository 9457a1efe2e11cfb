// Package yamlpos is the one YAML layer of jobshift's readers (jobs/pai v2,
// jobs/kubeflow): documents decoded into go.yaml.in/yaml/v3 nodes, never Go
// structs, so every value keeps its line and column and duplicate keys get
// through to be reported; aliases followed with bounds (alias bombs stay
// cheap); `<<` merge keys; typed scalars; and syntax errors located.
//
// What a platform accepted is the reader's business (OpenPAI refused
// duplicate keys, Kubernetes kept the last one); this package gives both
// the same facts.
package yamlpos
