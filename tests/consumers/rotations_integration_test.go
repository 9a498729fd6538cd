//go:build integration

package consumers

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/testenv"
)

// rotations is how many scheduled rotations the test waits through (about
// a minute each, the shortest interval admission allows); the run
// is -rotations 20.
var rotations = flag.Int("rotations", 3, "scheduled rotations TestPods_RotationsWithoutConsumerFailures waits through")

const (
	// interval and grace are the shortest schedule admission allows
	// (rotation.interval >= 1m, gracePeriod < interval).
	interval = time.Minute
	grace    = 30 * time.Second
	// authInterval is how often each consumer pod requests a token.
	authInterval = 500 * time.Millisecond
	image        = "localhost/orderhub/authloop:test"
	workload     = "authloop"
	orderName    = "authloop-appcred"
)

// rotationFigures are one rotation's times, from the switch the test saw
// (status.credentialGeneration raised, within testenv.PollInterval).
type rotationFigures struct {
	generation int64
	// rolledOut: the last pod holding the superseded credential stopped.
	rolledOut time.Duration
	// revoked: Keystone answers 404 for the superseded credential.
	revoked time.Duration
}

// A Deployment of two replicas on the node, opted in, loads the delivered
// clouds.yaml once at start and requests a token twice a second per pod,
// through -rotations scheduled rotations of its KeystoneApplicationCredential
// (interval 1m, grace 30s): no pod that ever ran saw a failed token request,
// every pod holding a superseded credential stopped before Keystone revoked
// it, and every rotation's switch-to-revocation time is logged against the
// grace period (docs/reference/consumers.md).
func TestPods_RotationsWithoutConsumerFailures(t *testing.T) {
	ctx := context.Background()
	importAuthloop(t)
	sk, err := newSink()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sk.Close)

	ref := c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "authloop", Namespace: podsNS},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: ref}}
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "authloop-project", Namespace: podsNS},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: ref}}
	ra := &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: "authloop-member", Namespace: podsNS},
		Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: ref, UserRef: c5c3v1alpha1.OrderRef{Name: ku.Name},
			ProjectRef: c5c3v1alpha1.OrderRef{Name: kp.Name}, Role: "member"}}
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: orderName, Namespace: podsNS},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: ref,
			UserRef: c5c3v1alpha1.OrderRef{Name: ku.Name}, ProjectRef: c5c3v1alpha1.OrderRef{Name: kp.Name},
			Rotation: &c5c3v1alpha1.ApplicationCredentialRotationSpec{Interval: &metav1.Duration{Duration: interval},
				GracePeriod: &metav1.Duration{Duration: grace}}}}
	// Deleted dependants first, each waited for, when the test ends.
	created := []client.Object{ku, kp, ra, ac}
	t.Cleanup(func() {
		for i := len(created) - 1; i >= 0; i-- {
			deleteAndWaitGone(t, created[i])
		}
	})
	for _, o := range created {
		if err := kube.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	testenv.WaitForReason(t, kube, waitTimeout, ac, func(v *c5c3v1alpha1.KeystoneApplicationCredential) []metav1.Condition {
		return v.Status.Conditions
	}, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	getOrder(t, ku)
	userID := ku.Status.UserID

	d := authloopDeployment(t, cloudName(t), sk.URL)
	created = append(created, d)
	if err := kube.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	gen := waitRolledOut(t, ac, 0, sk)

	var figures []rotationFigures
	for r := 0; r < *rotations; r++ {
		var switched time.Time
		var prev string
		testenv.Eventually(t, interval+waitTimeout, fmt.Sprintf("rotation %d: generation above %d", r+1, gen), func() error {
			getOrder(t, ac)
			if ac.Status.CredentialGeneration <= gen {
				return fmt.Errorf("generation %d", ac.Status.CredentialGeneration)
			}
			switched, prev = time.Now(), ac.Status.PreviousCredentialID
			return nil
		})
		if ac.Status.CredentialGeneration != gen+1 || prev == "" {
			t.Fatalf("rotation %d: generation %d -> %d, previous credential %q: want one step with a superseded credential",
				r+1, gen, ac.Status.CredentialGeneration, prev)
		}
		gen = waitRolledOut(t, ac, gen+1, sk)
		var revoked time.Time
		testenv.Eventually(t, grace+waitTimeout, fmt.Sprintf("rotation %d: credential %s revoked in Keystone", r+1, prev), func() error {
			_, err := applicationcredentials.Get(ctx, identity, userID, prev).Extract()
			if !gophercloud.ResponseCodeIs(err, 404) {
				return fmt.Errorf("Keystone answers %v", err)
			}
			revoked = time.Now()
			return nil
		})
		pods := sk.snapshot()
		if f := failures(pods); len(f) > 0 {
			t.Fatalf("rotation %d: consumer failures: %v", r+1, f)
		}
		var lastStop time.Time
		for name, p := range pods {
			if p.credential != prev {
				continue
			}
			if p.stopped.IsZero() || p.stopped.After(revoked) {
				t.Fatalf("rotation %d: pod %s holding the superseded credential %s had not stopped when Keystone revoked it", r+1, name, prev)
			}
			if p.stopped.After(lastStop) {
				lastStop = p.stopped
			}
		}
		f := rotationFigures{generation: gen, rolledOut: lastStop.Sub(switched), revoked: revoked.Sub(switched)}
		figures = append(figures, f)
		t.Logf("rotation %d (generation %d): switch -> last old pod stopped %s, switch -> revoked %s (grace %s)",
			r+1, f.generation, f.rolledOut.Round(100*time.Millisecond), f.revoked.Round(100*time.Millisecond), grace)
	}

	// Scale to zero: every pod reports its final totals.
	// A merge patch of replicas alone: the hub's stamp patches of the same
	// Deployment cannot conflict with it.
	scale := client.MergeFrom(d.DeepCopy())
	d.Spec.Replicas = ptr.To[int32](0)
	if err := kube.Patch(ctx, d, scale); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitTimeout, "every authloop pod stopped and gone", func() error {
		var l corev1.PodList
		if err := kube.List(ctx, &l, client.InNamespace(podsNS), client.MatchingLabels{"app": workload}); err != nil {
			return err
		}
		if len(l.Items) > 0 {
			return fmt.Errorf("%d pods left", len(l.Items))
		}
		for name, p := range sk.snapshot() {
			if p.stopped.IsZero() {
				return fmt.Errorf("pod %s sent no final report", name)
			}
		}
		return nil
	})
	pods := sk.snapshot()
	ok, fail := totals(pods)
	for name, p := range pods {
		if p.ok == 0 {
			t.Errorf("pod %s (credential %s) never authenticated", name, p.credential)
		}
	}
	if fail != 0 {
		t.Errorf("consumer failures: %v", failures(pods))
	}
	if want := 2 * (*rotations + 1); len(pods) < want {
		t.Errorf("%d pods reported, want at least %d (two per generation)", len(pods), want)
	}
	t.Logf("%d rotations, %d pods, %d token requests, %d failures", len(figures), len(pods), ok+fail, fail)
	logSummary(t, figures)
}

