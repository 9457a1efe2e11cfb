package plugin

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jobshift/jobshift/siteconfig"
)

// BinaryPrefix starts the name of every external driver executable:
// jobshift-driver-<name>.
const BinaryPrefix = "jobshift-driver-"

// Candidate is an external driver executable found on disk.
type Candidate struct {
	Name string // driver name (the part after the prefix)
	Path string
	// Shadowed lists later executables of the same name that lost to this
	// one (directories are searched in order; the first wins).
	Shadowed []string
	// Denied is set when the site config's allowed patterns exclude it.
	Denied bool
	// Unsafe says why it must not run ("" = it may): see unsafeReason.
	Unsafe string
}

// SearchDirs is the plugin search path, in order: the -plugin-dir flag,
// $JOBSHIFT_PLUGIN_PATH (a list like $PATH), ~/.config/jobshift/plugins,
// then the site config's plugins.dirs, a relative one taken from the
// config file's directory (not from wherever jobshift runs).
func SearchDirs(flagDir string, site *siteconfig.Config) []string {
	var dirs []string
	if flagDir != "" {
		dirs = append(dirs, filepath.SplitList(flagDir)...)
	}
	dirs = append(dirs, filepath.SplitList(os.Getenv("JOBSHIFT_PLUGIN_PATH"))...)
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".config", "jobshift", "plugins"))
	}
	if site != nil && site.Plugins != nil {
		for _, d := range site.Plugins.Dirs {
			if d != "" && !filepath.IsAbs(d) && site.Path != "" {
				d = filepath.Join(filepath.Dir(site.Path), d)
			}
			dirs = append(dirs, d)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// Allowed reports whether the site lets jobshift load the executable with
// this base name (see siteconfig.Config.PluginAllowed).
func Allowed(site *siteconfig.Config, base string) bool { return site.PluginAllowed(base) }

// Discover lists the external drivers in dirs, sorted by name. Missing
// directories are skipped: the default ones usually do not exist.
func Discover(dirs []string, site *siteconfig.Config) []Candidate {
	byName := map[string]*Candidate{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			base := e.Name()
			if !strings.HasPrefix(base, BinaryPrefix) || len(base) == len(BinaryPrefix) {
				continue
			}
			path := filepath.Join(dir, base)
			if !isExecutable(path) {
				continue
			}
			name := strings.TrimPrefix(base, BinaryPrefix)
			if c, dup := byName[name]; dup {
				c.Shadowed = append(c.Shadowed, path)
				continue
			}
			byName[name] = &Candidate{Name: name, Path: path, Denied: !Allowed(site, base), Unsafe: unsafeReason(path, site)}
		}
	}
	out := make([]Candidate, 0, len(byName))
	for _, c := range byName {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func isExecutable(path string) bool {
	st, err := os.Stat(path) // follows symlinks, as exec does
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
