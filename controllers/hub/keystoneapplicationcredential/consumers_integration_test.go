//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
)

// consumerDeployment is a Deployment of two replicas reading secret through
// a secret volume (envFrom with viaEnv), opted in or not.
func consumerDeployment(ns, name, secret string, optIn, viaEnv bool) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	c := corev1.Container{Name: "app", Image: "registry.invalid/consumer:1"}
	spec := corev1.PodSpec{Containers: []corev1.Container{c}}
	if viaEnv {
		spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: secret}}}}
	} else {
		spec.Volumes = []corev1.Volume{{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}}
		spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "creds", MountPath: "/etc/openstack"}}
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}}
	if optIn {
		d.Annotations = map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "true"}
	}
	return d
}

// actAsKubelet marks the pods of Deployment name ready
// (testenv.MarkPodsReady: the suite's stack runs the workload controllers but
// no node) and returns their UIDs.
func actAsKubelet(t *testing.T, ns, name string) []types.UID {
	t.Helper()
	uids, err := testenv.MarkPodsReady(context.Background(), kube, ns, map[string]string{"app": name})
	if err != nil {
		t.Fatal(err)
	}
	return uids
}

// waitConsumers waits until the order's status.consumers reads want
// ("<name> <state> <stamp>" per consumer, sorted as the status lists them),
// playing the kubelet for the Deployments in ready on each poll.
func waitConsumers(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, gen int64, ready []string, want ...string) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("consumers %v", want), func() error {
		for _, n := range ready {
			actAsKubelet(t, ac.Namespace, n)
		}
		cur := get(t, ac)
		var got []string
		for _, c := range cur.Status.Consumers {
			got = append(got, fmt.Sprintf("%s %s %s", c.Name, c.State, c.Stamp))
		}
		if cur.Status.CredentialGeneration != gen || !slices.Equal(got, want) {
			return fmt.Errorf("generation %d, consumers %v", cur.Status.CredentialGeneration, got)
		}
		return nil
	})
}

func deployment(t *testing.T, ns, name string) *appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// grantedOrder is, in namespace ns (made if missing), a user and project
// named name with the role granted, and their order <name>-appcred on the
// schedule interval/grace, not created yet.
func grantedOrder(t *testing.T, ns, name string, interval, grace time.Duration) (*world, *c5c3v1alpha1.KeystoneApplicationCredential) {
	t.Helper()
	planeReady(t)
	ensureNamespace(t, ns)
	w := newWorld(t, ns, name)
	w.grantRole(t)
	return w, w.order(name+"-appcred", interval, grace)
}

// readyOrder creates grantedOrder's order and waits until it reads Ready.
func readyOrder(t *testing.T, ns, name string, interval, grace time.Duration) *c5c3v1alpha1.KeystoneApplicationCredential {
	t.Helper()
	_, ac := grantedOrder(t, ns, name, interval, grace)
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	return ac
}

