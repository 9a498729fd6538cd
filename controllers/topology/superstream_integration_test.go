//go:build integration

package topology

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// Admission refuses what upstream's webhook refuses
// (internal/webhook/v1alpha1/superstream_webhook.go) and the routing key
// count its reconciler refuses (super_stream_controller.go), naming the
// rule; it admits growing partitions with routing keys appended. The
// resource is served by no controller (another cluster name), so no
// broker object is written.
func TestIntegration_Topology_SuperStreamBadSpecIsRefused(t *testing.T) {
	other := rmqv1.RabbitmqClusterReference{Name: "not-" + clusterName}
	err := kube.Create(bg, &rmqv1.SuperStream{ObjectMeta: meta_(uniq("ss-bad")),
		Spec: rmqv1.SuperStreamSpec{Name: "x", Partitions: 3, RoutingKeys: []string{"a", "b"}, RabbitmqClusterReference: other}})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "the number of routingKeys must match partitions") {
		t.Errorf("2 routing keys for 3 partitions: got %v, want Invalid naming the rule", err)
	}

	ss := &rmqv1.SuperStream{ObjectMeta: meta_(uniq("ss-imm")),
		Spec: rmqv1.SuperStreamSpec{Name: "x", Partitions: 2, RoutingKeys: []string{"a", "b"}, RabbitmqClusterReference: other}}
	create(t, ss)
	for want, patch := range map[string]string{
		"partitions may only increase":        `{"spec":{"partitions":1,"routingKeys":["a"]}}`,
		"routingKeys may only be appended to": `{"spec":{"routingKeys":["b","a"]}}`,
		"name is immutable":                   `{"spec":{"name":"y"}}`,
		"vhost is immutable":                  `{"spec":{"vhost":"other"}}`,
	} {
		err := kube.Patch(bg, ss.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch)))
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("patch %s: got %v, want Invalid with %q", patch, err, want)
		}
	}
	if err := kube.Patch(bg, ss.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"partitions":3,"routingKeys":["a","b","c"]}}`))); err != nil {
		t.Errorf("growing partitions with a routing key appended: %v", err)
	}
}
