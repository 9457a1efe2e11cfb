package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/internal/shquote"
	"github.com/jobshift/jobshift/jobs"
)

// NomadService is one group service the Nomad driver must register
// (spec/nomad.md §1 Service, §2): one per role and port slot, so that each
// registration carries one port (Nomad-native registrations keep only
// Address, Port and Tags). A role without ports gets one address-only
// service (PortLabel ""; its group still needs a `network {}` block, whose
// IP Nomad then registers).
type NomadService struct {
	Role      string   // the jobs.Role name
	Name      string   // valid Nomad service name, ≤ 63 characters, unique in the job
	PortLabel string   // Nomad port label to declare in the group network ("" = none)
	Label     string   // the job's port label this service carries ("" = none)
	Ordinal   int      // which port of Label (0-based)
	Tags      []string // ["idx-${NOMAD_ALLOC_INDEX}"]: the index travels in a tag
	Provider  string   // "nomad"
}

// IndexTag is the tag every service registers with; Nomad interpolates it
// per allocation (idx-0, idx-1, ...).
const IndexTag = "idx-${NOMAD_ALLOC_INDEX}"

// NomadServices lists the services for the job's default contracts; see
// NomadServicesFor.
func NomadServices(job *jobs.Job, jobID string) []NomadService {
	return NomadServicesFor(job, jobID, Options{})
}

// NomadServicesFor lists, role by role in job order, every service the
// Nomad driver must register for the contracts opts selects (the ports
// follow PortLabels). The Nomad port labels are [a-z0-9_] (they become
// NOMAD_PORT_<label>); dynamic ports: `network { port "<PortLabel>" {} }`.
func NomadServicesFor(job *jobs.Job, jobID string, opts Options) []NomadService {
	if job == nil {
		return nil
	}
	var out []NomadService
	for k, r := range job.Roles {
		labels := PortLabels(job, k, opts)
		used := map[string]bool{}
		n := 0
		for l, p := range labels {
			for o := range p.Count {
				pl := sanitize(p.Label, '_')
				if pl == "" {
					pl = "port"
				}
				if p.Count > 1 {
					pl += "_" + strconv.Itoa(o)
				}
				if used[pl] {
					pl += "_l" + strconv.Itoa(l)
				}
				used[pl] = true
				out = append(out, NomadService{Role: r.Name, PortLabel: pl, Label: p.Label, Ordinal: o,
					Name: jobID + "-" + r.Name + "-" + p.Label + "-" + strconv.Itoa(o)})
				n++
			}
		}
		if n == 0 {
			out = append(out, NomadService{Role: r.Name, Name: jobID + "-" + r.Name})
		}
	}
	seen := map[string]int{}
	for i := range out {
		out[i].Tags = []string{IndexTag}
		out[i].Provider = "nomad"
		out[i].Name = serviceName(out[i].Name)
		seen[out[i].Name]++
	}
	for i := range out {
		if seen[out[i].Name] > 1 { // only possible after sanitising; make unique
			out[i].Name = hashedName(out[i].Name, fmt.Sprintf("%s\x00%s\x00%d", out[i].Role, out[i].Label, out[i].Ordinal))
		}
	}
	return out
}

// sanitize lower-cases s and turns every run of characters outside
// [a-z0-9] into one sep; sep is trimmed from both ends.
func sanitize(s string, sep byte) string {
	var b strings.Builder
	for _, c := range []byte(strings.ToLower(s)) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else if n := b.Len(); n > 0 && b.String()[n-1] != sep {
			b.WriteByte(sep)
		}
	}
	return strings.Trim(b.String(), string(sep))
}

// serviceName makes raw a Nomad service name
// (^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$); a name that had to change or is
// too long gets a hash of raw so distinct raws stay distinct.
func serviceName(raw string) string {
	s := sanitize(raw, '-')
	if s == raw && len(s) <= 63 {
		return s
	}
	return hashedName(s, raw)
}

