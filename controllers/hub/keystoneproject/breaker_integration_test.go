//go:build integration

package keystoneproject

import (
	"context"
	"fmt"
	"strings"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// secondNS is a second tenant namespace the twin test assigns for itself.
const secondNS = "tenant-b"

// TestSameProjectNameAcrossNamespaces: two orders of one Keystone project
// name in two assigned namespaces, created at once. Only one owns the
// project; the other reads ProjectCollision naming no holder outside its
// namespace,
// and deleting it leaves the holder's project in Keystone. Once the holder
// is deleted, the name is free again (the claim is released).
func TestSameProjectNameAcrossNamespaces(t *testing.T) {
	ctx := context.Background()
	setAssignments(t, []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS), assigned(secondNS)})
	t.Cleanup(func() { setAssignments(t, []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)}) })
	a, b := order(tenantNS, "twin-project", "", ""), order(secondNS, "twin-project", "", "")
	create(t, a)
	create(t, b)
	reasonOf := func(kp *c5c3v1alpha1.KeystoneProject) string {
		if c := meta.FindStatusCondition(kp.Status.Conditions, c5c3v1alpha1.ConditionProjectReady); c != nil && c.ObservedGeneration == kp.Generation {
			return c.Reason
		}
		return ""
	}
	var owner, other *c5c3v1alpha1.KeystoneProject
	both := false
	testenv.Eventually(t, waitTimeout, "one twin provisioned, the other refused", func() error {
		for _, kp := range []*c5c3v1alpha1.KeystoneProject{a, b} {
			if err := kube.Get(ctx, types.NamespacedName{Namespace: kp.Namespace, Name: kp.Name}, kp); err != nil {
				return err
			}
		}
		ra, rb := reasonOf(a), reasonOf(b)
		switch {
		case ra == c5c3v1alpha1.ReasonProjectProvisioned && rb == c5c3v1alpha1.ReasonProjectCollision:
			owner, other = a, b
		case rb == c5c3v1alpha1.ReasonProjectProvisioned && ra == c5c3v1alpha1.ReasonProjectCollision:
			owner, other = b, a
		case ra == c5c3v1alpha1.ReasonProjectProvisioned && rb == c5c3v1alpha1.ReasonProjectProvisioned:
			both = true
		default:
			return fmt.Errorf("a=%s b=%s", ra, rb)
		}
		return nil
	})
	if both {
		t.Fatalf("both twins report ProjectProvisioned (ids %q, %q): they share one Keystone project", a.Status.ProjectID, b.Status.ProjectID)
	}
	msg := meta.FindStatusCondition(other.Status.Conditions, c5c3v1alpha1.ConditionProjectReady).Message
	// The holder is in another namespace: a tenant's message names nothing
	// outside its own (docs/reference/keystoneproject.md).
	if strings.Contains(msg, owner.Namespace) || !strings.Contains(msg, orders.HolderOutsideNamespace) {
		t.Fatalf("the collision names the holder %s/%s outside this namespace, or not as %q: %s",
			owner.Namespace, owner.Name, orders.HolderOutsideNamespace, msg)
	}
	if ps := keystoneProjects(t, "twin-project"); len(ps) != 1 || ps[0].ID != owner.Status.ProjectID {
		t.Fatalf("Keystone projects named twin-project: %v, want the holder's %s", ps, owner.Status.ProjectID)
	}
	if err := kube.Delete(ctx, other); err != nil {
		t.Fatal(err)
	}
	waitGone(t, other)
	if ps := keystoneProjects(t, "twin-project"); len(ps) != 1 || ps[0].ID != owner.Status.ProjectID {
		t.Fatalf("deleting the refused twin touched the holder's project: %v", ps)
	}
	waitForReason(t, owner, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if err := kube.Delete(ctx, owner); err != nil {
		t.Fatal(err)
	}
	waitGone(t, owner)
	// The name is free: a new order in the other namespace provisions it.
	again := order(other.Namespace, "twin-project", "", "")
	create(t, again)
	waitForReason(t, again, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if err := kube.Delete(ctx, again); err != nil {
		t.Fatal(err)
	}
	waitGone(t, again)
}

// TestDeletionHeldByDefaultProjectUser (breaker M1): a KeystoneUser naming
// the project in spec.defaultProjectRef holds the project order's deletion
// with ProjectReady=False naming the user and the remedy (K-ORC keeps the
// project for the user anyway); the project and its K-ORC child stay until
// the user order goes, whose deletion event releases it (the suite's held
// deletions look again only after an hour). No user reconciler runs here:
// the KeystoneUser is a bare object, which is all the hold reads.
func TestDeletionHeldByDefaultProjectUser(t *testing.T) {
	ctx := context.Background()
	kp := order(tenantNS, "dp-proj", "", "")
	create(t, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "dp-user", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			DefaultProjectRef: &c5c3v1alpha1.OrderRef{Name: "dp-proj"}}}
	create(t, ku)
	if err := kube.Delete(ctx, kp); err != nil {
		t.Fatal(err)
	}
	held := waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonReferencedByUsers)
	if c := meta.FindStatusCondition(held.Status.Conditions, c5c3v1alpha1.ConditionProjectReady); !strings.Contains(c.Message, "KeystoneUser dp-user") ||
		!strings.Contains(c.Message, "delete the user order") {
		t.Fatalf("the hold does not name the user and the remedy: %s", c.Message)
	}
	var child orcv1alpha1.Project
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: korcChildName(tenantNS, "dp-proj", korc.DiscProject)}, &child); err != nil ||
		!child.DeletionTimestamp.IsZero() {
		t.Fatalf("the held order's K-ORC Project was deleted (err %v)", err)
	}
	if ps := keystoneProjects(t, "dp-proj"); len(ps) != 1 || ps[0].ID != got.Status.ProjectID {
		t.Fatalf("the held project is gone from Keystone: %v", ps)
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	if ps := keystoneProjects(t, "dp-proj"); len(ps) != 0 {
		t.Fatalf("the Keystone project outlived its order: %v", ps)
	}
}
