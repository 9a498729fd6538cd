//go:build integration

package keystoneuser

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// testHold is a finalizer the tests put on a credential order so that it
// stays in deletion (no credential reconciler runs in this suite).
const testHold = "test.c5c3.io/hold"

// waitGeneration waits until ku's status.passwordGeneration is gen and it
// is Ready at its current generation.
func waitGeneration(t *testing.T, ku *c5c3v1alpha1.KeystoneUser, gen int64) *c5c3v1alpha1.KeystoneUser {
	t.Helper()
	var cur c5c3v1alpha1.KeystoneUser
	testenv.Eventually(t, waitTimeout, fmt.Sprintf("password generation %d delivered", gen), func() error {
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(ku), &cur); err != nil {
			return err
		}
		r := meta.FindStatusCondition(cur.Status.Conditions, c5c3v1alpha1.ConditionReady)
		if cur.Status.PasswordGeneration != gen || r == nil || r.Status != metav1.ConditionTrue || r.ObservedGeneration != cur.Generation {
			return fmt.Errorf("status.passwordGeneration %d, Ready %+v", cur.Status.PasswordGeneration, r)
		}
		return nil
	})
	return &cur
}

// TestScheduledRotationHeldWhileCredentialOrderIsDeleted: with the schedule
// on, status.nextPasswordRotation is lastPasswordRotation + interval; once
// it passes (the reconciler's clock is moved forward) the rotation is held
// while a credential order referencing the user is being deleted, and runs
// once it is gone.
func TestScheduledRotationHeldWhileCredentialOrderIsDeleted(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(func() { clockOffset.Store(0) })
	ku := userOrder(tenantNS, "scheduled")
	ku.Spec.Rotation = &c5c3v1alpha1.UserPasswordRotationSpec{Interval: &metav1.Duration{Duration: time.Hour}}
	create(t, ku)
	got := waitGeneration(t, ku, 1)
	if st := got.Status; st.LastPasswordRotation == nil || st.NextPasswordRotation == nil ||
		!st.NextPasswordRotation.Time.Equal(st.LastPasswordRotation.Add(time.Hour)) {
		t.Fatalf("last %v, next %v: want next = last + 1h", st.LastPasswordRotation, st.NextPasswordRotation)
	}
	first, _, err := delivered(ku)
	if err != nil {
		t.Fatal(err)
	}

	// A credential order of this user being deleted.
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: "scheduled-ac", Namespace: tenantNS,
		Finalizers: []string{testHold}},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{
			ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			UserRef:         c5c3v1alpha1.OrderRef{Name: "scheduled"}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "some-project"}}}
	create(t, ac)
	if err := kube.Delete(ctx, ac); err != nil {
		t.Fatal(err)
	}
	clockOffset.Store(int64(2 * time.Hour)) // the schedule is due
	testenv.Eventually(t, waitTimeout, "the ScheduledRotationHeld event", func() error {
		var evs eventsv1.EventList
		if err := kube.List(ctx, &evs, client.InNamespace(tenantNS)); err != nil {
			return err
		}
		for _, e := range evs.Items {
			if e.Reason == EventRotationHeld && e.Regarding.Name == "scheduled" {
				return nil
			}
		}
		return errors.New("no event yet")
	})
	var cur c5c3v1alpha1.KeystoneUser
	if err := kube.Get(ctx, client.ObjectKeyFromObject(ku), &cur); err != nil {
		t.Fatal(err)
	}
	if cur.Status.PasswordGeneration != 1 {
		t.Fatalf("a held scheduled rotation ran: generation %d", cur.Status.PasswordGeneration)
	}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(ku, korc.PasswordDiscriminator(2))}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("password generation 2 was created while held (err %v)", err)
	}
	if _, err := testenv.Authenticate(ctx, first); err != nil {
		t.Fatalf("the current password stopped working while held: %v", err)
	}

	// The credential order goes: the rotation runs.
	start := time.Now()
	var held c5c3v1alpha1.KeystoneApplicationCredential
	if err := kube.Get(ctx, client.ObjectKeyFromObject(ac), &held); err != nil {
		t.Fatal(err)
	}
	base := held.DeepCopy()
	held.Finalizers = nil
	if err := kube.Patch(ctx, &held, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	rotated := waitGeneration(t, ku, 2)
	t.Logf("hold released -> scheduled rotation delivered in %s", time.Since(start).Round(100*time.Millisecond))
	if st := rotated.Status; !st.LastPasswordRotation.After(got.Status.LastPasswordRotation.Time) ||
		!st.NextPasswordRotation.Time.Equal(st.LastPasswordRotation.Add(time.Hour)) {
		t.Fatalf("after the rotation: last %v, next %v", st.LastPasswordRotation, st.NextPasswordRotation)
	}
	second, _, err := delivered(ku)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Authenticate(ctx, second); err != nil {
		t.Fatalf("the rotated password does not authenticate: %v", err)
	}
	if _, err := testenv.Authenticate(ctx, first); err == nil {
		t.Fatal("the superseded password still authenticates")
	}
	clockOffset.Store(0)
	if err := kube.Delete(ctx, rotated); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}

