package corpus

import (
	"strings"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/webhooks"
)

func user(name string) M {
	return object("KeystoneUser", name, M{
		"controlPlaneRef": M{"name": "cp", "namespace": "openstack"},
	})
}

func project(name string) M {
	return object("KeystoneProject", name, M{
		"controlPlaneRef": M{"name": "cp", "namespace": "openstack"},
	})
}

func assignment(name string) M {
	return object("KeystoneRoleAssignment", name, M{
		"controlPlaneRef": M{"name": "cp", "namespace": "openstack"},
		"userRef":         M{"name": "workflow"},
		"projectRef":      M{"name": "workflow-project"},
		"role":            "member",
	})
}

func controlPlane(name string) M {
	return object("ControlPlane", name, M{
		"korc": M{
			"serviceRegistrations": M{"allowedNamespaces": []any{"tenant-a"}},
		},
		"namespaceAssignments": []any{
			M{"namespace": "tenant-a", "allowedRoles": []any{"member", "reader"}},
		},
	})
}

func rotation(name string, spec M) M { return object("CredentialRotation", name, spec) }

func create(prefix, name, rule, msg string, base func(string) M, mutate func(M) M) Fixture {
	return Fixture{Name: name, Rule: rule, Op: Create, Manifest: mutate(base(prefix + name)), Message: msg}
}

func update(prefix, name, rule, msg string, base M, spec M) Fixture {
	obj := prefix + name
	return Fixture{Name: name, Rule: rule, Op: Update, Base: withName(base, obj), Manifest: patch(base["kind"].(string), obj, spec), Message: msg}
}

func same(m M) M { return m }

