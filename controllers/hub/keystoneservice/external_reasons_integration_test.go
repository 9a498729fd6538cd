//go:build integration

package keystoneservice

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// passedByTest holds the token requests the suite's ControlPlane Verifier
// passes without asking Keystone, keyed by "authURL:<url>", "region:<id>" or
// "password:<password>" (hub-internal fault injection, see
// TestReasons_ExternalModeOnTheCatalog).
var passedByTest sync.Map

// suiteVerifier is controlplane.KeystoneVerifier, except for the requests
// in passedByTest.
type suiteVerifier struct{}

func (suiteVerifier) Verify(ctx context.Context, r controlplane.TokenRequest) error {
	for _, k := range []string{"authURL:" + r.AuthURL, "region:" + r.Region, "password:" + r.Password} {
		if _, ok := passedByTest.Load(k); ok {
			return nil
		}
	}
	return controlplane.KeystoneVerifier{}.Verify(ctx, r)
}

// TestReasons_ExternalModeOnTheCatalog: against an External plane, K-ORC's
// failure to reach, authenticate at or find Keystone is classified on the
// registration's CatalogReady (docs/reference/keystoneservice.md,
// "Conditions"): a new endpoint row of a registered service reports
// EndpointUnreachable (authURL refuses connections), AuthenticationFailed
// (the admin password no longer authenticates: Keystone answers 401) or
// CatalogEndpointMismatch (the plane's region has no identity endpoint in
// the catalog), each with K-ORC's message, and registers once the plane is
// right again.
//
// Fault injection inside the hub: the suite's ControlPlane Verifier passes
// the broken plane's admin check without asking Keystone
// (passedByTest). In this stack the hub's check and K-ORC's call use the
// same network, credential and catalog, so no real server fails one and
// not the other, and the plane's own classified reason would close the
// registration's gate (WaitingForAdminCredential) first. A hub that reaches
// Keystone where K-ORC does not (another network, a stale admin Secret in
// K-ORC's cache) is what the injection stands for. The Keystone answers and
// K-ORC's errors are real.
func TestReasons_ExternalModeOnTheCatalog(t *testing.T) {
	for _, c := range []struct {
		name, reason, want string
		key                string
		breakPlane         func(t *testing.T, cp *c5c3v1alpha1.ControlPlane)
		fixPlane           func(t *testing.T, cp *c5c3v1alpha1.ControlPlane)
	}{
		{name: "EndpointUnreachable", reason: c5c3v1alpha1.ReasonEndpointUnreachable, want: "connection refused",
			key: "authURL:http://127.0.0.1:1/v3",
			breakPlane: func(t *testing.T, cp *c5c3v1alpha1.ControlPlane) {
				setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) {
					p.Spec.Services.Keystone.External.AuthURL = "http://127.0.0.1:1/v3"
				})
			},
			fixPlane: func(t *testing.T, cp *c5c3v1alpha1.ControlPlane) {
				setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) { p.Spec.Services.Keystone.External.AuthURL = stack.Keystone.URL })
			}},
		{name: "AuthenticationFailed", reason: c5c3v1alpha1.ReasonAuthenticationFailed, want: "",
			key:        "password:not-the-admin-password",
			breakPlane: func(t *testing.T, cp *c5c3v1alpha1.ControlPlane) { setPassword(t, cp, "not-the-admin-password") },
			fixPlane:   func(t *testing.T, cp *c5c3v1alpha1.ControlPlane) { setPassword(t, cp, stack.Keystone.AdminPassword) }},
		{name: "CatalogEndpointMismatch", reason: c5c3v1alpha1.ReasonCatalogEndpointMismatch, want: "No suitable endpoint",
			key: "region:RegionNowhere",
			breakPlane: func(t *testing.T, cp *c5c3v1alpha1.ControlPlane) {
				setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) { p.Spec.Region = "RegionNowhere" })
			},
			fixPlane: func(t *testing.T, cp *c5c3v1alpha1.ControlPlane) {
				setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) { p.Spec.Region = "" })
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			ns := "openstack-ext-" + map[string]string{"EndpointUnreachable": "unreach", "AuthenticationFailed": "auth",
				"CatalogEndpointMismatch": "region"}[c.name]
			typ := ns[len("openstack-"):] + "-it"
			cp := newPlane(t, ns, stack.Keystone.AdminPassword, "")
			planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)
			ks := registration(ns, "ext", typ, false, map[string]string{"public": "http://" + typ + ".example"})
			ks.Spec.ControlPlaneRef.Namespace = ""
			create(t, ks)
			waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogRegistered)

			passedByTest.Store(c.key, true)
			t.Cleanup(func() { passedByTest.Delete(c.key) })
			c.breakPlane(t, cp)
			planeVerified(t, cp)
			update(t, ks, func(k *c5c3v1alpha1.KeystoneService) {
				k.Spec.Catalog.Endpoints = append(k.Spec.Catalog.Endpoints,
					c5c3v1alpha1.KeystoneServiceEndpointSpec{Interface: "internal", URL: "http://" + typ + "-internal.example"})
			})
			waitForMessage(t, ks, c5c3v1alpha1.ConditionCatalogReady, c.reason, c.want)

			c.fixPlane(t, cp)
			passedByTest.Delete(c.key)
			waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogRegistered)
			deleteAndWaitGone(t, ks, typ)
			if err := kube.Delete(ctx, cp); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// setPlane applies mut to the plane, retrying on conflicts.
func setPlane(t *testing.T, cp *c5c3v1alpha1.ControlPlane, mut func(*c5c3v1alpha1.ControlPlane)) {
	t.Helper()
	eventually(t, waitTimeout, "update the plane", func() error {
		var cur c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: cp.Namespace, Name: cp.Name}, &cur); err != nil {
			return err
		}
		mut(&cur)
		return kube.Update(context.Background(), &cur)
	})
}

// setPassword rewrites the plane's admin password Secret.
func setPassword(t *testing.T, cp *c5c3v1alpha1.ControlPlane, password string) {
	t.Helper()
	eventually(t, waitTimeout, "update the admin password Secret", func() error {
		var s corev1.Secret
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: cp.Namespace, Name: controlplane.DefaultPasswordSecret}, &s); err != nil {
			return err
		}
		s.Data = map[string][]byte{controlplane.DefaultPasswordKey: []byte(password)}
		return kube.Update(context.Background(), &s)
	})
}

// planeVerified waits until the plane is AdminCredentialReady at its
// current generation.
func planeVerified(t *testing.T, cp *c5c3v1alpha1.ControlPlane) {
	t.Helper()
	eventually(t, waitTimeout, "the plane is AdminCredentialReady at its generation", func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: cp.Namespace, Name: cp.Name}, &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady)
		if c == nil || c.ObservedGeneration != got.Generation || c.Reason != c5c3v1alpha1.ReasonAdminCredentialReady {
			return fmt.Errorf("AdminCredentialReady %+v at generation %d", c, got.Generation)
		}
		return nil
	})
}
