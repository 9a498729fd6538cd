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

// TestReasons_TransportErrorRetryFailed: credential-v1 carries the
// terminal error K-ORC v2.6.0 latches for a create that never got an HTTP
// answer (staged through the status subresource, as in
// TestIntegration_ApplicationCredential_LatchedTransportErrorCleared: the
// stack's Keystone cannot be made unreachable for one request), and the
// apiserver refuses status writes on K-ORC ApplicationCredentials in the
// plane's namespace (an admission policy). The order's clearing of the
// latch is refused, and CredentialReady says TransportErrorRetryFailed with
// the apiserver's refusal (docs/reference/keystoneapplicationcredential.md,
// "Conditions"). Once the policy is lifted the latch is cleared, K-ORC
// creates the credential and the order is Ready.
func TestReasons_TransportErrorRetryFailed(t *testing.T) {
	ctx := context.Background()
	const plane, ns = "openstack-latch", "reasons-latch"
	cp := newPlaneIn(t, plane, ns, "")
	w := newWorldOn(t, ns, "latch2", plane)
	ac := w.order("latch2-appcred", 10*time.Minute, 20*time.Second)
	ac.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane}
	ord := orders.Order{Kind: orders.KindKeystoneApplicationCredential, Namespace: ns, Name: ac.Name}
	prefix := korc.ChildPrefix(ac.Name, korc.OrderKey("", ns, ac.Name), korc.InfixApplicationCredential)
	cred := &orcv1alpha1.ApplicationCredential{
		ObjectMeta: metav1.ObjectMeta{Name: prefix + korc.CredentialDiscriminator(1), Namespace: plane, Labels: orders.ChildLabels(ord)},
		Spec: orcv1alpha1.ApplicationCredentialSpec{
			ManagementPolicy: orcv1alpha1.ManagementPolicyManaged,
			CloudCredentialsRef: orcv1alpha1.CloudCredentialsReference{SecretName: prefix + korc.DiscMintCloud,
				CloudName: applicationcredential.MintCloudName},
			Resource: &orcv1alpha1.ApplicationCredentialResourceSpec{
				UserRef:      orcv1alpha1.KubernetesNameRef(orders.UserChildName("", ns, w.user)),
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
	const refused = `invalid configuration creating resource: Post "http://127.0.0.1:1/v3/users/x/application_credentials": dial tcp 127.0.0.1:1: connect: connection refused`
	meta.SetStatusCondition(&cred.Status.Conditions, metav1.Condition{Type: orcv1alpha1.ConditionProgressing, Status: metav1.ConditionFalse,
		Reason: orcv1alpha1.ConditionReasonInvalidConfiguration, Message: refused, ObservedGeneration: cred.Generation})
	meta.SetStatusCondition(&cred.Status.Conditions, metav1.Condition{Type: orcv1alpha1.ConditionAvailable, Status: metav1.ConditionFalse,
		Reason: orcv1alpha1.ConditionReasonInvalidConfiguration, Message: refused, ObservedGeneration: cred.Generation})
	if err := kube.Status().Update(ctx, cred); err != nil {
		t.Fatal(err)
	}
	if s := korc.StateOf(cred); !applicationcredential.LatchedTransportError(s) {
		t.Fatalf("the staged state %+v is not a latched transport error", s)
	}

	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: plane, Group: "openstack.k-orc.cloud",
		Resources: []string{"applicationcredentials/status"}, Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update}})
	create(t, ac)
	waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ReasonTransportErrorRetryFailed, testenv.RefusalMessage)
	lift()
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: prefix + korc.SecretDiscriminator(1), Namespace: plane,
		Labels: orders.ChildLabels(ord)}, Data: map[string][]byte{applicationcredential.SecretValueKey: []byte("latch2-secret-" + w.userID)}})
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	deleteAndWaitGone(t, ac)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}
