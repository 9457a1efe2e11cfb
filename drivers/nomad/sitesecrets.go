package nomad

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
)

// SiteSecrets are the Secrets a site keeps as Nomad Variables below prefix
// (siteconfig.SecretsConfig.NomadVariable, ${user} substituted): each
// Variable directly below it is the Secret named by its last path element,
// its items the Secret's keys and values (stringData), as Kubernetes
// objects for the readers (jobs.ReadOptions.Secrets). They are read with
// the caller's client (NOMAD_ADDR, NOMAD_TOKEN, NOMAD_NAMESPACE, else the
// site's nomad block), so Nomad's ACLs decide whose Secrets a user reads.
// A Variable further down (prefix/a/b) is no Secret and is skipped. An
// error never quotes a value.
func SiteSecrets(c drivers.Config, prefix string) ([]any, error) {
	d, _ := New(c, false)
	client, err := d.Client()
	if err != nil {
		return nil, err
	}
	metas, _, err := client.Variables().PrefixList(prefix+"/", nil)
	if err != nil {
		return nil, fmt.Errorf("listing the Nomad Variables below %s: %w", prefix, err)
	}
	sort.Slice(metas, func(i, j int) bool { return metas[i].Path < metas[j].Path })
	var out []any
	for _, m := range metas {
		name := strings.TrimPrefix(m.Path, prefix+"/")
		if name == "" || strings.Contains(name, "/") {
			continue
		}
		v, _, err := client.Variables().Read(m.Path, &api.QueryOptions{Namespace: m.Namespace})
		if err != nil {
			return nil, fmt.Errorf("reading the Nomad Variable %s: %w", m.Path, err)
		}
		data := map[string]any{}
		for k, val := range v.Items {
			if msg := jobs.ObjectKeyError(k); msg != "" {
				return nil, fmt.Errorf("the Nomad Variable %s holds the item %q, which %s (it is the key of the Secret %s)", m.Path, k, msg, name)
			}
			data[k] = val
		}
		out = append(out, map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": name}, "stringData": data})
	}
	return out, nil
}
