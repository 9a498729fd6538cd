// Package declaration decides which of several Kubernetes resources declaring
// one object outside Kubernetes (a Keystone domain, a RabbitMQ queue) owns
// it: the oldest. The rule and what the other declarations do are the
// controllers' own (docs/identity.md, "Several declarations of one object";
// docs/topology.md, "Several declarations of one broker object").
package declaration

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Of is one resource declaring an object, as the rule compares it.
type Of struct {
	Namespace, Name string
	UID             types.UID
	Created         metav1.Time
}

// FromObject is the declaration of a Kubernetes resource.
func FromObject(o metav1.Object) Of {
	return Of{Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID(), Created: o.GetCreationTimestamp()}
}

// Older reports whether a is older than b: the earlier creationTimestamp,
// then the lower namespace and name, then the lower UID (two resources of
// one name in one namespace exist one after the other, so the UID only
// orders a resource against its own deleted predecessor).
func Older(a, b Of) bool {
	if !a.Created.Equal(&b.Created) {
		return a.Created.Before(&b.Created)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.UID < b.UID
}

// Oldest returns the owner among all declarations of one object. all must
// not be empty.
func Oldest(all []Of) Of {
	owner := all[0]
	for _, d := range all[1:] {
		if Older(d, owner) {
			owner = d
		}
	}
	return owner
}
