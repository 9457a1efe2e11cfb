package plugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// The test binary doubles as a set of plugin executables: a wrapper script
// named jobshift-driver-<mode> re-runs it with JOBSHIFT_TEST_PLUGIN set.
func TestMain(m *testing.M) {
	switch os.Getenv("JOBSHIFT_TEST_PLUGIN") {
	case "":
		os.Exit(m.Run())
	case "fake":
		Serve(&recordingDriver{artifact: &drivers.Artifact{MediaType: "text/plain", Files: []drivers.File{{Name: "f", Data: []byte("out-of-process")}}}}, "1.2.3")
	case "v1":
		// A plugin built before protocol 2: it speaks only version 1.
		goplugin.Serve(&goplugin.ServeConfig{
			HandshakeConfig:  Handshake,
			VersionedPlugins: map[int]goplugin.PluginSet{1: {PluginName: &GRPCDriverPlugin{Impl: &recordingDriver{}, Version: "0.9"}}},
			GRPCServer:       goplugin.DefaultGRPCServer,
		})
	case "crash":
		Serve(&crashingDriver{}, "0.0.1")
	case "future":
		// A plugin from the future: it speaks only protocol 99.
		goplugin.Serve(&goplugin.ServeConfig{
			HandshakeConfig:  Handshake,
			VersionedPlugins: map[int]goplugin.PluginSet{99: {PluginName: &GRPCDriverPlugin{Impl: &recordingDriver{}}}},
			GRPCServer:       goplugin.DefaultGRPCServer,
		})
	case "garbage":
		fmt.Println("hello, I am not a plugin")
		time.Sleep(time.Minute)
	case "hang":
		time.Sleep(time.Minute)
	}
	os.Exit(0)
}

// crashingDriver dies in the middle of Submit, as a buggy plugin would.
type crashingDriver struct{ recordingDriver }

func (c *crashingDriver) Submit(context.Context, *translate.Plan) (drivers.Handle, error) {
	os.Exit(3)
	return drivers.Handle{}, nil
}

// pluginDir makes a directory holding jobshift-driver-<mode> wrappers.
func pluginDir(t *testing.T, modes ...string) string {
	t.Helper()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modes {
		script := fmt.Sprintf("#!/bin/sh\nJOBSHIFT_TEST_PLUGIN=%s exec %q -test.run='^$'\n", m, self)
		if err := os.WriteFile(filepath.Join(dir, BinaryPrefix+m), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOutOfProcess(t *testing.T) {
	dir := pluginDir(t, "fake")
	ext, err := OpenDriver("fake", []string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	if ext.Name() != "fake" || ext.Version() != "1.2.3" || ext.Protocol != ProtocolVersion {
		t.Errorf("got %s %s protocol %d", ext.Name(), ext.Version(), ext.Protocol)
	}
	a, err := ext.Render(context.Background(), samplePlan())
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Files[0].Data) != "out-of-process" {
		t.Errorf("artifact %q", a.Files[0].Data)
	}
}

func TestBadPlugins(t *testing.T) {
	old := StartTimeout
	StartTimeout = 3 * time.Second
	defer func() { StartTimeout = old }()
	dir := pluginDir(t, "future", "garbage", "hang")
	cases := map[string]string{
		// go-plugin lists the versions it speaks in map order: either way
		"future":  "Plugin version: 99, Client versions: [",
		"garbage": "jobshift driver plugin",
		"hang":    "timeout",
	}
	for mode, want := range cases {
		t.Run(mode, func(t *testing.T) {
			start := time.Now()
			_, err := OpenDriver(mode, []string{dir}, nil, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), BinaryPrefix+mode) {
				t.Errorf("error %q should name the plugin and contain %q", err, want)
			}
			if mode == "future" && !strings.Contains(err.Error(), "[1 2]") && !strings.Contains(err.Error(), "[2 1]") {
				t.Errorf("error %q should list protocols 1 and 2", err)
			}
			if time.Since(start) > time.Minute {
				t.Errorf("took %v: a bad plugin must not hang jobshift", time.Since(start))
			}
		})
	}
}

func TestCrashMidCall(t *testing.T) {
	dir := pluginDir(t, "crash")
	ext, err := OpenDriver("crash", []string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	_, err = ext.Submit(context.Background(), samplePlan())
	if err == nil {
		t.Fatal("Submit on a crashing plugin returned no error")
	}
	if !errors.Is(err, drivers.ErrUnavailable) {
		t.Errorf("error %v does not wrap ErrUnavailable", err)
	}
}

func TestDiscover(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write := func(dir, name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "jobshift-driver-pbs", 0o755)
	write(b, "jobshift-driver-pbs", 0o755) // shadowed by a's
	write(b, "jobshift-driver-lsf", 0o755)
	write(b, "jobshift-driver-notexec", 0o644)
	write(b, "jobshift-driver-", 0o755)
	write(b, "other-tool", 0o755)
	site := &siteconfig.Config{Plugins: &siteconfig.PluginsConfig{Allowed: []string{"jobshift-driver-p*"}}}
	got := Discover([]string{a, filepath.Join(a, "missing"), b}, site)
	want := []Candidate{
		{Name: "lsf", Path: filepath.Join(b, "jobshift-driver-lsf"), Denied: true},
		{Name: "pbs", Path: filepath.Join(a, "jobshift-driver-pbs"), Shadowed: []string{filepath.Join(b, "jobshift-driver-pbs")}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Discover:\n got %+v\nwant %+v", got, want)
	}
	if !Allowed(nil, "jobshift-driver-x") || !Allowed(&siteconfig.Config{}, "jobshift-driver-x") {
		t.Error("with no allowed patterns every plugin may load")
	}
}
