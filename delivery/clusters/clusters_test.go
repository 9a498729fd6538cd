package clusters

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

func TestValidateClusterName(t *testing.T) {
	for _, tc := range []struct {
		name    multicluster.ClusterName
		tooLong bool
		invalid bool
	}{
		{name: LocalCluster},
		{name: "target-a"},
		{name: multicluster.ClusterName(strings.Repeat("a", 63))},
		{name: multicluster.ClusterName(strings.Repeat("a", 64)), tooLong: true},
		{name: "a.b-c"},
		{name: "-leading-dash", invalid: true},
	} {
		err := ValidateClusterName(tc.name)
		if got := errors.Is(err, ErrClusterNameTooLong); got != tc.tooLong {
			t.Errorf("%q: too long %v, want %v (%v)", tc.name, got, tc.tooLong, err)
		}
		if got := err != nil && !tc.tooLong; got != tc.invalid {
			t.Errorf("%q: invalid %v, want %v (%v)", tc.name, got, tc.invalid, err)
		}
	}
}

func TestOptionsDefaults(t *testing.T) {
	if _, err := (Options{}).withDefaults(); err == nil {
		t.Fatal("no namespace: want an error")
	}
	o, err := Options{Namespace: "hub"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.SecretLabel != "sigs.k8s.io/multicluster-runtime-kubeconfig" || o.SecretKey != "kubeconfig" {
		t.Fatalf("defaults: %+v", o)
	}
	o, _ = Options{Namespace: "hub", SecretLabel: "l", SecretKey: "k"}.withDefaults()
	if o.SecretLabel != "l" || o.SecretKey != "k" {
		t.Fatalf("overrides lost: %+v", o)
	}
}