func hashedName(s, raw string) string {
	h := sha256.Sum256([]byte(raw))
	suffix := hex.EncodeToString(h[:4])
	if len(s) > 54 {
		s = strings.TrimRight(s[:54], "-")
	}
	if s == "" {
		return "js-" + suffix
	}
	return s + "-" + suffix
}

// NomadTemplate renders the contract of role (for every task of it) as
// consul-template text for a template with env = true (spec/nomad.md §2).
// It reads the registrations of NomadServicesFor(job, jobID, opts) of this
// job (JobID = NOMAD_JOB_ID), orders them by their idx-<n> tag, and writes
// NAME="value" lines with value as a JSON string, which Nomad's env parser
// (go-envparse) decodes byte for byte. Static values are template string
// literals inside actions, so "{{" or "}}" in them are plain text. If a
// registration is missing when it renders, it writes a line without '='
// that makes Nomad fail the task ("error parsing env template") instead of
// starting it with a wrong environment. Nomad reads env files line by line
// with a 64 KiB limit per line; a value longer than that cannot travel.
func NomadTemplate(job *jobs.Job, role string, jobID string, opts Options) (string, error) {
	if job == nil {
		return "", errNoJob
	}
	if roleIndex(job, role) < 0 {
		return "", fail(ErrJob, job.NamePos, "Unknown role", "The job has no role %q.", role)
	}
	c, err := Compile(job, opts)
	if err != nil {
		return "", err
	}
	return c.NomadTemplate(role, opts.Process, jobID)
}

// NomadSnapshotTemplate is NomadTemplate reading the topology from the
// snapshot Variable snap (Compiled.NomadSnapshotTemplate).
func NomadSnapshotTemplate(job *jobs.Job, role, jobID string, snap Snapshot, opts Options) (string, error) {
	if job == nil {
		return "", errNoJob
	}
	c, err := Compile(job, opts)
	if err != nil {
		return "", err
	}
	return c.NomadSnapshotTemplate(role, opts.Process, jobID, snap)
}

// NomadTemplate is the package's NomadTemplate for process proc of role.
func (c *Compiled) NomadTemplate(role, proc, jobID string) (string, error) {
	return c.nomadTemplate(role, proc, jobID, nil, false)
}

// Snapshot names the topology snapshot a Nomad template reads instead of
// the registrations (NomadSnapshotTemplate): one Nomad Variable written
// once per job attempt, when every task of the attempt is registered.
type Snapshot struct {
	// Path is the Variable's path; the task's workload identity must be
	// able to read it (nomad/jobs/<job>/<group>).
	Path string
	// AttemptEnv is the task's environment variable holding its attempt;
	// the Variable's SnapshotAttempt item must equal it, else the task
	// fails rather than start with another attempt's peers.
	AttemptEnv string
}

// Items of a snapshot Variable (see SnapshotAddrKey, SnapshotPortKey).
const SnapshotAttempt = "attempt"

// SnapshotAddrKey is the item holding the addresses of the tasks of the
// job's k-th role (in job order), in index order, separated by one space:
// the address of the role's first service's registration.
func SnapshotAddrKey(k int) string { return "a" + strconv.Itoa(k) }

// SnapshotPortKey is the item holding the ports of the job's n-th service
// (NomadServicesFor order) in task index order, separated by one space;
// only services with a port have one.
func SnapshotPortKey(n int) string { return "p" + strconv.Itoa(n) }

// NomadSnapshotTemplate is NomadTemplate reading the topology from the
// snapshot Variable snap instead of scanning every registration: O(1)
// blocking queries per task and one render, whatever the job's size.
// nomadVar blocks until the Variable exists, so the task starts only
// once the whole topology is known.
func (c *Compiled) NomadSnapshotTemplate(role, proc, jobID string, snap Snapshot) (string, error) {
	return c.nomadTemplate(role, proc, jobID, &snap, false)
}

// ShellReady is the line a NomadSnapshotShell file ends with once it holds
// the environment: sourcing it sets the shell variable ShellReadyVar to 1.
const (
	ShellReadyVar = "_jsh_env_ready"
	ShellReady    = ShellReadyVar + "=1\n"
)

