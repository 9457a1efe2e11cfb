package kubeflow

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// flavour is what differs between the operators when they read a pod
// template: the container they look for, the port they add, the variables
// they inject.
type flavour struct {
	container   string   // "tensorflow" / "pytorch"
	portName    string   // "tfjob-port" / "pytorchjob-port"
	defaultPort int      // 2222 / 23456
	operatorEnv []string // variables the operator appends to the container's env
	envPrefix   string   // variable-name prefix the operator owns ("PET_")
}

var (
	tfFlavour      = &flavour{container: "tensorflow", portName: "tfjob-port", defaultPort: 2222, operatorEnv: []string{"TF_CONFIG"}}
	pytorchFlavour = &flavour{container: "pytorch", portName: "pytorchjob-port", defaultPort: 23456,
		operatorEnv: []string{"PYTHONUNBUFFERED", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"}, envPrefix: "PET_"}
)

func (f *flavour) ownsEnv(name string) bool {
	if f.envPrefix != "" && strings.HasPrefix(name, f.envPrefix) {
		return true
	}
	for _, n := range f.operatorEnv {
		if n == name {
			return true
		}
	}
	return false
}

// podFieldWarnings are pod-spec fields jobshift cannot carry whose loss
// does not change what the job computes: placement, identity, Kubernetes
// plumbing. Each becomes a located warning (see the package comment).
var podFieldWarnings = map[string]string{
	"affinity":                      "node/pod affinity is Kubernetes placement; use the site config to constrain where tasks run",
	"nodeSelector":                  "node selection is Kubernetes placement; use the site config (gpu_type, role rules) to constrain where tasks run",
	"nodeName":                      "pinning to a Kubernetes node has no meaning on the target cluster",
	"tolerations":                   "taints and tolerations are Kubernetes placement",
	"topologySpreadConstraints":     "topology spread is Kubernetes placement",
	"schedulerName":                 "the Kubernetes scheduler choice (Volcano, kai-scheduler...) has no meaning on the target cluster",
	"priorityClassName":             "pod priority classes are Kubernetes scheduling",
	"priority":                      "pod priority is Kubernetes scheduling",
	"preemptionPolicy":              "pod preemption is Kubernetes scheduling",
	"imagePullSecrets":              "registry credentials come from the target cluster's configuration",
	"serviceAccountName":            "Kubernetes service accounts do not exist on the target cluster",
	"serviceAccount":                "Kubernetes service accounts do not exist on the target cluster",
	"automountServiceAccountToken":  "Kubernetes service accounts do not exist on the target cluster",
	"dnsPolicy":                     "tasks use the target cluster's DNS",
	"dnsConfig":                     "tasks use the target cluster's DNS",
	"hostAliases":                   "extra /etc/hosts entries are not added",
	"hostname":                      "tasks keep the host name the target cluster gives them",
	"subdomain":                     "tasks keep the host name the target cluster gives them",
	"setHostnameAsFQDN":             "tasks keep the host name the target cluster gives them",
	"securityContext":               "the task runs as the user and with the privileges the target cluster's driver gives it",
	"hostNetwork":                   "network mode is chosen by the target driver (jobshift's container drivers use host networking)",
	"hostIPC":                       "IPC namespace sharing is chosen by the target driver",
	"hostPID":                       "PID namespace sharing is chosen by the target driver",
	"shareProcessNamespace":         "PID namespace sharing is chosen by the target driver",
	"runtimeClassName":              "the container runtime is chosen by the target driver",
	"terminationGracePeriodSeconds": "the stop timeout is the target driver's",
	"activeDeadlineSeconds":         "a per-pod deadline is not enforced; use runPolicy.activeDeadlineSeconds for the job",
	"enableServiceLinks":            "Kubernetes service environment variables are not injected",
	"overhead":                      "pod overhead is Kubernetes accounting",
	"readinessGates":                "pod readiness is a Kubernetes concept",
	"os":                            "the operating system is the target node's",
	"schedulingGates":               "scheduling gates are Kubernetes scheduling",
	"resourceClaims":                "dynamic resource claims are Kubernetes-only; declare GPUs in resources.limits",
	"ephemeralContainers":           "ephemeral debug containers are Kubernetes-only",
}

// containerFieldWarnings are container fields dropped with a warning.
var containerFieldWarnings = map[string]string{
	"securityContext": "the task runs as the user and with the privileges the target cluster's driver gives it",
	"livenessProbe":   "probes are not run; a hung task is not restarted",
	"readinessProbe":  "probes are not run",
	"startupProbe":    "probes are not run",
	"resizePolicy":    "in-place resize is Kubernetes-only",
	"restartPolicy":   "container-level restart policies (native sidecars) are Kubernetes-only",
}

// containerFieldsSilent are container fields with no meaning off
// Kubernetes and no effect on the job: dropped without a diagnostic.
var containerFieldsSilent = []string{"imagePullPolicy", "terminationMessagePath", "terminationMessagePolicy", "stdin", "stdinOnce", "tty"}

// podTemplate reads a replica's pod template into role. contractPort, when
// non-nil, is the port the (list-form) replica spec itself declares;
// otherwise the flavour's named containerPort is looked up, with the
// operator's default added when absent. It returns the template's own
// restartPolicy node (nil when absent) for the caller to judge.
func (r *reader) podTemplate(role *jobs.Role, tmplNode *yaml.Node, fl *flavour, where string, contractPort *jobs.Port) *yaml.Node {
	tmpl := r.mapOf(tmplNode, where)
	// labels and annotations only matter to Kubernetes, and to the
	// downward API (fieldref.go)
	defer func(old podMeta) { r.pod = old }(r.pod)
	r.pod = r.podMetadata(tmpl.get("metadata"))
	ps := r.mapOf(tmpl.get("spec"), where+".spec")
	tmpl.warnUnknown()
	restart := ps.get("restartPolicy")
	containersField := ps.field("containers")
	containers := r.seq(containersField.val, where+".spec.containers")
	if len(containers) == 0 {
		at := containersField.key
		if at == nil {
			at = tmplNode
		}
		r.errorf(at, "No container", "%s.spec.containers must list at least one container (named %q, with an image); Kubernetes rejects a pod without containers.", where, fl.container)
		return restart
	}
	chosen := -1
	if fl.container == "" {
		chosen = 0 // MPIJob: the operator takes the first container, whatever its name
	}
	for i, c := range containers {
		if chosen >= 0 {
			break
		}
		if n, _ := r.str(r.silent().mapOf(c, "").get("name"), ""); n == fl.container {
			chosen = i
			break
		}
	}
	if chosen < 0 {
		chosen = 0
		name, _ := r.silent().str(r.silent().mapOf(containers[0], "").get("name"), "")
		// Every generation's validation rejects it: "Replica type %v is
		// missing a container named tensorflow" (v1alpha1,
		// pkg/apis/tensorflow/validation/validation.go @v0.1.0), "There is
		// no container named tensorflow" (v1alpha2 … v1beta2 @v0.3.0,
		// @v0.5.3), the v1.9 webhooks; pytorch-operator likewise (its
		// pkg/apis/pytorch/validation/validation.go).
		r.lossyf(containers[0], "No container named "+fl.container, "None of the containers of %s is named %q; the operator rejects the job (every generation's validation requires it) and reads the exit code from it. Rename the main container to %q; with -lossy jobshift uses the first one (%q).", where, fl.container, fl.container, name)
	}
	for i, c := range containers {
		if i != chosen {
			name, _ := r.silent().str(r.silent().mapOf(c, "").get("name"), "")
			r.lossyf(c, "Sidecar container dropped", "The container %q of %s would run beside the main one; jobshift runs one process per task and drops it.", name, where)
		}
	}
	volumes := map[string]*yaml.Node{}
	for _, v := range r.seq(ps.get("volumes"), where+".spec.volumes") {
		if n, ok := r.silent().str(r.silent().mapOf(v, "").get("name"), ""); ok {
			volumes[n] = v
		}
	}
	c := r.container(role, containers[chosen], fl, fmt.Sprintf("%s.spec.containers[%d]", where, chosen), contractPort)
	r.mounts(role, c, volumes)
	r.initContainers(role, ps.get("initContainers"), volumes, where+".spec.initContainers")
	for _, f := range ps.fields {
		if why, ok := podFieldWarnings[f.key.Value]; ok {
			ps.used[f.key.Value] = true
			if isFalse(f.val) {
				continue // hostNetwork: false, affinity: {} change nothing
			}
			r.warnf(f.key, "Pod setting ignored: "+f.key.Value, "%s.spec.%s is ignored: %s.", where, f.key.Value, why)
		}
	}
	ps.warnUnknown()
	return restart
}

// isFalse reports an explicit `false` / empty value, which needs no warning
// (hostNetwork: false changes nothing).
func isFalse(n *yaml.Node) bool {
	n = deref(n)
	if isNull(n) {
		return true
	}
	return (n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && strings.EqualFold(n.Value, "false")) ||
		(n.Kind != yaml.ScalarNode && len(n.Content) == 0)
}

// silent returns a reader whose diagnostics are thrown away, for probing
// values another pass reports on.
func (r *reader) silent() *reader { return &reader{path: r.path} }

// mounts resolves the chosen container's volumeMounts against the pod's
// volumes. hostPath, emptyDir and nfs are carried; a memory emptyDir at
// /dev/shm becomes the shm size; configMap and secret volumes become files
// (objectVolume). Any other volume (PVC, azureFile, ...) is carried with
// its kind and its claim or share name, and Used when the command, args,
// workingDir or an env value names a path under its mountPath: whether the
// site provides it is decided by translate.Build, which knows the site's
// volume rules.
func (r *reader) mounts(role *jobs.Role, c *containerInfo, volumes map[string]*yaml.Node) {
	for i, mn := range c.mounts {
		where := fmt.Sprintf("%s.volumeMounts[%d]", c.where, i)
		m := r.mapOf(mn, where)
		name, _ := r.str(m.get("name"), where+".name")
		mpNode := m.get("mountPath")
		mountPath, _ := r.str(mpNode, where+".mountPath")
		ro, _ := r.boolean(m.get("readOnly"), where+".readOnly")
		sub, _ := r.str(m.get("subPath"), where+".subPath")
		m.ignore("mountPropagation", "subPathExpr", "recursiveReadOnly")
		m.warnUnknown()
		if mountPath == "" {
			r.errorf(mn, "Missing mountPath", "%s needs a mountPath; Kubernetes rejects the mount without one.", where)
			continue
		}
		vn, ok := volumes[name]
		if !ok {
			r.errorf(mn, "Unknown volume", "%s mounts the volume %q, which the pod's volumes do not define; Kubernetes rejects this. Add it under spec.volumes or fix the name.", where, name)
			continue
		}
		vol := r.mapOf(vn, "volume "+name)
		vol.ignore("name")
		kind := ""
		for _, f := range vol.fields {
			if f.key.Value != "name" {
				kind = f.key.Value
			}
		}
		src := r.mapOf(vol.get(kind), "volume "+name+"."+kind)
		pos := r.pos(mn)
		join := func(p string) string {
			if sub == "" {
				return p
			}
			return strings.TrimRight(p, "/") + "/" + sub
		}
		switch kind {
		case "hostPath":
			p, _ := r.str(src.get("path"), "hostPath.path")
			src.ignore("type")
			role.Volumes = append(role.Volumes, jobs.Volume{Name: name, Kind: "hostPath", Source: join(p), MountPath: mountPath, ReadOnly: ro, Pos: pos})
		case "nfs":
			server, _ := r.str(src.get("server"), "nfs.server")
			p, _ := r.str(src.get("path"), "nfs.path")
			nro, _ := r.boolean(src.get("readOnly"), "nfs.readOnly")
			role.Volumes = append(role.Volumes, jobs.Volume{Name: name, Kind: "nfs", Source: server + ":" + join(p), MountPath: mountPath, ReadOnly: ro || nro, Pos: pos})
		case "emptyDir":
			medium, _ := r.str(src.get("medium"), "emptyDir.medium")
			limit := src.get("sizeLimit")
			if medium == "Memory" && strings.TrimRight(mountPath, "/") == "/dev/shm" {
				role.Resources.ShmSet = true
				role.Resources.ShmMiB = role.Resources.MemoryMiB // Kubernetes sizes it like the pod's memory limit
				if limit != nil {
					if q, ok := r.quantity(limit, "emptyDir.sizeLimit"); ok {
						role.Resources.ShmMiB, _ = ceilInt64(q, scaleMiB)
					}
				}
				continue
			}
			var size int64
			if limit != nil {
				if q, ok := r.quantity(limit, "emptyDir.sizeLimit"); ok {
					size, _ = ceilInt64(q, scaleMiB)
				}
			}
			role.Volumes = append(role.Volumes, jobs.Volume{Name: name, Kind: "emptyDir", Source: medium, MountPath: mountPath, ReadOnly: ro, SizeMiB: size, Pos: pos})
		case "configMap", "secret":
			r.objectVolume(role, kind, src, mn, mountPath, sub, c.uses(mountPath))
			continue
		case "":
			r.errorf(mn, "Volume without a source", "The volume %q mounted at %s has an empty volume source; Kubernetes rejects it.", name, mountPath)
			continue
		default:
			// PVC, azureFile, cephfs, ...: what the site has under that
			// name is known where the site config is (translate.Build).
			role.Volumes = append(role.Volumes, jobs.Volume{Name: name, Kind: kind, Source: claimName(r, src, kind),
				MountPath: mountPath, ReadOnly: ro, SubPath: sub, Used: c.uses(mountPath), Pos: pos})
			continue
		}
		src.warnUnknown()
	}
}

// initFlavour reads an init container: no operator port, no operator
// variables (the operators set their env on the pod's containers only).
var initFlavour = &flavour{}

// initContainers reads spec.initContainers into role.Init, in order. An
// init container with restartPolicy Always is a native sidecar (it runs
// beside the main container, Kubernetes v1.29+), not a step: dropped like
// any sidecar.
func (r *reader) initContainers(role *jobs.Role, n *yaml.Node, volumes map[string]*yaml.Node, where string) {
	for i, cn := range r.seq(n, where) {
		w := fmt.Sprintf("%s[%d]", where, i)
		probe := r.silent().mapOf(cn, "")
		name, _ := r.silent().str(probe.get("name"), "")
		if rp, _ := r.silent().str(probe.get("restartPolicy"), ""); rp == "Always" {
			r.lossyf(cn, "Sidecar container dropped", "The init container %q of %s has restartPolicy Always: it is a sidecar that runs beside the main container; jobshift runs one process per task and drops it.", name, where)
			continue
		}
		if name == "" {
			r.errorf(cn, "Missing init container name", "%s has no name; Kubernetes rejects it.", w)
		}
		step := &jobs.Role{Name: role.Name}
		info := r.container(step, cn, initFlavour, w, nil)
		r.mounts(step, info, volumes)
		role.Init = append(role.Init, jobs.InitStep{Name: name, Image: step.Image, ImagePos: step.ImagePos,
			Command: step.Command, WorkingDir: step.WorkingDir, Env: step.Env, Volumes: step.Volumes, Pos: r.pos(cn)})
	}
}

// claimName is the name a site volume rule matches besides the volume's
// own: a PVC's claimName, an azureFile's shareName.
func claimName(r *reader, src *mapping, kind string) string {
	key := map[string]string{"persistentVolumeClaim": "claimName", "azureFile": "shareName"}[kind]
	if key == "" {
		return ""
	}
	n, _ := r.silent().str(src.get(key), "")
	return n
}
