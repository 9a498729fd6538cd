//go:build integration

package keystoneuser

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/internal/listcache"
	"github.com/c5c3/orderhub/internal/testenv"
)

// journal lists the suite's verifications in the order they ran: the cheap
// checks (by Keystone user id) and the hashing logins (by user name), each
// against the real Keystone.
type journal struct {
	mu      sync.Mutex
	entries []string // "<user> <check|check-gone|login|login-refused|...>"
}

var verifications journal

func (j *journal) note(user, what string, err error) {
	if err != nil {
		what += "-refused"
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, user+" "+what)
}

// since returns the entries from index mark on naming user (id or name).
func (j *journal) since(mark int, user ...string) []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, e := range j.entries[mark:] {
		for _, u := range user {
			if strings.HasPrefix(e, u+" ") {
				out = append(out, strings.TrimPrefix(e, u+" "))
			}
		}
	}
	return out
}

func (j *journal) mark() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.entries)
}

// journaledChecker is atrest.Keystone, noting each check in verifications.
type journaledChecker struct{}

var suiteChecker = &atrest.Keystone{}

func (journaledChecker) User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, userID string) (atrest.Finding, error) {
	f, err := suiteChecker.User(ctx, c, cp, domainID, userID)
	switch {
	case err != nil:
		verifications.note(userID, "check-error", nil)
	case f.Gone:
		verifications.note(userID, "check-gone", nil)
	default:
		verifications.note(userID, "check", nil)
	}
	return f, err
}

func (journaledChecker) Credential(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, userID, id string, now time.Time) (atrest.Finding, error) {
	return suiteChecker.Credential(ctx, c, cp, userID, id, now)
}

// waitAtRest waits until the Ready order ku was verified once more after
// Ready (a cheap check, or a login if logins are due): its password is
// confirmed and the delivered Secret reads back unchanged, so what follows
// is verification at rest.
func waitAtRest(t *testing.T, ku *c5c3v1alpha1.KeystoneUser) {
	t.Helper()
	mark := verifications.mark()
	testenv.Eventually(t, waitTimeout, "a verification of the Ready order", func() error {
		for _, e := range verifications.since(mark, ku.Status.UserID, EffectiveUserName(ku)) {
			if e == "check" || e == "login" {
				return nil
			}
		}
		return fmt.Errorf("verifications so far: %v", verifications.since(mark, ku.Status.UserID, EffectiveUserName(ku)))
	})
}

// TestAtRest_PasswordChangedOutOfBandUnnoticed: a Ready order at rest
// verifies with the cheap check every VerifyInterval and logs in with its
// password at most once per LoginPeriod (24 h here), so a password changed
// in Keystone out of band (same user id) goes unnoticed over several
// resyncs while the checks keep running (docs/reference/keystoneuser.md,
// "What is detected how fast"). A hashing login per resync would be
// refused and turn UserReady False.
func TestAtRest_PasswordChangedOutOfBandUnnoticed(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(tenantNS, "rest-quiet")
	create(t, ku)
	ku = waitGeneration(t, ku, 1)
	waitAtRest(t, ku)
	name := EffectiveUserName(ku)
	mark := verifications.mark()
	if _, err := users.Update(ctx, identity, ku.Status.UserID, users.UpdateOpts{Password: "changed-out-of-band-1"}).Extract(); err != nil {
		t.Fatal(err)
	}
	c, _, err := delivered(ku)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Authenticate(ctx, c); err == nil {
		t.Fatal("the delivered password still authenticates after the out-of-band change")
	}
	testenv.Eventually(t, waitTimeout, "three verifications after the out-of-band change", func() error {
		if got := verifications.since(mark, ku.Status.UserID, name); len(got) < 3 {
			return fmt.Errorf("verifications so far: %v", got)
		}
		return nil
	})
	got := verifications.since(mark, ku.Status.UserID, name)
	for _, e := range got {
		if e != "check" {
			t.Fatalf("verifications after the change: %v; want cheap checks only", got)
		}
	}
	var cur c5c3v1alpha1.KeystoneUser
	if err := kube.Get(ctx, client.ObjectKeyFromObject(ku), &cur); err != nil {
		t.Fatal(err)
	}
	if !meta.IsStatusConditionTrue(cur.Status.Conditions, c5c3v1alpha1.ConditionUserReady) {
		t.Fatalf("UserReady is not True at rest: %+v", cur.Status.Conditions)
	}
	t.Logf("after the change: %v", got)
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}

