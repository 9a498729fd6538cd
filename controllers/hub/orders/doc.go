// Package orders holds the pure decisions every order kind shares
// (KeystoneUser, KeystoneProject, KeystoneRoleAssignment,
// KeystoneApplicationCredential): which namespaceAssignments entry consents
// to an order (consent.go), the shared gates every sub-condition reads
// (consent.go), the checks on the orders an order references (refs.go), and
// the ownership labels of the children an order projects into the
// ControlPlane's namespace (labels.go). Those decisions are pure:
// reconcilers read the cluster and pass what they read in. The I/O steps the
// kinds share are here too: the generic order loop and its status writer
// (loop.go, statuswriter.go), the name claims (claim.go), the backup
// (backup.go), the finalizer (finalizer.go), the children an order lists and sweeps
// (children.go) and the generic teardown every hub kind declares
// (teardown.go).
package orders
