// Package kubeflow reads Kubeflow training jobs (TFJob in every API
// generation since 2017, PyTorchJob; MPIJob is recognised) into a jobs.Job.
package kubeflow
