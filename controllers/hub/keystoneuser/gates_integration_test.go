//go:build integration

package keystoneuser

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// TestReasons_Gates: the reasons of an order that cannot be provisioned or
// delivered (docs/reference/keystoneuser.md, "Conditions"), each read from
// the apiserver with Ready=False/NotAllReady, and from outside: Keystone
// holds no such user and no Secret is delivered.
//
//   - ControlPlaneNotFound on both sub-conditions: spec.controlPlaneRef
//     names no ControlPlane;
//   - WaitingForAdminCredential on both: the plane has no admin password
//     Secret (its AdminCredentialReady is WaitingForCloudsYaml);
//
// and, with the user provisioned (Keystone accepts the password), the
// delivery held from outside (DeliveryError: then delivered once lifted):
//
//   - BackupNotSynced: the apiserver refuses ESO's status writes on the
//     order's PushSecret, so the OpenBao push is never reported;
//   - DeliveryError: the apiserver refuses to create <name>-credentials.
func TestReasons_Gates(t *testing.T) {
	const noAdminNS = "openstack-noadmin"
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: noAdminNS}})
	noAdmin := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: noAdminNS},
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}},
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)},
		}}
	create(t, noAdmin)
	// The plane goes once every subtest is done: it assigns tenantNS too.
	t.Cleanup(func() { _ = kube.Delete(context.Background(), noAdmin) })
	for _, tc := range []struct {
		name, plane string
	}{
		{c5c3v1alpha1.ReasonControlPlaneNotFound, "openstack-absent"},
		{c5c3v1alpha1.ReasonWaitingForAdminCredential, noAdminNS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ku := userOrder(tenantNS, "gate-"+strings.ToLower(tc.name))
			ku.Spec.ControlPlaneRef.Namespace = tc.plane
			create(t, ku)
			waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, tc.name)
			waitFor(t, ku, c5c3v1alpha1.ConditionDeliveryReady, tc.name)
			got := waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonNotAllReady)
			if got.Status.UserID != "" {
				t.Errorf("status.userID %q on a refused order", got.Status.UserID)
			}
			if u := keystoneUser(t, ku.Name); u != nil {
				t.Errorf("Keystone holds user %s of a refused order", u.ID)
			}
			notDelivered(t, ku)
			deleteOrder(t, ku)
		})
	}
	t.Run(c5c3v1alpha1.ReasonBackupNotSynced, func(t *testing.T) {
		t.Parallel()
		ku := userOrder(tenantNS, "gate-backup")
		lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: eso.Group, Resources: []string{"pushsecrets/status"},
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
			Allow:      `object.metadata.name != "` + childName(ku, korc.DiscBackup) + `"`})
		create(t, ku)
		// Held only: once the refusal is lifted, when ESO retries its status
		// write is ESO's own back-off, outside the hub; the hub's recovery
		// after a lifted refusal is the DeliveryError case below.
		held(t, ku, c5c3v1alpha1.ReasonBackupNotSynced)
		lift()
		deleteOrder(t, ku)
	})
	t.Run(c5c3v1alpha1.ReasonDeliveryError, func(t *testing.T) {
		t.Parallel()
		ku := userOrder(tenantNS, "gate-delivery")
		lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: tenantNS, Resources: []string{"secrets"},
			Allow: `object.metadata.name != "` + orders.SecretName(ku.Name) + `"`})
		create(t, ku)
		heldThenDelivered(t, ku, c5c3v1alpha1.ReasonDeliveryError, lift)
	})
}

// heldThenDelivered waits for the provisioned ku to read DeliveryReady
// reason with Ready=False/NotAllReady and nothing delivered, lifts the
// refusal, and waits for Ready with a delivered password Keystone accepts;
// then deletes ku.
func heldThenDelivered(t *testing.T, ku *c5c3v1alpha1.KeystoneUser, reason string, lift func()) {
	t.Helper()
	held(t, ku, reason)
	lift()
	touch(t, ku)
	waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	authenticates(t, ku, "after "+reason)
	deleteOrder(t, ku)
}

// held waits for the provisioned ku to read DeliveryReady reason with
// Ready=False/NotAllReady, the user in Keystone and nothing delivered.
func held(t *testing.T, ku *c5c3v1alpha1.KeystoneUser, reason string) {
	t.Helper()
	waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserProvisioned)
	waitFor(t, ku, c5c3v1alpha1.ConditionDeliveryReady, reason)
	waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonNotAllReady)
	if keystoneUser(t, ku.Name) == nil {
		t.Error("UserProvisioned but Keystone has no such user")
	}
	notDelivered(t, ku)
}

// notDelivered fails t when <name>-credentials exists.
func notDelivered(t *testing.T, ku *c5c3v1alpha1.KeystoneUser) {
	t.Helper()
	err := kube.Get(context.Background(), types.NamespacedName{Namespace: ku.Namespace, Name: orders.SecretName(ku.Name)}, &corev1.Secret{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("%s delivered (or unreadable: %v)", orders.SecretName(ku.Name), err)
	}
}

// deleteOrder deletes ku and waits until it is gone.
func deleteOrder(t *testing.T, ku *c5c3v1alpha1.KeystoneUser) {
	t.Helper()
	if err := kube.Delete(context.Background(), ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}
