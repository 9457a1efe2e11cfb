package jobs

// ReadOptions are the user's choices that affect how a file is read.
type ReadOptions struct {
	// Path is the name diagnostics use ("-" for standard input).
	Path string
	// Vars are -var key=value overrides for PAI v2 parameters.
	Vars map[string]string
	// Secrets, when non-nil, are PAI v2 secrets from a -secrets FILE; they
	// take precedence over a secrets document in the job file.
	Secrets map[string]any
	// SecretSource, when set, is asked for a Kubernetes Secret a pod names
	// that neither the job file nor Secrets holds (the site's Nomad
	// Variables): only then, so a job that names none never reaches it.
	SecretSource SecretSource
	// Dialect forces a dialect ("leinao"); empty means detect.
	Dialect string
	// Runtimes are files holding Kubeflow Trainer TrainingRuntimes or
	// ClusterTrainingRuntimes a TrainJob may name (-runtime FILE, and the
	// site's runtime directory), searched after the job file itself.
	Runtimes []string
	// StoragePath maps a TrainJob initializer's storage URI that would be
	// downloaded (hf://, s3://, ...) to a directory the site holds (the
	// site's trainer { storage_uri } rules); nil = no rules.
	StoragePath func(uri string) (path string, ok bool)
	// Lossy turns "dropping this changes what the job does" errors into
	// warnings.
	Lossy bool
}

// SecretSource gives the Secret of a name as a decoded Kubernetes object
// (kind Secret), nil when it has none; its error says where it looked and
// never quotes a value.
type SecretSource func(name string) (map[string]any, error)
