//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

// setBudget sets rotationsPerHour on the management cluster's assignment of ns.
func setBudget(t *testing.T, ns string, perHour int32) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		for i := range cp.Spec.NamespaceAssignments {
			if a := &cp.Spec.NamespaceAssignments[i]; a.Namespace == ns && a.Cluster == "" {
				a.RotationsPerHour = ptr.To(perHour)
			}
		}
		return kube.Update(context.Background(), &cp)
	}); err != nil {
		t.Fatal(err)
	}
}

// TestIntegration_ApplicationCredential_RotationBudget: with rotationsPerHour
// 2 on the namespace, the first credential takes one token, one raised
// credentialGeneration the other, and the next raise waits at
// CredentialReady=True/RotationBudgetExhausted: no generation 3 in K-ORC or
// Keystone, the delivered credential keeps authenticating. Raising the budget
// lets it start (docs/reference/controlplane.md, "Rotation budget").
func TestIntegration_ApplicationCredential_RotationBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-budget"
	ensureNamespace(t, ns)
	setBudget(t, ns, 2)
	w := newWorld(t, ns, "budget")
	w.grantRole(t)
	ac := w.order("budget-appcred", 24*time.Hour, 10*time.Second)
	create(t, ac)
	t.Cleanup(func() { deleteAndWaitGone(t, ac) })
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)

	atGeneration := func(gen int64) {
		t.Helper()
		eventually(t, waitTimeout, fmt.Sprintf("generation %d delivered", gen), func() error {
			cur := get(t, ac)
			if cur.Status.CredentialGeneration != gen {
				return fmt.Errorf("status.credentialGeneration %d", cur.Status.CredentialGeneration)
			}
			if c := condition(cur, c5c3v1alpha1.ConditionReady); c.Status != metav1.ConditionTrue {
				return fmt.Errorf("Ready %s/%s: %s", c.Status, c.Reason, c.Message)
			}
			return nil
		})
	}
	raise(t, ac, 2)
	atGeneration(2) // the namespace's second token of the hour

	raise(t, ac, 3)
	waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonRotationBudgetExhausted)
	cur := get(t, ac)
	msg := condition(cur, c5c3v1alpha1.ConditionCredentialReady).Message
	for _, want := range []string{"generation 2 exists in Keystone and stays delivered", "generation 3", "2 per hour"} {
		if !strings.Contains(msg, want) {
			t.Errorf("CredentialReady message %q does not say %q", msg, want)
		}
	}
	if cur.Status.CredentialGeneration != 2 {
		t.Errorf("status.credentialGeneration %d while the rotation waits, want 2", cur.Status.CredentialGeneration)
	}
	kc, err := kORCCredentials(ctx, ac)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range kc {
		if strings.HasSuffix(o.Name, korc.CredentialDiscriminator(3)) {
			t.Errorf("K-ORC ApplicationCredential %s exists while the budget holds generation 3", o.Name)
		}
	}
	creds, err := w.keystoneCredentials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range creds {
		if c.ID != cur.Status.CredentialID && c.ID != cur.Status.PreviousCredentialID {
			t.Errorf("Keystone holds credential %s (%s) of the user beside the delivered and the superseded one", c.ID, c.Name)
		}
	}
	c, _, err := delivered(ctx, ac)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authenticate(ctx, c); err != nil {
		t.Errorf("the delivered credential does not authenticate while the rotation waits: %v", err)
	}

	setBudget(t, ns, 10)
	atGeneration(3)
}
