package orders

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Field indexes of the orders' references (ReferenceIndexes), read with
// client.MatchingFields together with client.InNamespace: the orders that
// reference a user or project are looked up instead of scanned. Scanning
// the namespace per pass and per reference event was 65% of all the hub
// allocated at 500 application credentials (docs/performance.md, "Hub").
const (
	// IndexUserRef is spec.userRef.name of KeystoneApplicationCredentials
	// and KeystoneRoleAssignments.
	IndexUserRef = "spec.userRef.name"
	// IndexProjectRef is spec.projectRef.name of the same kinds.
	IndexProjectRef = "spec.projectRef.name"
	// IndexDefaultProjectRef is spec.defaultProjectRef.name of
	// KeystoneUsers (absent when the user names no default project).
	IndexDefaultProjectRef = "spec.defaultProjectRef.name"
	// IndexOwner is the order a child in a ControlPlane's namespace belongs
	// to, OwnerKey of its ownership labels (OrderOfLabels); a child without
	// them is not indexed. It is added on the management cluster only
	// (IndexChildren), where the children are.
	IndexOwner = "metadata.labels.owner"
)

// OwnerKey is o's value in IndexOwner: kind, cluster, namespace and name
// joined by "/" (none of them can hold one).
func OwnerKey(o Order) string {
	return o.Kind + "/" + o.Cluster + "/" + o.Namespace + "/" + o.Name
}

// ownerOf is IndexOwner's extract function.
func ownerOf(obj client.Object) []string {
	l := obj.GetLabels()
	o, ok := OrderOfLabels(l[LabelOwnerKind], l)
	if !ok {
		return nil
	}
	return []string{OwnerKey(o)}
}

// Index is one field index: Field on the objects of Object's type, valued
// by Extract.
type Index struct {
	Object  client.Object
	Field   string
	Extract client.IndexerFunc
}

// ReferenceIndexes are the indexes the order reconcilers read:
// IndexUserRef and IndexProjectRef on KeystoneApplicationCredentials and
// KeystoneRoleAssignments, IndexDefaultProjectRef on KeystoneUsers. An
// empty reference is not indexed.
func ReferenceIndexes() []Index {
	return []Index{
		{&c5c3v1alpha1.KeystoneApplicationCredential{}, IndexUserRef, func(o client.Object) []string {
			return nonEmpty(o.(*c5c3v1alpha1.KeystoneApplicationCredential).Spec.UserRef.Name)
		}},
		{&c5c3v1alpha1.KeystoneApplicationCredential{}, IndexProjectRef, func(o client.Object) []string {
			return nonEmpty(o.(*c5c3v1alpha1.KeystoneApplicationCredential).Spec.ProjectRef.Name)
		}},
		{&c5c3v1alpha1.KeystoneRoleAssignment{}, IndexUserRef, func(o client.Object) []string {
			return nonEmpty(o.(*c5c3v1alpha1.KeystoneRoleAssignment).Spec.UserRef.Name)
		}},
		{&c5c3v1alpha1.KeystoneRoleAssignment{}, IndexProjectRef, func(o client.Object) []string {
			return nonEmpty(o.(*c5c3v1alpha1.KeystoneRoleAssignment).Spec.ProjectRef.Name)
		}},
		{&c5c3v1alpha1.KeystoneUser{}, IndexDefaultProjectRef, func(o client.Object) []string {
			if ref := o.(*c5c3v1alpha1.KeystoneUser).Spec.DefaultProjectRef; ref != nil {
				return nonEmpty(ref.Name)
			}
			return nil
		}},
	}
}

func nonEmpty(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

// FieldIndexer adds a field index on every cluster the hub serves
// (clusters.Hub.IndexField, which adds each index once).
type FieldIndexer interface {
	IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error
}

// IndexReferences adds ReferenceIndexes through idx; each order reconciler
// calls it before the manager starts. Errors: an index refused.
func IndexReferences(ctx context.Context, idx FieldIndexer) error {
	for _, ix := range ReferenceIndexes() {
		if err := idx.IndexField(ctx, ix.Object, ix.Field, ix.Extract); err != nil {
			return err
		}
	}
	return nil
}

// LocalFieldIndexer adds a field index on the management cluster only
// (clusters.Hub.IndexLocalField, which adds each index once).
type LocalFieldIndexer interface {
	IndexLocalField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error
}

// IndexChildren adds IndexOwner, through idx, on the item type of each of
// lists (its kind with "List" trimmed, from scheme; an unstructured or a
// metadata-only list stays so): a reconciler passes the lists it gives ListChildren
// and Sweep, before the manager starts. They then read the order's
// own children instead of matching labels across the ControlPlane's
// namespace, which holds every order's children (docs/performance.md,
// "Hub"). Errors: a kind not in scheme, an index refused, or a kind not
// installed.
func IndexChildren(ctx context.Context, idx LocalFieldIndexer, scheme *runtime.Scheme, lists ...client.ObjectList) error {
	for _, l := range lists {
		o, err := itemOf(l, scheme)
		if err != nil {
			return err
		}
		if err := idx.IndexLocalField(ctx, o, IndexOwner, ownerOf); err != nil {
			return err
		}
	}
	return nil
}

// itemOf returns an empty object of the kind list holds.
func itemOf(list client.ObjectList, scheme *runtime.Scheme) (client.Object, error) {
	gvk, err := apiutil.GVKForObject(list, scheme)
	if err != nil {
		return nil, err
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	switch list.(type) {
	case runtime.Unstructured:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	case *metav1.PartialObjectMetadataList:
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gvk)
		return m, nil
	}
	o, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	obj, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is no object", gvk)
	}
	return obj, nil
}

// ReferenceFields selects, in a List of KeystoneApplicationCredentials or
// KeystoneRoleAssignments from a cache holding ReferenceIndexes, the orders
// referencing user and project; an empty one is not selected on, and with
// both empty nothing is (a field selector without requirements is refused by
// the cache).
func ReferenceFields(user, project string) client.ListOption {
	f := referenceFields{}
	if user != "" {
		f[IndexUserRef] = user
	}
	if project != "" {
		f[IndexProjectRef] = project
	}
	return f
}

type referenceFields client.MatchingFields

func (f referenceFields) ApplyToList(o *client.ListOptions) {
	if len(f) > 0 {
		client.MatchingFields(f).ApplyToList(o)
	}
}
