package main

import (
	"context"
	"fmt"
	"github.com/jobshift/jobshift/internal/freshfile"
	"io"
	"os"
	"strconv"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad" // registers -to nomad, nomad-json
	"github.com/jobshift/jobshift/drivers/slurm"
)

func init() {
	register("convert", "Print the job as the target would run it (Nomad HCL2 or JSON, sbatch script, ...)", runConvert)
}

const convertHelp = `
Usage: jobshift convert -to TARGET [options] FILE

  Translates a training job of one of the formats below into what TARGET
  runs, without submitting anything, and prints it (or writes it with -o).

  {{formats}}

  Targets: nomad (HCL2 for 'nomad job run'), nomad-json (API JSON for
  'nomad job run -json'), slurm (an sbatch script), local (a dry run of
  'jobshift run': every task's directory, command and environment), or any
  driver name.

  A Nomad job has two shapes (drivers/nomad/shape.go): by default the one
  that runs with nothing outside it (its tasks meet through a barrier
  task, a finisher in the job judges it when the site has the helper),
  as 'nomad job run' and 'jobshift run -detach' need; with -watched the
  one 'jobshift run' submits, which a watcher completes (the topology
  snapshot, judging). The file's header (HCL) or its jobshift_shape meta
  (JSON) says which.

  A job whose shape depends on the cluster (Volcano's TensorFlow shape:
  its tasks listen on one port at their peers' names) has two more: by
  default the one for several clients (a client per task), with
  -one-client the one for a cluster of one client (each task a network of
  its own there), which 'jobshift run' submits where it counts one client
  that can run the job. The header and the meta say which, and so does
  'jobshift run -plan'.

Examples:
  jobshift convert -to nomad job.yaml > job.nomad.hcl && nomad job run job.nomad.hcl
  jobshift convert -to nomad-json job.json | nomad job run -json -
  jobshift convert -to nomad -watched job.yaml   # what jobshift run submits
  jobshift convert -to nomad -watched -one-client tf.yaml   # ... to one client
`

func runConvert(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("convert", convertHelp, stderr)
	addPluginDirFlag(fs)
	var jf jobFlags
	jf.register(fs)
	to := fs.String("to", "nomad", "Target `driver`.")
	outDir := fs.String("o", "", "Write the files into `dir` instead of printing the main one.")
	watched := fs.Bool("watched", false, "Nomad: write the shape jobshift run submits (a watcher writes the topology snapshot and judges) instead of the one for plain nomad job run.")
	oneClient := fs.Bool("one-client", false, "Nomad: write the shape for a cluster of one client, which jobshift run submits where it counts one (a job in Volcano's TensorFlow shape: each task a network of its own there) instead of the one for several clients.")
	printVar := fs.Bool("print-variable", false, "Nomad: print the job's Nomad Variable (its secrets, the ssh key) as 'nomad var put' input instead of the job.")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jobshift convert: want exactly one job FILE (see jobshift convert -h)")
		return exitUsage
	}
	cfg, plan, ok := jf.loadForTarget(fs.Arg(0), stderr)
	if !ok {
		return 1
	}
	if *outDir == "" && *to == slurm.Name && plan.Options["library"] == "" {
		// one printed file must run with plain sbatch: the library goes
		// inside it (with -o it is a file beside the script)
		plan.Options["library"] = slurm.LibraryInline
	}
	plan.Options[nomad.OptWatched] = strconv.FormatBool(*watched)
	if *oneClient {
		plan.Options[nomad.OptOneClient] = "true"
	}
	drv, err := drivers.New(*to, drivers.Config{Site: cfg, Warnings: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "jobshift convert: %v\n", err)
		return 1
	}
	art, err := drv.Render(context.Background(), plan)
	if err != nil {
		printTargetError(stderr, "convert", *to, err)
		return 1
	}
	if *to == nomad.TargetHCL || *to == nomad.TargetJSON {
		v, err := nomadVariableFor(plan, cfg)
		if err != nil {
			fmt.Fprintf(stderr, "jobshift convert: %v\n", err)
			return 1
		}
		if v != nil && *outDir != "" {
			if err := os.MkdirAll(*outDir, 0o755); err != nil {
				fmt.Fprintf(stderr, "jobshift convert: %v\n", err)
				return 1
			}
		}
		if v != nil {
			if printed, err := handOverVariable(v, *outDir, *printVar, stdout, stderr); err != nil || printed {
				if err != nil {
					fmt.Fprintf(stderr, "jobshift convert: %v\n", err)
					return 1
				}
				return 0
			}
		} else if *printVar {
			fmt.Fprintln(stderr, "jobshift convert: this job needs no Nomad Variable (no secrets, no ssh emulation)")
			return 0
		}
	}
	if *outDir == "" {
		if len(art.Files) > 0 {
			_, _ = stdout.Write(art.Files[0].Data)
		}
		for _, f := range art.Files[1:] {
			fmt.Fprintf(stderr, "jobshift convert: %s not printed (use -o DIR to write every file)\n", f.Name)
		}
		return 0
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		fmt.Fprintf(stderr, "jobshift convert: %v\n", err)
		return 1
	}
	for _, f := range art.Files {
		mode := os.FileMode(f.Mode)
		if mode == 0 {
			mode = 0o644
		}
		p := *outDir + "/" + f.Name
		// created fresh and renamed into place: a file already there
		// (a world-readable secrets file, a symlink) is replaced, never
		// written through or left with its old mode
		if err := freshfile.Write(p, f.Data, mode); err != nil {
			fmt.Fprintf(stderr, "jobshift convert: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, p)
	}
	return 0
}
