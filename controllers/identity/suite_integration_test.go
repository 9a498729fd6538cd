//go:build integration

package identity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts the real stack once (kube-apiserver + Keystone), puts a
// counting reverse proxy in front of Keystone for the controller, and runs the
// identity controllers in-process against it. Assertions read Keystone
// directly (admin), not through the proxy, so they are not counted.

const (
	testNS      = "identity"
	testRefName = "keystone"
	testResync  = 3 * time.Second
	testBackoff = 500 * time.Millisecond
	waitTimeout = 90 * time.Second
	// refusedMarker makes a password break the test Keystone's password rule
	// (passwordRule): writing it answers 400.
	refusedMarker = "refused-by-rule"
	passwordRule  = "^(?!.*" + refusedMarker + ")"
)

var (
	stack *testenv.Stack
	k8s   client.Client
	admin *gophercloud.ServiceClient // direct to Keystone, not counted
	// adminID is the ID of the admin user both sessions authenticate as.
	adminID string
	proxy   *countingProxy
	// testScheme holds the core and keystone kinds.
	testScheme *runtime.Scheme
)

func TestMain(m *testing.M) { os.Exit(runSuite(m)) }

func runSuite(m *testing.M) int {
	flag.Parse()
	resync := testResync
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		// Benchmarks measure apply→Ready; a 3 s resync of every earlier object
		// would saturate the single-threaded Keystone.
		resync = DefaultResync
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root, err := testenv.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	crds, _ := filepath.Glob(filepath.Join(root, "config/crd/bases/keystone.osh.openstack.org_*.yaml"))
	sctx, scancel := context.WithTimeout(ctx, 10*time.Minute)
	stack, err = testenv.Start(sctx, testenv.Options{Kube: true, Keystone: true, CRDPaths: crds,
		KeystonePasswordRegex: passwordRule,
		Logf:                  func(f string, a ...any) { fmt.Fprintf(os.Stderr, "testenv: "+f+"\n", a...) }})
	scancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the stack:", err)
		return 1
	}
	defer stack.Stop()

	// Admin session straight to Keystone, for assertions and out-of-band changes.
	cfg := keystone.ConfigFromEnv(envLookup(stack.Keystone.Env()))
	direct, err := keystone.NewSession(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	admin = direct.Identity
	adminID = direct.UserID

	// The controller talks to Keystone through the counting proxy.
	proxy, err = newCountingProxy(stack.Keystone.URL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer proxy.Close()
	pcfg := cfg
	pcfg.AuthURL = proxy.URL + "/v3"
	sess, err := keystone.NewSession(ctx, pcfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	scheme := runtime.NewScheme()
	testScheme = scheme
	_ = clientgoscheme.AddToScheme(scheme)
	_ = kv1.AddToScheme(scheme)
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.Level(zapcore.Level(zapLevel()))))
	mgr, err := ctrl.NewManager(stack.Kube.Config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{testNS: {}}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := SetupWithManager(mgr, sess, Options{RefName: testRefName, Resync: resync, ProbeInterval: resync, Backoff: testBackoff}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	k8s, err = client.New(stack.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS}}); err != nil && !apierrors.IsAlreadyExists(err) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mctx, mcancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	code := m.Run()
	mcancel()
	<-done
	if code != 0 {
		for name, path := range stack.Logs() {
			if name == "keystone" {
				fmt.Fprintf(os.Stderr, "keystone log: %s\n", path)
			}
		}
	}
	return code
}

func zapLevel() int8 {
	if os.Getenv("IDENTITY_TEST_VERBOSE") != "" {
		return -1
	}
	return 0
}

