//go:build integration

package keystoneproject

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// The reason tests of KeystoneProject: each ProjectReady reason not shown
// by the lifecycle tests, caused by a real server (the apiserver refusing a
// request through an admission policy, the catalog's identity endpoint
// refusing connections). hack/reasons lists which test shows which reason.

// waitProjectMessage waits until kp's ProjectReady has reason and a
// message containing want.
func waitProjectMessage(t *testing.T, kp *c5c3v1alpha1.KeystoneProject, reason, want string) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "ProjectReady "+reason+" naming "+want, func() error {
		var got c5c3v1alpha1.KeystoneProject
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(kp), &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionProjectReady)
		if c == nil || c.Reason != reason || c.ObservedGeneration != got.Generation || !strings.Contains(c.Message, want) {
			return fmt.Errorf("ProjectReady is %+v", c)
		}
		testenv.ObservedCondition(t, &got, *c)
		return nil
	})
}

// touchProjects changes an annotation on kp's K-ORC Projects in ns, so
// K-ORC reconciles them now rather than after its back-off.
func touchProjects(t *testing.T, ns string, kp *c5c3v1alpha1.KeystoneProject) {
	t.Helper()
	lbl := orders.ChildLabels(orders.Order{Kind: orders.KindKeystoneProject, Namespace: kp.Namespace, Name: kp.Name})
	testenv.Eventually(t, waitTimeout, "touch the K-ORC Projects of "+kp.Name, func() error {
		var ps orcv1alpha1.ProjectList
		if err := kube.List(context.Background(), &ps, client.InNamespace(ns), client.MatchingLabels(lbl)); err != nil {
			return err
		}
		for i := range ps.Items {
			p := client.MergeFrom(ps.Items[i].DeepCopy())
			if ps.Items[i].Annotations == nil {
				ps.Items[i].Annotations = map[string]string{}
			}
			ps.Items[i].Annotations["test.orderhub/touch"] = metav1.Now().String()
			if err := kube.Patch(context.Background(), &ps.Items[i], p); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestReasons_ProjectChildRefusedByTheAPIServer: while the apiserver
// refuses to create K-ORC Projects in the plane's namespace (an admission
// policy), the order's children cannot be applied and ProjectReady says
// ProjectError with the apiserver's refusal
// (docs/reference/keystoneproject.md); Keystone has no such project. Once
// the policy is lifted the project is provisioned, and the order deletes.
func TestReasons_ProjectChildRefusedByTheAPIServer(t *testing.T) {
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: "openstack.k-orc.cloud",
		Resources: []string{"projects"}})
	kp := order(tenantNS, "refused-project", "", "")
	create(t, kp)
	waitProjectMessage(t, kp, c5c3v1alpha1.ReasonProjectError, testenv.RefusalMessage)
	if ps := keystoneProjects(t, "refused-project"); len(ps) != 0 {
		t.Errorf("Keystone holds %v while the apiserver refuses the children", ps)
	}
	lift()
	update(t, kp, func(k *c5c3v1alpha1.KeystoneProject) { k.Spec.Description = "after the refusal" })
	waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonProjectProvisioned)
	if err := kube.Delete(context.Background(), kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	if ps := keystoneProjects(t, "refused-project"); len(ps) != 0 {
		t.Errorf("the Keystone project outlived its order: %v", ps)
	}
}

// TestReasons_KeystoneProjectNotAvailable: the apiserver refuses K-ORC's
// status writes on managed Projects in the plane's namespace (an admission
// policy; the collision probe's import is let through), so the order's
// K-ORC Project never reports Available and ProjectReady says
// WaitingForKeystoneProject (docs/reference/keystoneproject.md). Once the
// policy is lifted K-ORC records the project and the order is provisioned.
func TestReasons_KeystoneProjectNotAvailable(t *testing.T) {
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: "openstack.k-orc.cloud",
		Resources:  []string{"projects/status"},
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
		Allow:      `object.spec.managementPolicy != "managed"`})
	kp := order(tenantNS, "unavailable-project", "", "")
	create(t, kp)
	waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonWaitingForKeystoneProject)
	lift()
	touchProjects(t, planeNS, kp)
	got := waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonProjectProvisioned)
	if ps := keystoneProjects(t, "unavailable-project"); len(ps) != 1 || ps[0].ID != got.Status.ProjectID {
		t.Errorf("Keystone projects named unavailable-project: %v, want one with id %s", ps, got.Status.ProjectID)
	}
	if err := kube.Delete(context.Background(), kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	if ps := keystoneProjects(t, "unavailable-project"); len(ps) != 0 {
		t.Errorf("the Keystone project outlived its order: %v", ps)
	}
}

// frontRegion is the Keystone region whose identity endpoint is the test's
// front (testenv.IdentityFront).
const frontRegion = "RegionFront"

// TestReasons_ProjectFailed: a plane in a region whose catalog identity
// endpoint (an identity front) drops every project create at the transport
// level, while it answers every other call: the collision probe finds no
// project, and K-ORC's create fails terminally (K-ORC reports
// InvalidConfiguration for a create error that is not an HTTP status and
// stops retrying): ProjectReady says ProjectFailed with K-ORC's message
// (docs/reference/keystoneproject.md). Nothing is created in Keystone and
// the order deletes. (A front that refuses every connection would race:
// K-ORC retries a failed read of the plane's domain import, so the probe
// may wait on the domain rather than reach the create.)
func TestReasons_ProjectFailed(t *testing.T) {
	ctx := context.Background()
	const frontNS, orderNS = "openstack-front", "reasons-front"
	front := testenv.NewIdentityFront(t, stack.Keystone.URL)
	front.RegisterIn(t, identity, frontRegion)
	for _, ns := range []string{frontNS, orderNS} {
		create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: controlplane.DefaultPasswordSecret, Namespace: frontNS},
		Data: map[string][]byte{controlplane.DefaultPasswordKey: []byte(stack.Keystone.AdminPassword)}})
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: frontNS},
		Spec: c5c3v1alpha1.ControlPlaneSpec{Region: frontRegion,
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{Mode: c5c3v1alpha1.KeystoneModeExternal,
				External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}},
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{assigned(orderNS)}}}
	create(t, cp)
	testenv.Eventually(t, waitTimeout, "the front plane is AdminCredentialReady", func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(ctx, client.ObjectKeyFromObject(cp), &got); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
			return fmt.Errorf("conditions %v", got.Status.Conditions)
		}
		return nil
	})
	// The plane's admin domain import resolves through the front while it
	// forwards; the order's project refers to it.
	testenv.Eventually(t, waitTimeout, "the plane's domain import is Available", func() error {
		var d orcv1alpha1.Domain
		if err := kube.Get(ctx, client.ObjectKey{Namespace: frontNS,
			Name: korc.AdminDomainImportName(cp.Name, controlplane.DefaultAdminDomain)}, &d); err != nil {
			return err
		}
		if s := korc.StateOf(&d); s.Phase != korc.PhaseAvailable {
			return fmt.Errorf("state %+v", s)
		}
		return nil
	})

	front.Drop(http.MethodPost, "/v3/projects")
	kp := order(orderNS, "front-project", "", "")
	kp.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: frontNS}
	create(t, kp)
	waitProjectMessage(t, kp, c5c3v1alpha1.ReasonProjectFailed, "invalid configuration creating resource")
	if ps := keystoneProjects(t, "front-project"); len(ps) != 0 {
		t.Errorf("Keystone holds %v", ps)
	}
	front.Forward()
	if err := kube.Delete(ctx, kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}
