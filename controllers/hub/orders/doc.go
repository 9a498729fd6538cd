// Package orders holds the pure decisions every order kind shares
// (KeystoneUser, KeystoneProject, KeystoneRoleAssignment,
// KeystoneApplicationCredential): which namespaceAssignments entry consents
// to an order (consent.go), the shared gates every sub-condition reads
// (consent.go), the checks on the orders an order references (refs.go), and
// the ownership labels of the children an order projects into the
// ControlPlane's namespace (labels.go). Nothing here does I/O: reconcilers
// read the cluster and pass what they read in.
package orders
