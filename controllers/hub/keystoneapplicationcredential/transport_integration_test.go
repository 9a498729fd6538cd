//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// TestIntegration_ApplicationCredential_LatchedTransportErrorCleared proves
// the clearing of a latched transport error against the real K-ORC: K-ORC
// v2.6.0 marks a create that never got an HTTP answer as terminal
// (InvalidConfiguration) and then skips the object, whose resource spec is
// immutable. The latch is staged by hand (stageLatchedTransportError),
// because the stack's Keystone cannot be made unreachable for one request.
// The order must clear it (event TransportErrorCleared); only then does
// K-ORC react to secret-v1 appearing, create the credential and let the
// order switch to it. Without the clearing the order stays CredentialFailed.
func TestIntegration_ApplicationCredential_LatchedTransportErrorCleared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-latch"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "latch")
	w.grantRole(t)
	ac := w.order("latch-appcred", 10*time.Minute, 20*time.Second)
	ord := orders.Order{Kind: orders.KindKeystoneApplicationCredential, Namespace: ns, Name: ac.Name}
	prefix := korc.ChildPrefix(ac.Name, korc.OrderKey("", ns, ac.Name), korc.InfixApplicationCredential)
	lift := stageLatchedTransportError(t, w, ac, planeNS, true)

	create(t, ac)
	waitEvent(t, ac, EventTransportErrorCleared)
	lift()
	// K-ORC reconciles the object again: it now reacts to its secret.
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: prefix + korc.SecretDiscriminator(1), Namespace: planeNS,
		Labels: orders.ChildLabels(ord)}, Data: map[string][]byte{applicationcredential.SecretValueKey: []byte("latch-secret-" + w.userID)}})
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	cloud, _, err := delivered(ctx, ac)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authenticate(ctx, cloud); err != nil {
		t.Fatalf("the recovered credential does not authenticate: %v", err)
	}

	if err := kube.Delete(ctx, get(t, ac)); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "Keystone holds no credential of the deleted order", func() error {
		kc, err := w.keystoneCredentials(ctx)
		if err != nil {
			return err
		}
		if len(kc) != 0 {
			return fmt.Errorf("%d credentials left", len(kc))
		}
		return nil
	})
}

// latchedMessage is the message K-ORC v2.6.0 writes on an
// ApplicationCredential whose create was refused at the TCP level
// (applicationcredential.LatchedTransportError).
const latchedMessage = `invalid configuration creating resource: Post "http://127.0.0.1:1/v3/users/x/application_credentials": dial tcp 127.0.0.1:1: connect: connection refused`

// stageLatchedTransportError creates credential-v1 of order ac (not yet
// created) in namespace plane, so the order continues it instead of creating
// its own, without its secret-v1 (so K-ORC waits), and overwrites its
// Progressing and Available conditions with the terminal error K-ORC v2.6.0
// latches for a create that never got an HTTP answer.
//
// Before the latch is written, status writes to K-ORC ApplicationCredentials
// in plane that would replace it are refused (testenv.Refuse): a K-ORC
// reconcile that read the object before the latch would otherwise write its
// "Waiting for Secret" status over it, and the test would pass without
// reaching the clearing it is about. With clearable the write that removes
// Progressing (the order's clearing) passes; without it that write is
// refused too (TransportErrorRetryFailed). The returned lift ends the
// refusal: K-ORC's own status writes after the clearing need it lifted.
func stageLatchedTransportError(t *testing.T, w *world, ac *c5c3v1alpha1.KeystoneApplicationCredential, plane string, clearable bool) (lift func()) {
	t.Helper()
	ctx := context.Background()
	ord := orders.Order{Kind: orders.KindKeystoneApplicationCredential, Namespace: ac.Namespace, Name: ac.Name}
	prefix := korc.ChildPrefix(ac.Name, korc.OrderKey("", ac.Namespace, ac.Name), korc.InfixApplicationCredential)
	cred := &orcv1alpha1.ApplicationCredential{
		ObjectMeta: metav1.ObjectMeta{Name: prefix + korc.CredentialDiscriminator(1), Namespace: plane, Labels: orders.ChildLabels(ord)},
		Spec: orcv1alpha1.ApplicationCredentialSpec{
			ManagementPolicy: orcv1alpha1.ManagementPolicyManaged,
			CloudCredentialsRef: orcv1alpha1.CloudCredentialsReference{SecretName: prefix + korc.DiscMintCloud,
				CloudName: applicationcredential.MintCloudName},
			Resource: &orcv1alpha1.ApplicationCredentialResourceSpec{
				UserRef:      orcv1alpha1.KubernetesNameRef(orders.UserChildName("", ac.Namespace, w.user)),
				Unrestricted: ptr.To(false),
				SecretRef:    orcv1alpha1.KubernetesNameRef(prefix + korc.SecretDiscriminator(1)),
			}}}
	create(t, cred)
	eventually(t, waitTimeout, "K-ORC reports on credential-v1", func() error {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(cred), cred); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(cred.Status.Conditions, orcv1alpha1.ConditionProgressing); c == nil || c.ObservedGeneration != cred.Generation {
			return fmt.Errorf("conditions %v", cred.Status.Conditions)
		}
		return nil
	})

	// latchedMessage holds double quotes and no single quote or backslash:
	// a single-quoted CEL string carries it as it is.
	allow := `has(object.status) && has(object.status.conditions) && object.status.conditions.exists(c, c.type == "Progressing" && c.message == '` + latchedMessage + `')`
	if clearable {
		allow += ` || !has(object.status) || !has(object.status.conditions) || !object.status.conditions.exists(c, c.type == "Progressing")`
	}
	lift = testenv.Refuse(t, kube, testenv.Refusal{Namespace: plane, Group: "openstack.k-orc.cloud",
		Resources: []string{"applicationcredentials/status"}, Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
		Allow: allow})
	eventually(t, waitTimeout, "the latch staged on credential-v1", func() error {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(cred), cred); err != nil {
			return err
		}
		for _, typ := range []string{orcv1alpha1.ConditionProgressing, orcv1alpha1.ConditionAvailable} {
			meta.SetStatusCondition(&cred.Status.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionFalse,
				Reason: orcv1alpha1.ConditionReasonInvalidConfiguration, Message: latchedMessage, ObservedGeneration: cred.Generation})
		}
		// A conflict is K-ORC's write landing first: read again.
		return kube.Status().Update(ctx, cred)
	})
	if s := korc.StateOf(cred); !applicationcredential.LatchedTransportError(s) {
		t.Fatalf("the staged state %+v is not a latched transport error", s)
	}
	return lift
}
