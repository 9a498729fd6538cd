//go:build integration

package keystoneuser

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
	"time"
)

// orderRolesFile is the shipped aggregated ClusterRoles of the order kinds,
// which fold the order kinds into the built-in edit ClusterRole.
const orderRolesFile = "../../../config/rbac/aggregate/order_roles.yaml"

// editTenant returns a client acting as ServiceAccount ns/tenant with edit
// in ns only (testenv.Stack.EditTenant).
func editTenant(t *testing.T, ns string) client.Client {
	t.Helper()
	return stack.EditTenant(t, kube, orderRolesFile, ns, waitTimeout)
}

// TestTenantCollisionNamesNothingOutside: a tenant with edit in secondNS
// orders a user name an order in tenantNS holds. Its order reads
// UserCollision with a message that names neither the holder nor its
// namespace, and the tenant cannot read the holder itself (Forbidden).
func TestTenantCollisionNamesNothingOutside(t *testing.T) {
	ctx := context.Background()
	holder := userOrder(tenantNS, "held-elsewhere")
	holder.Spec.UserName = "tenant-held-name"
	create(t, holder)
	claim := orders.Claim{Kind: ClaimKind, Domain: "Default", Name: "tenant-held-name"}
	testenv.Eventually(t, waitTimeout, "the holder's claim", func() error {
		return kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: claim.ObjectName()}, &coordinationv1.Lease{})
	})

	tenant := editTenant(t, secondNS)
	attempt := userOrder(secondNS, "wants-the-name")
	attempt.Spec.UserName = "tenant-held-name"
	if err := tenant.Create(ctx, attempt); err != nil {
		t.Fatalf("a tenant with edit must be able to order in its namespace: %v", err)
	}
	var msg string
	testenv.Eventually(t, waitTimeout, "UserCollision as the tenant reads it", func() error {
		var got c5c3v1alpha1.KeystoneUser
		if err := tenant.Get(ctx, client.ObjectKeyFromObject(attempt), &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionUserReady)
		if c == nil || c.Reason != c5c3v1alpha1.ReasonUserCollision {
			return fmt.Errorf("UserReady %+v", c)
		}
		msg = c.Message
		return nil
	})
	for _, leak := range []string{tenantNS, holder.Name} {
		if strings.Contains(msg, leak) {
			t.Errorf("the tenant's collision message names %q outside its namespace: %s", leak, msg)
		}
	}
	if !strings.Contains(msg, orders.HolderOutsideNamespace) {
		t.Errorf("the collision message does not say the name is taken outside: %s", msg)
	}
	err := tenant.Get(ctx, client.ObjectKeyFromObject(holder), &c5c3v1alpha1.KeystoneUser{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("the tenant read the holder in %s: %v, want Forbidden", tenantNS, err)
	}
	for _, o := range []client.Object{attempt, holder} {
		if err := kube.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	waitGone(t, attempt)
	waitGone(t, holder)
}

// TestTenantChildNameTakenIsRefused: an object of the name the order's K-ORC
// child will get, labelled as another order's child, is never touched. The
// tenant's order reads UserReady=False/ChildOwnedElsewhere naming nothing
// outside its namespace, the object reads back unchanged from the API
// server, and nothing reaches Keystone.
func TestTenantChildNameTakenIsRefused(t *testing.T) {
	ctx := context.Background()
	attempt := userOrder(secondNS, "child-taken")
	attempt.Spec.UserName = "child-taken-user"
	other := orders.Order{Kind: orders.KindKeystoneUser, Namespace: tenantNS, Name: "someone-else"}
	// K-ORC cannot act on the decoy: its clouds.yaml Secret does not exist.
	decoy := korc.UserProbe(korc.Child{Name: childName(attempt, korc.DiscUser), Namespace: planeNS,
		Labels: orders.ChildLabels(other), Credentials: orcv1alpha1.CloudCredentialsReference{
			SecretName: "no-such-clouds-yaml", CloudName: "none"}}, "decoy-user", "")
	create(t, decoy)
	t.Cleanup(func() { _ = kube.Delete(context.Background(), decoy) })
	var before orcv1alpha1.User
	if err := kube.Get(ctx, client.ObjectKeyFromObject(decoy), &before); err != nil {
		t.Fatal(err)
	}

	tenant := editTenant(t, secondNS)
	if err := tenant.Create(ctx, attempt); err != nil {
		t.Fatalf("a tenant with edit must be able to order in its namespace: %v", err)
	}
	var msg string
	testenv.Eventually(t, waitTimeout, "ChildOwnedElsewhere as the tenant reads it", func() error {
		var got c5c3v1alpha1.KeystoneUser
		if err := tenant.Get(ctx, client.ObjectKeyFromObject(attempt), &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionUserReady)
		if c == nil || c.Reason != c5c3v1alpha1.ReasonChildOwnedElsewhere {
			return fmt.Errorf("UserReady %+v", c)
		}
		msg = c.Message
		return nil
	})
	for _, typ := range []string{c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ConditionDeliveryReady} {
		waitFor(t, attempt, typ, c5c3v1alpha1.ReasonChildOwnedElsewhere)
	}
	for _, leak := range []string{tenantNS, other.Name} {
		if strings.Contains(msg, leak) {
			t.Errorf("the refusal names %q outside the tenant's namespace: %s", leak, msg)
		}
	}
	if !strings.Contains(msg, decoy.Name) || !strings.Contains(msg, "rename this order") {
		t.Errorf("the refusal does not name the child and the remedy: %s", msg)
	}

	var after orcv1alpha1.User
	if err := kube.Get(ctx, client.ObjectKeyFromObject(decoy), &after); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(after.Labels, before.Labels) || !equality.Semantic.DeepEqual(after.Spec, before.Spec) {
		t.Errorf("the decoy changed:\nlabels %v -> %v\nspec %+v -> %+v", before.Labels, after.Labels, before.Spec, after.Spec)
	}
	for _, f := range after.ManagedFields {
		if f.Manager == ControllerName {
			t.Errorf("the hub wrote the decoy (%s %s)", f.Manager, f.Operation)
		}
	}
	if u := keystoneUser(t, string(attempt.Spec.UserName)); u != nil {
		t.Errorf("Keystone has user %s despite the refusal", u.Name)
	}
	if err := kube.Delete(ctx, attempt); err != nil {
		t.Fatal(err)
	}
	waitGone(t, attempt)
}

// TestTenantNamesInSharedDomains: secondNS's assignment lists one tenant
// domain and a name prefix. The tenant's order in the plane's admin domain
// (where the KeystoneService accounts live) and its order without the
// prefix are refused before anything reaches Keystone (no user by that
// name, no child); its order in the listed domain with the prefix is
// provisioned there.
func TestTenantNamesInSharedDomains(t *testing.T) {
	ctx := context.Background()
	dom, err := domains.Create(ctx, identity, domains.CreateOpts{Name: "tenant-b-domain", Enabled: ptr.To(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = domains.Update(context.Background(), identity, dom.ID, domains.UpdateOpts{Enabled: ptr.To(false)}).Extract()
		_ = domains.Delete(context.Background(), identity, dom.ID).ExtractErr()
	})
	as := allAssigned()
	for i := range as {
		if as[i].Namespace == secondNS {
			as[i].Domains, as[i].NamePrefix = []c5c3v1alpha1.KeystoneName{"tenant-b-domain"}, "tb-"
		}
	}
	setAssignments(t, as)
	t.Cleanup(func() { setAssignments(t, allAssigned()) })

	tenant := editTenant(t, secondNS)
	inService := userOrder(secondNS, "tb-in-service")
	noPrefix := userOrder(secondNS, "no-prefix")
	noPrefix.Spec.DomainName = "tenant-b-domain"
	allowed := userOrder(secondNS, "tb-allowed")
	allowed.Spec.DomainName = "tenant-b-domain"
	for _, o := range []*c5c3v1alpha1.KeystoneUser{inService, noPrefix, allowed} {
		if err := tenant.Create(ctx, o); err != nil {
			t.Fatalf("a tenant with edit must be able to order in its namespace: %v", err)
		}
	}
	for _, typ := range []string{c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ConditionDeliveryReady} {
		waitFor(t, inService, typ, c5c3v1alpha1.ReasonTenantDomainNotAllowed)
		waitFor(t, noPrefix, typ, c5c3v1alpha1.ReasonTenantNamePrefix)
	}
	waitFor(t, allowed, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserProvisioned)

	for _, o := range []*c5c3v1alpha1.KeystoneUser{inService, noPrefix} {
		for _, d := range []string{"default", dom.ID} {
			got := testenv.KeystoneList(t, users.List(identity, users.ListOpts{Name: o.Name, DomainID: d}), users.ExtractUsers)
			if len(got) != 0 {
				t.Errorf("%s: Keystone has user %s in domain %s despite the refusal", o.Name, o.Name, d)
			}
		}
		if n := children(t, o); n != 0 {
			t.Errorf("%s: %d children projected despite the refusal", o.Name, n)
		}
	}
	got := testenv.KeystoneList(t, users.List(identity, users.ListOpts{Name: allowed.Name, DomainID: dom.ID}), users.ExtractUsers)
	if len(got) != 1 {
		t.Errorf("the allowed order's user is not in domain tenant-b-domain: %+v", got)
	}
	for _, o := range []*c5c3v1alpha1.KeystoneUser{inService, noPrefix, allowed} {
		if err := kube.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []*c5c3v1alpha1.KeystoneUser{inService, noPrefix, allowed} {
		waitGone(t, o)
	}
}

// TestTenantRotationBudget: a tenant with edit ordering a user and raising
// spec.passwordGeneration in a loop gets rotationsPerHour (2) tokens: the
// first password and one rotation; the next raise waits at UserReady=False/RotationBudgetExhausted with nothing created,
// and the delivered password keeps working in Keystone
// (docs/reference/controlplane.md, "Rotation budget").
func TestTenantRotationBudget(t *testing.T) {
	ctx := context.Background()
	as := allAssigned()
	for i := range as {
		if as[i].Namespace == secondNS {
			as[i].RotationsPerHour = ptr.To[int32](2)
		}
	}
	setAssignments(t, as)
	t.Cleanup(func() { setAssignments(t, allAssigned()) })

	tenant := editTenant(t, secondNS)
	ku := userOrder(secondNS, "budgeted")
	if err := tenant.Create(ctx, ku); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.Delete(context.Background(), ku)
		waitGone(t, ku)
	})
	waitGeneration(t, ku, 1) // the first password takes the first token
	raise := func(gen int64) {
		t.Helper()
		testenv.Eventually(t, 30*time.Second, fmt.Sprintf("raise spec.passwordGeneration to %d as the tenant", gen), func() error {
			var cur c5c3v1alpha1.KeystoneUser
			if err := tenant.Get(ctx, client.ObjectKeyFromObject(ku), &cur); err != nil {
				return err
			}
			cur.Spec.PasswordGeneration = gen
			return tenant.Update(ctx, &cur)
		})
	}
	raise(2)
	waitGeneration(t, ku, 2) // the namespace's one rotation of the hour
	second := authenticates(t, ku, "after the budgeted rotation")

	raise(3)
	got := waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonRotationBudgetExhausted)
	c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionUserReady)
	for _, want := range []string{"password generation 2 stays delivered", "generation 3", "2 per hour"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("UserReady message %q does not say %q", c.Message, want)
		}
	}
	if got.Status.PasswordGeneration != 2 {
		t.Errorf("status.passwordGeneration %d while the rotation waits, want 2", got.Status.PasswordGeneration)
	}
	// Nothing was created for generation 3, and the delivered password still works.
	var s corev1.Secret
	err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS,
		Name: korc.OrderChildName(korc.InfixUser, orders.ManagementCluster, ku.Namespace, ku.Name, korc.PasswordDiscriminator(3))}, &s)
	if !apierrors.IsNotFound(err) {
		t.Errorf("password generation 3's Secret: %v, want NotFound while the budget holds it", err)
	}
	if now := authenticates(t, ku, "while the rotation waits"); now != second {
		t.Error("the delivered password changed while the rotation waits for the budget")
	}

	// The plane's operator raising the budget lets the waiting rotation start.
	for i := range as {
		if as[i].Namespace == secondNS {
			as[i].RotationsPerHour = ptr.To[int32](10)
		}
	}
	setAssignments(t, as)
	waitGeneration(t, ku, 3)
	if now := authenticates(t, ku, "after the budget was raised"); now == second {
		t.Error("generation 3 delivered the password of generation 2")
	}
}
