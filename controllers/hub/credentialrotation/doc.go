// Package credentialrotation reconciles CredentialRotations. It never mints
// or writes a credential itself: like upstream c5c3 (c5c3-brief §2) it
// nudges the owner of the credential. For target serviceAccountPassword
// with spec.keystoneService it writes the rotation request annotation on
// that KeystoneService (c5c3v1alpha1.AnnotationPasswordRotationRequest),
// which the KeystoneService reconciler answers with one new password
// generation, delivered only once Keystone accepts it (seed 001
// "ServiceAccountRotationSpec").
package credentialrotation
