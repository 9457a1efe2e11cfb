package multihost_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// minAvailable is the memory the host must keep while a scale job runs:
// below it the job is stopped (the test fails) before the OOM killer picks
// a process, maybe another suite's, on this shared host.
// JOBSHIFT_SCALE_MIN_AVAILABLE_MB lowers it on a host that runs nothing
// else (the kernel's OOM killer then picks one of the cluster's agents).
func minAvailable() int64 {
	if mb, err := strconv.ParseInt(os.Getenv("JOBSHIFT_SCALE_MIN_AVAILABLE_MB"), 10, 64); err == nil && mb > 0 {
		return mb << 20
	}
	return 4 << 30
}

// TestNomadThousandTasks (issue 15, done means): the jobs of
// TestSlurmThousandTasks — a 1,000-task PAI job and a 1,000-task TFJob —
// run to success on the multi-host Nomad cluster, and every task's process
// environment holds exactly the oracle's contract for the addresses and
// ports Nomad gave, and no topology input of jobshift's. The site config
// disables task logs (nomad.task_logs = false: no logmon per task, ≈ 13 MB
// each), so each task dumps its environment to a file named after its
// allocation in a directory every host sees (JOBSHIFT_SCALE_TASKLOGS=1
// keeps the logs, to measure their cost). It needs clients declaring
// enough cores for ceil(n/3) one-core tasks each (JOBSHIFT_CLUSTER_CPUS=512
// at `cluster.sh up nomad`); it runs only with JOBSHIFT_SCALE=1 (minutes per
// job, GBs of memory, every core busy). The cluster's site config sets the
// helper, so each raw_exec task evaluates its environment itself
// (drivers/nomad taskenv.go) and no client agent holds a PAI task's
// ≈ 7,000 variables: both jobs run on a 24 GiB host (the PAI job in ≈ 23
// min on 2 cores; with the env template its agents ran the host out of
// memory: BENCHMARKS.md "The environment evaluated in the task").
func TestNomadThousandTasks(t *testing.T) {
	if os.Getenv("JOBSHIFT_SCALE") != "1" {
		t.Skip("set JOBSHIFT_SCALE=1 to run the 1,000-task jobs (minutes)")
	}
	c := need(t, "nomad")
	cl := nomadClient(t, c)
	n := scaleTasks(t)
	needNomadCPUs(t, cl, n)
	site := *c.Site
	nc := *site.Nomad
	logs := os.Getenv("JOBSHIFT_SCALE_TASKLOGS") == "1"
	nc.TaskLogs = &logs
	site.Nomad = &nc
	sc := &cluster{Engine: c.Engine, Env: c.Env, Hosts: c.Hosts, Site: &site}
	dir := t.TempDir()
	for _, name := range []string{"pai", "tf"} {
		t.Run(name, func(t *testing.T) {
			dump := t.TempDir()
			text := nomadScaleJob(name, n, dump, t.TempDir())
			path := filepath.Join(dir, name+".yaml")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			plan := loadPlan(t, sc, path)
			plan.Options["id"] = fmt.Sprintf("mh-scale-%s-%d", name, time.Now().UnixNano()%1e9)
			mon := watchScale(t, cl, plan.Options["id"], hostNetns(c))
			start := time.Now()
			res, id := runNomad(t, sc, plan, 45*time.Minute) // 1,000 task starts on 2 cores: 11 to 25 min seen
			took := time.Since(start)
			mon.stop()
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("final = %+v; %s", res, mon)
			}
			t.Logf("%d tasks: submit -> succeeded %s; %s", n, took.Round(100*time.Millisecond), mon)
			tasks := nomadTasks(t, cl, id)
			topo := nomadTopology(plan, id, tasks)
			checkNodes(t, sc, cl, plan, topo, tasks)
			t.Logf("env template rendered after the snapshot's write: %s", renderLag(cl, tasks, mon.written()))
			byTask := map[jobs.TaskRef]string{}
			for _, nt := range tasks {
				byTask[jobs.TaskRef{Role: nt.role, Index: nt.index}] = nt.alloc.ID
			}
			checkScaleEnv(t, plan.Job, topo, contract.Options{User: plan.User, Contracts: plan.Contracts}, repoRoot(),
				func(ref jobs.TaskRef) map[string]string {
					b, err := os.ReadFile(filepath.Join(dump, byTask[ref]))
					if err != nil {
						t.Errorf("%s-%d: no environment dump: %v", ref.Role, ref.Index, err)
					}
					return parseEnv0(string(b))
				})
		})
	}
}

