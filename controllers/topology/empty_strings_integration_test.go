//go:build integration

package topology

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// docs/topology.md, "Remaining differences" (Empty strings beside the other
// field): a field present with "" counts as set, so the apiserver refuses
// rabbitmqClusterReference.name "" beside a connectionSecret and a
// Permission's user "" beside userReference (upstream reads both as unset),
// and admits the same objects with the empty field left out.
func TestIntegration_Topology_EmptyStringBesideTheOtherFieldIsRefused(t *testing.T) {
	secretRef := map[string]any{"connectionSecret": map[string]any{"name": "broker"}}
	cases := []struct {
		name, kind, want  string
		refused, admitted map[string]any
	}{
		{"empty cluster name beside connectionSecret", "Vhost", "exactly one of name and connectionSecret",
			map[string]any{"name": "v", "rabbitmqClusterReference": map[string]any{"name": "", "connectionSecret": map[string]any{"name": "broker"}}},
			map[string]any{"name": "v", "rabbitmqClusterReference": secretRef}},
		{"empty user beside userReference", "Permission", "exactly one of user and userReference",
			map[string]any{"vhost": "/", "user": "", "userReference": map[string]any{"name": "u"}, "rabbitmqClusterReference": map[string]any{"name": clusterName},
				"permissions": map[string]any{"read": ".*"}},
			map[string]any{"vhost": "/", "userReference": map[string]any{"name": "u"}, "rabbitmqClusterReference": map[string]any{"name": clusterName},
				"permissions": map[string]any{"read": ".*"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := func(spec map[string]any) *unstructured.Unstructured {
				return &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "rabbitmq.osh.openstack.org/v1alpha1", "kind": c.kind,
					"metadata": map[string]any{"namespace": suiteNS, "name": uniq("empty")}, "spec": spec}}
			}
			err := kube.Create(context.Background(), obj(c.refused))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("create with the empty field: %v, want a refusal containing %q", err, c.want)
			}
			create(t, obj(c.admitted))
		})
	}
}
