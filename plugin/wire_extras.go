package plugin

import (
	"encoding/json"
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	pb "github.com/jobshift/jobshift/plugin/proto"
)

// extrasToPB converts the platform extras. The operator-derived settings
// (MPIJob, MXJob, TrainJob, Volcano) are plain structs of strings, numbers,
// lists and positions with no secret in them: they travel as the JSON of
// their json tags, which keeps float64 and nil-versus-set pointers exact.
func extrasToPB(x *jobs.Extras) (*pb.Extras, error) {
	out := &pb.Extras{HivedSku: x.HivedSKU}
	var err error
	if out.ElasticPolicyJson, err = anyToJSON(x.ElasticPolicy); err != nil {
		return nil, err
	}
	if out.MpiJson, err = structToJSON(x.MPI); err != nil {
		return nil, err
	}
	if out.MxnetJson, err = structToJSON(x.MXNet); err != nil {
		return nil, err
	}
	if out.TrainerJson, err = structToJSON(x.Trainer); err != nil {
		return nil, err
	}
	if out.VolcanoJson, err = structToJSON(x.Volcano); err != nil {
		return nil, err
	}
	for _, rp := range x.RuntimePlugins {
		params, err := anyToJSON(rp.Parameters)
		if err != nil {
			return nil, err
		}
		out.RuntimePlugins = append(out.RuntimePlugins, &pb.RuntimePlugin{Plugin: rp.Plugin,
			ParametersJson: params, FailurePolicy: rp.FailurePolicy, TaskRoles: rp.TaskRoles, Pos: posToPB(rp.Pos)})
	}
	return out, nil
}

func extrasFromPB(in *pb.Extras) (jobs.Extras, error) {
	var x jobs.Extras
	if in == nil {
		return x, nil
	}
	x.HivedSKU = in.HivedSku
	var err error
	if x.ElasticPolicy, err = anyFromJSON(in.ElasticPolicyJson); err != nil {
		return x, err
	}
	if x.MPI, err = structFromJSON[jobs.MPI](in.MpiJson, "mpi"); err != nil {
		return x, err
	}
	if x.MXNet, err = structFromJSON[jobs.MXNet](in.MxnetJson, "mxnet"); err != nil {
		return x, err
	}
	if x.Trainer, err = structFromJSON[jobs.Trainer](in.TrainerJson, "trainer"); err != nil {
		return x, err
	}
	if x.Volcano, err = structFromJSON[jobs.Volcano](in.VolcanoJson, "volcano"); err != nil {
		return x, err
	}
	for _, rp := range in.RuntimePlugins {
		params, err := anyFromJSON(rp.ParametersJson)
		if err != nil {
			return x, err
		}
		x.RuntimePlugins = append(x.RuntimePlugins, jobs.RuntimePlugin{Plugin: rp.Plugin,
			Parameters: params, FailurePolicy: rp.FailurePolicy, TaskRoles: rp.TaskRoles, Pos: posFromPB(rp.Pos)})
	}
	return x, nil
}

// structToJSON encodes one of the extras structs; nil travels as no bytes.
func structToJSON[T any](v *T) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

func structFromJSON[T any](b []byte, what string) (*T, error) {
	if len(b) == 0 {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("%s extras: %w", what, err)
	}
	return v, nil
}
