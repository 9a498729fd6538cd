package korc

import (
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Child is what every K-ORC child the hub projects has in common: its name
// and namespace (the ControlPlane's), ownership labels, and the clouds.yaml
// Secret K-ORC authenticates it with (resolved in the child's namespace).
type Child struct {
	Name      string
	Namespace string
	// Labels are the parent's ownership labels.
	Labels map[string]string
	// Credentials names the clouds.yaml Secret and cloud: the plane's admin
	// application-credential cloud for imports and probes, the admin password
	// cloud for managed children (docs/reference/controlplane.md, "Plane
	// contract").
	Credentials orcv1alpha1.CloudCredentialsReference
	// OnDelete applies to managed children: empty keeps K-ORC's default
	// (delete the OpenStack resource with the object), OnDeleteDetach keeps
	// it. Imports ignore it: K-ORC never deletes an unmanaged resource.
	OnDelete orcv1alpha1.OnDelete
}

func (c Child) managedOptions() *orcv1alpha1.ManagedOptions {
	if c.OnDelete == "" {
		return nil
	}
	return &orcv1alpha1.ManagedOptions{OnDelete: c.OnDelete}
}

// parts are the fields every K-ORC kind's object shares
// (github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1: each
// <Kind>Spec has managementPolicy, resource, import, managedOptions and
// cloudCredentialsRef; R is the kind's resource spec, I its import block). A
// managed child sets resource and options, an import sets imp; the others
// stay nil.
type parts[R, I any] struct {
	typeMeta    metav1.TypeMeta
	objectMeta  metav1.ObjectMeta
	policy      orcv1alpha1.ManagementPolicy
	resource    *R
	imp         *I
	options     *orcv1alpha1.ManagedOptions
	credentials orcv1alpha1.CloudCredentialsReference
}

// kind is one row of the per-kind table: the K-ORC Kind name, how the kind
// wraps an import filter F into its import block I, and how its object O is
// assembled from the shared parts.
type kind[O, R, F, I any] struct {
	name   string
	filter func(*F) *I
	object func(parts[R, I]) *O
}

func (k kind[O, R, F, I]) parts(c Child, policy orcv1alpha1.ManagementPolicy) parts[R, I] {
	return parts[R, I]{
		typeMeta:    metav1.TypeMeta{APIVersion: orcv1alpha1.SchemeGroupVersion.String(), Kind: k.name},
		objectMeta:  metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: c.Labels},
		policy:      policy,
		credentials: c.Credentials,
	}
}

// managed is the kind's managed child of resource r, carrying c's OnDelete.
func (k kind[O, R, F, I]) managed(c Child, r R) *O {
	p := k.parts(c, orcv1alpha1.ManagementPolicyManaged)
	p.resource, p.options = &r, c.managedOptions()
	return k.object(p)
}

// imported is the kind's unmanaged import by filter f (K-ORC never deletes
// an unmanaged resource, so it carries no managedOptions).
func (k kind[O, R, F, I]) imported(c Child, f F) *O {
	p := k.parts(c, orcv1alpha1.ManagementPolicyUnmanaged)
	p.imp = k.filter(&f)
	return k.object(p)
}

