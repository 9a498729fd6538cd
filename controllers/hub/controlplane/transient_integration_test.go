//go:build integration

package controlplane

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// keystoneGate is a reverse proxy on loopback in front of the stack's real
// Keystone that, while failing, answers 503 (what a Keystone behind a load
// balancer answers when its backends are gone). It counts the plane's own
// token requests (User-Agent ControllerName) by outcome.
type keystoneGate struct {
	srv                 *httptest.Server
	failing             atomic.Bool
	failures, successes atomic.Int64
}

func newKeystoneGate(t *testing.T, keystoneURL string) *keystoneGate {
	t.Helper()
	u, err := url.Parse(keystoneURL)
	if err != nil {
		t.Fatal(err)
	}
	g := &keystoneGate{}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mine := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/auth/tokens") &&
			strings.Contains(r.UserAgent(), ControllerName)
		if g.failing.Load() {
			if mine {
				g.failures.Add(1)
			}
			http.Error(w, "no backend available", http.StatusServiceUnavailable)
			return
		}
		if mine {
			g.successes.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

// authURL is the gate's URL with Keystone's path (…/v3).
func (g *keystoneGate) authURL(keystoneURL string) string {
	u, _ := url.Parse(keystoneURL)
	return g.srv.URL + u.Path
}

// recheck makes the plane run a pass now: the admin password Secret is
// watched, so touching an annotation on it enqueues the plane.
func recheck(t *testing.T, cp *c5c3v1alpha1.ControlPlane, n int) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cp.Namespace, Name: DefaultPasswordSecret}}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"test.orderhub/recheck":"%d"}}}`, n)
	if err := kube.Patch(context.Background(), s, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		t.Fatal(err)
	}
}

// A Ready plane whose Keystone fails one check stays Ready, with no
// transition, when the confirming re-check succeeds; a failure that
// persists over the confirmation window is reported as EndpointUnreachable;
// the plane recovers when Keystone answers again
// (docs/reference/controlplane.md, "AdminCredentialReady").
func TestIntegration_TransientKeystoneFailureIsConfirmedBeforeReadyFalls(t *testing.T) {
	ks := stack.Keystone
	gate := newKeystoneGate(t, ks.URL)
	cp := newPlane(t, "cp-transient", gate.authURL(ks.URL), ks.AdminPassword)
	ready := waitForCondition(t, cp, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)

	// One failed check, then Keystone is back before the re-check.
	gate.failing.Store(true)
	failed := gate.failures.Load()
	recheck(t, cp, 1)
	eventually(t, waitTimeout, "the plane's check against the failing Keystone", func() error {
		if gate.failures.Load() == failed {
			return fmt.Errorf("no failed check yet")
		}
		return nil
	})
	gate.failing.Store(false)
	ok := gate.successes.Load()
	eventually(t, waitTimeout, "the confirming re-check", func() error {
		if gate.successes.Load() == ok {
			return fmt.Errorf("no successful re-check yet")
		}
		return nil
	})
	var got c5c3v1alpha1.ControlPlane
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(cp), &got); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ConditionAdminCredentialReady} {
		c := meta.FindStatusCondition(got.Status.Conditions, typ)
		if c == nil || c.Status != metav1.ConditionTrue {
			t.Fatalf("after one failed check %s is %+v, want True", typ, c)
		}
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionReady); !c.LastTransitionTime.Equal(&ready.LastTransitionTime) {
		t.Fatalf("Ready transitioned at %s after one failed check (was %s)", c.LastTransitionTime, ready.LastTransitionTime)
	}

	// A failure that persists is reported once the window has passed.
	gate.failing.Store(true)
	recheck(t, cp, 2)
	c := waitForCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonEndpointUnreachable)
	if !strings.Contains(c.Message, "503") {
		t.Errorf("EndpointUnreachable message %q does not name Keystone's answer", c.Message)
	}
	if n := gate.failures.Load() - failed; n < 3 {
		t.Errorf("reported after %d failed checks in all, want the first held and a confirming one", n)
	}
	waitForCondition(t, cp, c5c3v1alpha1.ConditionReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonNotAllReady)

	gate.failing.Store(false)
	recheck(t, cp, 3)
	waitForCondition(t, cp, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
}
