// Package grants assigns and revokes Keystone project roles with gophercloud,
// since K-ORC v2.6.0 has no RoleAssignment kind; the Granter interface lets a
// K-ORC projection replace it (docs/reference/keystoneroleassignment.md,
// "How roles are granted").
package grants

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/listcache"
)

// Credentials are what a Granter authenticates with: a parsed password cloud
// (the plane's <cp>-admin-password-cloud Secret) and the PEM CA bundle of an
// https auth URL (empty: the system roots).
type Credentials struct {
	Cloud    cloudsyaml.Cloud
	CABundle []byte
	// Plane is the ControlPlane's namespace/name (AdminCredentials sets
	// it); Sessions keys its cache by it.
	Plane string
}

// Granter reads, assigns and revokes roles of one user on one project.
// IDs are Keystone ids. Errors are gophercloud's (match them with
// gophercloud.ResponseCodeIs) or transport errors.
type Granter interface {
	// Granted returns the ids of the roles directly assigned to userID on
	// projectID (inherited and group assignments are not counted).
	Granted(ctx context.Context, c Credentials, userID, projectID string) (map[string]bool, error)
	// Has reports whether roleID is directly assigned to userID on
	// projectID. True MAY come from a list of roleID's assignments at most
	// listcache MaxAge old; false MUST be Keystone's answer to a read of
	// the pair (Granted).
	Has(ctx context.Context, c Credentials, userID, projectID, roleID string) (bool, error)
	// Grant assigns roleID (idempotent: Keystone answers 204 for an
	// existing assignment).
	Grant(ctx context.Context, c Credentials, userID, projectID, roleID string) error
	// Revoke removes the assignment; a missing assignment is not an error.
	Revoke(ctx context.Context, c Credentials, userID, projectID, roleID string) error
}

// Keystone is the Granter talking to Keystone's identity v3 API; Timeout
// bounds each call (default 20 s). Sessions caches the admin login per plane
// (a changed admin credential logs in again); nil logs in on every call.
// Lists holds lists of a plane's assignments by role for Has (nil: Has
// reads each pair).
type Keystone struct {
	Timeout  time.Duration
	Sessions *Sessions
	Lists    *listcache.Cache[struct{}]
}

var _ Granter = Keystone{}

// Granted implements Granter.
func (k Keystone) Granted(ctx context.Context, c Credentials, userID, projectID string) (map[string]bool, error) {
	out := map[string]bool{}
	err := k.list(ctx, c, roles.ListAssignmentsOpts{UserID: userID, ScopeProjectID: projectID}, func(a roles.RoleAssignment) {
		if a.User.ID == userID && a.Scope.Project.ID == projectID {
			out[a.Role.ID] = true
		}
	})
	return out, err
}

// Has implements Granter: a pair found in the list of roleID's assignments
// (GET /v3/role_assignments?role.id=, Lists), else Granted.
func (k Keystone) Has(ctx context.Context, c Credentials, userID, projectID, roleID string) (bool, error) {
	if k.Lists != nil {
		if _, ok := k.Lists.Lookup(ctx, c.Key()+"|"+roleID, userID+"|"+projectID, func(ctx context.Context) (map[string]struct{}, int, error) {
			out, listed := map[string]struct{}{}, 0
			err := k.list(ctx, c, roles.ListAssignmentsOpts{RoleID: roleID}, func(a roles.RoleAssignment) {
				listed++
				if a.Role.ID == roleID && a.User.ID != "" && a.Scope.Project.ID != "" {
					out[a.User.ID+"|"+a.Scope.Project.ID] = struct{}{}
				}
			})
			if err != nil {
				logf.FromContext(ctx).Info("the list of a role's assignments failed; its grants are read each", "role", roleID,
					"error", controlplane.WithoutBody(err).Error())
			}
			return out, listed, err
		}); ok {
			return true, nil
		}
	}
	granted, err := k.Granted(ctx, c, userID, projectID)
	return granted[roleID], err
}

// list hands each assignment GET /v3/role_assignments with opts lists to
// each. Errors: the list's, or its decoding.
func (k Keystone) list(ctx context.Context, c Credentials, opts roles.ListAssignmentsOpts, each func(roles.RoleAssignment)) error {
	return k.with(ctx, c, func(ctx context.Context, sc *gophercloud.ServiceClient) error {
		pages, err := roles.ListAssignments(sc, opts).AllPages(ctx)
		if err != nil {
			return fmt.Errorf("list role assignments: %w", err)
		}
		as, err := roles.ExtractRoleAssignments(pages)
		if err != nil {
			return err
		}
		for _, a := range as {
			each(a)
		}
		return nil
	})
}

// Grant implements Granter.
func (k Keystone) Grant(ctx context.Context, c Credentials, userID, projectID, roleID string) error {
	return k.with(ctx, c, func(ctx context.Context, sc *gophercloud.ServiceClient) error {
		if err := roles.Assign(ctx, sc, roleID, roles.AssignOpts{UserID: userID, ProjectID: projectID}).ExtractErr(); err != nil {
			return fmt.Errorf("assign role %s: %w", roleID, err)
		}
		return nil
	})
}

// Revoke implements Granter.
func (k Keystone) Revoke(ctx context.Context, c Credentials, userID, projectID, roleID string) error {
	return k.with(ctx, c, func(ctx context.Context, sc *gophercloud.ServiceClient) error {
		err := roles.Unassign(ctx, sc, roleID, roles.UnassignOpts{UserID: userID, ProjectID: projectID}).ExtractErr()
		if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return fmt.Errorf("unassign role %s: %w", roleID, err)
		}
		return nil
	})
}

// with runs f with an authenticated identity client, bounded by Timeout.
func (k Keystone) with(ctx context.Context, c Credentials, f func(context.Context, *gophercloud.ServiceClient) error) error {
	ctx, cancel := k.bound(ctx)
	defer cancel()
	ss := k.Sessions
	if ss == nil {
		ss = &Sessions{}
	}
	sc, err := ss.Client(ctx, c)
	if err != nil {
		return err
	}
	return f(ctx, sc)
}

func (k Keystone) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	t := k.Timeout
	if t == 0 {
		t = 20 * time.Second
	}
	return context.WithTimeout(ctx, t)
}
