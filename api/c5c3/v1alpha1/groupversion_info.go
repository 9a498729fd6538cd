// Package v1alpha1 is the hub API, group c5c3.io version v1alpha1: the
// identity-plane subset of ControlPlane, CredentialRotation, SecretAggregate
// (types only), and the order kinds KeystoneService, KeystoneUser,
// KeystoneProject, KeystoneRoleAssignment and KeystoneApplicationCredential.
//
// Every rule the schema can express is a CRD rule (OpenAPI marker or CEL), so
// it binds even with the webhook down and on target clusters that run no
// webhook. The KeystoneService and ControlPlane webhooks in package webhooks
// hold only what CEL cannot express.
//
// Sources: KeystoneService follows docs/reference/keystoneservice.md,
// KeystoneApplicationCredential follows
// docs/reference/keystoneapplicationcredential.md; ControlPlane and
// CredentialRotation keep the field names of upstream c5c3
// (github.com/blut/c5c3-forge operators/c5c3/api/v1alpha1,
// controlplane_types.go and credentialrotation_types.go), see
// docs/reference/controlplane.md and docs/reference/credentialrotation.md.
//
// +kubebuilder:object:generate=true
// +groupName=c5c3.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "c5c3.io", Version: "v1alpha1"}

	// SchemeBuilder is shared by every kind file: each one's init() registers
	// its Kind and List Kind, so AddToScheme covers all of them.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds every kind of this group-version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
