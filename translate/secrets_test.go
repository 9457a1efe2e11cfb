package translate

import "testing"

func TestLookupSecret(t *testing.T) {
	root := map[string]any{"hosts": []any{"a", "b"}, "db": map[string]any{"user": "u", "port": 5432.0}, "nil": nil}
	cases := map[string]struct {
		path, want string
		ok         bool
	}{
		"leaf":                   {".db.user", "u", true},
		"list by brackets":       {".hosts[1]", "b", true},
		"list as the reader has": {".hosts.1", "b", true},
		"number":                 {".db.port", "5432", true},
		"object as JSON":         {".db", `{"port":5432,"user":"u"}`, true},
		"list as JSON":           {".hosts", `["a","b"]`, true},
		"out of range":           {".hosts[2]", "", false},
		"missing":                {".db.password", "", false},
		"null":                   {".nil", "", false},
		"through a leaf":         {".db.user.x", "", false},
	}
	for name, c := range cases {
		got, ok := LookupSecret(root, c.path)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: LookupSecret(%q) = %q, %v; want %q, %v", name, c.path, got, ok, c.want, c.ok)
		}
	}
}
