//go:build integration

package identity

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// A RoleAssignment on the system scope grants the role with
// PUT /v3/system/users/{id}/roles/{role}: Keystone reports the grant, a grant
// revoked outside orderhub is restored by the resync, and deleting the
// resource (deletionPolicy delete) revokes it (docs/identity.md, "Role
// assignments on the system").
func TestSystemRoleAssignment(t *testing.T) {
	ctx := context.Background()
	uname, rname := uniq(t, "sys-user"), uniq(t, "sys-role")
	u, err := users.Create(ctx, admin, users.CreateOpts{Name: uname, DomainID: keystone.DefaultDomainID, Enabled: ptr(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	r, err := roles.Create(ctx, admin, roles.CreateOpts{Name: rname}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	granted := func() bool {
		err := roles.Validate(ctx, admin, r.ID, roles.ValidateOpts{UserID: u.ID, System: true}).ExtractErr()
		if err != nil && !keystone.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	ra := &kv1.RoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: kname(uname), Namespace: testNS},
		Spec: kv1.RoleAssignmentSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete},
			Role: kv1.RoleRef{Name: rname}, User: &kv1.NamedInDomain{Name: uname}, System: "all"}}
	mustCreate(t, ra)
	waitReady(t, ra)
	if !granted() {
		t.Fatal("Ready, but Keystone reports no system grant")
	}
	if n := proxy.responseCount("PUT /v3/system/users/{id}/roles/{id}", 204); n == 0 {
		t.Error("no PUT /v3/system/users/{id}/roles/{id} answered 204")
	}

	if err := roles.Unassign(ctx, admin, r.ID, roles.UnassignOpts{UserID: u.ID, System: true}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the revoked system grant restored", func() (bool, string) { return granted(), "not granted" })

	if err := k8s.Delete(ctx, ra); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the system grant revoked on delete", func() (bool, string) { return !granted(), "still granted" })
}
