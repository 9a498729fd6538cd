//go:build integration

package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// gate is a reverse proxy in front of Keystone that drops every connection
// while it is closed, as an unreachable Keystone does.
type gate struct {
	*httptest.Server
	open atomic.Bool
}

func newGate(t *testing.T, target string) *gate {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	g := &gate{}
	rp := httputil.NewSingleHostReverseProxy(u)
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.open.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					_ = c.Close()
					return
				}
			}
			http.Error(w, "closed", http.StatusBadGateway)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Close)
	return g
}

// TestIntegration_Identity_StartsWithoutKeystone runs `orderhub identity`
// while Keystone is unreachable and then rejects the admin credential: the
// controller starts and serves /healthz, a Domain reports Ready=False naming
// first the endpoint, then the admin credential, and once Keystone answers
// and accepts the credential the Domain becomes Ready without a restart.
func TestIntegration_Identity_StartsWithoutKeystone(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true, Keystone: true})
	t.Setenv("KUBECONFIG", st.Kube.Kubeconfig)
	g := newGate(t, st.Keystone.URL)
	for _, kv := range st.Keystone.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("OS_CLOUD", "")
	t.Setenv("OS_AUTH_URL", g.URL+"/v3")
	const wrong = "not-the-admin-password"
	t.Setenv("OS_PASSWORD", wrong)

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = kv1.AddToScheme(scheme)
	c, err := client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "identity-startup"
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	port, err := webhooks.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runIdentityContext(ctx, []string{"--namespace=" + ns, "--leader-elect=false", "--metrics-bind-address=0",
			fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", port), "--error-backoff=500ms"})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("identity: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("identity did not stop within 30s")
		}
	})

	testenv.Eventually(t, time.Minute, "/healthz served while Keystone is unreachable", func() error {
		select {
		case err := <-done:
			return fmt.Errorf("orderhub identity exited: %v", err)
		default:
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", port))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("healthz: %s", resp.Status)
		}
		return nil
	})

	d := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "startup", Namespace: ns}, Spec: kv1.DomainSpec{Name: "startup-domain"}}
	if err := c.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	ready := func(want metav1.ConditionStatus, contains ...string) func() error {
		return func() error {
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(d), d); err != nil {
				return err
			}
			cond := meta.FindStatusCondition(d.Status.Conditions, kv1.ConditionReady)
			if cond == nil || cond.Status != want {
				return fmt.Errorf("Ready = %v, want %s", cond, want)
			}
			for _, s := range contains {
				if !strings.Contains(cond.Message, s) {
					return fmt.Errorf("Ready message %q does not contain %q", cond.Message, s)
				}
			}
			if strings.Contains(cond.Message, wrong) {
				return errors.New("the Ready message contains the password")
			}
			return nil
		}
	}
	testenv.Eventually(t, time.Minute, "Ready=False naming the endpoint", ready(metav1.ConditionFalse,
		"Keystone endpoint "+g.URL+"/v3 is unreachable"))

	g.open.Store(true)
	testenv.Eventually(t, time.Minute, "Ready=False naming the admin credential", ready(metav1.ConditionFalse,
		"rejected the admin credential", "user admin"))

	// Keystone now accepts what the controller holds: give the admin that password.
	cfg := keystone.ConfigFromEnv(func(k string) string {
		for _, kv := range st.Keystone.Env() {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	})
	direct, err := keystone.NewSession(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.Update(context.Background(), direct.Identity, direct.UserID, users.UpdateOpts{Password: wrong}).Extract(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "Ready=True once Keystone accepts the admin, without a restart", ready(metav1.ConditionTrue))
	select {
	case err := <-done:
		t.Fatalf("orderhub identity exited: %v", err)
	default:
	}
	cfg.Password = wrong
	after, err := keystone.NewSession(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := domains.Get(context.Background(), after.Identity, d.Status.DomainID).Extract()
	if err != nil || got.Name != "startup-domain" {
		t.Errorf("domain %s in Keystone = %v (%v), want startup-domain", d.Status.DomainID, got, err)
	}
}
