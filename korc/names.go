// Package korc holds what the hub's reconcilers and its admission webhook
// share about K-ORC children: how they are named, first of all.
package korc

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// MaxObjectNameLength is the API server's limit on an object name (a DNS-1123
// subdomain), in bytes.
const MaxObjectNameLength = 253

// HashLength is the number of hex digits of the per-owner hash in a child
// name.
const HashLength = 8

// Infixes name the owning kind inside a child name, so that
// `kubectl get users -n <controlplane-namespace>` reads as the owner each
// child belongs to.
const (
	// InfixRegistration marks children of a KeystoneService
	// (docs/reference/keystoneservice.md, "Projected child names").
	InfixRegistration = "registration"
	// InfixApplicationCredential marks children of a
	// KeystoneApplicationCredential
	// (docs/reference/keystoneapplicationcredential.md, "Projected child
	// names").
	InfixApplicationCredential = "applicationcredential"
	// InfixUser marks children of a KeystoneUser order.
	InfixUser = "user"
	// InfixProject marks children of a KeystoneProject order.
	InfixProject = "project"
	// InfixRoleAssignment marks children of a KeystoneRoleAssignment order.
	InfixRoleAssignment = "roleassignment"
)

// Fixed discriminators of KeystoneService children
// (docs/reference/keystoneservice.md, "Projected child names"). Together with
// EndpointDiscriminator, RoleDiscriminator, AssignDiscriminator and
// PasswordDiscriminator they are the complete inventory:
// RegistrationDiscriminators enumerates it for one CR, and the validating
// webhook bounds metadata.name by it. A reconciler that projects a child under
// any other discriminator must add it here first, or the bound no longer holds.
const (
	// DiscDomain is the import of the account's domain when it is not the
	// plane's admin domain (whose import the ControlPlane owns).
	DiscDomain       = "domain"
	DiscUser         = "user"
	DiscUserProbe    = "user-probe"
	DiscProject      = "project"
	DiscProjectProbe = "project-probe"
	DiscService      = "service"
	DiscServiceProbe = "service-probe"
	// DiscSource is the Secret the account's backup pushes.
	DiscSource = "source"
	// DiscBackup is the PushSecret writing the account to OpenBao.
	DiscBackup = "backup"
	// DiscDelivery is the ExternalSecret materializing the consumer Secret.
	DiscDelivery = "delivery"
)

// Fixed discriminators of KeystoneApplicationCredential children
// (docs/reference/keystoneapplicationcredential.md, "Projected child names"),
// besides SecretDiscriminator and CredentialDiscriminator.
const (
	// DiscMintCloud is the user's password clouds.yaml K-ORC mints with.
	DiscMintCloud = "mint-cloud"
)

// maxGenerationDigits is the width of the largest int64, the worst case of a
// generation number embedded in a child name.
const maxGenerationDigits = 19

// ShortHash is the first HashLength hex digits of the SHA-256 of key.
func ShortHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])[:HashLength]
}

// RegistrationKey is the stable key a KeystoneService's child names hash:
// "<namespace>/<name>", so two same-named registrations in different
// namespaces never share a child name (docs/reference/keystoneservice.md).
func RegistrationKey(namespace, name string) string {
	return namespace + "/" + name
}

// OrderKey is the stable key an order's child names hash:
// "<cluster>/<namespace>/<name>", cluster empty for the management cluster
// (docs/reference/keystoneapplicationcredential.md).
func OrderKey(cluster, namespace, name string) string {
	return cluster + "/" + namespace + "/" + name
}

// ChildPrefix is "<name>-<ShortHash(key)>-<infix>-", the prefix every child of
// one owner carries; prune sweeps match on it.
func ChildPrefix(name, key, infix string) string {
	return name + "-" + ShortHash(key) + "-" + infix + "-"
}

// ChildName is ChildPrefix(name, key, infix) + discriminator.
func ChildName(name, key, infix, discriminator string) string {
	return ChildPrefix(name, key, infix) + discriminator
}

// ChildNameLength is len(ChildName(name, key, infix, discriminator)) without
// building it: the hash has a fixed width.
func ChildNameLength(nameLen int, infix, discriminator string) int {
	return nameLen + 1 + HashLength + 1 + len(infix) + 1 + len(discriminator)
}

// RegistrationChildName is the name of a KeystoneService child:
// "<name>-<8hex of namespace/name>-registration-<discriminator>". Children
// live in the ControlPlane's namespace.
func RegistrationChildName(namespace, name, discriminator string) string {
	return ChildName(name, RegistrationKey(namespace, name), InfixRegistration, discriminator)
}

// OrderChildName is the name of a child of an order kind:
// "<name>-<8hex of cluster/namespace/name>-<infix>-<discriminator>".
func OrderChildName(infix, cluster, namespace, name, discriminator string) string {
	return ChildName(name, OrderKey(cluster, namespace, name), infix, discriminator)
}

// EndpointDiscriminator is "endpoint-<interface>".
func EndpointDiscriminator(iface c5c3v1alpha1.EndpointInterface) string {
	return "endpoint-" + string(iface)
}

