package plugin

import (
	"github.com/jobshift/jobshift/jobs"
	pb "github.com/jobshift/jobshift/plugin/proto"
)

// The parts of a role shared with its init steps, and the parts added in
// protocol version 2. Secret values (EnvVar.Secret, File.Secret) travel as
// they are, marked, like PAI secrets in Job.secrets_json: the receiving
// driver needs them to deliver them, and nothing here logs them.

func commandToPB(c jobs.Command) *pb.Command {
	return &pb.Command{Kind: string(c.Kind), Script: c.Script, Command: c.Command, Args: c.Args, Pos: posToPB(c.Pos),
		HasCommand: c.Command != nil, HasArgs: c.Args != nil}
}

func commandFromPB(c *pb.Command) jobs.Command {
	if c == nil {
		return jobs.Command{}
	}
	out := jobs.Command{Kind: jobs.CommandKind(c.Kind), Script: c.Script, Pos: posFromPB(c.Pos)}
	if c.HasCommand {
		out.Command = append([]string{}, c.Command...)
	}
	if c.HasArgs {
		out.Args = append([]string{}, c.Args...)
	}
	return out
}

func envToPB(env []jobs.EnvVar) []*pb.EnvVar {
	var out []*pb.EnvVar
	for _, e := range env {
		out = append(out, &pb.EnvVar{Name: e.Name, Value: e.Value, Pos: posToPB(e.Pos), Secret: e.Secret, FieldPath: e.FieldPath})
	}
	return out
}

func envFromPB(env []*pb.EnvVar) []jobs.EnvVar {
	var out []jobs.EnvVar
	for _, e := range env {
		out = append(out, jobs.EnvVar{Name: e.Name, Value: e.Value, Pos: posFromPB(e.Pos), Secret: e.Secret, FieldPath: e.FieldPath})
	}
	return out
}

func volumesToPB(vs []jobs.Volume) []*pb.Volume {
	var out []*pb.Volume
	for _, v := range vs {
		out = append(out, &pb.Volume{Name: v.Name, Kind: v.Kind, Source: v.Source,
			MountPath: v.MountPath, ReadOnly: v.ReadOnly, Pos: posToPB(v.Pos), SubPath: v.SubPath, Used: v.Used, SizeMib: v.SizeMiB})
	}
	return out
}

func volumesFromPB(vs []*pb.Volume) []jobs.Volume {
	var out []jobs.Volume
	for _, v := range vs {
		out = append(out, jobs.Volume{Name: v.Name, Kind: v.Kind, Source: v.Source,
			MountPath: v.MountPath, ReadOnly: v.ReadOnly, Pos: posFromPB(v.Pos), SubPath: v.SubPath, Used: v.Used, SizeMiB: v.SizeMib})
	}
	return out
}

func dependsToPB(ds []jobs.Dependency) []*pb.Dependency {
	var out []*pb.Dependency
	for _, d := range ds {
		out = append(out, &pb.Dependency{Role: d.Role, Status: string(d.Status), Pos: posToPB(d.Pos)})
	}
	return out
}

func dependsFromPB(ds []*pb.Dependency) []jobs.Dependency {
	var out []jobs.Dependency
	for _, d := range ds {
		out = append(out, jobs.Dependency{Role: d.Role, Status: jobs.DependencyStatus(d.Status), Pos: posFromPB(d.Pos)})
	}
	return out
}

func filesToPB(fs []jobs.File) []*pb.RoleFile {
	var out []*pb.RoleFile
	for _, f := range fs {
		out = append(out, &pb.RoleFile{Path: f.Path, Content: []byte(f.Content), Mode: f.Mode, Secret: f.Secret,
			Pos: posToPB(f.Pos)})
	}
	return out
}

func filesFromPB(fs []*pb.RoleFile) []jobs.File {
	var out []jobs.File
	for _, f := range fs {
		out = append(out, jobs.File{Path: f.Path, Content: string(f.Content), Mode: f.Mode, Secret: f.Secret,
			Pos: posFromPB(f.Pos)})
	}
	return out
}

func initToPB(steps []jobs.InitStep) []*pb.InitStep {
	var out []*pb.InitStep
	for _, s := range steps {
		out = append(out, &pb.InitStep{Name: s.Name, Image: s.Image, ImagePos: posToPB(s.ImagePos),
			Command: commandToPB(s.Command), WorkingDir: s.WorkingDir, Env: envToPB(s.Env),
			Volumes: volumesToPB(s.Volumes), Pos: posToPB(s.Pos)})
	}
	return out
}

func initFromPB(steps []*pb.InitStep) []jobs.InitStep {
	var out []jobs.InitStep
	for _, s := range steps {
		out = append(out, jobs.InitStep{Name: s.Name, Image: s.Image, ImagePos: posFromPB(s.ImagePos),
			Command: commandFromPB(s.Command), WorkingDir: s.WorkingDir, Env: envFromPB(s.Env),
			Volumes: volumesFromPB(s.Volumes), Pos: posFromPB(s.Pos)})
	}
	return out
}

func completionToPB(c jobs.Completion) *pb.Completion {
	return &pb.Completion{Kind: string(c.Kind), SuccessPolicy: c.SuccessPolicy, EnableDynamicWorker: c.EnableDynamicWorker,
		Pos: posToPB(c.Pos), Decider: c.Decider, SuccessRoles: c.SuccessRoles, SuccessAny: c.SuccessAny,
		GangTimeoutSeconds: int64(c.GangTimeoutSeconds)}
}

func completionFromPB(c *pb.Completion) jobs.Completion {
	if c == nil {
		return jobs.Completion{}
	}
	return jobs.Completion{Kind: jobs.CompletionKind(c.Kind), SuccessPolicy: c.SuccessPolicy,
		EnableDynamicWorker: c.EnableDynamicWorker, Pos: posFromPB(c.Pos), Decider: c.Decider,
		SuccessRoles: c.SuccessRoles, SuccessAny: c.SuccessAny, GangTimeoutSeconds: int(c.GangTimeoutSeconds)}
}
