// Package keystoneapplicationcredential reconciles
// KeystoneApplicationCredential orders
// (docs/reference/keystoneapplicationcredential.md); the pure decisions live in
// controllers/hub/applicationcredential and this package does the I/O.
package keystoneapplicationcredential
