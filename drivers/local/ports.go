package local

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sort"
	"strconv"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// loopback is every task's address: all tasks share this machine, and
// binding only loopback keeps a tried job off the network.
const loopback = "127.0.0.1"

// ErrPortConflict: fixed ports (PAI v1 beginAt) of several tasks overlap,
// which cannot work when every task shares one address.
var ErrPortConflict = errors.New("fixed ports collide on one machine")

// ErrLeinaoLocal: a LeinaoPAI-dialect job whose tasks all bind the same
// internal ports 10001–10003 cannot run as plain processes on one address.
var ErrLeinaoLocal = errors.New("LeinaoPAI jobs need port mapping")

// refuse is a one-diagnostic refusal of the job matching kind.
func refuse(kind error, p jobs.Pos, summary, format string, args ...any) error {
	r := &refusals{}
	r.add(kind, p, summary, format, args...)
	return r.err()
}

// ErrUnsupportedContract: the contract needs something the local driver
// does not do. (No contract returns it at present: the uai contract's
// second process per node is run, see run.go.)
var ErrUnsupportedContract = errors.New("contract not supported by the local driver")

// taskNet is where one task can be reached: its address and, per port label,
// the ports other tasks use to reach it.
type taskNet struct {
	Addr  string
	Ports map[string][]int
}

// topology is the network view of one job attempt, the same for every task.
type topology map[jobs.TaskRef]taskNet

// portSource hands out free ports. It is an interface so tests can count and
// fix ports; the real one (bandPorts) tries random ports of a band.
type portSource interface {
	// Free returns n distinct ports that were free on loopback. The caller
	// must call Release after it picked every port it needs: until then
	// each is held, so no port is given twice within one allocation.
	Free(n int) ([]int, error)
	Release()
}

// bandPorts picks ports at random in [portMin, portMax] and keeps a
// listener on each until Release, so one allocation never gets a port
// twice; a port something else holds is skipped. Between Release and the
// task binding the port, another program could take it. OpenPAI had the
// same window on hostNetwork and reported it as exit code 253 (port
// conflict); here the task fails with its own bind error.
//
// The band is below the kernel's ephemeral range (Linux: 32768–60999), as
// Nomad's dynamic ports are (20000–32000), and below Nomad's band too:
// a port the kernel handed out for bind(host:0) went back to the pool
// the kernel draws every outgoing connection's and every other program's
// bind(0) port from, and on a busy machine one of those took it before the
// task bound it (a CI run: "Address already in use" in a local PyTorch
// job). Here only a program that names ports in this band can, and a
// Nomad agent on the same machine hands out none of them.
type bandPorts struct {
	host string
	ls   []net.Listener
	// pick returns a candidate port (nil: uniform in the band).
	pick func() int
}

const (
	portMin = 12000
	portMax = 19999
	// portTries bounds the candidates tried for one port: with half the
	// band taken, 64 tries all failing has probability 2^-64.
	portTries = 64
)