// ErrShellNames: a variable of the contract is not a shell name, so the
// environment cannot travel as a sourced file (NomadSnapshotShell); the
// env template (env = true) can carry it.
var ErrShellNames = errors.New("a variable name is not a shell name")

// NomadSnapshotShell is NomadSnapshotTemplate written for a POSIX shell to
// source: `export NAME='value'` lines, each value single-quoted (a ' in
// it as TemplateShellQuote writes it), so any bytes arrive as they are; a
// snapshot of another attempt writes a line that prints why and exits 1.
// It never blocks: until the
// Variable exists (nomadVarExists, which does not wait) it renders
// nothing, so the task is started while the snapshot is still to come and
// reads the file once it ends with ShellReady. The template must be
// re-rendered when the Variable appears (not `once`).
func (c *Compiled) NomadSnapshotShell(role, proc, jobID string, snap Snapshot) (string, error) {
	return c.nomadTemplate(role, proc, jobID, &snap, true)
}

func (c *Compiled) nomadTemplate(role, proc, jobID string, snap *Snapshot, shell bool) (string, error) {
	job := c.job
	k := roleIndex(job, role)
	if k < 0 {
		return "", fail(ErrJob, job.NamePos, "Unknown role", "The job has no role %q.", role)
	}
	p, err := c.program(k, proc)
	if err != nil {
		return "", err
	}
	if err := c.checkNomad(p, k); err != nil {
		return "", err
	}
	opts := c.opts
	opts.Process = proc
	if shell {
		if err := checkShellNames(job, k, p); err != nil {
			return "", err
		}
	}
	t := &tmpl{svc: map[[3]string]int{}, opts: opts, snap: snap != nil, shell: shell}
	for n, s := range NomadServicesFor(job, jobID, opts) {
		t.svc[[3]string{s.Role, s.Label, strconv.Itoa(s.Ordinal)}] = n
		if s.Label == "" {
			t.svc[[3]string{s.Role, "", ""}] = n
		}
		if s.Label != "" && s.Ordinal == 0 {
			if _, ok := t.svc[[3]string{s.Role, "", ""}]; !ok {
				t.svc[[3]string{s.Role, "", ""}] = n
			}
		}
		t.names = append(t.names, s.Name)
		t.roles = append(t.roles, roleIndex(job, s.Role))
		t.ported = append(t.ported, s.Label != "")
	}
	w := &t.out
	w.Grow(templateSize(p.defs, len(t.names))) // one allocation, any job size
	// The first action must not trim to its left: the driver writes its
	// own lines (CUDA_VISIBLE_DEVICES, user variables) before this text,
	// and "{{-" would glue the next variable onto the last of them.
	if snap != nil {
		t.snapshotHead(job, *snap)
	} else {
		t.registrationsHead(job, k)
	}
	var line []byte
	fams := families(p.defs)
	for j := 0; j < len(p.defs); j++ {
		if len(fams) > 0 && fams[0].start == j {
			t.writeFamily(fams[0], job)
			j += fams[0].block*fams[0].tasks - 1
			fams = fams[1:]
			continue
		}
		d := p.defs[j]
		line = line[:0]
		if d.first { // setFirst: allocation index 0 only
			line = append(line, `{{ if eq $me "0" }}`...)
		}
		line = t.appendDef(append(t.lineStart(line), d.name...), job, d.val)
		if d.first {
			line = append(line, "{{ end -}}\n"...)
		}
		w.Write(line)
	}
	switch {
	case shell:
		w.WriteString(ShellReady + "{{ end }}{{ end }}\n")
	case snap != nil:
		w.WriteString("{{- end }}\n")
	}
	return w.String(), nil
}

// lineStart begins a variable's line: "export " in a shell file.
func (t *tmpl) lineStart(line []byte) []byte {
	if t.shell {
		return append(line, "export "...)
	}
	return line
}

