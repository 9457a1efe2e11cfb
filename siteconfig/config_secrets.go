package siteconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
)

// SecretsConfig is the `secrets {}` block: where the site keeps the
// Kubernetes Secrets and ConfigMaps its jobs name, as a cluster keeps
// them created beforehand (kubectl apply), per user if the path says so:
//
//	secrets { dir = "/etc/jobshift/secrets/${user}" }
//
// A command given no -secrets file reads every *.yaml, *.yml and *.json
// file of Dir (sorted by name) as one; each holds Secret or ConfigMap
// documents (or a v1 List of them).
type SecretsConfig struct {
	// Dir is the directory, "${user}" not yet substituted.
	Dir   string
	Range hcl.Range
}

func decodeSecrets(b *hcl.Block) (*SecretsConfig, hcl.Diagnostics) {
	s := &SecretsConfig{Range: b.DefRange}
	d := newDecoder(b, attrs("dir"))
	a := d.attrs["dir"]
	if a == nil {
		d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing secrets dir",
			Detail: "A secrets block names the directory of the site's Secrets and ConfigMaps: dir = \"/etc/jobshift/secrets/${user}\".", Subject: b.DefRange.Ptr()})
		return s, d.diags
	}
	if ds := gohcl.DecodeExpression(a.Expr, userVar, &s.Dir); ds.HasErrors() {
		d.diags = append(d.diags, ds...)
	} else if err := checkVolumePath(s.Dir); err != nil {
		d.errAt(a, "Invalid secrets dir", "%v", err)
	}
	return s, d.diags
}

// Files are the files of s's directory for user, sorted by name; a
// missing directory holds none. A user name that would leave the
// directory's tree is refused.
func (s *SecretsConfig) Files(user string) ([]string, error) {
	dir := s.Dir
	if strings.Contains(dir, "${user}") {
		if user == "" || user == "." || user == ".." || strings.ContainsAny(user, "/\n\r\t\x00") {
			return nil, fmt.Errorf("secrets dir %s: the user name %q cannot stand for ${user}", s.Dir, user)
		}
		dir = strings.ReplaceAll(dir, "${user}", user)
	}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
