package keystone

import (
	"sort"
	"strings"
)

// DefaultDomainID is the ID of the domain keystone-manage bootstrap creates.
const DefaultDomainID = "default"

// IsDefaultDomain reports whether a domain name denotes the default domain:
// empty or "default" in any letter case. Keystone names it "Default" and
// OpenStack-Helm's ks-user.sh matches it case-insensitively (openstack-helm
// commit cddf665c); a lookup by name on a case-sensitive database would miss
// it and create a second domain.
func IsDefaultDomain(name string) bool {
	return name == "" || strings.EqualFold(name, DefaultDomainID)
}

// NamesEqual compares two Keystone names as Keystone's MySQL backend does by
// default (a case-insensitive collation): equal ignoring letter case.
func NamesEqual(a, b string) bool { return strings.EqualFold(a, b) }

// Named is a Keystone object as returned by a filtered list: its ID and name.
type Named struct {
	ID   string
	Name string
}

// PickByName chooses, among list results already filtered by Keystone, the
// object named want: an exact match first, then a case-folded one (a
// case-insensitive backend returns those for an exact filter), the lowest ID
// winning within each class so the choice is stable. ok is false when none
// matches.
func PickByName(items []Named, want string) (Named, bool) {
	var exact, folded []Named
	for _, it := range items {
		switch {
		case it.Name == want:
			exact = append(exact, it)
		case NamesEqual(it.Name, want):
			folded = append(folded, it)
		}
	}
	for _, set := range [][]Named{exact, folded} {
		if len(set) > 0 {
			sort.Slice(set, func(i, j int) bool { return set[i].ID < set[j].ID })
			return set[0], true
		}
	}
	return Named{}, false
}