// appendDef appends to a line holding a variable's name the rest of its
// line: in an env file "=", the value as a JSON string, the newline; in a
// shell file "=", the value single-quoted, the newline.
func (t *tmpl) appendDef(line []byte, job *jobs.Job, val expr) []byte {
	if t.shell {
		line = t.appendValue(append(line, "='{{ "...), job, val)
		return append(line, " | "+TemplateShellQuote+" }}'\n"...)
	}
	line = t.appendValue(append(line, "={{ "...), job, val)
	return append(line, " | toJSON }}\n"...)
}

// TemplateShellQuote is the pipeline stage that makes a string safe between
// single quotes: every ' becomes these four characters (end the quote, a
// quoted ', reopen the quote):
//
//	'\''
const TemplateShellQuote = `replaceAll "'" "'\\''"`

// checkShellNames: every variable of role k's program is a shell name
// (NomadSnapshotShell writes `export NAME=...`); an env-file name may also
// hold '.' and '/'.
func checkShellNames(job *jobs.Job, k int, p *program) error {
	for _, d := range p.defs {
		if !IsShellName(d.name) {
			return fail(ErrShellNames, job.Roles[k].Pos, "Variable name not a shell name",
				"%s cannot be set by a shell; the env template carries it instead.", d.name)
		}
	}
	return nil
}

// checkNomad: the variable names and line lengths Nomad's env parser takes.
func (c *Compiled) checkNomad(p *program, k int) error {
	job := c.job
	if needsRunTimeMPIDir(job, c.opts) {
		return fail(ErrTarget, job.NamePos, "MPI directory unknown", "Nomad templates need the MPI directory when the job is rendered (Options.MPIDir); a run-time directory is for the shell rendering.")
	}
	var badNames []string
	for _, d := range p.defs {
		if !isEnvparseName(d.name) {
			badNames = append(badNames, d.name)
		}
	}
	if len(badNames) > 0 {
		if len(badNames) > 4 {
			badNames = append(badNames[:4], fmt.Sprintf("and %d more", len(badNames)-4))
		}
		return fail(ErrTarget, job.Roles[k].Pos, "Variable names Nomad cannot carry",
			"Nomad's env templates accept names of [A-Za-z0-9_./] only; the contract needs %s. Rename the role or port label (OpenPAI v1 allowed '~'), or run the job on Slurm or locally.", strings.Join(badNames, ", "))
	}
	for _, d := range p.defs {
		if n := len(d.name) + 1 + d.val.nomadLen(); n >= maxEnvLine {
			return fail(ErrTarget, job.Roles[k].Pos, "Variable too long for Nomad",
				"%s would be about %d bytes long on one env-file line (IPv4 addresses assumed); Nomad reads env templates with a %d-byte line limit. Run the job on Slurm or locally, or with fewer tasks.", d.name, n, maxEnvLine)
		}
	}
	return nil
}

// registrationsHead reads every registration of the job's services into
// the template's scratch, by service number and idx tag; a missing one
// writes a line Nomad's env parser rejects (the task fails).
func (t *tmpl) registrationsHead(job *jobs.Job, k int) {
	w := &t.out
	w.WriteString("{{ $me := env \"NOMAD_ALLOC_INDEX\" -}}\n{{- $job := env \"NOMAD_JOB_ID\" -}}\n")
	for n, name := range t.names {
		fmt.Fprintf(w, "{{- range $s := nomadService %s }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print \"%d/\" .) $s }}{{ end }}{{ end }}{{ end -}}\n", tmplString(name), n)
		cnt := job.Roles[t.roles[n]].Instances
		fmt.Fprintf(w, "{{- range $i := loop %d }}{{ if not (scratch.Key (print \"%d/idx-\" $i)) }}jobshift-contract: service %s has no registration with tag idx-{{ $i }}\n{{ end }}{{ end -}}\n", cnt, n, name)
		if t.roles[n] == k {
			fmt.Fprintf(w, "{{- $self%d := scratch.Get (print \"%d/idx-\" $me) -}}\n", n, n)
		}
	}
}

