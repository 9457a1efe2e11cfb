package pai

import (
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// OpenPAI v1 job config JSON (YARN eras, spec/pai.md §1). The schema is the
// Joi schema of pai@v0.14.0 (src/rest-server/src/config/job.js) plus the
// fields older and newer releases knew.

var (
	// jobName: `^[A-Za-z0-9\-._]+$` from v0.8; v0.4–v0.7 also allowed `~`.
	v1JobNameRe    = regexp.MustCompile(`^[A-Za-z0-9\-._]+$`)
	v1JobNameOldRe = regexp.MustCompile(`^[A-Za-z0-9\-._~]+$`)
	// taskRoles[].name: `^[A-Za-z0-9._~]+$` from v0.5; v0.4 also allowed `-`.
	v1RoleNameRe    = regexp.MustCompile(`^[A-Za-z0-9._~]+$`)
	v1RoleNameOldRe = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)
	v1LabelRe       = regexp.MustCompile(`^[A-Za-z0-9._~]+$`)
	shellNameRe     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	wordRe          = regexp.MustCompile(`\w`)
)

var v1TopKeys = map[string]bool{
	"jobName": true, "image": true, "authFile": true, "dataDir": true, "outputDir": true, "codeDir": true,
	"virtualCluster": true, "gpuType": true, "retryCount": true, "killAllOnCompletedTaskNumber": true,
	"jobEnvs": true, "extras": true, "taskRoles": true,
}

var v1RoleKeys = map[string]bool{
	"name": true, "taskNumber": true, "cpuNumber": true, "memoryMB": true, "shmMB": true, "gpuNumber": true,
	"portList": true, "command": true, "minFailedTaskCount": true, "minSucceededTaskCount": true,
}

var v1PortKeys = map[string]bool{"label": true, "beginAt": true, "portNumber": true}

type v1reader struct {
	diagSink
	opts jobs.ReadOptions
	job  *jobs.Job
}

// ReadV1 reads an OpenPAI v1 job config (JSON, comments tolerated). It
// returns the job only when there are no errors.
func ReadV1(src []byte, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
	root, diags := parseJSON(src, opts.Path)
	if root == nil {
		return nil, diags
	}
	r := &v1reader{opts: opts}
	r.Diags = diags
	job := r.read(root)
	if r.Diags.HasErrors() {
		return nil, r.Diags
	}
	return job, r.Diags
}

func (r *v1reader) unknownKeys(n *jnode, known map[string]bool, where string) {
	for _, m := range n.Members {
		if !known[m.Key] {
			r.Warnf(m.KeyPos, "Unknown field", "%q is not a field of %s. OpenPAI rejected jobs with unknown fields; jobshift ignores it. Check the spelling or remove it.", m.Key, where)
		}
	}
}

