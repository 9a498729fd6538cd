package corpus

import (
	"strings"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

const kacKind = "KeystoneApplicationCredential"

// kac is the example order of docs/reference/keystoneapplicationcredential.md
// without its namespace.
func kac(name string) M {
	return object(kacKind, name, M{
		"controlPlaneRef": M{"name": "cp", "namespace": "openstack"},
		"userRef":         M{"name": "workflow"},
		"projectRef":      M{"name": "workflow-project"},
	})
}

func kacCreate(name, rule, msg string, mutate func(M) M) Fixture {
	return Fixture{Name: name, Rule: rule, Op: Create, Manifest: mutate(kac("kac-" + name)), Message: msg}
}

func kacUpdate(name, rule, msg string, base M, spec M) Fixture {
	obj := "kac-" + name
	return Fixture{Name: name, Rule: rule, Op: Update, Base: withName(base, obj), Manifest: patch(kacKind, obj, spec), Message: msg}
}

// invalidKeystoneApplicationCredential is the KeystoneApplicationCredential
// rejection corpus: every rule of
// docs/reference/keystoneapplicationcredential.md, "Defaulting and Validation
// Summary", with the messages quoted there. The kind has no webhook.
func invalidKeystoneApplicationCredential() Suite {
	long := func(n int) string { return strings.Repeat("a", n) }
	rot := func(m M, interval, grace any) M {
		r := M{}
		if interval != nil {
			r["interval"] = interval
		}
		if grace != nil {
			r["gracePeriod"] = grace
		}
		return set(m, "spec.rotation", r)
	}
	f := []Fixture{
		kacCreate("user-ref-missing", "userRef.name required (docs/reference/keystoneapplicationcredential.md)", msgRequired("spec.userRef"),
			func(m M) M { return del(m, "spec.userRef") }),
		kacCreate("user-ref-name-empty", "userRef.name MinLength=1 (docs/reference/keystoneapplicationcredential.md)", msgMinLength("spec.userRef.name", 1),
			func(m M) M { return set(m, "spec.userRef.name", "") }),
		kacCreate("user-ref-name-too-long", "userRef.name MaxLength=63 (docs/reference/keystoneapplicationcredential.md)", msgTooLong("spec.userRef.name", 63),
			func(m M) M { return set(m, "spec.userRef.name", long(64)) }),
		kacCreate("project-ref-missing", "projectRef.name required (docs/reference/keystoneapplicationcredential.md)", msgRequired("spec.projectRef"),
			func(m M) M { return del(m, "spec.projectRef") }),
		kacCreate("project-ref-name-empty", "projectRef.name MinLength=1 (docs/reference/keystoneapplicationcredential.md)", msgMinLength("spec.projectRef.name", 1),
			func(m M) M { return set(m, "spec.projectRef.name", "") }),
		kacCreate("project-ref-name-too-long", "projectRef.name MaxLength=63 (docs/reference/keystoneapplicationcredential.md)", msgTooLong("spec.projectRef.name", 63),
			func(m M) M { return set(m, "spec.projectRef.name", long(64)) }),
		kacCreate("cpref-missing", "controlPlaneRef required (docs/reference/keystoneapplicationcredential.md)", msgRequired("spec.controlPlaneRef"),
			func(m M) M { return del(m, "spec.controlPlaneRef") }),
		kacCreate("cpref-name-empty", "controlPlaneRef.name MinLength=1 (docs/reference/keystoneapplicationcredential.md; as for KeystoneService)", msgMinLength("spec.controlPlaneRef.name", 1),
			func(m M) M { return set(m, "spec.controlPlaneRef.name", "") }),
		kacCreate("credential-generation-zero", "credentialGeneration Minimum=1 (docs/reference/keystoneapplicationcredential.md)", msgMinimum("spec.credentialGeneration", 1),
			func(m M) M { return set(m, "spec.credentialGeneration", 0) }),
		kacCreate("credential-generation-too-large", "credentialGeneration Maximum=10^15 (orderhub: a rotation adds one, never past int64)",
			msgMaximum("spec.credentialGeneration", 1000000000000000),
			func(m M) M { return set(m, "spec.credentialGeneration", int64(9223372036854775807)) }),
		kacCreate("interval-below-minute", "rotation.interval 0s or >= 1m (docs/reference/keystoneapplicationcredential.md)", v1.MsgIntervalZeroOrMinute,
			func(m M) M { return rot(m, "30s", "10s") }),
		kacCreate("interval-negative", "rotation.interval 0s or >= 1m (docs/reference/keystoneapplicationcredential.md)", v1.MsgIntervalZeroOrMinute,
			func(m M) M { return rot(m, "-1h", nil) }),
		kacCreate("interval-too-long", "rotation.interval <= 87600h (docs/reference/keystoneapplicationcredential.md)", v1.MsgIntervalMax,
			func(m M) M { return rot(m, "87601h", nil) }),
		kacCreate("interval-not-a-duration", "rotation.interval is a Go duration", msgPattern("spec.rotation.interval", reDuration),
			func(m M) M { return rot(m, "monthly", nil) }),
		kacCreate("grace-negative", "rotation.gracePeriod not negative (docs/reference/keystoneapplicationcredential.md)", v1.MsgGracePeriodNotNegative,
			func(m M) M { return rot(m, nil, "-1s") }),
		kacCreate("grace-equals-interval", "rotation.gracePeriod shorter than a non-zero interval (docs/reference/keystoneapplicationcredential.md)", v1.MsgGracePeriodShorterThanInterval,
			func(m M) M { return rot(m, "1h", "1h") }),
		kacCreate("grace-longer-than-default-interval", "rotation.gracePeriod shorter than the defaulted 720h interval (docs/reference/keystoneapplicationcredential.md)", v1.MsgGracePeriodShorterThanInterval,
			func(m M) M { return rot(m, nil, "721h") }),
		{
			Name: "name-too-long", Rule: "metadata.name <= 63 bytes (docs/reference/keystoneapplicationcredential.md; on the object)", Op: Create,
			Manifest: kac("kac-" + strings.Repeat("n", 60)), Message: v1.MsgMetadataNameMax63,
		},
		kacUpdate("user-ref-immutable", "transition userRef (docs/reference/keystoneapplicationcredential.md)", v1.MsgUserRefImmutable,
			kac(""), M{"userRef": M{"name": "someone-else"}}),
		kacUpdate("project-ref-immutable", "transition projectRef (docs/reference/keystoneapplicationcredential.md)", v1.MsgProjectRefImmutable,
			kac(""), M{"projectRef": M{"name": "other-project"}}),
		kacUpdate("credential-generation-decrease", "transition credentialGeneration self >= oldSelf (docs/reference/keystoneapplicationcredential.md)", v1.MsgCredentialGenerationIncrease,
			set(kac(""), "spec.credentialGeneration", 3), M{"credentialGeneration": 2}),
		kacUpdate("cpref-name-immutable", "transition controlPlaneRef.name (docs/reference/keystoneapplicationcredential.md)", v1.MsgControlPlaneRefNameImmutable,
			kac(""), M{"controlPlaneRef": M{"name": "other-cp"}}),
		kacUpdate("cpref-namespace-changed", "transition controlPlaneRef.namespace (docs/reference/keystoneapplicationcredential.md)", v1.MsgControlPlaneRefNamespaceImmutable,
			kac(""), M{"controlPlaneRef": M{"namespace": "elsewhere"}}),
		kacUpdate("cpref-namespace-removed", "transition controlPlaneRef.namespace, removal (docs/reference/keystoneapplicationcredential.md)", v1.MsgControlPlaneRefNamespaceImmutable,
			kac(""), M{"controlPlaneRef": M{"namespace": nil}}),
		kacUpdate("cpref-namespace-set", "transition controlPlaneRef.namespace, set on an order that had none (docs/reference/keystoneapplicationcredential.md)", v1.MsgControlPlaneRefNamespaceImmutable,
			del(kac(""), "spec.controlPlaneRef.namespace"), M{"controlPlaneRef": M{"namespace": "openstack"}}),
		kacUpdate("grace-raised-to-interval", "rotation.gracePeriod shorter than interval, on update (docs/reference/keystoneapplicationcredential.md)", v1.MsgGracePeriodShorterThanInterval,
			kac(""), M{"rotation": M{"gracePeriod": "720h"}}),
	}
	return Suite{
		Dir:         "invalid-keystoneapplicationcredential-cr",
		Description: "Admission rejection corpus of KeystoneApplicationCredential (docs/reference/keystoneapplicationcredential.md): every CRD rule, each message asserted verbatim. The kind has no webhook.",
		Fixtures:    f,
	}
}