// snapshotHead opens the snapshot Variable (the rest of the template is
// inside its `with`, closed by nomadTemplate) and splits its items once:
// $a<k> are role k's addresses, $p<n> service n's ports, by task index.
// A snapshot of another attempt writes a line Nomad's env parser rejects
// (in a sourced file: one that prints why and exits 1). The sourced file
// opens the Variable only once nomadVarExists says it exists, so it
// renders at once, empty, before the snapshot.
func (t *tmpl) snapshotHead(job *jobs.Job, snap Snapshot) {
	w := &t.out
	path := tmplString(snap.Path)
	w.WriteString("{{ $me := env \"NOMAD_ALLOC_INDEX\" -}}\n{{- ")
	if t.shell {
		// nomadVarExists does not wait for the Variable; nomadVar, asked
		// only once it exists, answers at once
		fmt.Fprintf(w, "if nomadVarExists %s }}{{ ", path)
	}
	fmt.Fprintf(w, "with nomadVar %s }}{{ $v := .ItemsMap -}}\n", path)
	if t.shell {
		fmt.Fprintf(w, "{{- if ne (print (index $v %s)) (env %s) }}printf '%%s\\n' '{{ print %s (index $v %s) \", not of this task's attempt \" (env %s) | %s }}' >&2; exit 1\n{{ end -}}\n",
			tmplString(SnapshotAttempt), tmplString(snap.AttemptEnv), tmplString("jobshift-contract: topology snapshot "+snap.Path+" is of attempt "),
			tmplString(SnapshotAttempt), tmplString(snap.AttemptEnv), TemplateShellQuote)
	} else {
		fmt.Fprintf(w, "{{- if ne (print (index $v %s)) (env %s) }}jobshift-contract: topology snapshot %s is of attempt {{ index $v %s }}, not of this task's attempt {{ env %s }}\n{{ end -}}\n",
			tmplString(SnapshotAttempt), tmplString(snap.AttemptEnv), snap.Path, tmplString(SnapshotAttempt), tmplString(snap.AttemptEnv))
	}
	w.WriteString("{{- $mi := parseInt $me -}}\n")
	for k := range job.Roles {
		t.snapshotCheck(snap, SnapshotAddrKey(k), SnapshotAddrsPattern, "not a list of addresses")
		fmt.Fprintf(w, "{{- $a%d := split \" \" (print (index $v %s)) -}}\n", k, tmplString(SnapshotAddrKey(k)))
	}
	for n := range t.names {
		if t.ported[n] {
			t.snapshotCheck(snap, SnapshotPortKey(n), SnapshotPortsPattern, "not a list of port numbers")
			fmt.Fprintf(w, "{{- $p%d := split \" \" (print (index $v %s)) -}}\n", n, tmplString(SnapshotPortKey(n)))
		}
	}
}

// snapshotCheck writes the check of one snapshot item against its grammar
// (snapshot.go): a value that does not match fails the task as a snapshot
// of another attempt does (an env line without '=', which Nomad's env
// parser refuses; in a shell file, exit 1 with the reason), before any
// variable: a forged address never reaches the environment.
func (t *tmpl) snapshotCheck(snap Snapshot, key, pattern, what string) {
	msg := "jobshift-contract: topology snapshot " + snap.Path + " item " + key + ": " + what
	if t.shell {
		fmt.Fprintf(&t.out, "{{- if not (regexMatch %s (print (index $v %s))) }}printf '%%s\\n' %s >&2; exit 1\n{{ end -}}\n",
			tmplString(pattern), tmplString(key), "'"+shquote.Escape(msg)+"'")
		return
	}
	fmt.Fprintf(&t.out, "{{- if not (regexMatch %s (print (index $v %s))) }}%s\n{{ end -}}\n", tmplString(pattern), tmplString(key), msg)
}

// templateSize is about the size of the template text of defs and
// nsvc services, a little more rather than less.
func templateSize(defs []def, nsvc int) int {
	n := 512 * nsvc
	for _, d := range defs {
		n += len(d.name) + 24
		for _, p := range d.val {
			n += len(p.lit)*2 + 64 // a literal is quoted; a registration is ≈ 40
		}
	}
	return n
}

