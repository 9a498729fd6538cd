//go:build integration

package topology

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (etcd + kube-apiserver with this
// repository's CRDs, kube-controller-manager for garbage collection, and a
// RabbitMQ broker) and runs the seven controllers
// in-process against it, in the namespace suiteNS, with a short resync so
// drift repair is observable.

const (
	suiteNS     = "topology-it"
	clusterName = "rabbitmq"
	suiteResync = 3 * time.Second
	waitTimeout = 60 * time.Second
)

var (
	stack  *testenv.Stack
	scheme *runtime.Scheme
	kube   client.Client
	admin  *rabbithole.Client // the tests' own view of the broker
	ctrls  *Controllers
)

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startCtx, startCancel := context.WithTimeout(ctx, 10*time.Minute)
	defer startCancel()
	var err error
	stack, err = testenv.Start(startCtx, testenv.Options{Kube: true, ControllerManager: true, RabbitMQ: true})
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the stack: %v\n", err)
		return 1
	}
	defer func() { _ = stack.Stop() }()

	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	scheme = runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	must(rmqv1.AddToScheme(scheme))
	kube, err = client.New(stack.Kube.Config, client.Options{Scheme: scheme})
	must(err)
	must(kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: suiteNS}}))

	r := stack.RabbitMQ
	admin, err = rabbithole.NewClient(r.URL, r.User, r.Password)
	must(err)

	mgr, broker := newManager(suiteNS, nil)
	ctrls, err = SetupWithManager(ctx, mgr, Options{
		Broker: broker, ClusterName: clusterName, Namespace: suiteNS,
		ResyncPeriod: suiteResync, BackoffBase: 200 * time.Millisecond, BackoffMax: 2 * time.Second,
		DeleteGuestUser: true, GuestInterval: 500 * time.Millisecond,
	})
	must(err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	code := m.Run()
	cancel()
	if err := <-done; err != nil {
		fmt.Fprintf(os.Stderr, "manager: %v\n", err)
	}
	return code
}

// newManager builds a manager watching namespace ns and a broker client
// whose requests pass through transport (nil: the default one).
func newManager(ns string, transport http.RoundTripper) (ctrl.Manager, *rabbithole.Client) {
	return newManagerLogged(ns, transport, ctrl.Log)
}

// newManagerLogged is newManager with the controllers logging to logger.
func newManagerLogged(ns string, transport http.RoundTripper, logger logr.Logger) (ctrl.Manager, *rabbithole.Client) {
	mgr, err := ctrl.NewManager(stack.Kube.Config, ctrl.Options{
		Logger:                 logger,
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Controller:             config.Controller{SkipNameValidation: ptr(true)},
	})
	must(err)
	r := stack.RabbitMQ
	broker, err := rabbitmq.NewClient(rabbitmq.Config{Scheme: "http", Host: r.Host, Port: r.ManagementPort,
		Username: r.User, Password: r.Password, ClusterName: clusterName}, transport)
	must(err)
	return mgr, broker
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func ptr[T any](v T) *T { return &v }

// eventually waits up to waitTimeout on f with testenv.Eventually.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, what, f)
}

var nameSeq atomic.Int64

// uniq returns a name unique within the suite run.
func uniq(prefix string) string {
	return prefix + "-" + strconv.FormatInt(nameSeq.Add(1), 10)
}

func ref() rmqv1.RabbitmqClusterReference { return rmqv1.RabbitmqClusterReference{Name: clusterName} }

func meta_(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: suiteNS, Name: name} }

func raw(js string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(js)} }

// create creates obj and registers its deletion (waiting until it is gone)
// as cleanup.
func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
	t.Cleanup(func() { deleteAndWait(t, obj) })
}

// deleteAndWait deletes obj and waits until it is gone from the API, which
// with deletionPolicy delete means the controller finalized it.
func deleteAndWait(t *testing.T, obj client.Object) {
	t.Helper()
	ctx := context.Background()
	if err := kube.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete %T %s: %v", obj, obj.GetName(), err)
	}
	key := client.ObjectKeyFromObject(obj)
	probe := obj.DeepCopyObject().(client.Object)
	eventually(t, fmt.Sprintf("%T %s is gone", obj, key), func() error {
		err := kube.Get(ctx, key, probe)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("still present, finalizers %v", probe.GetFinalizers())
	})
}

// readyStatus reads obj and returns its Ready condition and the generation
// it was read at.
func readyStatus(obj object) (*metav1.Condition, error) {
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		return nil, err
	}
	return meta.FindStatusCondition(obj.TopologyStatus().Conditions, rmqv1.ConditionReady), nil
}

// waitReady waits until obj's current generation is Ready=True.
func waitReady(t *testing.T, obj object) {
	t.Helper()
	eventually(t, fmt.Sprintf("%T %s is Ready", obj, obj.GetName()), func() error {
		c, err := readyStatus(obj)
		if err != nil {
			return err
		}
		if c == nil {
			return errors.New("no Ready condition")
		}
		if c.Status != metav1.ConditionTrue || obj.TopologyStatus().ObservedGeneration != obj.GetGeneration() {
			return fmt.Errorf("Ready=%s (%s: %s), observedGeneration %d of %d", c.Status, c.Reason, c.Message,
				obj.TopologyStatus().ObservedGeneration, obj.GetGeneration())
		}
		return nil
	})
}

// brokerGone turns a GET into "nil when the broker answers 404".
func brokerGone(err error) error {
	if err == nil {
		return errors.New("still present in the broker")
	}
	if rabbitmq.IsNotFound(err) {
		return nil
	}
	return err
}

// loginAs checks that username/password authenticate against the
// management API (the user needs the management tag).
func loginAs(username, password string) error {
	c, err := rabbithole.NewClient(stack.RabbitMQ.URL, username, password)
	if err != nil {
		return err
	}
	w, err := c.Whoami()
	if err != nil {
		return err
	}
	if w.Name != username {
		return fmt.Errorf("whoami says %q", w.Name)
	}
	return nil
}

// countingTransport counts management API requests by method.
type countingTransport struct {
	next                   http.RoundTripper
	get, put, post, delete atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet:
		c.get.Add(1)
	case http.MethodPut:
		c.put.Add(1)
	case http.MethodPost:
		c.post.Add(1)
	case http.MethodDelete:
		c.delete.Add(1)
	}
	return c.next.RoundTrip(req)
}

func rabbitholeUser(password string) rabbithole.UserSettings {
	return rabbithole.UserSettings{Password: password, Tags: rabbithole.UserTags{"administrator"}}
}

// startOwnControllers runs a second set of the seven controllers, serving a
// new namespace of its own with opts (Broker, ClusterName and Namespace are
// filled in), its broker requests passing through transport (nil: the
// default one). It returns the namespace; the controllers stop with the test.
func startOwnControllers(t *testing.T, prefix string, opts Options, transport http.RoundTripper) string {
	t.Helper()
	return startOwnControllersLogged(t, prefix, opts, transport, ctrl.Log)
}

// startOwnControllersLogged is startOwnControllers with the controllers
// logging to logger.
func startOwnControllersLogged(t *testing.T, prefix string, opts Options, transport http.RoundTripper, logger logr.Logger) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ns := uniq(prefix)
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	mgr, broker := newManagerLogged(ns, transport, logger)
	opts.Broker, opts.ClusterName, opts.Namespace = broker, clusterName, ns
	if _, err := SetupWithManager(ctx, mgr, opts); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return ns
}
