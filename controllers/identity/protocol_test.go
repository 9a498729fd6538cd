package identity

import (
	"reflect"
	"testing"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

func TestProtocolDiff(t *testing.T) {
	spec := kv1.ProtocolSpec{Mapping: "m", RemoteIDAttribute: "OIDC-iss"}
	tests := []struct {
		name   string
		spec   kv1.ProtocolSpec
		ks     keystoneProtocol
		resync bool
		want   []string
	}{
		{"up to date", spec, keystoneProtocol{MappingID: "m", RemoteIDAttribute: ptr("OIDC-iss")}, true, nil},
		{"both drifted", spec, keystoneProtocol{MappingID: "x", RemoteIDAttribute: ptr("y")}, true, []string{"mapping_id", "remote_id_attribute"}},
		{"attribute not returned, resync: not compared", spec, keystoneProtocol{MappingID: "m"}, true, nil},
		{"attribute not returned, spec new or changed: sent", spec, keystoneProtocol{MappingID: "m"}, false, []string{"remote_id_attribute"}},
		{"attribute unset in the spec", kv1.ProtocolSpec{Mapping: "m"}, keystoneProtocol{MappingID: "m", RemoteIDAttribute: ptr("y")}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, fields := protocolDiff(tc.spec, tc.ks, tc.resync)
			if !reflect.DeepEqual(fields, tc.want) || len(body) != len(tc.want) {
				t.Fatalf("fields = %v (body %v), want %v", fields, body, tc.want)
			}
		})
	}
}
