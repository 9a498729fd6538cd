package topology

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// Routing keys default to the partition indexes and must match the
// partition count otherwise (upstream's super_stream_controller.go).
func TestSuperStreamRoutingKeys(t *testing.T) {
	if got, err := superStreamRoutingKeys(3, nil); err != nil || fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("3 partitions, no keys: %v, %v", got, err)
	}
	if got, err := superStreamRoutingKeys(2, []string{"eu", "us"}); err != nil || fmt.Sprint(got) != "[eu us]" {
		t.Errorf("2 partitions, keys eu us: %v, %v", got, err)
	}
	if _, err := superStreamRoutingKeys(3, []string{"eu", "us"}); err == nil {
		t.Error("3 partitions with 2 keys: no error")
	}
}

// The resources of a SuperStream are upstream's: names, labels and specs
// (internal/managedresource/superstream_*.go).
func TestSuperStreamChildren(t *testing.T) {
	o := &rmqv1.SuperStream{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "orders"}}
	d := superStreamDesired{Vhost: "v", Name: "orders", RoutingKeys: []string{"eu", "us"}, Cluster: rmqv1.RabbitmqClusterReference{Name: "c"}}
	var got []string
	for _, c := range superStreamChildren(o, d) {
		c.apply(c.obj)
		var spec any
		switch x := c.obj.(type) {
		case *rmqv1.Exchange:
			spec = fmt.Sprintf("%s %s %s %v", x.Spec.Name, x.Spec.Vhost, x.Spec.Type, x.Spec.Durable)
		case *rmqv1.Queue:
			spec = fmt.Sprintf("%s %s %s %v", x.Spec.Name, x.Spec.Vhost, x.Spec.Type, *x.Spec.Durable)
		case *rmqv1.Binding:
			spec = fmt.Sprintf("%s>%s %s %s %s", x.Spec.Source, x.Spec.Destination, x.Spec.DestinationType, x.Spec.RoutingKey, x.Spec.Arguments.Raw)
		}
		got = append(got, fmt.Sprintf("%s/%s %v %v", c.obj.GetNamespace(), c.obj.GetName(), c.obj.GetLabels()[LabelSuperStreamRoutingKey], spec))
	}
	want := []string{
		"ns/orders-exchange  orders v direct true",
		"ns/orders-partition-0 eu orders-eu v stream true",
		`ns/orders-binding-0 eu orders>orders-eu queue eu {"x-stream-partition-order":0}`,
		"ns/orders-partition-1 us orders-us v stream true",
		`ns/orders-binding-1 us orders>orders-us queue us {"x-stream-partition-order":1}`,
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("children:\n%q\nwant\n%q", got, want)
	}
}
