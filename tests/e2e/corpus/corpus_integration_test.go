//go:build integration

package corpus

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// TestIntegration_AdmissionCorpora applies every fixture of every suite to a
// real kube-apiserver holding the generated CRDs, with the hub's webhooks
// served in-process and registered by URL with a self-signed CA, exactly as
// `orderhub hub --webhook-url-base` does. Each rejection must carry its
// message verbatim; each admitted fixture must be stored with its Assert
// subset.
func TestIntegration_AdmissionCorpora(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true})
	pre := createBeforeWebhooks(t, st.Kube.Config)
	c := startHubWebhooks(t, st.Kube.Config)

	t.Run("stored-before-the-defaulter", func(t *testing.T) { checkStoredBeforeWebhooks(t, c, pre) })
	for _, s := range Suites() {
		t.Run(s.Dir, func(t *testing.T) {
			ns := newNamespace(t, c, s.Dir)
			for i, f := range s.Fixtures {
				t.Run(FileStem(i, f), func(t *testing.T) { runFixture(t, c, ns, f) })
			}
		})
	}
}

// createBeforeWebhooks stores two KeystoneServices without
// spec.account.userName, as a CR stored before the defaulting webhook existed
// would be. It returns their namespace.
func createBeforeWebhooks(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := newNamespace(t, c, "pre-webhook")
	for _, name := range []string{"materialized", "renamed"} {
		if err := c.Create(context.Background(), toUnstructured(t, ks(name), ns)); err != nil {
			t.Fatal(err)
		}
	}
	return ns
}

// checkStoredBeforeWebhooks exercises the one benign userName transition of
// docs/reference/keystoneservice.md (materializing the metadata.name fallback)
// and the effective-value rule CEL cannot hold (a transition rule does not run
// when the old object left the field unset).
func checkStoredBeforeWebhooks(t *testing.T, c client.Client, ns string) {
	ctx := context.Background()
	obj := func(name string) *unstructured.Unstructured { return toUnstructured(t, ks(name), ns) }
	// Any spec update runs the defaulter, which materializes userName.
	benign := []byte(`{"spec":{"account":{"adopt":true}}}`)
	if err := c.Patch(ctx, obj("materialized"), client.RawPatch(types.MergePatchType, benign)); err != nil {
		t.Fatalf("materializing the fallback must be admitted: %v", err)
	}
	got := obj("materialized")
	if err := c.Get(ctx, client.ObjectKeyFromObject(got), got); err != nil {
		t.Fatal(err)
	}
	if u, _, _ := unstructured.NestedString(got.Object, "spec", "account", "userName"); u != "materialized" {
		t.Fatalf("userName = %q, want the materialized metadata.name", u)
	}
	rename := []byte(`{"spec":{"account":{"userName":"someone-else"}}}`)
	err := c.Patch(ctx, obj("renamed"), client.RawPatch(types.MergePatchType, rename))
	if want := fmt.Sprintf(webhooks.MsgUserNameEffective, "renamed", "someone-else"); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want %q, got %v", want, err)
	}
}

// startHubWebhooks runs a manager serving the hub's webhooks on a free
// loopback port, registers the configurations and waits until the API server
// calls them.
func startHubWebhooks(t *testing.T, restCfg *rest.Config) client.Client {
	t.Helper()
	// The manager logs from its own goroutines, also after the test ends.
	ctrl.SetLogger(logr.Discard())
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	port, err := webhooks.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	urlBase := fmt.Sprintf("https://127.0.0.1:%d", port)
	whOpts, bundle, err := webhooks.URLServerOptions(urlBase, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(whOpts),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := webhooks.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	direct, err := client.New(restCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(webhooks.Registrar{Client: direct, Server: mgr.GetWebhookServer(), URLBase: urlBase, CABundle: bundle.CACert}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("webhook manager: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("webhook manager did not stop within 30s")
		}
	})

	// The API server sees new webhook configurations through an informer:
	// poll a dry-run create only the validating webhook rejects.
	ns := newNamespace(t, direct, "webhook-probe")
	probe := &v1.KeystoneService{
		ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("p", 250), Namespace: ns},
		Spec: v1.KeystoneServiceSpec{
			ControlPlaneRef: v1.ControlPlaneRefSpec{Name: "cp"},
			Catalog:         &v1.KeystoneServiceCatalogSpec{ServiceType: "probe"},
		},
	}
	var last error
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-done:
			return false, fmt.Errorf("webhook manager stopped: %v", err)
		default:
		}
		last = direct.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		return last != nil && strings.Contains(last.Error(), "metadata.name must be at most"), nil
	})
	if err != nil {
		t.Fatalf("the API server does not call the webhooks: %v (last: %v)", err, last)
	}
	return direct
}