// maxEnvLine is bufio.MaxScanTokenSize, the longest line go-envparse
// (bufio.Scanner with its default buffer) reads.
const maxEnvLine = 64 * 1024

// nomadLen estimates the length of e as a JSON string on an env-file line,
// with IPv4 addresses and 5-digit ports.
func (e expr) nomadLen() int {
	n := 2
	for _, p := range e {
		switch p.kind {
		case pLit:
			n += len(jsonString(p.lit)) - 2
		case pAddr:
			n += 15
		case pPorts:
			n += 6 * 3
		case pPort, pIndex:
			n += 5
		case pMPIDir:
			n += 256
		case pNode:
			n += 64 // a host name of 63 characters, or an address
		case pHost:
			n += 2*2 + 15 + 1 + 5
		case pCond:
			n += max(p.alt.a.nomadLen(), p.alt.b.nomadLen())
		}
	}
	return n
}

// nomadNodeAttr are the node attributes of a pNode part: the client's
// name and address (the address Nomad fingerprinted, the one its tasks'
// host network has).
var nomadNodeAttr = [2]string{nodeName: "node.unique.name", nodeAddr: "attr.unique.network.ip-address"}

type tmpl struct {
	out    strings.Builder
	fmtBuf []byte // appendValue's format and arguments, reused
	argBuf []byte
	svc    map[[3]string]int // role, label, ordinal → service number
	names  []string
	roles  []int
	ported []bool // service n has a port
	snap   bool   // read the snapshot Variable, not the registrations
	shell  bool   // a file for sh to source (NomadSnapshotShell)
	tmp    int
	opts   Options
	labels map[int][]jobs.Port // PortLabels per role, computed once
}

func (t *tmpl) portLabels(job *jobs.Job, k int) []jobs.Port {
	if t.labels == nil {
		t.labels = map[int][]jobs.Port{}
	}
	ls, ok := t.labels[k]
	if !ok {
		ls = PortLabels(job, k, t.opts)
		t.labels[k] = ls
	}
	return ls
}

// appendReg appends the template expression of the registration of task
// (k, i) for port slot (label, n); label "" means any (the address).
func (t *tmpl) appendReg(dst []byte, job *jobs.Job, k, i int, label string, n int) []byte {
	s := t.service(job, k, label, n)
	switch i {
	case self:
		return strconv.AppendInt(append(dst, "$self"...), int64(s), 10)
	case loopIdx:
		dst = strconv.AppendInt(append(dst, `(scratch.Get (print "`...), int64(s), 10)
		return append(dst, `/idx-" $i))`...)
	}
	dst = strconv.AppendInt(append(dst, `(scratch.Get "`...), int64(s), 10)
	dst = strconv.AppendInt(append(dst, "/idx-"...), int64(i), 10)
	return append(dst, `")`...)
}

// service is the number of role k's service for port slot (label, n).
func (t *tmpl) service(job *jobs.Job, k int, label string, n int) int {
	key := [3]string{job.Roles[k].Name, label, strconv.Itoa(n)}
	if label == "" {
		key = [3]string{job.Roles[k].Name, "", ""}
	}
	return t.svc[key]
}

// appendAddr appends the expression of task (k, i)'s address (a string).
func (t *tmpl) appendAddr(dst []byte, job *jobs.Job, k, i int, label string, n int) []byte {
	if !t.snap {
		return append(t.appendReg(dst, job, k, i, label, n), ".Address"...)
	}
	dst = strconv.AppendInt(append(dst, "(index $a"...), int64(k), 10)
	return append(t.appendIndex(dst, i), ')')
}

// appendPort appends the expression of task (k, i)'s port of slot
// (label, n): an int from a registration, a string from a snapshot
// (portVerb formats either).
func (t *tmpl) appendPort(dst []byte, job *jobs.Job, k, i int, label string, n int) []byte {
	if !t.snap {
		return append(t.appendReg(dst, job, k, i, label, n), ".Port"...)
	}
	dst = strconv.AppendInt(append(dst, "(index $p"...), int64(t.service(job, k, label, n)), 10)
	return append(t.appendIndex(dst, i), ')')
}