// waitRolledOut waits until the order delivers a generation of at least
// atLeast, the authloop Deployment is RolledOut with its stamp, and every
// live authloop pod reported a success with the delivered credential. It
// returns the generation.
func waitRolledOut(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, atLeast int64, sk *sink) int64 {
	t.Helper()
	var gen int64
	testenv.Eventually(t, waitTimeout, fmt.Sprintf("generation >= %d rolled out to %s", atLeast, workload), func() error {
		getOrder(t, ac)
		gen = ac.Status.CredentialGeneration
		if gen < atLeast || gen == 0 {
			return fmt.Errorf("generation %d", gen)
		}
		want := consumers.StampValue(orders.KindKeystoneApplicationCredential, ac.Name, gen)
		if len(ac.Status.Consumers) != 1 || ac.Status.Consumers[0].State != c5c3v1alpha1.ConsumerRolledOut ||
			ac.Status.Consumers[0].Stamp != want {
			return fmt.Errorf("consumers %+v, want %s RolledOut %s", ac.Status.Consumers, workload, want)
		}
		var l corev1.PodList
		if err := kube.List(context.Background(), &l, client.InNamespace(podsNS), client.MatchingLabels{"app": workload}); err != nil {
			return err
		}
		reported := sk.snapshot()
		live := 0
		for _, p := range l.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			live++
			if r := reported[p.Name]; r.credential != ac.Status.CredentialID || r.ok == 0 {
				return fmt.Errorf("pod %s reported credential %q, %d successes; delivered %s", p.Name, r.credential, r.ok, ac.Status.CredentialID)
			}
		}
		if live != 2 {
			return fmt.Errorf("%d live pods", live)
		}
		return nil
	})
	return gen
}

