package nomad

import (
	"fmt"
	"regexp"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
)

// variableElem is a Variable path element (Nomad's variable path grammar,
// nomad/structs/variables.go validVariablePath, v1.11.3).
var variableElem = regexp.MustCompile(`^[a-zA-Z0-9_~-]+$`)

// SiteSecret is the Secret name a site keeps as the Nomad Variable
// prefix/name (siteconfig.SecretsConfig.NomadVariable, ${user}
// substituted): its items are the Secret's keys and values (stringData),
// as a Kubernetes object for the readers (jobs.ReadOptions.SecretSource);
// nil when there is no such Variable (or the name cannot be a path
// element: a Secret name may hold a '.'). It is read with the caller's
// client (NOMAD_ADDR, NOMAD_TOKEN, NOMAD_NAMESPACE, else the site's nomad
// block), so Nomad's ACLs decide whose Secrets a user reads. An error names
// the Variable and the address asked, never a value.
func SiteSecret(c drivers.Config, prefix, name string) (map[string]any, error) {
	if !variableElem.MatchString(name) {
		return nil, nil
	}
	path := prefix + "/" + name
	d, _ := New(c, false)
	client, err := d.Client()
	if err != nil {
		return nil, fmt.Errorf("no Nomad client for the Variable %s: %w", path, err)
	}
	v, _, err := client.Variables().Peek(path, nil)
	if err != nil {
		return nil, fmt.Errorf("Nomad at %s did not give the Variable %s: %w", client.Address(), path, err)
	}
	if v == nil {
		return nil, nil
	}
	data := map[string]any{}
	for k, val := range v.Items {
		if msg := jobs.ObjectKeyError(k); msg != "" {
			return nil, fmt.Errorf("the Nomad Variable %s holds the item %q, which %s (it is the key of the Secret %s)", path, k, msg, name)
		}
		data[k] = val
	}
	return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name}, "stringData": data}, nil
}
