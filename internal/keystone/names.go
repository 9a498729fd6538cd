package keystone

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
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

// nameFolder returns FoldName's transformation: decompose with
// compatibility mappings (NFKD: fullwidth ａ is a, the ligature ﬁ is fi), drop the
// nonspacing marks the decomposition split off (accents), map every
// remaining rune to its general_ci weight (generalCIWeight), recompose
// (NFC). A chain keeps per-use state (golang.org/x/text/transform: a
// Transformer is not safe for concurrent use), so each call builds its own;
// a shared one panicked under concurrent callers.
func nameFolder() transform.Transformer {
	return transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), runes.Map(generalCIWeight), norm.NFC)
}

// FoldName returns the key under which Keystone's MySQL backend considers
// two names equal, so that SameIdentityName(a, b) is FoldName(a) ==
// FoldName(b).
//
// Rule (docs/reference/keystoneservice.md, "The admin identity is never
// registrable"): names are compared the way Keystone compares them. Keystone
// creates its identity tables with mysql_charset='utf8'
// (keystone/common/sql/migrations), whose default collation is
// utf8mb3_general_ci; a utf8mb4 database defaults to utf8mb4_general_ci. Both
// fold case and accents, so Admin, ADMIN and admín resolve to the same user as
// admin. FoldName approximates general_ci (MySQL 8.0 Reference Manual, "Unicode
// Character Sets" and "Collation Implementation Types"):
//
//   - accents: a character with a canonical decomposition weighs as its
//     base letter ('á', 'À' and 'A' share the weight of 'A'); a letter
//     without one ('ø', 'đ', 'ł') keeps its own weight, as in general_ci;
//   - case: every character weighs as its simple uppercase ('ı' and 'i' are
//     both 'I', 'ſ' is 'S'); the key is spelled in lowercase;
//   - ß and ẞ weigh as a single s: general_ci has no expansions, so "ß" =
//     "s" and "ß" ≠ "ss" (utf8mb4_unicode_ci would give "ß" = "ss");
//   - supplementary characters (above U+FFFF) all weigh as U+FFFD, as in
//     utf8mb4_general_ci (utf8mb3 cannot store them at all);
//   - PAD SPACE: trailing U+0020 spaces are ignored ("admin " = "admin");
//     leading spaces, other white space and inner spaces count;
//   - compatibility forms fold to their base (fullwidth "ａｄｍｉｎ" is
//     "admin"): general_ci keeps them apart, but the UCA collations
//     (utf8mb4_unicode_ci, utf8mb4_0900_ai_ci) a database may be created
//     with equate them, so the guard refuses them too.
//
// Language-specific tailorings and the exact Unicode version of MySQL's
// tables are not reproduced. A PostgreSQL backend compares names case-sensitively; folding
// anyway errs on the side the admin-identity guard needs (refusing a look-
// alike of the admin user rather than letting it through).
func FoldName(s string) string {
	s = strings.TrimRight(s, " ")
	if isASCII(s) {
		// ASCII is its own NFKD and NFC and has no marks, so the fold is
		// the lowercase alone. The transform chain allocates its buffers
		// on every call: at 2000 hub orders it was a fifth of the hub's
		// allocations, for names that are almost always ASCII.
		return strings.ToLower(s)
	}
	out, _, err := transform.String(nameFolder(), s)
	if err != nil {
		// Unreachable for these transformers on a string; fall back to
		// case folding alone rather than to the raw name.
		return strings.ToLower(s)
	}
	return out
}

// isASCII reports whether s holds only bytes below 0x80.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// SameIdentityName reports whether Keystone's MySQL backend resolves names a
// and b (user, project or domain names) to the same row: FoldName(a) ==
// FoldName(b). For example "Admin", "ADMIN", "admín", "ÁDMÍN" and "admin "
// are all the same identity as "admin", and domain "Default" is "default".
func SameIdentityName(a, b string) bool { return FoldName(a) == FoldName(b) }

// generalCIWeight maps a rune (accents already removed) to a rune with the
// same general_ci weight, spelled in lowercase: see FoldName.
func generalCIWeight(r rune) rune {
	switch {
	case r == 'ß' || r == 'ẞ':
		return 's'
	case r > 0xFFFF:
		return utf8.RuneError // U+FFFD
	}
	return unicode.ToLower(unicode.ToUpper(r))
}
