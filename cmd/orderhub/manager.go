package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/internal/secretcache"
)

// managerFlags are the flags every subcommand shares: where its metrics and
// health endpoints listen, leader election, and the namespace it watches.
type managerFlags struct {
	metricsAddr    string
	metricsSecure  bool
	metricsCertDir string
	probeAddr      string
	pprofAddr      string
	leaderElect    bool
	leaderElectNS  string
	leaderElectID  string
	// lockTarget is what this instance serves, set by the subcommand before
	// newManager; the default Lease name is derived from it (leaderElectionID).
	lockTarget []string
	namespace  string
	version    bool
	zap        zap.Options
}

func (m *managerFlags) register(fs *flag.FlagSet, name string) {
	fs.StringVar(&m.metricsAddr, "metrics-bind-address", "0", "Address of the Prometheus metrics endpoint (host:port); 0 disables it.")
	fs.BoolVar(&m.metricsSecure, "metrics-secure", true, "Serve metrics over HTTPS, allowing only callers whose token the API server authenticates (TokenReview) "+
		"and authorizes for GET on the /metrics path (SubjectAccessReview). false: plain HTTP for anyone who reaches the port.")
	fs.StringVar(&m.metricsCertDir, "metrics-cert-dir", "", "Directory holding the metrics serving certificate (tls.crt, tls.key); "+
		"empty: a self-signed certificate generated at start (with --metrics-secure).")
	fs.StringVar(&m.probeAddr, "health-probe-bind-address", defaultProbeAddr[name], "Address of the /healthz and /readyz endpoints.")
	fs.StringVar(&m.pprofAddr, "pprof-bind-address", "", "Address of the Go profiling endpoints (net/http/pprof, /debug/pprof/) for diagnosis, host:port; empty or 0 disables them. "+
		"They are unauthenticated: bind them to loopback.")
	fs.BoolVar(&m.leaderElect, "leader-elect", true, "Elect a leader so only one replica reconciles at a time.")
	fs.StringVar(&m.leaderElectNS, "leader-election-namespace", "", "Namespace of the leader election Lease (default: the watched namespace or the in-cluster one).")
	fs.StringVar(&m.leaderElectID, "leader-election-id", "", "Name of the leader election Lease. Empty: "+leaseHelp[name]+".")
	fs.StringVar(&m.namespace, "namespace", "", namespaceHelp[name])
	fs.BoolVar(&m.version, "version", false, "Print the version, commit and Go version, and exit.")
	m.zap.BindFlags(fs)
}

// defaultProbeAddr gives each subcommand its own health port, so the three
// can run side by side on one host (the local stack) without flags.
var defaultProbeAddr = map[string]string{"hub": ":8081", "identity": ":8082", "topology": ":8083"}

var leaseHelp = map[string]string{
	"hub":      "orderhub-hub",
	"identity": "orderhub-identity-<hash of the namespace, --keystone-ref-name and OS_AUTH_URL>, one Lease per Keystone served",
	"topology": "orderhub-topology-<hash of the namespace, the broker URL and RABBITMQ_CLUSTER_NAME>, one Lease per broker served",
}

var namespaceHelp = map[string]string{
	"hub":      "Namespace to watch; empty watches all namespaces the RBAC allows.",
	"identity": "Namespace to serve (the controller serves only its own namespace); defaults to $POD_NAMESPACE; required.",
	"topology": "Namespace to serve (the controller serves only its own namespace); defaults to $POD_NAMESPACE; required.",
}

// newManager builds a controller-runtime manager from the shared flags. The
// scheme must already hold every type the subcommand reads or writes. Each
// customize function may adjust the options before the manager is built (the
// hub sets its webhook server there).
func (m *managerFlags) newManager(name string, scheme *runtime.Scheme, customize ...func(*ctrl.Options)) (ctrl.Manager, error) {
	if m.zap.TimeEncoder == nil {
		m.zap.TimeEncoder = zapcore.RFC3339TimeEncoder
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&m.zap)))
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("no Kubernetes configuration (set KUBECONFIG or run in a cluster): %w", err)
	}
	lease, err := leaderElectionID(name, m.leaderElectID, m.lockTarget)
	if err != nil {
		return nil, err
	}
	opts := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 m.metricsOptions(),
		HealthProbeBindAddress:  m.probeAddr,
		PprofBindAddress:        m.pprofAddr,
		LeaderElection:          m.leaderElect,
		LeaderElectionID:        lease,
		LeaderElectionNamespace: m.leaderElectNS,
		// A replica that stops (pod deleted, rolling update) gives the Lease
		// up at once, so a standby takes over within its retry period instead
		// of waiting out the lease duration. Safe because the process exits
		// as soon as the manager returns (main).
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       ptr(10 * time.Second),
	}
	if m.namespace != "" {
		opts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{m.namespace: {}}}
		if opts.LeaderElectionNamespace == "" {
			opts.LeaderElectionNamespace = m.namespace
		}
	}
	for _, c := range customize {
		c(&opts)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return nil, err
	}
	if m.leaderElect {
		ctrl.Log.WithName(name).Info("leader election", "lease", opts.LeaderElectionNamespace+"/"+lease)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, err
	}
	return mgr, nil
}

