// Package controlplane is the hub's ControlPlane reconciler: it fulfils the
// plane contract the order and registration reconcilers depend on
// (docs/reference/controlplane.md, "Plane contract"):
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
//     (docs/reference/keystoneservice.md, "Conditions"; upstream
//     github.com/blut/c5c3-forge
//     operators/c5c3/internal/controller/external_mode.go);
//   - the admin Domain import <cp>-domain-<slug>;
//   - a ServiceAccount and a SecretStore against OpenBao in every namespace
//     the plane consents to (its own, its dedicated service namespaces, and
//     spec.korc.serviceRegistrations.allowedNamespaces;
//     docs/reference/keystoneservice.md, "Namespace consent"), when the hub is
//     given an OpenBao address; the store logs in with OpenBao's Kubernetes
//     auth as that ServiceAccount, and a namespace the plane stops
//     consenting to loses both (tenant.go, stores.go,
//     docs/reference/openbao.md).
//
// Before any of this, the duplicate guard (duplicate.go;
// docs/reference/controlplane.md, "Plane contract") parks every ControlPlane
// that is not the oldest of its namespace with Ready=False and
// AdminCredentialReady=False, reason DuplicateControlPlane; a parked plane
// projects nothing.
//
// Decisions (desired objects, conditions, the duplicate guard, error
// classification) are pure functions in desired.go, status.go, duplicate.go
// and classify.go; reconciler.go does the I/O.
package controlplane