// TestDefaultProjectScopesTheUser: defaultProjectRef is gated
// (ProjectNotFound, WaitingForProject), then becomes the Keystone user's
// default project and scopes the delivered clouds.yaml. The KeystoneProject
// reconciler does not run in this suite: the test projects its K-ORC
// Project child and status itself, under the naming contract.
func TestDefaultProjectScopesTheUser(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(tenantNS, "scoped")
	ku.Spec.DefaultProjectRef = &c5c3v1alpha1.OrderRef{Name: "scoped-project"}
	create(t, ku)
	waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonProjectNotFound)
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(ku, korc.DiscUser)}, &orcv1alpha1.User{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a K-ORC User exists before the project resolves (err %v)", err)
	}
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "scoped-project", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}}}
	create(t, kp)
	waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonWaitingForProject)

	// The project as the KeystoneProject reconciler would project it.
	pn := orcv1alpha1.KeystoneName("scoped-project-ks")
	dref := orcv1alpha1.KubernetesNameRef(korc.AdminDomainImportName("cp", "Default"))
	proj := korc.ManagedProject(korc.Child{Name: korc.OrderChildName(korc.InfixProject, "", tenantNS, "scoped-project", korc.DiscProject),
		Namespace: planeNS, Credentials: orcv1alpha1.CloudCredentialsReference{SecretName: korc.AdminPasswordCloudSecretName("cp"), CloudName: "admin"}},
		orcv1alpha1.ProjectResourceSpec{Name: &pn, DomainRef: &dref, Enabled: ptr.To(true)})
	create(t, proj)
	t.Cleanup(func() { _ = kube.Delete(context.Background(), proj) })
	testenv.Eventually(t, waitTimeout, "the K-ORC Project Available", func() error {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(proj), proj); err != nil {
			return err
		}
		if !korc.AvailableUpToDate(proj) {
			return errors.New("not Available")
		}
		return nil
	})
	projectID := korc.IDOf(proj)
	base := kp.DeepCopy()
	meta.SetStatusCondition(&kp.Status.Conditions, metav1.Condition{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionTrue,
		Reason: c5c3v1alpha1.ReasonProjectProvisioned, Message: "test"})
	kp.Status.ProjectName, kp.Status.ProjectID = string(pn), projectID
	if err := kube.Status().Patch(ctx, kp, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	got := waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)

	u := keystoneUser(t, "scoped")
	if u == nil || u.ID != got.Status.UserID || u.DefaultProjectID != projectID {
		t.Fatalf("Keystone user %+v, want id %s with default project %s", u, got.Status.UserID, projectID)
	}
	cloud, _, err := delivered(ku)
	if err != nil {
		t.Fatal(err)
	}
	if cloud.AuthInfo.ProjectName != string(pn) || cloud.AuthInfo.ProjectDomainName != "Default" {
		t.Fatalf("delivered clouds.yaml scope %q/%q", cloud.AuthInfo.ProjectName, cloud.AuthInfo.ProjectDomainName)
	}
	// A project-scoped token needs a role there (KeystoneRoleAssignment's
	// job; granted by hand here).
	role, err := roles.Create(ctx, identity, roles.CreateOpts{Name: "keystoneuser-test-role"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = roles.Delete(context.Background(), identity, role.ID).ExtractErr() })
	if err := roles.Assign(ctx, identity, role.ID, roles.AssignOpts{UserID: u.ID, ProjectID: projectID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Authenticate(ctx, cloud); err != nil {
		t.Fatalf("the scoped clouds.yaml does not authenticate: %v", err)
	}

	if err := kube.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	if u := keystoneUser(t, "scoped"); u != nil {
		t.Fatalf("Keystone still has user scoped (%s)", u.ID)
	}
	if err := kube.Delete(ctx, kp); err != nil {
		t.Fatal(err)
	}
}
