package identity

import (
	"errors"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

func TestEndpointService(t *testing.T) {
	t.Parallel()
	svcs := []services.Service{{ID: "c"}, {ID: "a"}, {ID: "b"}}
	tests := []struct {
		name     string
		recorded string
		values   map[string]string
		want     string
		missing  bool
	}{
		{"no Service resource, nothing recorded: lowest", "", nil, "a", false},
		{"no Service resource: the recorded one", "b", nil, "b", false},
		{"no Service resource, recorded gone: lowest", "z", nil, "a", false},
		{"the one a Service resource records, over a lower foreign one", "a", map[string]string{declaredServicesInput: "c"}, "c", false},
		{"Service resource records none yet: wait", "", map[string]string{declaredServicesInput: ""}, "", true},
		{"Service resource records one Keystone lacks: wait", "a", map[string]string{declaredServicesInput: "z"}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &kv1.Endpoint{Status: kv1.EndpointStatus{ServiceID: tc.recorded}}
			got, _, err := endpointService(svcs, o, tc.values)
			var me *missingError
			if tc.missing != errors.As(err, &me) || got.ID != tc.want {
				t.Fatalf("got %q, %v; want %q, missing %v", got.ID, err, tc.want, tc.missing)
			}
		})
	}
}
