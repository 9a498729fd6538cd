package testenv

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/secretcache"
)

// The hub integration suites (controllers/hub/*, tests/multicluster) share
// one bootstrap: a full stack (its OpenBao with the tenant auth,
// openbao_auth.go), a client with HubScheme, the tests' own admin identity
// client, the hub namespace, a plane namespace with the admin password
// Secret and an External ControlPlane pointing at the stack's Keystone, and
// a manager with metrics and probes off; after the tests, the credential
// audit (audit.go) of the hub's log, the events and the conditions. The
// helpers below are that bootstrap. testenv imports no controllers package
// (controller tests import testenv; a reverse import would be a cycle), so
// names owned by controllers/hub/controlplane (the admin password Secret
// and key) are passed in by the suite, and the suite installs the
// ControlPlane reconciler itself from Stack.OpenBao.

// Defaults of HubSuiteOptions.
const (
	DefaultHubNamespace = "orderhub-system"
	// DefaultPlaneName is the ControlPlane's name when PlaneSeed.Name is empty.
	DefaultPlaneName = "cp"
	// HubStartTimeout bounds testenv.Start in RunHubSuite, plus the stack's
	// NodeWait (the wait for another stack's node).
	HubStartTimeout = 10 * time.Minute
)

// HubStackOptions is the full stack the hub suites run: Kubernetes with the
// garbage collector, Keystone, OpenBao, K-ORC and ESO.
func HubStackOptions() Options {
	return Options{Kube: true, ControllerManager: true, Keystone: true, OpenBao: true, KORC: true, ESO: true}
}

// PlaneSeed describes the External ControlPlane a suite starts with.
type PlaneSeed struct {
	// Namespace is created and holds the admin password Secret and the
	// ControlPlane.
	Namespace string
	// Name of the ControlPlane; default DefaultPlaneName.
	Name string
	// PasswordSecret and PasswordKey name the admin password Secret
	// (controlplane.DefaultPasswordSecret / DefaultPasswordKey); it holds
	// the stack's Keystone admin password.
	PasswordSecret, PasswordKey string
	// Spec is the ControlPlane's spec. When Services.Keystone is nil it is
	// set to External mode with the stack Keystone's URL as authURL.
	Spec c5c3v1alpha1.ControlPlaneSpec
}

// SeedPlane creates p.Namespace (unless it exists), the admin password
// Secret and the ControlPlane in c. Errors: the stack runs no Keystone, or
// the API server refused a create.
func (s *Stack) SeedPlane(ctx context.Context, c client.Client, p PlaneSeed) error {
	if s.Keystone == nil {
		return fmt.Errorf("testenv: the stack runs no Keystone")
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: p.PasswordSecret, Namespace: p.Namespace},
		Data: map[string][]byte{p.PasswordKey: []byte(s.Keystone.AdminPassword)}}); err != nil {
		return err
	}
	name := p.Name
	if name == "" {
		name = DefaultPlaneName
	}
	spec := p.Spec
	if spec.Services.Keystone == nil {
		spec.Services.Keystone = &c5c3v1alpha1.ServiceKeystoneSpec{Mode: c5c3v1alpha1.KeystoneModeExternal,
			External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: s.Keystone.URL}}
	}
	return c.Create(ctx, &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.Namespace}, Spec: spec})
}

// AdminIdentity returns an identity v3 client authenticated as the stack
// Keystone's admin (project-scoped, reauthenticating): the tests' own view
// of Keystone, independent of the reconcilers under test.
func (s *Stack) AdminIdentity(ctx context.Context) (*gophercloud.ServiceClient, error) {
	ks := s.Keystone
	if ks == nil {
		return nil, fmt.Errorf("testenv: the stack runs no Keystone")
	}
	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: ks.URL, Username: ks.AdminUser,
		Password: ks.AdminPassword, DomainName: ks.AdminUserDomain, AllowReauth: true,
		Scope: &gophercloud.AuthScope{ProjectName: ks.AdminProject, DomainName: ks.AdminProjectDomain}})
	if err != nil {
		return nil, err
	}
	return openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{Region: ks.Region})
}

// NewManager returns a controller-runtime manager on cfg with scheme, its
// metrics server and health probes off (tests run side by side), and
// controller-name validation off: several tests of one package each start a
// manager with the same controllers in one process, which controller-runtime
// otherwise refuses ("controller with name ... already exists"). Its Secret
// cache and client are the hub's (internal/secretcache): Secrets without a
// c5c3.io label are cached without their data and read whole by name.
func NewManager(cfg *rest.Config, scheme *runtime.Scheme) (ctrl.Manager, error) {
	return ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		Cache:      cache.Options{DefaultTransform: secretcache.Transform(secretcache.HasLabelPrefix, nil)},
		NewClient:  secretcache.NewClient})
}

