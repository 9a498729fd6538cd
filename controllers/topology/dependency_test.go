package topology

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

func TestBindingNeeds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		spec rmqv1.BindingSpec
		want []string
	}{
		{"queue destination in the default vhost", rmqv1.BindingSpec{Source: "ex", Destination: "q", DestinationType: "queue"},
			[]string{"e\x00/\x00ex", "q\x00/\x00q"}},
		{"exchange destination (destinationType omitted)", rmqv1.BindingSpec{Vhost: "v", Source: "ex", Destination: "ex2"},
			[]string{"e\x00v\x00ex", "e\x00v\x00ex2"}},
		{"the default exchange is never waited for", rmqv1.BindingSpec{Destination: "q", DestinationType: "queue"},
			[]string{"q\x00/\x00q"}},
	} {
		got := bindingNeeds(&rmqv1.Binding{Spec: tc.spec})
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %v, want %v", tc.name, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	}
	q := &rmqv1.Queue{Spec: rmqv1.QueueSpec{Name: "q"}}
	if k := declaresKey(q); k != "q\x00/\x00q" {
		t.Fatalf("declaresKey(queue) = %q", k)
	}
	if k := declaresKey(&rmqv1.Exchange{Spec: rmqv1.ExchangeSpec{Name: "ex", Vhost: "v"}}); k != "e\x00v\x00ex" {
		t.Fatalf("declaresKey(exchange) = %q", k)
	}
	// Names may hold "/": vhost "a" with queue "b/c" is not vhost "a/b" with queue "c".
	if brokerKey(destinationQueue, "a", "b/c") == brokerKey(destinationQueue, "a/b", "c") {
		t.Fatal("keys of different queues collide")
	}
}

func queueWith(gen int64, ready *metav1.Condition) *rmqv1.Queue {
	q := &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "queue", Generation: gen},
		Spec: rmqv1.QueueSpec{Name: "q", RabbitmqClusterReference: rmqv1.RabbitmqClusterReference{Name: "rmq"}}}
	if ready != nil {
		q.Status.Conditions = []metav1.Condition{*ready}
	}
	return q
}

