//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// keystoneScope is the roles (sorted names) and access rules ("service
// METHOD path") Keystone reports for the user's credential id.
func (w *world) keystoneScope(ctx context.Context, id string) (roleNames, rules []string, err error) {
	c, err := applicationcredentials.Get(ctx, identity, w.userID, id).Extract()
	if err != nil {
		return nil, nil, err
	}
	for _, r := range c.Roles {
		roleNames = append(roleNames, r.Name)
	}
	for _, a := range c.AccessRules {
		rules = append(rules, a.Service+" "+a.Method+" "+a.Path)
	}
	slices.Sort(roleNames)
	return roleNames, rules, nil
}

// generationReady waits until the order is Ready on generation gen and
// returns its credential id.
func generationReady(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, gen int64) string {
	t.Helper()
	var id string
	eventually(t, waitTimeout, fmt.Sprintf("Ready on generation %d", gen), func() error {
		cur := get(t, ac)
		c := condition(cur, c5c3v1alpha1.ConditionReady)
		if cur.Status.CredentialGeneration != gen || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("generation %d, Ready=%s/%s: %s", cur.Status.CredentialGeneration, c.Status, c.Reason, c.Message)
		}
		id = cur.Status.CredentialID
		return nil
	})
	return id
}

// TestIntegration_ApplicationCredential_Scope: spec.roles and
// spec.accessRules reach Keystone; changing them rotates to a credential
// with the new scope; a role the user does not hold is refused by name and
// nothing is issued, on a change and on a new order
// (docs/reference/keystoneapplicationcredential.md, "Scope").
func TestIntegration_ApplicationCredential_Scope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-scope"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "scope")
	w.grantRole(t) // member
	readerID := testenv.KeystoneRoleID(t, identity, "reader")
	if err := roles.Assign(ctx, identity, readerID, roles.AssignOpts{UserID: w.userID, ProjectID: w.projectID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}

	// 1. Narrowed: only reader, only GET /v3/auth/tokens on identity.
	ac := w.order("scope-appcred", 10*time.Minute, 2*time.Second)
	ac.Spec.Roles = []string{"reader"}
	ac.Spec.AccessRules = []c5c3v1alpha1.ApplicationCredentialAccessRule{{Service: "identity", Method: "GET", Path: "/v3/auth/tokens"}}
	create(t, ac)
	id1 := generationReady(t, ac, 1)
	gotRoles, gotRules, err := w.keystoneScope(ctx, id1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotRoles, []string{"reader"}) || !slices.Equal(gotRules, []string{"identity GET /v3/auth/tokens"}) {
		t.Fatalf("Keystone reports roles %v, access rules %v; want [reader] and [identity GET /v3/auth/tokens]", gotRoles, gotRules)
	}

	// 2. A scope change rotates to generation 2 with the new scope; the
	// superseded credential goes after its grace period.
	updateOrder(t, ac, func(o *c5c3v1alpha1.KeystoneApplicationCredential) {
		o.Spec.Roles, o.Spec.AccessRules = []string{"member"}, nil
	})
	id2 := generationReady(t, ac, 2)
	gotRoles, gotRules, err = w.keystoneScope(ctx, id2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotRoles, []string{"member"}) || len(gotRules) != 0 {
		t.Fatalf("after the change Keystone reports roles %v, access rules %v; want [member] and none", gotRoles, gotRules)
	}
	eventually(t, waitTimeout, "generation 1 gone from Keystone", func() error {
		if p := get(t, ac).Status.PreviousCredentialGeneration; p != 0 {
			return fmt.Errorf("previous generation %d still set", p)
		}
		kc, err := w.keystoneCredentials(ctx)
		if err != nil || len(kc) != 1 || kc[0].ID != id2 {
			return fmt.Errorf("Keystone holds %d credentials (%v), want only %s", len(kc), err, id2)
		}
		return nil
	})

	// 3. A role the user does not hold: refused by name, generation 2 stays,
	// nothing new in K-ORC or Keystone.
	updateOrder(t, ac, func(o *c5c3v1alpha1.KeystoneApplicationCredential) { o.Spec.Roles = []string{"member", "admin"} })
	waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonRoleNotHeld)
	assertRefusedNothingIssued(ctx, t, w, ac, 1, id2)

	// 4. A new order with that role: refused, nothing issued.
	foreign := w.order("scope-foreign", 10*time.Minute, 2*time.Second)
	foreign.Spec.Roles = []string{"admin"}
	create(t, foreign)
	waitReason(t, foreign, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonRoleNotHeld)
	assertRefusedNothingIssued(ctx, t, w, foreign, 0, id2)
}

// assertRefusedNothingIssued checks a RoleNotHeld order: its message names
// admin, it lists k K-ORC credentials, and Keystone holds only keep.
func assertRefusedNothingIssued(ctx context.Context, t *testing.T, w *world, ac *c5c3v1alpha1.KeystoneApplicationCredential, k int, keep string) {
	t.Helper()
	if msg := condition(get(t, ac), c5c3v1alpha1.ConditionCredentialReady).Message; !strings.Contains(msg, `"admin"`) {
		t.Errorf("RoleNotHeld message does not name admin: %q", msg)
	}
	if creds, err := kORCCredentials(ctx, ac); err != nil || len(creds) != k {
		t.Errorf("order %s lists %d K-ORC ApplicationCredentials (%v), want %d", ac.Name, len(creds), err, k)
	}
	if kc, err := w.keystoneCredentials(ctx); err != nil || len(kc) != 1 || kc[0].ID != keep {
		t.Errorf("Keystone holds %d credentials of the user (%v), want only %s", len(kc), err, keep)
	}
}
