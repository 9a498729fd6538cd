//go:build integration

package controlplane

import (
	"context"
	"fmt"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/eso"
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
		if c.Auth.AuthURL != ks.URL || c.Auth.Password != ks.AdminPassword || c.Auth.Username != ks.AdminUser ||
			c.EndpointType != cloudsyaml.InterfacePublic {
			t.Errorf("Secret %s: cloud for %s as %s, endpoint_type %q", name, c.Auth.AuthURL, c.Auth.Username, c.EndpointType)
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
