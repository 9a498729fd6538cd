//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestIntegration_ApplicationCredential_KORCReleasedWhileKeystoneHolds: K-ORC
// v2.6.0 takes any failed read of an application credential during its
// deletion for NotFound and releases its finalizer without deleting the
// credential (Revoker). Here the plane's catalog identity endpoint (an
// identity front) drops K-ORC's reads of the superseded credential and of
// the user list while it forwards everything else, so K-ORC releases
// generation 1 at the end of its grace period while Keystone still holds
// it. The hub confirms in Keystone before it forgets the credential: it
// deletes it as its user (event PreviousCredentialRevoked), Keystone no
// longer lists it, and status.previousCredentialID is cleared
// (docs/reference/keystoneapplicationcredential.md, "Rotation").
func TestIntegration_ApplicationCredential_KORCReleasedWhileKeystoneHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const plane, ns, region = "openstack-revoke", "tenant-revoke", "RegionRevoke"
	front := testenv.NewIdentityFront(t, stack.Keystone.URL)
	front.RegisterIn(t, identity, region)
	newPlaneIn(t, plane, ns, region)
	w := newWorldOn(t, ns, "revoke", plane)
	ac := w.order("revoke-appcred", 0, 5*time.Second)
	ac.Spec.ControlPlaneRef.Namespace = plane
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	first := get(t, ac).Status.CredentialID

	front.Drop(http.MethodGet, "/v3/users/"+w.userID+"/application_credentials/"+first)
	front.Drop(http.MethodGet, "/v3/users")
	raise(t, ac, 2)
	eventually(t, waitTimeout, "generation 2 delivered and generation 1 forgotten", func() error {
		a := get(t, ac)
		if a.Status.CredentialGeneration != 2 || a.Status.PreviousCredentialID != "" {
			return fmt.Errorf("generation %d, previous %q (generation %d)", a.Status.CredentialGeneration,
				a.Status.PreviousCredentialID, a.Status.PreviousCredentialGeneration)
		}
		return nil
	})
	creds, err := w.keystoneCredentials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range creds {
		if c.ID == first {
			t.Fatalf("Keystone still holds superseded generation 1 (%s) after the order forgot it", first)
		}
	}
	// Without the event K-ORC did not release generation 1 while Keystone
	// held it, and the test did not reach what it is about.
	waitEvent(t, ac, EventPreviousRevoked)
	front.Forward()
	deleteAndWaitGone(t, ac)
}
