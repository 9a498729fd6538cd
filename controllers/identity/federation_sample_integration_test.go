//go:build integration

package identity

import (
	"fmt"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
)

// TestFederationSample applies config/samples/identity/federation as a
// deployer would and reads each object back from Keystone: the provider in
// the sample's domain with its remote ID, the mapping, the protocol joining
// them, and the service provider (docs/identity.md, "Federation").
func TestFederationSample(t *testing.T) {
	objs := loadSamplesIn(t, "config/samples/identity/federation")
	if len(objs) != 5 {
		t.Fatalf("%d objects in the federation sample, want a Domain, an IdentityProvider, a Mapping, a Protocol and a ServiceProvider", len(objs))
	}
	for _, o := range objs {
		o.SetNamespace(testNS)
	}
	mustCreate(t, objs...)
	for _, o := range objs {
		k, ok := o.(kobj)
		if !ok {
			t.Fatalf("%T is no identity kind", o)
		}
		waitReady(t, k)
	}

	ds := listDomains(t, domains.ListOpts{Name: "sso-users"})
	if len(ds) != 1 {
		t.Fatalf("%d domains named sso-users in Keystone", len(ds))
	}
	checks := []struct {
		member string
		path   []string
		ok     func(o map[string]any) bool
	}{
		{"identity_provider", []string{"identity_providers", "corporate-sso"}, func(o map[string]any) bool {
			ids, _ := o["remote_ids"].([]any)
			return o["domain_id"] == ds[0].ID && o["enabled"] == true && len(ids) == 1 &&
				ids[0] == "https://sso.example.com/realms/openstack"
		}},
		{"mapping", []string{"mappings", "corporate-sso-oidc"}, func(o map[string]any) bool {
			rules, _ := o["rules"].([]any)
			return len(rules) == 1
		}},
		{"protocol", []string{"identity_providers", "corporate-sso", "protocols", "openid"}, func(o map[string]any) bool {
			return o["mapping_id"] == "corporate-sso-oidc"
		}},
		{"service_provider", []string{"service_providers", "region-two"}, func(o map[string]any) bool {
			return o["sp_url"] == "https://keystone.two.example/Shibboleth.sso/SAML2/ECP" && o["enabled"] == true
		}},
	}
	for _, c := range checks {
		o, found := ksFed(t, c.member, c.path...)
		if !found || !c.ok(o) {
			t.Errorf("Ready, but %s in Keystone: found %v, %v", c.member, found, fmt.Sprint(o))
		}
	}
}
