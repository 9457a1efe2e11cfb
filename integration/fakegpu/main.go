// Command fake-gpu is a Nomad device plugin that reports N fake "nvidia/gpu"
// devices. It exists so integration tests can exercise GPU placement,
// disjoint device assignment and "more GPUs than exist" on a machine without
// GPUs. Reserve only sets NVIDIA_VISIBLE_DEVICES, like the real
// nomad-device-nvidia plugin, so tasks see exactly what they would on a GPU
// node (minus the hardware).
//
// It lives in its own Go module because it must import Nomad's plugin
// packages (which pull in BUSL-licensed helper packages and a forked hcl);
// none of that may enter the jobshift module. Test tool only, never shipped.
package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	log "github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/plugins/base"
	"github.com/hashicorp/nomad/plugins/device"
	"github.com/hashicorp/nomad/plugins/shared/hclspec"
	"github.com/hashicorp/nomad/plugins/shared/structs"
)

const pluginName = "fake-gpu"

var configSpec = hclspec.NewObject(map[string]*hclspec.Spec{
	"count":      hclspec.NewDefault(hclspec.NewAttr("count", "number", false), hclspec.NewLiteral("4")),
	"model":      hclspec.NewDefault(hclspec.NewAttr("model", "string", false), hclspec.NewLiteral(`"FakeH100"`)),
	"memory_mib": hclspec.NewDefault(hclspec.NewAttr("memory_mib", "number", false), hclspec.NewLiteral("81920")),
})

type config struct {
	Count     int    `codec:"count"`
	Model     string `codec:"model"`
	MemoryMiB int64  `codec:"memory_mib"`
}

type fakeGPU struct {
	cfg config
}

func (f *fakeGPU) PluginInfo() (*base.PluginInfoResponse, error) {
	return &base.PluginInfoResponse{
		Type:              base.PluginTypeDevice,
		PluginApiVersions: []string{device.ApiVersion010},
		PluginVersion:     "v0.1.0",
		Name:              pluginName,
	}, nil
}

func (f *fakeGPU) ConfigSchema() (*hclspec.Spec, error) { return configSpec, nil }

func (f *fakeGPU) SetConfig(c *base.Config) error {
	var cfg config
	if len(c.PluginConfig) != 0 {
		if err := base.MsgPackDecode(c.PluginConfig, &cfg); err != nil {
			return err
		}
	}
	if cfg.Count < 0 {
		return fmt.Errorf("fake-gpu: count must be >= 0, got %d", cfg.Count)
	}
	f.cfg = cfg
	return nil
}

func (f *fakeGPU) ids() []string {
	ids := make([]string, f.cfg.Count)
	for i := range ids {
		ids[i] = fmt.Sprintf("GPU-fake-%d", i)
	}
	return ids
}

// Fingerprint sends the device group once and then keeps the channel open:
// Nomad treats a closed fingerprint channel as a failed plugin and drops the
// devices (client/devicemanager/instance.go).
func (f *fakeGPU) Fingerprint(ctx context.Context) (<-chan *device.FingerprintResponse, error) {
	out := make(chan *device.FingerprintResponse, 1)
	devs := make([]*device.Device, 0, f.cfg.Count)
	for _, id := range f.ids() {
		devs = append(devs, &device.Device{ID: id, Healthy: true})
	}
	out <- device.NewFingerprint(&device.DeviceGroup{
		Vendor:  "nvidia",
		Type:    "gpu",
		Name:    f.cfg.Model,
		Devices: devs,
		Attributes: map[string]*structs.Attribute{
			"memory": structs.NewIntAttribute(f.cfg.MemoryMiB, structs.UnitMiB),
		},
	})
	go func() {
		<-ctx.Done()
		close(out)
	}()
	return out, nil
}

func (f *fakeGPU) Reserve(ids []string) (*device.ContainerReservation, error) {
	known := map[string]bool{}
	for _, id := range f.ids() {
		known[id] = true
	}
	for _, id := range ids {
		if !known[id] {
			return nil, fmt.Errorf("fake-gpu: unknown device %q", id)
		}
	}
	return &device.ContainerReservation{
		Envs: map[string]string{"NVIDIA_VISIBLE_DEVICES": strings.Join(ids, ",")},
	}, nil
}

// Stats reports nothing; a Stats error would only stop stats collection, but
// an idle open channel is quieter in the agent log.
func (f *fakeGPU) Stats(ctx context.Context, interval time.Duration) (<-chan *device.StatsResponse, error) {
	out := make(chan *device.StatsResponse)
	go func() {
		<-ctx.Done()
		close(out)
	}()
	return out, nil
}

func main() {
	// device.Serve rather than plugins.Serve: the latter drags in the task
	// driver packages and nomad/structs.
	device.Serve(&fakeGPU{}, log.New(&log.LoggerOptions{Name: pluginName, JSONFormat: true}))
}
