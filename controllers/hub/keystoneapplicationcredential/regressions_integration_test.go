//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// Regression tests for defects a breaker found (adapted from its scratch
// probes).

// childOf is the order's child with discriminator disc.
func childOf(ac *c5c3v1alpha1.KeystoneApplicationCredential, disc string) string {
	return korc.ChildPrefix(ac.Name, korc.OrderKey("", ac.Namespace, ac.Name), korc.InfixApplicationCredential) + disc
}

// korcListed reports whether credential-v<gen> of ac is listed.
func korcListed(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, gen int64) bool {
	t.Helper()
	err := kube.Get(context.Background(), types.NamespacedName{Namespace: planeNS, Name: childOf(ac, korc.CredentialDiscriminator(gen))},
		&orcv1alpha1.ApplicationCredential{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// authDelivered authenticates with the delivered Secret and returns the id
// it carries.
func authDelivered(ctx context.Context, ac *c5c3v1alpha1.KeystoneApplicationCredential) (string, error) {
	c, _, err := delivered(ctx, ac)
	if err != nil {
		return "", err
	}
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = testenv.Authenticate(actx, c)
	return c.AuthInfo.ApplicationCredentialID, err
}

// updateOrder applies f to the current order, retrying on conflicts.
func updateOrder(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, f func(*c5c3v1alpha1.KeystoneApplicationCredential)) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := get(t, ac)
		f(cur)
		return kube.Update(context.Background(), cur)
	}); err != nil {
		t.Fatal(err)
	}
}

// maxCredentials samples the number of the order's listed K-ORC
// ApplicationCredentials every 500ms until stop is called, which returns the
// highest count seen.
func maxCredentials(ac *c5c3v1alpha1.KeystoneApplicationCredential) (stop func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	most := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			if items, err := kORCCredentials(ctx, ac); err == nil {
				mu.Lock()
				most = max(most, len(items))
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() int {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return most
	}
}

// TestIntegration_ApplicationCredential_NextRotationFollowsSchedule:
// status.nextRotation follows a changed schedule at once, not only at the
// next switch (chainsaw finding F1): absent with the schedule off, and
// lastRotation + the new interval when it is shortened.
func TestIntegration_ApplicationCredential_NextRotationFollowsSchedule(t *testing.T) {
	t.Parallel()
	ac := readyOrder(t, "tenant-next", "next", 10*time.Minute, 20*time.Second)
	if get(t, ac).Status.NextRotation == nil {
		t.Fatal("no nextRotation with the schedule on")
	}
	updateOrder(t, ac, func(a *c5c3v1alpha1.KeystoneApplicationCredential) {
		a.Spec.Rotation.Interval = &metav1.Duration{Duration: 0}
	})
	eventually(t, waitTimeout, "nextRotation absent with the schedule off", func() error {
		a := get(t, ac)
		if a.Status.ObservedGeneration != a.Generation || a.Status.NextRotation != nil {
			return fmt.Errorf("observedGeneration %d/%d nextRotation %v", a.Status.ObservedGeneration, a.Generation, a.Status.NextRotation)
		}
		return nil
	})
	updateOrder(t, ac, func(a *c5c3v1alpha1.KeystoneApplicationCredential) {
		a.Spec.Rotation.Interval = &metav1.Duration{Duration: 5 * time.Minute}
	})
	eventually(t, waitTimeout, "nextRotation = lastRotation + 5m", func() error {
		a := get(t, ac)
		if a.Status.NextRotation == nil || a.Status.LastRotation == nil ||
			!a.Status.NextRotation.Time.Equal(a.Status.LastRotation.Add(5*time.Minute)) {
			return fmt.Errorf("lastRotation %v nextRotation %v", a.Status.LastRotation, a.Status.NextRotation)
		}
		return nil
	})
	if g := get(t, ac).Status.CredentialGeneration; g != 1 {
		t.Fatalf("the schedule change rotated to generation %d", g)
	}
}

// TestIntegration_ApplicationCredential_SecretLostDuringGrace deletes
// secret-v2 inside the grace period after a switch to generation 2. The
// previous generation is still deleted after its grace period (the
// delivered Secret carries generation 2's id), DeliveryReady names the lost
// Secret (not BackupNotSynced), and a generation 3 replaces the lost secret
// afterwards; never more than two credentials.
func TestIntegration_ApplicationCredential_SecretLostDuringGrace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-lost"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "lost")
	w.grantRole(t)
	ac := w.order("lost-appcred", 0, 20*time.Second)
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	stop := maxCredentials(ac)
	raise(t, ac, 2)
	eventually(t, waitTimeout, "generation 2 delivered", func() error {
		a := get(t, ac)
		c, _, err := delivered(ctx, ac)
		if err != nil {
			return err
		}
		if a.Status.CredentialGeneration != 2 || c.AuthInfo.ApplicationCredentialID != a.Status.CredentialID {
			return fmt.Errorf("generation %d, Secret carries %s", a.Status.CredentialGeneration, c.AuthInfo.ApplicationCredentialID)
		}
		return nil
	})
	lost := childOf(ac, korc.SecretDiscriminator(2))
	if err := kube.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: planeNS, Name: lost}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "DeliveryReady names the lost secret", func() error {
		c := condition(get(t, ac), c5c3v1alpha1.ConditionDeliveryReady)
		if c.Reason != c5c3v1alpha1.ReasonWaitingForCredential || !strings.Contains(c.Message, lost) {
			return fmt.Errorf("DeliveryReady=%s/%s: %s", c.Status, c.Reason, c.Message)
		}
		testenv.ObservedCondition(t, ac, c)
		return nil
	})
	eventually(t, 3*time.Minute, "generation 1 deleted and a generation 3 delivered", func() error {
		a := get(t, ac)
		if a.Status.PreviousCredentialGeneration == 1 || korcListed(t, ac, 1) {
			return fmt.Errorf("still holds generation 1 (previous %d)", a.Status.PreviousCredentialGeneration)
		}
		if a.Status.CredentialGeneration < 3 {
			return fmt.Errorf("no replacement yet: generation %d", a.Status.CredentialGeneration)
		}
		id, err := authDelivered(ctx, ac)
		if err != nil || id != a.Status.CredentialID {
			return fmt.Errorf("the delivered Secret (%s, want %s) does not authenticate: %v", id, a.Status.CredentialID, err)
		}
		return nil
	})
	if n := stop(); n > 2 {
		t.Fatalf("the order held %d credentials at once", n)
	}
}

