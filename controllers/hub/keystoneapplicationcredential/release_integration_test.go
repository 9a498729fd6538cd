//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/testenv"
)

const releaseNS = "tenant-release"

// rotatedOnce creates order ac, waits for generation 1, lets prepare set up
// its consumers, raises to generation 2 and returns generation 1's delivered
// cloud once the order switched.
func rotatedOnce(t *testing.T, w *world, ac *c5c3v1alpha1.KeystoneApplicationCredential, prepare func()) cloudsyaml.Cloud {
	t.Helper()
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	prepare()
	old, _, err := delivered(context.Background(), ac)
	if err != nil {
		t.Fatal(err)
	}
	raise(t, ac, 2)
	eventually(t, waitTimeout, "the switch to generation 2", func() error {
		if cur := get(t, ac); cur.Status.CredentialGeneration != 2 || cur.Status.PreviousCredentialGeneration != 1 {
			return fmt.Errorf("generation %d, previous %d", cur.Status.CredentialGeneration, cur.Status.PreviousCredentialGeneration)
		}
		return nil
	})
	return old
}

// waitRevoked waits until the order forgot generation 1 and Keystone no
// longer lists nor accepts it.
func waitRevoked(t *testing.T, w *world, ac *c5c3v1alpha1.KeystoneApplicationCredential, old cloudsyaml.Cloud) {
	t.Helper()
	eventually(t, waitTimeout, "generation 1 revoked in Keystone", func() error {
		if p := get(t, ac).Status.PreviousCredentialGeneration; p != 0 {
			return fmt.Errorf("previous generation %d", p)
		}
		creds, err := w.keystoneCredentials(context.Background())
		if err != nil {
			return err
		}
		if slices.ContainsFunc(creds, func(c applicationcredentials.ApplicationCredential) bool {
			return c.ID == old.AuthInfo.ApplicationCredentialID
		}) {
			return fmt.Errorf("Keystone still lists %s", old.AuthInfo.ApplicationCredentialID)
		}
		return nil
	})
	if _, err := authenticate(context.Background(), old); err == nil {
		t.Fatal("generation 1 still authenticates after its revocation")
	}
}

// releaseOrder prepares a release test once the plane is Ready: a world
// named name in releaseNS with the role granted, its order (rotation
// interval and grace period), and the consumer stamps of generations 1 and 2.
func releaseOrder(t *testing.T, name string, interval, grace time.Duration) (*world, *c5c3v1alpha1.KeystoneApplicationCredential, string, string) {
	t.Helper()
	w, ac := grantedOrder(t, releaseNS, name, interval, grace)
	return w, ac, consumers.StampValue(orders.KindKeystoneApplicationCredential, ac.Name, 1),
		consumers.StampValue(orders.KindKeystoneApplicationCredential, ac.Name, 2)
}

// waitHeld waits until DeliveryReady says generation 1 waits for what, then
// checks from Keystone that generation 1 still authenticates.
func waitHeld(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, old cloudsyaml.Cloud, what string) {
	t.Helper()
	eventually(t, waitTimeout, "DeliveryReady naming "+what, func() error {
		if c := condition(get(t, ac), c5c3v1alpha1.ConditionDeliveryReady); !strings.Contains(c.Message, what) {
			return fmt.Errorf("DeliveryReady %s: %s", c.Reason, c.Message)
		}
		return nil
	})
	if _, err := authenticate(context.Background(), old); err != nil {
		t.Fatalf("generation 1 no longer authenticates while the order waits for %s: %v", what, err)
	}
	if p := get(t, ac).Status.PreviousCredentialGeneration; p != 1 {
		t.Fatalf("previous generation %d while the order waits for %s", p, what)
	}
}

