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

func (c Child) meta(kind string) (metav1.TypeMeta, metav1.ObjectMeta) {
	return metav1.TypeMeta{APIVersion: orcv1alpha1.SchemeGroupVersion.String(), Kind: kind},
		metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: c.Labels}
}

func (c Child) managedOptions() *orcv1alpha1.ManagedOptions {
	if c.OnDelete == "" {
		return nil
	}
	return &orcv1alpha1.ManagedOptions{OnDelete: c.OnDelete}
}

// ManagedService is a managed K-ORC Service: K-ORC creates (or, on an exact
// name and type match, silently adopts: run a probe first) the catalog row
// and deletes it with the object.
func ManagedService(c Child, r orcv1alpha1.ServiceResourceSpec) *orcv1alpha1.Service {
	tm, om := c.meta("Service")
	return &orcv1alpha1.Service{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.ServiceSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyManaged, Resource: &r,
		ManagedOptions: c.managedOptions(), CloudCredentialsRef: c.Credentials}}
}

// ImportService is an unmanaged K-ORC Service import by filter.
func ImportService(c Child, f orcv1alpha1.ServiceFilter) *orcv1alpha1.Service {
	tm, om := c.meta("Service")
	return &orcv1alpha1.Service{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.ServiceSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyUnmanaged, Import: &orcv1alpha1.ServiceImport{Filter: &f},
		CloudCredentialsRef: c.Credentials}}
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
	tm, om := c.meta("Endpoint")
	return &orcv1alpha1.Endpoint{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.EndpointSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyManaged, Resource: &r,
		ManagedOptions: c.managedOptions(), CloudCredentialsRef: c.Credentials}}
}

// ImportEndpoint is an unmanaged K-ORC Endpoint import by filter.
func ImportEndpoint(c Child, f orcv1alpha1.EndpointFilter) *orcv1alpha1.Endpoint {
	tm, om := c.meta("Endpoint")
	return &orcv1alpha1.Endpoint{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.EndpointSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyUnmanaged, Import: &orcv1alpha1.EndpointImport{Filter: &f},
		CloudCredentialsRef: c.Credentials}}
}

// ManagedUser is a managed K-ORC User. r.PasswordRef names the
// generation-scoped password Secret (key password); K-ORC applies a password
// when that name changes (status.resource.appliedPasswordRef).
func ManagedUser(c Child, r orcv1alpha1.UserResourceSpec) *orcv1alpha1.User {
	tm, om := c.meta("User")
	return &orcv1alpha1.User{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.UserSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyManaged, Resource: &r,
		ManagedOptions: c.managedOptions(), CloudCredentialsRef: c.Credentials}}
}

// ImportUser is an unmanaged K-ORC User import by filter.
func ImportUser(c Child, f orcv1alpha1.UserFilter) *orcv1alpha1.User {
	tm, om := c.meta("User")
	return &orcv1alpha1.User{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.UserSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyUnmanaged, Import: &orcv1alpha1.UserImport{Filter: &f},
		CloudCredentialsRef: c.Credentials}}
}

// UserProbe is the collision probe of a service account's user: an import of
// the user name in the domain imported by the Domain object domainRef
// (docs/reference/keystoneservice.md, "Collision and adoption": the user probe
// matches on user name in the effective domain).
func UserProbe(c Child, name, domainRef string) *orcv1alpha1.User {
	n := orcv1alpha1.OpenStackName(name)
	f := orcv1alpha1.UserFilter{Name: &n}
	if domainRef != "" {
		d := orcv1alpha1.KubernetesNameRef(domainRef)
		f.DomainRef = &d
	}
	return ImportUser(c, f)
}

// ManagedProject is a managed K-ORC Project.
func ManagedProject(c Child, r orcv1alpha1.ProjectResourceSpec) *orcv1alpha1.Project {
	tm, om := c.meta("Project")
	return &orcv1alpha1.Project{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.ProjectSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyManaged, Resource: &r,
		ManagedOptions: c.managedOptions(), CloudCredentialsRef: c.Credentials}}
}

// ImportProject is an unmanaged K-ORC Project import by filter (a
// create: false project reference, or a probe).
func ImportProject(c Child, f orcv1alpha1.ProjectFilter) *orcv1alpha1.Project {
	tm, om := c.meta("Project")
	return &orcv1alpha1.Project{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.ProjectSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyUnmanaged, Import: &orcv1alpha1.ProjectImport{Filter: &f},
		CloudCredentialsRef: c.Credentials}}
}

// ProjectProbe is the collision probe of a create: true project: an import
// of the project name in the domain imported by domainRef.
func ProjectProbe(c Child, name, domainRef string) *orcv1alpha1.Project {
	n := orcv1alpha1.KeystoneName(name)
	f := orcv1alpha1.ProjectFilter{Name: &n}
	if domainRef != "" {
		d := orcv1alpha1.KubernetesNameRef(domainRef)
		f.DomainRef = &d
	}
	return ImportProject(c, f)
}

// ManagedRole is a managed K-ORC Role. orderhub only imports roles (Keystone
// roles are global; docs/reference/keystoneservice.md,
// "KeystoneServiceAccountSpec", roles), but tests
// create them.
func ManagedRole(c Child, r orcv1alpha1.RoleResourceSpec) *orcv1alpha1.Role {
	tm, om := c.meta("Role")
	return &orcv1alpha1.Role{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.RoleSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyManaged, Resource: &r,
		ManagedOptions: c.managedOptions(), CloudCredentialsRef: c.Credentials}}
}

// ImportRole is an unmanaged K-ORC Role import by filter.
func ImportRole(c Child, f orcv1alpha1.RoleFilter) *orcv1alpha1.Role {
	tm, om := c.meta("Role")
	return &orcv1alpha1.Role{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.RoleSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyUnmanaged, Import: &orcv1alpha1.RoleImport{Filter: &f},
		CloudCredentialsRef: c.Credentials}}
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
	tm, om := c.meta("Domain")
	return &orcv1alpha1.Domain{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.DomainSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyManaged, Resource: &r,
		ManagedOptions: c.managedOptions(), CloudCredentialsRef: c.Credentials}}
}

// ImportDomain is an unmanaged K-ORC Domain import by filter.
func ImportDomain(c Child, f orcv1alpha1.DomainFilter) *orcv1alpha1.Domain {
	tm, om := c.meta("Domain")
	return &orcv1alpha1.Domain{TypeMeta: tm, ObjectMeta: om, Spec: orcv1alpha1.DomainSpec{
		ManagementPolicy: orcv1alpha1.ManagementPolicyUnmanaged, Import: &orcv1alpha1.DomainImport{Filter: &f},
		CloudCredentialsRef: c.Credentials}}
}

// DomainImportByName imports a domain by name (e.g. the plane's admin domain).
func DomainImportByName(c Child, name string) *orcv1alpha1.Domain {
	n := orcv1alpha1.KeystoneName(name)
	return ImportDomain(c, orcv1alpha1.DomainFilter{Name: &n})
}
