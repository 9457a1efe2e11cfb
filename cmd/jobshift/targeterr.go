package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/siteconfig"
)

// printTargetError prints a driver's refusal of the job as the diagnostics
// the driver located (every problem, `file:line:col: error: ...` like the
// readers' errors), and any other driver error, one that is not about the
// job (a cluster that does not answer...), as "jobshift CMD: error", with
// what to do when target does not answer.
func printTargetError(w io.Writer, cmd, target string, err error) {
	if d, ok := diag.Of(err); ok {
		printDiags(w, d)
		return
	}
	fmt.Fprintf(w, "jobshift %s: %v\n", cmd, err)
	printUnavailableFix(w, target, err)
}

// printUnavailableFix says, for an error of a target that does not answer,
// where jobshift looked and how to point it elsewhere.
func printUnavailableFix(w io.Writer, target string, err error) {
	if fix := unavailableFix(target); fix != "" && errors.Is(err, drivers.ErrUnavailable) {
		fmt.Fprintf(w, "    %s\n", fix)
	}
}

// unavailableFix is the advice for a target that does not answer ("" for
// a target with none).
func unavailableFix(target string) string {
	switch target {
	case nomad.TargetHCL, nomad.TargetJSON:
		where := "NOMAD_ADDR is unset, so the site config's nomad address or http://127.0.0.1:4646"
		if a := os.Getenv("NOMAD_ADDR"); a != "" {
			where = "NOMAD_ADDR=" + a
		}
		return fmt.Sprintf("Is the Nomad agent running and reachable? jobshift asked the one %s names; set NOMAD_ADDR (or address in jobshift.hcl's nomad block) to the agent's address, and NOMAD_TOKEN when ACLs are on.", where)
	case slurm.Name:
		conf := "SLURM_CONF is unset, so the Slurm commands read their built-in slurm.conf"
		if c := os.Getenv("SLURM_CONF"); c != "" {
			conf = "SLURM_CONF=" + c
		}
		return fmt.Sprintf("Is slurmctld up ('scontrol ping')? %s; set SLURM_CONF to the cluster's slurm.conf and put the Slurm client commands (sbatch, squeue) on PATH.", conf)
	}
	return ""
}

// targetConfigured: does the environment or the site config name target
// (NOMAD_ADDR, a nomad block's address; SLURM_CONF, a slurm block)? Only
// then is its silence worth a note when status lists every target.
func targetConfigured(target string, tf *targetFlags) bool {
	cfg, _ := siteconfig.LoadConfig(tf.config) // its problems were printed when the drivers were made
	switch target {
	case nomad.TargetHCL:
		return os.Getenv("NOMAD_ADDR") != "" || cfg != nil && cfg.Nomad != nil && cfg.Nomad.Address != ""
	case slurm.Name:
		return os.Getenv("SLURM_CONF") != "" || cfg != nil && cfg.Slurm != nil
	}
	return false
}