func envLookup(env []string) func(string) string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// countingProxy is a reverse proxy in front of Keystone that counts requests
// by method and path template, and remembers which users' passwords were
// written (PATCH /v3/users/{id} with a password) and probed (POST
// /v3/auth/tokens naming a user ID).
type countingProxy struct {
	*httptest.Server
	mu       sync.Mutex
	requests map[string]int // "GET /v3/users" → n
	pwWrites map[string]int // user ID → n
	probes   map[string]int // user ID → n
	total    int
	// faults makes token requests naming a user fail: a status code, or -1
	// to drop the connection without a response (a network error).
	faults map[string]int
	// pathFaults makes requests "METHOD /path" fail the same way.
	pathFaults map[string]int
	// responses counts answers by "METHOD /path/{id} STATUS".
	responses map[string]int
	// lookups counts GET requests by "/path?query".
	lookups map[string]int
	// creates counts POST requests by "/path name" (the body's object name).
	creates map[string]int
	// firsts is the method of the first lookup by name (GET /path?name=)
	// or create (POST /path) of an object, by "/path name".
	firsts map[string]string
}

var idSegment = regexp.MustCompile(`/[0-9a-f]{32}`)

func newCountingProxy(target string) (*countingProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	u.Path = ""
	p := &countingProxy{requests: map[string]int{}, pwWrites: map[string]int{}, probes: map[string]int{}, faults: map[string]int{}, pathFaults: map[string]int{}, responses: map[string]int{}, lookups: map[string]int{}, creates: map[string]int{}, firsts: map[string]string{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.Method == http.MethodGet {
			p.mu.Lock()
			p.lookups[r.URL.Path+"?"+r.URL.RawQuery]++
			if name := r.URL.Query().Get("name"); name != "" {
				p.first(r.URL.Path, name, r.Method)
			}
			p.mu.Unlock()
		}
		if code := p.record(r.Method, r.URL.Path, body); code != 0 {
			if code < 0 {
				if hj, ok := w.(http.Hijacker); ok {
					if c, _, err := hj.Hijack(); err == nil {
						_ = c.Close()
						return
					}
				}
			}
			http.Error(w, `{"error": {"code": 503, "message": "injected"}}`, code)
			return
		}
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		rp.ServeHTTP(sw, r)
		p.mu.Lock()
		p.responses[fmt.Sprintf("%s %s %d", r.Method, idSegment.ReplaceAllString(r.URL.Path, "/{id}"), sw.code)]++
		p.mu.Unlock()
	}))
	return p, nil
}

// statusWriter remembers the status code of a response.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// responseCount is the number of answers with status code to "METHOD /path"
// (IDs in the path written as {id}).
func (p *countingProxy) responseCount(methodPath string, code int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.responses[fmt.Sprintf("%s %d", methodPath, code)]
}

// lookupCount is the number of GET requests to path with exactly the query
// parameters q.
func (p *countingProxy) lookupCount(path string, q url.Values) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for k, v := range p.lookups {
		kp, kq, _ := strings.Cut(k, "?")
		if got, err := url.ParseQuery(kq); kp == path && err == nil && maps.EqualFunc(got, q, slices.Equal) {
			n += v
		}
	}
	return n
}

// createCount is the number of POST requests to path creating an object named name.
func (p *countingProxy) createCount(path, name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.creates[path+" "+name]
}

// first records method as the first request naming name at path, unless
// one was recorded before; p.mu is held.
func (p *countingProxy) first(path, name, method string) {
	if _, ok := p.firsts[path+" "+name]; !ok {
		p.firsts[path+" "+name] = method
	}
}

// firstRequest is the method of the first lookup by name or create of the
// object named name at path ("" when none was sent).
func (p *countingProxy) firstRequest(path, name string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.firsts[path+" "+name]
}

var userIDInBody = regexp.MustCompile(`"id"\s*:\s*"([0-9a-f]{32})"`)

// record counts one request and returns the fault to inject, if any.
func (p *countingProxy) record(method, path string, body []byte) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total++
	p.requests[method+" "+idSegment.ReplaceAllString(path, "/{id}")]++
	if method == http.MethodPost {
		var obj map[string]struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(body, &obj) == nil && len(obj) == 1 {
			for _, o := range obj {
				p.creates[path+" "+o.Name]++
				p.first(path, o.Name, method)
			}
		}
	}
	if method == http.MethodPatch && strings.HasPrefix(path, "/v3/users/") && bytes.Contains(body, []byte(`"password"`)) {
		p.pwWrites[strings.TrimPrefix(path, "/v3/users/")]++
	}
	if method == http.MethodPost && path == "/v3/auth/tokens" {
		if m := userIDInBody.FindSubmatch(body); m != nil {
			p.probes[string(m[1])]++
			return p.faults[string(m[1])]
		}
	}
	return p.pathFaults[method+" "+path]
}

