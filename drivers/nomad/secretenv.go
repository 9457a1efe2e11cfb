package nomad

import (
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// Variables whose value comes from a Kubernetes Secret (jobs.EnvVar.Secret:
// secretKeyRef, envFrom secretRef) travel as PAI v2 secrets do (secrets.go):
// the value is an item of the job's Variable nomad/jobs/<job ID>, which
// `jobshift run` stores before submitting and convert hands over as
// `nomad var put` input; the task reads it with a template (its workload
// identity may read its job's Variable) into secrets/ (0600) with env =
// true, so the job specification, the HCL artifact and the task's env
// block hold only the item's name. Nomad's template block: "env - ...
// the template will be read back in as environment variables for the
// task" (website/content/docs/job-specification/template.mdx, v1.11.3).

// SecretEnvFile is the template a role's secret variables are read from.
const SecretEnvFile = "secrets/jobshift-secret.env"

// secretEnvItem is the Variable item holding role's secret variable name.
func secretEnvItem(role, name string) string { return "jobshift_env." + role + "." + name }

// secretEnvItems adds every role's secret variables to items.
func secretEnvItems(p *translate.Plan, items map[string]string) {
	for _, r := range p.Job.Roles {
		for _, e := range r.Env {
			if e.Secret {
				items[secretEnvItem(r.Name, e.Name)] = e.Value
			}
		}
	}
}

// secretEnvTemplate is the template giving role's secret variables to its
// main task, none when it has none. Each value is JSON-quoted on its line,
// as the env template's (envTemplate), so any byte survives go-envparse.
func (r *renderer) secretEnvTemplate(role *jobs.Role) []*api.Template {
	var b strings.Builder
	for _, e := range role.Env {
		if e.Secret {
			fmt.Fprintf(&b, "%s={{ with nomadVar %s }}{{ index . %s | toJSON }}{{ end }}\n", e.Name,
				quoteTemplateString(VariablePath(r.jobID)), quoteTemplateString(secretEnvItem(role.Name, e.Name)))
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return []*api.Template{{
		EmbeddedTmpl: new(b.String()),
		DestPath:     new(SecretEnvFile),
		ChangeMode:   new("noop"),
		Once:         new(true),
		Envvars:      new(true),
		Perms:        new("0600"),
	}}
}