// invalidHubOrders covers the CRD rules of the kinds designed beside KeystoneApplicationCredential
// (KeystoneUser, KeystoneProject, KeystoneRoleAssignment; see
// docs/reference), of ControlPlane and CredentialRotation, and the
// ControlPlane webhook.
func invalidHubOrders() Suite {
	long := func(n int) string { return strings.Repeat("a", n) }
	f := []Fixture{
		// KeystoneUser.
		create("ku-", "user-name-too-long", "KeystoneUser metadata.name <= 63 bytes", v1.MsgMetadataNameMax63, user,
			func(m M) M { return withName(m, "ku-"+strings.Repeat("n", 61)) }),
		create("ku-", "user-user-name-comma", "KeystoneUser userName NamePattern: no comma (K-ORC OpenStackName)", msgPattern("spec.userName", reNoComma), user,
			func(m M) M { return set(m, "spec.userName", "a,b") }),
		create("ku-", "user-user-name-nul", "KeystoneUser userName NamePattern: no control character (U+0000)", msgPattern("spec.userName", reNoComma), user,
			func(m M) M { return set(m, "spec.userName", "app\x00") }),
		create("ku-", "user-user-name-bidi", "KeystoneUser userName NamePattern: no bidi control (U+202E)", msgPattern("spec.userName", reNoComma), user,
			func(m M) M { return set(m, "spec.userName", "app\u202Egpj.exe") }),
		create("ku-", "user-domain-bidi-isolate", "KeystoneUser domainName NamePattern: no bidi control (U+2066)", msgPattern("spec.domainName", reNoComma), user,
			func(m M) M { return set(m, "spec.domainName", "\u2066tenant-dom") }),
		create("ku-", "user-domain-too-long", "KeystoneUser domainName <= 64 (K-ORC KeystoneName)", msgTooLong("spec.domainName", 64), user,
			func(m M) M { return set(m, "spec.domainName", long(65)) }),
		create("ku-", "user-password-generation-zero", "KeystoneUser passwordGeneration Minimum=1", msgMinimum("spec.passwordGeneration", 1), user,
			func(m M) M { return set(m, "spec.passwordGeneration", 0) }),
		create("ku-", "user-password-generation-too-large", "KeystoneUser passwordGeneration Maximum=10^15 (a rotation adds one, never past int64)",
			msgMaximum("spec.passwordGeneration", 1000000000000000), user,
			func(m M) M { return set(m, "spec.passwordGeneration", int64(9223372036854775807)) }),
		create("ku-", "user-interval-below-minute", "KeystoneUser rotation.interval 0s or >= 1m", v1.MsgIntervalZeroOrMinute, user,
			func(m M) M { return set(m, "spec.rotation", M{"interval": "59s"}) }),
		update("ku-", "user-user-name-set", "KeystoneUser userName immutable as declared", v1.MsgOrderUserNameImmutable,
			user(""), M{"userName": "renamed"}),
		update("ku-", "user-domain-set", "KeystoneUser domainName immutable as declared", v1.MsgOrderDomainNameImmutable,
			user(""), M{"domainName": "Default"}),
		update("ku-", "user-default-project-set", "KeystoneUser defaultProjectRef immutable as declared", v1.MsgDefaultProjectRefImmutable,
			user(""), M{"defaultProjectRef": M{"name": "p"}}),
		update("ku-", "user-password-generation-decrease", "KeystoneUser passwordGeneration may only increase", v1.MsgPasswordGenerationIncrease,
			set(user(""), "spec.passwordGeneration", 2), M{"passwordGeneration": 1}),
		update("ku-", "user-cpref-namespace", "KeystoneUser controlPlaneRef.namespace immutable", v1.MsgControlPlaneRefNamespaceImmutable,
			user(""), M{"controlPlaneRef": M{"namespace": "elsewhere"}}),
		update("ku-", "user-cpref-name", "KeystoneUser controlPlaneRef.name immutable", v1.MsgControlPlaneRefNameImmutable,
			user(""), M{"controlPlaneRef": M{"name": "other"}}),
		// KeystoneProject.
		create("kp-", "project-name-too-long", "KeystoneProject projectName <= 64 (K-ORC KeystoneName)", msgTooLong("spec.projectName", 64), project,
			func(m M) M { return set(m, "spec.projectName", long(65)) }),
		create("kp-", "project-name-bidi", "KeystoneProject projectName NamePattern: no bidi control (U+202A)", msgPattern("spec.projectName", reNoComma), project,
			func(m M) M { return set(m, "spec.projectName", "proj\u202Aect") }),
		create("kp-", "project-domain-control", "KeystoneProject domainName NamePattern: no control character (U+001B, escape)", msgPattern("spec.domainName", reNoComma), project,
			func(m M) M { return set(m, "spec.domainName", "dom\u001b") }),
		create("kp-", "project-description-too-long", "KeystoneProject description <= 255", msgTooLong("spec.description", 255), project,
			func(m M) M { return set(m, "spec.description", long(256)) }),
		create("kp-", "project-metadata-name-too-long", "KeystoneProject metadata.name <= 63 bytes", v1.MsgMetadataNameMax63, project,
			func(m M) M { return withName(m, "kp-"+strings.Repeat("n", 61)) }),
		update("kp-", "project-name-set", "KeystoneProject projectName immutable as declared", v1.MsgOrderProjectNameImmutable,
			project(""), M{"projectName": "renamed"}),
		update("kp-", "project-domain-removed", "KeystoneProject domainName immutable as declared", v1.MsgOrderDomainNameImmutable,
			set(project(""), "spec.domainName", "Default"), M{"domainName": nil}),
		// KeystoneRoleAssignment.
		create("kra-", "assignment-role-missing", "KeystoneRoleAssignment role required", msgRequired("spec.role"), assignment,
			func(m M) M { return del(m, "spec.role") }),
		create("kra-", "assignment-role-too-long", "KeystoneRoleAssignment role <= 64 (K-ORC KeystoneName)", msgTooLong("spec.role", 64), assignment,
			func(m M) M { return set(m, "spec.role", long(65)) }),
		create("kra-", "assignment-role-newline", "KeystoneRoleAssignment role NamePattern: no control character (newline)", msgPattern("spec.role", reNoComma), assignment,
			func(m M) M { return set(m, "spec.role", "member\n") }),
		update("kra-", "assignment-role-immutable", "KeystoneRoleAssignment role immutable", v1.MsgRoleImmutable,
			assignment(""), M{"role": "admin"}),
		update("kra-", "assignment-user-immutable", "KeystoneRoleAssignment userRef immutable", v1.MsgUserRefImmutable,
			assignment(""), M{"userRef": M{"name": "other"}}),
		update("kra-", "assignment-project-immutable", "KeystoneRoleAssignment projectRef immutable", v1.MsgProjectRefImmutable,
			assignment(""), M{"projectRef": M{"name": "other"}}),
		// ControlPlane.
		create("cp-", "cp-external-without-block", "ControlPlane external required iff mode External (docs/reference/controlplane.md, Spec)", v1.MsgExternalRequiredIffExternalMode, controlPlane,
			func(m M) M { return set(m, "spec.services", M{"keystone": M{"mode": "External"}}) }),
		create("cp-", "cp-external-public-endpoint", "ControlPlane External forbids publicEndpoint, gateway, namespace (docs/reference/controlplane.md, Spec)", v1.MsgExternalForbidsManagedFields, controlPlane,
			func(m M) M {
				return set(m, "spec.services", M{"keystone": M{"mode": "External", "external": M{"authURL": "https://keystone.example.com/v3"},
					"publicEndpoint": "https://keystone.example.com/v3"}})
			}),
		create("cp-", "cp-assignment-duplicate", "ControlPlane namespaceAssignments keyed by cluster and namespace", msgDuplicate("spec.namespaceAssignments[1]"), controlPlane,
			func(m M) M {
				return set(m, "spec.namespaceAssignments", []any{M{"namespace": "tenant-a"}, M{"namespace": "tenant-a", "cluster": ""}})
			}),
		create("cp-", "cp-assignment-cluster-too-long", "ControlPlane namespaceAssignments[].cluster <= 63 (label value)", msgTooLong("spec.namespaceAssignments[0].cluster", 63), controlPlane,
			func(m M) M {
				return set(m, "spec.namespaceAssignments", []any{M{"namespace": "tenant-a", "cluster": long(64)}})
			}),
		create("cp-", "cp-assignment-domains-empty", "ControlPlane namespaceAssignments[].domains at least 1 item when set (docs/reference/controlplane.md, Tenant names)", msgMinItems("spec.namespaceAssignments[0].domains", 1), controlPlane,
			func(m M) M {
				return set(m, "spec.namespaceAssignments", []any{M{"namespace": "tenant-a", "domains": []any{}}})
			}),
		create("cp-", "cp-assignment-prefix-pattern", "ControlPlane namespaceAssignments[].namePrefix without comma or whitespace", msgPattern("spec.namespaceAssignments[0].namePrefix", reNamePrefix), controlPlane,
			func(m M) M {
				return set(m, "spec.namespaceAssignments", []any{M{"namespace": "tenant-a", "namePrefix": "acme "}})
			}),
		create("cp-", "cp-assignment-prefix-bidi", "ControlPlane namespaceAssignments[].namePrefix without bidi control (U+200F)", msgPattern("spec.namespaceAssignments[0].namePrefix", reNamePrefix), controlPlane,
			func(m M) M {
				return set(m, "spec.namespaceAssignments", []any{M{"namespace": "tenant-a", "namePrefix": "acme\u200F"}})
			}),
		create("cp-", "cp-assignment-domain-bidi", "ControlPlane namespaceAssignments[].domains[] NamePattern: no bidi control (U+2069)", msgPattern("spec.namespaceAssignments[0].domains[0]", reNoComma), controlPlane,
			func(m M) M {
				return set(m, "spec.namespaceAssignments", []any{M{"namespace": "tenant-a", "domains": []any{"tenant-dom\u2069"}}})
			}),
		create("cp-", "cp-allowed-namespace-pattern", "ControlPlane serviceRegistrations.allowedNamespaces[] RFC-1123 label", msgPattern("spec.korc.serviceRegistrations.allowedNamespaces[0]", reDNSLabel), controlPlane,
			func(m M) M { return set(m, "spec.korc.serviceRegistrations.allowedNamespaces", []any{"Tenant_A"}) }),
		{
			Name: "cp-one-per-namespace", Rule: "webhook: one ControlPlane per namespace (docs/reference/controlplane.md, Plane contract)", Op: Create,
			Base: controlPlane("cp-first"), Manifest: controlPlane("cp-second"),
			Message: "at most one ControlPlane per namespace: namespace ", // the namespace is the test's own
		},
		// CredentialRotation.
		create("cr-", "rotation-neither", "CredentialRotation serviceAccountPassword needs exactly one of serviceAccount, keystoneService", v1.MsgRotationTargetSelector,
			func(n string) M { return rotation(n, M{"target": "serviceAccountPassword"}) }, same),
		create("cr-", "rotation-both", "CredentialRotation serviceAccountPassword needs exactly one of serviceAccount, keystoneService", v1.MsgRotationTargetSelector,
			func(n string) M {
				return rotation(n, M{"target": "serviceAccountPassword", "serviceAccount": "nova", "keystoneService": "workflow"})
			}, same),
		create("cr-", "rotation-admin-with-keystone-service", "CredentialRotation adminApplicationCredential allows neither", v1.MsgRotationTargetSelector,
			func(n string) M {
				return rotation(n, M{"target": "adminApplicationCredential", "keystoneService": "workflow"})
			}, same),
	}
	_ = webhooks.MsgControlPlaneExists
	return Suite{
		Dir:          "invalid-hub-cr",
		Description:  "Admission rejection corpus of the other hub kinds: KeystoneUser, KeystoneProject, KeystoneRoleAssignment, ControlPlane (with its one-per-namespace webhook) and CredentialRotation.",
		NeedsWebhook: true,
		Fixtures:     f,
	}
}
