// Package shvars checks that a wrapper shell script, run before a task's
// command, hands the command every variable of the job's environment
// unchanged: an imported variable is exported, so a wrapper assigning a
// name the job also set would change what the command gets. Tests only.
package shvars

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

var (
	assignRE = regexp.MustCompile(`(?:^|[\s;&|({!"'])([A-Za-z_][A-Za-z0-9_]*)=`)
	readRE   = regexp.MustCompile(`\bread\s+(?:-r\s+)?((?:[A-Za-z_][A-Za-z0-9_]*[ \t]*)+)`)
	forRE    = regexp.MustCompile(`\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b`)
)

// Assigned lists every name script's text assigns (NAME=, read NAMES,
// for NAME in), read from the text itself, not from the code under test.
func Assigned(script string) []string {
	seen := map[string]bool{}
	for _, m := range assignRE.FindAllStringSubmatch(script, -1) {
		seen[m[1]] = true
	}
	for _, m := range readRE.FindAllStringSubmatch(script, -1) {
		for _, n := range strings.Fields(m[1]) {
			seen[n] = true
		}
	}
	for _, m := range forRE.FindAllStringSubmatch(script, -1) {
		seen[m[1]] = true
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Sentinels are the variables a test sets for script: every name it
// assigns, and, for a name under a reserved prefix (reserved matches it
// at the start), the same name without it (what an unprefixed script
// would have used: a job's own variable). A name for which skip says true
// is left out (the script's documented outputs and inputs, the shell's
// own), and so is a reserved one.
func Sentinels(script string, reserved *regexp.Regexp, skip func(string) bool) map[string]string {
	out := map[string]string{}
	for _, n := range Assigned(script) {
		for _, c := range []string{n, reserved.ReplaceAllString(n, "")} {
			if c == "" || skip(c) || reserved.MatchString(c) {
				continue
			}
			out[c] = "jobshift-sentinel-" + c
		}
	}
	return out
}

// Env is sentinels as NAME=VALUE entries.
func Env(sentinels map[string]string) []string {
	var out []string
	for k, v := range sentinels {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Shell is true for the names the shell itself owns or resets.
func Shell(name string) bool {
	switch name {
	case "_", "IFS", "PATH", "PWD", "OLDPWD", "PS1", "PS2", "PS4", "OPTIND", "OPTARG", "HOME", "SHELL":
		return true
	}
	return false
}

// Check fails t for every sentinel that env (the command's `env` output)
// does not hold with its value.
func Check(t *testing.T, env string, sentinels map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, l := range strings.Split(env, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	var bad []string
	for k, v := range sentinels {
		if g, ok := got[k]; !ok || g != v {
			bad = append(bad, k+"="+g)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("the command got %d of the job's %d variables changed by the wrapper: %s", len(bad), len(sentinels), strings.Join(bad, " "))
	}
	if len(sentinels) == 0 {
		t.Error("no variable checked")
	}
}
