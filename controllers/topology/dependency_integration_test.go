//go:build integration

package topology

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// queueGate holds every queue declaration (PUT /api/queues/...) until it is
// opened, counting those that arrived.
type queueGate struct {
	next    http.RoundTripper
	open    chan struct{}
	once    sync.Once
	arrived atomic.Int64
}

func (g *queueGate) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && strings.HasPrefix(req.URL.EscapedPath(), "/api/queues/") {
		g.arrived.Add(1)
		select {
		case <-g.open:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	return g.next.RoundTrip(req)
}

func (g *queueGate) release() { g.once.Do(func() { close(g.open) }) }

// docs/topology.md, "Reconciliation": a Binding applied with its Queue waits
// for the Queue to report instead of reaching the broker first. Here the
// Queue's declaration is held at the broker's door; the Binding must wait
// (the dependency-wait counter rises, no POST) and, once the Queue is
// declared, be woken by it and declared with exactly one POST, never
// answered 404.
func TestIntegration_Topology_BindingWaitsForItsQueue(t *testing.T) {
	counter := &countingTransport{next: http.DefaultTransport}
	gate := &queueGate{next: counter, open: make(chan struct{})}
	// The poll of a waiting Binding (DependencyRetry) and the wait's bound
	// are longer than the test, so only the Queue's wake-up can end it.
	ns := startOwnControllers(t, "topology-wait", Options{ResyncPeriod: time.Hour,
		BackoffBase: 100 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
		DependencyRetry: 10 * time.Minute, DependencyWait: 10 * time.Minute}, gate)
	waits := func() float64 {
		return testenv.CounterSum(t, "orderhub_topology_dependency_waits_total", map[string]string{"kind": "Binding"})
	}
	before := waits()

	ex := &rmqv1.Exchange{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("ex")},
		Spec: rmqv1.ExchangeSpec{Name: uniq("wait-ex"), Type: "direct", RabbitmqClusterReference: ref()}}
	q := &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("q")},
		Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("wait-q"), RabbitmqClusterReference: ref()}}
	b := &rmqv1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("b")},
		Spec: rmqv1.BindingSpec{Source: ex.Spec.Name, Destination: q.Spec.Name, DestinationType: "queue",
			RoutingKey: "k", RabbitmqClusterReference: ref()}}
	create(t, ex)
	create(t, q)
	t.Cleanup(gate.release) // before the deletions, which need the Queue's reconcile free
	waitReady(t, ex)
	eventually(t, "the Queue's declaration reaches the gate", func() error {
		if gate.arrived.Load() == 0 {
			return fmt.Errorf("no queue PUT yet")
		}
		return nil
	})
	create(t, b)
	eventually(t, "the Binding waits for its Queue", func() error {
		if w := waits(); w <= before {
			return fmt.Errorf("dependency waits of Bindings: %v, want more than %v", w, before)
		}
		return nil
	})
	if n := counter.post.Load(); n != 0 {
		t.Fatalf("%d binding POSTs while its Queue was not declared, want 0", n)
	}
	if c, err := readyStatus(b); err != nil || c != nil {
		t.Fatalf("the waiting Binding has Ready %+v (%v), want no status written", c, err)
	}

	gate.release()
	waitReady(t, q)
	waitReady(t, b)
	if n := counter.post.Load(); n != 1 {
		t.Fatalf("%d binding POSTs, want exactly 1", n)
	}
	got, err := admin.ListQueueBindingsBetween("/", ex.Spec.Name, q.Spec.Name)
	if err != nil || len(got) != 1 || got[0].RoutingKey != "k" {
		t.Fatalf("bindings between %s and %s: %+v, %v", ex.Spec.Name, q.Spec.Name, got, err)
	}
}
