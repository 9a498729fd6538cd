// Package atrest verifies a converged order's delivered secret at rest for
// what it finds, shared by the KeystoneUser and KeystoneApplicationCredential
// orders: every ready resync a cheap existence-and-expiry check with the
// plane's admin session (no password hashing in Keystone), and a hashing
// login only when something changed or once per login period, spread by the
// order's UID (docs/reference/keystoneuser.md and
// docs/reference/keystoneapplicationcredential.md, "What is detected how
// fast"). decide.go holds the pure decision, memory.go the per-order record
// and the recipe, keystone.go the admin reads.
package atrest
