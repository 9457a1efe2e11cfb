package nomad

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/translate"
)

// PAI v2 secrets stay out of the job: `<% $secrets.x %>` references, which
// OpenPAI's runtime rendered inside the container, are rendered by the
// task's template from the Nomad Variable nomad/jobs/<job ID>, which every
// task of the job may read with its workload identity and no extra policy.
// Submit writes the variable before the job; nomadVar blocks until it
// exists, so a task never starts with a hole where a secret should be.

var secretRef = regexp.MustCompile(`<%\s*\$secrets((?:\.[^\s.%\[\]]+|\[\d+\])+)\s*%>`)

// VariablePath is where a job's secrets are stored.
func VariablePath(jobID string) string { return "nomad/jobs/" + jobID }

// hasSecretRefs reports whether s refers to secrets.
func hasSecretRefs(s string) bool { return secretRef.MatchString(s) }

// secretKey turns `.a[0].b` into the flat item key "a.0.b".
func secretKey(path string) string {
	path = strings.NewReplacer("[", ".", "]", "").Replace(path)
	return strings.TrimPrefix(path, ".")
}

// secretTemplate renders content with its secret references taken from the
// job's variable; every other byte goes through base64Decode.
func secretTemplate(content, jobID string) string {
	var b strings.Builder
	lit := func(s string) {
		if s != "" {
			fmt.Fprintf(&b, `{{ base64Decode "%s" }}`, base64.StdEncoding.EncodeToString([]byte(s)))
		}
	}
	last := 0
	for _, m := range secretRef.FindAllStringSubmatchIndex(content, -1) {
		lit(content[last:m[0]])
		key := secretKey(content[m[2]:m[3]])
		fmt.Fprintf(&b, `{{ with nomadVar %s }}{{ index . %s }}{{ end }}`, quoteTemplateString(VariablePath(jobID)), quoteTemplateString(key))
		last = m[1]
	}
	lit(content[last:])
	return b.String()
}

// flattenSecrets gives every leaf of the secrets tree a dotted key.
func flattenSecrets(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			flattenSecrets(join(prefix, k), x, out)
		}
	case []any:
		for i, x := range t {
			flattenSecrets(join(prefix, fmt.Sprint(i)), x, out)
		}
	case nil:
	default:
		out[prefix] = fmt.Sprint(t)
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// putSecrets writes the job's secrets variable when its commands use any,
// or the ssh emulation needs the job key.
func (d *Driver) putSecrets(ctx context.Context, c *api.Client, job *api.Job, p *translate.Plan) error {
	items := map[string]string{}
	flattenSecrets("", map[string]any(p.Job.Secrets), items)
	secretEnvItems(p, items)
	secretFileItems(p, items)
	if err := sshItems(p, items); err != nil {
		return err
	}
	if len(items) == 0 {
		return nil
	}
	keys := make([]string, 0, len(items))
	for k := range items {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	v := &api.Variable{Path: VariablePath(*job.ID), Items: api.VariableItems(items)}
	if job.Namespace != nil {
		v.Namespace = *job.Namespace
	}
	if _, _, err := c.Variables().Create(v, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
		return fmt.Errorf("storing the job's secrets (%s) as Nomad Variable %s: %w", strings.Join(keys, ", "), v.Path, unavailable(err))
	}
	return nil
}

// VariableItems are the items of the job's Variable that `jobshift run`
// stores before submitting (putSecrets): its secrets, Secret variables and
// files, and the ssh
// emulation's job key (a new one). A converted job submitted by hand reads
// them too, so convert hands them to the user (nomad var put input).
func VariableItems(p *translate.Plan) (map[string]string, error) {
	items := map[string]string{}
	flattenSecrets("", map[string]any(p.Job.Secrets), items)
	secretEnvItems(p, items)
	secretFileItems(p, items)
	return items, sshItems(p, items)
}