// TestIntegration_ApplicationCredential_FailedSuccessorAfterPasswordRotation:
// the user's password changes in Keystone under the mint-cloud document, so
// K-ORC fails the successor generation 2 with a 401 (CredentialFailed).
// Once the user order reports a newer password generation, the failed
// successor is replaced at once (not continued until
// spec.credentialGeneration is raised above it), and generation 2 is
// delivered and authenticates; the live generation 1 keeps working
// throughout, and never more than two credentials exist.
func TestIntegration_ApplicationCredential_FailedSuccessorAfterPasswordRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-pwfail"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "pwfail")
	w.grantRole(t)
	ac := w.order("pwfail-appcred", 0, 20*time.Second)
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	gen1 := get(t, ac).Status.CredentialID
	stop := maxCredentials(ac)

	// The user's password rotates in Keystone before the user order reports
	// it (the KeystoneUser reconciler does not run here).
	newPassword := w.password + "-v2"
	if _, err := users.Update(ctx, identity, w.userID, users.UpdateOpts{Password: newPassword}).Extract(); err != nil {
		t.Fatal(err)
	}
	raise(t, ac, 2)
	eventually(t, waitTimeout, "generation 2 fails with 401", func() error {
		c := condition(get(t, ac), c5c3v1alpha1.ConditionCredentialReady)
		if c.Reason != c5c3v1alpha1.ReasonCredentialFailed || !strings.Contains(c.Message, "401") {
			return fmt.Errorf("CredentialReady=%s/%s: %s", c.Status, c.Reason, c.Message)
		}
		testenv.ObservedCondition(t, ac, c)
		return nil
	})
	if id, err := authDelivered(ctx, ac); err != nil || id != gen1 {
		t.Fatalf("the delivered generation 1 (%s, want %s) fails while its successor failed: %v", id, gen1, err)
	}
	var failedCred orcv1alpha1.ApplicationCredential
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childOf(ac, korc.CredentialDiscriminator(2))}, &failedCred); err != nil {
		t.Fatal(err)
	}

	// The user order now reports password generation 2.
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: PasswordSecretName("", ns, w.user, 2), Namespace: planeNS,
		Labels: map[string]string{korc.LabelPasswordGeneration: "2"}}, Data: map[string][]byte{korc.PasswordKey: []byte(newPassword)}})
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var u c5c3v1alpha1.KeystoneUser
		if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: w.user}, &u); err != nil {
			return err
		}
		u.Status.PasswordGeneration = 2
		return kube.Status().Update(ctx, &u)
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*time.Minute, "generation 2 replaced and delivered without raising spec.credentialGeneration", func() error {
		a := get(t, ac)
		id, err := authDelivered(ctx, ac)
		if a.Status.CredentialGeneration != 2 || err != nil || id != a.Status.CredentialID {
			return fmt.Errorf("generation %d, Secret carries %s (want %s): %v", a.Status.CredentialGeneration, id, a.Status.CredentialID, err)
		}
		return nil
	})
	if n := stop(); n > 2 {
		t.Fatalf("the order held %d credentials at once", n)
	}
	var now orcv1alpha1.ApplicationCredential
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: failedCred.Name}, &now); err != nil {
		t.Fatal(err)
	}
	if now.UID == failedCred.UID {
		t.Fatal("the failed credential-v2 recovered in place; it was not replaced")
	}
}

