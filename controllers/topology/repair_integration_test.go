//go:build integration

package topology

import (
	"fmt"
	"strings"
	"testing"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// repairEvent returns the note of a DriftRepaired event about obj that
// contains want, or an error saying what events there are.
func repairEvent(obj client.Object, want string) error {
	var list eventsv1.EventList
	if err := kube.List(bg, &list, client.InNamespace(obj.GetNamespace())); err != nil {
		return err
	}
	var seen []string
	for _, e := range list.Items {
		if e.Regarding.UID != obj.GetUID() {
			continue
		}
		seen = append(seen, e.Reason+": "+e.Note)
		if e.Reason == EventReasonDriftRepaired && e.Type == "Normal" && strings.Contains(e.Note, want) {
			return nil
		}
	}
	return fmt.Errorf("no DriftRepaired event naming %q; events %q", want, seen)
}

// docs/topology.md, "Reconciliation": a resync that repairs drift says so.
// A binding gone because its exchange was deleted and declared again behind
// the controller's back is declared again with a Normal DriftRepaired event
// naming the missing binding, and counted in orderhub_topology_repairs_total;
// a queue deleted in the broker likewise. Every management API request is
// counted in orderhub_rabbitmq_requests_total by method and status code.
func TestIntegration_Topology_DriftRepairIsVisible(t *testing.T) {
	bindingRepairs := testenv.CounterSum(t, "orderhub_topology_repairs_total", map[string]string{"kind": "Binding"})
	queueRepairs := testenv.CounterSum(t, "orderhub_topology_repairs_total", map[string]string{"kind": "Queue"})

	ex := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: uniq("redeclared-ex"), Type: "direct", RabbitmqClusterReference: ref()}}
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("drift-q"), RabbitmqClusterReference: ref()}}
	b := &rmqv1.Binding{ObjectMeta: meta_(uniq("b")), Spec: rmqv1.BindingSpec{Source: ex.Spec.Name, Destination: q.Spec.Name,
		DestinationType: "queue", RoutingKey: "rk", RabbitmqClusterReference: ref()}}
	for _, o := range []object{ex, q, b} {
		create(t, o)
		waitReady(t, o)
	}

	// The exchange deleted and declared again as it was: the exchange is in
	// sync, its binding is gone.
	if _, err := admin.DeleteExchange("/", ex.Spec.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.DeclareExchange("/", ex.Spec.Name, rabbithole.ExchangeSettings{Type: "direct"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the binding is repaired and says so", func() error { return repairEvent(b, "binding from exchange") })
	bs, err := admin.ListQueueBindingsBetween("/", ex.Spec.Name, q.Spec.Name)
	if err != nil || len(bs) != 1 || bs[0].RoutingKey != "rk" {
		t.Fatalf("bindings after the repair: %+v, %v", bs, err)
	}

	if _, err := admin.DeleteQueue("/", q.Spec.Name); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the queue is repaired and says so", func() error {
		return repairEvent(q, fmt.Sprintf("queue %q in vhost \"/\" was missing", q.Spec.Name))
	})

	if got := testenv.CounterSum(t, "orderhub_topology_repairs_total", map[string]string{"kind": "Binding"}); got < bindingRepairs+1 {
		t.Fatalf("Binding repairs counted %v, was %v", got, bindingRepairs)
	}
	if got := testenv.CounterSum(t, "orderhub_topology_repairs_total", map[string]string{"kind": "Queue"}); got < queueRepairs+1 {
		t.Fatalf("Queue repairs counted %v, was %v", got, queueRepairs)
	}
	for _, l := range []map[string]string{{"method": "GET", "code": "200"}, {"method": "PUT", "code": "201"}, {"method": "POST", "code": "201"}} {
		if testenv.CounterSum(t, "orderhub_rabbitmq_requests_total", l) == 0 {
			t.Errorf("no request counted with %v", l)
		}
	}
}
