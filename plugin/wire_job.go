package plugin

import (
	"encoding/json"
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	pb "github.com/jobshift/jobshift/plugin/proto"
)

// This file converts the job model to and from its wire form. Every field of
// jobs.Job has a counterpart in driver.proto; TestJobRoundTrip fills every
// field by reflection and fails when one is added to the model but not here.

func posToPB(p jobs.Pos) *pb.Pos {
	if p == (jobs.Pos{}) {
		return nil
	}
	return &pb.Pos{File: p.File, Line: int32(p.Line), Col: int32(p.Col)}
}

func posFromPB(p *pb.Pos) jobs.Pos {
	if p == nil {
		return jobs.Pos{}
	}
	return jobs.Pos{File: p.File, Line: int(p.Line), Col: int(p.Col)}
}

func optIntToPB(v *int) *pb.OptionalInt {
	if v == nil {
		return nil
	}
	return &pb.OptionalInt{Value: int64(*v)}
}

func optIntFromPB(v *pb.OptionalInt) *int {
	if v == nil {
		return nil
	}
	n := int(v.Value)
	return &n
}

func optInt64ToPB(v *int64) *pb.OptionalInt {
	if v == nil {
		return nil
	}
	return &pb.OptionalInt{Value: *v}
}

func optInt64FromPB(v *pb.OptionalInt) *int64 {
	if v == nil {
		return nil
	}
	n := v.Value
	return &n
}

// anyToJSON encodes free-form values; nil stays nil so that "absent" and
// "empty" remain distinct.
func anyToJSON(v map[string]any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

func anyFromJSON(b []byte) (map[string]any, error) {
	if b == nil {
		return nil, nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytesReader(b))
	dec.UseNumber() // keep 3 and 3.0 apart as the source had them
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decoding free-form value: %w", err)
	}
	return normaliseNumbers(m).(map[string]any), nil
}

// JobToPB converts a job to its wire form.
func JobToPB(j *jobs.Job) (*pb.Job, error) {
	if j == nil {
		return nil, nil
	}
	params, err := anyToJSON(j.Parameters)
	if err != nil {
		return nil, err
	}
	secrets, err := anyToJSON(j.Secrets)
	if err != nil {
		return nil, err
	}
	extras, err := extrasToPB(&j.Extras)
	if err != nil {
		return nil, err
	}
	out := &pb.Job{
		Name:    j.Name,
		NamePos: posToPB(j.NamePos),
		Source: &pb.Source{Format: string(j.Source.Format), Version: j.Source.Version, Kind: j.Source.Kind,
			Path: j.Source.Path, Dialect: j.Source.Dialect},
		Completion: completionToPB(j.Completion),
		Retry: &pb.Retry{JobRetryCount: int32(j.Retry.JobRetryCount), Fancy: j.Retry.Fancy,
			GangAllocation: j.Retry.GangAllocation, BackoffLimit: optIntToPB(j.Retry.BackoffLimit),
			ActiveDeadlineSeconds: optInt64ToPB(j.Retry.ActiveDeadlineSeconds), CleanPodPolicy: j.Retry.CleanPodPolicy,
			TtlSecondsAfterFinished: optIntToPB(j.Retry.TTLSecondsAfterFinish), Pos: posToPB(j.Retry.Pos)},
		ParametersJson: params,
		SecretsJson:    secrets,
		SecretNames:    j.SecretNames,
		Contracts:      j.Contracts,
		VirtualCluster: j.VirtualCluster,
		Priority:       optIntToPB(j.Priority),
		PriorityClass:  j.PriorityClass,
		DataDir:        j.DataDir,
		Lossy:          j.Lossy,
		OutputDir:      j.OutputDir,
		CodeDir:        j.CodeDir,
		Extras:         extras,
	}
	for _, r := range j.Roles {
		out.Roles = append(out.Roles, roleToPB(r))
	}
	return out, nil
}

func roleToPB(r *jobs.Role) *pb.Role {
	out := &pb.Role{
		Name: r.Name, Pos: posToPB(r.Pos), ReplicaType: r.ReplicaType,
		Instances: int32(r.Instances), InstancesPos: posToPB(r.InstancesPos),
		Image: r.Image, ImagePos: posToPB(r.ImagePos),
		Command:    commandToPB(r.Command),
		WorkingDir: r.WorkingDir, Env: envToPB(r.Env), Volumes: volumesToPB(r.Volumes),
		Resources: &pb.Resources{CpuMilli: r.Resources.CPUMilli, MemoryMib: r.Resources.MemoryMiB,
			ShmMib: r.Resources.ShmMiB, ShmSet: r.Resources.ShmSet, Gpu: int32(r.Resources.GPU),
			GpuType: r.Resources.GPUType, Extended: r.Resources.Extended, Pos: posToPB(r.Resources.Pos)},
		MinFailed: optIntToPB(r.MinFailed), MinSucceeded: optIntToPB(r.MinSucceeded),
		MinFailedPos: posToPB(r.MinFailedPos), MinSucceededPos: posToPB(r.MinSucceededPos),
		TaskRetryCount: int32(r.TaskRetryCount), RestartPolicy: r.RestartPolicy,
		NprocPerNode: int32(r.NprocPerNode), NprocPerNodeSpec: r.NprocPerNodeSpec, Prerequisites: r.Prerequisites,
		BackoffLimit: optIntToPB(r.BackoffLimit), DependsOn: dependsToPB(r.DependsOn), Files: filesToPB(r.Files),
		Init: initToPB(r.Init),
	}
	if a := r.ImageAuth; a != nil {
		out.ImageAuth = &pb.ImageAuth{Registry: a.Registry, Username: a.Username, Password: a.Password, AuthFile: a.AuthFile}
	}
	for _, p := range r.Ports {
		out.Ports = append(out.Ports, &pb.Port{Label: p.Label, Count: int32(p.Count), BeginAt: int32(p.BeginAt),
			Implicit: p.Implicit, Number: int32(p.Number), Pos: posToPB(p.Pos)})
	}
	return out
}

