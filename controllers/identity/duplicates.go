package identity

import (
	"fmt"
	"slices"
	"strings"
)

// Keystone allows several services with one name and type (and several
// endpoints per service, region and interface). Which of them a resource
// manages is decided here, so that an object made outside orderhub never
// displaces one a resource records (docs/identity.md, "Duplicate services
// and endpoints").

// pickDuplicate chooses among the IDs Keystone holds for one declared name
// (any order) the one a resource manages:
//
//  1. recorded, the ID the resource's status holds, when present;
//  2. else the lowest ID that ours reports (another resource records it);
//  3. else, only when adopt is true, the lowest ID (adoption of an object
//     made before any resource declared it).
//
// ok is false when none qualifies: a recorded object that is gone is then
// re-created by the caller rather than replaced by a foreign one. others
// lists every other ID, ascending (named in the Ready message, never adopted
// or deleted). ours may be nil (nothing else records one).
func pickDuplicate(ids []string, recorded string, ours func(string) bool, adopt bool) (pick string, ok bool, others []string) {
	sorted := slices.Sorted(slices.Values(ids))
	switch {
	case recorded != "" && slices.Contains(sorted, recorded):
		pick, ok = recorded, true
	case ours != nil && slices.ContainsFunc(sorted, ours):
		pick, ok = sorted[slices.IndexFunc(sorted, ours)], true
	case adopt && len(sorted) > 0:
		pick, ok = sorted[0], true
	}
	for _, id := range sorted {
		if !ok || id != pick {
			others = append(others, id)
		}
	}
	return pick, ok, others
}

// duplicateNote names the IDs of duplicates that were found and left alone
// ("" when there are none), for the Ready message.
func duplicateNote(what string, ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("; duplicate %s not adopted or deleted: %s", what, strings.Join(ids, ", "))
}
