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
	tests := []struct {
		name        string
		createFirst bool
		exists      bool  // find returns the existing object "old"
		createErr   error // create's error
		want        string
		wantCreated bool
		wantCalls   string // f = find, c = create, in order
		wantErr     string
	}{
		{"new object, no ID yet: one create", true, false, nil, "new", true, "c", ""},
		{"shared object, no ID yet: create, 409, adopt", true, true, conflict, "old", false, "cf", ""},
		{"known ID, exists: one lookup", false, true, nil, "old", false, "f", ""},
		{"known ID, deleted out of band: lookup, create", false, false, nil, "new", true, "fc", ""},
		{"409 but nothing found", true, false, conflict, "", false, "cf", "no such object"},
		{"other error: no lookup, wrapped", true, false, errors.New("boom"), "", false, "c", "create project p: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := ""
			find := func(context.Context) (string, bool, error) {
				calls += "f"
				if tc.exists {
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
			got, created, err := ensureUnique(context.Background(), "project p", tc.createFirst, find, create)
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
