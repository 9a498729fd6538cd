package openbao

import (
	"fmt"
	"strings"
)

// DefaultKVMount is the KV v2 mount of the c5c3 deployment (upstream's tenant
// SecretStore uses path kv-v2: github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_esotenant.go). The test server mounts KV v2 at
// "secret" instead, so the mount is always a parameter.
const DefaultKVMount = "kv-v2"

// Properties (KV v2 data keys) of the documents pushed to the backup paths.
// They equal the data keys of the delivered Secrets.
const (
	// PropertyCloudsYAML holds the rendered clouds.yaml (both delivered Secrets).
	PropertyCloudsYAML = "clouds.yaml"
	// PropertyPassword holds a service account's password
	// (docs/reference/keystoneservice.md).
	PropertyPassword = "password"
	// PropertyApplicationCredentialID holds the credential id
	// (docs/reference/keystoneapplicationcredential.md).
	PropertyApplicationCredentialID = "application_credential_id"
	// PropertyApplicationCredentialSecret holds the credential secret
	// (docs/reference/keystoneapplicationcredential.md).
	PropertyApplicationCredentialSecret = "application_credential_secret"
)

// keystoneRoot is the common root of every Keystone backup path; the OpenBao
// policy of the tenant stores grants on openstack/keystone/<ns>/...
// (github.com/blut/c5c3-forge deploy/openbao/policies/eso-tenant.hcl).
const keystoneRoot = "openstack/keystone"

// ApplicationCredentialInfixSuffix ends the child prefix of a
// KeystoneApplicationCredential: <name>-<8hex>-applicationcredential.
const ApplicationCredentialInfixSuffix = "-applicationcredential"

// ServiceAccountCredentialsPath is the backing path of a KeystoneService
// account's consumer Secret <name>-credentials:
//
//	openstack/keystone/<namespace>/<name>/service-accounts/credentials
//
// Source: docs/reference/keystoneservice.md, "Consumer Secret
// contract", row "Backing path". namespace and name are the KeystoneService's
// own. It fails when a segment is empty or not a path-safe Kubernetes name.
func ServiceAccountCredentialsPath(namespace, name string) (string, error) {
	if err := segments(namespace, name); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s/%s/%s/service-accounts/credentials", keystoneRoot, namespace, name), nil
}

// ApplicationCredentialPath is the backing path of a
// KeystoneApplicationCredential's delivered Secret:
//
//	openstack/keystone/<controlplane namespace>/<name>-<hash>-applicationcredential/service-accounts/application-credential
//
// Source: docs/reference/keystoneapplicationcredential.md, "Delivered
// Secret contract", row "Backing path". childPrefix is the order's child
// prefix <name>-<8hex>-applicationcredential (korc.ChildPrefix with the
// applicationcredential infix); the push runs from the ControlPlane's
// namespace, where the order's children live. It fails when a segment is
// invalid or childPrefix does not end in -applicationcredential.
func ApplicationCredentialPath(controlPlaneNamespace, childPrefix string) (string, error) {
	return orderPath(controlPlaneNamespace, childPrefix, ApplicationCredentialInfixSuffix, "application-credential")
}

// UserInfixSuffix ends the child prefix of a KeystoneUser order:
// <name>-<8hex>-user.
const UserInfixSuffix = "-user"

// UserPasswordPath is the backing path of a KeystoneUser's delivered Secret:
//
//	openstack/keystone/<controlplane namespace>/<name>-<hash>-user/service-accounts/password
//
// Source: docs/reference/keystoneuser.md, "Delivered Secret contract", row
// "Backing path". childPrefix is the order's child prefix <name>-<8hex>-user
// (korc.ChildPrefix with the user infix). It fails when a segment is invalid
// or childPrefix does not end in -user.
func UserPasswordPath(controlPlaneNamespace, childPrefix string) (string, error) {
	return orderPath(controlPlaneNamespace, childPrefix, UserInfixSuffix, "password")
}

// orderPath is openstack/keystone/<controlplane namespace>/<childPrefix>/service-accounts/<leaf>
// for an order whose child prefix must end in suffix.
func orderPath(controlPlaneNamespace, childPrefix, suffix, leaf string) (string, error) {
	if err := segments(controlPlaneNamespace, childPrefix); err != nil {
		return "", err
	}
	if !strings.HasSuffix(childPrefix, suffix) || childPrefix == suffix {
		return "", fmt.Errorf("openbao: child prefix %q does not end in %s", childPrefix, suffix)
	}
	return fmt.Sprintf("%s/%s/%s/service-accounts/%s", keystoneRoot, controlPlaneNamespace, childPrefix, leaf), nil
}

// AdminApplicationCredentialPath is the backing path of a ControlPlane's admin
// application credential, the source of the k-orc-clouds-yaml Secret:
//
//	openstack/keystone/<namespace>/<controlplane>/admin/app-credential
//
// Source: upstream c5c3, not a reference page: github.com/blut/c5c3-forge
// operators/c5c3/internal/controller (the ControlPlane reconciler) and
// deploy/openbao/policies/eso-tenant.hcl.
func AdminApplicationCredentialPath(namespace, controlPlane string) (string, error) {
	if err := segments(namespace, controlPlane); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s/%s/%s/admin/app-credential", keystoneRoot, namespace, controlPlane), nil
}

// DataPath is the raw API path of a KV v2 secret's data under mount
// (<mount>/data/<path>), as OpenBao policies name it.
func DataPath(mount, path string) string { return mount + "/data/" + path }

// MetadataPath is the raw API path of a KV v2 secret's metadata under mount
// (<mount>/metadata/<path>).
func MetadataPath(mount, path string) string { return mount + "/metadata/" + path }

// segments checks that each path segment is a Kubernetes object name that
// cannot change the path's shape: non-empty, at most 253 bytes, lowercase
// alphanumerics, '-' and '.', and not "." or "..".
func segments(ss ...string) error {
	for _, s := range ss {
		if s == "" || s == "." || s == ".." || len(s) > 253 {
			return fmt.Errorf("openbao: invalid path segment %q", s)
		}
		for _, r := range s {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
				return fmt.Errorf("openbao: invalid path segment %q", s)
			}
		}
	}
	return nil
}
