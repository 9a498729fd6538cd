// Package applicationcredential holds the pure decisions of the
// KeystoneApplicationCredential order
// (docs/reference/keystoneapplicationcredential.md): schedule, next step,
// conditions, documents and probe. Nothing here does I/O or reads a clock.
package applicationcredential
