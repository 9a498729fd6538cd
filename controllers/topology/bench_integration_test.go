//go:build integration

package topology

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// BenchmarkTopology_QueuesWithBindings applies N queues, each bound to one
// exchange, and reports:
//
//   - s/apply-to-ready: from the first create until every Queue and Binding
//     is Ready;
//   - req/object-apply: management API requests per object while applying;
//   - put+post/object-steady and get/object-steady: requests per object
//     after every object received a no-op event (an annotation), i.e. in
//     steady state without drift (target 0 PUT/POST);
//   - heap-MB: live heap of the test process (controller, caches and the
//     benchmark's own objects) after a GC with everything Ready;
//   - s/delete-all: from deleting every resource until all are finalized.
//
// N is TOPOLOGY_BENCH_N (default 100). Run it alone:
//
//	TOPOLOGY_BENCH_N=1000 go test -tags integration -run '^$' \
//	  -bench BenchmarkTopology -benchtime 1x -timeout 30m ./controllers/topology/
//
// Requests are counted by a transport in front of the controller's
// rabbit-hole client: a counting reverse proxy in process.
func BenchmarkTopology_QueuesWithBindings(b *testing.B) {
	n := 100
	if v, err := strconv.Atoi(os.Getenv("TOPOLOGY_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := uniq("topology-bench")
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		b.Fatal(err)
	}
	counter := &countingTransport{next: http.DefaultTransport}
	mgr, broker := newManager(ns, counter)
	if _, err := SetupWithManager(ctx, mgr, Options{Broker: broker, ClusterName: clusterName, Namespace: ns,
		ResyncPeriod: time.Hour, MaxConcurrentReconciles: 4}); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	defer func() { cancel(); <-done }()

	b.ResetTimer()
	for iter := 0; iter < b.N; iter++ {
		run := fmt.Sprintf("r%d-%d", iter, time.Now().UnixNano()%100000)
		label := map[string]string{"bench-run": run}
		ex := &rmqv1.Exchange{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ex-" + run, Labels: label},
			Spec: rmqv1.ExchangeSpec{Name: "bench-ex-" + run, Type: "direct", Durable: true, RabbitmqClusterReference: ref()}}
		var objs []object
		objs = append(objs, ex)
		for i := 0; i < n; i++ {
			qn := fmt.Sprintf("bench-%s-q%d", run, i)
			objs = append(objs,
				&rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("q-%s-%d", run, i), Labels: label},
					Spec: rmqv1.QueueSpec{Durable: new(true), Name: qn, RabbitmqClusterReference: ref()}},
				&rmqv1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("b-%s-%d", run, i), Labels: label},
					Spec: rmqv1.BindingSpec{Source: ex.Spec.Name, Destination: qn, DestinationType: "queue", RoutingKey: qn, RabbitmqClusterReference: ref()}})
		}
		counter.reset()
		start := time.Now()
		parallel(b, objs, func(o object) error { return kube.Create(ctx, o) })
		waitAll(b, ns, label, len(objs), func(o object) bool {
			c := meta.FindStatusCondition(o.TopologyStatus().Conditions, rmqv1.ConditionReady)
			return c != nil && c.Status == metav1.ConditionTrue
		})
		b.ReportMetric(time.Since(start).Seconds(), "s/apply-to-ready")
		b.ReportMetric(float64(counter.total())/float64(len(objs)), "req/object-apply")

		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")

		// Steady state: a no-op event on every object, then count requests
		// once every controller has reconciled that many more times.
		counter.reset()
		before := reconcileTotal(b)
		parallel(b, objs, func(o object) error {
			patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"annotations":{"bench/poke":"`+run+`"}}}`))
			return kube.Patch(ctx, o, patch)
		})
		deadline := time.Now().Add(5 * time.Minute)
		for reconcileTotal(b)-before < float64(len(objs)) {
			if time.Now().After(deadline) {
				b.Fatalf("only %v of %d no-op reconciles happened", reconcileTotal(b)-before, len(objs))
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.ReportMetric(float64(counter.put.Load()+counter.post.Load())/float64(len(objs)), "put+post/object-steady")
		b.ReportMetric(float64(counter.get.Load())/float64(len(objs)), "get/object-steady")

		start = time.Now()
		parallel(b, objs, func(o object) error { return client.IgnoreNotFound(kube.Delete(ctx, o)) })
		waitAll(b, ns, label, 0, nil)
		b.ReportMetric(time.Since(start).Seconds(), "s/delete-all")
	}
}

func (c *countingTransport) reset() {
	c.get.Store(0)
	c.put.Store(0)
	c.post.Store(0)
	c.delete.Store(0)
}

func (c *countingTransport) total() int64 {
	return c.get.Load() + c.put.Load() + c.post.Load() + c.delete.Load()
}

// parallel applies f to objs with 8 workers.
func parallel(b *testing.B, objs []object, f func(object) error) {
	b.Helper()
	var wg sync.WaitGroup
	work := make(chan object)
	errs := make(chan error, len(objs))
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				if err := f(o); err != nil && !apierrors.IsConflict(err) {
					errs <- fmt.Errorf("%T %s: %w", o, o.GetName(), err)
				}
			}
		}()
	}
	for _, o := range objs {
		work <- o
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// waitAll polls until want objects labelled label exist and (when ok is
// set) all satisfy ok.
func waitAll(b *testing.B, ns string, label map[string]string, want int, ok func(object) bool) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Minute)
	for {
		var exs rmqv1.ExchangeList
		var qs rmqv1.QueueList
		var bs rmqv1.BindingList
		opts := []client.ListOption{client.InNamespace(ns), client.MatchingLabels(label)}
		if err := kube.List(context.Background(), &exs, opts...); err != nil {
			b.Fatal(err)
		}
		if err := kube.List(context.Background(), &qs, opts...); err != nil {
			b.Fatal(err)
		}
		if err := kube.List(context.Background(), &bs, opts...); err != nil {
			b.Fatal(err)
		}
		var all []object
		for i := range exs.Items {
			all = append(all, &exs.Items[i])
		}
		for i := range qs.Items {
			all = append(all, &qs.Items[i])
		}
		for i := range bs.Items {
			all = append(all, &bs.Items[i])
		}
		good := 0
		for _, o := range all {
			if ok == nil || ok(o) {
				good++
			}
		}
		if len(all) == want && good == want {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d objects, %d as wanted; want %d", len(all), good, want)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// reconcileTotal sums controller_runtime_reconcile_total over the
// topology controllers.
func reconcileTotal(b *testing.B) float64 {
	b.Helper()
	mfs, err := crmetrics.Registry.Gather()
	if err != nil {
		b.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && len(l.GetValue()) > 9 && l.GetValue()[:9] == "topology-" {
					sum += m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}