func (k *bandPorts) Free(n int) ([]int, error) {
	pick := k.pick
	if pick == nil {
		pick = func() int { return portMin + rand.IntN(portMax-portMin+1) }
	}
	out := make([]int, 0, n)
	for range n {
		l, err := k.listen(pick)
		if err != nil {
			return nil, err
		}
		k.ls = append(k.ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// listen holds the first candidate port that is free on k.host.
func (k *bandPorts) listen(pick func() int) (net.Listener, error) {
	var err error
	for range portTries {
		var l net.Listener
		if l, err = net.Listen("tcp", net.JoinHostPort(k.host, strconv.Itoa(pick()))); err == nil {
			return l, nil
		}
	}
	return nil, fmt.Errorf("finding a free port in %d–%d on %s (%d tries): %w", portMin, portMax, k.host, portTries, err)
}

func (k *bandPorts) Release() {
	for _, l := range k.ls {
		l.Close()
	}
	k.ls = nil
}

// allocate builds the topology of one attempt: every task gets address
// 127.0.0.1 and, for each port label the contract needs (contract.PortLabels:
// the role's ports, plus LeinaoPAI's three), either its fixed ports (PAI v1
// beginAt > 0; the user asked for those numbers) or fresh free ones.
// Kubeflow ports are never fixed here: on Kubernetes each pod had its own IP,
// so the declared containerPort (2222, 23456, ...) only named a port inside
// the pod, and several local tasks could not share it; the contract carries
// the port actually used (TF_CONFIG, MASTER_PORT).
//
// addr is every task's address: 127.0.0.1, or with bridgeOK (LeinaoPAI
// under -docker, where each container has its own network and the ports are
// published) the Docker bridge's gateway, which containers and this machine
// both reach.
func allocate(p *translate.Plan, src portSource, addr string, bridgeOK bool) (topology, error) {
	defer src.Release()
	job := p.Job
	if isLeinao(p) && job.TaskCount() > 1 && !bridgeOK {
		return nil, refuse(errors.Join(ErrLeinaoLocal, ErrPortConflict), jobPos(job), "LeinaoPAI jobs need port mapping",
			"Every task binds %v inside its container and LeinaoPAI mapped them to random host ports; "+
				"%d local processes cannot all bind them on one address. "+
				"Run with -docker (each task in its image, bridge networking, ports published), or on Nomad or Slurm.",
			contract.LeinaoPorts, job.TaskCount())
	}
	var conflicts refusals
	// A LeinaoPAI job of one task without -docker runs in this machine's
	// network, alone on its "node": PAI_PORT_MAP_1000x = 1000x.
	hostNet := isLeinao(p) && !bridgeOK
	topo := topology{}
	fixed := map[int]jobs.TaskRef{}
	for k, r := range job.Roles {
		labels := p.Compiled().Roles[k].Ports
		for i := range r.Instances {
			ref := jobs.TaskRef{Role: r.Name, Index: i}
			tn := taskNet{Addr: addr, Ports: map[string][]int{}}
			for _, p := range labels {
				if hostNet && p.Container > 0 {
					// the task binds its container ports on this machine
					// itself: no port map, so the host port is the
					// container port
					p.BeginAt = p.Container
				}
				if p.BeginAt > 0 {
					ps := make([]int, p.Count)
					for k := range ps {
						ps[k] = p.BeginAt + k
						if other, dup := fixed[ps[k]]; dup {
							conflicts.add(ErrPortConflict, p.Pos, "Fixed ports collide on one machine",
								"Port %d (label %q, beginAt %d) is wanted by %s and %s; remove beginAt to let jobshift pick free ports.",
								ps[k], p.Label, p.BeginAt, refString(other), refString(ref))
						}
						fixed[ps[k]] = ref
					}
					tn.Ports[p.Label] = append(tn.Ports[p.Label], ps...)
					continue
				}
				ps, err := src.Free(p.Count)
				if err != nil {
					return nil, err
				}
				tn.Ports[p.Label] = append(tn.Ports[p.Label], ps...)
			}
			topo[ref] = tn
		}
	}
	if err := conflicts.err(); err != nil {
		return nil, err
	}
	// A free port the kernel handed out could equal a fixed one of another
	// task; that would be a silent collision at bind time, so refuse.
	for ref, tn := range topo {
		for label, ps := range tn.Ports {
			for _, p := range ps {
				if owner, ok := fixed[p]; ok && (owner != ref || !isFixed(job, ref, label) && !(hostNet && label == contract.LeinaoLabel)) {
					return nil, fmt.Errorf("%w: free port %d picked for %s is the fixed port of %s; run again",
						ErrPortConflict, p, refString(ref), refString(owner))
				}
			}
		}
	}
	return topo, nil
}

func isFixed(job *jobs.Job, ref jobs.TaskRef, label string) bool {
	r := job.Role(ref.Role)
	if r == nil {
		return false
	}
	for _, p := range r.Ports {
		if p.Label == label && p.BeginAt > 0 {
			return true
		}
	}
	return false
}

// refs lists every task in job order: roles as written, indices ascending.
func refs(job *jobs.Job) []jobs.TaskRef {
	var out []jobs.TaskRef
	for _, r := range job.Roles {
		for i := range r.Instances {
			out = append(out, jobs.TaskRef{Role: r.Name, Index: i})
		}
	}
	return out
}

// sortedLabels returns the labels of m in a stable order for rendering.
func sortedLabels(m map[string][]int) []string {
	ls := make([]string, 0, len(m))
	for l := range m {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	return ls
}

// isLeinao reports whether the plan gives tasks the LeinaoPAI contract.
func isLeinao(p *translate.Plan) bool {
	return p.Compiled().HasContract(jobs.ContractLeinao)
}
