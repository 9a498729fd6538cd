package eso

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of every ESO kind.
const Group = "external-secrets.io"

// Versions served by ESO v0.16.2 that orderhub writes (its CRDs store
// SecretStore and ExternalSecret as v1, PushSecret as v1alpha1).
const (
	VersionV1       = "v1"
	VersionV1alpha1 = "v1alpha1"
)

// Kinds.
const (
	KindSecretStore        = "SecretStore"
	KindClusterSecretStore = "ClusterSecretStore"
	KindExternalSecret     = "ExternalSecret"
	KindPushSecret         = "PushSecret"
)

// GroupVersionKinds of the objects this package builds and reads.
var (
	SecretStoreGVK        = schema.GroupVersionKind{Group: Group, Version: VersionV1, Kind: KindSecretStore}
	ClusterSecretStoreGVK = schema.GroupVersionKind{Group: Group, Version: VersionV1, Kind: KindClusterSecretStore}
	ExternalSecretGVK     = schema.GroupVersionKind{Group: Group, Version: VersionV1, Kind: KindExternalSecret}
	PushSecretGVK         = schema.GroupVersionKind{Group: Group, Version: VersionV1alpha1, Kind: KindPushSecret}
)

// New returns an empty object of gvk, ready for a client Get or List item.
func New(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// NewList returns an empty list of gvk's kind, ready for a client List.
func NewList(gvk schema.GroupVersionKind) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l
}
