package eso

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	return withKind(&unstructured.Unstructured{}, gvk)
}

// NewList returns an empty list of gvk's kind, ready for a client List.
func NewList(gvk schema.GroupVersionKind) *unstructured.UnstructuredList {
	return withKind(&unstructured.UnstructuredList{}, listOf(gvk))
}

// NewMetadata returns an empty metadata-only object of gvk, ready for a
// client Get, a Delete or a controller-runtime watch. A watch of it keeps
// only the objects' metadata in the cache (controller-runtime's metadata
// informers): the hub's watches of PushSecrets read their labels and its
// teardowns their names, never their spec or status, which the hub reads
// from its own apply's response.
func NewMetadata(gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	return withKind(&metav1.PartialObjectMetadata{}, gvk)
}

// NewMetadataList returns an empty metadata-only list of gvk's kind, read
// from the metadata informer a watch of NewMetadata(gvk) started.
func NewMetadataList(gvk schema.GroupVersionKind) *metav1.PartialObjectMetadataList {
	return withKind(&metav1.PartialObjectMetadataList{}, listOf(gvk))
}

// listOf is the kind of a list of gvk's objects.
func listOf(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	return gvk.GroupVersion().WithKind(gvk.Kind + "List")
}

// withKind sets o's apiVersion and kind to gvk and returns o.
func withKind[T interface{ GetObjectKind() schema.ObjectKind }](o T, gvk schema.GroupVersionKind) T {
	o.GetObjectKind().SetGroupVersionKind(gvk)
	return o
}
