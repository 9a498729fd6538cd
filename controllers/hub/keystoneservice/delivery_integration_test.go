//go:build integration

package keystoneservice

import (
	"context"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/korc"
)

// TestConsumerSecretOfAnotherOwnerIsRefused: a Secret of the consumer
// Secret's name exists before the registration and is not its own. The
// account is held at AccountReady=False/DeliveryRefused naming it, no
// ExternalSecret is written (ESO's creationPolicy Owner would adopt it
// and drop its keys), and the Secret keeps its keys and owners. Once it
// is removed, the registration delivers.
func TestConsumerSecretOfAnotherOwnerIsRefused(t *testing.T) {
	ctx := context.Background()
	ensureRole(t, "member")
	ks := accountRegistration(allowedNS, "taken-name", "taken-name-project", true, "member")
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: allowedNS, Name: ConsumerSecretName(ks),
		Labels: map[string]string{"team": "mine"}}, Data: map[string][]byte{"keep": []byte("tenant data")}}
	create(t, foreign)
	create(t, ks)
	got := waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonDeliveryRefused)
	msg := findCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAccountReady).Message
	if !strings.Contains(msg, allowedNS+"/"+foreign.Name) {
		t.Fatalf("AccountReady message %q does not name the Secret", msg)
	}
	t.Logf("AccountReady=False/DeliveryRefused: %s", msg)
	es := eso.New(eso.ExternalSecretGVK)
	if err := kube.Get(ctx, types.NamespacedName{Namespace: allowedNS,
		Name: korc.RegistrationChildName(allowedNS, ks.Name, korc.DiscDelivery)}, es); !apierrors.IsNotFound(err) {
		t.Fatalf("the delivery ExternalSecret exists while refused (%v)", err)
	}
	var s corev1.Secret
	if err := kube.Get(ctx, client.ObjectKeyFromObject(foreign), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Data) != 1 || string(s.Data["keep"]) != "tenant data" || len(s.OwnerReferences) != 0 ||
		!maps.Equal(s.Labels, foreign.Labels) {
		t.Fatalf("the foreign Secret changed: keys %d, owners %+v, labels %v", len(s.Data), s.OwnerReferences, s.Labels)
	}

	if err := kube.Delete(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	cloud, err := deliveredCloud(ks)
	if err != nil {
		t.Fatal(err)
	}
	if err := authenticate(ctx, cloud); err != nil {
		t.Fatalf("the delivered credential does not authenticate: %v", err)
	}
	deleteAndWaitGone(t, ks, "none")
}
