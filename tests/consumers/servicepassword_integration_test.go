//go:build integration

package consumers

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/keystoneservice"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/internal/testenv/consumerpods"
	"github.com/c5c3/orderhub/korc"
)

// passwordRotations is how many CredentialRotations the test creates, one
// after the other rotation rolled out.
var passwordRotations = flag.Int("password-rotations", 3,
	"CredentialRotations of the KeystoneService password TestPods_ServicePasswordRotations waits through")

// serviceName names the KeystoneService and the Deployment reading its
// consumer Secret.
const serviceName = "authloop-svc"

// passwordFigures are one password rotation's figures, from the switch of
// the consumer Secret the test saw (within testenv.PollInterval).
type passwordFigures struct {
	generation int64
	// rolledOut: the last pod holding the superseded password stopped.
	rolledOut time.Duration
	// firstFailure: the first failed token request of a pod holding the
	// superseded password (negative: before the switch, K-ORC applies the
	// new password before it is delivered); failed false when none failed.
	firstFailure time.Duration
	failed       bool
	// failures: the failed token requests of the pods holding the
	// superseded password.
	failures int
}

// A KeystoneService in podsNS with an account (a created project, role
// member) delivers <name>-credentials, a clouds.yaml of one cloud; a
// Deployment of two opted-in authloop replicas loads it once at start and
// requests a project-scoped token twice a second per pod. The test rotates
// the password -password-rotations times, one CredentialRotation each, the
// next once the previous rolled out. Keystone keeps one password per user, so
// pods holding the superseded password fail from K-ORC's update until the
// rollout stops them (docs/reference/consumers.md). It asserts that no pod
// failed while its password was current (every failing pod loaded a
// superseded password and failed first after the rotation superseding it was
// requested), that every pod holding a superseded password stopped in the
// rollout, and logs per rotation the time from the switch to the last old
// pod's stop and the old pods' failed token requests.
func TestPods_ServicePasswordRotations(t *testing.T) {
	ctx := context.Background()
	sk := authloopSink(t)
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: serviceName, Namespace: podsNS},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{
				Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "service-authloop", Create: true},
				// The delivered clouds.yaml names the project: its token needs a role there.
				Roles: []c5c3v1alpha1.KeystoneName{"member"}}}}
	// Deleted in reverse, each waited for, when the test ends.
	created := []client.Object{ks}
	t.Cleanup(func() {
		for i := len(created) - 1; i >= 0; i-- {
			deleteAndWaitGone(t, created[i])
		}
	})
	if err := kube.Create(ctx, ks); err != nil {
		t.Fatal(err)
	}
	testenv.WaitForReason(t, kube, waitTimeout, ks, func(v *c5c3v1alpha1.KeystoneService) []metav1.Condition {
		return v.Status.Conditions
	}, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	var delivered corev1.Secret
	if err := kube.Get(ctx, client.ObjectKey{Namespace: podsNS, Name: keystoneservice.ConsumerSecretName(ks)}, &delivered); err != nil {
		t.Fatal(err)
	}
	cloud, err := consumerpods.Cloud(delivered.Data)
	if err != nil {
		t.Fatal(err)
	}
	d := consumerpods.Deployment(consumerpods.Workload{Namespace: podsNS, Name: serviceName, Secret: delivered.Name,
		Cloud: cloud, SinkURL: sk.URL, Interval: authInterval, Replicas: replicas})
	created = append(created, d)
	if err := kube.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	gen := int64(1)
	cred := waitPasswordRolledOut(t, ks, gen, sk)

	// supersededAt: a superseded password's credential -> when the test
	// requested the rotation that superseded it.
	supersededAt := map[string]time.Time{}
	var figures []passwordFigures
	for r := 1; r <= *passwordRotations; r++ {
		if f := unexpectedFailures(sk.Snapshot(), supersededAt); len(f) > 0 {
			t.Fatalf("rotation %d: failures of pods while their password was current: %v", r, f)
		}
		prev := cred
		supersededAt[prev] = time.Now()
		cr := &c5c3v1alpha1.CredentialRotation{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", serviceName, r), Namespace: podsNS},
			Spec: c5c3v1alpha1.CredentialRotationSpec{Target: c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword,
				KeystoneService: serviceName}}
		created = append(created, cr)
		if err := kube.Create(ctx, cr); err != nil {
			t.Fatal(err)
		}
		var switched time.Time
		testenv.Eventually(t, waitTimeout, fmt.Sprintf("rotation %d: the consumer Secret switched from generation %d", r, gen), func() error {
			c, err := deliveredCredential(ks)
			if err != nil {
				return err
			}
			if c == prev {
				return fmt.Errorf("it still carries %s", prev)
			}
			switched = time.Now()
			return nil
		})
		gen++
		cred = waitPasswordRolledOut(t, ks, gen, sk)
		testenv.WaitForReason(t, kube, waitTimeout, cr, func(v *c5c3v1alpha1.CredentialRotation) []metav1.Condition {
			return v.Status.Conditions
		}, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonRotationTriggered)

		var pods map[string]consumerpods.Pod
		testenv.Eventually(t, waitTimeout, fmt.Sprintf("rotation %d: every pod holding %s stopped", r, prev), func() error {
			pods = sk.Snapshot()
			for name, p := range pods {
				if p.Credential == prev && p.Stopped.IsZero() {
					return fmt.Errorf("pod %s has not stopped", name)
				}
			}
			return nil
		})
		if f := unexpectedFailures(pods, supersededAt); len(f) > 0 {
			t.Fatalf("rotation %d: failures of pods while their password was current: %v", r, f)
		}
		f := figuresOf(pods, prev, switched)
		f.generation = gen
		figures = append(figures, f)
		first := "none"
		if f.failed {
			first = "switch " + offset(f.firstFailure)
		}
		t.Logf("rotation %d (generation %d): switch -> last old pod stopped %s; old pods' failed token requests %d, the first at %s",
			r, gen, seconds(f.rolledOut), f.failures, first)
	}

	pods := stopWorkload(t, d, sk)
	if f := unexpectedFailures(pods, supersededAt); len(f) > 0 {
		t.Errorf("failures of pods while their password was current: %v", f)
	}
	ok, fail := checkPods(t, pods, *passwordRotations+1)
	t.Logf("%d rotations, %d pods, %d token requests, %d failed (each by a pod holding a superseded password)",
		len(figures), len(pods), ok+fail, fail)
	logPasswordSummary(t, figures)
}