// importAuthloop builds tests/consumers/authloop static and imports it into
// the node's containerd as image.
func importAuthloop(t *testing.T) {
	t.Helper()
	work := t.TempDir()
	bin := filepath.Join(work, "authloop")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./authloop")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build authloop: %v: %s", err, out)
	}
	tarball := filepath.Join(work, "authloop.tar")
	ctx := context.Background()
	if err := stack.BuildImage(ctx, image, tarball, map[string]string{"authloop": bin}, []string{"/authloop"}); err != nil {
		t.Fatal(err)
	}
	if err := stack.Node.ImportImage(ctx, tarball); err != nil {
		t.Fatal(err)
	}
}

// cloudName is the one cloud of the delivered clouds.yaml.
func cloudName(t *testing.T) string {
	t.Helper()
	var s corev1.Secret
	if err := kube.Get(context.Background(), client.ObjectKey{Namespace: podsNS, Name: orders.SecretName(orderName)}, &s); err != nil {
		t.Fatal(err)
	}
	var f cloudsyaml.File
	if err := yaml.Unmarshal(s.Data[cloudsyaml.Key], &f); err != nil || len(f.Clouds) != 1 {
		t.Fatalf("delivered clouds.yaml: %v, %d clouds", err, len(f.Clouds))
	}
	for name := range f.Clouds {
		return name
	}
	return ""
}

// authloopDeployment runs authloop in two replicas on the host network (the
// stack's Keystone and the sink bind loopback), opted in, with the delivered
// Secret mounted; a pod is ready after its first token.
func authloopDeployment(t *testing.T, cloud, sinkURL string) *appsv1.Deployment {
	labels := map[string]string{"app": workload}
	c := corev1.Container{Name: workload, Image: image, ImagePullPolicy: corev1.PullNever,
		Env: []corev1.EnvVar{{Name: "OS_CLIENT_CONFIG_FILE", Value: "/etc/openstack/" + cloudsyaml.Key}, {Name: "OS_CLOUD", Value: cloud},
			{Name: "AUTHLOOP_SINK", Value: sinkURL}, {Name: "AUTHLOOP_INTERVAL", Value: authInterval.String()},
			{Name: "AUTHLOOP_READY", Value: "/run/authloop/ready"},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "creds", MountPath: "/etc/openstack", ReadOnly: true}, {Name: "run", MountPath: "/run/authloop"}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/authloop", "probe"}}},
			PeriodSeconds: 1},
		SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](65532), RunAsNonRoot: ptr.To(true),
			AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: podsNS, Name: workload,
		Annotations: map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "true"}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{HostNetwork: true, AutomountServiceAccountToken: ptr.To(false),
					TerminationGracePeriodSeconds: ptr.To[int64](10), Containers: []corev1.Container{c},
					Volumes: []corev1.Volume{{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
						SecretName: orders.SecretName(orderName)}}},
						{Name: "run", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}}}
}

// logSummary logs the figures' minimum, median and maximum.
func logSummary(t *testing.T, figures []rotationFigures) {
	if len(figures) == 0 {
		return
	}
	pick := func(f func(rotationFigures) time.Duration) string {
		v := make([]time.Duration, len(figures))
		for i, x := range figures {
			v[i] = f(x)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		r := func(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
		return strings.Join([]string{r(v[0]), r(v[len(v)/2]), r(v[len(v)-1])}, " / ")
	}
	t.Logf("switch -> last old pod stopped (min / median / max): %s", pick(func(f rotationFigures) time.Duration { return f.rolledOut }))
	t.Logf("switch -> revoked in Keystone (min / median / max): %s; grace period %s", pick(func(f rotationFigures) time.Duration { return f.revoked }), grace)
}

// getOrder reads o again into o.
func getOrder(t *testing.T, o client.Object) {
	t.Helper()
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
		t.Fatal(err)
	}
}

// deleteAndWaitGone deletes obj and waits until the apiserver no longer has it.
func deleteAndWaitGone(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Delete(context.Background(), obj); err != nil && !apierrors.IsNotFound(err) {
		t.Error(err)
	}
	testenv.Eventually(t, waitTimeout, fmt.Sprintf("%T %s gone", obj, obj.GetName()), func() error {
		err := kube.Get(context.Background(), client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object))
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return errors.New("still exists")
	})
}
