// Package eso builds and reads the External Secrets Operator objects of the
// hub's delivery path over unstructured.Unstructured: ESO v0.16.2's Go API
// packages (github.com/external-secrets/external-secrets/apis) do not compile
// with the controller-runtime orderhub uses, so only the fields
// orderhub sets and reads are modelled here, typed, and nothing else.
//
// The path (docs/reference/keystoneservice.md, "Consumer Secret contract";
// upstream github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_serviceaccounts.go):
//
//		source Secret --PushSecret--> OpenBao KV v2 --ExternalSecret--> consumer Secret
//
//	  - SecretStore (external-secrets.io/v1): Vault provider (OpenBao speaks its
//	    API), KV v2, token auth from a Secret key.
//	  - PushSecret (external-secrets.io/v1alpha1): deletionPolicy Delete, so
//	    deleting it removes what it pushed; one entry per Secret key, each to a
//	    remoteRef remoteKey/property.
//	  - ExternalSecret (external-secrets.io/v1): target creationPolicy Owner, so
//	    the delivered Secret is garbage-collected with it.
//
// ESO does not watch a PushSecret's source Secret, and an ExternalSecret only
// refreshes on its interval, so the hub nudges both with annotations
// (forcesync.go): ESO v0.16.2 re-syncs an object whenever its
// status.syncedResourceVersion ("<generation>-<sha3-224 of labels and
// annotations>") no longer matches the object, so any annotation change is a
// forced sync. IsSyncedCurrent recomputes that value to tell whether a Ready
// condition describes the object as it is now; ESO's Go packages do not
// build here, so the computation is a copy, which
// TestIntegration_ESOResourceVersionMatchesCopy (delivery) compares with
// what the pinned ESO writes.
package eso
