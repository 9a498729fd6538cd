package identity

import (
	"sort"
	"strings"
)

// fieldsOf names the fields an update request body sets, in Keystone's
// spelling and sorted ("description, enabled"), from the map a gophercloud
// UpdateOpts builds ({"domain": {"description": ..., "enabled": ...}}). It is
// what a change message says was changed; values are never included (a
// password must not reach an event or a log).
func fieldsOf(body map[string]any, err error) string {
	if err != nil {
		return ""
	}
	var keys []string
	for _, inner := range body {
		if m, ok := inner.(map[string]any); ok {
			for k := range m {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// updated is the change message of a PATCH of what, naming its fields.
func updated(what, fields string) string {
	if fields == "" {
		return "updated " + what
	}
	return "updated " + what + " (" + fields + ")"
}
