package nomad

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
)

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"http://127.0.0.1:4646":     true,
		"https://127.0.0.2:4646":    true,
		"http://localhost:4646":     true,
		"http://[::1]:4646":         true,
		"http://10.0.0.5:4646":      false,
		"https://nomad.example:443": false,
		"unix:///run/nomad.sock":    false,
		"127.0.0.1:4646":            false, // no scheme: url.Parse reads "127.0.0.1" as the scheme
		"::":                        false,
	} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestClientAsksLoopbackUncompressed: the driver's client sends no
// Accept-Encoding to an agent on this host (so the agent does not gzip),
// and keeps nomad/api's own client, gzip included, for a remote one.
func TestClientAsksLoopbackUncompressed(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Accept-Encoding")
		w.Header().Set("X-Nomad-Index", "1")
		w.Write([]byte("[]"))
	}))
	defer srv.Close()
	t.Setenv("NOMAD_ADDR", srv.URL)
	d, err := New(drivers.Config{}, false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Jobs().List(nil); err != nil {
		t.Fatal(err)
	}
	if enc := <-got; enc != "" {
		t.Errorf("request to %s carried Accept-Encoding %q, want none", srv.URL, enc)
	}

	remote := api.DefaultConfig()
	remote.Address = "https://nomad.example:4646"
	if err := plainOnLoopback(remote); err != nil || remote.HttpClient != nil {
		t.Errorf("a remote agent's config was given a client (%v): it must keep nomad/api's gzip", err)
	}
}
