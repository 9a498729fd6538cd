//go:build integration

package keystoneproject

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

func order(ns, name, projectName, desc string) *c5c3v1alpha1.KeystoneProject {
	return &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			ProjectName: c5c3v1alpha1.KeystoneName(projectName), Description: desc}}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

// waitForReason waits until kp's condition typ reads reason at its current
// generation and returns the order as then read (testenv.WaitForReason).
func waitForReason(t *testing.T, kp *c5c3v1alpha1.KeystoneProject, typ, reason string) *c5c3v1alpha1.KeystoneProject {
	t.Helper()
	return testenv.WaitForReason(t, kube, waitTimeout, kp,
		func(o *c5c3v1alpha1.KeystoneProject) []metav1.Condition { return o.Status.Conditions }, typ, reason)
}

func waitGone(t *testing.T, obj client.Object) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, obj.GetName()+" gone", func() error {
		err := kube.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (finalizers %v, err %v)", obj.GetFinalizers(), err)
	})
}

// keystoneProjects lists the Keystone projects named name.
func keystoneProjects(t *testing.T, name string) []projects.Project {
	t.Helper()
	return testenv.KeystoneList(t, projects.List(identity, projects.ListOpts{Name: name}), projects.ExtractProjects)
}

func waitKeystone(t *testing.T, name string, what string, ok func([]projects.Project) error) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "Keystone project "+name+": "+what, func() error { return ok(keystoneProjects(t, name)) })
}

func defaultDomainID(t *testing.T) string {
	t.Helper()
	return testenv.KeystoneDomainID(t, identity, "Default")
}

// children lists the K-ORC Projects and Domains labelled for kp.
func children(t *testing.T, kp *c5c3v1alpha1.KeystoneProject) []string {
	t.Helper()
	lbl := orders.ChildLabels(orders.Order{Kind: orders.KindKeystoneProject, Namespace: kp.Namespace, Name: kp.Name})
	var out []string
	var ps orcv1alpha1.ProjectList
	if err := kube.List(context.Background(), &ps, client.InNamespace(planeNS), client.MatchingLabels(lbl)); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps.Items {
		out = append(out, "Project/"+p.Name)
	}
	var ds orcv1alpha1.DomainList
	if err := kube.List(context.Background(), &ds, client.InNamespace(planeNS), client.MatchingLabels(lbl)); err != nil {
		t.Fatal(err)
	}
	for _, d := range ds.Items {
		out = append(out, "Domain/"+d.Name)
	}
	return out
}

func update(t *testing.T, kp *c5c3v1alpha1.KeystoneProject, f func(*c5c3v1alpha1.KeystoneProject)) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "update "+kp.Name, func() error {
		var got c5c3v1alpha1.KeystoneProject
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(kp), &got); err != nil {
			return err
		}
		f(&got)
		return kube.Update(context.Background(), &got)
	})
}

