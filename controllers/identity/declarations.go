package identity

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	decl "github.com/c5c3/orderhub/internal/declaration"
	"github.com/c5c3/orderhub/internal/keystone"
)

// Several resources may declare one Keystone object: every chart declares the
// service domain and project and the admin, service and member roles. The
// rule (docs/identity.md, "Several declarations of one object"): the oldest
// declaration (creationTimestamp, then name) owns the object's mutable fields.
// Another declaration that sets a mutable field to a different value writes
// nothing to Keystone and reports Ready=False naming the owner and the field;
// one that agrees (or leaves the field unset, where unset means "leave
// Keystone's value") is reconciled as usual. So two declarations never take
// turns rewriting a field, and once converged a resync writes nothing.

// field is one mutable field a declaration sets, with its effective value.
type field struct{ name, value string }

// declaration is one resource declaring a Keystone object, as the rule sees it.
type declaration struct {
	name    string // metadata.name (the namespace is the controller's)
	created metav1.Time
	fields  []field
}

// ownerOf returns the owning declaration: the oldest, ties broken by name
// (internal/declaration, shared with the topology controller). decls must
// not be empty.
func ownerOf(decls []declaration) declaration {
	owner := decls[0]
	for _, d := range decls[1:] {
		if decl.Older(decl.Of{Name: d.name, Created: d.created}, decl.Of{Name: owner.name, Created: owner.created}) {
			owner = d
		}
	}
	return owner
}

// differing describes the fields self sets to another value than owner does
// (a field only one of them sets is no conflict), in self's order.
func differing(self, owner []field) []string {
	theirs := map[string]string{}
	for _, f := range owner {
		theirs[f.name] = f.value
	}
	var out []string
	for _, f := range self {
		if v, ok := theirs[f.name]; ok && v != f.value {
			out = append(out, fmt.Sprintf("%s (%q here, %q there)", f.name, f.value, v))
		}
	}
	return out
}

// declarationConflict is the decision for self among all declarations of its
// Keystone object (self included): nil when self may be reconciled, else the
// error its Ready condition reports.
func declarationConflict(kind, what string, self declaration, all []declaration) error {
	if len(all) < 2 {
		return nil
	}
	owner := ownerOf(all)
	if owner.name == self.name {
		return nil
	}
	diff := differing(self.fields, owner.fields)
	if len(diff) == 0 {
		return nil
	}
	return fmt.Errorf("%s %s declares the same Keystone %s as %s %s, the oldest declaration, which owns its mutable fields; "+
		"they differ in %s. Nothing is written for this declaration: align the two specs or remove one declaration",
		kind, self.name, what, kind, owner.name, strings.Join(diff, ", "))
}

// Keys of Keystone objects, folded as Keystone compares names.

func domainKey(name string) string {
	if keystone.IsDefaultDomain(name) {
		return "default"
	}
	return keystone.FoldName(name)
}

func scopedKey(kind, domain, name string) string {
	return kind + "\x00" + domainKey(domain) + "\x00" + keystone.FoldName(name)
}

func boolField(name string, v bool) field { return field{name, fmt.Sprint(v)} }

// optional appends the field when value is set (an unset field leaves
// Keystone's value alone, so it cannot conflict).
func optional(fs []field, name, value string) []field {
	if value == "" {
		return fs
	}
	return append(fs, field{name, value})
}
