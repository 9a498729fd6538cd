//go:build integration

package keystoneservice

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// TestAccountHonoursAKeystoneUsersNameClaim is the race of a KeystoneUser
// and a KeystoneService naming one user: the KeystoneUser in another
// namespace took the claim on the name and has not created its user yet
// (both probes found nothing). The registration is refused with
// ServiceAccountCollision naming the order, creates no User child and no
// Keystone user; once the order's user exists, deleting the registration
// leaves it in Keystone, and the claim stays the order's.
func TestAccountHonoursAKeystoneUsersNameClaim(t *testing.T) {
	ctx := context.Background()
	const userName = "claimed-user"
	victim := orders.Order{Kind: orders.KindKeystoneUser, Cluster: orders.ManagementCluster, Namespace: "tenant-b", Name: "victim"}
	claim := orders.Claim{Kind: UserClaimKind, Domain: controlplane.DefaultAdminDomain, Name: userName}
	if holder, err := orders.Acquire(ctx, kube, planeNS, claim, victim); err != nil || holder != "" {
		t.Fatalf("the KeystoneUser's claim: holder %q, %v", holder, err)
	}

	ks := accountRegistration(allowedNS, "claim-loser", "claim-loser-project", true)
	ks.Spec.Account.UserName = userName
	create(t, ks)
	got := waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountCollision)
	msg := findCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAccountReady).Message
	if !strings.Contains(msg, "KeystoneUser tenant-b/victim (management cluster)") {
		t.Fatalf("AccountReady message %q does not name the claim holder", msg)
	}
	t.Logf("AccountReady=False/ServiceAccountCollision: %s", msg)
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS,
		Name: korc.RegistrationChildName(allowedNS, ks.Name, korc.DiscUser)}, &orcv1alpha1.User{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a managed User child exists while the name is claimed (%v)", err)
	}
	if u := keystoneUser(t, userName); u != nil {
		t.Fatalf("Keystone user %s (id %s) was created for the refused registration", userName, u.ID)
	}

	// The order goes on and creates its user; the registration stays
	// refused and its teardown leaves the user alone.
	own, err := users.Create(ctx, identity, users.CreateOpts{Name: userName, DomainID: "default", Password: "victim-password-1",
		Enabled: gophercloud.Enabled}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	deleteAndWaitGone(t, ks, "none")
	if u := keystoneUser(t, userName); u == nil || u.ID != own.ID {
		t.Fatalf("the KeystoneUser's Keystone user %s is gone or replaced after the refused registration's teardown: %+v", own.ID, u)
	}
	var lease coordinationv1.Lease
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: claim.ObjectName()}, &lease); err != nil ||
		lease.Spec.HolderIdentity == nil || !strings.Contains(*lease.Spec.HolderIdentity, "KeystoneUser") {
		t.Fatalf("the KeystoneUser's claim after the teardown: %+v, %v", lease.Spec.HolderIdentity, err)
	}
	if err := users.Delete(ctx, identity, own.ID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
}

// TestAccountHonoursAKeystoneProjectsNameClaim is the same race for a
// project the registration creates: a KeystoneProject in another namespace
// took the claim on the project name and has not created its project yet.
// The registration is refused with ServiceAccountCollision naming the
// order, creates no Project child and no Keystone project; once the order's
// project exists, deleting the registration leaves it in Keystone, and the
// claim stays the order's.
func TestAccountHonoursAKeystoneProjectsNameClaim(t *testing.T) {
	ctx := context.Background()
	const projectName = "claimed-project"
	victim := orders.Order{Kind: orders.KindKeystoneProject, Cluster: orders.ManagementCluster, Namespace: "tenant-b", Name: "victim"}
	claim := orders.Claim{Kind: ProjectClaimKind, Domain: controlplane.DefaultAdminDomain, Name: projectName}
	if holder, err := orders.Acquire(ctx, kube, planeNS, claim, victim); err != nil || holder != "" {
		t.Fatalf("the KeystoneProject's claim: holder %q, %v", holder, err)
	}

	ks := accountRegistration(allowedNS, "project-claim-loser", projectName, true)
	create(t, ks)
	got := waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountCollision)
	msg := findCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAccountReady).Message
	if !strings.Contains(msg, "KeystoneProject tenant-b/victim (management cluster)") || !strings.Contains(msg, "project name") {
		t.Fatalf("AccountReady message %q does not name the project claim's holder", msg)
	}
	t.Logf("AccountReady=False/ServiceAccountCollision: %s", msg)
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS,
		Name: korc.RegistrationChildName(allowedNS, ks.Name, korc.DiscProject)}, &orcv1alpha1.Project{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a managed Project child exists while the name is claimed (%v)", err)
	}
	if p := keystoneProject(t, projectName); p != nil {
		t.Fatalf("Keystone project %s (id %s) was created for the refused registration", projectName, p.ID)
	}

	// The order goes on and creates its project; the registration's
	// teardown leaves it alone.
	own, err := projects.Create(ctx, identity, projects.CreateOpts{Name: projectName, DomainID: "default"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	deleteAndWaitGone(t, ks, "none")
	if p := keystoneProject(t, projectName); p == nil || p.ID != own.ID {
		t.Fatalf("the KeystoneProject's Keystone project %s is gone or replaced after the refused registration's teardown: %+v", own.ID, p)
	}
	var lease coordinationv1.Lease
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: claim.ObjectName()}, &lease); err != nil ||
		lease.Spec.HolderIdentity == nil || !strings.Contains(*lease.Spec.HolderIdentity, "KeystoneProject") {
		t.Fatalf("the KeystoneProject's claim after the teardown: %+v, %v", lease.Spec.HolderIdentity, err)
	}
	if err := projects.Delete(ctx, identity, own.ID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
}