// nomadScaleJob is TestSlurmThousandTasks' job with each environment dump
// written to dump/<allocation ID> instead of stdout (task logs are off).
func nomadScaleJob(name string, n int, dump, mark string) string {
	to := ` >` + dump + `/$NOMAD_ALLOC_ID`
	if name == "pai" {
		return strings.ReplaceAll(fmt.Sprintf(scalePAI, n/100+1, n-n/100-1), "commands: [env -0]", "commands: ['env -0"+to+"']")
	}
	return strings.ReplaceAll(fmt.Sprintf(scaleTF, n-1, mark), "env -0", "env -0"+to)
}

// needNomadCPUs skips when the 3 clients a job is spread over do not
// declare the cores of ceil(n/3) one-core tasks each.
func needNomadCPUs(t *testing.T, cl *api.Client, n int) {
	t.Helper()
	stubs, _, err := cl.Nodes().List(&api.QueryOptions{Params: map[string]string{"resources": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	var per []int
	for _, s := range stubs {
		if s.NodeResources != nil {
			per = append(per, int(s.NodeResources.Cpu.CpuShares)/1000)
		}
	}
	if len(per) < 3 || minInt(per) < (n+2)/3 {
		t.Skipf("clients declare %v cores; %d one-core tasks over 3 clients need %d each (scripts/cluster.sh down nomad, then JOBSHIFT_CLUSTER_CPUS=512 scripts/cluster.sh up nomad)", per, n, (n+2)/3)
	}
}

// scaleMonitor samples, every 2 seconds while a job runs, the host's
// memory in use (MemTotal - MemAvailable), the private memory of Nomad's
// per-task processes (executor, logmon) and the size of the job's
// snapshot Variable; it stops the job when the host runs short.
type scaleMonitor struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu                  sync.Mutex
	base, peak          int64 // bytes in use at the start, at most
	peakExec, peakLog   int   // processes at the sample of peak memory
	privExec, privLog   int64 // their Private_Dirty sum then
	privAgents          int64 // the clients' (and server's) agents' then
	peakFin             int   // finishers (jobshift nomad-finish) then
	privFin             int64
	varBytes, load, low string
	varWritten          time.Time // the snapshot's write (server clock = this host's)
}

func watchScale(t *testing.T, cl *api.Client, id string, netns map[string]bool) *scaleMonitor {
	ctx, cancel := context.WithCancel(context.Background())
	m := &scaleMonitor{cancel: cancel, done: make(chan struct{}), base: memUsed()}
	go func() {
		defer close(m.done)
		for {
			m.sample(cl, id, netns)
			select {
			case <-ctx.Done():
				return
			case <-time.After(2 * time.Second):
			}
		}
	}()
	t.Cleanup(m.stop)
	return m
}

func (m *scaleMonitor) stop() {
	m.cancel()
	<-m.done
}

func (m *scaleMonitor) sample(cl *api.Client, id string, netns map[string]bool) {
	used := memUsed()
	if memAvailable() < minAvailable() {
		m.mu.Lock()
		m.low = fmt.Sprintf("stopped: %d MiB available", memAvailable()>>20)
		m.mu.Unlock()
		_, _, _ = cl.Jobs().Deregister(id, false, nil)
	}
	m.mu.Lock()
	peak := used > m.peak
	if peak {
		m.peak = used
		la, _ := os.ReadFile("/proc/loadavg")
		m.load = strings.Join(strings.Fields(string(la))[:3], " ")
	}
	m.mu.Unlock()
	if peak {
		ne, pe, nl, pl, pa, nf, pf := nomadTaskProcs(netns)
		m.mu.Lock()
		m.peakExec, m.privExec, m.peakLog, m.privLog, m.privAgents, m.peakFin, m.privFin = ne, pe, nl, pl, pa, nf, pf
		m.mu.Unlock()
	}
	if vs, _, err := cl.Variables().PrefixList(nomad.VariablePath(id)+"/", nil); err == nil && len(vs) > 0 {
		if v, _, err := cl.Variables().Peek(vs[0].Path, nil); err == nil && v != nil {
			size := 0
			for k, x := range v.Items {
				size += len(k) + len(x) + 6 // as topology.go counts it
			}
			m.mu.Lock()
			m.varBytes = fmt.Sprintf("%d bytes in %d items, %d Variables", size, len(v.Items), len(vs))
			m.varWritten = time.Unix(0, v.ModifyTime)
			m.mu.Unlock()
		}
	}
}

func (m *scaleMonitor) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := fmt.Sprintf("host memory in use %d MiB at start, peak %d MiB (+%d MiB; load %s); then Nomad agents %d MiB private dirty, %d executors (%d MiB), %d logmons (%d MiB) and %d finishers (%d MiB); snapshot Variable %s",
		m.base>>20, m.peak>>20, (m.peak-m.base)>>20, m.load, m.privAgents>>20, m.peakExec, m.privExec>>20, m.peakLog, m.privLog>>20, m.peakFin, m.privFin>>20, m.varBytes)
	if m.low != "" {
		s += "; " + m.low
	}
	return s
}

func (m *scaleMonitor) written() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.varWritten
}

