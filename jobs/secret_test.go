package jobs

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSecretEnvNotSerialised(t *testing.T) {
	r := &Role{Name: "w", Env: []EnvVar{{Name: "PLAIN", Value: "visible"}, {Name: "TOKEN", Value: "s3cr3t-value", Secret: true}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cr3t-value") || !strings.Contains(string(b), "visible") || !strings.Contains(string(b), `"secret":true`) {
		t.Fatalf("JSON = %s", b)
	}
	if e, ok := r.SecretEnv(); !ok || e.Name != "TOKEN" || r.Env[1].Value != "s3cr3t-value" {
		t.Fatalf("SecretEnv = %v %v; marshalling must not change the role", e, ok)
	}
}
