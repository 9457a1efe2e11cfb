package pai

import "sort"

// KnownFields lists the field names each part of an OpenPAI job may hold,
// from the tables the readers check unknown fields against ("v1", "v1
// taskRoles[]", "v2", "v2 taskRoles.<name>"). internal/matrix uses them to
// show which fields its conversion matrix does not probe.
func KnownFields() map[string][]string {
	keys := func(m map[string]bool) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	return map[string][]string{
		"v1": keys(v1TopKeys), "v1 taskRoles[]": keys(v1RoleKeys), "v1 portList[]": keys(v1PortKeys),
		"v2": keys(v2TopKeys), "v2 taskRoles.<name>": keys(v2RoleKeys),
	}
}