// breakBackup rewrites the stack OpenBao's tenant role with a policy that
// grants nothing (the role keeps logging the plane's store in), so ESO
// cannot push; the returned func restores the tenant policy. The hub cannot
// repair this: it holds no OpenBao credential.
func breakBackup(t *testing.T) (restore func()) {
	t.Helper()
	ctx := context.Background()
	if err := stack.SetTenantRolePolicies(ctx, "nothing-granted"); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := stack.SetTenantRolePolicies(ctx, testenv.TenantPolicyName); err != nil {
			t.Error(err)
		}
	}
}

// TestIntegration_ApplicationCredential_GraceRunsFromDelivery (not
// parallel: it breaks the plane's backup for every order). A rotation
// switches while ESO cannot push, and the outage outlasts the grace period.
// Generation 1 stays in Keystone and delivered during the outage, and after
// the backup heals it stays for the grace period after the delivered Secret
// switched to generation 2 (docs/reference/keystoneapplicationcredential.md,
// "Delivered Secret contract": "the superseded credential stays valid for the
// grace period after the switch").
func TestIntegration_ApplicationCredential_GraceRunsFromDelivery(t *testing.T) {
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-outage"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "outage")
	w.grantRole(t)
	const grace = 20 * time.Second
	ac := w.order("outage-appcred", 0, grace)
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	gen1 := get(t, ac).Status.CredentialID

	restore := breakBackup(t)
	restored := false
	defer func() {
		if !restored {
			restore()
		}
	}()
	raise(t, ac, 2)
	var switchDeleteAt time.Time
	eventually(t, waitTimeout, "switched to generation 2, backup not synced", func() error {
		a := get(t, ac)
		c := condition(a, c5c3v1alpha1.ConditionDeliveryReady)
		if a.Status.CredentialGeneration != 2 || c.Reason != c5c3v1alpha1.ReasonBackupNotSynced || a.Status.PreviousCredentialDeleteAt == nil {
			return fmt.Errorf("generation %d, DeliveryReady=%s/%s: %s", a.Status.CredentialGeneration, c.Status, c.Reason, c.Message)
		}
		switchDeleteAt = a.Status.PreviousCredentialDeleteAt.Time
		testenv.ObservedCondition(t, a, c)
		return nil
	})
	// The outage outlasts the grace period counted from the status switch.
	eventually(t, grace+time.Minute, "the status-switch grace period is over", func() error {
		if time.Now().Before(switchDeleteAt.Add(5 * time.Second)) {
			return fmt.Errorf("deleteAt %s not passed yet", switchDeleteAt.Format(time.RFC3339))
		}
		return nil
	})
	if c := condition(get(t, ac), c5c3v1alpha1.ConditionDeliveryReady); c.Reason != c5c3v1alpha1.ReasonBackupNotSynced {
		t.Fatalf("the outage did not last: DeliveryReady=%s/%s", c.Status, c.Reason)
	}
	if id, err := authDelivered(ctx, ac); err != nil || id != gen1 {
		t.Fatalf("during the outage the delivered Secret (%s, want generation 1 %s) fails: %v", id, gen1, err)
	}
	if !korcListed(t, ac, 1) {
		t.Fatal("generation 1 was deleted while the delivered Secret still carries it")
	}

	restore()
	restored = true
	var deliveredAt time.Time
	eventually(t, waitTimeout, "the Secret switches to generation 2", func() error {
		c, _, err := delivered(ctx, ac)
		if err != nil {
			return err
		}
		if c.AuthInfo.ApplicationCredentialID != get(t, ac).Status.CredentialID {
			return fmt.Errorf("the Secret carries %s", c.AuthInfo.ApplicationCredentialID)
		}
		deliveredAt = time.Now()
		return nil
	})
	var goneAt time.Time
	eventually(t, 2*time.Minute, "generation 1 deleted", func() error {
		if korcListed(t, ac, 1) {
			return fmt.Errorf("credential-v1 still listed")
		}
		goneAt = time.Now()
		return nil
	})
	t.Logf("Secret switched at %s, generation 1 gone %s later (grace %s)", deliveredAt.Format(time.RFC3339),
		goneAt.Sub(deliveredAt).Round(time.Second), grace)
	// deliveredAt is when the test saw the Secret switch (at or after it
	// did); the controller's clock is second-truncated.
	if goneAt.Sub(deliveredAt) < grace-3*time.Second {
		t.Fatalf("generation 1 was deleted %s after the delivered Secret switched; the grace period is %s",
			goneAt.Sub(deliveredAt).Round(time.Second), grace)
	}
}

