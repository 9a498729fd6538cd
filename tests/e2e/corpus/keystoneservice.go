package corpus

import (
	"fmt"
	"strings"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/webhooks"
)

const ksKind = "KeystoneService"

// ks is a KeystoneService declaring both blocks, as in seed 001's example.
func ks(name string) M {
	return object(ksKind, name, M{
		"controlPlaneRef": M{"name": "cp"},
		"catalog": M{
			"serviceType": "workflow",
			"endpoints": []any{
				M{"interface": "public", "url": "https://workflow-api.example.com:8989/v2"},
			},
		},
		"account": M{
			"project": M{"name": "service-workflow", "create": true},
			"roles":   []any{"service"},
		},
	})
}

// ksCatalogOnly is a KeystoneService declaring only a catalog block.
func ksCatalogOnly(name string) M {
	return object(ksKind, name, M{
		"controlPlaneRef": M{"name": "cp"},
		"catalog":         M{"serviceType": "workflow"},
	})
}

func ksCreate(name, rule, msg string, mutate func(M) M) Fixture {
	return Fixture{Name: name, Rule: rule, Op: Create, Manifest: mutate(ks("ks-" + name)), Message: msg}
}

func ksUpdate(name, rule, msg string, base M, spec M) Fixture {
	obj := "ks-" + name
	return Fixture{Name: name, Rule: rule, Op: Update, Base: withName(base, obj), Manifest: patch(ksKind, obj, spec), Message: msg}
}

