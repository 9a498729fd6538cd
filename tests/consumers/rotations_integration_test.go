//go:build integration

package consumers

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/internal/testenv/consumerpods"
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
	sk := authloopSink(t)

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

	var delivered corev1.Secret
	if err := kube.Get(ctx, client.ObjectKey{Namespace: podsNS, Name: orders.SecretName(orderName)}, &delivered); err != nil {
		t.Fatal(err)
	}
	cloud, err := consumerpods.Cloud(delivered.Data)
	if err != nil {
		t.Fatal(err)
	}
	d := consumerpods.Deployment(consumerpods.Workload{Namespace: podsNS, Name: workload, Secret: orders.SecretName(orderName),
		Cloud: cloud, SinkURL: sk.URL, Interval: authInterval, Replicas: replicas})
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
		pods := sk.Snapshot()
		if f := consumerpods.Failures(pods); len(f) > 0 {
			t.Fatalf("rotation %d: consumer failures: %v", r+1, f)
		}
		var lastStop time.Time
		for name, p := range pods {
			if p.Credential != prev {
				continue
			}
			if p.Stopped.IsZero() || p.Stopped.After(revoked) {
				t.Fatalf("rotation %d: pod %s holding the superseded credential %s had not stopped when Keystone revoked it", r+1, name, prev)
			}
			if p.Stopped.After(lastStop) {
				lastStop = p.Stopped
			}
		}
		f := rotationFigures{generation: gen, rolledOut: lastStop.Sub(switched), revoked: revoked.Sub(switched)}
		figures = append(figures, f)
		t.Logf("rotation %d (generation %d): switch -> last old pod stopped %s, switch -> revoked %s (grace %s)",
			r+1, f.generation, f.rolledOut.Round(100*time.Millisecond), f.revoked.Round(100*time.Millisecond), grace)
	}

	// What the chart's dashboard shows for the order after the rotations.
	if n := logPanels(t, orders.KindKeystoneApplicationCredential, podsNS, ac.Name); n < float64(len(figures)) {
		t.Errorf("orderhub_credential_rotations_total %v, want at least the %d rotations seen", n, len(figures))
	}

	// Scale to zero: every pod reports its final totals.
	pods := stopWorkload(t, d, sk)
	ok, fail := checkPods(t, pods, *rotations+1)
	if fail != 0 {
		t.Errorf("consumer failures: %v", consumerpods.Failures(pods))
	}
	t.Logf("%d rotations, %d pods, %d token requests, %d failures", len(figures), len(pods), ok+fail, fail)
	logSummary(t, figures)
}

// waitRolledOut waits until the order delivers a generation of at least
// atLeast, the authloop Deployment is RolledOut with its stamp, and every
// live authloop pod reported a success with the delivered credential. It
// returns the generation.
func waitRolledOut(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, atLeast int64, sk *consumerpods.Sink) int64 {
	t.Helper()
	var gen int64
	testenv.Eventually(t, waitTimeout, fmt.Sprintf("generation >= %d rolled out to %s", atLeast, workload), func() error {
		getOrder(t, ac)
		gen = ac.Status.CredentialGeneration
		if gen < atLeast || gen == 0 {
			return fmt.Errorf("generation %d", gen)
		}
		if err := rolledOut(ac.Status.Consumers, workload, consumers.StampValue(orders.KindKeystoneApplicationCredential, ac.Name, gen)); err != nil {
			return err
		}
		return livePodsOn(sk, workload, ac.Status.CredentialID)
	})
	return gen
}

// logSummary logs the figures' minimum, median and maximum.
func logSummary(t *testing.T, figures []rotationFigures) {
	if len(figures) == 0 {
		return
	}
	var rolled, revoked []time.Duration
	for _, f := range figures {
		rolled, revoked = append(rolled, f.rolledOut), append(revoked, f.revoked)
	}
	t.Logf("switch -> last old pod stopped (min / median / max): %s", spread(rolled, seconds))
	t.Logf("switch -> revoked in Keystone (min / median / max): %s; grace period %s", spread(revoked, seconds), grace)
}
