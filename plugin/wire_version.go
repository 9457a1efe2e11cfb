package plugin

import (
	"fmt"

	"github.com/jobshift/jobshift/drivers"
	pb "github.com/jobshift/jobshift/plugin/proto"
	"github.com/jobshift/jobshift/translate"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// sinceV2 are the wire fields protocol version 2 added, with what they
// carry. A version 1 plugin drops them unread: the job would run without
// its init containers or step order, under the wrong completion rule, or
// with a secret value written into its artifact because the mark that kept
// it out was lost. So a plan that sets any of them is not sent to it.
var sinceV2 = map[protoreflect.FullName]string{
	"jobshift.plugin.v1.Role.backoff_limit":              "a role's own backoffLimit",
	"jobshift.plugin.v1.Role.depends_on":                 "the step order (dependsOn)",
	"jobshift.plugin.v1.Role.files":                      "files at fixed paths (ConfigMap, Secret, platform files)",
	"jobshift.plugin.v1.Role.init":                       "init containers",
	"jobshift.plugin.v1.EnvVar.secret":                   "a variable from a Kubernetes Secret",
	"jobshift.plugin.v1.EnvVar.field_path":               "a variable from the pod's own fields (fieldRef)",
	"jobshift.plugin.v1.Job.lossy":                       "lossy conversion (-lossy)",
	"jobshift.plugin.v1.Volume.sub_path":                 "a volume's subPath",
	"jobshift.plugin.v1.Volume.used":                     "a volume the command uses",
	"jobshift.plugin.v1.Volume.size_mib":                 "an emptyDir's size limit",
	"jobshift.plugin.v1.Completion.decider":              "the replica type that decides success",
	"jobshift.plugin.v1.Completion.success_roles":        "a JobSet successPolicy",
	"jobshift.plugin.v1.Completion.success_any":          "a JobSet successPolicy",
	"jobshift.plugin.v1.Completion.gang_timeout_seconds": "a gang schedule timeout",
	"jobshift.plugin.v1.Extras.mxnet_json":               "MXJob settings",
	"jobshift.plugin.v1.Extras.trainer_json":             "a TrainJob's runtime and ML policy",
	"jobshift.plugin.v1.Extras.volcano_json":             "a Volcano Job's lifecycle and plugins",
}

// sinceV2Used returns what the first field of m (recursively) that only
// protocol version 2 carries holds, or "".
func sinceV2Used(m protoreflect.Message) string {
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if what, ok := sinceV2[fd.FullName()]; ok {
			found = what
			return false
		}
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			for i := 0; i < v.List().Len() && found == ""; i++ {
				found = sinceV2Used(v.List().Get(i).Message())
			}
		} else {
			found = sinceV2Used(v.Message())
		}
		return found == ""
	})
	return found
}

// planFor converts p for a plugin that negotiated protocol version proto,
// refusing what that version cannot carry.
func planFor(p *translate.Plan, proto int, plugin string) (*pb.Plan, error) {
	wp, err := PlanToPB(p)
	if err != nil || proto >= 2 {
		return wp, err
	}
	what := sinceV2Used(wp.ProtoReflect())
	if what == "" && p.Site != nil && len(p.Site.Volumes) > 0 {
		// site config JSON: an old plugin ignores the field it does not know
		what = "the site's volume rules"
	}
	if what == "" {
		return wp, nil
	}
	return nil, fmt.Errorf("plugin %s speaks driver protocol %d, which cannot carry %s: this job needs a plugin built for protocol %d or later (rebuild it against this jobshift): %w",
		plugin, proto, what, ProtocolVersion, drivers.ErrUnsupported)
}
