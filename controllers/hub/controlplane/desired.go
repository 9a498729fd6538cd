package controlplane

import (
	"fmt"
	"slices"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/korc"
)

// Defaults of the plane, equal to the CRD's and upstream c5c3's
// (github.com/blut/c5c3-forge operators/c5c3/internal/controller).
const (
	DefaultRegion          = "RegionOne"
	DefaultCloudName       = "admin"
	DefaultCloudsSecret    = "k-orc-clouds-yaml"
	DefaultPasswordSecret  = "keystone-admin"
	DefaultPasswordKey     = "password"
	DefaultAdminUser       = "admin"
	DefaultAdminProject    = "admin"
	DefaultAdminDomain     = "Default"
	DefaultCABundleKey     = "ca.crt"
	DefaultTenantStoreName = "openbao-tenant-store"
)

// Labels set on every object this reconciler writes.
const (
	LabelManagedBy      = "app.kubernetes.io/managed-by"
	LabelManagedByValue = "orderhub"
	// LabelControlPlane carries the owning ControlPlane's name (its namespace:
	// the object's, or LabelControlPlaneNamespace).
	LabelControlPlane          = "c5c3.io/controlplane"
	LabelControlPlaneNamespace = "c5c3.io/controlplane-namespace"
)

// AuthURL is the Keystone v3 URL K-ORC and the token check use: External
// mode's authURL, else http://<cp>-keystone.<keystone namespace>.svc:5000/v3.
func AuthURL(cp *c5c3v1alpha1.ControlPlane) string {
	if e := external(cp); e != nil {
		return e.AuthURL
	}
	ns := cp.Namespace
	if k := cp.Spec.Services.Keystone; k != nil && k.Namespace != nil && k.Namespace.Name != "" {
		ns = k.Namespace.Name
	}
	return fmt.Sprintf("http://%s-keystone.%s.svc:5000/v3", cp.Name, ns)
}

// EndpointType is the catalog interface K-ORC uses: internal in Managed
// mode, external.endpointType (default public) in External mode.
func EndpointType(cp *c5c3v1alpha1.ControlPlane) string {
	e := external(cp)
	if e == nil {
		return cloudsyaml.InterfaceInternal
	}
	if e.EndpointType == "" {
		return cloudsyaml.InterfacePublic
	}
	return string(e.EndpointType)
}

// Region is spec.region or RegionOne.
func Region(cp *c5c3v1alpha1.ControlPlane) string { return or(cp.Spec.Region, DefaultRegion) }

// CABundleRef is the Secret name and key of an External plane's CA bundle,
// or ok=false when none is configured.
func CABundleRef(cp *c5c3v1alpha1.ControlPlane) (name, key string, ok bool) {
	e := external(cp)
	if e == nil || e.CABundleSecretRef == nil {
		return "", "", false
	}
	return e.CABundleSecretRef.Name, or(e.CABundleSecretRef.Key, DefaultCABundleKey), true
}

// Admin is the plane's admin identity with defaults applied.
type Admin struct {
	CloudName, CloudsSecret     string
	PasswordSecret, PasswordKey string
	User, Project, Domain       string
}

// DomainOr is domain, or when empty the admin domain of plane cp (AdminOf;
// DefaultAdminDomain with cp nil, as when a deletion outlives its plane):
// an order's effective domain.
func DomainOr(domain string, cp *c5c3v1alpha1.ControlPlane) string {
	switch {
	case domain != "":
		return domain
	case cp == nil:
		return DefaultAdminDomain
	}
	return AdminOf(cp).Domain
}

// AdminOf reads spec.korc.adminCredential with defaults.
func AdminOf(cp *c5c3v1alpha1.ControlPlane) Admin {
	a := cp.Spec.KORC.AdminCredential
	return Admin{
		CloudName:      or(a.CloudCredentialsRef.CloudName, DefaultCloudName),
		CloudsSecret:   or(a.CloudCredentialsRef.SecretName, DefaultCloudsSecret),
		PasswordSecret: or(a.PasswordSecretRef.Name, DefaultPasswordSecret),
		PasswordKey:    or(a.PasswordSecretRef.Key, DefaultPasswordKey),
		User:           or(string(a.UserName), DefaultAdminUser),
		Project:        or(string(a.ProjectName), DefaultAdminProject),
		Domain:         or(string(a.DomainName), DefaultAdminDomain),
	}
}

// PasswordCloud is the admin password cloud of both admin clouds.yaml
// Secrets; K-ORC reads the CA bundle from the cacert key.
func PasswordCloud(cp *c5c3v1alpha1.ControlPlane, password string) cloudsyaml.Cloud {
	a := AdminOf(cp)
	return cloudsyaml.Password(cloudsyaml.PasswordParams{
		AuthURL: AuthURL(cp), Username: a.User, Password: password, UserDomainName: a.Domain,
		ProjectName: a.Project, ProjectDomainName: a.Domain, Region: Region(cp), Interface: EndpointType(cp),
	})
}

