package v1alpha1

// Annotations the hub's controllers exchange.
const (
	// AnnotationPasswordRotationRequest, on a KeystoneService, asks for a new
	// account password generation. The CredentialRotation reconciler writes
	// it (value "<rotation uid>/<rotation generation>") when a
	// CredentialRotation with target serviceAccountPassword and
	// spec.keystoneService fires; the KeystoneService reconciler answers each
	// distinct value with exactly one new generation. Users request a
	// rotation with a CredentialRotation, not by editing this annotation.
	AnnotationPasswordRotationRequest = "c5c3.io/password-rotation-request"
)
