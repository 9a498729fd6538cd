//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// TestReasons_PreviousCredentialUnconfirmed: the plane's auth URL is an
// identity front that drops the hub's deletion of superseded generation 1
// (the confirmation that Keystone no longer holds it,
// docs/reference/keystoneapplicationcredential.md, "Rotation"), so after
// K-ORC released generation 1 the order keeps status.previousCredentialID
// and looks again. Once the live generation's secret is lost, the
// superseded credential is forgotten on K-ORC's word (Warning event
// PreviousCredentialUnconfirmed) and a new generation is delivered that
// authenticates; K-ORC had deleted generation 1 in Keystone.
func TestReasons_PreviousCredentialUnconfirmed(t *testing.T) {
	ctx := context.Background()
	const plane, ns = "openstack-unconfirmed", "reasons-unconfirmed"
	front := testenv.NewIdentityFront(t, stack.Keystone.URL)
	cp := newPlaneIn(t, plane, ns, "")
	setPlaneAuthURL(t, cp, front.URL())
	w := newWorldOn(t, ns, "unconfirmed", plane)
	ac := w.order("unconfirmed", 0, 5*time.Second)
	ac.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane}
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	first := get(t, ac).Status.CredentialID

	front.Drop(http.MethodDelete, "/v3/users/"+w.userID+"/application_credentials/"+first)
	raise(t, ac, 2)
	eventually(t, waitTimeout, "generation 2 live, generation 1 released by K-ORC but not confirmed gone", func() error {
		a := get(t, ac)
		err := kube.Get(ctx, types.NamespacedName{Namespace: plane, Name: childOf(ac, korc.CredentialDiscriminator(1))},
			&orcv1alpha1.ApplicationCredential{})
		if a.Status.CredentialGeneration != 2 || a.Status.PreviousCredentialID != first || !apierrors.IsNotFound(err) {
			return fmt.Errorf("generation %d, previous %q, K-ORC generation 1: %v", a.Status.CredentialGeneration,
				a.Status.PreviousCredentialID, err)
		}
		return nil
	})
	creds, err := w.keystoneCredentials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range creds {
		if c.ID == first {
			t.Fatalf("Keystone still holds generation 1 (%s) after K-ORC released it", first)
		}
	}

	if err := kube.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: plane,
		Name: childOf(ac, korc.SecretDiscriminator(2))}}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ac, EventPreviousUnconfirmed)
	eventually(t, waitTimeout, "a new generation delivered that authenticates", func() error {
		a := get(t, ac)
		id, err := authDelivered(ctx, ac)
		if a.Status.CredentialGeneration < 3 || err != nil || id != a.Status.CredentialID {
			return fmt.Errorf("generation %d, Secret carries %s: %v", a.Status.CredentialGeneration, id, err)
		}
		return nil
	})
	front.Forward()
	deleteAndWaitGone(t, ac)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}