// TestAtRest_DeletedUserFoundByTheCheck: with hashing logins 24 h apart,
// a Keystone user deleted out of band is found by the cheap check at the
// next resync and reported as the hashing login reports it (UserReady
// False, UserFailed).
func TestAtRest_DeletedUserFoundByTheCheck(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(tenantNS, "rest-gone")
	create(t, ku)
	ku = waitGeneration(t, ku, 1)
	waitAtRest(t, ku)
	name, id := EffectiveUserName(ku), ku.Status.UserID
	mark := verifications.mark()
	if err := users.Delete(ctx, identity, id).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	ku = waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserFailed)
	got := verifications.since(mark, id, name)
	first := ""
	for _, e := range got {
		if e != "check" { // checks before the deletion took effect
			first = e
			break
		}
	}
	if first != "check-gone" {
		t.Fatalf("verifications after the deletion: %v; want the cheap check to find it first", got)
	}
	if meta.IsStatusConditionTrue(ku.Status.Conditions, c5c3v1alpha1.ConditionReady) {
		t.Fatal("the order still reads Ready")
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}

// TestAtRest_OneLoginBeforeFirstDelivery: a new order's first password is
// verified with one hashing login, though its delivery waits a pass or more
// for the OpenBao backup (ESO pushes the PushSecret the first pass creates);
// the passes that wait check the accepted password cheaply instead of logging
// in again (docs/reference/keystoneuser.md, "What is detected how fast").
func TestAtRest_OneLoginBeforeFirstDelivery(t *testing.T) {
	ctx := context.Background()
	mark := verifications.mark()
	ku := userOrder(tenantNS, "rest-first")
	create(t, ku)
	ku = waitGeneration(t, ku, 1)
	got := verifications.since(mark, ku.Status.UserID, EffectiveUserName(ku))
	logins := 0
	for _, e := range got {
		if strings.HasPrefix(e, "login") {
			logins++
		}
	}
	if logins != 1 {
		t.Fatalf("verifications until generation 1 was delivered: %v; want exactly one hashing login", got)
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}

// TestAtRest_UserListAnswersForMaxAge: once checks of a domain's users are
// frequent enough, one list of the domain answers them: a user deleted out
// of band still reads well for at most the list's MaxAge, then Gone; a user
// created after the list is read itself (docs/reference/keystoneuser.md,
// "What is detected how fast").
func TestAtRest_UserListAnswersForMaxAge(t *testing.T) {
	ctx := context.Background()
	var cp c5c3v1alpha1.ControlPlane
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		u, err := users.Create(ctx, identity, users.CreateOpts{Name: name, DomainID: "default"}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = users.Delete(context.Background(), identity, u.ID).ExtractErr() })
		return u.ID
	}
	first := mk("rest-list-first")
	clock := time.Now()
	age := 30 * time.Second
	k := &atrest.Keystone{Users: &listcache.Cache[atrest.Finding]{
		Policy: listcache.Policy{MaxAge: age, MinDemand: 2, PerLookup: 1000}, Now: func() time.Time { return clock }}}
	check := func(id string, gone bool) {
		t.Helper()
		f, err := k.User(ctx, kube, &cp, "default", id)
		if err != nil || f.Gone != gone {
			t.Fatalf("User(%s) = %+v, %v; want Gone %v", id, f, err, gone)
		}
	}
	check(first, false) // read itself
	check(first, false) // the second check (MinDemand 2) reads a list
	clock = clock.Add(age)
	check(first, false)
	if err := users.Delete(ctx, identity, first).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	check(first, false) // answered by the list, at most MaxAge old
	check(mk("rest-list-later"), false)
	clock = clock.Add(age + time.Second)
	check(first, true)
}
