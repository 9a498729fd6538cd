//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// passedByTest holds the token requests the suite's ControlPlane Verifier
// passes without asking Keystone, keyed by "authURL:<url>" or
// "region:<id>" (hub-internal fault injection, see
// TestReasons_ExternalModeUnreachableOnTheCredential).
var passedByTest sync.Map

// suiteVerifier is controlplane.KeystoneVerifier, except for the requests
// in passedByTest.
type suiteVerifier struct{}

func (suiteVerifier) Verify(ctx context.Context, r controlplane.TokenRequest) error {
	for _, k := range []string{"authURL:" + r.AuthURL, "region:" + r.Region} {
		if _, ok := passedByTest.Load(k); ok {
			return nil
		}
	}
	return controlplane.KeystoneVerifier{}.Verify(ctx, r)
}

// TestReasons_ExternalModeUnreachableOnTheCredential: against an External
// plane, K-ORC's failure to reach Keystone or to find it in the catalog
// while minting the first generation is classified on CredentialReady
// (docs/reference/keystoneapplicationcredential.md, "Conditions"):
// EndpointUnreachable when authURL refuses connections,
// CatalogEndpointMismatch when the plane's region has no identity endpoint,
// each with K-ORC's message. Nothing is minted; with the plane right again
// the first generation is.
//
// Fault injection inside the hub: the suite's ControlPlane Verifier passes
// the broken plane's admin check without asking Keystone (passedByTest).
// In this stack the hub's check and K-ORC's mint use the same network,
// authURL and catalog, so no real server fails one and not the other, and
// the plane's own classified reason would close the order's gate
// (WaitingForAdminCredential) first. A hub that reaches Keystone where
// K-ORC does not (another network) is what the injection stands for;
// Keystone's catalog and K-ORC's errors are real. (AuthenticationFailed,
// CredentialDrift and TLSVerificationFailed on the credential have real
// causes: TestReasons_ExternalModeOnTheCredential,
// TestReasons_TLSVerificationFailedOnTheCredential.)
func TestReasons_ExternalModeUnreachableOnTheCredential(t *testing.T) {
	for _, c := range []struct {
		name, reason, want, key, plane string
		mut, fix                       func(*c5c3v1alpha1.ControlPlane)
	}{
		{name: "EndpointUnreachable", reason: c5c3v1alpha1.ReasonEndpointUnreachable, want: "connection refused",
			key: "authURL:http://127.0.0.1:1/v3", plane: "openstack-ext-unreach",
			mut: func(p *c5c3v1alpha1.ControlPlane) {
				p.Spec.Services.Keystone.External.AuthURL = "http://127.0.0.1:1/v3"
			},
			fix: func(p *c5c3v1alpha1.ControlPlane) { p.Spec.Services.Keystone.External.AuthURL = stack.Keystone.URL }},
		{name: "CatalogEndpointMismatch", reason: c5c3v1alpha1.ReasonCatalogEndpointMismatch, want: "No suitable endpoint",
			key: "region:RegionNowhere", plane: "openstack-ext-region",
			mut: func(p *c5c3v1alpha1.ControlPlane) { p.Spec.Region = "RegionNowhere" },
			fix: func(p *c5c3v1alpha1.ControlPlane) { p.Spec.Region = "" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			ns := "reasons-" + c.plane[len("openstack-"):]
			cp := newPlaneIn(t, c.plane, ns, "")
			w := newWorldOn(t, ns, c.plane[len("openstack-"):], c.plane)
			passedByTest.Store(c.key, true)
			t.Cleanup(func() { passedByTest.Delete(c.key) })
			setPlane(t, cp, c.mut)
			planeVerified(t, cp)

			ac := w.order("ext", time.Hour, time.Minute)
			ac.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: c.plane}
			create(t, ac)
			waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, c.reason, c.want)
			if creds, err := w.keystoneCredentials(ctx); err != nil || len(creds) != 0 {
				t.Errorf("Keystone holds %d credentials of the user (%v), want none", len(creds), err)
			}

			setPlane(t, cp, c.fix)
			passedByTest.Delete(c.key)
			waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted)
			deleteAndWaitGone(t, ac)
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
