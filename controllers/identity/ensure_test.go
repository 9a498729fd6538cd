package identity

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

func TestCreateUnique(t *testing.T) {
	t.Parallel()
	conflict := gophercloud.ErrUnexpectedResponseCode{Actual: 409}
	forbidden := gophercloud.ErrUnexpectedResponseCode{Actual: 403}
	tests := []struct {
		name        string
		exists      bool  // find finds the existing object "old"
		createErr   error // create's error
		want        string
		wantCreated bool
		wantCalls   string // f = find, c = create, in order
		wantErr     string
	}{
		{"new object: one create, no lookup", false, nil, "new", true, "c", ""},
		{"shared object: create, 409, lookup, adopted", true, conflict, "old", false, "cf", ""},
		{"409 but nothing found", false, conflict, "", false, "cf", "no such object"},
		{"read-only backend, object exists: create, 403, lookup, adopted", true, forbidden, "old", false, "cf", ""},
		{"read-only backend, no object: the 403 is returned", false, forbidden, "", false, "cf", "create project p: Expected HTTP response code"},
		{"other error: wrapped, no lookup", false, errors.New("boom"), "", false, "c", "create project p: boom"},
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
			got, created, err := createUnique(context.Background(), "project p", find, create)
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