// invalidKeystoneService is the KeystoneService rejection corpus (seed 001
// "Defaulting and Validation Summary").
func invalidKeystoneService() Suite {
	long := func(n int) string { return strings.Repeat("a", n) }
	role64 := strings.Repeat("r", 64)
	// With one 64-character role the longest child is assign-<role>: the
	// bound is 253 - len("-<8hex>-registration-assign-" + role64).
	roleBoundName := strings.Repeat("n", 160)
	roleBound := 253 - (1 + 8 + 1 + len("registration") + 1 + len("assign-") + 64)
	// Catalog only, with an internal endpoint: the longest child is
	// endpoint-internal.
	catalogBoundName := strings.Repeat("c", 214)
	catalogBound := 253 - (1 + 8 + 1 + len("registration") + 1 + len("endpoint-internal"))

	f := []Fixture{
		// Spec-level CEL.
		ksCreate("no-block", "CEL has(self.catalog) || has(self.account) (seed 001 KeystoneServiceSpec)", v1.MsgKeystoneServiceNoBlock,
			func(m M) M { return del(del(m, "spec.catalog"), "spec.account") }),
		// controlPlaneRef.
		ksCreate("cpref-name-empty", "controlPlaneRef.name MinLength=1 (seed 001 ControlPlaneRefSpec)", msgMinLength("spec.controlPlaneRef.name", 1),
			func(m M) M { return set(m, "spec.controlPlaneRef.name", "") }),
		ksCreate("cpref-missing", "controlPlaneRef required (seed 001 KeystoneServiceSpec)", msgRequired("spec.controlPlaneRef"),
			func(m M) M { return del(m, "spec.controlPlaneRef") }),
		ksCreate("cpref-namespace-pattern", "controlPlaneRef.namespace RFC-1123 label (seed 001 ControlPlaneRefSpec)", msgPattern("spec.controlPlaneRef.namespace", reDNSLabel),
			func(m M) M { return set(m, "spec.controlPlaneRef.namespace", "Open_Stack") }),
		ksCreate("cpref-namespace-too-long", "controlPlaneRef.namespace <= 63 (seed 001 ControlPlaneRefSpec)", msgTooLong("spec.controlPlaneRef.namespace", 63),
			func(m M) M { return set(m, "spec.controlPlaneRef.namespace", long(64)) }),
		// catalog.
		ksCreate("service-type-identity", "CEL serviceType != identity (seed 001 KeystoneServiceCatalogSpec)", v1.MsgServiceTypeIdentity,
			func(m M) M { return set(m, "spec.catalog.serviceType", "identity") }),
		ksCreate("service-type-missing", "catalog.serviceType required (seed 001 KeystoneServiceCatalogSpec)", msgRequired("spec.catalog.serviceType"),
			func(m M) M { return del(m, "spec.catalog.serviceType") }),
		ksCreate("service-type-pattern", "catalog.serviceType DNS-1123 label pattern (seed 001)", msgPattern("spec.catalog.serviceType", reDNSLabel),
			func(m M) M { return set(m, "spec.catalog.serviceType", "Work_Flow") }),
		ksCreate("service-type-too-long", "catalog.serviceType <= 63 (seed 001)", msgTooLong("spec.catalog.serviceType", 63),
			func(m M) M { return set(m, "spec.catalog.serviceType", long(64)) }),
		ksCreate("service-name-comma", "catalog.serviceName ^[^,]+$ (seed 001, K-ORC OpenStackName)", msgPattern("spec.catalog.serviceName", reNoComma),
			func(m M) M { return set(m, "spec.catalog.serviceName", "work,flow") }),
		ksCreate("service-name-too-long", "catalog.serviceName <= 255 (seed 001, K-ORC OpenStackName)", msgTooLong("spec.catalog.serviceName", 255),
			func(m M) M { return set(m, "spec.catalog.serviceName", long(256)) }),
		ksCreate("endpoint-url-scheme", "endpoints[].url ^https?://[^\\s/]+ (seed 001 KeystoneServiceEndpointSpec)", msgPattern("spec.catalog.endpoints[0].url", reEndpointURL),
			func(m M) M {
				return set(m, "spec.catalog.endpoints", []any{M{"interface": "public", "url": "ftp://workflow.example.com"}})
			}),
		ksCreate("endpoint-url-too-long", "endpoints[].url <= 1024 bytes (seed 001, K-ORC EndpointResourceSpec.URL)", msgTooLong("spec.catalog.endpoints[0].url", 1024),
			func(m M) M {
				return set(m, "spec.catalog.endpoints", []any{M{"interface": "public", "url": "https://example.com/" + long(1005)}})
			}),
		ksCreate("endpoint-duplicate-interface", "listType=map keyed on interface (seed 001 KeystoneServiceCatalogSpec)", msgDuplicate("spec.catalog.endpoints[1]"),
			func(m M) M {
				return set(m, "spec.catalog.endpoints", []any{
					M{"interface": "public", "url": "https://a.example.com"},
					M{"interface": "public", "url": "https://b.example.com"},
				})
			}),
		ksCreate("endpoint-interface-enum", "endpoints[].interface public|internal|admin (seed 001)", msgUnsupported("spec.catalog.endpoints[0].interface", "private", "public", "internal", "admin"),
			func(m M) M {
				return set(m, "spec.catalog.endpoints", []any{M{"interface": "private", "url": "https://a.example.com"}})
			}),
		// account.
		ksCreate("user-name-comma", "account.userName ^[^,]+$ (seed 001, K-ORC OpenStackName)", msgPattern("spec.account.userName", reNoComma),
			func(m M) M { return set(m, "spec.account.userName", "work,flow") }),
		ksCreate("user-name-too-long", "account.userName <= 255 (seed 001, K-ORC OpenStackName)", msgTooLong("spec.account.userName", 255),
			func(m M) M { return set(m, "spec.account.userName", long(256)) }),
		ksCreate("domain-name-comma", "account.domainName ^[^,]+$ (seed 001)", msgPattern("spec.account.domainName", reNoComma),
			func(m M) M { return set(m, "spec.account.domainName", "De,fault") }),
		ksCreate("domain-name-too-long", "account.domainName <= 64 (K-ORC KeystoneName, issue 3)", msgTooLong("spec.account.domainName", 64),
			func(m M) M { return set(m, "spec.account.domainName", long(65)) }),
		ksCreate("project-missing", "account.project required (seed 001 KeystoneServiceAccountSpec)", msgRequired("spec.account.project"),
			func(m M) M { return del(m, "spec.account.project") }),
		ksCreate("project-name-comma", "account.project.name ^[^,]+$ (seed 001 ServiceAccountProjectSpec)", msgPattern("spec.account.project.name", reNoComma),
			func(m M) M { return set(m, "spec.account.project.name", "service,workflow") }),
		ksCreate("project-name-too-long", "account.project.name <= 64 (K-ORC KeystoneName, issue 3)", msgTooLong("spec.account.project.name", 64),
			func(m M) M { return set(m, "spec.account.project.name", long(65)) }),
		ksCreate("roles-too-many", "account.roles <= 32 entries (seed 001)", msgTooMany("spec.account.roles", 33, 32),
			func(m M) M {
				roles := make([]any, 33)
				for i := range roles {
					roles[i] = fmt.Sprintf("role-%02d", i)
				}
				return set(m, "spec.account.roles", roles)
			}),
		ksCreate("role-comma", "account.roles[] ^[^,]+$ (seed 001)", msgPattern("spec.account.roles[0]", reNoComma),
			func(m M) M { return set(m, "spec.account.roles", []any{"ser,vice"}) }),
		ksCreate("role-too-long", "account.roles[] <= 64 (K-ORC KeystoneName, issue 3)", msgTooLong("spec.account.roles[0]", 64),
			func(m M) M { return set(m, "spec.account.roles", []any{long(65)}) }),
		ksCreate("role-duplicate", "account.roles listType=set: one Role import and one assignment per role", msgDuplicate("spec.account.roles[1]"),
			func(m M) M { return set(m, "spec.account.roles", []any{"service", "service"}) }),
		ksCreate("rotation-mode-enum", "account.rotation.mode Manual|Scheduled (seed 001 ServiceAccountRotationSpec)", msgUnsupported("spec.account.rotation.mode", "Daily", "Manual", "Scheduled"),
			func(m M) M { return set(m, "spec.account.rotation", M{"mode": "Daily"}) }),
		// Webhook: metadata.name bound.
		{
			Name: "name-bound-roles", Rule: "webhook: metadata.name bound from the longest child, roles included (seed 001 Validating webhook)", Op: Create,
			Manifest: set(withName(ks("x"), roleBoundName), "spec.account.roles", []any{role64}),
			Message:  fmt.Sprintf(webhooks.MsgNameTooLong, roleBound, "assign-"+role64, 254),
		},
		{
			Name: "name-bound-catalog", Rule: "webhook: metadata.name bound, catalog block with an internal endpoint (seed 001 Validating webhook)", Op: Create,
			Manifest: set(withName(ksCatalogOnly("x"), catalogBoundName), "spec.catalog.endpoints", []any{M{"interface": "internal", "url": "http://wf.svc:8989"}}),
			Message:  fmt.Sprintf(webhooks.MsgNameTooLong, catalogBound, "endpoint-internal", 254),
		},
		// Transition rules (CEL).
		ksUpdate("cpref-name-immutable", "CEL transition controlPlaneRef.name (seed 001 ControlPlaneRefSpec)", v1.MsgControlPlaneRefNameImmutable,
			ks(""), M{"controlPlaneRef": M{"name": "other-cp"}}),
		ksUpdate("service-type-immutable", "CEL transition catalog.serviceType (seed 001 Why the identity fields freeze)", v1.MsgServiceTypeImmutable,
			ks(""), M{"catalog": M{"serviceType": "workflow-v2"}}),
		ksUpdate("service-name-immutable", "CEL transition catalog.serviceName (seed 001)", v1.MsgServiceNameImmutable,
			set(ks(""), "spec.catalog.serviceName", "workflow-a"), M{"catalog": M{"serviceName": "workflow-b"}}),
		ksUpdate("user-name-immutable", "CEL transition account.userName (the defaulter materialized it at create) (seed 001)", v1.MsgUserNameImmutable,
			ks(""), M{"account": M{"userName": "someone-else"}}),
		ksUpdate("domain-name-set", "CEL account.domainName immutable as declared: setting it is rejected even naming the admin domain (seed 001)", v1.MsgAccountDomainNameImmutable,
			ks(""), M{"account": M{"domainName": "Default"}}),
		ksUpdate("domain-name-changed", "CEL account.domainName immutable (seed 001)", v1.MsgAccountDomainNameImmutable,
			set(ks(""), "spec.account.domainName", "Default"), M{"account": M{"domainName": "Other"}}),
		ksUpdate("domain-name-removed", "CEL account.domainName immutable: removing it re-resolves the domain (seed 001)", v1.MsgAccountDomainNameImmutable,
			set(ks(""), "spec.account.domainName", "Default"), M{"account": M{"domainName": nil}}),
		ksUpdate("project-name-immutable", "CEL transition account.project.name (seed 001 ServiceAccountProjectSpec)", v1.MsgProjectNameImmutable,
			ks(""), M{"account": M{"project": M{"name": "service-other"}}}),
		ksUpdate("project-create-immutable", "CEL transition account.project.create (seed 001 ServiceAccountProjectSpec)", v1.MsgProjectCreateImmutable,
			ks(""), M{"account": M{"project": M{"create": false}}}),
		// Transition rules only the webhook holds.
		ksUpdate("service-name-set-on-fallback", "webhook: effective catalog.serviceName; setting it on a CR relying on metadata.name is a rename (seed 001)",
			fmt.Sprintf(webhooks.MsgServiceNameEffective, "ks-service-name-set-on-fallback", "renamed"),
			ks(""), M{"catalog": M{"serviceName": "renamed"}}),
		ksUpdate("service-name-removed", "webhook: effective catalog.serviceName; removing it falls back to metadata.name (seed 001)",
			fmt.Sprintf(webhooks.MsgServiceNameEffective, "workflow-explicit", "ks-service-name-removed"),
			set(ks(""), "spec.catalog.serviceName", "workflow-explicit"), M{"catalog": M{"serviceName": nil}}),
		ksUpdate("cpref-namespace-set", "webhook: controlPlaneRef.namespace freeze by resolved value (seed 001 ControlPlaneRefSpec)", webhooks.MsgControlPlaneNamespaceResolved,
			ks(""), M{"controlPlaneRef": M{"namespace": "elsewhere"}}),
		ksUpdate("cpref-namespace-changed", "webhook: controlPlaneRef.namespace freeze (seed 001 ControlPlaneRefSpec)", webhooks.MsgControlPlaneNamespaceResolved,
			set(ks(""), "spec.controlPlaneRef.namespace", "openstack"), M{"controlPlaneRef": M{"namespace": "elsewhere"}}),
		ksUpdate("cpref-namespace-removed", "webhook: controlPlaneRef.namespace freeze; removing it resolves to the CR's own namespace (seed 001)", webhooks.MsgControlPlaneNamespaceResolved,
			set(ks(""), "spec.controlPlaneRef.namespace", "openstack"), M{"controlPlaneRef": M{"namespace": nil}}),
	}
	return Suite{
		Dir:          "invalid-keystoneservice-cr",
		Description:  "Admission rejection corpus of KeystoneService (seed 001): every CRD rule and every validating-webhook rule, each message asserted verbatim. Needs the hub's webhooks registered.",
		NeedsWebhook: true,
		Fixtures:     f,
	}
}