// setPathFault makes requests "METHOD /path" fail with code (-1: drop the
// connection); 0 clears it.
func (p *countingProxy) setPathFault(methodPath string, code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if code == 0 {
		delete(p.pathFaults, methodPath)
	} else {
		p.pathFaults[methodPath] = code
	}
}

// setFault makes token requests naming userID fail with code (-1: drop the
// connection); 0 clears it.
func (p *countingProxy) setFault(userID string, code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if code == 0 {
		delete(p.faults, userID)
	} else {
		p.faults[userID] = code
	}
}

func (p *countingProxy) passwordWrites(userID string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pwWrites[userID]
}

func (p *countingProxy) probeCount(userID string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.probes[userID]
}

// writes counts every request that changes Keystone, except token requests.
func (p *countingProxy) writes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for k, v := range p.requests {
		if k == "POST /v3/auth/tokens" || strings.HasPrefix(k, "GET ") || strings.HasPrefix(k, "HEAD ") {
			continue
		}
		n += v
	}
	return n
}

func (p *countingProxy) snapshot() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make(map[string]int, len(p.requests)+1)
	for k, v := range p.requests {
		m[k] = v
	}
	m["total"] = p.total
	return m
}

// --- helpers ---

// uniq returns a Keystone-safe name unique to the test.
func uniq(t *testing.T, base string) string {
	return fmt.Sprintf("%s-%d", base, time.Now().UnixNano()%1_000_000_000)
}

// kname lower-cases and replaces characters not allowed in Kubernetes names.
func kname(s string) string {
	s = strings.ToLower(s)
	return regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(s, "-")
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustCreate(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if o.GetNamespace() == "" {
			o.SetNamespace(testNS)
		}
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
		// Delete (retain: Keystone keeps the object) so later tests' resyncs
		// do not carry every earlier resource.
		t.Cleanup(func() { _ = k8s.Delete(context.Background(), o) })
	}
}

// eventually waits up to waitTimeout until cond reports true, failing the
// test with cond's last description (testenv.Eventually).
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, what, func() error {
		if ok, desc := cond(); !ok {
			return errors.New(desc)
		}
		return nil
	})
}

type kobj interface {
	client.Object
	KeystoneStatus() *kv1.CommonStatus
}

// readyOf returns the Ready condition of obj after refreshing it.
func readyOf(t *testing.T, obj kobj) *metav1.Condition {
	t.Helper()
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatalf("get %s: %v", obj.GetName(), err)
	}
	return meta.FindStatusCondition(obj.KeystoneStatus().Conditions, kv1.ConditionReady)
}

// waitReady waits until obj reports Ready=True for its current generation.
func waitReady(t *testing.T, obj kobj) {
	t.Helper()
	eventually(t, obj.GetName()+" Ready", func() (bool, string) {
		c := readyOf(t, obj)
		if c == nil {
			return false, "no Ready condition"
		}
		return c.Status == metav1.ConditionTrue && c.ObservedGeneration == obj.GetGeneration(), c.Reason + ": " + c.Message
	})
}

func secret(name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func ref() *kv1.KeystoneRef { return &kv1.KeystoneRef{Name: testRefName} }

// failedAuthCount reads Keystone's failed-login counter for a user. The
// sqlite3 read can meet Keystone's write lock ("database is locked"), so a
// locked read is retried for a bounded time.
func failedAuthCount(t *testing.T, userID string) int {
	t.Helper()
	var n int
	var err error
	eventually(t, "reading failed_auth_count", func() (bool, string) {
		n, err = stack.Keystone.FailedAuthCount(userID)
		if err != nil && !strings.Contains(err.Error(), "locked") {
			t.Fatal(err)
		}
		return err == nil, fmt.Sprint(err)
	})
	return n
}
