//go:build integration

package topology

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// switchTransport fails every request while down is set, like an
// unreachable broker.
type switchTransport struct {
	next http.RoundTripper
	down atomic.Bool
}

var errUnreachable = errors.New("dial tcp 127.0.0.1:15672: connect: connection refused")

func (s *switchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if s.down.Load() {
		return nil, errUnreachable
	}
	return s.next.RoundTrip(req)
}

// Upstream issue 1206: an unreachable broker makes every resource
// Ready=False with the transport error and backs off per resource; when the
// broker returns, declarations and pending deletions all complete.
func TestIntegration_Topology_UnreachableBrokerRecovers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ns := uniq("topology-down")
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	sw := &switchTransport{next: http.DefaultTransport}
	sw.down.Store(true)
	mgr, broker := newManager(ns, sw)
	if _, err := SetupWithManager(ctx, mgr, Options{Broker: broker, ClusterName: clusterName, Namespace: ns,
		ResyncPeriod: time.Hour, BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	const n = 20
	var queues []*rmqv1.Queue
	for i := 0; i < n; i++ {
		q := &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("q%d", i)},
			Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("down-q"), RabbitmqClusterReference: ref()}}
		if err := kube.Create(ctx, q); err != nil {
			t.Fatal(err)
		}
		queues = append(queues, q)
	}
	allReady := func(want metav1.ConditionStatus, message string) func() error {
		return func() error {
			for _, q := range queues {
				var got rmqv1.Queue
				if err := kube.Get(ctx, client.ObjectKeyFromObject(q), &got); err != nil {
					return err
				}
				c := meta.FindStatusCondition(got.Status.Conditions, rmqv1.ConditionReady)
				if c == nil || c.Status != want || !strings.Contains(c.Message, message) {
					return fmt.Errorf("%s: Ready %+v", q.Name, c)
				}
			}
			return nil
		}
	}
	eventually(t, "every queue reports the unreachable broker", allReady(metav1.ConditionFalse, "connection refused"))

	sw.down.Store(false)
	eventually(t, "every queue is Ready once the broker is back", allReady(metav1.ConditionTrue, ""))

	sw.down.Store(true)
	for _, q := range queues {
		if err := kube.Delete(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// While the broker is down the finalizer holds every queue.
	var list rmqv1.QueueList
	if err := kube.List(ctx, &list, client.InNamespace(ns)); err != nil || len(list.Items) != n {
		t.Fatalf("%d queues listed while the broker is down (%v), want %d held by the finalizer", len(list.Items), err, n)
	}
	sw.down.Store(false)
	eventually(t, "every deletion completes once the broker is back", func() error {
		var list rmqv1.QueueList
		if err := kube.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return err
		}
		if len(list.Items) != 0 {
			return fmt.Errorf("%d queues left", len(list.Items))
		}
		return nil
	})
	for _, q := range queues {
		if _, err := admin.GetQueue("/", q.Spec.Name); brokerGone(err) != nil {
			t.Fatalf("queue %s in the broker after deletion: %v", q.Spec.Name, err)
		}
	}
}
