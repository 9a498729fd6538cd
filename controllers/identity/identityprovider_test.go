package identity

import (
	"reflect"
	"strings"
	"testing"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

func TestIDPDiff(t *testing.T) {
	ttl := int32(60)
	spec := kv1.IdentityProviderSpec{Description: "sso", RemoteIDs: []string{"b", "a"}, AuthorizationTTL: &ttl}
	upToDate := keystoneIDP{Description: "sso", DomainID: "d1", Enabled: true, RemoteIDs: []string{"a", "b"}, AuthorizationTTL: &ttl}
	tests := []struct {
		name       string
		spec       kv1.IdentityProviderSpec
		did        string
		ks         keystoneIDP
		wantFields []string
		wantErr    string
	}{
		{"up to date, remote IDs in another order", spec, "d1", upToDate, nil, ""},
		{"every field drifted", spec, "", keystoneIDP{Description: "x", Enabled: false, RemoteIDs: []string{"c"}},
			[]string{"authorization_ttl", "description", "enabled", "remote_ids"}, ""},
		{"empty description and unset ttl are not compared", kv1.IdentityProviderSpec{}, "", keystoneIDP{Description: "x", Enabled: true, AuthorizationTTL: &ttl}, nil, ""},
		{"remote IDs removed when the spec lists none", kv1.IdentityProviderSpec{}, "", keystoneIDP{Enabled: true, RemoteIDs: []string{"c"}}, []string{"remote_ids"}, ""},
		{"another domain is not patched", spec, "d2", upToDate, nil, "delete the identity provider in Keystone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, fields, err := idpDiff("identity provider x", tc.spec, tc.did, tc.ks)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fields, tc.wantFields) || len(body) != len(tc.wantFields) {
				t.Fatalf("fields = %v (body %v), want %v", fields, body, tc.wantFields)
			}
		})
	}
}
