package v1alpha1

// Finalizers the hub installs (docs/reference/keystoneservice.md, "Deletion
// Semantics", docs/reference/keystoneapplicationcredential.md, "Deletion
// Semantics").
const (
	// FinalizerKeystoneServiceTeardown holds a KeystoneService until every
	// child it projected is gone.
	FinalizerKeystoneServiceTeardown = "c5c3.io/keystoneservice-teardown"
	// FinalizerKeystoneApplicationCredentialTeardown holds a
	// KeystoneApplicationCredential through its two-phase teardown.
	FinalizerKeystoneApplicationCredentialTeardown = "c5c3.io/keystoneapplicationcredential-teardown"
	// FinalizerKeystoneUserTeardown holds a KeystoneUser until its children
	// are gone and no KeystoneApplicationCredential references it.
	FinalizerKeystoneUserTeardown = "c5c3.io/keystoneuser-teardown"
	// FinalizerKeystoneProjectTeardown holds a KeystoneProject until its
	// children are gone and no KeystoneApplicationCredential references it.
	FinalizerKeystoneProjectTeardown = "c5c3.io/keystoneproject-teardown"
	// FinalizerKeystoneRoleAssignmentTeardown holds a KeystoneRoleAssignment
	// until the assignment is revoked and no KeystoneApplicationCredential
	// needs it.
	FinalizerKeystoneRoleAssignmentTeardown = "c5c3.io/keystoneroleassignment-teardown"
)
