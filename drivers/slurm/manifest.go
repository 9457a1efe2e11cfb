package slurm

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/internal/freshfile"
)

// The manifest: what `jobshift status/logs/stop <id>` from another process
// needs to find a job's state (its state directory, roles, instances,
// output file), written at submit beside the submitted script, so that
// nothing has to be read back out of the script jobshift generated.
// scontrol's Command= names the script, and so the manifest.

// manifestPath is the manifest of the job submitted with script.
func manifestPath(script string) string { return script + ".manifest.json" }

// writeManifest records h's meta beside its script.
func writeManifest(h drivers.Handle) error {
	b, err := json.MarshalIndent(h.Meta, "", "  ")
	if err != nil {
		return err
	}
	return freshfile.Write(manifestPath(h.Meta[metaScript]), append(b, '\n'), 0o644)
}

// readManifest returns the meta recorded for the job submitted with script.
func readManifest(script string) (map[string]string, error) {
	b, err := os.ReadFile(manifestPath(script))
	if err != nil {
		return nil, err
	}
	var meta map[string]string
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("%s: %w", manifestPath(script), err)
	}
	return meta, nil
}
