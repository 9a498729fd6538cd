// Package applicationcredential holds the pure decisions of the
// KeystoneApplicationCredential order
// (docs/reference/keystoneapplicationcredential.md): the rotation schedule
// (schedule.go), what the next pass does (triggers.go), and the
// CredentialReady, DeliveryReady and Ready conditions (conditions.go), the
// documents and child-name rules (documents.go), and when the delivered
// credential is verified against Keystone (probe.go).
// Nothing here does I/O or reads a clock: every function that needs the
// time takes now.
package applicationcredential
