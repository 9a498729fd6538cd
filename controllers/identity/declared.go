package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// declarer is implemented by the actuators of kinds whose Keystone object
// has mutable fields that several declarations could disagree on (all but
// RoleAssignment): see declarations.go.
type declarer[T object] interface {
	// declares returns the key of the Keystone object obj declares, how a
	// message names it ("domain service"), and the mutable fields obj sets.
	declares(obj T) (key, what string, fields []field)
	// declarations lists the resources of the kind in namespace ns (every
	// namespace the client sees for ""), narrowed by opts.
	declarations(ctx context.Context, c client.Reader, ns string, opts ...client.ListOption) ([]T, error)
}

// declaresIndex is a field index of each declaring kind's cache: a
// resource's value is declaresValue of the key of the Keystone object it
// declares. The check for other declarations of one object reads those
// alone, not every resource of the kind: a List of all of them on each
// apply and resync made the controller's CPU grow with the square of the
// resources (docs/performance.md, "Identity: 200 and 1000 Projects").
const declaresIndex = "keystone.osh.openstack.org/declares"

// declaresValue is the index value of a declares key: its SHA-256 in hex, as
// the keys hold NUL separators (a hash collision would only add a resource
// that checkDeclarations compares by key and skips).
func declaresValue(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// declaresIndexer is the declaresIndex function of d's kind.
func declaresIndexer[T object](d declarer[T]) client.IndexerFunc {
	return func(o client.Object) []string {
		t, ok := o.(T)
		if !ok {
			return nil
		}
		key, _, _ := d.declares(t)
		return []string{declaresValue(key)}
	}
}

func listOf[L client.ObjectList, T object](ctx context.Context, c client.Reader, ns string, list L, items func(L) []T, opts []client.ListOption) ([]T, error) {
	if err := c.List(ctx, list, append([]client.ListOption{client.InNamespace(ns)}, opts...)...); err != nil {
		return nil, fmt.Errorf("list declarations: %w", err)
	}
	return items(list), nil
}

func ptrs[E any](items []E) []*E {
	out := make([]*E, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

func (domainActuator) declares(o *kv1.Domain) (string, string, []field) {
	fs := optional(nil, "description", o.Spec.Description)
	return "domain\x00" + domainKey(o.Spec.Name), "domain " + o.Spec.Name, append(fs, boolField("enabled", enabled(o.Spec.Enabled)))
}

func (domainActuator) declarations(ctx context.Context, c client.Reader, ns string, opts ...client.ListOption) ([]*kv1.Domain, error) {
	return listOf(ctx, c, ns, &kv1.DomainList{}, func(l *kv1.DomainList) []*kv1.Domain { return ptrs(l.Items) }, opts)
}

func (projectActuator) declares(o *kv1.Project) (string, string, []field) {
	fs := optional(nil, "description", o.Spec.Description)
	return scopedKey("project", o.Spec.Domain, o.Spec.Name), fmt.Sprintf("project %s in domain %s", o.Spec.Name, displayDomain(o.Spec.Domain)),
		append(fs, boolField("enabled", enabled(o.Spec.Enabled)))
}

func (projectActuator) declarations(ctx context.Context, c client.Reader, ns string, opts ...client.ListOption) ([]*kv1.Project, error) {
	return listOf(ctx, c, ns, &kv1.ProjectList{}, func(l *kv1.ProjectList) []*kv1.Project { return ptrs(l.Items) }, opts)
}

func (roleActuator) declares(o *kv1.Role) (string, string, []field) {
	scope := "\x00global"
	if o.Spec.Domain != "" {
		scope = domainKey(o.Spec.Domain)
	}
	return "role\x00" + scope + "\x00" + keystone.FoldName(o.Spec.Name), roleWhere(o.Spec), optional(nil, "description", o.Spec.Description)
}

func (roleActuator) declarations(ctx context.Context, c client.Reader, ns string, opts ...client.ListOption) ([]*kv1.Role, error) {
	return listOf(ctx, c, ns, &kv1.RoleList{}, func(l *kv1.RoleList) []*kv1.Role { return ptrs(l.Items) }, opts)
}

func (groupActuator) declares(o *kv1.Group) (string, string, []field) {
	return scopedKey("group", o.Spec.Domain, o.Spec.Name), fmt.Sprintf("group %s in domain %s", o.Spec.Name, displayDomain(o.Spec.Domain)),
		optional(nil, "description", o.Spec.Description)
}

func (groupActuator) declarations(ctx context.Context, c client.Reader, ns string, opts ...client.ListOption) ([]*kv1.Group, error) {
	return listOf(ctx, c, ns, &kv1.GroupList{}, func(l *kv1.GroupList) []*kv1.Group { return ptrs(l.Items) }, opts)
}

// declares of a User includes where its password comes from: two Secrets
// would take turns writing the password.
func (userActuator) declares(o *kv1.User) (string, string, []field) {
	fs := optional(nil, "description", o.Spec.Description)
	if dp := o.Spec.DefaultProject; dp != nil {
		fs = append(fs, field{"defaultProject", dp.Name + " in domain " + displayDomain(dp.Domain)})
	}
	fs = append(fs, boolField("enabled", enabled(o.Spec.Enabled)),
		field{"passwordSecret", o.Spec.PasswordSecret.Name + "/" + passwordKey(o)})
	return scopedKey("user", o.Spec.Domain, o.Spec.Name), fmt.Sprintf("user %s in domain %s", o.Spec.Name, displayDomain(o.Spec.Domain)), fs
}

func (userActuator) declarations(ctx context.Context, c client.Reader, ns string, opts ...client.ListOption) ([]*kv1.User, error) {
	return listOf(ctx, c, ns, &kv1.UserList{}, func(l *kv1.UserList) []*kv1.User { return ptrs(l.Items) }, opts)
}

func (serviceActuator) declares(o *kv1.Service) (string, string, []field) {
	fs := optional(nil, "description", o.Spec.Description)
	return "service\x00" + o.Spec.Name + "\x00" + o.Spec.Type, fmt.Sprintf("service %s (%s)", o.Spec.Name, o.Spec.Type),
		append(fs, boolField("enabled", enabled(o.Spec.Enabled)))
}

func (serviceActuator) declarations(ctx context.Context, c client.Reader, ns string, opts ...client.ListOption) ([]*kv1.Service, error) {
	return listOf(ctx, c, ns, &kv1.ServiceList{}, func(l *kv1.ServiceList) []*kv1.Service { return ptrs(l.Items) }, opts)
}

func (endpointActuator) declares(o *kv1.Endpoint) (string, string, []field) {
	var fs []field
	fs = optional(fs, "urls.admin", o.Spec.URLs.Admin)
	fs = optional(fs, "urls.internal", o.Spec.URLs.Internal)
	fs = optional(fs, "urls.public", o.Spec.URLs.Public)
	return "endpoint\x00" + o.Spec.Service.Name + "\x00" + o.Spec.Service.Type + "\x00" + o.Spec.Region,
		fmt.Sprintf("endpoints of %s (%s) in %s", o.Spec.Service.Name, o.Spec.Service.Type, o.Spec.Region),
		append(fs, boolField("enabled", enabled(o.Spec.Enabled)))
}

func (endpointActuator) declarations(ctx context.Context, c client.Reader, ns string, opts ...client.ListOption) ([]*kv1.Endpoint, error) {
	return listOf(ctx, c, ns, &kv1.EndpointList{}, func(l *kv1.EndpointList) []*kv1.Endpoint { return ptrs(l.Items) }, opts)
}

var (
	_ declarer[*kv1.Domain]   = domainActuator{}
	_ declarer[*kv1.Project]  = projectActuator{}
	_ declarer[*kv1.Role]     = roleActuator{}
	_ declarer[*kv1.Group]    = groupActuator{}
	_ declarer[*kv1.User]     = userActuator{}
	_ declarer[*kv1.Service]  = serviceActuator{}
	_ declarer[*kv1.Endpoint] = endpointActuator{}
)