// TestProjectLifecycle orders a project, reads it back from Keystone,
// changes its description in place and deletes it with the order.
func TestProjectLifecycle(t *testing.T) {
	start := time.Now()
	kp := order(tenantNS, "workflow-project", "", "the workflow service's project")
	create(t, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	t.Logf("order created -> Ready: %s", time.Since(start).Round(10*time.Millisecond))
	if c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionProjectReady); c.Reason != c5c3v1alpha1.ReasonProjectProvisioned {
		t.Fatalf("ProjectReady %+v", c)
	}
	ps := keystoneProjects(t, "workflow-project")
	if len(ps) != 1 {
		t.Fatalf("Keystone projects named workflow-project: %v", ps)
	}
	if got.Status.ProjectName != "workflow-project" || got.Status.ProjectID != ps[0].ID || got.Status.DomainID != defaultDomainID(t) ||
		ps[0].DomainID != got.Status.DomainID {
		t.Fatalf("status %+v, Keystone %+v", got.Status, ps[0])
	}
	if ps[0].Description != "the workflow service's project" || !ps[0].Enabled {
		t.Fatalf("Keystone project %+v", ps[0])
	}
	if !slices.Contains(got.Finalizers, c5c3v1alpha1.FinalizerKeystoneProjectTeardown) {
		t.Fatalf("finalizers %v", got.Finalizers)
	}

	// The description is mutable and written in place.
	start = time.Now()
	update(t, kp, func(k *c5c3v1alpha1.KeystoneProject) { k.Spec.Description = "renamed purpose" })
	waitKeystone(t, "workflow-project", "description updated", func(ps []projects.Project) error {
		if len(ps) != 1 || ps[0].Description != "renamed purpose" || ps[0].ID != got.Status.ProjectID {
			return fmt.Errorf("%+v", ps)
		}
		return nil
	})
	t.Logf("description change -> Keystone: %s", time.Since(start).Round(10*time.Millisecond))
	waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	update(t, kp, func(k *c5c3v1alpha1.KeystoneProject) { k.Spec.Description = "" })
	waitKeystone(t, "workflow-project", "description cleared", func(ps []projects.Project) error {
		if len(ps) != 1 || ps[0].Description != "" {
			return fmt.Errorf("%+v", ps)
		}
		return nil
	})

	start = time.Now()
	if err := kube.Delete(context.Background(), kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	if ps := keystoneProjects(t, "workflow-project"); len(ps) != 0 {
		t.Fatalf("the Keystone project outlived its order: %v", ps)
	}
	if left := children(t, kp); len(left) != 0 {
		t.Fatalf("children left: %v", left)
	}
	t.Logf("delete -> order and Keystone project gone: %s", time.Since(start).Round(10*time.Millisecond))
}

// TestUnassignedNamespaceIsFrozen: an order from a namespace no
// namespaceAssignments entry names reads NamespaceNotAssigned, gets no
// finalizer and projects nothing.
func TestUnassignedNamespaceIsFrozen(t *testing.T) {
	kp := order(unassignedNS, "frozen-project", "", "")
	create(t, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonNamespaceNotAssigned)
	c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionReady)
	if c == nil || c.Reason != c5c3v1alpha1.ReasonNotAllReady {
		t.Fatalf("Ready %+v", c)
	}
	testenv.ObservedCondition(t, got, *c)
	if len(got.Finalizers) != 0 || got.Status.ProjectID != "" {
		t.Fatalf("a frozen order got %v / %+v", got.Finalizers, got.Status)
	}
	if left := children(t, kp); len(left) != 0 {
		t.Fatalf("a frozen order projected %v", left)
	}
	if ps := keystoneProjects(t, "frozen-project"); len(ps) != 0 {
		t.Fatalf("a frozen order created %v", ps)
	}
	if err := kube.Delete(context.Background(), kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
}

// TestCollisionTouchesNothing: a project of the same name that the order did
// not create parks it at ProjectCollision; the project is neither adopted
// nor changed nor deleted with the order.
func TestCollisionTouchesNothing(t *testing.T) {
	ctx := context.Background()
	pre, err := projects.Create(ctx, identity, projects.CreateOpts{Name: "preexisting", DomainID: defaultDomainID(t),
		Description: "somebody else's"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = projects.Delete(ctx, identity, pre.ID).ExtractErr() })
	kp := order(tenantNS, "collides", "preexisting", "mine")
	create(t, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonProjectCollision)
	if got.Status.ProjectID != "" || got.Status.ProjectName != "" {
		t.Fatalf("status of a collision: %+v", got.Status)
	}
	var managed orcv1alpha1.Project
	err = kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(kp, "project")}, &managed)
	if !apierrors.IsNotFound(err) {
		t.Fatalf("a managed Project was projected despite the collision: %v", err)
	}
	same := func(what string) {
		ps := keystoneProjects(t, "preexisting")
		if len(ps) != 1 || ps[0].ID != pre.ID || ps[0].Description != "somebody else's" {
			t.Fatalf("%s: the pre-existing project changed: %+v", what, ps)
		}
	}
	same("after the collision")
	if err := kube.Delete(ctx, kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	same("after the order's deletion")
}

// TestAdminProjectRefused: the plane's admin project is never orderable,
// whatever its case.
func TestAdminProjectRefused(t *testing.T) {
	kp := order(tenantNS, "admin-project", "ADMIN", "")
	create(t, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonProjectCollision)
	if left := children(t, kp); len(left) != 0 {
		t.Fatalf("the admin project refusal projected %v", left)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionProjectReady)
	t.Logf("refusal: %s", c.Message)
	if err := kube.Delete(context.Background(), kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	if ps := keystoneProjects(t, stack.Keystone.AdminProject); len(ps) != 1 {
		t.Fatalf("the admin project: %v", ps)
	}
}

// TestDeletionHeldByCredential: deleting a project a
// KeystoneApplicationCredential references holds at
// ReferencedByApplicationCredentials, keeping the Keystone project; the
// hold is released when the credential order goes, by its deletion event
// (the suite's held deletions look again only after an hour). (No credential
// reconciler runs here: the KeystoneApplicationCredential is a bare object
// without a finalizer, which is all the hold reads.)
func TestDeletionHeldByCredential(t *testing.T) {
	ctx := context.Background()
	kp := order(tenantNS, "held-project", "", "")
	create(t, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: "holder", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			UserRef: c5c3v1alpha1.OrderRef{Name: "someone"}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "held-project"}}}
	create(t, ac)
	if err := kube.Delete(ctx, kp); err != nil {
		t.Fatal(err)
	}
	held := waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonReferencedByApplicationCredentials)
	if c := meta.FindStatusCondition(held.Status.Conditions, c5c3v1alpha1.ConditionProjectReady); c.Message == "" {
		t.Fatal("the hold names no credential order")
	}
	if ps := keystoneProjects(t, "held-project"); len(ps) != 1 || ps[0].ID != got.Status.ProjectID {
		t.Fatalf("the held project is gone from Keystone: %v", ps)
	}
	if len(children(t, kp)) == 0 {
		t.Fatal("the held order's children were deleted")
	}
	start := time.Now()
	if err := kube.Delete(ctx, ac); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	t.Logf("credential deleted -> project order released: %s", time.Since(start).Round(10*time.Millisecond))
	if ps := keystoneProjects(t, "held-project"); len(ps) != 0 {
		t.Fatalf("the Keystone project outlived its order: %v", ps)
	}
}

