//go:build integration

package keystoneuser

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
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

// laterDomain is the domain TestReasons_DomainNotInKeystoneYet creates.
const laterDomain = "reasons-later-domain"

// TestReasons_DomainNotInKeystoneYet: a user in a domain Keystone does not
// have: K-ORC's import of the domain waits for it to appear, so the
// collision probe cannot resolve (UserReady=ProbingForCollision) and
// nothing is created; once the domain is created in Keystone the user is
// provisioned in it.
func TestReasons_DomainNotInKeystoneYet(t *testing.T) {
	ctx := context.Background()
	const domain = laterDomain
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

// waitUserMessage waits until ku's UserReady has reason and a message
// containing want.
func waitUserMessage(t *testing.T, ku *c5c3v1alpha1.KeystoneUser, reason, want string) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "UserReady "+reason+" naming "+want, func() error {
		var got c5c3v1alpha1.KeystoneUser
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(ku), &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionUserReady)
		if c == nil || c.Reason != reason || c.ObservedGeneration != got.Generation || !strings.Contains(c.Message, want) {
			return fmt.Errorf("UserReady is %+v", c)
		}
		testenv.ObservedCondition(t, &got, *c)
		return nil
	})
}

// touch changes an annotation on ku, forcing a pass now rather than after
// the reconciler's back-off.
func touch(t *testing.T, ku *c5c3v1alpha1.KeystoneUser) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "touch "+ku.Name, func() error {
		var got c5c3v1alpha1.KeystoneUser
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(ku), &got); err != nil {
			return err
		}
		p := client.MergeFrom(got.DeepCopy())
		if got.Annotations == nil {
			got.Annotations = map[string]string{}
		}
		got.Annotations["test.orderhub/touch"] = metav1.Now().String()
		return kube.Patch(context.Background(), &got, p)
	})
}

// touchKORCUsers changes an annotation on ku's K-ORC Users, so K-ORC
// reconciles them now rather than after its back-off.
func touchKORCUsers(t *testing.T, ku *c5c3v1alpha1.KeystoneUser) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "touch the K-ORC Users of "+ku.Name, func() error {
		var us orcv1alpha1.UserList
		if err := kube.List(context.Background(), &us, client.InNamespace(planeNS), client.MatchingLabels(orders.ChildLabels(order(ku)))); err != nil {
			return err
		}
		for i := range us.Items {
			p := client.MergeFrom(us.Items[i].DeepCopy())
			if us.Items[i].Annotations == nil {
				us.Items[i].Annotations = map[string]string{}
			}
			us.Items[i].Annotations["test.orderhub/touch"] = metav1.Now().String()
			if err := kube.Patch(context.Background(), &us.Items[i], p); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestReasons_UserChildRefusedByTheAPIServer: while the apiserver refuses
// to create K-ORC Users in the plane's namespace (an admission policy), the
// order's children cannot be applied and UserReady says UserError with the
// apiserver's refusal (docs/reference/keystoneuser.md); Keystone has no such
// user. Once the policy is lifted the user is provisioned and delivered,
// and the order deletes.
func TestReasons_UserChildRefusedByTheAPIServer(t *testing.T) {
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: "openstack.k-orc.cloud", Resources: []string{"users"}})
	ku := userOrder(tenantNS, "refused-user")
	create(t, ku)
	waitUserMessage(t, ku, c5c3v1alpha1.ReasonUserError, testenv.RefusalMessage)
	if u := keystoneUser(t, "refused-user"); u != nil {
		t.Errorf("Keystone holds user %s while the apiserver refuses the children", u.ID)
	}
	lift()
	touch(t, ku)
	waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	authenticates(t, ku, "after the refusal")
	if err := kube.Delete(context.Background(), ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	if u := keystoneUser(t, "refused-user"); u != nil {
		t.Errorf("the Keystone user %s outlived its order", u.ID)
	}
}

// TestReasons_KeystoneUserNotAvailable: the apiserver refuses K-ORC's
// status writes on managed Users in the plane's namespace (an admission
// policy; the collision probe's import is let through), so the order's
// K-ORC User never reports Available and UserReady says
// WaitingForKeystoneUser (docs/reference/keystoneuser.md); nothing is
// delivered. Once the policy is lifted the user is provisioned and
// delivered.
func TestReasons_KeystoneUserNotAvailable(t *testing.T) {
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: "openstack.k-orc.cloud",
		Resources:  []string{"users/status"},
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
		Allow:      `object.spec.managementPolicy != "managed"`})
	ku := userOrder(tenantNS, "unavailable-user")
	create(t, ku)
	waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonWaitingForKeystoneUser)
	got := waitFor(t, ku, c5c3v1alpha1.ConditionDeliveryReady, c5c3v1alpha1.ReasonWaitingForPassword)
	if got.Status.UserID != "" {
		t.Errorf("status.userID %q while K-ORC cannot report the user", got.Status.UserID)
	}
	lift()
	touchKORCUsers(t, ku)
	waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	authenticates(t, ku, "after the refusal")
	if err := kube.Delete(context.Background(), ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}
