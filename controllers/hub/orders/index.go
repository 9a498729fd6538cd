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
// client.MatchingFields and client.InNamespace
// (docs/performance.md, "Hub: 500 application credentials").
const (
	// IndexUserRef is spec.userRef.name of credential and role orders.
	IndexUserRef    = "spec.userRef.name"
	IndexProjectRef = "spec.projectRef.name"
	// IndexDefaultProjectRef is spec.defaultProjectRef.name of KeystoneUsers.
	IndexDefaultProjectRef = "spec.defaultProjectRef.name"
	// IndexOwner is OwnerKey of a child's ownership labels, on the management
	// cluster only (IndexChildren); unlabelled children are not indexed.
	IndexOwner = "metadata.labels.owner"
)

// OwnerKey is o's IndexOwner value: kind/cluster/namespace/name.
func OwnerKey(o Order) string {
	return o.Kind + "/" + o.Cluster + "/" + o.Namespace + "/" + o.Name
}

func ownerOf(obj client.Object) []string {
	l := obj.GetLabels()
	o, ok := OrderOfLabels(l[LabelOwnerKind], l)
	if !ok {
		return nil
	}
	return []string{OwnerKey(o)}
}

// Index is one field index: Field on Object's type, valued by Extract.
type Index struct {
	Object  client.Object
	Field   string
	Extract client.IndexerFunc
}

// ReferenceIndexes are the indexes the order reconcilers read; an empty
// reference is not indexed.
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

// FieldIndexer adds a field index once on every cluster the hub serves.
type FieldIndexer interface {
	IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error
}

// IndexReferences adds ReferenceIndexes through idx before the manager starts.
func IndexReferences(ctx context.Context, idx FieldIndexer) error {
	for _, ix := range ReferenceIndexes() {
		if err := idx.IndexField(ctx, ix.Object, ix.Field, ix.Extract); err != nil {
			return err
		}
	}
	return nil
}

// LocalFieldIndexer adds a field index once on the management cluster.
type LocalFieldIndexer interface {
	IndexLocalField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error
}

// IndexChildren adds IndexOwner on the item type of each of lists before the
// manager starts (docs/performance.md, "Hub: 500 application credentials").
// Errors: a kind not in scheme or not installed, or an index refused.
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

// ReferenceFields selects the orders referencing user and project from a
// cache holding ReferenceIndexes; empty values are not selected on.
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
