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

// Held names what holds an order's deletion
// (docs/reference/keystoneapplicationcredential.md, "Deletion Semantics": "The
// order holds three other orders in its namespace while it exists"): the names
// of the KeystoneApplicationCredentials referencing it.
type Held []string

// Holding reports whether any credential order holds the deletion.
func (h Held) Holding() bool { return len(h) > 0 }

// Message is the ReferencedByApplicationCredentials condition message for
// an order of kind named name: which credential orders hold it and the
// remedy ("Delete the credential order first").
func (h Held) Message(kind, name string) string {
	return fmt.Sprintf("%s %s is being deleted but KeystoneApplicationCredential %s references it: delete the credential order first",
		kind, name, strings.Join(h, ", "))
}

// CredentialRefs selects the credential orders that hold an order: a
// KeystoneApplicationCredential holds the KeystoneUser its spec.userRef
// names, the KeystoneProject its spec.projectRef names, and every
// KeystoneRoleAssignment of that user and project. Empty fields match any.
type CredentialRefs struct {
	User, Project string
}

// matches reports whether credential order ac references r.
func (r CredentialRefs) matches(ac *c5c3v1alpha1.KeystoneApplicationCredential) bool {
	return (r.User == "" || ac.Spec.UserRef.Name == r.User) && (r.Project == "" || ac.Spec.ProjectRef.Name == r.Project)
}

// HeldBy lists, through c (the order's own cluster's client), the
// KeystoneApplicationCredentials in namespace that reference refs, sorted
// by name. Every credential order counts, also one being deleted: its
// teardown still needs the user, project and role
// (docs/reference/keystoneapplicationcredential.md, "Deletion Semantics").
// c must be a cache holding ReferenceIndexes (IndexReferences). Errors: the
// list failing.
func HeldBy(ctx context.Context, c client.Reader, namespace string, refs CredentialRefs) (Held, error) {
	var list c5c3v1alpha1.KeystoneApplicationCredentialList
	// A read-only lookup, in teardowns and per reference event (the
	// referencing map): the cache's objects are not copied; nothing here
	// writes to them.
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

// HoldChanged passes the events of an order that can change what it holds
// (a credential order: HeldBy, and a user's scheduled rotation, which
// waits for the credential orders being deleted; a KeystoneUser: the
// project its spec.defaultProjectRef names): its creation, its
// disappearance, and an update that starts its deletion or changes its
// spec. A status write
// alone passes nothing; waking every referenced order for each one cost a
// pass apiece (docs/performance.md, "Hub: 500 application credentials").
var HoldChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return holdChanged(e.ObjectOld, e.ObjectNew)
}}

// holdChanged is HoldChanged's update decision.
func holdChanged(old, cur client.Object) bool {
	return old == nil || cur == nil || old.GetGeneration() != cur.GetGeneration() ||
		old.GetDeletionTimestamp().IsZero() != cur.GetDeletionTimestamp().IsZero()
}
