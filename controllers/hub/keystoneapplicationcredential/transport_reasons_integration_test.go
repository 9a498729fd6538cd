//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// TestReasons_TransportErrorRetryFailed: credential-v1 carries the
// terminal error K-ORC v2.6.0 latches for a create that never got an HTTP
// answer (stageLatchedTransportError), and the apiserver refuses the
// order's status write that clears it (an admission policy). CredentialReady
// says TransportErrorRetryFailed with the apiserver's refusal
// (docs/reference/keystoneapplicationcredential.md, "Conditions"). Once the
// policy is lifted the latch is cleared, K-ORC creates the credential and
// the order is Ready.
func TestReasons_TransportErrorRetryFailed(t *testing.T) {
	ctx := context.Background()
	const plane, ns = "openstack-latch", "reasons-latch"
	cp := newPlaneIn(t, plane, ns, "")
	w := newWorldOn(t, ns, "latch2", plane)
	ac := w.order("latch2-appcred", 10*time.Minute, 20*time.Second)
	ac.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane}
	ord := orders.Order{Kind: orders.KindKeystoneApplicationCredential, Namespace: ns, Name: ac.Name}
	prefix := korc.ChildPrefix(ac.Name, korc.OrderKey("", ns, ac.Name), korc.InfixApplicationCredential)
	lift := stageLatchedTransportError(t, w, ac, plane, false)

	create(t, ac)
	waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ReasonTransportErrorRetryFailed, testenv.RefusalMessage)
	lift()
	waitEvent(t, ac, EventTransportErrorCleared)
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: prefix + korc.SecretDiscriminator(1), Namespace: plane,
		Labels: orders.ChildLabels(ord)}, Data: map[string][]byte{applicationcredential.SecretValueKey: []byte("latch2-secret-" + w.userID)}})
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	deleteAndWaitGone(t, ac)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}
