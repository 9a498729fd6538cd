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

func (journaledChecker) User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, userID string) (atrest.Finding, error) {
	return suiteChecker.User(ctx, c, cp, userID)
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

// TestAtRest_ApplicationCredential: a Ready credential is verified once by a
// token request with it, then at rest by the cheap admin check only (the
// suite's LoginPeriod is 24 h), every ReadyResync; deleted out of band it is
// found by the cheap check and replaced like an expired one
// (docs/reference/keystoneapplicationcredential.md, "What is detected how
// fast"). A token request per resync fails the first half.
func TestAtRest_ApplicationCredential(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-atrest"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "atrest")
	w.grantRole(t)
	ac := w.order("atrest-appcred", 0, 20*time.Second)
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	id := get(t, ac).Status.CredentialID
	mark := verifications.mark()
	eventually(t, waitTimeout, "four verifications of the Ready credential", func() error {
		if got := verifications.since(mark, id); len(got) < 4 {
			return fmt.Errorf("verifications so far: %v", got)
		}
		return nil
	})
	if got := verifications.since(mark, id); got[0] != "login" || strings.Join(got[1:4], " ") != "check check check" {
		t.Fatalf("verifications of the Ready credential: %v; want one login, then cheap checks only", got)
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
