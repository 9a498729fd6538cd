package corpus

import (
	"fmt"
	"strings"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/webhooks"
)

const ksKind = "KeystoneService"

// ks is a KeystoneService declaring both blocks, as in the example of
// docs/reference/keystoneservice.md.
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

// invalidKeystoneService is the KeystoneService rejection corpus
// (docs/reference/keystoneservice.md, "Defaulting and Validation Summary").
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
		ksCreate("no-block", "CEL has(self.catalog) || has(self.account) (docs/reference/keystoneservice.md, KeystoneServiceSpec)", v1.MsgKeystoneServiceNoBlock,
			func(m M) M { return del(del(m, "spec.catalog"), "spec.account") }),
		// controlPlaneRef.
		ksCreate("cpref-name-empty", "controlPlaneRef.name MinLength=1 (docs/reference/keystoneservice.md, ControlPlaneRefSpec)", msgMinLength("spec.controlPlaneRef.name", 1),
			func(m M) M { return set(m, "spec.controlPlaneRef.name", "") }),
		ksCreate("cpref-missing", "controlPlaneRef required (docs/reference/keystoneservice.md, KeystoneServiceSpec)", msgRequired("spec.controlPlaneRef"),
			func(m M) M { return del(m, "spec.controlPlaneRef") }),
		ksCreate("cpref-namespace-pattern", "controlPlaneRef.namespace RFC-1123 label (docs/reference/keystoneservice.md, ControlPlaneRefSpec)", msgPattern("spec.controlPlaneRef.namespace", reDNSLabel),
			func(m M) M { return set(m, "spec.controlPlaneRef.namespace", "Open_Stack") }),
		ksCreate("cpref-namespace-too-long", "controlPlaneRef.namespace <= 63 (docs/reference/keystoneservice.md, ControlPlaneRefSpec)", msgTooLong("spec.controlPlaneRef.namespace", 63),
			func(m M) M { return set(m, "spec.controlPlaneRef.namespace", long(64)) }),
		// catalog.
		ksCreate("service-type-identity", "CEL serviceType != identity (docs/reference/keystoneservice.md, KeystoneServiceCatalogSpec)", v1.MsgServiceTypeIdentity,
			func(m M) M { return set(m, "spec.catalog.serviceType", "identity") }),
		ksCreate("service-type-missing", "catalog.serviceType required (docs/reference/keystoneservice.md, KeystoneServiceCatalogSpec)", msgRequired("spec.catalog.serviceType"),
			func(m M) M { return del(m, "spec.catalog.serviceType") }),
		ksCreate("service-type-pattern", "catalog.serviceType DNS-1123 label pattern (docs/reference/keystoneservice.md)", msgPattern("spec.catalog.serviceType", reDNSLabel),
			func(m M) M { return set(m, "spec.catalog.serviceType", "Work_Flow") }),
		ksCreate("service-type-too-long", "catalog.serviceType <= 63 (docs/reference/keystoneservice.md)", msgTooLong("spec.catalog.serviceType", 63),
			func(m M) M { return set(m, "spec.catalog.serviceType", long(64)) }),
		ksCreate("service-name-comma", "catalog.serviceName ^[^,]+$ (docs/reference/keystoneservice.md; K-ORC OpenStackName)", msgPattern("spec.catalog.serviceName", reNoComma),
			func(m M) M { return set(m, "spec.catalog.serviceName", "work,flow") }),
		ksCreate("service-name-too-long", "catalog.serviceName <= 255 (docs/reference/keystoneservice.md; K-ORC OpenStackName)", msgTooLong("spec.catalog.serviceName", 255),
			func(m M) M { return set(m, "spec.catalog.serviceName", long(256)) }),
		ksCreate("endpoint-url-scheme", "endpoints[].url ^https?://[^\\s/]+ (docs/reference/keystoneservice.md, KeystoneServiceEndpointSpec)", msgPattern("spec.catalog.endpoints[0].url", reEndpointURL),
			func(m M) M {
				return set(m, "spec.catalog.endpoints", []any{M{"interface": "public", "url": "ftp://workflow.example.com"}})
			}),
		ksCreate("endpoint-url-too-long", "endpoints[].url <= 225 characters, Keystone's own bound (docs/reference/keystoneservice.md)", msgTooLong("spec.catalog.endpoints[0].url", 225),
			func(m M) M {
				return set(m, "spec.catalog.endpoints", []any{M{"interface": "public", "url": "https://example.com/" + long(206)}})
			}),
		ksCreate("endpoint-duplicate-interface", "listType=map keyed on interface (docs/reference/keystoneservice.md, KeystoneServiceCatalogSpec)", msgDuplicate("spec.catalog.endpoints[1]"),
			func(m M) M {
				return set(m, "spec.catalog.endpoints", []any{
					M{"interface": "public", "url": "https://a.example.com"},
					M{"interface": "public", "url": "https://b.example.com"},
				})
			}),
		ksCreate("endpoint-interface-enum", "endpoints[].interface public|internal|admin (docs/reference/keystoneservice.md)", msgUnsupported("spec.catalog.endpoints[0].interface", "private", "public", "internal", "admin"),
			func(m M) M {
				return set(m, "spec.catalog.endpoints", []any{M{"interface": "private", "url": "https://a.example.com"}})
			}),
		// account.
		ksCreate("user-name-comma", "account.userName ^[^,]+$ (docs/reference/keystoneservice.md; K-ORC OpenStackName)", msgPattern("spec.account.userName", reNoComma),
			func(m M) M { return set(m, "spec.account.userName", "work,flow") }),
		ksCreate("user-name-too-long", "account.userName <= 255 (docs/reference/keystoneservice.md; K-ORC OpenStackName)", msgTooLong("spec.account.userName", 255),
			func(m M) M { return set(m, "spec.account.userName", long(256)) }),
		ksCreate("domain-name-comma", "account.domainName ^[^,]+$ (docs/reference/keystoneservice.md)", msgPattern("spec.account.domainName", reNoComma),
			func(m M) M { return set(m, "spec.account.domainName", "De,fault") }),
		ksCreate("domain-name-too-long", "account.domainName <= 64 (K-ORC KeystoneName, issue 3)", msgTooLong("spec.account.domainName", 64),
			func(m M) M { return set(m, "spec.account.domainName", long(65)) }),
		ksCreate("project-missing", "account.project required (docs/reference/keystoneservice.md, KeystoneServiceAccountSpec)", msgRequired("spec.account.project"),
			func(m M) M { return del(m, "spec.account.project") }),
		ksCreate("project-name-comma", "account.project.name ^[^,]+$ (docs/reference/keystoneservice.md, ServiceAccountProjectSpec)", msgPattern("spec.account.project.name", reNoComma),
			func(m M) M { return set(m, "spec.account.project.name", "service,workflow") }),
		ksCreate("project-name-too-long", "account.project.name <= 64 (K-ORC KeystoneName, issue 3)", msgTooLong("spec.account.project.name", 64),
			func(m M) M { return set(m, "spec.account.project.name", long(65)) }),
		ksCreate("roles-too-many", "account.roles <= 32 entries (docs/reference/keystoneservice.md)", msgTooMany("spec.account.roles", 33, 32),
			func(m M) M {
				roles := make([]any, 33)
				for i := range roles {
					roles[i] = fmt.Sprintf("role-%02d", i)
				}
				return set(m, "spec.account.roles", roles)
			}),
		ksCreate("role-comma", "account.roles[] ^[^,]+$ (docs/reference/keystoneservice.md)", msgPattern("spec.account.roles[0]", reNoComma),
			func(m M) M { return set(m, "spec.account.roles", []any{"ser,vice"}) }),
		ksCreate("role-too-long", "account.roles[] <= 64 (K-ORC KeystoneName, issue 3)", msgTooLong("spec.account.roles[0]", 64),
			func(m M) M { return set(m, "spec.account.roles", []any{long(65)}) }),
		ksCreate("role-duplicate", "account.roles listType=set: one Role import and one assignment per role", msgDuplicate("spec.account.roles[1]"),
			func(m M) M { return set(m, "spec.account.roles", []any{"service", "service"}) }),
		ksCreate("rotation-mode-enum", "account.rotation.mode Manual|Scheduled (docs/reference/keystoneservice.md, ServiceAccountRotationSpec)", msgUnsupported("spec.account.rotation.mode", "Daily", "Manual", "Scheduled"),
			func(m M) M { return set(m, "spec.account.rotation", M{"mode": "Daily"}) }),
		// Webhook: metadata.name bound.
		{
			Name: "name-bound-roles", Rule: "webhook: metadata.name bound from the longest child, roles included (docs/reference/keystoneservice.md, Defaulting and Validation Summary)", Op: Create,
			Manifest: set(withName(ks("x"), roleBoundName), "spec.account.roles", []any{role64}),
			Message:  fmt.Sprintf(webhooks.MsgNameTooLong, roleBound, "assign-"+role64, 254),
		},
		{
			Name: "name-bound-catalog", Rule: "webhook: metadata.name bound, catalog block with an internal endpoint (docs/reference/keystoneservice.md, Defaulting and Validation Summary)", Op: Create,
			Manifest: set(withName(ksCatalogOnly("x"), catalogBoundName), "spec.catalog.endpoints", []any{M{"interface": "internal", "url": "http://wf.svc:8989"}}),
			Message:  fmt.Sprintf(webhooks.MsgNameTooLong, catalogBound, "endpoint-internal", 254),
		},
		{
			Name: "name-not-label-value", Rule: "webhook: metadata.name <= 63, the label-value limit of c5c3.io/owner-name on every child (docs/reference/keystoneservice.md, Projected child names)", Op: Create,
			Manifest: withName(ks("x"), strings.Repeat("n", 64)),
			Message:  fmt.Sprintf(webhooks.MsgNameNotLabelValue, 64),
		},
		{
			Name: "name-delivery-field-manager", Rule: "webhook: metadata.name <= 61 with an account, ESO's 128-byte field manager of the consumer Secret (docs/reference/keystoneservice.md, orderhub: limits)", Op: Create,
			Manifest: withName(ks("x"), strings.Repeat("n", 62)),
			Message:  fmt.Sprintf(webhooks.MsgNameDeliveryTooLong, 61, 62, 129),
		},
		// Transition rules (CEL).
		ksUpdate("cpref-name-immutable", "CEL transition controlPlaneRef.name (docs/reference/keystoneservice.md, ControlPlaneRefSpec)", v1.MsgControlPlaneRefNameImmutable,
			ks(""), M{"controlPlaneRef": M{"name": "other-cp"}}),
		ksUpdate("service-type-immutable", "CEL transition catalog.serviceType (docs/reference/keystoneservice.md, Why the identity fields freeze)", v1.MsgServiceTypeImmutable,
			ks(""), M{"catalog": M{"serviceType": "workflow-v2"}}),
		ksUpdate("service-name-immutable", "CEL transition catalog.serviceName (docs/reference/keystoneservice.md)", v1.MsgServiceNameImmutable,
			set(ks(""), "spec.catalog.serviceName", "workflow-a"), M{"catalog": M{"serviceName": "workflow-b"}}),
		ksUpdate("user-name-immutable", "CEL transition account.userName (the defaulter materialized it at create) (docs/reference/keystoneservice.md)", v1.MsgUserNameImmutable,
			ks(""), M{"account": M{"userName": "someone-else"}}),
		ksUpdate("domain-name-set", "CEL account.domainName immutable as declared: setting it is rejected even naming the admin domain (docs/reference/keystoneservice.md)", v1.MsgAccountDomainNameImmutable,
			ks(""), M{"account": M{"domainName": "Default"}}),
		ksUpdate("domain-name-changed", "CEL account.domainName immutable (docs/reference/keystoneservice.md)", v1.MsgAccountDomainNameImmutable,
			set(ks(""), "spec.account.domainName", "Default"), M{"account": M{"domainName": "Other"}}),
		ksUpdate("domain-name-removed", "CEL account.domainName immutable: removing it re-resolves the domain (docs/reference/keystoneservice.md)", v1.MsgAccountDomainNameImmutable,
			set(ks(""), "spec.account.domainName", "Default"), M{"account": M{"domainName": nil}}),
		ksUpdate("project-name-immutable", "CEL transition account.project.name (docs/reference/keystoneservice.md, ServiceAccountProjectSpec)", v1.MsgProjectNameImmutable,
			ks(""), M{"account": M{"project": M{"name": "service-other"}}}),
		ksUpdate("project-create-immutable", "CEL transition account.project.create (docs/reference/keystoneservice.md, ServiceAccountProjectSpec)", v1.MsgProjectCreateImmutable,
			ks(""), M{"account": M{"project": M{"create": false}}}),
		// Transition rules only the webhook holds.
		ksUpdate("service-name-set-on-fallback", "webhook: effective catalog.serviceName; setting it on a CR relying on metadata.name is a rename (docs/reference/keystoneservice.md)",
			fmt.Sprintf(webhooks.MsgServiceNameEffective, "ks-service-name-set-on-fallback", "renamed"),
			ks(""), M{"catalog": M{"serviceName": "renamed"}}),
		ksUpdate("service-name-removed", "webhook: effective catalog.serviceName; removing it falls back to metadata.name (docs/reference/keystoneservice.md)",
			fmt.Sprintf(webhooks.MsgServiceNameEffective, "workflow-explicit", "ks-service-name-removed"),
			set(ks(""), "spec.catalog.serviceName", "workflow-explicit"), M{"catalog": M{"serviceName": nil}}),
		ksUpdate("cpref-namespace-set", "webhook: controlPlaneRef.namespace freeze by resolved value (docs/reference/keystoneservice.md, ControlPlaneRefSpec)", webhooks.MsgControlPlaneNamespaceResolved,
			ks(""), M{"controlPlaneRef": M{"namespace": "elsewhere"}}),
		ksUpdate("cpref-namespace-changed", "webhook: controlPlaneRef.namespace freeze (docs/reference/keystoneservice.md, ControlPlaneRefSpec)", webhooks.MsgControlPlaneNamespaceResolved,
			set(ks(""), "spec.controlPlaneRef.namespace", "openstack"), M{"controlPlaneRef": M{"namespace": "elsewhere"}}),
		ksUpdate("cpref-namespace-removed", "webhook: controlPlaneRef.namespace freeze; removing it resolves to the CR's own namespace (docs/reference/keystoneservice.md)", webhooks.MsgControlPlaneNamespaceResolved,
			set(ks(""), "spec.controlPlaneRef.namespace", "openstack"), M{"controlPlaneRef": M{"namespace": nil}}),
	}
	return Suite{
		Dir:          "invalid-keystoneservice-cr",
		Description:  "Admission rejection corpus of KeystoneService (docs/reference/keystoneservice.md): every CRD rule and every validating-webhook rule, each message asserted verbatim. Needs the hub's webhooks registered.",
		NeedsWebhook: true,
		Fixtures:     f,
	}
}
