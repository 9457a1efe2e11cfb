package jobs

import "encoding/json"

// MarshalJSON writes a secret variable without its value (explain -json,
// the IR goldens): only its name and where it came from.
func (e EnvVar) MarshalJSON() ([]byte, error) {
	type plain EnvVar
	if e.Secret {
		e.Value = ""
	}
	return json.Marshal(plain(e))
}

// SecretEnv reports whether r or one of its init steps has a variable whose
// value is secret: drivers that cannot deliver such values out of their
// artifacts refuse the role.
func (r *Role) SecretEnv() (EnvVar, bool) {
	for _, e := range r.Env {
		if e.Secret {
			return e, true
		}
	}
	for _, st := range r.Init {
		for _, e := range st.Env {
			if e.Secret {
				return e, true
			}
		}
	}
	return EnvVar{}, false
}