// The per-kind table: one row per K-ORC kind the hub projects.
var (
	serviceKind = kind[orcv1alpha1.Service, orcv1alpha1.ServiceResourceSpec, orcv1alpha1.ServiceFilter, orcv1alpha1.ServiceImport]{"Service",
		func(f *orcv1alpha1.ServiceFilter) *orcv1alpha1.ServiceImport {
			return &orcv1alpha1.ServiceImport{Filter: f}
		},
		func(p parts[orcv1alpha1.ServiceResourceSpec, orcv1alpha1.ServiceImport]) *orcv1alpha1.Service {
			return &orcv1alpha1.Service{TypeMeta: p.typeMeta, ObjectMeta: p.objectMeta, Spec: orcv1alpha1.ServiceSpec{ManagementPolicy: p.policy,
				Resource: p.resource, Import: p.imp, ManagedOptions: p.options, CloudCredentialsRef: p.credentials}}
		}}
	endpointKind = kind[orcv1alpha1.Endpoint, orcv1alpha1.EndpointResourceSpec, orcv1alpha1.EndpointFilter, orcv1alpha1.EndpointImport]{"Endpoint",
		func(f *orcv1alpha1.EndpointFilter) *orcv1alpha1.EndpointImport {
			return &orcv1alpha1.EndpointImport{Filter: f}
		},
		func(p parts[orcv1alpha1.EndpointResourceSpec, orcv1alpha1.EndpointImport]) *orcv1alpha1.Endpoint {
			return &orcv1alpha1.Endpoint{TypeMeta: p.typeMeta, ObjectMeta: p.objectMeta, Spec: orcv1alpha1.EndpointSpec{ManagementPolicy: p.policy,
				Resource: p.resource, Import: p.imp, ManagedOptions: p.options, CloudCredentialsRef: p.credentials}}
		}}
	userKind = kind[orcv1alpha1.User, orcv1alpha1.UserResourceSpec, orcv1alpha1.UserFilter, orcv1alpha1.UserImport]{"User",
		func(f *orcv1alpha1.UserFilter) *orcv1alpha1.UserImport { return &orcv1alpha1.UserImport{Filter: f} },
		func(p parts[orcv1alpha1.UserResourceSpec, orcv1alpha1.UserImport]) *orcv1alpha1.User {
			return &orcv1alpha1.User{TypeMeta: p.typeMeta, ObjectMeta: p.objectMeta, Spec: orcv1alpha1.UserSpec{ManagementPolicy: p.policy,
				Resource: p.resource, Import: p.imp, ManagedOptions: p.options, CloudCredentialsRef: p.credentials}}
		}}
	projectKind = kind[orcv1alpha1.Project, orcv1alpha1.ProjectResourceSpec, orcv1alpha1.ProjectFilter, orcv1alpha1.ProjectImport]{"Project",
		func(f *orcv1alpha1.ProjectFilter) *orcv1alpha1.ProjectImport {
			return &orcv1alpha1.ProjectImport{Filter: f}
		},
		func(p parts[orcv1alpha1.ProjectResourceSpec, orcv1alpha1.ProjectImport]) *orcv1alpha1.Project {
			return &orcv1alpha1.Project{TypeMeta: p.typeMeta, ObjectMeta: p.objectMeta, Spec: orcv1alpha1.ProjectSpec{ManagementPolicy: p.policy,
				Resource: p.resource, Import: p.imp, ManagedOptions: p.options, CloudCredentialsRef: p.credentials}}
		}}
	roleKind = kind[orcv1alpha1.Role, orcv1alpha1.RoleResourceSpec, orcv1alpha1.RoleFilter, orcv1alpha1.RoleImport]{"Role",
		func(f *orcv1alpha1.RoleFilter) *orcv1alpha1.RoleImport { return &orcv1alpha1.RoleImport{Filter: f} },
		func(p parts[orcv1alpha1.RoleResourceSpec, orcv1alpha1.RoleImport]) *orcv1alpha1.Role {
			return &orcv1alpha1.Role{TypeMeta: p.typeMeta, ObjectMeta: p.objectMeta, Spec: orcv1alpha1.RoleSpec{ManagementPolicy: p.policy,
				Resource: p.resource, Import: p.imp, ManagedOptions: p.options, CloudCredentialsRef: p.credentials}}
		}}
	domainKind = kind[orcv1alpha1.Domain, orcv1alpha1.DomainResourceSpec, orcv1alpha1.DomainFilter, orcv1alpha1.DomainImport]{"Domain",
		func(f *orcv1alpha1.DomainFilter) *orcv1alpha1.DomainImport {
			return &orcv1alpha1.DomainImport{Filter: f}
		},
		func(p parts[orcv1alpha1.DomainResourceSpec, orcv1alpha1.DomainImport]) *orcv1alpha1.Domain {
			return &orcv1alpha1.Domain{TypeMeta: p.typeMeta, ObjectMeta: p.objectMeta, Spec: orcv1alpha1.DomainSpec{ManagementPolicy: p.policy,
				Resource: p.resource, Import: p.imp, ManagedOptions: p.options, CloudCredentialsRef: p.credentials}}
		}}
)

// ManagedService is a managed K-ORC Service: K-ORC creates (or, on an exact
// name and type match, silently adopts: run a probe first) the catalog row
// and deletes it with the object.
func ManagedService(c Child, r orcv1alpha1.ServiceResourceSpec) *orcv1alpha1.Service {
	return serviceKind.managed(c, r)
}

// ImportService is an unmanaged K-ORC Service import by filter.
func ImportService(c Child, f orcv1alpha1.ServiceFilter) *orcv1alpha1.Service {
	return serviceKind.imported(c, f)
}

// ServiceProbe is the collision probe of a catalog entry: an import of the
// service of serviceType and name (docs/reference/keystoneservice.md,
// "Collision and adoption": the catalog probe matches on service type and
// effective name).
func ServiceProbe(c Child, serviceType, name string) *orcv1alpha1.Service {
	n := orcv1alpha1.OpenStackName(name)
	return ImportService(c, orcv1alpha1.ServiceFilter{Name: &n, Type: &serviceType})
}

