package identity

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestSameRules(t *testing.T) {
	spec := []apiextensionsv1.JSON{{Raw: []byte(`{"remote": [{"type": "A"}], "local": [{"user": {"name": "{0}"}}]}`)}}
	tests := []struct {
		name     string
		observed string
		want     bool
	}{
		{"same, other key order and spacing", `[{"local":[{"user":{"name":"{0}"}}],"remote":[{"type":"A"}]}]`, true},
		{"a value changed", `[{"local":[{"user":{"name":"x"}}],"remote":[{"type":"A"}]}]`, false},
		{"a field added", `[{"local":[{"user":{"name":"{0}"}}],"remote":[{"type":"A","regex":true}]}]`, false},
		{"a rule more", `[{"local":[{"user":{"name":"{0}"}}],"remote":[{"type":"A"}]},{"local":[],"remote":[]}]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sameRules(spec, json.RawMessage(tc.observed))
			if err != nil || got != tc.want {
				t.Fatalf("sameRules = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