func (r *v1reader) read(root *jnode) *jobs.Job {
	if root.Kind != jObject {
		r.Errorf(root.Pos, "Not a job object", "An OpenPAI v1 job file is one JSON object with jobName, image and taskRoles; found %s.", root.Kind)
		return nil
	}
	r.unknownKeys(root, v1TopKeys, "an OpenPAI v1 job")
	job := &jobs.Job{
		Source:         jobs.Source{Format: jobs.FormatPAIv1, Path: r.opts.Path},
		Completion:     jobs.Completion{Kind: jobs.CompletionPAI},
		Retry:          jobs.Retry{Fancy: true, GangAllocation: true},
		Contracts:      []string{jobs.ContractPAI, jobs.ContractPAIYarn},
		VirtualCluster: "default",
	}
	r.job = job
	file := jobs.Pos{File: r.opts.Path, Line: 1, Col: 1}

	if n := root.get("jobName"); n == nil {
		r.Errorf(root.Pos, "Missing jobName", "Every OpenPAI job needs \"jobName\" (letters, digits, '-', '.', '_').")
	} else if s, ok := r.stringValue(n, "jobName", false); ok {
		job.Name, job.NamePos = s, n.Pos
		switch {
		case v1JobNameRe.MatchString(s):
		case v1JobNameOldRe.MatchString(s):
			r.Warnf(n.Pos, "'~' in jobName", "OpenPAI v0.8 and later refuse '~' in jobName (v0.4–v0.7 allowed it), because '~' separates user and job in PAI_JOB_NAME. Rename the job.")
		default:
			r.Errorf(n.Pos, "Invalid jobName", "jobName %q may only contain letters, digits, '-', '.' and '_'.", s)
		}
	}
	image, imagePos := "", jobs.Pos{}
	if n := root.get("image"); n == nil {
		r.Errorf(root.Pos, "Missing image", "An OpenPAI v1 job needs \"image\", the Docker image every task role runs.")
	} else if s, ok := r.stringValue(n, "image", false); ok {
		image, imagePos = s, n.Pos
	}
	strField := func(key string) (string, jobs.Pos) {
		if n := root.get(key); n != nil {
			s, _ := r.stringValue(n, key, true)
			return s, n.Pos
		}
		return "", jobs.Pos{}
	}
	authFile, authPos := strField("authFile")
	job.DataDir, _ = strField("dataDir")
	job.OutputDir, _ = strField("outputDir")
	codeDir, codePos := strField("codeDir")
	job.CodeDir = codeDir
	gpuType, _ := strField("gpuType")
	if n := root.get("virtualCluster"); n != nil {
		job.VirtualCluster, _ = r.stringValue(n, "virtualCluster", true)
	}
	if authFile != "" {
		r.Warnf(authPos, "authFile is an HDFS path", "OpenPAI read registry credentials from the HDFS file %q at submission; jobshift cannot. Give the target's container runtime credentials for this registry.", authFile)
	}
	if codeDir != "" {
		r.Warnf(codePos, "codeDir is not copied", "OpenPAI downloaded codeDir %q from HDFS into the working directory before the command ran; jobshift does not. Put the code in the image or on a volume the command can reach.", codeDir)
	}
	if n := root.get("retryCount"); n != nil {
		if v, ok := r.intValue(n, "retryCount"); ok {
			if v < -2 {
				r.Errorf(n.Pos, "Invalid retryCount", "retryCount must be -2 (always retry), -1 (retry on any failure) or a count ≥ 0; got %d.", v)
			}
			job.Retry.JobRetryCount = int(v)
			job.Retry.Fancy = v != -2
			job.Retry.Pos = n.Pos
		}
	}
	env := r.jobEnvs(root.get("jobEnvs"))

	rolesNode := root.get("taskRoles")
	switch {
	case rolesNode == nil:
		r.Errorf(root.Pos, "Missing taskRoles", "An OpenPAI v1 job needs \"taskRoles\", an array with at least one task role.")
	case rolesNode.Kind != jArray:
		r.Errorf(rolesNode.Pos, "taskRoles is not an array", "taskRoles must be an array of task role objects, not %s.", rolesNode.Kind)
	case len(rolesNode.Elems) == 0:
		r.Errorf(rolesNode.Pos, "No task roles", "taskRoles must hold at least one task role.")
	}
	explicitMinSucceeded := map[*jobs.Role]bool{}
	seen := map[string]bool{}
	if rolesNode != nil && rolesNode.Kind == jArray {
		for _, rn := range rolesNode.Elems {
			role, explicit := r.role(rn)
			if role == nil {
				continue
			}
			if seen[role.Name] {
				r.Errorf(role.Pos, "Duplicate task role", "Task role %q is defined twice; role names must be unique.", role.Name)
			}
			seen[role.Name] = true
			role.Image, role.ImagePos = image, imagePos
			if authFile != "" {
				role.ImageAuth = &jobs.ImageAuth{AuthFile: authFile}
			}
			role.Resources.GPUType = gpuType
			role.Env = append([]jobs.EnvVar(nil), env...)
			explicitMinSucceeded[role] = explicit
			job.Roles = append(job.Roles, role)
		}
	}
	r.killAll(root, explicitMinSucceeded)
	if r.opts.Dialect == DialectLeinao || (r.opts.Dialect == "" && r.detectLeinao(root)) {
		applyLeinao(job)
	} else if r.opts.Dialect != "" && r.opts.Dialect != DialectPAI {
		r.Errorf(file, "Unknown dialect", "Dialect %q is not known; use %q or %q.", r.opts.Dialect, DialectLeinao, DialectPAI)
	}
	return job
}

