package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/internal/shquote"
	"github.com/jobshift/jobshift/translate"
)

// Render implements drivers.Driver: the exact command line, working
// directory and environment of every task, as readable text. Nothing is
// started or written; free ports are probed (bound and released at once),
// and `run` probes again, so its port numbers may differ.
func (d *Driver) Render(ctx context.Context, p *translate.Plan) (*drivers.Artifact, error) {
	if p == nil || p.Job == nil {
		return nil, fmt.Errorf("local driver: no job")
	}
	dir := d.runDir(p.Job.Name, time.Now())
	specs, err := d.prepare(p, dir, 0)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# jobshift local plan: job %q (%s), %d tasks\n", p.Job.Name, p.Origin(), len(specs))
	fmt.Fprintf(&b, "# run directory: %s\n", dir)
	fmt.Fprintf(&b, "# every task starts at once, in its own process group; stop = SIGTERM, SIGKILL after %s\n", d.opts.Grace)
	fmt.Fprintf(&b, "# ports were free when this was rendered; a run picks free ports again\n")
	if d.opts.Docker {
		fmt.Fprintf(&b, "# -docker: each task runs in its image with host networking\n")
	} else {
		fmt.Fprintf(&b, "# images are not run; programs come from this machine (the environment below is added to jobshift's own)\n")
	}
	for _, s := range specs {
		fmt.Fprintf(&b, "\ntask %s\n", refString(s.Ref))
		fmt.Fprintf(&b, "  dir: %s\n", shellQuote(s.Dir))
		if s.Shared != "" {
			fmt.Fprintf(&b, "  dir shows: %s (a private overlay per start, else links; written files stay the task's)\n", shellQuote(s.Shared))
		}
		fmt.Fprintf(&b, "  command: %s\n", shellJoin(s.Argv))
		renderView(&b, s.View)
		renderProgram(&b, s.Program)
		renderOrder(&b, p.Job.Role(s.Ref.Role))
		renderInit(&b, p.Job.Role(s.Ref.Role), s.Init)
		fmt.Fprintf(&b, "  output: %s/{stdout,stderr}\n", startDir(s.TaskDir, 0, 0))
		fmt.Fprintf(&b, "  env:\n")
		for _, e := range s.Added {
			fmt.Fprintf(&b, "    %s=%s\n", e.Name, shownValue(e.Value, e.secret))
		}
		if ps := s.PS; ps != nil {
			fmt.Fprintf(&b, "  process %s (parameter server beside the task, stopped when the job ends; decides nothing)\n", ps.name())
			fmt.Fprintf(&b, "    command: %s\n", shellJoin(ps.Argv))
			fmt.Fprintf(&b, "    output: %s/{stdout,stderr}\n", psDir(ps.TaskDir, 0))
			fmt.Fprintf(&b, "    env:\n")
			for _, e := range ps.Added {
				fmt.Fprintf(&b, "      %s=%s\n", e.Name, shellQuote(e.Value))
			}
		}
	}
	return &drivers.Artifact{MediaType: "text/plain", Files: []drivers.File{{Name: p.Job.Name + ".local.txt", Data: b.Bytes()}}}, nil
}

// renderProgram says where a program file comes from, never what it holds
// (it may hold secret values).
func renderProgram(b *bytes.Buffer, p *programFile) {
	switch {
	case p == nil:
	case p.Secret:
		fmt.Fprintf(b, "  program file: %s (the script with its secrets filled in; written 0600 at each start, removed when the task ends)\n", p.Path)
	default:
		fmt.Fprintf(b, "  program file: %s (the command, %d bytes: too long for one argument; written at each start)\n", p.Path, len(p.Data))
	}
}

// shellQuote and shellJoin quote for a POSIX shell only where needed, so
// the text can be pasted into a terminal and means exactly what the task
// gets.
var (
	shellQuote = shquote.Word
	shellJoin  = shquote.WordAll
)

// Logs implements drivers.Driver: a task's latest start (its stdout, or
// stderr with opts.Stderr), or with no task the whole job's prefixed output.
// With opts.Follow it goes on reading as the run writes (follow.go) until
// the run has ended.
func (d *Driver) Logs(ctx context.Context, h drivers.Handle, opts drivers.LogOptions) (io.ReadCloser, error) {
	if h.Driver != Name || h.ID == "" {
		return nil, fmt.Errorf("local logs %q: %w", h.ID, drivers.ErrNotFound)
	}
	if opts.Task == nil {
		path := filepath.Join(h.ID, "output.log")
		if opts.Follow {
			return d.followLog(ctx, h, "", "", path)
		}
		return openLog(path)
	}
	taskDir := filepath.Join(h.ID, fmt.Sprintf("%s-%d", pathPart(opts.Task.Role), opts.Task.Index))
	starts, err := startDirs(taskDir)
	if err != nil || len(starts) == 0 {
		return nil, fmt.Errorf("local logs: task %s has no output in %s: %w", refString(*opts.Task), h.ID, drivers.ErrNotFound)
	}
	name := "stdout"
	if opts.Stderr {
		name = "stderr"
	}
	path := filepath.Join(starts[len(starts)-1], name)
	if opts.Follow {
		return d.followLog(ctx, h, taskDir, name, path)
	}
	return openLog(path)
}

func (d *Driver) followLog(ctx context.Context, h drivers.Handle, taskDir, name, path string) (io.ReadCloser, error) {
	ended := func() bool {
		st, err := d.Inspect(ctx, h)
		return err != nil || st.Ended()
	}
	fl, err := newFollower(ctx, ended, taskDir, name, path)
	if err != nil {
		return nil, fmt.Errorf("local logs: %w: %w", drivers.ErrNotFound, err)
	}
	return fl, nil
}

func openLog(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("local logs: %w: %w", drivers.ErrNotFound, err)
	}
	return f, nil
}

// startDirs lists the start directories of a task in start order.
func startDirs(taskDir string) ([]string, error) {
	ents, err := os.ReadDir(taskDir)
	if err != nil {
		return nil, err
	}
	type st struct {
		a, r int
		path string
	}
	var out []st
	for _, e := range ents {
		var a, r int
		if n, _ := fmt.Sscanf(e.Name(), "attempt-%d-restart-%d", &a, &r); n >= 1 && e.IsDir() {
			out = append(out, st{a, r, filepath.Join(taskDir, e.Name())})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].a < out[j].a || out[i].a == out[j].a && out[i].r < out[j].r })
	paths := make([]string, len(out))
	for i, s := range out {
		paths[i] = s.path
	}
	return paths, nil
}
