//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/testenv"
)

// consumer authenticates every second with whatever the delivered Secret
// holds, as a consumer re-reading its Secret would, and counts.
type consumer struct {
	mu       sync.Mutex
	auths    int
	failures []string
	// seen maps each credential id the Secret carried to when the consumer
	// first saw it.
	seen   map[string]time.Time
	order  []string
	clouds map[string]cloudsyaml.Cloud
	// lastOK is when the last successful attempt started; maxGap the
	// longest time between the starts of two successful attempts.
	lastOK time.Time
	maxGap time.Duration
}

// run authenticates once a second until ctx ends, each time with what the
// delivered Secret holds at that moment. The stack's Keystone serves one
// request at a time, so attempts are sequential: when one takes longer than
// a second the next starts right after it. Only the token request is made
// (no validation round trip), to keep the load on Keystone down.
func (c *consumer) run(ctx context.Context, ac *c5c3v1alpha1.KeystoneApplicationCredential) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		// Reads and authentications use their own context: a stop must not
		// turn an attempt under way into a failure.
		cloud, _, err := delivered(context.Background(), ac)
		if err != nil {
			c.fail(fmt.Sprintf("%s read the delivered Secret: %v", time.Now().Format(time.RFC3339), err))
			continue
		}
		id := cloud.AuthInfo.ApplicationCredentialID
		at := time.Now()
		c.mu.Lock()
		if _, ok := c.seen[id]; !ok {
			c.seen[id] = at
			c.order = append(c.order, id)
			c.clouds[id] = cloud
		}
		c.mu.Unlock()
		actx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err = testenv.Authenticate(actx, cloud)
		cancel()
		c.mu.Lock()
		c.auths++
		if err != nil {
			c.failures = append(c.failures, fmt.Sprintf("%s with %s: %v", at.Format(time.RFC3339), id, err))
		} else {
			if !c.lastOK.IsZero() && at.Sub(c.lastOK) > c.maxGap {
				c.maxGap = at.Sub(c.lastOK)
			}
			c.lastOK = at
		}
		c.mu.Unlock()
	}
}

func (c *consumer) fail(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auths++
	c.failures = append(c.failures, msg)
}

