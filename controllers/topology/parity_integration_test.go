//go:build integration

package topology

import (
	"fmt"
	"testing"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// docs/topology.md, "Compatibility with the upstream operator": a Binding
// without destinationType binds to an exchange, as upstream's does, and its
// deletion removes exactly that exchange-to-exchange binding.
func TestIntegration_Topology_BindingWithoutDestinationTypeBindsAnExchange(t *testing.T) {
	src := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: uniq("src-ex"), Type: "topic", RabbitmqClusterReference: ref()}}
	dst := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: uniq("dst-ex"), Type: "fanout", RabbitmqClusterReference: ref()}}
	create(t, src)
	create(t, dst)
	b := &rmqv1.Binding{ObjectMeta: meta_(uniq("b")), Spec: rmqv1.BindingSpec{Source: src.Spec.Name, Destination: dst.Spec.Name,
		RoutingKey: "events.#", RabbitmqClusterReference: ref()}}
	create(t, b)
	waitReady(t, b)
	if b.Spec.DestinationType != "" {
		t.Fatalf("destinationType stored as %q; upstream stores no default", b.Spec.DestinationType)
	}
	bs, err := admin.ListExchangeBindingsBetween("/", src.Spec.Name, dst.Spec.Name)
	if err != nil || len(bs) != 1 || bs[0].DestinationType != "exchange" || bs[0].RoutingKey != "events.#" {
		t.Fatalf("exchange bindings between %s and %s: %+v, %v", src.Spec.Name, dst.Spec.Name, bs, err)
	}
	deleteAndWait(t, b)
	eventually(t, "the exchange binding is deleted", func() error {
		bs, err := admin.ListExchangeBindingsBetween("/", src.Spec.Name, dst.Spec.Name)
		if err == nil && len(bs) != 0 {
			return fmt.Errorf("%d bindings left", len(bs))
		}
		return err
	})
}
