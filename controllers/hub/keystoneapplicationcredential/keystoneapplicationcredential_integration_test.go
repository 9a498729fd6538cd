//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/korc"
)

// raise sets spec.credentialGeneration to gen.
func raise(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, gen int64) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := get(t, ac)
		cur.Spec.CredentialGeneration = gen
		return kube.Update(context.Background(), cur)
	}); err != nil {
		t.Fatal(err)
	}
}

// TestIntegration_ApplicationCredential_Lifecycle walks one order through
// docs/reference/keystoneapplicationcredential.md: refused without a role on
// the project (NoRoleOnProject, nothing created), generation 1 minted, backed
// up to OpenBao and delivered (its clouds.yaml authenticates against Keystone,
// scoped to the project), a raised credentialGeneration rotating to generation
// 2 with the superseded credential valid inside the grace period and gone after
// it, a deleted delivered Secret written again (not rotated), a lost
// secret-v<N> rotated, a frozen order changing nothing (no rotation, no repair
// of a deleted Secret) until consent returns, and the two-phase teardown
// emptying Keystone and the OpenBao path.
func TestIntegration_ApplicationCredential_Lifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-a"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "life")
	// interval 10m: the schedule stays out of the way (credentials carry an
	// expiry); grace 20s bounds the wait on the superseded credential.
	const grace = 20 * time.Second
	ac := w.order("life-appcred", 10*time.Minute, grace)
	create(t, ac)

	// 1. No KeystoneRoleAssignment: refused, nothing created.
	waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonNoRoleOnProject)
	if creds, err := kORCCredentials(ctx, ac); err != nil || len(creds) != 0 {
		t.Fatalf("a refused order created K-ORC ApplicationCredentials: %d, %v", len(creds), err)
	}
	if got := get(t, ac); got.Status.CredentialGeneration != 0 || !hasFinalizer(got) {
		t.Fatalf("refused order: generation %d, finalizers %v", got.Status.CredentialGeneration, got.Finalizers)
	}

	// 2. The role arrives: generation 1 is minted and delivered.
	w.grantRole(t)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	st := get(t, ac).Status
	if st.CredentialGeneration != 1 || st.CredentialID == "" || st.SecretName != ac.Name+"-credentials" || len(st.SecretKeys) != 3 {
		t.Fatalf("status after the first credential: %+v", st)
	}
	if st.CredentialExpiresAt == nil || st.LastRotation == nil || st.NextRotation == nil {
		t.Fatalf("schedule fields missing: %+v", st)
	}
	// docs/reference/keystoneapplicationcredential.md, "Rotation": the
	// creation plus the interval plus the grace period plus a headroom of at
	// least 5 minutes; the switch comes after the creation.
	if d, want := st.CredentialExpiresAt.Sub(st.LastRotation.Time), 10*time.Minute+grace+5*time.Minute; d > want || d < want-time.Minute {
		t.Errorf("expiry %s after the switch, want about interval+grace+5m (%s)", d, want)
	}
	gen1, _, err := delivered(ctx, ac)
	if err != nil {
		t.Fatal(err)
	}
	if gen1.AuthType != cloudsyaml.AuthTypeV3ApplicationCredential || gen1.AuthInfo.ApplicationCredentialID != st.CredentialID || gen1.CACertFile != "" {
		t.Fatalf("delivered document: %+v", gen1)
	}
	if project, err := authenticate(ctx, gen1); err != nil || project != w.projectID {
		t.Fatalf("generation 1 does not authenticate scoped to the project: %q, %v", project, err)
	}
	kc, err := w.keystoneCredentials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(kc) != 1 || kc[0].ID != st.CredentialID || kc[0].Unrestricted || kc[0].ExpiresAt.IsZero() {
		t.Fatalf("Keystone holds %+v, want generation 1 restricted with an expiry", kc)
	}
	path := backupPath(t, ac)
	eventually(t, waitTimeout, "OpenBao holds generation 1's document", func() error {
		doc, _, err := baoKV(t).ReadProperty(ctx, path, openbao.PropertyCloudsYAML)
		if err != nil {
			return err
		}
		c, err := cloudsyaml.ParseCloud([]byte(doc), ac.Name)
		if err != nil {
			return err
		}
		if c.AuthInfo.ApplicationCredentialID != gen1.AuthInfo.ApplicationCredentialID || c.AuthInfo.ApplicationCredentialSecret != gen1.AuthInfo.ApplicationCredentialSecret {
			return errors.New("OpenBao holds another document")
		}
		return nil
	})

	// 3. Raising credentialGeneration rotates to 2 at once.
	raise(t, ac, 2)
	var gen2 cloudsyaml.Cloud
	eventually(t, waitTimeout, "the delivered Secret carries generation 2", func() error {
		cur := get(t, ac)
		if cur.Status.CredentialGeneration != 2 || cur.Status.SecretName == "" {
			return fmt.Errorf("status generation %d, secretName %q", cur.Status.CredentialGeneration, cur.Status.SecretName)
		}
		c, _, err := delivered(ctx, ac)
		if err != nil {
			return err
		}
		if c.AuthInfo.ApplicationCredentialID != cur.Status.CredentialID {
			return errors.New("the Secret does not carry generation 2 yet")
		}
		gen2 = c
		return nil
	})
	st = get(t, ac).Status
	if st.PreviousCredentialGeneration != 1 || st.PreviousCredentialID != gen1.AuthInfo.ApplicationCredentialID || st.PreviousCredentialDeleteAt == nil {
		t.Fatalf("previous fields during the grace period: %+v", st)
	}
	if time.Now().Before(st.PreviousCredentialDeleteAt.Time) {
		if _, err := authenticate(ctx, gen1); err != nil {
			t.Fatalf("the superseded generation 1 fails inside its grace period: %v", err)
		}
	} else {
		t.Logf("grace period already over when generation 2 was observed; the in-grace check is skipped")
	}
	if _, err := authenticate(ctx, gen2); err != nil {
		t.Fatalf("generation 2 does not authenticate: %v", err)
	}
	eventually(t, waitTimeout, "generation 1 is deleted after the grace period", func() error {
		cur := get(t, ac)
		if cur.Status.PreviousCredentialGeneration != 0 {
			return fmt.Errorf("previous generation %d still recorded", cur.Status.PreviousCredentialGeneration)
		}
		return nil
	})
	if time.Now().Before(st.PreviousCredentialDeleteAt.Time) {
		t.Fatalf("generation 1 was deleted before its grace period ended (%s)", st.PreviousCredentialDeleteAt)
	}
	if _, err := authenticate(ctx, gen1); err == nil {
		t.Fatal("the superseded generation 1 still authenticates after its grace period")
	}
	if kc, err := w.keystoneCredentials(ctx); err != nil || len(kc) != 1 || kc[0].ID != gen2.AuthInfo.ApplicationCredentialID {
		t.Fatalf("Keystone holds %+v (%v), want generation 2 only", kc, err)
	}

	// 3b. A deleted delivered Secret is written again, not rotated.
	secretKey := types.NamespacedName{Namespace: ns, Name: orders.SecretName(ac.Name)}
	if err := kube.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secretKey.Name}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "the deleted delivered Secret is written again with generation 2", func() error {
		c, _, err := delivered(ctx, ac)
		if err != nil {
			return err
		}
		if c.AuthInfo.ApplicationCredentialID != gen2.AuthInfo.ApplicationCredentialID {
			return errors.New("the Secret carries another credential")
		}
		return nil
	})
	if g := get(t, ac).Status.CredentialGeneration; g != 2 {
		t.Fatalf("a deleted delivered Secret rotated the credential to generation %d", g)
	}

	// 3c. A lost secret-v<N> cannot be read back from Keystone: rotated.
	if err := kube.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: planeNS,
		Name: korc.ChildPrefix(ac.Name, korc.OrderKey("", ns, ac.Name), korc.InfixApplicationCredential) + korc.SecretDiscriminator(2)}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "a lost secret rotates to generation 3 and its grace period ends", func() error {
		cur := get(t, ac)
		if cur.Status.CredentialGeneration != 3 || cur.Status.PreviousCredentialGeneration != 0 || !isTrue(cur, c5c3v1alpha1.ConditionReady) {
			return fmt.Errorf("generation %d, previous %d", cur.Status.CredentialGeneration, cur.Status.PreviousCredentialGeneration)
		}
		return nil
	})
	gen3, _, err := delivered(ctx, ac)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authenticate(ctx, gen3); err != nil {
		t.Fatalf("generation 3 does not authenticate: %v", err)
	}

	// 4. Frozen: consent withdrawn, nothing is rotated or repaired.
	setAssigned(t, ns, false)
	waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonNamespaceNotAssigned)
	raise(t, ac, 4)
	if err := kube.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secretKey.Name}}); err != nil {
		t.Fatal(err)
	}
	want := get(t, ac).Generation
	eventually(t, waitTimeout, "the frozen order observed the raised generation", func() error {
		if g := get(t, ac).Status.ObservedGeneration; g != want {
			return fmt.Errorf("observedGeneration %d, want %d", g, want)
		}
		return nil
	})
	frozen := get(t, ac)
	if frozen.Status.CredentialGeneration != 3 || condition(frozen, c5c3v1alpha1.ConditionDeliveryReady).Reason != c5c3v1alpha1.ReasonNamespaceNotAssigned {
		t.Fatalf("a frozen order changed: %+v", frozen.Status)
	}
	if creds, err := kORCCredentials(ctx, ac); err != nil || len(creds) != 1 {
		t.Fatalf("a frozen order created or deleted credentials: %d, %v", len(creds), err)
	}
	if err := kube.Get(ctx, secretKey, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a frozen order repaired its delivered Secret: %v", err)
	}
	if _, err := authenticate(ctx, gen3); err != nil {
		t.Fatalf("the credential of a frozen order stopped working: %v", err)
	}

	// Consent returns: the raised generation 4 is created and delivered.
	setAssigned(t, ns, true)
	eventually(t, waitTimeout, "generation 4 is delivered once consent returns", func() error {
		cur := get(t, ac)
		if cur.Status.CredentialGeneration != 4 || !isTrue(cur, c5c3v1alpha1.ConditionDeliveryReady) {
			return fmt.Errorf("generation %d, DeliveryReady %+v", cur.Status.CredentialGeneration, condition(cur, c5c3v1alpha1.ConditionDeliveryReady))
		}
		return nil
	})
	gen4, _, err := delivered(ctx, ac)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authenticate(ctx, gen4); err != nil {
		t.Fatalf("generation 4 does not authenticate: %v", err)
	}

	// 5. Deletion: the teardown empties Keystone and the OpenBao path.
	if err := kube.Delete(ctx, get(t, ac)); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "the order is gone", func() error {
		err := kube.Get(ctx, client.ObjectKeyFromObject(ac), &c5c3v1alpha1.KeystoneApplicationCredential{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
	if kc, err := w.keystoneCredentials(ctx); err != nil || len(kc) != 0 {
		t.Fatalf("Keystone still holds %d credentials of the user (%v)", len(kc), err)
	}
	if _, err := baoKV(t).Read(ctx, path); !errors.Is(err, openbao.ErrNotFound) {
		t.Fatalf("the OpenBao path survived the teardown: %v", err)
	}
	var left corev1.SecretList
	if err := kube.List(ctx, &left, client.InNamespace(planeNS), client.MatchingLabels{
		orders.KindLabelKey(orders.KindKeystoneApplicationCredential, "name"): ac.Name}); err != nil || len(left.Items) != 0 {
		t.Fatalf("children left in the plane namespace: %d (%v)", len(left.Items), err)
	}
	for _, g := range []cloudsyaml.Cloud{gen3, gen4} {
		if _, err := authenticate(ctx, g); err == nil {
			t.Fatal("a credential of the deleted order still authenticates")
		}
	}
}

func hasFinalizer(ac *c5c3v1alpha1.KeystoneApplicationCredential) bool {
	for _, f := range ac.Finalizers {
		if f == c5c3v1alpha1.FinalizerKeystoneApplicationCredentialTeardown {
			return true
		}
	}
	return false
}

func isTrue(ac *c5c3v1alpha1.KeystoneApplicationCredential, typ string) bool {
	return condition(ac, typ).Status == metav1.ConditionTrue
}