// RoleDiscriminator is "role-<RoleSlug(role)>", the K-ORC Role import of one
// role.
func RoleDiscriminator(role string) string { return "role-" + RoleSlug(role) }

// ScopeRoleDiscriminator is "role-<ShortHash(role)>", the K-ORC Role import
// an application credential's spec.roles entry names (fixed width, so any
// role name fits the child-name limit).
func ScopeRoleDiscriminator(role string) string { return "role-" + ShortHash(role) }

// ScopeServiceDiscriminator is "service-<ShortHash(serviceType)>", the K-ORC
// Service import an application credential's access rule names.
func ScopeServiceDiscriminator(serviceType string) string {
	return "service-" + ShortHash(serviceType)
}

// AssignDiscriminator is "assign-<RoleSlug(role)>", the role assignment of
// one role.
func AssignDiscriminator(role string) string { return "assign-" + RoleSlug(role) }

// PasswordDiscriminator is "password-v<generation>", the generation-scoped
// password Secret.
func PasswordDiscriminator(generation int64) string {
	return "password-v" + strconv.FormatInt(generation, 10)
}

// SecretDiscriminator is "secret-v<generation>", the secret of one
// application-credential generation.
func SecretDiscriminator(generation int64) string {
	return "secret-v" + strconv.FormatInt(generation, 10)
}

// CredentialDiscriminator is "credential-v<generation>", the K-ORC
// ApplicationCredential of one generation.
func CredentialDiscriminator(generation int64) string {
	return "credential-v" + strconv.FormatInt(generation, 10)
}

// RoleSlug maps a Keystone role name (any characters but a comma) to a
// DNS-1123 label fragment: ASCII letters (lowercased) and digits are kept,
// every other run of characters becomes one '-', and leading and trailing '-' are
// trimmed. When that loses information (the slug differs from the role name)
// "-<ShortHash(role)>" is appended, so roles differing only in case or
// punctuation (Member, member) still get distinct children. The result is at
// most runes(role)+1+HashLength bytes, starts and ends with an alphanumeric,
// and is never empty.
func RoleSlug(role string) string {
	var b strings.Builder
	dash := false
	for _, r := range role {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r - 'A' + 'a')
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
		}
	}
	slug := strings.TrimRight(b.String(), "-")
	if slug == role {
		return slug
	}
	if slug == "" {
		return ShortHash(role)
	}
	return slug + "-" + ShortHash(role)
}

// RegistrationDiscriminators lists the discriminator of every child the
// KeystoneService ks will project over its lifetime, with the password
// generation at its widest (19 digits). The catalog block contributes the
// service and its probe and one endpoint per declared interface; the account
// block the user, the project (and their probes), the password, backup and
// delivery objects, and one role import and one assignment per role.
func RegistrationDiscriminators(ks *c5c3v1alpha1.KeystoneService) []string {
	var out []string
	if c := ks.Spec.Catalog; c != nil {
		out = append(out, DiscService, DiscServiceProbe)
		for _, ep := range c.Endpoints {
			out = append(out, EndpointDiscriminator(ep.Interface))
		}
	}
	if a := ks.Spec.Account; a != nil {
		out = append(out, DiscDomain, DiscUser, DiscUserProbe, DiscProject, DiscProjectProbe,
			"password-v"+strings.Repeat("9", maxGenerationDigits), DiscSource, DiscBackup, DiscDelivery)
		for _, r := range a.Roles {
			out = append(out, RoleDiscriminator(string(r)), AssignDiscriminator(string(r)))
		}
	}
	return out
}

// LongestRegistrationDiscriminator is the longest of
// RegistrationDiscriminators(ks) (the first one on a tie), or "" when ks
// declares no block.
func LongestRegistrationDiscriminator(ks *c5c3v1alpha1.KeystoneService) string {
	longest := ""
	for _, d := range RegistrationDiscriminators(ks) {
		if len(d) > len(longest) {
			longest = d
		}
	}
	return longest
}

// MaxRegistrationNameLength is the largest metadata.name, in bytes, for which
// every child ks projects stays within MaxObjectNameLength: 253 minus the
// overhead "-<8hex>-registration-<longest discriminator>".
func MaxRegistrationNameLength(ks *c5c3v1alpha1.KeystoneService) int {
	return MaxObjectNameLength - ChildNameLength(0, InfixRegistration, LongestRegistrationDiscriminator(ks))
}

// AdminPasswordCloudSecretName is "<cp>-admin-password-cloud", the plane's
// admin password clouds.yaml Secret every managed child authenticates with
// (docs/reference/controlplane.md, "Plane contract").
func AdminPasswordCloudSecretName(controlPlane string) string {
	return controlPlane + "-admin-password-cloud"
}

// AdminDomainImportName is "<cp>-domain-<RoleSlug(lowercased domain)>", the
// plane's admin Domain import (docs/reference/controlplane.md, "Plane
// contract": <cp>-domain-default for the domain Default). A plane has one admin
// domain, so case is not distinguished.
func AdminDomainImportName(controlPlane, domain string) string {
	return controlPlane + "-domain-" + RoleSlug(strings.ToLower(domain))
}
