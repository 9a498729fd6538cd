//go:build integration

package keystoneservice

import (
	"context"
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/internal/testenv"
)

// consumerDeployment is a Deployment of two replicas reading secret through
// a secret volume, opted in or not.
func consumerDeployment(ns, name, secret string, optIn bool) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Volumes: []corev1.Volume{{Name: "creds", VolumeSource: corev1.VolumeSource{
					Secret: &corev1.SecretVolumeSource{SecretName: secret}}}},
				Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/consumer:1",
					VolumeMounts: []corev1.VolumeMount{{Name: "creds", MountPath: "/etc/openstack"}}}}}}}}
	if optIn {
		d.Annotations = map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "true"}
	}
	return d
}

// waitServiceConsumers waits until status.account.consumers of ks reads want
// ("<name> <state> <stamp>") at password generation gen, marking the pods of
// the Deployments in ready ready on each poll (testenv.MarkPodsReady).
func waitServiceConsumers(t *testing.T, ks *c5c3v1alpha1.KeystoneService, gen int64, ready []string, want ...string) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("consumers %v", want), func() error {
		ctx := context.Background()
		for _, n := range ready {
			if _, err := testenv.MarkPodsReady(ctx, kube, ks.Namespace, map[string]string{"app": n}); err != nil {
				return err
			}
		}
		var cur c5c3v1alpha1.KeystoneService
		if err := kube.Get(ctx, client.ObjectKeyFromObject(ks), &cur); err != nil {
			return err
		}
		a := cur.Status.Account
		if a == nil {
			return fmt.Errorf("no status.account")
		}
		var got []string
		for _, c := range a.Consumers {
			got = append(got, fmt.Sprintf("%s %s %s", c.Name, c.State, c.Stamp))
		}
		if a.PasswordGeneration != gen || !slices.Equal(got, want) {
			return fmt.Errorf("generation %d, consumers %v", a.PasswordGeneration, got)
		}
		return nil
	})
}

// TestAccountRotationRollsOptedInConsumers: an opted-in Deployment reading a
// KeystoneService's consumer Secret (written by ESO) is stamped with the
// password generation and rolled when a CredentialRotation rotates it; a
// Deployment reading it without the opt-in is listed and never touched
// (docs/reference/consumers.md).
func TestAccountRotationRollsOptedInConsumers(t *testing.T) {
	ctx := context.Background()
	ks := accountRegistration(planeNS, "rollsvc", "service-rollsvc", true)
	create(t, ks)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	secret := ConsumerSecretName(ks)
	create(t, consumerDeployment(planeNS, "rollsvc-a", secret, true))
	create(t, consumerDeployment(planeNS, "rollsvc-plain", secret, false))
	g1, g2 := consumers.StampValue(OwnerKind, ks.Name, 1), consumers.StampValue(OwnerKind, ks.Name, 2)
	plain := c5c3v1alpha1.ConsumerNotOptedIn + " "
	waitServiceConsumers(t, ks, 1, []string{"rollsvc-a"}, "rollsvc-a "+c5c3v1alpha1.ConsumerRolledOut+" "+g1, "rollsvc-plain "+plain)
	old, err := testenv.MarkPodsReady(ctx, kube, planeNS, map[string]string{"app": "rollsvc-a"})
	if err != nil {
		t.Fatal(err)
	}
	create(t, &c5c3v1alpha1.CredentialRotation{ObjectMeta: metav1.ObjectMeta{Name: "rotate-rollsvc", Namespace: planeNS},
		Spec: c5c3v1alpha1.CredentialRotationSpec{Target: c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword,
			KeystoneService: ks.Name}})
	waitServiceConsumers(t, ks, 2, nil, "rollsvc-a "+c5c3v1alpha1.ConsumerRollingOut+" "+g2, "rollsvc-plain "+plain)
	waitServiceConsumers(t, ks, 2, []string{"rollsvc-a"}, "rollsvc-a "+c5c3v1alpha1.ConsumerRolledOut+" "+g2, "rollsvc-plain "+plain)
	now, err := testenv.MarkPodsReady(ctx, kube, planeNS, map[string]string{"app": "rollsvc-a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(now) != 2 || slices.ContainsFunc(now, func(u types.UID) bool { return slices.Contains(old, u) }) {
		t.Fatalf("rollsvc-a's pods after the rollout %v, before %v: want two new pods", now, old)
	}
	var p appsv1.Deployment
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: "rollsvc-plain"}, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.Template.Annotations) != 0 {
		t.Fatalf("rollsvc-plain (not opted in) was stamped: %v", p.Spec.Template.Annotations)
	}
	eventually(t, waitTimeout, "the "+consumers.EventStamped+" event", func() error {
		var events corev1.EventList
		if err := kube.List(ctx, &events, client.InNamespace(planeNS)); err != nil {
			return err
		}
		if !slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
			return e.InvolvedObject.Name == ks.Name && e.Reason == consumers.EventStamped
		}) {
			return fmt.Errorf("no %s event on %s", consumers.EventStamped, ks.Name)
		}
		return nil
	})
}
