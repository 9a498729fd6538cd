//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/atrest"
)

// journal lists the suite's verifications of delivered credentials in the
// order they ran, by credential id: the cheap checks (check, check-gone,
// check-error) and the token requests with the credential (login,
// login-refused), each against the real Keystone.
type journal struct {
	mu      sync.Mutex
	entries []string // "<credential id> <what>"
}

var verifications journal

func (j *journal) note(id, what string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, id+" "+what)
}

func (j *journal) mark() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.entries)
}

// since returns what was noted for id from index mark on.
func (j *journal) since(mark int, id string) []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, e := range j.entries[mark:] {
		if w, ok := strings.CutPrefix(e, id+" "); ok {
			out = append(out, w)
		}
	}
	return out
}

// journaledProbe is KeystoneProbe, noted in verifications.
func journaledProbe(ctx context.Context, r ProbeRequest) error {
	err := KeystoneProbe(ctx, r)
	what := "login"
	if err != nil {
		what = "login-refused"
	}
	verifications.note(r.ID, what)
	return err
}

// journaledChecker is atrest.Keystone, noted in verifications.
type journaledChecker struct{}

var suiteChecker = &atrest.Keystone{}

func (journaledChecker) User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, userID string) (atrest.Finding, error) {
	return suiteChecker.User(ctx, c, cp, domainID, userID)
}

func (journaledChecker) Credential(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, userID, id string, now time.Time) (atrest.Finding, error) {
	f, err := suiteChecker.Credential(ctx, c, cp, userID, id, now)
	switch {
	case err != nil:
		verifications.note(id, "check-error")
	case f.Gone:
		verifications.note(id, "check-gone")
	default:
		verifications.note(id, "check")
	}
	return f, err
}

// TestAtRest_ApplicationCredential: a Ready credential Keystone issued as
// its K-ORC ApplicationCredential specifies (the schedule on: K-ORC reports
// the expiry the hub asked for) is confirmed by the switch and verified at
// rest by the cheap admin check only; one without an expiry (the schedule
// off) is verified once by a token request with it first. Both are then
// checked cheaply every ReadyResync (the suite's LoginPeriod is 24 h). The
// unscheduled one, deleted out of band, is found by the cheap check and
// replaced like an expired one (docs/reference/keystoneapplicationcredential.md,
// "What is detected how fast"). A token request per resync, or one after
// the switch to the scheduled credential, fails the first half.
func TestAtRest_ApplicationCredential(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-atrest"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "atrest")
	w.grantRole(t)
	ac := w.order("atrest-appcred", 0, 20*time.Second)
	scheduled := w.order("atrest-scheduled", 24*time.Hour, 20*time.Second)
	mark := verifications.mark()
	create(t, ac)
	create(t, scheduled)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	waitReason(t, scheduled, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	id, sid := get(t, ac).Status.CredentialID, get(t, scheduled).Status.CredentialID
	eventually(t, waitTimeout, "four verifications of each Ready credential", func() error {
		for _, c := range []string{id, sid} {
			if got := verifications.since(mark, c); len(got) < 4 {
				return fmt.Errorf("verifications of %s so far: %v", c, got)
			}
		}
		return nil
	})
	if got := verifications.since(mark, id); got[0] != "login" || strings.Join(got[1:4], " ") != "check check check" {
		t.Fatalf("verifications of the credential without expiry: %v; want one login, then cheap checks only", got)
	}
	if got := verifications.since(mark, sid); strings.Join(got[:4], " ") != "check check check check" {
		t.Fatalf("verifications of the scheduled credential: %v; want cheap checks only (Keystone issued it as specified)", got)
	}
	mark = verifications.mark()
	if err := applicationcredentials.Delete(ctx, identity, w.userID, id).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	eventually(t, readyResync+waitTimeout, "a new generation delivered after the out-of-band deletion", func() error {
		if a := get(t, ac); a.Status.CredentialGeneration < 2 || a.Status.CredentialID == id {
			return fmt.Errorf("generation %d (%s)", a.Status.CredentialGeneration, a.Status.CredentialID)
		}
		return nil
	})
	got := verifications.since(mark, id)
	first := ""
	for _, e := range got {
		if e != "check" { // a check that ran before the deletion took effect
			first = e
			break
		}
	}
	if first != "check-gone" {
		t.Fatalf("verifications after the deletion: %v; want the cheap check to find it first", got)
	}
	waitEvent(t, ac, EventCredentialRejected)
}