// renderLag is how long after the snapshot's write (at) each task's env
// template was rendered (the file's modification time, through the
// AllocFS API; server and clients share this host's clock): min, median,
// 90th percentile, max.
func renderLag(cl *api.Client, tasks []nomadTask, at time.Time) string {
	if at.IsZero() {
		return "snapshot Variable not seen"
	}
	var lags []time.Duration
	for _, nt := range tasks {
		fi, _, err := cl.AllocFS().Stat(nt.alloc, nomad.MainTask+"/local/jobshift.env", nil)
		if err != nil {
			continue
		}
		lags = append(lags, fi.ModTime.Sub(at))
	}
	if len(lags) == 0 {
		return "no env file found"
	}
	slices.Sort(lags)
	q := func(f float64) time.Duration { return lags[int(f*float64(len(lags)-1))].Round(time.Millisecond) }
	return fmt.Sprintf("%d files: min %s, median %s, p90 %s, max %s", len(lags), q(0), q(0.5), q(0.9), q(1))
}

// meminfo reads one /proc/meminfo field in bytes.
func meminfo(field string) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func memAvailable() int64 { return meminfo("MemAvailable") }
func memUsed() int64      { return meminfo("MemTotal") - memAvailable() }

// hostNetns is the network namespaces of the cluster's hosts (as
// /proc/<pid>/ns/net links read): the processes of its clients, not those
// of other engines on this machine.
func hostNetns(c *cluster) map[string]bool {
	out := map[string]bool{}
	for name := range c.Hosts {
		var st syscall.Stat_t
		if syscall.Stat("/run/netns/"+name, &st) == nil {
			out[fmt.Sprintf("net:[%d]", st.Ino)] = true
		}
	}
	return out
}

// nomadTaskProcs counts the cluster's Nomad executor and logmon processes
// (argv[1] is the plugin's name; netns: hostNetns) and the in-job
// finishers (jobshift nomad-finish) and sums their Private_Dirty, and the
// agents'.
func nomadTaskProcs(netns map[string]bool) (nExec int, privExec int64, nLog int, privLog, privAgents int64, nFin int, privFin int64) {
	pids, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range pids {
		if ns, err := os.Readlink(p + "/ns/net"); err != nil || !netns[ns] {
			continue
		}
		cmd, err := os.ReadFile(p + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(cmd), "\x00")
		if len(args) < 2 {
			continue
		}
		if filepath.Base(args[0]) == "jobshift" && args[1] == "nomad-finish" {
			nFin++
			privFin += privateDirty(p)
			continue
		}
		if filepath.Base(args[0]) != "nomad" {
			continue
		}
		switch args[1] {
		case "executor":
			nExec++
			privExec += privateDirty(p)
		case "logmon":
			nLog++
			privLog += privateDirty(p)
		case "agent":
			privAgents += privateDirty(p)
		}
	}
	return
}

func privateDirty(proc string) int64 {
	b, err := os.ReadFile(proc + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "Private_Dirty:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
