package nomad

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

var (
	// Nomad job IDs may hold almost anything, but the ID is also a Variables
	// path segment (nomad/jobs/<id>, [a-zA-Z0-9-_~/] only), so keep to that.
	unsafeID = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)
	// Nomad's namespace name rule (structs.validNamespaceName).
	unsafeNamespace = regexp.MustCompile(`[^a-zA-Z0-9-]+`)
	// Group names become NOMAD_GROUP_NAME and appear in CLI output.
	unsafeGroup = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)
	// Nomad's service name rule (structs/services.go): RFC 1123 label.
	unsafeService = regexp.MustCompile(`[^a-z0-9-]+`)
	// The runtime interpolation pattern of the Nomad client
	// (helper/args/args.go): `${name}` with these characters is replaced by
	// the task's environment when name is set, in driver config and env.
	interpolation = regexp.MustCompile(`\${[a-zA-Z0-9_\-\.]+}`)
)

// interpolated reports whether the Nomad client could rewrite s at run time,
// or refuse it: the client also parses driver config as an HCL template,
// where any other `${` (a shell's `${VAR:-default}`, `${#list[@]}`) fails
// the task with "failed to parse config" before it starts.
func interpolated(s string) bool { return interpolation.MatchString(s) || strings.Contains(s, "${") }

// JobID is the Nomad job ID for a job called name: unsafe runs become "-",
// at most 100 characters (a hash keeps long names distinct).
func JobID(name string) string {
	id := strings.Trim(unsafeID.ReplaceAllString(name, "-"), "-")
	if id == "" {
		id = "job"
	}
	return shorten(id, 100)
}

// UserJobID is the job ID of a user's job, named the way OpenPAI named
// frameworks, <user>~<job>, each part made Nomad-safe: two users' jobs of
// one name never share an ID on a shared cluster ("~" is allowed in
// Variables paths). No user (a plan built by hand) leaves the job's name.
func UserJobID(user, name string) string {
	if user == "" {
		return JobID(name)
	}
	return shorten(JobID(user)+"~"+JobID(name), 100)
}

// NamespaceFor is a user's Nomad namespace when the site gives each user
// their own: Nomad's namespace rule is [a-zA-Z0-9-]{1,128}.
func NamespaceFor(user string) string {
	ns := strings.Trim(unsafeNamespace.ReplaceAllString(user, "-"), "-")
	if ns == "" {
		ns = "user"
	}
	return strings.Trim(shorten(ns, 128), "-")
}

func namespaceFor(s settings, user string) string {
	if s.NamespacePerUser && user != "" {
		return NamespaceFor(user)
	}
	return s.Namespace
}

// groupName is the task group of a role.
func groupName(role string) string {
	g := strings.Trim(unsafeGroup.ReplaceAllString(role, "-"), "-")
	if g == "" {
		g = "role"
	}
	return g
}

// ServiceName is a valid Nomad service name (≤ 63 characters, lower case,
// [a-z0-9-], starting and ending alphanumeric) derived from parts.
func ServiceName(parts ...string) string {
	s := strings.ToLower(strings.Join(parts, "-"))
	s = strings.Trim(unsafeService.ReplaceAllString(s, "-"), "-")
	if s == "" {
		s = "svc"
	}
	return strings.Trim(shorten(s, 63), "-")
}

// shorten cuts s to max characters, replacing the tail with a hash of the
// whole so that distinct long names stay distinct.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	h := hex.EncodeToString(sum[:])[:8]
	return strings.TrimRight(s[:max-9], "-") + "-" + h
}
