package translate

import "github.com/jobshift/jobshift/jobs"

// LookupSecret is jobs.LookupSecret: every target fills PAI v2 secret
// references with it, and the PAI reader checks them with it, so a
// reference means the same everywhere.
func LookupSecret(root map[string]any, path string) (string, bool) {
	return jobs.LookupSecret(root, path)
}
