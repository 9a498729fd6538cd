// Package controlplane is the hub's ControlPlane reconciler: it fulfils the
// plane contract the order and registration reconcilers depend on
// (ARCHITECTURE.md "Plane contract", c5c3-brief §1.6):
//
//   - the admin clouds.yaml Secrets in the plane namespace,
//     spec.korc.adminCredential.cloudCredentialsRef.secretName (imports and
//     probes) and <cp>-admin-password-cloud (managed children), both written
//     from the admin password Secret as password clouds (this reconciler
//     mints no admin application credential);
//   - the AdminCredentialReady condition, True only once Keystone issued a
//     token for that credential (a real token request), with failures
//     classified into AuthenticationFailed, CredentialDrift,
//     EndpointUnreachable, TLSVerificationFailed and CatalogEndpointMismatch
//     (seed 001 "Conditions", c5c3-brief §1.3);
//   - the admin Domain import <cp>-domain-<slug> (c5c3-brief §1.6);
//   - a ServiceAccount and a SecretStore against OpenBao in every namespace
//     the plane consents to (its own, its dedicated service namespaces, and
//     spec.korc.serviceRegistrations.allowedNamespaces), when the hub is
//     given an OpenBao address; the store logs in with OpenBao's Kubernetes
//     auth as that ServiceAccount, and a namespace the plane stops
//     consenting to loses both (tenant.go, stores.go,
//     docs/reference/openbao.md).
//
// Before any of this, the duplicate guard (duplicate.go, c5c3-brief §1.2)
// parks every ControlPlane that is not the oldest of its namespace with
// Ready=False and AdminCredentialReady=False, reason DuplicateControlPlane;
// a parked plane projects nothing.
//
// Decisions (desired objects, conditions, the duplicate guard, error
// classification) are pure functions in desired.go, status.go, duplicate.go
// and classify.go; reconciler.go does the I/O.
package controlplane