func newNamespace(t *testing.T, c client.Client, hint string) string {
	t.Helper()
	name := hint
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.TrimRight(name, "-") + "-" + fmt.Sprint(time.Now().UnixNano()%100000)
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

func toUnstructured(t *testing.T, m M, ns string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: withNamespaceBinding(m, ns).(M)}
	u.SetNamespace(ns)
	return u
}

// withNamespaceBinding copies v, replacing the chainsaw binding
// "($namespace)" with ns, as chainsaw's templating does.
func withNamespaceBinding(v any, ns string) any {
	switch t := v.(type) {
	case M:
		out := M{}
		for k, x := range t {
			out[k] = withNamespaceBinding(x, ns)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = withNamespaceBinding(t[i], ns)
		}
		return out
	case string:
		if t == NamespaceBinding {
			return ns
		}
		return t
	default:
		return v
	}
}

func runFixture(t *testing.T, c client.Client, ns string, f Fixture) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if f.Base != nil {
		if err := c.Create(ctx, toUnstructured(t, f.Base, ns)); err != nil {
			t.Fatalf("base must be admitted: %v", err)
		}
	}
	var err error
	obj := toUnstructured(t, f.Manifest, ns)
	switch f.Op {
	case Create:
		err = c.Create(ctx, obj)
	case Update:
		// The same merge patch chainsaw's patch operation sends: the file's
		// content, nulls included.
		body, jerr := json.Marshal(withNamespaceBinding(f.Manifest, ns))
		if jerr != nil {
			t.Fatal(jerr)
		}
		err = c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, body))
	}
	if f.Message == "" {
		if err != nil {
			t.Fatalf("must be admitted (%s): %v", f.Rule, err)
		}
		if f.Assert != nil {
			assertStored(ctx, t, c, ns, f.Assert)
		}
		return
	}
	if err == nil {
		t.Fatalf("admitted, want rejection with %q (%s)", f.Message, f.Rule)
	}
	if !strings.Contains(err.Error(), f.Message) {
		t.Fatalf("rejected with\n  %v\nwant the message\n  %s", err, f.Message)
	}
}

// assertStored checks that the stored object holds every value of want.
func assertStored(ctx context.Context, t *testing.T, c client.Client, ns string, want M) {
	t.Helper()
	got := &unstructured.Unstructured{}
	got.SetAPIVersion(want["apiVersion"].(string))
	got.SetKind(want["kind"].(string))
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: want["metadata"].(M)["name"].(string)}, got); err != nil {
		t.Fatal(err)
	}
	if diff := subset("", want["spec"], got.Object["spec"]); diff != "" {
		t.Fatalf("stored object differs: %s\nstored spec: %v", diff, got.Object["spec"])
	}
}

func subset(path string, want, got any) string {
	switch w := want.(type) {
	case M:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %v", path, got)
		}
		for k, v := range w {
			if d := subset(path+"."+k, v, g[k]); d != "" {
				return d
			}
		}
		return ""
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) && !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("%s: want %v, got %v", path, want, got)
		}
		return ""
	}
}