// jobEnvs reads the v0.9+ jobEnvs object: extra container environment,
// values written literally into docker's env-file (no shell expansion).
func (r *v1reader) jobEnvs(n *jnode) []jobs.EnvVar {
	if n == nil {
		return nil
	}
	if n.Kind != jObject {
		r.Errorf(n.Pos, "jobEnvs is not an object", "jobEnvs must be an object of NAME: value pairs, not %s.", n.Kind)
		return nil
	}
	var env []jobs.EnvVar
	for _, m := range n.Members {
		if !wordRe.MatchString(m.Key) {
			r.Errorf(m.KeyPos, "Invalid jobEnvs name", "%q is not a valid environment variable name.", m.Key)
			continue
		}
		if !shellNameRe.MatchString(m.Key) {
			r.Warnf(m.KeyPos, "Unusual environment variable name", "%q is not a shell identifier; a shell cannot read it as $%s.", m.Key, m.Key)
		}
		var val string
		switch m.Val.Kind {
		case jString:
			val = m.Val.Str
		case jNumber:
			val = jsNumberText(m.Val.Str)
		case jBool:
			val = map[bool]string{true: "true", false: "false"}[m.Val.Bool]
		default:
			r.Errorf(m.Val.Pos, "Invalid jobEnvs value", "The value of %s must be a string, number or boolean, not %s.", m.Key, m.Val.Kind)
			continue
		}
		switch m.Key {
		case "isDebug":
			r.Warnf(m.KeyPos, "isDebug has no effect", "On OpenPAI, isDebug kept a failed container for debugging; jobshift only exports it as an environment variable.")
		case "paiAzRDMA":
			r.Warnf(m.KeyPos, "paiAzRDMA has no effect", "On OpenPAI, paiAzRDMA enabled Azure RDMA in the container; jobshift only exports it as an environment variable.")
		}
		env = append(env, jobs.EnvVar{Name: m.Key, Value: val, Pos: m.Val.Pos})
	}
	return env
}

// killAll applies killAllOnCompletedTaskNumber. Its meaning changed by era
// (spec/pai.md §1): v0.4–v0.6 ended the whole job when any task completed
// (launcher killAllOnAnyCompleted, later minSucceededTaskCount=1 on every
// role), v0.7.1 refused it, v0.8+ ignored it. The file does not say which
// release it was written for; we take the only era in which it did
// something, and warn, because LeinaoPAI examples set it to the worker
// count as if it meant "end the job after N completed tasks".
func (r *v1reader) killAll(root *jnode, explicit map[*jobs.Role]bool) {
	n := root.get("killAllOnCompletedTaskNumber")
	if n == nil {
		return
	}
	v, ok := r.intValue(n, "killAllOnCompletedTaskNumber")
	if !ok || v <= 0 {
		return
	}
	for _, role := range r.job.Roles {
		if !explicit[role] {
			one := 1
			role.MinSucceeded, role.MinSucceededPos = &one, n.Pos
		}
	}
	r.Warnf(n.Pos, "killAllOnCompletedTaskNumber read with its v0.4–v0.6 meaning",
		"This field ended the whole job as soon as any task completed in OpenPAI v0.4–v0.6 (every role gets minSucceededTaskCount 1 unless it sets its own); v0.7.1 refused it and v0.8+ ignored it. "+
			"If you meant \"end the job after %d tasks completed\" (LeinaoPAI examples use the worker count this way), remove it and set minSucceededTaskCount on the role that decides.", v)
}
