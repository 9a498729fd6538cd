package identity

import (
	"reflect"
	"testing"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

func TestSPDiff(t *testing.T) {
	spec := kv1.ServiceProviderSpec{AuthURL: "https://a/auth", SPURL: "https://a/ecp", Description: "d", RelayStatePrefix: "ss:x:"}
	tests := []struct {
		name string
		spec kv1.ServiceProviderSpec
		ks   keystoneSP
		want []string
	}{
		{"up to date", spec, keystoneSP{AuthURL: "https://a/auth", SPURL: "https://a/ecp", Description: "d", Enabled: true, RelayStatePrefix: "ss:x:"}, nil},
		{"every field drifted", spec, keystoneSP{AuthURL: "x", SPURL: "y", Description: "z", RelayStatePrefix: "ss:mem:"},
			[]string{"auth_url", "description", "enabled", "relay_state_prefix", "sp_url"}},
		{"empty description and prefix not compared", kv1.ServiceProviderSpec{AuthURL: "a", SPURL: "b"},
			keystoneSP{AuthURL: "a", SPURL: "b", Description: "z", Enabled: true, RelayStatePrefix: "ss:mem:"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, fields := spDiff(tc.spec, tc.ks)
			if !reflect.DeepEqual(fields, tc.want) || len(body) != len(tc.want) {
				t.Fatalf("fields = %v (body %v), want %v", fields, body, tc.want)
			}
		})
	}
}
