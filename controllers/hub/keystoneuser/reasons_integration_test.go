//go:build integration

package keystoneuser

import (
	"context"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// The reason tests of KeystoneUser: each condition reason the order writes,
// caused by a real server where one can be made (hack/reasons lists which
// test shows which reason).

// TestReasons_DefaultProjectOfAnotherPlane: a user whose
// spec.defaultProjectRef names a KeystoneProject of another ControlPlane is
// refused (UserReady=ControlPlaneMismatch), creates nothing and delivers
// nothing (DeliveryReady=WaitingForPassword)
// (docs/reference/keystoneuser.md).
func TestReasons_DefaultProjectOfAnotherPlane(t *testing.T) {
	ctx := context.Background()
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "other-plane-project", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp-other", Namespace: planeNS}}}
	create(t, kp)
	ku := userOrder(tenantNS, "mismatched-default")
	ku.Spec.DefaultProjectRef = &c5c3v1alpha1.OrderRef{Name: kp.Name}
	create(t, ku)
	got := waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonControlPlaneMismatch)
	if c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionUserReady); !strings.Contains(c.Message, "cp-other") {
		t.Errorf("ControlPlaneMismatch message %q does not name the project's plane", c.Message)
	}
	waitFor(t, ku, c5c3v1alpha1.ConditionDeliveryReady, c5c3v1alpha1.ReasonWaitingForPassword)
	if got.Status.UserID != "" {
		t.Errorf("status.userID %q: a user was created", got.Status.UserID)
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	if err := kube.Delete(ctx, kp); err != nil {
		t.Fatal(err)
	}
}

// TestReasons_DomainNotInKeystoneYet: a user in a domain Keystone does not
// have: K-ORC's import of the domain waits for it to appear, so the
// collision probe cannot resolve (UserReady=ProbingForCollision) and
// nothing is created; once the domain is created in Keystone the user is
// provisioned in it.
func TestReasons_DomainNotInKeystoneYet(t *testing.T) {
	ctx := context.Background()
	const domain = "reasons-later-domain"
	ku := userOrder(tenantNS, "later-domain-user")
	ku.Spec.DomainName = domain
	create(t, ku)
	waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonProbingForCollision)
	enabled := true
	d, err := domains.Create(ctx, identity, domains.CreateOpts{Name: domain, Enabled: &enabled}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	got := waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if got.Status.UserID == "" {
		t.Fatal("no status.userID once provisioned")
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	disabled := false
	if _, err := domains.Update(ctx, identity, d.ID, domains.UpdateOpts{Enabled: &disabled}).Extract(); err == nil {
		_ = domains.Delete(ctx, identity, d.ID).ExtractErr()
	}
}
