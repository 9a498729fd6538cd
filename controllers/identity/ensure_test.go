package identity

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

func TestEnsureUnique(t *testing.T) {
	t.Parallel()
	conflict := gophercloud.ErrUnexpectedResponseCode{Actual: 409}
	forbidden := gophercloud.ErrUnexpectedResponseCode{Actual: 403}
	tests := []struct {
		name        string
		exists      bool  // the first lookup finds the existing object "old"
		racer       bool  // another writer creates it between lookup and create
		createErr   error // create's error
		want        string
		wantCreated bool
		wantCalls   string // f = find, c = create, in order
		wantErr     string
	}{
		{"shared object: one lookup, no create", true, false, nil, "old", false, "f", ""},
		{"read-only backend, object exists: found, create never tried", true, false, forbidden, "old", false, "f", ""},
		{"new object: lookup, create", false, false, nil, "new", true, "fc", ""},
		{"created by a concurrent writer: lookup, create, 409, lookup", false, true, conflict, "old", false, "fcf", ""},
		{"409 but nothing found", false, false, conflict, "", false, "fcf", "no such object"},
		{"other error: wrapped, no second lookup", false, false, errors.New("boom"), "", false, "fc", "create project p: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := ""
			find := func(context.Context) (string, bool, error) {
				calls += "f"
				if tc.exists || (tc.racer && strings.Contains(calls, "c")) {
					return "old", true, nil
				}
				return "", false, nil
			}
			create := func(context.Context) (string, error) {
				calls += "c"
				if tc.createErr != nil {
					return "", tc.createErr
				}
				return "new", nil
			}
			got, created, err := ensureUnique(context.Background(), "project p", find, create)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || created != tc.wantCreated || calls != tc.wantCalls {
				t.Fatalf("got %q created %v calls %q; want %q %v %q", got, created, calls, tc.want, tc.wantCreated, tc.wantCalls)
			}
		})
	}
}
