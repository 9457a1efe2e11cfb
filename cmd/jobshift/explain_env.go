package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// explainEnv prints, for every task (and, for UAI, every process of a
// task), the environment the plan's contracts give it on a topology: the
// sample one (contract.SampleTopologyFor) or the JSON file topologyFile.
// The values come from the contract oracle (contract.Compile, Bind), the
// same code the drivers are tested against. Variables every task gets with
// the same value (host lists, every task's address and ports) are printed
// once, under "# every task"; each task's block has the rest.
func explainEnv(plan *translate.Plan, topologyFile string, stdout, stderr io.Writer) int {
	job := plan.Job
	if len(plan.Contracts) == 0 {
		// contract.Options treats an empty list as "the job's defaults",
		// so "-contract =" must stop here.
		fmt.Fprintln(stdout, "No contracts: tasks get no platform environment variables.")
		return 0
	}
	// translate.Build checked the contracts: the caller printed any
	// warning and stopped on an error.
	opts := plan.Compiled().Contract
	topo := contract.SampleTopologyFor(job, opts)
	where := "sample topology"
	if topologyFile != "" {
		t, diags := readTopology(topologyFile)
		if diags.HasErrors() {
			printDiags(stderr, diags)
			return 1
		}
		topo, where = t, topologyFile
	}
	c, err := contract.Compile(job, opts)
	var b *contract.Bound
	if err == nil {
		b, err = c.Bind(topo)
	}
	var shared contract.Env
	if err == nil {
		shared, err = b.Shared()
	}
	if err != nil {
		return explainEnvError(stderr, err)
	}
	// One write per task (the output is O(tasks) lines of O(tasks) bytes
	// at most); variables every task has with the same value come once.
	w := bufio.NewWriterSize(stdout, 64<<10)
	fmt.Fprintf(w, "Environment from contracts %s, user %s, on the %s.\n", strings.Join(plan.Contracts, ", "), plan.User, where)
	own := b.Own
	if len(shared) > 0 && job.TaskCount()*len(c.Processes()) > 1 {
		fmt.Fprintf(w, "\n# every task\n")
		writeEnv(w, shared)
	} else {
		own = b.Env // one task: its whole environment under its name
	}
	for k, r := range job.Roles {
		for i := 0; i < r.Instances; i++ {
			for _, proc := range c.Processes() {
				env, err := own(jobs.TaskRef{Role: r.Name, Index: i}, proc)
				if err != nil {
					w.Flush()
					return explainEnvError(stderr, err)
				}
				fmt.Fprintf(w, "\n# %s-%d%s%s\n", r.Name, i, procLabel(proc), taskWhere(topo, k, i))
				writeEnv(w, env)
			}
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "jobshift explain: %v\n", err)
		return 1
	}
	return 0
}

func writeEnv(w *bufio.Writer, env contract.Env) {
	for _, v := range env {
		w.WriteString(v.Name)
		w.WriteByte('=')
		w.WriteString(printable(v.Value))
		w.WriteByte('\n')
	}
}

func explainEnvError(stderr io.Writer, err error) int {
	if d, ok := diag.Of(err); ok {
		printDiags(stderr, d)
	} else {
		fmt.Fprintf(stderr, "jobshift explain: %v\n", err)
	}
	return 1
}

func procLabel(proc string) string {
	if proc == contract.ProcessMain {
		return ""
	}
	return " (" + proc + " process)"
}

// taskWhere describes task i of role k: its address and ports.
func taskWhere(topo contract.Topology, k, i int) string {
	if k >= len(topo.Roles) || i >= len(topo.Roles[k].Tasks) {
		return ""
	}
	t := topo.Roles[k].Tasks[i]
	labels := make([]string, 0, len(t.Ports))
	for l := range t.Ports {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	var ps []string
	for _, l := range labels {
		nums := make([]string, len(t.Ports[l]))
		for j, p := range t.Ports[l] {
			nums[j] = strconv.Itoa(p)
		}
		ps = append(ps, l+"="+strings.Join(nums, ","))
	}
	s := " on " + t.Addr
	if len(ps) > 0 {
		s += ", ports " + strings.Join(ps, " ")
	}
	return s
}

// printable quotes a value only when printing it raw would be ambiguous
// (line breaks, control characters, surrounding spaces).
func printable(v string) string {
	if strings.TrimSpace(v) != v {
		return strconv.Quote(v)
	}
	for _, r := range v {
		if !unicode.IsPrint(r) {
			return strconv.Quote(v)
		}
	}
	return v
}

// readTopology reads a JSON contract.Topology:
//
//	{"Roles": [{"Name": "ps", "Tasks": [{"Addr": "10.0.0.1", "Ports": {"ssh": [22]}}]}]}
func readTopology(path string) (contract.Topology, hcl.Diagnostics) {
	var t contract.Topology
	src, err := os.ReadFile(path)
	if err != nil {
		return t, hcl.Diagnostics{cmdError("Cannot read topology file", "%v.", err)}
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		off := int(dec.InputOffset())
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off = int(se.Offset)
		case errors.As(err, &te):
			off = int(te.Offset)
		}
		line, col := lineCol(src, off)
		return t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid topology file",
			Detail:  fmt.Sprintf("%v. A topology is JSON like {\"Roles\": [{\"Name\": \"worker\", \"Tasks\": [{\"Addr\": \"10.0.0.1\", \"Ports\": {\"http\": [8080]}}]}]}, one role per job role in job order.", err),
			Subject: &hcl.Range{Filename: path, Start: hcl.Pos{Line: line, Column: col, Byte: off}, End: hcl.Pos{Line: line, Column: col, Byte: off}}}}
	}
	return t, nil
}

func lineCol(src []byte, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}