// waitPasswordRolledOut waits until ks delivered password generation gen:
// status.account.passwordGeneration reads gen, the consumer Secret carries
// the password of K-ORC's generation-gen password Secret, the Deployment is
// RolledOut with the generation's stamp, and every live pod reported a
// success with that password. A generation beyond gen fails the test. It
// returns the password's credential as authloop reports it.
func waitPasswordRolledOut(t *testing.T, ks *c5c3v1alpha1.KeystoneService, gen int64, sk *consumerpods.Sink) string {
	t.Helper()
	var cred string
	testenv.Eventually(t, waitTimeout, fmt.Sprintf("password generation %d rolled out to %s", gen, serviceName), func() error {
		getOrder(t, ks)
		a := ks.Status.Account
		if a == nil || a.PasswordGeneration < gen {
			return fmt.Errorf("status.account %+v", a)
		}
		if a.PasswordGeneration > gen {
			t.Fatalf("password generation %d, want one step to %d", a.PasswordGeneration, gen)
		}
		var err error
		if cred, err = deliveredCredential(ks); err != nil {
			return err
		}
		var pw corev1.Secret
		if err := kube.Get(context.Background(), client.ObjectKey{Namespace: planeNS,
			Name: korc.RegistrationChildName(ks.Namespace, ks.Name, korc.PasswordDiscriminator(gen))}, &pw); err != nil {
			return err
		}
		if want := consumerpods.PasswordCredential(string(pw.Data[korc.PasswordKey])); cred != want {
			return fmt.Errorf("the consumer Secret carries %s, generation %d is %s", cred, gen, want)
		}
		if err := rolledOut(a.Consumers, serviceName, consumers.StampValue(keystoneservice.OwnerKind, ks.Name, gen)); err != nil {
			return err
		}
		return livePodsOn(sk, serviceName, cred)
	})
	return cred
}

// deliveredCredential is the credential of the clouds.yaml in ks's consumer
// Secret, as authloop reports it.
func deliveredCredential(ks *c5c3v1alpha1.KeystoneService) (string, error) {
	var s corev1.Secret
	if err := kube.Get(context.Background(), client.ObjectKey{Namespace: ks.Namespace, Name: keystoneservice.ConsumerSecretName(ks)}, &s); err != nil {
		return "", err
	}
	return consumerpods.Credential(s.Data)
}

// unexpectedFailures lists (consumerpods.Failures) the pods with a failed
// token request that did not load a superseded credential, or that failed
// first before the rotation superseding it was requested; supersededAt maps
// each superseded credential to that request's time (sink clock).
func unexpectedFailures(pods map[string]consumerpods.Pod, supersededAt map[string]time.Time) []string {
	bad := map[string]consumerpods.Pod{}
	for name, p := range pods {
		at, superseded := supersededAt[p.Credential]
		if p.Fail > 0 && (!superseded || p.FirstFail.Before(at)) {
			bad[name] = p
		}
	}
	return consumerpods.Failures(bad)
}

// figuresOf measures, from switched, the pods that loaded prev: their last
// stop, their first failure and their failed token requests.
func figuresOf(pods map[string]consumerpods.Pod, prev string, switched time.Time) passwordFigures {
	var f passwordFigures
	var lastStop, firstFail time.Time
	for _, p := range pods {
		if p.Credential != prev {
			continue
		}
		f.failures += p.Fail
		if p.Stopped.After(lastStop) {
			lastStop = p.Stopped
		}
		if !p.FirstFail.IsZero() && (firstFail.IsZero() || p.FirstFail.Before(firstFail)) {
			firstFail = p.FirstFail
		}
	}
	f.rolledOut = lastStop.Sub(switched)
	if f.failed = !firstFail.IsZero(); f.failed {
		f.firstFailure = firstFail.Sub(switched)
	}
	return f
}

// offset is seconds(d) with its sign, "+" included.
func offset(d time.Duration) string {
	if d < 0 {
		return seconds(d)
	}
	return "+" + seconds(d)
}

// logPasswordSummary logs the figures' minimum, median and maximum.
func logPasswordSummary(t *testing.T, figures []passwordFigures) {
	if len(figures) == 0 {
		return
	}
	var rolled, first []time.Duration
	var failures []int
	for _, f := range figures {
		rolled, failures = append(rolled, f.rolledOut), append(failures, f.failures)
		if f.failed {
			first = append(first, f.firstFailure)
		}
	}
	t.Logf("switch -> last old pod stopped (min / median / max): %s", spread(rolled, seconds))
	t.Logf("old pods' failed token requests per rotation (min / median / max): %s", spread(failures, func(n int) string { return fmt.Sprint(n) }))
	t.Logf("switch -> first failure of an old pod (min / median / max): %s", spread(first, offset))
}
