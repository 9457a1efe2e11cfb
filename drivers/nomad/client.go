package nomad

import (
	"fmt"
	"os"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
)

// Client returns the API client: api.DefaultConfig reads NOMAD_ADDR,
// NOMAD_TOKEN, NOMAD_REGION, NOMAD_NAMESPACE, NOMAD_CACERT, ... as the nomad
// CLI does; the site config's address, region and namespace apply only
// where the environment says nothing (the environment is the more specific
// choice, made for this shell).
func (d *Driver) Client() (*api.Client, error) {
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
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("nomad client for %s: %v: %w", cfg.Address, err, drivers.ErrUnavailable)
	}
	d.client = c
	return c, nil
}