func childName(kp *c5c3v1alpha1.KeystoneProject, disc string) string {
	return korcChildName(kp.Namespace, kp.Name, disc)
}

func korcChildName(ns, name, disc string) string {
	return korc.OrderChildName(korc.InfixProject, "", ns, name, disc)
}

// TestFreezeKeepsProject: withdrawing the namespace's assignment freezes a
// provisioned order at NamespaceNotAssigned, keeping its status and its
// Keystone project; the assignment's return resumes it.
func TestFreezeKeepsProject(t *testing.T) {
	kp := order(tenantNS, "frozen-later", "", "")
	create(t, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	setAssignments(t, nil)
	t.Cleanup(func() { setAssignments(t, []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)}) })
	frozen := waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonNamespaceNotAssigned)
	if frozen.Status.ProjectID != got.Status.ProjectID || frozen.Status.ProjectName != "frozen-later" {
		t.Fatalf("a frozen order lost its status: %+v", frozen.Status)
	}
	if ps := keystoneProjects(t, "frozen-later"); len(ps) != 1 || ps[0].ID != got.Status.ProjectID {
		t.Fatalf("a frozen order's project changed: %v", ps)
	}
	if len(children(t, kp)) == 0 {
		t.Fatal("a frozen order's children were removed")
	}
	setAssignments(t, []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)})
	waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if err := kube.Delete(context.Background(), kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	if ps := keystoneProjects(t, "frozen-later"); len(ps) != 0 {
		t.Fatalf("the Keystone project outlived its order: %v", ps)
	}
}

// setAssignments rewrites the plane's spec.namespaceAssignments.
func setAssignments(t *testing.T, as []c5c3v1alpha1.NamespaceAssignment) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "update the ControlPlane", func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), client.ObjectKey{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		cp.Spec.NamespaceAssignments = as
		return kube.Update(context.Background(), &cp)
	})
}

// TestPlaneGoneReleases: with its ControlPlane gone, K-ORC has nothing left
// to reach Keystone with, so the teardown issues its deletes once and
// releases the finalizer (fail-open). The Keystone project is orphaned, as
// documented. A second plane in its own namespace keeps "cp" intact for the
// other tests.
func TestPlaneGoneReleases(t *testing.T) {
	ctx := context.Background()
	const ns2 = "openstack-two"
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns2}})
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: controlplane.DefaultPasswordSecret, Namespace: ns2},
		Data: map[string][]byte{controlplane.DefaultPasswordKey: []byte(stack.Keystone.AdminPassword)}})
	cp2 := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp2", Namespace: ns2},
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}},
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)},
		}}
	create(t, cp2)
	kp := order(tenantNS, "orphaned", "", "")
	kp.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp2", Namespace: ns2}
	create(t, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	t.Cleanup(func() {
		_ = projects.Delete(ctx, identity, got.Status.ProjectID).ExtractErr()
		// K-ORC cannot delete the child without the plane's credentials:
		// drop its finalizer so the namespace can go.
		var stuck orcv1alpha1.Project
		if err := kube.Get(ctx, types.NamespacedName{Namespace: ns2, Name: korc.OrderChildName(korc.InfixProject, "", tenantNS, "orphaned", korc.DiscProject)}, &stuck); err == nil {
			stuck.Finalizers = nil
			_ = kube.Update(ctx, &stuck)
		}
	})
	if err := kube.Delete(ctx, cp2); err != nil {
		t.Fatal(err)
	}
	waitGone(t, cp2)
	start := time.Now()
	if err := kube.Delete(ctx, kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	t.Logf("plane gone: delete -> released: %s", time.Since(start).Round(10*time.Millisecond))
}
