package nomad

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
)

// Client returns the API client: api.DefaultConfig reads NOMAD_ADDR,
// NOMAD_TOKEN, NOMAD_REGION, NOMAD_NAMESPACE, NOMAD_CACERT, ... as the nomad
// CLI does; the site config's address, region and namespace apply only
// where the environment says nothing (the environment is the more specific
// choice, made for this shell).
func (d *Driver) Client() (*api.Client, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.client != nil {
		return d.client, nil
	}
	cfg := api.DefaultConfig()
	if n := d.cfg.Site; n != nil && n.Nomad != nil {
		if os.Getenv("NOMAD_ADDR") == "" && n.Nomad.Address != "" {
			cfg.Address = n.Nomad.Address
		}
		if os.Getenv("NOMAD_REGION") == "" && n.Nomad.Region != "" {
			cfg.Region = n.Nomad.Region
		}
		if os.Getenv("NOMAD_NAMESPACE") == "" && n.Nomad.Namespace != "" {
			cfg.Namespace = n.Nomad.Namespace
		}
	}
	if err := plainOnLoopback(cfg); err != nil {
		return nil, fmt.Errorf("nomad client for %s: %v: %w", cfg.Address, err, drivers.ErrUnavailable)
	}
	return d.connect(cfg)
}

// connect makes cfg's client the driver's (d.mu held).
func (d *Driver) connect(cfg *api.Config) (*api.Client, error) {
	base := *cfg // api.NewClient changes a unix socket address in cfg
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("nomad client for %s: %v: %w", cfg.Address, err, drivers.ErrUnavailable)
	}
	d.base, d.client, d.clients = &base, c, map[string]*api.Client{}
	return c, nil
}

// clientIn is the API client of namespace ns ("" = the configured one).
// Each namespace has a client of its own, and no client's namespace ever
// changes: watchers of jobs in several namespaces share one driver (the
// controller), and a shared client whose namespace each of them set
// (api.Client.SetNamespace) sent one job's requests to another's
// namespace (TestWatchTwoNamespaces).
func (d *Driver) clientIn(ns string) (*api.Client, error) {
	c, err := d.Client()
	if err != nil || ns == "" {
		return c, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.clients[ns]; ok {
		return c, nil
	}
	if d.base == nil {
		// the in-task client (NewInTask): its task's namespace only
		return nil, fmt.Errorf("nomad client: no configuration to reach namespace %s", ns)
	}
	cfg := *d.base
	cfg.Namespace = ns
	if c, err = api.NewClient(&cfg); err != nil {
		return nil, fmt.Errorf("nomad client for %s: %v: %w", cfg.Address, err, drivers.ErrUnavailable)
	}
	d.clients[ns] = c
	return c, nil
}

// plainOnLoopback gives cfg, when it names an agent on this host over
// HTTP(S), the client api.NewClient would build (pooled, TLS as
// configured) minus compression. nomad/api asks for gzip on every request
// and the agent compresses every response for a client that accepts it:
// on a loopback link that costs both ends CPU for no bandwidth (the
// watcher's blocking queries return the job's allocations on every
// change: ≈ 20 ms of the agent's CPU per 16-task start, BENCHMARKS.md).
// A remote agent keeps gzip, which pays there; so does a unix socket
// address, which api.NewClient sets up itself.
func plainOnLoopback(cfg *api.Config) error {
	if cfg.HttpClient != nil || !loopback(cfg.Address) {
		return nil
	}
	hc := cleanhttp.DefaultPooledClient()
	tr := hc.Transport.(*http.Transport)
	// as nomad/api's own default client (defaultClient)
	tr.TLSHandshakeTimeout = 10 * time.Second
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	tr.ForceAttemptHTTP2 = false
	if err := api.ConfigureTLS(hc, cfg.TLSConfig); err != nil {
		return err
	}
	tr.DisableCompression = true
	hc.Transport = uncompressed{next: tr}
	cfg.HttpClient = hc
	return nil
}

// loopback: addr is an http(s) URL whose host is a loopback address or
// localhost.
func loopback(addr string) bool {
	u, err := url.Parse(addr)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// uncompressed is a transport that asks for responses uncompressed (its
// next must have DisableCompression, or Go's transport asks for gzip
// itself): nomad/api sets Accept-Encoding: gzip on every request.
type uncompressed struct{ next http.RoundTripper }

func (t uncompressed) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Accept-Encoding") != "" {
		req = req.Clone(req.Context())
		req.Header.Del("Accept-Encoding")
	}
	return t.next.RoundTrip(req)
}