// HubSuiteOptions configures RunHubSuite. Zero values take the defaults.
type HubSuiteOptions struct {
	// Stack is what to start; nil: HubStackOptions().
	Stack *Options
	// HubNamespace is created first; default DefaultHubNamespace.
	HubNamespace string
	// Namespaces are created after the token is seeded and before the plane.
	Namespaces []string
	// Plane, when set, is seeded with SeedPlane after Namespaces.
	Plane *PlaneSeed
}

// HubSuite is what RunHubSuite hands the suite's setup.
type HubSuite struct {
	Stack  *Stack
	Scheme *runtime.Scheme
	// Kube is a direct (uncached) client of the stack's cluster.
	Kube client.Client
	// Identity is the tests' own admin identity v3 client (AdminIdentity).
	Identity *gophercloud.ServiceClient
	// HubLog is the file the manager's log (controller-runtime's logger) is
	// written to, besides stderr; the credential audit reads it.
	HubLog string
	// Manager is a fresh manager (NewManager) on the stack's cluster.
	Manager ctrl.Manager
}

// RunHubSuite is the body of a hub integration suite's TestMain: it starts
// the stack (exit code 1 when that fails), sets controller-runtime's logger
// to stderr and HubSuite.HubLog, builds the HubSuite (scheme, client,
// identity, hub namespace, namespaces, plane, manager), calls setup (which
// registers the suite's reconcilers and returns the runnable to start beside
// the tests, usually the manager or the multicluster manager wrapping it)
// and runs the tests with Stack.RunTests. After the tests it runs the
// credential audit (AuditCredentials): an OpenBao token or a ServiceAccount
// JWT in the hub's log, an event or a condition message fails the suite
// (exit code 1; the finding names where, never the value). It stops the
// stack on return. A failing bootstrap
// step after the stack started panics, as the suites' must did. ctx passed
// to setup is cancelled when the tests end.
func RunHubSuite(m *testing.M, o HubSuiteOptions, setup func(ctx context.Context, s *HubSuite) (manager.Runnable, error)) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	so := HubStackOptions()
	if o.Stack != nil {
		so = *o.Stack
	}
	startCtx, startCancel := context.WithTimeout(ctx, HubStartTimeout+so.NodeWait)
	defer startCancel()
	stack, err := Start(startCtx, so)
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the stack: %v\n", err)
		return 1
	}
	defer func() { _ = stack.Stop() }()

	hubLog := filepath.Join(stack.Dir, "logs", "hub.log")
	logFile, err := os.OpenFile(hubLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	must(err)
	defer logFile.Close()
	ctrl.SetLogger(zap.New(zap.WriteTo(io.MultiWriter(os.Stderr, logFile))))
	s, err := newHubSuite(ctx, stack, o)
	must(err)
	s.HubLog = hubLog
	run, err := setup(ctx, s)
	must(err)
	code := stack.RunTests(m, run)
	findings, err := stack.AuditCredentials(context.Background(), s.Kube, hubLog)
	if err != nil {
		fmt.Fprintf(os.Stderr, "credential audit: %v\n", err)
		return 1
	}
	if len(findings) > 0 {
		fmt.Fprintf(os.Stderr, "credential audit: credentials in the hub's log, events or conditions:\n  %s\n", strings.Join(findings, "\n  "))
		return 1
	}
	fmt.Fprintf(os.Stderr, "credential audit: no OpenBao token or ServiceAccount JWT in the hub log (%s), the events or the ControlPlane conditions\n", hubLog)
	return code
}

func newHubSuite(ctx context.Context, stack *Stack, o HubSuiteOptions) (*HubSuite, error) {
	if o.HubNamespace == "" {
		o.HubNamespace = DefaultHubNamespace
	}
	s := &HubSuite{Stack: stack}
	var err error
	if s.Scheme, err = HubScheme(); err != nil {
		return nil, err
	}
	if s.Kube, err = client.New(stack.Kube.Config, client.Options{Scheme: s.Scheme}); err != nil {
		return nil, err
	}
	if stack.Keystone != nil {
		if s.Identity, err = stack.AdminIdentity(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.Kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.HubNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	for _, ns := range o.Namespaces {
		if err := s.Kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return nil, err
		}
	}
	if o.Plane != nil {
		if err := stack.SeedPlane(ctx, s.Kube, *o.Plane); err != nil {
			return nil, err
		}
	}
	if s.Manager, err = NewManager(stack.Kube.Config, s.Scheme); err != nil {
		return nil, err
	}
	return s, nil
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// ServeMetrics adds controller-runtime's metrics server on a free loopback
// port to mgr, serving its registry (sigs.k8s.io/controller-runtime/pkg/metrics)
// over plain HTTP, and returns the scrape URL. The port is released before
// the server binds it; a collision shows up as a start failure.
func ServeMetrics(mgr ctrl.Manager) (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	srv, err := metricsserver.NewServer(metricsserver.Options{BindAddress: addr}, mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return "", err
	}
	if err := mgr.Add(srv); err != nil {
		return "", err
	}
	return "http://" + addr + "/metrics", nil
}
