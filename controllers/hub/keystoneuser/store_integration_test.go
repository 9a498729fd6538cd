//go:build integration

package keystoneuser

import (
	"context"
	"strings"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// TestRotationWaitsForTheSecretStore (breaker H4): while the plane's secret
// store is not Ready, a raised spec.passwordGeneration creates no generation
// and leaves the K-ORC User's passwordRef alone (UserReady=False/
// SecretStoreNotReady), so the consumer's delivered password keeps
// authenticating; once the store is back the rotation runs and is
// delivered. A plane of its own (storeNS) is switched to a ClusterSecretStore
// that does not exist, so "cp" stays intact for the other tests.
func TestRotationWaitsForTheSecretStore(t *testing.T) {
	ctx := context.Background()
	const storeNS = "openstack-store"
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: storeNS}})
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: controlplane.DefaultPasswordSecret, Namespace: storeNS},
		Data: map[string][]byte{controlplane.DefaultPasswordKey: []byte(stack.Keystone.AdminPassword)}})
	cp2 := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp-store", Namespace: storeNS},
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}},
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)},
		}}
	create(t, cp2)
	ku := userOrder(tenantNS, "storeout")
	ku.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp-store", Namespace: storeNS}
	create(t, ku)
	ku = waitGeneration(t, ku, 1)
	first := authenticates(t, ku, "generation 1")

	setStore := func(ref *c5c3v1alpha1.SecretStoreRefSpec) {
		testenv.Eventually(t, 30*time.Second, "update the store of cp-store", func() error {
			var cp c5c3v1alpha1.ControlPlane
			if err := kube.Get(ctx, client.ObjectKeyFromObject(cp2), &cp); err != nil {
				return err
			}
			cp.Spec.SecretStoreRef = ref
			return kube.Update(ctx, &cp)
		})
	}
	setStore(&c5c3v1alpha1.SecretStoreRefSpec{Kind: "ClusterSecretStore", Name: "missing-store"})
	p := client.MergeFrom(ku.DeepCopy())
	ku.Spec.PasswordGeneration = 2
	if err := kube.Patch(ctx, ku, p); err != nil {
		t.Fatal(err)
	}
	ku = waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonSecretStoreNotReady)
	t.Logf("UserReady: %s", meta.FindStatusCondition(ku.Status.Conditions, c5c3v1alpha1.ConditionUserReady).Message)
	var s corev1.Secret
	if err := kube.Get(ctx, types.NamespacedName{Namespace: storeNS,
		Name: korc.OrderChildName(korc.InfixUser, "", tenantNS, "storeout", korc.PasswordDiscriminator(2))}, &s); err == nil {
		t.Fatal("generation 2 was created while the store is not Ready")
	}
	var u orcv1alpha1.User
	if err := kube.Get(ctx, types.NamespacedName{Namespace: storeNS,
		Name: korc.OrderChildName(korc.InfixUser, "", tenantNS, "storeout", korc.DiscUser)}, &u); err != nil {
		t.Fatal(err)
	}
	if ref := u.Spec.Resource.PasswordRef; ref == nil || !strings.HasSuffix(string(*ref), korc.PasswordDiscriminator(1)) {
		t.Fatalf("the K-ORC User's passwordRef moved while the store is not Ready: %v", ref)
	}
	if got := authenticates(t, ku, "store not Ready"); got != first {
		t.Fatal("the delivered password changed while the store is not Ready")
	}
	setStore(nil)
	ku = waitGeneration(t, ku, 2)
	if got := authenticates(t, ku, "store back"); got == first {
		t.Fatal("generation 2 delivered the old password")
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	if err := kube.Delete(ctx, cp2); err != nil {
		t.Fatal(err)
	}
}
