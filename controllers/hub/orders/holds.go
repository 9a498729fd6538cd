package orders

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Held names the KeystoneApplicationCredentials holding an order's deletion
// (docs/reference/keystoneapplicationcredential.md, "Deletion Semantics").
type Held []string

func (h Held) Holding() bool { return len(h) > 0 }

// Message is the ReferencedByApplicationCredentials condition message.
func (h Held) Message(kind, name string) string {
	return fmt.Sprintf("%s %s is being deleted but KeystoneApplicationCredential %s references it: delete the credential order first",
		kind, name, strings.Join(h, ", "))
}

// CredentialRefs selects the credential orders holding an order by user and
// project name; empty fields match any.
type CredentialRefs struct {
	User, Project string
}

func (r CredentialRefs) matches(ac *c5c3v1alpha1.KeystoneApplicationCredential) bool {
	return (r.User == "" || ac.Spec.UserRef.Name == r.User) && (r.Project == "" || ac.Spec.ProjectRef.Name == r.Project)
}

// HeldBy lists the KeystoneApplicationCredentials in namespace referencing
// refs, sorted, including ones being deleted, through a cache holding
// ReferenceIndexes. Errors: the list failing.
func HeldBy(ctx context.Context, c client.Reader, namespace string, refs CredentialRefs) (Held, error) {
	var list c5c3v1alpha1.KeystoneApplicationCredentialList
	// Read-only: the cache's objects are not copied.
	if err := c.List(ctx, &list, client.InNamespace(namespace), client.UnsafeDisableDeepCopy,
		ReferenceFields(refs.User, refs.Project)); err != nil {
		return nil, fmt.Errorf("list KeystoneApplicationCredentials in %s: %w", namespace, err)
	}
	var h Held
	for i := range list.Items {
		if refs.matches(&list.Items[i]) {
			h = append(h, list.Items[i].Name)
		}
	}
	sort.Strings(h)
	return h, nil
}

// HoldChanged passes creation, deletion, a deletion start or a spec change of
// an order that can change what it holds; status writes pass nothing
// (docs/performance.md, "Hub: 500 application credentials").
var HoldChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return holdChanged(e.ObjectOld, e.ObjectNew)
}}

func holdChanged(old, cur client.Object) bool {
	return old == nil || cur == nil || old.GetGeneration() != cur.GetGeneration() ||
		old.GetDeletionTimestamp().IsZero() != cur.GetDeletionTimestamp().IsZero()
}
