package controlplane

import (
	"fmt"
	"slices"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/korc"
)

// Defaults of the plane (upstream c5c3, github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_esotenant.go and
// korc_cloudsyaml.go), applied when the
// ControlPlane leaves the field empty (the CRD defaults them too).
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
	// LabelControlPlane carries the owning ControlPlane's name (its namespace
	// is the object's, or, on a SecretStore in another namespace,
	// LabelControlPlaneNamespace).
	LabelControlPlane          = "c5c3.io/controlplane"
	LabelControlPlaneNamespace = "c5c3.io/controlplane-namespace"
)

// AuthURL is the Keystone v3 URL K-ORC and the token check use: External
// mode spec.services.keystone.external.authURL, Managed mode the in-cluster
// http://<cp>-keystone.<keystone namespace>.svc:5000/v3 (upstream korcAuthURL,
// github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/korc_cloudsyaml.go).
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

// EndpointType is the catalog interface K-ORC uses: internal in Managed mode,
// external.endpointType (default public) in External mode (upstream
// korcEndpointType, github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/korc_cloudsyaml.go).
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

// PasswordCloud is the admin password cloud written into both admin
// clouds.yaml Secrets. The CA bundle is not referenced by path: K-ORC reads
// it from the Secret's cacert key.
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

// SecretNames are the Secrets of its own namespace the plane reads or
// writes: the admin password Secret, the Keystone CA bundle Secret when
// spec names one, and the admin clouds.yaml Secrets (CloudsSecretNames).
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

// DomainImport is the admin Domain import (an unmanaged K-ORC Domain by
// name, docs/reference/controlplane.md, "Status"; upstream
// github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/korc_imports.go).
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

// ConsentedNamespaces are the namespaces the plane provisions a SecretStore
// in, sorted and deduplicated: its own, the dedicated Keystone and Horizon
// namespaces, and spec.korc.serviceRegistrations.allowedNamespaces
// (docs/reference/keystoneservice.md, "Namespace consent").
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

// StoreName is the namespaced SecretStore the plane provisions, and
// ok=false when spec.secretStoreRef names a ClusterSecretStore (nothing to
// provision per namespace).
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

// IsExternal reports an External-mode plane (spec.services.keystone.mode
// External): K-ORC's failures against it are classified (korc.ClassifyExternal).
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
