package siteconfig

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/ryanuber/go-glob"
)

// Rule lookup. Precedence is the same for the three rule kinds and is
// documented on Config: the first rule in file order whose pattern matches
// wins, as a whole. First-match was chosen over "most specific wins"
// because an operator can predict it by reading the file top to bottom, and
// "specific" is ambiguous for globs like "a*z" vs "*/x".

// Image returns the first image rule matching image, or nil.
func (c *Config) Image(image string) *ImageRule {
	if c == nil {
		return nil
	}
	for i := range c.Images {
		if glob.Glob(c.Images[i].Pattern, image) {
			return &c.Images[i]
		}
	}
	return nil
}

// Role returns the first role rule matching the role name, or nil.
func (c *Config) Role(role string) *RoleRule {
	if c == nil {
		return nil
	}
	for i := range c.Roles {
		if glob.Glob(c.Roles[i].Pattern, role) {
			return &c.Roles[i]
		}
	}
	return nil
}

// GPUType returns the first gpu_type rule matching the source GPU type or
// SKU, or nil.
func (c *Config) GPUType(gpuType string) *GPUTypeRule {
	if c == nil {
		return nil
	}
	for i := range c.GPUTypes {
		if glob.Glob(c.GPUTypes[i].Pattern, gpuType) {
			return &c.GPUTypes[i]
		}
	}
	return nil
}

// PluginAllowed reports whether a plugin binary with this base name may be
// loaded. With no plugins.allowed patterns every plugin on the search path
// may (the issue: patterns apply "where the site config lists allowed
// ones"); with some, the name must match one.
func (c *Config) PluginAllowed(name string) bool {
	if c == nil || c.Plugins == nil || len(c.Plugins.Allowed) == 0 {
		return true
	}
	for _, p := range c.Plugins.Allowed {
		if glob.Glob(p, name) {
			return true
		}
	}
	return false
}

// Rewrite returns the image to run instead of image: image itself when the
// rule keeps it, does not match it, or is one ParseConfig rejected.
func (r *ImageRule) Rewrite(image string) string {
	if r == nil || r.Replace == "" || !glob.Glob(r.Pattern, image) {
		return image
	}
	if !strings.Contains(r.Replace, "*") {
		return r.Replace
	}
	if strings.Count(r.Pattern, "*") != 1 || strings.Count(r.Replace, "*") != 1 {
		return image // an invalid rule (reported by ParseConfig) changes nothing
	}
	i := strings.Index(r.Pattern, "*")
	prefix, suffix := r.Pattern[:i], r.Pattern[i+1:]
	if len(image) < len(prefix)+len(suffix) {
		return image // a match cannot be this short; keep Rewrite total anyway
	}
	matched := image[len(prefix) : len(image)-len(suffix)]
	return strings.Replace(r.Replace, "*", matched, 1)
}

// shadowed warns about rules that can never win under first-match: an
// exact repeat of an earlier pattern, or anything after a catch-all "*".
func shadowed(c *Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	check := func(kind string, pats []string, ranges []hcl.Range) {
		seen := map[string]hcl.Range{}
		for i, p := range pats {
			var by hcl.Range
			var ok bool
			if by, ok = seen[p]; !ok {
				by, ok = seen["*"]
			}
			if ok {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning,
					Summary: fmt.Sprintf("%s rule never applies", kind),
					Detail: fmt.Sprintf("The %s rule at %s matches everything %q matches and comes first; "+
						"the first matching rule wins. Move this rule above it or delete it.", kind, at(by), pats[i]),
					Subject: ranges[i].Ptr()})
				continue
			}
			seen[p] = ranges[i]
		}
	}
	var pats []string
	var ranges []hcl.Range
	for _, r := range c.Images {
		pats, ranges = append(pats, r.Pattern), append(ranges, r.Range)
	}
	check("image", pats, ranges)
	pats, ranges = nil, nil
	for _, r := range c.Roles {
		pats, ranges = append(pats, r.Pattern), append(ranges, r.Range)
	}
	check("role", pats, ranges)
	pats, ranges = nil, nil
	for _, r := range c.GPUTypes {
		pats, ranges = append(pats, r.Pattern), append(ranges, r.Range)
	}
	check("gpu_type", pats, ranges)
	pats, ranges = nil, nil
	for _, r := range c.Volumes {
		pats, ranges = append(pats, r.Pattern), append(ranges, r.Range)
	}
	check("volume", pats, ranges)
	return diags
}