// TestIntegration_ApplicationCredential_RollsConsumers: two opted-in
// Deployments of two replicas reading the delivered Secret are rolled one
// after the other when the order rotates, each only once the previous one
// completed its rollout (kube-controller-manager's Deployment status); their
// pods are replaced; a Deployment reading it without the opt-in is never
// touched (docs/reference/consumers.md).
func TestIntegration_ApplicationCredential_RollsConsumers(t *testing.T) {
	t.Parallel()
	const ns = "tenant-consumers"
	ac := readyOrder(t, ns, "roll", 10*time.Minute, 5*time.Minute)
	secret := orders.SecretName(ac.Name)
	for _, d := range []*appsv1.Deployment{consumerDeployment(ns, "a-volume", secret, true, false),
		consumerDeployment(ns, "b-env", secret, true, true), consumerDeployment(ns, "c-plain", secret, false, false),
		consumerDeployment(ns, "d-other", "unrelated", true, false)} {
		create(t, d)
	}
	g1 := consumers.StampValue(orders.KindKeystoneApplicationCredential, ac.Name, 1)
	g2 := consumers.StampValue(orders.KindKeystoneApplicationCredential, ac.Name, 2)
	rolled, rolling, queued := c5c3v1alpha1.ConsumerRolledOut, c5c3v1alpha1.ConsumerRollingOut, c5c3v1alpha1.ConsumerQueued
	optedOut := c5c3v1alpha1.ConsumerNotOptedIn + " "

	// Coming into scope: a-volume is stamped first and holds b-env while its
	// pods are not ready.
	waitConsumers(t, ac, 1, nil, "a-volume "+rolling+" "+g1, "b-env "+queued+" ", "c-plain "+optedOut)
	waitConsumers(t, ac, 1, []string{"a-volume"}, "a-volume "+rolled+" "+g1, "b-env "+rolling+" "+g1, "c-plain "+optedOut)
	waitConsumers(t, ac, 1, []string{"a-volume", "b-env"}, "a-volume "+rolled+" "+g1, "b-env "+rolled+" "+g1, "c-plain "+optedOut)
	oldA := actAsKubelet(t, ns, "a-volume")
	if len(oldA) != 2 {
		t.Fatalf("a-volume runs %d pods, want 2", len(oldA))
	}
	plain := deployment(t, ns, "c-plain")

	raise(t, ac, 2)
	// The switch stamps a-volume only; b-env waits for its rollout.
	waitConsumers(t, ac, 2, nil, "a-volume "+rolling+" "+g2, "b-env "+queued+" "+g1, "c-plain "+optedOut)
	lbl := map[string]string{"kind": orders.KindKeystoneApplicationCredential, "cluster": "", "namespace": ns, "name": ac.Name}
	expectSeries(t, "orderhub_consumers_pending", lbl, 2)
	if v := deployment(t, ns, "b-env").Spec.Template.Annotations[consumers.StampKey(secret)]; v != g1 {
		t.Fatalf("b-env was stamped %q while a-volume rolled out", v)
	}
	waitConsumers(t, ac, 2, []string{"a-volume"}, "a-volume "+rolled+" "+g2, "b-env "+rolling+" "+g2, "c-plain "+optedOut)
	waitConsumers(t, ac, 2, []string{"a-volume", "b-env"}, "a-volume "+rolled+" "+g2, "b-env "+rolled+" "+g2, "c-plain "+optedOut)

	newA := actAsKubelet(t, ns, "a-volume")
	if len(newA) != 2 || slices.ContainsFunc(newA, func(u types.UID) bool { return slices.Contains(oldA, u) }) {
		t.Fatalf("a-volume's pods after the rollout %v, before %v: want two new pods", newA, oldA)
	}
	a := deployment(t, ns, "a-volume")
	if a.Spec.Template.Annotations[consumers.StampKey(secret)] != g2 || !consumers.DeploymentRolledOut(a) {
		t.Fatalf("a-volume: template annotations %v, status %+v", a.Spec.Template.Annotations, a.Status)
	}
	if c := deployment(t, ns, "c-plain"); c.Generation != plain.Generation || len(c.Spec.Template.Annotations) != 0 {
		t.Fatalf("c-plain (not opted in) was changed: generation %d -> %d, template annotations %v",
			plain.Generation, c.Generation, c.Spec.Template.Annotations)
	}
	if d := deployment(t, ns, "d-other"); len(d.Spec.Template.Annotations) != 0 {
		t.Fatalf("d-other (reads another Secret) was stamped: %v", d.Spec.Template.Annotations)
	}
	expectSeries(t, "orderhub_consumers_pending", lbl, 0)
	waitEvent(t, ac, consumers.EventStamped)
}

// TestIntegration_ApplicationCredential_RestampsStuckRollout: a consumer
// whose rollout to generation 1 never completes (its pods never turn ready)
// is stamped again with generation 2 as soon as the order switches, instead
// of holding on the superseded generation; the next consumer still waits
// for it (docs/reference/consumers.md, "Order of rollouts").
func TestIntegration_ApplicationCredential_RestampsStuckRollout(t *testing.T) {
	t.Parallel()
	const ns = "tenant-restamp"
	ac := readyOrder(t, ns, "restamp", 10*time.Minute, 5*time.Minute)
	secret := orders.SecretName(ac.Name)
	for _, d := range []*appsv1.Deployment{consumerDeployment(ns, "a-stuck", secret, true, false),
		consumerDeployment(ns, "b-next", secret, true, false)} {
		create(t, d)
	}
	g1 := consumers.StampValue(orders.KindKeystoneApplicationCredential, ac.Name, 1)
	g2 := consumers.StampValue(orders.KindKeystoneApplicationCredential, ac.Name, 2)
	rolling, queued := c5c3v1alpha1.ConsumerRollingOut, c5c3v1alpha1.ConsumerQueued

	// Nobody plays the kubelet for a-stuck: its rollout to g1 never completes.
	waitConsumers(t, ac, 1, nil, "a-stuck "+rolling+" "+g1, "b-next "+queued+" ")
	raise(t, ac, 2)
	waitConsumers(t, ac, 2, nil, "a-stuck "+rolling+" "+g2, "b-next "+queued+" ")
	if v := deployment(t, ns, "a-stuck").Spec.Template.Annotations[consumers.StampKey(secret)]; v != g2 {
		t.Fatalf("a-stuck's pod template carries %q, want %q", v, g2)
	}
	if v := deployment(t, ns, "b-next").Spec.Template.Annotations[consumers.StampKey(secret)]; v != "" {
		t.Fatalf("b-next was stamped %q while a-stuck rolled out", v)
	}
}
