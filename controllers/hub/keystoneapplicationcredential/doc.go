// Package keystoneapplicationcredential reconciles KeystoneApplicationCredential
// orders (docs/reference/keystoneapplicationcredential.md): one Keystone
// application credential of an ordered KeystoneUser on an ordered
// KeystoneProject, created through K-ORC authenticated as that user
// (mint-cloud), backed up to OpenBao and delivered as <name>-credentials
// beside the order, on the order's own cluster. It rotates on a schedule, on
// a raised spec.credentialGeneration, on expiry, on a lost secret, and when
// Keystone rejects the delivered credential (probe.go: a converged order
// verifies it every Options.ReadyResync, 10m by default).
//
// The decisions are pure and live in controllers/hub/applicationcredential
// (schedule, Decide, conditions, documents); this package does the I/O:
// reconciler.go (one pass), references.go (the three referenced orders and
// the password), children.go (mint-cloud, secret-v<N>, credential-v<N>),
// delivery.go (backup first, then the delivered Secret), teardown.go (the
// two-phase finalizer), probe.go (the periodic token request with the
// delivered credential) and setup.go (watches, RBAC).
package keystoneapplicationcredential