// ManagedEndpoint is a managed K-ORC Endpoint (r.ServiceRef names the
// Service object in the same namespace).
func ManagedEndpoint(c Child, r orcv1alpha1.EndpointResourceSpec) *orcv1alpha1.Endpoint {
	return endpointKind.managed(c, r)
}

// ImportEndpoint is an unmanaged K-ORC Endpoint import by filter.
func ImportEndpoint(c Child, f orcv1alpha1.EndpointFilter) *orcv1alpha1.Endpoint {
	return endpointKind.imported(c, f)
}

// ManagedUser is a managed K-ORC User. r.PasswordRef names the
// generation-scoped password Secret (key password); K-ORC applies a password
// when that name changes (status.resource.appliedPasswordRef).
func ManagedUser(c Child, r orcv1alpha1.UserResourceSpec) *orcv1alpha1.User {
	return userKind.managed(c, r)
}

// ImportUser is an unmanaged K-ORC User import by filter.
func ImportUser(c Child, f orcv1alpha1.UserFilter) *orcv1alpha1.User {
	return userKind.imported(c, f)
}

// UserProbe is the collision probe of a service account's user: an import of
// the user name in the domain imported by the Domain object domainRef
// (docs/reference/keystoneservice.md, "Collision and adoption": the user probe
// matches on user name in the effective domain).
func UserProbe(c Child, name, domainRef string) *orcv1alpha1.User {
	n := orcv1alpha1.OpenStackName(name)
	return ImportUser(c, orcv1alpha1.UserFilter{Name: &n, DomainRef: optionalRef(domainRef)})
}

// ManagedProject is a managed K-ORC Project.
func ManagedProject(c Child, r orcv1alpha1.ProjectResourceSpec) *orcv1alpha1.Project {
	return projectKind.managed(c, r)
}

// ImportProject is an unmanaged K-ORC Project import by filter (a
// create: false project reference, or a probe).
func ImportProject(c Child, f orcv1alpha1.ProjectFilter) *orcv1alpha1.Project {
	return projectKind.imported(c, f)
}

// ProjectProbe is the collision probe of a create: true project: an import
// of the project name in the domain imported by domainRef.
func ProjectProbe(c Child, name, domainRef string) *orcv1alpha1.Project {
	n := orcv1alpha1.KeystoneName(name)
	return ImportProject(c, orcv1alpha1.ProjectFilter{Name: &n, DomainRef: optionalRef(domainRef)})
}

// optionalRef is a reference to the object name, nil for "" (no reference).
func optionalRef(name string) *orcv1alpha1.KubernetesNameRef {
	if name == "" {
		return nil
	}
	r := orcv1alpha1.KubernetesNameRef(name)
	return &r
}

// ManagedRole is a managed K-ORC Role. orderhub only imports roles (Keystone
// roles are global; docs/reference/keystoneservice.md,
// "KeystoneServiceAccountSpec", roles), but tests
// create them.
func ManagedRole(c Child, r orcv1alpha1.RoleResourceSpec) *orcv1alpha1.Role {
	return roleKind.managed(c, r)
}

// ImportRole is an unmanaged K-ORC Role import by filter.
func ImportRole(c Child, f orcv1alpha1.RoleFilter) *orcv1alpha1.Role {
	return roleKind.imported(c, f)
}

// RoleImportByName imports a role by name only, without a domain (roles
// are global; upstream c5c3 imports them this way,
// github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_serviceaccounts.go).
func RoleImportByName(c Child, name string) *orcv1alpha1.Role {
	n := orcv1alpha1.KeystoneName(name)
	return ImportRole(c, orcv1alpha1.RoleFilter{Name: &n})
}

// ManagedDomain is a managed K-ORC Domain. Deleting an enabled domain sticks
// (Keystone 403 "disable first"): set Enabled false before deleting.
func ManagedDomain(c Child, r orcv1alpha1.DomainResourceSpec) *orcv1alpha1.Domain {
	return domainKind.managed(c, r)
}

// ImportDomain is an unmanaged K-ORC Domain import by filter.
func ImportDomain(c Child, f orcv1alpha1.DomainFilter) *orcv1alpha1.Domain {
	return domainKind.imported(c, f)
}

// DomainImportByName imports a domain by name (e.g. the plane's admin domain).
func DomainImportByName(c Child, name string) *orcv1alpha1.Domain {
	n := orcv1alpha1.KeystoneName(name)
	return ImportDomain(c, orcv1alpha1.DomainFilter{Name: &n})
}