func TestUndeclared(t *testing.T) {
	t.Parallel()
	ref := rmqv1.RabbitmqClusterReference{Name: "rmq"}
	readyAt := func(gen int64, s metav1.ConditionStatus) *metav1.Condition {
		return &metav1.Condition{Type: rmqv1.ConditionReady, Status: s, ObservedGeneration: gen}
	}
	deleting := queueWith(1, nil)
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	for _, tc := range []struct {
		name string
		dep  *rmqv1.Queue
		ref  rmqv1.RabbitmqClusterReference
		want bool
	}{
		{"never reported", queueWith(1, nil), ref, true},
		{"reported an older generation", queueWith(2, readyAt(1, metav1.ConditionTrue)), ref, true},
		{"Ready at its generation", queueWith(2, readyAt(2, metav1.ConditionTrue)), ref, false},
		{"failed at its generation: the broker explains it to the Binding", queueWith(1, readyAt(1, metav1.ConditionFalse)), ref, false},
		{"another cluster's queue", queueWith(1, nil), rmqv1.RabbitmqClusterReference{Name: "other"}, false},
		{"the same cluster named with the resources' namespace", queueWith(1, nil), rmqv1.RabbitmqClusterReference{Name: "rmq", Namespace: "ns"}, true},
		{"a cluster of another namespace", queueWith(1, nil), rmqv1.RabbitmqClusterReference{Name: "rmq", Namespace: "elsewhere"}, false},
		{"being deleted", deleting, ref, false},
	} {
		if got := undeclared(tc.dep, tc.ref); got != tc.want {
			t.Errorf("%s: undeclared = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWaitsForDependency(t *testing.T) {
	t.Parallel()
	created := time.Unix(1000, 0)
	if _, wait := waitsForDependency(created, "", created, time.Minute); wait {
		t.Fatal("waits with nothing pending")
	}
	left, wait := waitsForDependency(created, "Queue q", created.Add(20*time.Second), time.Minute)
	if !wait || left != 40*time.Second {
		t.Fatalf("20 s after creation: wait %v for %v, want true for 40s", wait, left)
	}
	if _, wait := waitsForDependency(created, "Queue q", created.Add(time.Minute), time.Minute); wait {
		t.Fatal("still waits once the limit has passed")
	}
}

func TestReadyReported(t *testing.T) {
	t.Parallel()
	ready := &metav1.Condition{Type: rmqv1.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 1}
	if !readyReported.Update(event.UpdateEvent{ObjectOld: queueWith(1, nil), ObjectNew: queueWith(1, ready)}) {
		t.Fatal("a dependency's first Ready does not wake its Bindings")
	}
	if readyReported.Update(event.UpdateEvent{ObjectOld: queueWith(1, ready), ObjectNew: queueWith(1, ready)}) {
		t.Fatal("an update that leaves Ready alone wakes the Bindings")
	}
	if readyReported.Create(event.CreateEvent{Object: queueWith(1, nil)}) {
		t.Fatal("a created dependency wakes the Bindings, which wait for it anyway")
	}
	if !readyReported.Delete(event.DeleteEvent{Object: queueWith(1, nil)}) {
		t.Fatal("a deleted dependency does not end the wait")
	}
}

// The cache lookups behind the wait and the wake-up find exactly the
// resources of the Binding's namespace that declare what it needs.
func TestPendingDependencyAndWakeUp(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := rmqv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ref := rmqv1.RabbitmqClusterReference{Name: "rmq"}
	ready := metav1.Condition{Type: rmqv1.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 1}
	undeclaredQ := &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q-res", Generation: 1},
		Spec: rmqv1.QueueSpec{Name: "q", RabbitmqClusterReference: ref}}
	elsewhere := &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "q-res", Generation: 1},
		Spec: rmqv1.QueueSpec{Name: "q", RabbitmqClusterReference: ref}}
	readyEx := &rmqv1.Exchange{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ex-res", Generation: 1},
		Spec: rmqv1.ExchangeSpec{Name: "ex", RabbitmqClusterReference: ref}, Status: rmqv1.TopologyStatus{Conditions: []metav1.Condition{ready}}}
	waiting := &rmqv1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"},
		Spec: rmqv1.BindingSpec{Source: "ex", Destination: "q", DestinationType: "queue", RabbitmqClusterReference: ref}}
	declared := &rmqv1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b-ready"},
		Spec:   rmqv1.BindingSpec{Source: "ex", Destination: "q", DestinationType: "queue", RabbitmqClusterReference: ref},
		Status: rmqv1.TopologyStatus{Conditions: []metav1.Condition{ready}}}
	other := &rmqv1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: "third", Name: "b"},
		Spec: rmqv1.BindingSpec{Source: "ex", Destination: "q", DestinationType: "queue", RabbitmqClusterReference: ref}}
	builder := fake.NewClientBuilder().WithScheme(scheme).
		WithObjects(undeclaredQ, elsewhere, readyEx, waiting, declared, other)
	for _, ix := range dependencyIndexes {
		builder = builder.WithIndex(ix.obj, ix.key, ix.fn)
	}
	kube := builder.Build()
	ctx := context.Background()

	if got, err := pendingDependency(ctx, kube, waiting); err != nil || got != "Queue q-res" {
		t.Fatalf("pendingDependency = %q, %v; want the undeclared Queue q-res", got, err)
	}
	if got, err := pendingDependency(ctx, kube, other); err != nil || got != "" {
		t.Fatalf("pendingDependency of a Binding in a third namespace = %q, %v; want none (no resource of its namespace declares its queue)", got, err)
	}
	if reqs := bindingsOfDependency(kube)(ctx, elsewhere); len(reqs) != 0 {
		t.Fatalf("a Queue of another namespace wakes %v, want none", reqs)
	}
	reqs := bindingsOfDependency(kube)(ctx, undeclaredQ)
	if len(reqs) != 1 || reqs[0].Name != "b" || reqs[0].Namespace != "ns" {
		t.Fatalf("the Queue wakes %v, want only ns/b (b-ready has Ready, third/b is in another namespace)", reqs)
	}
	if reqs := bindingsOfDependency(kube)(ctx, readyEx); len(reqs) != 1 || reqs[0].Name != "b" {
		t.Fatalf("the Exchange wakes %v, want only ns/b", reqs)
	}
}