func (t *tmpl) appendIndex(dst []byte, i int) []byte {
	switch i {
	case self:
		return append(dst, " $mi"...)
	case loopIdx:
		return append(dst, " $i"...)
	}
	return strconv.AppendInt(append(dst, ' '), int64(i), 10)
}

func (t *tmpl) portVerb() string {
	if t.snap {
		return "%s"
	}
	return "%d"
}

// value compiles e to a template pipeline producing a string.
func (t *tmpl) value(job *jobs.Job, e expr) string {
	return string(t.appendValue(nil, job, e))
}

// appendValue appends the template pipeline of e to dst: a lone string
// argument as it is, otherwise (printf "<format>" <args>...). A job of N
// tasks has O(N) values of O(N) parts in all, so the text is appended
// directly, never through fmt. A pCond writes its line to t.out first.
func (t *tmpl) appendValue(dst []byte, job *jobs.Job, e expr) []byte {
	// The format has only "%s", "%d" and ",": quoted, it is itself
	// between the quotes (what strconv.Quote would write).
	format, args := t.fmtBuf[:0], t.argBuf[:0]
	nargs := 0
	arg := func(verb string) {
		format = append(format, verb...)
		args = append(args, ' ')
		nargs++
	}
	for _, p := range e {
		switch p.kind {
		case pLit:
			arg("%s")
			args = strconv.AppendQuote(args, p.lit)
		case pAddr:
			arg("%s")
			args = t.appendAddr(args, job, p.role, p.idx, "", 0)
		case pPorts:
			cnt := 0
			for _, l := range t.portLabels(job, p.role) {
				if l.Label == p.label {
					cnt = l.Count
				}
			}
			for n := range cnt {
				if n > 0 {
					format = append(format, ',')
				}
				arg(t.portVerb())
				args = t.appendPort(args, job, p.role, p.idx, p.label, n)
			}
		case pPort:
			arg(t.portVerb())
			args = t.appendPort(args, job, p.role, p.idx, p.label, p.n)
		case pHost:
			arg("%s")
			args = append(append(append(args, `(toJSON (printf "%s:`...), t.portVerb()...), `" `...)
			args = append(t.appendAddr(args, job, p.role, p.idx, p.label, p.n), ' ')
			args = append(t.appendPort(args, job, p.role, p.idx, p.label, p.n), "))"...)
		case pNode:
			// the client's own, from the task's runtime environment
			// (Nomad's template env function reads node attributes)
			arg("%s")
			args = append(append(append(args, `(env "`...), nomadNodeAttr[p.n]...), `")`...)
		case pIndex:
			if p.off == 0 {
				arg("%s")
				args = append(args, "$me"...)
			} else {
				arg("%d")
				args = strconv.AppendInt(append(args, "(add "...), int64(p.off), 10)
				args = append(args, " (parseInt $me))"...)
			}
		case pCond:
			t.tmp++
			c := "$c" + strconv.Itoa(t.tmp)
			// No "{{-" here: this line lands between two variable
			// lines, and trimming would glue it to the previous one.
			// The branches get buffers of their own: format and args
			// are in use.
			t.fmtBuf, t.argBuf = nil, nil
			a := t.appendValue(nil, job, p.alt.a)
			t.fmtBuf, t.argBuf = nil, nil
			b := t.appendValue(nil, job, p.alt.b)
			fmt.Fprintf(&t.out, "{{ %s := \"\" }}{{ if eq $me \"0\" }}{{ %s = %s }}{{ else }}{{ %s = %s }}{{ end -}}\n", c, c, a, c, b)
			arg("%s")
			args = append(args, c...)
		}
	}
	t.fmtBuf, t.argBuf = format, args
	switch {
	case nargs == 0:
		return append(dst, `""`...)
	case nargs == 1 && string(format) == "%s":
		return append(dst, args[1:]...)
	}
	dst = append(dst, `(printf "`...)
	dst = append(dst, format...)
	dst = append(dst, '"')
	dst = append(dst, args...)
	return append(dst, ')')
}