// TestIntegration_ApplicationCredential_RevokeWaitsForHeldConsumer: an
// opted-in Deployment that never becomes ready on generation 2 keeps
// generation 1 valid in Keystone; at the grace period's end it is revoked all
// the same and a Warning names the Deployment (docs/reference/consumers.md,
// "Revocation waits for the consumers").
func TestIntegration_ApplicationCredential_RevokeWaitsForHeldConsumer(t *testing.T) {
	t.Parallel()
	w, ac, g1, g2 := releaseOrder(t, "held", 10*time.Minute, 2*time.Minute)
	old := rotatedOnce(t, w, ac, func() {
		create(t, consumerDeployment(releaseNS, "held", orders.SecretName(ac.Name), true, false))
		waitConsumers(t, ac, 1, []string{"held"}, "held "+c5c3v1alpha1.ConsumerRolledOut+" "+g1)
	})
	// The kubelet is not played any more: held stays RollingOut on g2.
	waitConsumers(t, ac, 2, nil, "held "+c5c3v1alpha1.ConsumerRollingOut+" "+g2)
	waitHeld(t, ac, old, "Deployment/held")
	waitRevoked(t, w, ac, old)
	waitEventNaming(t, ac, consumers.EventRevokedBeforeRollout, "Deployment/held")
	// At least once: a pass that deleted generation 1 and then lost its
	// status write to a conflict may be followed by one that, reading a stale
	// cache, deletes and counts it again; the alert asks only for an increase.
	eventually(t, waitTimeout, revokedBeforeRollout+" counted", func() error {
		if v, _, err := scrapeSeries(revokedBeforeRollout, orderSeries(ac.Namespace, ac.Name)); err != nil || v < 1 {
			return fmt.Errorf("%s = %v (%v)", revokedBeforeRollout, v, err)
		}
		return nil
	})
}

const revokedBeforeRollout = "orderhub_credential_revoked_before_rollout_total"

// TestIntegration_ApplicationCredential_RolledOutConsumersReleaseRevoke: once
// the only, opted-in consumer rolled out on generation 2, generation 1 is
// revoked long before its one-hour grace period ends.
func TestIntegration_ApplicationCredential_RolledOutConsumersReleaseRevoke(t *testing.T) {
	t.Parallel()
	w, ac, g1, g2 := releaseOrder(t, "early", 2*time.Hour, time.Hour)
	old := rotatedOnce(t, w, ac, func() {
		create(t, consumerDeployment(releaseNS, "early", orders.SecretName(ac.Name), true, true))
		waitConsumers(t, ac, 1, []string{"early"}, "early "+c5c3v1alpha1.ConsumerRolledOut+" "+g1)
	})
	waitHeld(t, ac, old, "Deployment/early")
	waitConsumers(t, ac, 2, []string{"early"}, "early "+c5c3v1alpha1.ConsumerRolledOut+" "+g2)
	waitRevoked(t, w, ac, old)
	// Released early: nothing counted as revoked before its rollout.
	v, ok, err := scrapeSeries(revokedBeforeRollout, orderSeries(ac.Namespace, ac.Name))
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Errorf("%s = %v after an early release", revokedBeforeRollout, v)
	}
}

// TestIntegration_ApplicationCredential_AcknowledgementReleasesRevoke: with
// no workload, a consumer's acknowledgement on the delivered Secret holds
// generation 1 while it names generation 1 and releases it once it names
// generation 2, long before the one-hour grace period ends.
func TestIntegration_ApplicationCredential_AcknowledgementReleasesRevoke(t *testing.T) {
	t.Parallel()
	w, ac, g1, g2 := releaseOrder(t, "ack", 2*time.Hour, time.Hour)
	old := rotatedOnce(t, w, ac, func() { acknowledge(t, ac, g1) })
	waitHeld(t, ac, old, g1)
	acknowledge(t, ac, g2)
	waitRevoked(t, w, ac, old)
}

// acknowledge writes the acknowledgement annotation on the delivered Secret as
// a consumer would (a merge patch of its own).
func acknowledge(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, stamp string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ac.Namespace, Name: orders.SecretName(ac.Name)}}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, c5c3v1alpha1.AnnotationAcknowledged, stamp)
	if err := kube.Patch(context.Background(), s, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		t.Fatal(err)
	}
}

// waitEventNaming waits for an event of reason on ac whose message contains what.
func waitEventNaming(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, reason, what string) {
	t.Helper()
	eventually(t, waitTimeout, "the "+reason+" event naming "+what, func() error {
		var events corev1.EventList
		if err := kube.List(context.Background(), &events, client.InNamespace(ac.Namespace)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == ac.Name && e.Reason == reason && strings.Contains(e.Message, what) {
				t.Logf("event %s %s: %s", e.Type, e.Reason, e.Message)
				testenv.ObservedEvent(t, ac, e.Type, e.Reason)
				return nil
			}
		}
		return fmt.Errorf("no %s event naming %s among %d", reason, what, len(events.Items))
	})
}