// CloudsSecretNames are the two admin clouds.yaml Secrets of the plane
// contract, deduplicated: cloudCredentialsRef.secretName and
// korc.AdminPasswordCloudSecretName(cp).
func CloudsSecretNames(cp *c5c3v1alpha1.ControlPlane) []string {
	names := []string{AdminOf(cp).CloudsSecret, korc.AdminPasswordCloudSecretName(cp.Name)}
	if names[0] == names[1] {
		return names[:1]
	}
	return names
}

// SecretNames are the Secrets of its namespace the plane reads or writes.
func SecretNames(cp *c5c3v1alpha1.ControlPlane) []string {
	names := append([]string{AdminOf(cp).PasswordSecret}, CloudsSecretNames(cp)...)
	if name, _, ok := CABundleRef(cp); ok {
		names = append(names, name)
	}
	return names
}

// Credentials is the reference K-ORC imports and probes of this plane
// authenticate with.
func Credentials(cp *c5c3v1alpha1.ControlPlane) orcv1alpha1.CloudCredentialsReference {
	a := AdminOf(cp)
	return orcv1alpha1.CloudCredentialsReference{SecretName: a.CloudsSecret, CloudName: a.CloudName}
}

// ImportChild is the K-ORC import or probe name in plane cp's namespace,
// labelled labels, authenticating with Credentials.
func ImportChild(cp *c5c3v1alpha1.ControlPlane, name string, labels map[string]string) korc.Child {
	return korc.Child{Name: name, Namespace: cp.Namespace, Labels: labels, Credentials: Credentials(cp)}
}

// ManagedChild is the K-ORC managed child name in plane cp's namespace,
// labelled labels, authenticating with the plane's admin password cloud
// (docs/reference/controlplane.md, "Plane contract").
func ManagedChild(cp *c5c3v1alpha1.ControlPlane, name string, labels map[string]string) korc.Child {
	return korc.Child{Name: name, Namespace: cp.Namespace, Labels: labels, Credentials: orcv1alpha1.CloudCredentialsReference{
		SecretName: korc.AdminPasswordCloudSecretName(cp.Name), CloudName: AdminOf(cp).CloudName}}
}

// DomainImport is the admin Domain import (docs/reference/controlplane.md, "Status").
func DomainImport(cp *c5c3v1alpha1.ControlPlane) *orcv1alpha1.Domain {
	a := AdminOf(cp)
	return korc.DomainImportByName(korc.Child{
		Name: korc.AdminDomainImportName(cp.Name, a.Domain), Namespace: cp.Namespace,
		Labels: Labels(cp), Credentials: Credentials(cp),
	}, a.Domain)
}

// Labels are the ownership labels of the plane's objects.
func Labels(cp *c5c3v1alpha1.ControlPlane) map[string]string {
	return map[string]string{LabelManagedBy: LabelManagedByValue, LabelControlPlane: cp.Name,
		LabelControlPlaneNamespace: cp.Namespace}
}

// ConsentedNamespaces are, sorted and deduplicated, the namespaces the plane
// provisions a SecretStore in (docs/reference/keystoneservice.md, "Namespace consent").
func ConsentedNamespaces(cp *c5c3v1alpha1.ControlPlane) []string {
	ns := []string{cp.Namespace}
	if k := cp.Spec.Services.Keystone; k != nil && k.Namespace != nil {
		ns = append(ns, k.Namespace.Name)
	}
	if h := cp.Spec.Services.Horizon; h != nil && h.Namespace != nil {
		ns = append(ns, h.Namespace.Name)
	}
	ns = append(ns, cp.Spec.KORC.ServiceRegistrations.AllowedNamespaces...)
	ns = slices.DeleteFunc(ns, func(s string) bool { return s == "" })
	slices.Sort(ns)
	return slices.Compact(ns)
}

// StoreName is the SecretStore the plane provisions per namespace; ok=false
// for a ClusterSecretStore.
func StoreName(cp *c5c3v1alpha1.ControlPlane) (string, bool) {
	r := cp.Spec.SecretStoreRef
	if r == nil {
		return DefaultTenantStoreName, true
	}
	if r.Kind != "SecretStore" {
		return "", false
	}
	return r.Name, true
}

// IsExternal reports an External-mode plane.
func IsExternal(cp *c5c3v1alpha1.ControlPlane) bool { return external(cp) != nil }

func external(cp *c5c3v1alpha1.ControlPlane) *c5c3v1alpha1.ExternalKeystoneSpec {
	k := cp.Spec.Services.Keystone
	if k == nil || k.Mode != c5c3v1alpha1.KeystoneModeExternal {
		return nil
	}
	return k.External
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