// withoutManagedFields keeps metadata.managedFields out of the manager's
// cache (controller-runtime's cache.TransformStripManagedFields), which is
// most of an object's size once three field managers wrote it (the user's
// apply, the controller's finalizer and status patches). For the identity
// and topology controllers, which read no managed fields: they write with
// merge patches computed between two cached copies.
func withoutManagedFields(o *ctrl.Options) {
	o.Cache.DefaultTransform = cache.TransformStripManagedFields()
}

// trimHubCache keeps out of the hub's cache what the hub does not read:
// metadata.managedFields of every type but Secrets, and of a Secret's
// entries the fields each manager owns (managersOnly), since Secret
// delivery reads only which field manager applied a Secret
// (delivery/apply.Owned, Current). PushSecrets are cached as metadata only
// (eso.NewMetadata). The hub sends no update from a cached copy (it writes
// with server-side apply and with merge patches computed between two
// copies), so a trimmed object never reaches the API server.
//
// It is one default transform that tells the types apart, not a per-type
// cache.ByObject entry: a ByObject entry needs its kind's REST mapping when
// the manager starts, and the hub starts, and serves its webhooks, without
// External Secrets' CRDs installed.
//
// Secrets the hub did not write keep only their metadata in the cache, and the
// client reads them whole by name (internal/secretcache), so Secrets of
// namespaces the hub does not serve cost it no memory for their data.
func trimHubCache(o *ctrl.Options) {
	o.Cache.DefaultTransform = secretcache.Transform(secretcache.HasLabelPrefix, trimFields())
	o.NewClient = secretcache.NewClient
}

// trimTargetCache is trimHubCache for a target cluster's cache and client
// (delivery/clusters.Options.Cluster).
func trimTargetCache(o *cluster.Options) {
	o.Cache.DefaultTransform = trimFields()
	secretcache.ForCluster(o)
}

// trimFields is the managed-fields part of trimHubCache's transform, and
// for Deployments, StatefulSets and DaemonSets only what consumers.Sync reads
// (consumers.Trim).
func trimFields() toolscache.TransformFunc {
	strip := cache.TransformStripManagedFields()
	return func(obj any) (any, error) {
		if _, ok := obj.(*corev1.Secret); ok {
			return managersOnly(obj)
		}
		obj, err := strip(obj)
		if err != nil {
			return obj, err
		}
		return consumers.Trim(obj)
	}
}

// managersOnly drops the set of fields each managedFields entry owns
// (fieldsV1), keeping its manager, operation, API version, subresource and
// time. The fields sets were a fifth of the hub's live heap at 500
// application credentials (docs/performance.md, "Hub").
func managersOnly(obj any) (any, error) {
	if o, ok := obj.(metav1.Object); ok {
		mf := o.GetManagedFields()
		for i := range mf {
			mf[i].FieldsV1 = nil
		}
	}
	return obj, nil
}

// metricsOptions serves metrics over HTTPS behind controller-runtime's
// authentication and authorization filter when --metrics-secure is set.
func (m *managerFlags) metricsOptions() metricsserver.Options {
	o := metricsserver.Options{BindAddress: m.metricsAddr}
	if m.metricsSecure {
		o.SecureServing = true
		o.FilterProvider = filters.WithAuthenticationAndAuthorization
		o.CertDir = m.metricsCertDir
	}
	return o
}

// envDuration reads the environment variable name as a default for a
// duration flag: whole seconds ("10", as OpenStack-Helm's RECONCILE_INTERVAL
// is written) or a Go duration ("10s", "5m"). Unset or empty gives def; a
// value that is neither, or not positive, is an error.
func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		n, nerr := strconv.Atoi(v)
		if nerr != nil {
			return 0, fmt.Errorf("%s=%q: want seconds or a duration such as 30s", name, v)
		}
		d = time.Duration(n) * time.Second
	}
	if d <= 0 {
		return 0, fmt.Errorf("%s=%q: not positive", name, v)
	}
	return d, nil
}

// envReconcileInterval is the environment variable that sets the default of
// --resync-period for identity and topology (the OpenStack-Helm name).
const envReconcileInterval = "RECONCILE_INTERVAL"

func newScheme(adders ...func(*runtime.Scheme) error) (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme}, adders...) {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func ptr[T any](v T) *T { return &v }