// TestIntegration_ApplicationCredential_DeletedOutOfBand deletes the
// delivered credential in Keystone behind K-ORC's back. The order's
// periodic verification (Options.ReadyResync) gets a 401, reports it and
// rotates like an expired credential: a new generation is delivered and
// authenticates, instead of Ready over a dead credential.
func TestIntegration_ApplicationCredential_DeletedOutOfBand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-oob"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "oob")
	w.grantRole(t)
	ac := w.order("oob-appcred", 0, 20*time.Second)
	log := watchConditions(t, ac)
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	// Before the first generation was Available both sub-conditions
	// waited for it ("Conditions").
	log.waitSeen(t, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential, "")
	log.waitSeen(t, c5c3v1alpha1.ConditionDeliveryReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential, "no credential exists yet")
	id := get(t, ac).Status.CredentialID
	if err := applicationcredentials.Delete(ctx, identity, w.userID, id).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	if _, err := authDelivered(ctx, ac); err == nil {
		t.Fatal("the deleted credential still authenticates")
	}
	eventually(t, readyResync+3*time.Minute, "a new generation delivered after the out-of-band deletion", func() error {
		a := get(t, ac)
		got, err := authDelivered(ctx, ac)
		if a.Status.CredentialGeneration < 2 || err != nil || got != a.Status.CredentialID || got == id {
			c := condition(a, c5c3v1alpha1.ConditionCredentialReady)
			return fmt.Errorf("generation %d, Secret carries %s: %v; CredentialReady=%s/%s: %s", a.Status.CredentialGeneration, got, err,
				c.Status, c.Reason, c.Message)
		}
		return nil
	})
	// While it was replaced, CredentialReady said why.
	log.waitSeen(t, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential,
		"Keystone rejects delivered generation 1")
}
