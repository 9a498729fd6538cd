// Package credentialrotation reconciles CredentialRotations. It never mints
// or writes a credential itself: like upstream c5c3 (github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_credentialrotation.go) it
// nudges the owner of the credential. For target serviceAccountPassword
// with spec.keystoneService it writes the rotation request annotation on
// that KeystoneService (c5c3v1alpha1.AnnotationPasswordRotationRequest),
// which the KeystoneService reconciler answers with one new password
// generation, delivered only once Keystone accepts it
// (docs/reference/keystoneservice.md, "ServiceAccountRotationSpec").
package credentialrotation