// JobFromPB converts the wire form back to a job.
func JobFromPB(in *pb.Job) (*jobs.Job, error) {
	if in == nil {
		return nil, nil
	}
	params, err := anyFromJSON(in.ParametersJson)
	if err != nil {
		return nil, err
	}
	secrets, err := anyFromJSON(in.SecretsJson)
	if err != nil {
		// the decoder's message quotes the bytes it stopped at
		return nil, fmt.Errorf("decoding the job's secrets: not a JSON object")
	}
	j := &jobs.Job{
		Name: in.Name, NamePos: posFromPB(in.NamePos),
		Parameters: params, Secrets: secrets, SecretNames: in.SecretNames, Contracts: in.Contracts,
		VirtualCluster: in.VirtualCluster, Priority: optIntFromPB(in.Priority), PriorityClass: in.PriorityClass,
		DataDir: in.DataDir, OutputDir: in.OutputDir, CodeDir: in.CodeDir, Lossy: in.Lossy,
	}
	if s := in.Source; s != nil {
		j.Source = jobs.Source{Format: jobs.Format(s.Format), Version: s.Version, Kind: s.Kind, Path: s.Path, Dialect: s.Dialect}
	}
	j.Completion = completionFromPB(in.Completion)
	if r := in.Retry; r != nil {
		j.Retry = jobs.Retry{JobRetryCount: int(r.JobRetryCount), Fancy: r.Fancy, GangAllocation: r.GangAllocation,
			BackoffLimit: optIntFromPB(r.BackoffLimit), ActiveDeadlineSeconds: optInt64FromPB(r.ActiveDeadlineSeconds),
			CleanPodPolicy: r.CleanPodPolicy, TTLSecondsAfterFinish: optIntFromPB(r.TtlSecondsAfterFinished),
			Pos: posFromPB(r.Pos)}
	}
	if j.Extras, err = extrasFromPB(in.Extras); err != nil {
		return nil, err
	}
	for _, r := range in.Roles {
		j.Roles = append(j.Roles, roleFromPB(r))
	}
	return j, nil
}

func roleFromPB(in *pb.Role) *jobs.Role {
	r := &jobs.Role{
		Name: in.Name, Pos: posFromPB(in.Pos), ReplicaType: in.ReplicaType,
		Instances: int(in.Instances), InstancesPos: posFromPB(in.InstancesPos),
		Image: in.Image, ImagePos: posFromPB(in.ImagePos), WorkingDir: in.WorkingDir,
		MinFailed: optIntFromPB(in.MinFailed), MinSucceeded: optIntFromPB(in.MinSucceeded),
		MinFailedPos: posFromPB(in.MinFailedPos), MinSucceededPos: posFromPB(in.MinSucceededPos),
		TaskRetryCount: int(in.TaskRetryCount), RestartPolicy: in.RestartPolicy,
		NprocPerNode: int(in.NprocPerNode), NprocPerNodeSpec: in.NprocPerNodeSpec, Prerequisites: in.Prerequisites,
		Command: commandFromPB(in.Command), Env: envFromPB(in.Env), Volumes: volumesFromPB(in.Volumes),
		BackoffLimit: optIntFromPB(in.BackoffLimit), DependsOn: dependsFromPB(in.DependsOn), Files: filesFromPB(in.Files),
		Init: initFromPB(in.Init),
	}
	if a := in.ImageAuth; a != nil {
		r.ImageAuth = &jobs.ImageAuth{Registry: a.Registry, Username: a.Username, Password: a.Password, AuthFile: a.AuthFile}
	}
	if res := in.Resources; res != nil {
		r.Resources = jobs.Resources{CPUMilli: res.CpuMilli, MemoryMiB: res.MemoryMib, ShmMiB: res.ShmMib,
			ShmSet: res.ShmSet, GPU: int(res.Gpu), GPUType: res.GpuType, Extended: res.Extended, Pos: posFromPB(res.Pos)}
	}
	for _, p := range in.Ports {
		r.Ports = append(r.Ports, jobs.Port{Label: p.Label, Count: int(p.Count), BeginAt: int(p.BeginAt),
			Implicit: p.Implicit, Number: int(p.Number), Pos: posFromPB(p.Pos)})
	}
	return r
}
