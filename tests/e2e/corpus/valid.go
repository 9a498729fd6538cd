package corpus

import (
	"strings"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/webhooks"
)

// validHub is the corpus the API server (with the webhooks served) must
// admit: the examples of docs/reference/keystoneservice.md and
// docs/reference/keystoneapplicationcredential.md among others, plus the
// transitions those pages call benign. Assert pins what defaulting stored.
func validHub() Suite {
	ksExample := object(ksKind, "workflow", M{
		"controlPlaneRef": M{"name": "cp"},
		"catalog": M{
			"serviceType": "workflow",
			"endpoints": []any{
				M{"interface": "public", "url": "https://workflow-api.example.com:8989/v2"},
				M{"interface": "internal", "url": "http://workflow-api.openstack.svc.cluster.local:8989/v2"},
			},
		},
		"account": M{
			"project": M{"name": "service-workflow", "create": true},
			"roles":   []any{"service"},
		},
	})
	kacExample := kac("workflow-appcred")
	// The webhook's bound (webhooks.NameBound): with an account block 61
	// bytes (ESO's 128-byte field manager of the consumer Secret), with a
	// catalog block alone 63 (the label value every child carries).
	atBound := set(withName(ks("x"), strings.Repeat("b", webhooks.MaxDeliveryNameLength)), "spec.account.roles", nil)
	atBound = del(atBound, "spec.catalog")
	catalogAtBound := ksCatalogOnly(strings.Repeat("c", v1.MaxOwnerNameLength))

	f := []Fixture{
		{Name: "ks-reference-example", Rule: "docs/reference/keystoneservice.md Example; the defaulter materializes account.userName, the schema rotation.mode", Op: Create,
			Manifest: ksExample,
			Assert:   object(ksKind, "workflow", M{"account": M{"userName": "workflow", "rotation": M{"mode": "Manual"}, "project": M{"create": true}}})},
		{Name: "kac-reference-example", Rule: "docs/reference/keystoneapplicationcredential.md Example; schema defaults 720h, 24h and credentialGeneration 1", Op: Create,
			Manifest: kacExample,
			Assert:   object(kacKind, "workflow-appcred", M{"credentialGeneration": 1, "rotation": M{"interval": "720h", "gracePeriod": "24h"}})},
		{Name: "ks-catalog-only", Rule: "a catalog block alone (docs/reference/keystoneservice.md)", Op: Create, Manifest: ksCatalogOnly("ks-catalog-only")},
		{Name: "ks-account-only", Rule: "an account block alone with explicit names, 32 roles (docs/reference/keystoneservice.md)", Op: Create,
			Manifest: object(ksKind, "ks-account-only", M{
				"controlPlaneRef": M{"name": "cp", "namespace": "openstack"},
				"account": M{
					"userName": "svc-account-only", "domainName": "Default", "adopt": true,
					"project":  M{"name": strings.Repeat("p", 64)},
					"roles":    thirtyTwoRoles(),
					"rotation": M{"mode": "Scheduled"},
				},
			}),
			Assert: object(ksKind, "ks-account-only", M{"account": M{"userName": "svc-account-only"}})},
		{Name: "ks-name-at-bound", Rule: "metadata.name exactly at the webhook's bound with an account block (61 bytes) is admitted (docs/reference/keystoneservice.md, orderhub: limits)", Op: Create, Manifest: atBound},
		{Name: "ks-service-name-fallback-made-explicit", Rule: "setting serviceName to metadata.name keeps the effective value (docs/reference/keystoneservice.md)", Op: Update,
			Base: ks("ks-service-name-fallback-made-explicit"), Manifest: patch(ksKind, "ks-service-name-fallback-made-explicit", M{"catalog": M{"serviceName": "ks-service-name-fallback-made-explicit"}})},
		{Name: "ks-namespace-made-explicit", Rule: "an explicit controlPlaneRef.namespace naming the namespace the CR already resolved to changes nothing (docs/reference/keystoneservice.md, ControlPlaneRefSpec)", Op: Update,
			Base: ks("ks-namespace-made-explicit"), Manifest: patch(ksKind, "ks-namespace-made-explicit", M{"controlPlaneRef": M{"namespace": NamespaceBinding}})},
		{Name: "ks-mutable-fields", Rule: "adopt, endpoints, roles and rotation stay mutable (docs/reference/keystoneservice.md)", Op: Update,
			Base: ks("ks-mutable-fields"), Manifest: patch(ksKind, "ks-mutable-fields", M{
				"catalog": M{"adopt": true, "endpoints": []any{M{"interface": "admin", "url": "https://admin.example.com"}}},
				"account": M{"adopt": true, "roles": []any{"service", "reader"}, "rotation": M{"mode": "Scheduled"}},
			})},
		{Name: "ks-account-block-removed", Rule: "removing a block is its teardown, not an identity edit (docs/reference/keystoneservice.md)", Op: Update,
			Base: ks("ks-account-block-removed"), Manifest: patch(ksKind, "ks-account-block-removed", M{"account": nil})},
		{Name: "kac-schedule-off", Rule: "interval 0s turns the schedule off; the grace period may then exceed it (docs/reference/keystoneapplicationcredential.md)", Op: Create,
			Manifest: set(kac("kac-schedule-off"), "spec.rotation", M{"interval": "0s", "gracePeriod": "48h"})},
		{Name: "kac-generation-raised", Rule: "credentialGeneration may increase (docs/reference/keystoneapplicationcredential.md)", Op: Update,
			Base: kac("kac-generation-raised"), Manifest: patch(kacKind, "kac-generation-raised", M{"credentialGeneration": 2})},
		{Name: "kac-go-duration", Rule: "a Go client stores its Go form (720h0m0s) (docs/reference/keystoneapplicationcredential.md)", Op: Create,
			Manifest: set(kac("kac-go-duration"), "spec.rotation", M{"interval": "720h0m0s", "gracePeriod": "24h0m0s"})},
		{Name: "controlplane", Rule: "ControlPlane identity-plane subset with both consent lists (docs/reference/controlplane.md)", Op: Create,
			Manifest: set(controlPlane("cp"), "spec.services", M{"keystone": M{"mode": "External", "external": M{"authURL": "https://keystone.example.com:5000/v3"}}}),
			Assert:   object("ControlPlane", "cp", M{"region": "RegionOne", "korc": M{"adminCredential": M{"domainName": "Default", "userName": "admin"}}})},
		{Name: "keystoneuser", Rule: "KeystoneUser order (docs/reference/keystoneuser.md)", Op: Create,
			Manifest: set(user("workflow"), "spec.defaultProjectRef", M{"name": "workflow-project"}),
			Assert:   object("KeystoneUser", "workflow", M{"passwordGeneration": 1, "rotation": M{"interval": "0s"}})},
		{Name: "keystoneproject", Rule: "KeystoneProject order (docs/reference/keystoneproject.md)", Op: Create,
			Manifest: set(project("workflow-project"), "spec.description", "the workflow service's project")},
		{Name: "keystoneroleassignment", Rule: "KeystoneRoleAssignment order (docs/reference/keystoneroleassignment.md)", Op: Create,
			Manifest: assignment("workflow-member")},
		{Name: "credentialrotation-keystoneservice", Rule: "CredentialRotation of a KeystoneService account (issue 3)", Op: Create,
			Manifest: rotation("rotate-workflow", M{"target": "serviceAccountPassword", "keystoneService": "workflow", "reMint": true})},
		{Name: "credentialrotation-admin", Rule: "CredentialRotation of the admin application credential (docs/reference/credentialrotation.md)", Op: Create,
			Manifest: rotation("rotate-admin", M{"target": "adminApplicationCredential"})},
		{Name: "ks-catalog-name-at-bound", Rule: "metadata.name exactly at the webhook's bound with a catalog block alone (63 bytes) is admitted (docs/reference/keystoneservice.md, orderhub: limits)", Op: Create, Manifest: catalogAtBound},
	}
	return Suite{
		Dir:          "valid-hub-cr",
		Description:  "Admission acceptance corpus of the hub kinds: the examples of docs/reference and the transitions those pages call benign must be admitted, with the documented defaults stored. Needs the hub's webhooks registered.",
		NeedsWebhook: true,
		Fixtures:     f,
	}
}

func thirtyTwoRoles() []any {
	out := make([]any, 32)
	for i := range out {
		out[i] = "role-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return out
}