// TestIntegration_ApplicationCredential_RotationRun runs the schedule for
// real (interval 1m, grace 30s): a consumer authenticates every second with
// whatever the delivered Secret holds through two scheduled rotations with
// zero failures, and each superseded credential works inside its grace
// period and fails after it.
func TestIntegration_ApplicationCredential_RotationRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-run"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "run")
	w.grantRole(t)
	const interval, grace = time.Minute, 30 * time.Second
	ac := w.order("run-appcred", interval, grace)
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	start := time.Now()
	// expiresAt holds each generation's Keystone expiry, read from
	// status.credentialExpiresAt while that generation was live.
	expiresAt := map[int64]time.Time{}
	if cur := get(t, ac); cur.Status.CredentialExpiresAt != nil {
		expiresAt[cur.Status.CredentialGeneration] = cur.Status.CredentialExpiresAt.Time
	}

	runCtx, stop := context.WithCancel(ctx)
	c := &consumer{seen: map[string]time.Time{}, clouds: map[string]cloudsyaml.Cloud{}}
	done := make(chan struct{})
	go func() { defer close(done); c.run(runCtx, ac) }()

	// Each superseded generation: works right after the switch, fails after
	// its grace period.
	type superseded struct {
		gen              int64
		id               string
		switchedAt       time.Time // status.lastRotation of its successor
		deleteAt         time.Time
		checkedInGraceAt time.Time
		failedAt         time.Time
	}
	var gone []superseded
	for gen := int64(2); gen <= 3; gen++ {
		var prev superseded
		due := get(t, ac).Status.NextRotation
		if due == nil {
			t.Fatalf("generation %d has no nextRotation", gen-1)
		}
		eventually(t, 3*interval, fmt.Sprintf("scheduled rotation to generation %d", gen), func() error {
			cur := get(t, ac)
			if cur.Status.CredentialGeneration < gen || cur.Status.PreviousCredentialDeleteAt == nil || cur.Status.LastRotation == nil {
				return fmt.Errorf("generation %d, previous %d", cur.Status.CredentialGeneration, cur.Status.PreviousCredentialGeneration)
			}
			if cur.Status.CredentialGeneration != gen {
				return fmt.Errorf("skipped to generation %d", cur.Status.CredentialGeneration)
			}
			prev = superseded{gen: cur.Status.PreviousCredentialGeneration, id: cur.Status.PreviousCredentialID,
				switchedAt: cur.Status.LastRotation.Time, deleteAt: cur.Status.PreviousCredentialDeleteAt.Time}
			if cur.Status.CredentialExpiresAt != nil {
				expiresAt[gen] = cur.Status.CredentialExpiresAt.Time
			}
			return nil
		})
		t.Logf("generation %d: due at %s, switched %s later", gen, due.UTC().Format(time.RFC3339),
			prev.switchedAt.Sub(due.Time).Round(time.Second))
		if prev.switchedAt.Before(due.Time) {
			t.Fatalf("generation %d switched before the schedule was due", gen)
		}
		c.mu.Lock()
		old, ok := c.clouds[prev.id]
		c.mu.Unlock()
		if !ok {
			t.Fatalf("the consumer never saw generation %d (%s)", prev.gen, prev.id)
		}
		if _, err := authenticate(ctx, old); err != nil {
			t.Fatalf("superseded generation %d fails inside its grace period (%s after the switch): %v",
				prev.gen, time.Since(prev.switchedAt).Round(time.Second), err)
		}
		prev.checkedInGraceAt = time.Now()
		if !prev.checkedInGraceAt.Before(prev.deleteAt) {
			t.Fatalf("the in-grace check of generation %d ran after its grace period", prev.gen)
		}
		eventually(t, grace+time.Minute, fmt.Sprintf("superseded generation %d stops working", prev.gen), func() error {
			if _, err := authenticate(ctx, old); err == nil {
				return fmt.Errorf("generation %d still authenticates", prev.gen)
			}
			return nil
		})
		prev.failedAt = time.Now()
		// It stops working at its Keystone expiry (creation + interval +
		// grace + headroom, docs/reference/keystoneapplicationcredential.md,
		// "Rotation"; read from status.credentialExpiresAt) or its
		// deletion (switch + grace), whichever comes first: the successor's
		// creation-to-switch latency, which grows with the machine's load,
		// brings the expiry before the deletion. Anything earlier than both
		// (less the poll step and a second of Keystone's clock rounding) is a
		// credential deleted inside its grace period.
		end := prev.deleteAt
		if e, ok := expiresAt[prev.gen]; !ok {
			t.Fatalf("generation %d was never seen with a credentialExpiresAt", prev.gen)
		} else if e.Before(end) {
			end = e
		}
		if early := end.Add(-3 * time.Second); prev.failedAt.Before(early) {
			t.Fatalf("superseded generation %d stopped working %s after the switch, before its grace period of %s "+
				"and its expiry (%s after the switch)", prev.gen, prev.failedAt.Sub(prev.switchedAt).Round(time.Second), grace,
				end.Sub(prev.switchedAt).Round(time.Second))
		}
		gone = append(gone, prev)
	}
	eventually(t, 2*interval, "generation 2 deleted after its grace period", func() error {
		if g := get(t, ac).Status.PreviousCredentialGeneration; g != 0 {
			return fmt.Errorf("previous generation %d still recorded", g)
		}
		return nil
	})
	// Let the consumer see the final Secret for a few more seconds.
	c.mu.Lock()
	before := c.auths
	c.mu.Unlock()
	eventually(t, time.Minute, "three more consumer authentications", func() error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.auths < before+3 {
			return fmt.Errorf("%d authentications", c.auths)
		}
		return nil
	})
	stop()
	<-done

	c.mu.Lock()
	defer c.mu.Unlock()
	t.Logf("consumer: %d authentications, %d failures over %s; longest time between two successful attempts %s",
		c.auths, len(c.failures), time.Since(start).Round(time.Second), c.maxGap.Round(100*time.Millisecond))
	for i, id := range c.order {
		t.Logf("credential %d (%s) first seen at +%s", i+1, id, c.seen[id].Sub(start).Round(time.Second))
	}
	for _, s := range gone {
		seenNext := time.Time{}
		for i, id := range c.order {
			if id == s.id && i+1 < len(c.order) {
				seenNext = c.seen[c.order[i+1]]
			}
		}
		t.Logf("generation %d: switch at +%s, consumer saw the successor %s after the switch, checked working %s after the switch, deleteAt switch+%s, failing observed %s after the switch",
			s.gen, s.switchedAt.Sub(start).Round(time.Second), seenNext.Sub(s.switchedAt).Round(time.Second),
			s.checkedInGraceAt.Sub(s.switchedAt).Round(time.Second), s.deleteAt.Sub(s.switchedAt).Round(time.Second),
			s.failedAt.Sub(s.switchedAt).Round(time.Second))
	}
	if len(c.failures) > 0 {
		t.Fatalf("%d of %d consumer authentications failed: %v", len(c.failures), c.auths, c.failures)
	}
	if len(c.order) < 3 {
		t.Fatalf("the consumer saw %d credentials, want 3 (two scheduled rotations)", len(c.order))
	}
	if elapsed := time.Since(start); c.auths < int(elapsed.Seconds())/3 {
		t.Fatalf("only %d authentications in %s: the consumer did not keep authenticating", c.auths, elapsed.Round(time.Second))
	}
	if kc, err := w.keystoneCredentials(ctx); err != nil || len(kc) != 1 || kc[0].ID != c.order[len(c.order)-1] {
		t.Fatalf("Keystone holds %d credentials (%v), want the delivered generation 3 only", len(kc), err)
	}

	if err := kube.Delete(ctx, get(t, ac)); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "the order is gone", func() error {
		err := kube.Get(ctx, client.ObjectKeyFromObject(ac), &c5c3v1alpha1.KeystoneApplicationCredential{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
}

// TestIntegration_ApplicationCredential_RotatesOnExpiry: a credential
// created with the schedule on carries a Keystone expiry; with the schedule
// then turned off (interval 0s) the order keeps it until it expires and
// replaces it then (docs/reference/keystoneapplicationcredential.md,
// "Rotation": "the live credential has expired in Keystone"; "Turning the
// schedule off leaves the live credential's expiry in force"). While it is
// replaced CredentialReady reads WaitingForCredential naming the expired
// generation (or Keystone's rejection of it, when the periodic check saw
// the 401 first); generation 2 is delivered without an expiry and
// authenticates. Interval 1m and grace 30s give an expiry 6m30s after the
// creation.
func TestIntegration_ApplicationCredential_RotatesOnExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-expiry"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "expiry")
	w.grantRole(t)
	ac := w.order("expiry-appcred", time.Minute, 30*time.Second)
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	updateOrder(t, ac, func(a *c5c3v1alpha1.KeystoneApplicationCredential) { a.Spec.Rotation.Interval = &metav1.Duration{} })
	first := get(t, ac)
	if first.Status.CredentialGeneration != 1 || first.Status.CredentialExpiresAt == nil {
		t.Fatalf("generation %d, expiry %v; want generation 1 with an expiry", first.Status.CredentialGeneration, first.Status.CredentialExpiresAt)
	}
	log := watchConditions(t, ac)
	expiresAt := first.Status.CredentialExpiresAt.Time
	eventually(t, time.Until(expiresAt)+waitTimeout, "generation 2 delivered after generation 1 expired", func() error {
		a := get(t, ac)
		got, err := authDelivered(ctx, ac)
		if a.Status.CredentialGeneration != 2 || err != nil || got != a.Status.CredentialID {
			c := condition(a, c5c3v1alpha1.ConditionCredentialReady)
			return fmt.Errorf("generation %d, Secret carries %s: %v; CredentialReady=%s/%s: %s", a.Status.CredentialGeneration, got, err,
				c.Status, c.Reason, c.Message)
		}
		return nil
	})
	if time.Now().Before(expiresAt) {
		t.Fatalf("generation 2 was delivered before generation 1 expired at %s", expiresAt.Format(time.RFC3339))
	}
	log.waitSeen(t, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential,
		"delivered generation 1")
	if a := get(t, ac); a.Status.CredentialExpiresAt != nil {
		t.Errorf("generation 2 expires at %s; the schedule is off, so it carries no expiry", a.Status.CredentialExpiresAt)
	}
	deleteAndWaitGone(t, ac)
}
