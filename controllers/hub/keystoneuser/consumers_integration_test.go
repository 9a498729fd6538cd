//go:build integration

package keystoneuser

import (
	"context"
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestRotationRollsOptedInConsumers: a raised spec.passwordGeneration rolls
// the opted-in Deployment of two replicas that mounts the delivered Secret
// (its pod template carries the new generation, the rollout completes with
// new pods), and leaves the one without the opt-in untouched
// (docs/reference/consumers.md). The stack has no node: the test marks the
// pods ready (testenv.MarkPodsReady).
func TestRotationRollsOptedInConsumers(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(tenantNS, "rollout")
	create(t, ku)
	waitGeneration(t, ku, 1)
	secret := orders.SecretName(ku.Name)
	deploy := func(name string, optIn bool) *appsv1.Deployment {
		labels := map[string]string{"app": name}
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: name},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
					Volumes: []corev1.Volume{{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}},
					Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/consumer:1",
						VolumeMounts: []corev1.VolumeMount{{Name: "creds", MountPath: "/etc/openstack"}}}}}}}}
		if optIn {
			d.Annotations = map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "true"}
		}
		create(t, d)
		return d
	}
	rolled, plain := deploy("rollout-opted-in", true), deploy("rollout-plain", false)
	key := consumers.StampKey(secret)
	stamp := func(gen int64) string { return consumers.StampValue(orders.KindKeystoneUser, ku.Name, gen) }
	// waitRolledOut waits for the opted-in Deployment to carry gen and list
	// as RolledOut, marking its pods ready on each poll.
	waitRolledOut := func(gen int64) []types.UID {
		var uids []types.UID
		testenv.Eventually(t, waitTimeout, fmt.Sprintf("the consumer rolled out to generation %d", gen), func() error {
			var err error
			if uids, err = testenv.MarkPodsReady(ctx, kube, tenantNS, rolled.Spec.Selector.MatchLabels); err != nil {
				return err
			}
			var cur c5c3v1alpha1.KeystoneUser
			if err := kube.Get(ctx, client.ObjectKeyFromObject(ku), &cur); err != nil {
				return err
			}
			want := []c5c3v1alpha1.ConsumerStatus{
				{Kind: consumers.KindDeployment, Name: rolled.Name, Stamp: stamp(gen), State: c5c3v1alpha1.ConsumerRolledOut},
				{Kind: consumers.KindDeployment, Name: plain.Name, State: c5c3v1alpha1.ConsumerNotOptedIn}}
			if !slices.Equal(cur.Status.Consumers, want) || len(uids) != 2 {
				return fmt.Errorf("status.consumers %+v, %d pods", cur.Status.Consumers, len(uids))
			}
			return nil
		})
		return uids
	}
	before := waitRolledOut(1)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur c5c3v1alpha1.KeystoneUser
		if err := kube.Get(ctx, client.ObjectKeyFromObject(ku), &cur); err != nil {
			return err
		}
		cur.Spec.PasswordGeneration = 2
		return kube.Update(ctx, &cur)
	}); err != nil {
		t.Fatal(err)
	}
	waitGeneration(t, ku, 2)
	after := waitRolledOut(2)
	if slices.ContainsFunc(after, func(u types.UID) bool { return slices.Contains(before, u) }) {
		t.Fatalf("pods after the rollout %v share a pod with those before %v", after, before)
	}
	var d appsv1.Deployment
	if err := kube.Get(ctx, client.ObjectKeyFromObject(rolled), &d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Template.Annotations[key] != stamp(2) || !consumers.DeploymentRolledOut(&d) {
		t.Fatalf("%s: template annotations %v, status %+v", d.Name, d.Spec.Template.Annotations, d.Status)
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(plain), &d); err != nil {
		t.Fatal(err)
	}
	if d.Generation != 1 || len(d.Spec.Template.Annotations) != 0 {
		t.Fatalf("%s (not opted in) was changed: generation %d, template annotations %v", d.Name, d.Generation, d.Spec.Template.Annotations)
	}
}
