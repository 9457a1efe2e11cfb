package volcano

import (
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// The plugins' port labels and Volcano's names (defined in package jobs,
// which the contract also reads).
const (
	SSHLabel     = jobs.VolcanoSSHLabel
	PytorchLabel = jobs.VolcanoPytorchLabel
	TFLabel      = jobs.VolcanoTFLabel
)

var (
	PodName    = jobs.VolcanoPodName
	DomainName = jobs.VolcanoDomainName
	EnvKey     = jobs.VolcanoEnvKey
)

// platform adds what the plugins give every pod that the job carries as
// data: the ports the framework plugins and the ssh plugin use, and the
// svc plugin's ConfigMap mounted at /etc/volcano.
func platform(job *jobs.Job) {
	v := job.Extras.Volcano
	if v == nil {
		return
	}
	for _, r := range job.Roles {
		if p := v.Plugin("pytorch"); p != nil {
			addPort(r, PytorchLabel, jobs.ParseVolcanoFlags("pytorch", p.Args).Port, p.Pos)
		}
		if p := v.Plugin("tensorflow"); p != nil {
			addPort(r, TFLabel, jobs.ParseVolcanoFlags("tensorflow", p.Args).Port, p.Pos)
		}
		if p := v.Plugin("ssh"); p != nil && !hasLabel(r, SSHLabel) {
			r.Ports = append(r.Ports, jobs.Port{Label: SSHLabel, Count: 1, Number: jobs.ParseVolcanoFlags("ssh", p.Args).SSHPort, Implicit: true, Pos: p.Pos})
		}
	}
	if p := v.Plugin("svc"); p != nil {
		files := svcFiles(job, p.Pos)
		for _, r := range job.Roles {
			r.Files = append(r.Files, files...)
		}
	}
}

// addPort opens port number n under label unless the container declares
// that number already (openContainerPort).
func addPort(r *jobs.Role, label string, n int, pos jobs.Pos) {
	for _, p := range r.Ports {
		if p.Number == n {
			return
		}
	}
	r.Ports = append(r.Ports, jobs.Port{Label: label, Count: 1, Number: n, Implicit: true, Pos: pos})
}

func hasLabel(r *jobs.Role, label string) bool {
	for _, p := range r.Ports {
		if p.Label == label {
			return true
		}
	}
	return false
}

// SVCDir is where the svc plugin mounts its ConfigMap (ConfigMapMountPath).
const SVCDir = "/etc/volcano"

// svcFiles are the keys of the svc plugin's ConfigMap, each a file under
// /etc/volcano (GenerateHosts, pkg/controllers/job/plugins/svc/svc.go
// @v1.16.0-alpha.1): per task <task>.host (domain names, one per line, no
// final newline), VC_<TASK>_HOSTS (joined by ',') and VC_<TASK>_NUM.
func svcFiles(job *jobs.Job, pos jobs.Pos) []jobs.File {
	var out []jobs.File
	for _, r := range job.Roles {
		hosts := make([]string, r.Instances)
		for i := range hosts {
			hosts[i] = DomainName(job.Name, r.Name, i)
		}
		key := EnvKey(r.Name)
		up := strings.ToUpper(key)
		out = append(out,
			jobs.File{Path: SVCDir + "/" + key + ".host", Content: strings.Join(hosts, "\n"), Mode: 0o644, Pos: pos},
			jobs.File{Path: SVCDir + "/VC_" + up + "_HOSTS", Content: strings.Join(hosts, ","), Mode: 0o644, Pos: pos},
			jobs.File{Path: SVCDir + "/VC_" + up + "_NUM", Content: strconv.Itoa(len(hosts)), Mode: 0o644, Pos: pos})
	}
	return out
}
