//go:build integration

package controlplane

import (
	"context"
	"fmt"
	"strings"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// newPlane creates namespace ns (and extra namespaces), the admin password
// Secret holding password, and an External ControlPlane "cp" against
// authURL admitting the extra namespaces.
func newPlane(t *testing.T, ns, authURL, password string, extra ...string) *c5c3v1alpha1.ControlPlane {
	t.Helper()
	ctx := context.Background()
	for _, n := range append([]string{ns}, extra...) {
		if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := kube.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: DefaultPasswordSecret, Namespace: ns},
		Data: map[string][]byte{DefaultPasswordKey: []byte(password)}}); err != nil {
		t.Fatal(err)
	}
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: ns},
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: authURL}}},
			KORC: c5c3v1alpha1.KORCSpec{ServiceRegistrations: c5c3v1alpha1.ServiceRegistrationsSpec{AllowedNamespaces: extra}},
		}}
	if err := kube.Create(ctx, cp); err != nil {
		t.Fatal(err)
	}
	return cp
}

// waitForReason waits until the plane's AdminCredentialReady has reason.
func waitForReason(t *testing.T, cp *c5c3v1alpha1.ControlPlane, reason string) {
	t.Helper()
	eventually(t, waitTimeout, "AdminCredentialReady "+reason, func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: cp.Namespace, Name: cp.Name}, &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady)
		if c == nil || c.Reason != reason {
			return fmt.Errorf("condition is %+v", c)
		}
		testenv.ObservedCondition(t, &got, *c)
		return nil
	})
}

func TestAdminCredentialReadyAgainstKeystone(t *testing.T) {
	ks := stack.Keystone
	cp := newPlane(t, "cp-ok", ks.URL, ks.AdminPassword, "cp-ok-team")
	waitForReason(t, cp, c5c3v1alpha1.ReasonAdminCredentialReady)
	ctx := context.Background()

	var got c5c3v1alpha1.ControlPlane
	if err := kube.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: cp.Name}, &got); err != nil {
		t.Fatal(err)
	}
	if !meta.IsStatusConditionTrue(got.Status.Conditions, c5c3v1alpha1.ConditionReady) {
		t.Errorf("Ready is not True: %+v", got.Status.Conditions)
	}
	for _, name := range []string{DefaultCloudsSecret, korc.AdminPasswordCloudSecretName(cp.Name)} {
		var s corev1.Secret
		if err := kube.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: name}, &s); err != nil {
			t.Fatalf("clouds.yaml Secret %s: %v", name, err)
		}
		c, err := cloudsyaml.ParseCloud(s.Data[cloudsyaml.Key], DefaultCloudName)
		if err != nil {
			t.Fatalf("Secret %s: %v", name, err)
		}
		if c.AuthInfo.AuthURL != ks.URL || c.AuthInfo.Password != ks.AdminPassword || c.AuthInfo.Username != ks.AdminUser ||
			c.EndpointType != cloudsyaml.InterfacePublic {
			t.Errorf("Secret %s: cloud for %s as %s, endpoint_type %q", name, c.AuthInfo.AuthURL, c.AuthInfo.Username, c.EndpointType)
		}
	}
	// The SecretStore exists in the plane's namespace and in the admitted one.
	for _, ns := range []string{cp.Namespace, "cp-ok-team"} {
		eventually(t, waitTimeout, "SecretStore Ready in "+ns, func() error {
			u := eso.New(eso.SecretStoreGVK)
			if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: DefaultTenantStoreName}, u); err != nil {
				return err
			}
			if c := eso.ReadyCondition(u); !c.True() {
				return fmt.Errorf("Ready is %+v", c)
			}
			return nil
		})
	}
	// K-ORC imports the admin domain with the written credentials.
	eventually(t, waitTimeout, "admin Domain import Available", func() error {
		var d orcv1alpha1.Domain
		if err := kube.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: korc.AdminDomainImportName(cp.Name, DefaultAdminDomain)}, &d); err != nil {
			return err
		}
		if s := korc.StateOf(&d); s.Phase != korc.PhaseAvailable || s.ID == "" {
			return fmt.Errorf("domain import is %+v", s)
		}
		return nil
	})
}

func TestWrongAdminPasswordIsAuthenticationFailed(t *testing.T) {
	ks := stack.Keystone
	cp := newPlane(t, "cp-bad", ks.URL, "not-the-admin-password")
	waitForReason(t, cp, c5c3v1alpha1.ReasonAuthenticationFailed)

	// Fixing the password Secret recovers the plane (the Secret is watched).
	ctx := context.Background()
	var s corev1.Secret
	if err := kube.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: DefaultPasswordSecret}, &s); err != nil {
		t.Fatal(err)
	}
	s.Data[DefaultPasswordKey] = []byte(ks.AdminPassword)
	if err := kube.Update(ctx, &s); err != nil {
		t.Fatal(err)
	}
	waitForReason(t, cp, c5c3v1alpha1.ReasonAdminCredentialReady)
}

func TestUnreachableKeystoneIsEndpointUnreachable(t *testing.T) {
	cp := newPlane(t, "cp-unreachable", "http://127.0.0.1:1/v3", "whatever")
	waitForReason(t, cp, c5c3v1alpha1.ReasonEndpointUnreachable)
}

