package load

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// Limits jobshift applies while reading a job. Each is what the source
// platforms accepted or what every target can carry; a job past one is
// refused at read time with the position of the offending value, before any
// work proportional to it is done (a 1e9 taskNumber used to validate and
// then grow convert and run past gigabytes).
const (
	// MaxFileBytes bounds a job file (and standard input): 1.5 MiB, the
	// largest object the Kubernetes API server stores (etcd's default
	// --max-request-bytes). TFJobs and PyTorchJobs are such objects, and so
	// were OpenPAI k8s-era jobs (a FrameworkController Framework carrying
	// the job config), so no job that ran there is larger.
	MaxFileBytes = 3 << 19

	// MaxTasks bounds the tasks of one job (the sum of every role's
	// instances). Kubernetes supports clusters of at most 5,000 nodes and a
	// task's host list must fit in one environment string (Linux
	// MAX_ARG_STRLEN, 128 KiB): 5,000 "a.b.c.d:port," entries still do.
	MaxTasks = 5000

	// There is no limit on roles (task roles, replica types): OpenPAI took
	// any number (microsoft/pai src/rest-server/src/config/job.js at
	// 260c18ff: v1 taskRoles Joi.array().min(1), no max; and
	// src/rest-server/src/config/v2/protocol.js at 0abebc3c: v2 taskRoles
	// minProperties 1, no maxProperties, instances minimum 1), Kubeflow
	// kinds have a fixed few. MaxTasks and MaxFileBytes already bound what
	// the roles put into each task's environment.

	// MaxArgBytes bounds one environment string (NAME=value) and one argv
	// element: Linux refuses longer ones at execve with E2BIG
	// (MAX_ARG_STRLEN = 32 pages), on every target and on Kubernetes.
	MaxArgBytes = 128 << 10
)

// ReadAllLimited reads r up to MaxFileBytes. A longer input is refused with
// the position of its first byte past the limit instead of being read on
// (validate /dev/zero or an endless pipe used to run out of memory).
func ReadAllLimited(r io.Reader, name string) ([]byte, *hcl.Diagnostic) {
	src, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read job file",
			Detail: fmt.Sprintf("%v.", err), Subject: &hcl.Range{Filename: name}}
	}
	if len(src) > MaxFileBytes {
		line, col := lineCol(src, MaxFileBytes)
		at := hcl.Pos{Line: line, Column: col, Byte: MaxFileBytes}
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "File too large",
			Detail:  fmt.Sprintf("The input is longer than %d bytes (1.5 MiB, the largest object Kubernetes stores; no OpenPAI or Kubeflow job was larger). Nothing past this point was read.", MaxFileBytes),
			Subject: &hcl.Range{Filename: name, Start: at, End: at}}
	}
	return src, nil
}

// ReadFileLimited is ReadAllLimited on the file at path (a device such as
// /dev/zero reports size 0, so os.ReadFile would read it forever).
func ReadFileLimited(path string) ([]byte, *hcl.Diagnostic) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read job file",
			Detail: fmt.Sprintf("%v.", err), Subject: &hcl.Range{Filename: path}}
	}
	defer f.Close()
	return ReadAllLimited(f, path)
}

func lineCol(src []byte, off int) (int, int) {
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}

// CheckLimits refuses a job past MaxTasks or MaxArgBytes, at the
// position of the value that crosses the limit.
func CheckLimits(job *jobs.Job) hcl.Diagnostics {
	var diags hcl.Diagnostics
	total := 0
	for _, r := range job.Roles {
		diags = append(diags, checkRole(r, &total)...)
	}
	return diags
}

func checkRole(r *jobs.Role, total *int) hcl.Diagnostics {
	var diags hcl.Diagnostics
	before := *total
	*total += r.Instances
	if before <= MaxTasks && *total > MaxTasks {
		diags = append(diags, jobs.Errorf(posOr(r.InstancesPos, r.Pos), "Too many tasks",
			"With the %d instances of role %q the job has %d tasks; jobshift runs at most %d per job (Kubernetes' largest supported cluster has 5,000 nodes, and every task's host list must fit in one 128 KiB environment string).", r.Instances, r.Name, *total, MaxTasks))
	}
	for _, e := range r.Env {
		if n := len(e.Name) + 1 + len(e.Value) + 1; n > MaxArgBytes {
			diags = append(diags, jobs.Errorf(e.Pos, "Environment variable too long",
				"%s=... is %d bytes; Linux refuses an environment string over %d bytes (MAX_ARG_STRLEN) when the task starts, on every target as on Kubernetes. Put the value in a file.", e.Name, n, MaxArgBytes))
		}
	}
	for _, a := range append(append([]string(nil), r.Command.Command...), r.Command.Args...) {
		if len(a)+1 > MaxArgBytes {
			diags = append(diags, jobs.Errorf(r.Command.Pos, "Argument too long",
				"One command or args element is %d bytes; Linux refuses an argument over %d bytes (MAX_ARG_STRLEN) when the container starts, as Kubernetes did. Put it in a file.", len(a), MaxArgBytes))
		}
	}
	return diags
}

func posOr(p, fallback jobs.Pos) jobs.Pos {
	if p.IsZero() {
		return fallback
	}
	return p
}
