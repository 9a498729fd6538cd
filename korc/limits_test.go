package korc

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// TestLimits_LongestAdmittedNamesFit derives every child name from the
// longest values admission lets through (owner names 63 bytes,
// c5c3v1alpha1.MaxOwnerNameLength; namespaces and cluster names 63; roles
// and domains 64 characters, KeystoneName; generations at 19 digits) and
// checks each is a valid object name: the label-value bound on the owner's
// name is the one that binds (docs/reference/keystoneservice.md and the
// order kinds' pages, "orderhub: limits").
func TestLimits_LongestAdmittedNamesFit(t *testing.T) {
	t.Parallel()
	name := strings.Repeat("n", c5c3v1alpha1.MaxOwnerNameLength)
	ns := strings.Repeat("s", validation.LabelValueMaxLength)
	cluster := strings.Repeat("c", validation.LabelValueMaxLength)
	gen := int64(1<<63 - 1)
	// Adversarial 64-character roles: one that needs the hash suffix, one
	// kept as is, one of multi-byte runes (dropped, only the hash is left).
	roles := []string{"L" + strings.Repeat("r", 63), strings.Repeat("r", 64), strings.Repeat("é", 64), strings.Repeat("a.", 32)}
	widestSlug := 0
	for _, r := range roles {
		widestSlug = max(widestSlug, len(RoleSlug(r)))
	}
	if widestSlug != 64+1+HashLength {
		t.Fatalf("widest RoleSlug of a 64-character role = %d bytes, want %d", widestSlug, 64+1+HashLength)
	}
	var names []string
	for _, r := range roles {
		names = append(names,
			OrderChildName(InfixRoleAssignment, cluster, ns, name, RoleDiscriminator(r)),
			RegistrationChildName(ns, name, AssignDiscriminator(r)),
			RegistrationChildName(ns, name, RoleDiscriminator(r)),
			AdminDomainImportName(name, r))
	}
	names = append(names,
		OrderChildName(InfixApplicationCredential, cluster, ns, name, CredentialDiscriminator(gen)),
		OrderChildName(InfixApplicationCredential, cluster, ns, name, SecretDiscriminator(gen)),
		OrderChildName(InfixApplicationCredential, cluster, ns, name, DiscMintCloud),
		OrderChildName(InfixUser, cluster, ns, name, PasswordDiscriminator(gen)),
		OrderChildName(InfixUser, cluster, ns, name, DiscUserProbe),
		OrderChildName(InfixProject, cluster, ns, name, DiscProjectProbe),
		RegistrationChildName(ns, name, PasswordDiscriminator(gen)),
		RegistrationChildName(ns, name, EndpointDiscriminator(c5c3v1alpha1.EndpointInterfaceInternal)),
		AdminPasswordCloudSecretName(name))
	longest := 0
	for _, n := range names {
		longest = max(longest, len(n))
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			t.Errorf("%s (%d bytes): %v", n, len(n), errs)
		}
	}
	if longest != 166 {
		t.Errorf("longest child name %d bytes, the docs' tables say 166", longest)
	}
	ks := &c5c3v1alpha1.KeystoneService{Spec: c5c3v1alpha1.KeystoneServiceSpec{
		Catalog: &c5c3v1alpha1.KeystoneServiceCatalogSpec{Endpoints: []c5c3v1alpha1.KeystoneServiceEndpointSpec{{Interface: "internal"}}},
		Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{Roles: []c5c3v1alpha1.KeystoneName{c5c3v1alpha1.KeystoneName(roles[0])}}}}
	if got := MaxRegistrationNameLength(ks); got <= c5c3v1alpha1.MaxOwnerNameLength {
		t.Errorf("MaxRegistrationNameLength = %d: the 253-byte bound binds below the label bound", got)
	}
}