func TestMissingPasswordSecretWaits(t *testing.T) {
	ctx := context.Background()
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cp-nopw"}}); err != nil {
		t.Fatal(err)
	}
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "cp-nopw"},
		Spec: c5c3v1alpha1.ControlPlaneSpec{Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
			Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}}}}
	if err := kube.Create(ctx, cp); err != nil {
		t.Fatal(err)
	}
	waitForReason(t, cp, c5c3v1alpha1.ReasonWaitingForCloudsYaml)
}

// waitForCondition waits until the plane's condition typ has status and
// reason, and returns it.
func waitForCondition(t *testing.T, cp *c5c3v1alpha1.ControlPlane, typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	t.Helper()
	var c metav1.Condition
	eventually(t, waitTimeout, fmt.Sprintf("%s/%s %s=%s/%s", cp.Namespace, cp.Name, typ, status, reason), func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(cp), &got); err != nil {
			return err
		}
		f := meta.FindStatusCondition(got.Status.Conditions, typ)
		if f == nil || f.Status != status || f.Reason != reason {
			return fmt.Errorf("condition is %+v", f)
		}
		testenv.ObservedCondition(t, &got, *f)
		c = *f
		return nil
	})
	return c
}

// writtenFor fails unless obj carries the ownership labels of plane name
// and, when uid is set, is controlled by that plane alone.
func writtenFor(t *testing.T, obj client.Object, name string, uid types.UID) {
	t.Helper()
	if got := obj.GetLabels()[LabelControlPlane]; got != name {
		t.Errorf("%T %s: label %s=%q, want %q", obj, obj.GetName(), LabelControlPlane, got, name)
	}
	if uid == "" {
		return
	}
	if refs := obj.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != uid {
		t.Errorf("%T %s: owners %+v, want only the plane %s (%s)", obj, obj.GetName(), refs, name, uid)
	}
}

// TestIntegration_DuplicateControlPlaneIsParked creates a second plane in a
// namespace whose plane is Ready (the webhooks do not run in this suite, as
// when concurrent creates slip past the webhook): the second is parked with
// DuplicateControlPlane and projects nothing, the first keeps serving, and
// deleting the first releases the second (docs/reference/controlplane.md,
// "Status"; upstream github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/controlplane_controller.go).
func TestIntegration_DuplicateControlPlaneIsParked(t *testing.T) {
	ks := stack.Keystone
	ctx := context.Background()
	first := newPlane(t, "cp-dup", ks.URL, ks.AdminPassword)
	firstReady := waitForCondition(t, first, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	if err := kube.Get(ctx, client.ObjectKeyFromObject(first), first); err != nil {
		t.Fatal(err)
	}

	second := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp-second", Namespace: first.Namespace},
		Spec: *first.Spec.DeepCopy()}
	if err := kube.Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	parked := waitForCondition(t, second, c5c3v1alpha1.ConditionReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonDuplicateControlPlane)
	if !strings.Contains(parked.Message, first.Namespace+"/"+first.Name) || !strings.Contains(parked.Message, "delete ControlPlane") {
		t.Errorf("Ready message %q names neither the older plane nor the remedy", parked.Message)
	}
	waitForCondition(t, second, c5c3v1alpha1.ConditionAdminCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonDuplicateControlPlane)

	// The parked plane projected nothing of its own...
	for _, o := range []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: korc.AdminPasswordCloudSecretName(second.Name)}},
		&orcv1alpha1.Domain{ObjectMeta: metav1.ObjectMeta{Name: korc.AdminDomainImportName(second.Name, DefaultAdminDomain)}},
	} {
		err := kube.Get(ctx, types.NamespacedName{Namespace: second.Namespace, Name: o.GetName()}, o)
		if !apierrors.IsNotFound(err) {
			t.Errorf("%T %s of the parked plane: got err %v, want NotFound", o, o.GetName(), err)
		}
	}
	// ...and did not take over the objects the two planes would share.
	var shared corev1.Secret
	if err := kube.Get(ctx, types.NamespacedName{Namespace: first.Namespace, Name: DefaultCloudsSecret}, &shared); err != nil {
		t.Fatal(err)
	}
	writtenFor(t, &shared, first.Name, first.UID)
	store := eso.New(eso.SecretStoreGVK)
	if err := kube.Get(ctx, types.NamespacedName{Namespace: first.Namespace, Name: DefaultTenantStoreName}, store); err != nil {
		t.Fatal(err)
	}
	writtenFor(t, store, first.Name, first.UID)

	// The first plane is unaffected: still Ready, with no transition.
	var got c5c3v1alpha1.ControlPlane
	if err := kube.Get(ctx, client.ObjectKeyFromObject(first), &got); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ConditionAdminCredentialReady} {
		if c := meta.FindStatusCondition(got.Status.Conditions, typ); c == nil || c.Status != metav1.ConditionTrue {
			t.Errorf("first plane %s is %+v", typ, c)
		}
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionReady); c != nil &&
		!c.LastTransitionTime.Equal(&firstReady.LastTransitionTime) {
		t.Errorf("first plane Ready transitioned at %s, was %s", c.LastTransitionTime, firstReady.LastTransitionTime)
	}

	// Deleting the first plane releases the second (the delete event
	// enqueues it), which then fulfils the plane contract itself.
	if err := kube.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	waitForCondition(t, second, c5c3v1alpha1.ConditionAdminCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAdminCredentialReady)
	eventually(t, waitTimeout, "the released plane's password cloud Secret", func() error {
		var s corev1.Secret
		return kube.Get(ctx, types.NamespacedName{Namespace: second.Namespace,
			Name: korc.AdminPasswordCloudSecretName(second.Name)}, &s)
	})
}
