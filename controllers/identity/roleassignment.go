package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// roleAssignmentActuator reconciles RoleAssignment with
// PUT /v3/{projects|domains}/{id}/{users|groups}/{id}/roles/{role}, or
// PUT /v3/system/{users|groups}/{id}/roles/{role} on the system scope
// (gophercloud's System option); a grant is idempotent and has no ID.
// https://docs.openstack.org/api-ref/identity/v3/#system-role-assignments
type roleAssignmentActuator struct {
	lookups
	specKind[*kv1.RoleAssignment]
}

var _ actuator[*kv1.RoleAssignment] = roleAssignmentActuator{}

// grant is a resolved role assignment.
type grant struct {
	roleID              string
	userID, groupID     string
	projectID, domainID string
	system              bool
	description         string
}

// resolve looks up the role, the subject and the scope. A missing one is a
// *missingError naming it.
func (a roleAssignmentActuator) resolve(ctx context.Context, s kv1.RoleAssignmentSpec) (grant, error) {
	var g grant
	var err error
	if g.roleID, err = a.roleID(ctx, s.Role.Name, s.Role.Domain); err != nil {
		return g, err
	}
	subj, scope := "", ""
	switch {
	case s.User != nil:
		g.userID, err = a.userID(ctx, s.User.Name, s.User.Domain)
		subj = fmt.Sprintf("user %s (domain %s)", s.User.Name, displayDomain(s.User.Domain))
	case s.Group != nil:
		g.groupID, err = a.groupID(ctx, s.Group.Name, s.Group.Domain)
		subj = fmt.Sprintf("group %s (domain %s)", s.Group.Name, displayDomain(s.Group.Domain))
	default:
		err = fmt.Errorf("neither user nor group is set")
	}
	if err != nil {
		return g, err
	}
	switch {
	case s.Project != nil:
		g.projectID, err = a.projectID(ctx, s.Project.Name, s.Project.Domain)
		scope = fmt.Sprintf("project %s (domain %s)", s.Project.Name, displayDomain(s.Project.Domain))
	case s.Domain != nil:
		g.domainID, err = a.domainID(ctx, s.Domain.Name)
		scope = "domain " + s.Domain.Name
	case s.System != "":
		g.system = true
		scope = "system " + s.System
	default:
		err = fmt.Errorf("none of project, domain and system is set")
	}
	g.description = fmt.Sprintf("role %s granted to %s on %s", s.Role.Name, subj, scope)
	return g, err
}

// apply grants the role with a PUT. On the forced resync it first checks the
// grant with a HEAD and writes only when it is missing, so a steady state
// writes nothing.
func (a roleAssignmentActuator) apply(ctx context.Context, o *kv1.RoleAssignment, in applyInput) (outcome, error) {
	g, err := a.resolve(ctx, o.Spec)
	if err != nil {
		return outcome{}, err
	}
	if in.resync {
		err := roles.Validate(ctx, a.c, g.roleID, roles.ValidateOpts{UserID: g.userID, GroupID: g.groupID,
			ProjectID: g.projectID, DomainID: g.domainID, System: g.system}).ExtractErr()
		if err == nil {
			return outcome{message: g.description}, nil
		}
		if !keystone.IsNotFound(err) {
			return outcome{}, fmt.Errorf("check grant: %w", err)
		}
	}
	err = roles.Assign(ctx, a.c, g.roleID, roles.AssignOpts{UserID: g.userID, GroupID: g.groupID,
		ProjectID: g.projectID, DomainID: g.domainID, System: g.system}).ExtractErr()
	if err != nil {
		return outcome{}, fmt.Errorf("grant: %w", err)
	}
	if in.resync {
		return changed(g.description + " (restored)"), nil
	}
	return outcome{message: g.description}, nil
}

func (a roleAssignmentActuator) remove(ctx context.Context, o *kv1.RoleAssignment) error {
	g, err := a.resolve(ctx, o.Spec)
	if err != nil {
		return err
	}
	err = roles.Unassign(ctx, a.c, g.roleID, roles.UnassignOpts{UserID: g.userID, GroupID: g.groupID,
		ProjectID: g.projectID, DomainID: g.domainID, System: g.system}).ExtractErr()
	if err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("revoke: %w", err)
	}
	return nil
}
