package nomad

import (
	"encoding/base64"
	"fmt"
	"strconv"
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

// secretInitItem is the Variable item holding variable i of role's init
// step j.
func secretInitItem(role string, j, i int) string {
	return fmt.Sprintf("jobshift_initenv.%s.%d.%d", role, j, i)
}

// secretEnvItems adds every role's secret variables, its init steps'
// too, to items.
func secretEnvItems(p *translate.Plan, items map[string]string) {
	for _, r := range p.Job.Roles {
		for _, e := range r.Env {
			if e.Secret {
				items[secretEnvItem(r.Name, e.Name)] = e.Value
			}
		}
		for j, st := range r.Init {
			for i, e := range st.Env {
				if e.Secret {
					items[secretInitItem(r.Name, j, i)] = e.Value
				}
			}
		}
	}
}

// An init step's secret variables reach the init task the same way, into
// secrets/jobshift-init-secret.env (env = true): a container's one step
// by their own names; a host driver's steps as JOBSHIFT_INIT_SECRET_J_I,
// which the init script (initScript) gives step J under the variable's
// name and takes from every other step, so a step sees only its own.

// SecretInitEnvFile is the template an init task's secret variables are
// read from.
const SecretInitEnvFile = "secrets/jobshift-init-secret.env"

// secretInitVar is the init task's variable carrying variable i of step j
// on a host driver.
func secretInitVar(j, i int) string { return fmt.Sprintf("JOBSHIFT_INIT_SECRET_%d_%d", j, i) }

// secretInitTemplate gives role's init steps their secret variables (none
// when they have none); byName: the variables' own names (a container's
// one step).
func (r *renderer) secretInitTemplate(role *jobs.Role, byName bool) []*api.Template {
	var b strings.Builder
	for j, st := range role.Init {
		for i, e := range st.Env {
			if !e.Secret {
				continue
			}
			name := secretInitVar(j, i)
			if byName {
				name = e.Name
			}
			fmt.Fprintf(&b, "%s={{ with nomadVar %s }}{{ index . %s | toJSON }}{{ end }}\n", name,
				quoteTemplateString(VariablePath(r.jobID)), quoteTemplateString(secretInitItem(role.Name, j, i)))
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return []*api.Template{{EmbeddedTmpl: new(b.String()), DestPath: new(SecretInitEnvFile),
		ChangeMode: new("noop"), Once: new(true), Envvars: new(true), Perms: new("0600")}}
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

// A Secret volume's files (jobs.File.Secret) travel the same way: each is
// an item of the job's Variable, base64 so that any byte survives the
// Variable's JSON, rendered by a template into the task's secrets/
// directory and bound (task view) or mounted (docker, podman) read-only
// at the job's path. Nomad makes secrets/ mode 0777 (client/allocdir,
// v1.11.3), so the file keeps only the owner's bits of the job's mode
// (secretFileMode): Kubernetes' default 0644 becomes 0600.

// secretFileItem is the Variable item holding role's file i.
func secretFileItem(role string, i int) string { return fmt.Sprintf("jobshift_file.%s.%d", role, i) }

// secretFileItems adds every role's Secret files to items.
func secretFileItems(p *translate.Plan, items map[string]string) {
	for _, r := range p.Job.Roles {
		for i, f := range r.Files {
			if f.Secret {
				items[secretFileItem(r.Name, i)] = base64.StdEncoding.EncodeToString([]byte(f.Content))
			}
		}
	}
}

// secretFileTemplate is the template text of role's Secret file i.
func (r *renderer) secretFileTemplate(role *jobs.Role, i int) string {
	return fmt.Sprintf("{{ with nomadVar %s }}{{ base64Decode (index . %s).Value }}{{ end }}",
		quoteTemplateString(VariablePath(r.jobID)), quoteTemplateString(secretFileItem(role.Name, i)))
}

// secretFileMode is a Secret file's perms: the owner's bits of its mode,
// at least readable by the owner.
func secretFileMode(m uint32) string {
	if m == 0 {
		m = 0o644
	}
	return "0" + strconv.FormatUint(uint64(m&0o700|0o400), 8)
}