// TestTwoRegistrationsRaceForOneUser: two registrations in two consented
// namespaces name one user and are created at once. Exactly one
// provisions it; the other is refused with ServiceAccountCollision naming
// the first. Deleting the refused one leaves the first's user and
// credential working.
func TestTwoRegistrationsRaceForOneUser(t *testing.T) {
	const userName = "raced-user"
	ensureRole(t, "member")
	a := accountRegistration(allowedNS, "race-a", "race-a-project", true, "member")
	b := accountRegistration(serviceNS, "race-b", "race-b-project", true, "member")
	a.Spec.Account.UserName, b.Spec.Account.UserName = userName, userName
	winner := raceTwoRegistrations(t, a, b, func() string {
		u := keystoneUser(t, userName)
		if u == nil {
			return ""
		}
		return u.ID
	})
	deleteAndWaitGone(t, winner, "none")
}

// TestTwoRegistrationsRaceForOneProject: two registrations with users of
// their own both create one project name, at once. Exactly one creates it;
// the other is refused naming the first, and deleting the refused one
// leaves the first's project (and so its credential) working.
func TestTwoRegistrationsRaceForOneProject(t *testing.T) {
	const projectName = "raced-project"
	ensureRole(t, "member")
	a := accountRegistration(allowedNS, "prace-a", projectName, true, "member")
	b := accountRegistration(serviceNS, "prace-b", projectName, true, "member")
	winner := raceTwoRegistrations(t, a, b, func() string {
		p := keystoneProject(t, projectName)
		if p == nil {
			return ""
		}
		return p.ID
	})
	deleteAndWaitGone(t, winner, "none")
}

// raceTwoRegistrations creates a and b at once and waits for one Ready and
// the other refused with ServiceAccountCollision naming it; then it deletes
// the refused one and checks that the contended Keystone object (its id as
// contended reads it, "" when absent) is still the winner's and that the
// winner's delivered credential still authenticates. It returns the winner.
func raceTwoRegistrations(t *testing.T, a, b *c5c3v1alpha1.KeystoneService, contended func() string) *c5c3v1alpha1.KeystoneService {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, ks := range []*c5c3v1alpha1.KeystoneService{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = kube.Create(ctx, ks)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var winner, loser *c5c3v1alpha1.KeystoneService
	eventually(t, waitTimeout, "one registration provisioned, the other refused", func() error {
		reasons := map[string]*c5c3v1alpha1.KeystoneService{}
		for _, ks := range []*c5c3v1alpha1.KeystoneService{a, b} {
			var got c5c3v1alpha1.KeystoneService
			if err := kube.Get(ctx, types.NamespacedName{Namespace: ks.Namespace, Name: ks.Name}, &got); err != nil {
				return err
			}
			c := findCondition(got.Status.Conditions, c5c3v1alpha1.ConditionReady)
			ac := findCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAccountReady)
			switch {
			case c != nil && c.Reason == c5c3v1alpha1.ReasonAllReady:
				reasons["ready"] = ks
			case ac != nil && ac.Reason == c5c3v1alpha1.ReasonServiceAccountCollision:
				reasons["refused"] = ks
			default:
				return fmt.Errorf("%s/%s: Ready %+v, AccountReady %+v", ks.Namespace, ks.Name, c, ac)
			}
		}
		if reasons["ready"] == nil || reasons["refused"] == nil {
			return fmt.Errorf("want one Ready and one refused, got %v", reasons)
		}
		winner, loser = reasons["ready"], reasons["refused"]
		return nil
	})
	var got c5c3v1alpha1.KeystoneService
	if err := kube.Get(ctx, types.NamespacedName{Namespace: loser.Namespace, Name: loser.Name}, &got); err != nil {
		t.Fatal(err)
	}
	msg := findCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAccountReady).Message
	if !strings.Contains(msg, "KeystoneService "+winner.Namespace+"/"+winner.Name) {
		t.Fatalf("the refused registration's message %q does not name %s/%s", msg, winner.Namespace, winner.Name)
	}
	t.Logf("winner %s/%s; refused %s/%s: %s", winner.Namespace, winner.Name, loser.Namespace, loser.Name, msg)
	before := contended()
	if before == "" {
		t.Fatal("the winner's Keystone object does not exist")
	}
	deleteAndWaitGone(t, loser, "none")
	if after := contended(); after != before {
		t.Fatalf("the winner's Keystone object %s is gone or replaced (now %q) after the refused registration's teardown", before, after)
	}
	cloud, err := deliveredCloud(winner)
	if err != nil {
		t.Fatal(err)
	}
	if err := authenticate(ctx, cloud); err != nil {
		t.Fatalf("the winner's credential stopped working: %v", err)
	}
	return winner
}
