package topology

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/osh/reconcile"
)

// recordingActuator counts calls and fails Declare while declareErr is set.
type recordingActuator struct {
	declares, deletes int
	declareErr        error
	inSync            bool
	syncChecks        int
}

func (a *recordingActuator) Resolve(_ context.Context, o *rmqv1.Queue) (any, error) {
	return o.Spec, nil
}
func (a *recordingActuator) Declare(context.Context, *rmqv1.Queue, any) error {
	a.declares++
	return a.declareErr
}
func (a *recordingActuator) Delete(context.Context, *rmqv1.Queue) error { a.deletes++; return nil }
func (a *recordingActuator) Drift(context.Context, *rmqv1.Queue, any) ([]string, error) {
	a.syncChecks++
	if a.inSync {
		return nil, nil
	}
	return []string{`queue "q" in vhost "/" was missing`}, nil
}

type fixture struct {
	r          *reconcile.Loop[*rmqv1.Queue]
	opts       *Options
	act        *recordingActuator
	events     *events.FakeRecorder
	kube       client.Client
	now        time.Time
	statusPuts int
}

func newFixture(t *testing.T, q *rmqv1.Queue) *fixture {
	t.Helper()
	s := runtime.NewScheme()
	if err := rmqv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	f := &fixture{act: &recordingActuator{}, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var mu sync.Mutex
	f.kube = fake.NewClientBuilder().WithScheme(s).WithObjects(q).WithStatusSubresource(q).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			mu.Lock()
			f.statusPuts++
			mu.Unlock()
			return c.SubResource(sub).Patch(ctx, o, p, opts...)
		}}).Build()
	opts := &Options{Broker: &rabbithole.Client{}, ClusterName: "rabbitmq", Namespace: "openstack"}
	if err := opts.defaults(); err != nil {
		t.Fatal(err)
	}
	f.events = events.NewFakeRecorder(100)
	f.opts = opts
	k := &kindActuator[*rmqv1.Queue]{kind: "Queue", client: f.kube, act: f.act, opts: opts, events: f.events}
	f.r = newLoop(k, &Controllers{skipped: &sync.Map{}}, func() *rmqv1.Queue { return &rmqv1.Queue{} }, func() time.Time { return f.now })
	return f
}

func (f *fixture) reconcile(t *testing.T) ctrl.Result {
	t.Helper()
	res, err := f.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "openstack", Name: "q"}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (f *fixture) get(t *testing.T) *rmqv1.Queue {
	t.Helper()
	var q rmqv1.Queue
	if err := f.kube.Get(context.Background(), types.NamespacedName{Namespace: "openstack", Name: "q"}, &q); err != nil {
		t.Fatal(err)
	}
	return &q
}

func queue(ref rmqv1.RabbitmqClusterReference, finalizers ...string) *rmqv1.Queue {
	return &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "q", UID: "uid-1", Generation: 1, Finalizers: finalizers},
		Spec: rmqv1.QueueSpec{Name: "q", Vhost: "/", RabbitmqClusterReference: ref}}
}

func TestReconcile_ForeignResourceGetsNoStatusAndLosesOnlyOurFinalizer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, queue(rmqv1.RabbitmqClusterReference{ConnectionSecret: &corev1.LocalObjectReference{Name: "c"}}, rmqv1.Finalizer, "other/finalizer"))
	f.reconcile(t)
	f.reconcile(t)
	q := f.get(t)
	if f.act.declares != 0 || f.act.deletes != 0 || f.statusPuts != 0 || len(q.Status.Conditions) != 0 {
		t.Fatalf("declares=%d deletes=%d statusWrites=%d conditions=%v", f.act.declares, f.act.deletes, f.statusPuts, q.Status.Conditions)
	}
	if controllerutil.ContainsFinalizer(q, rmqv1.Finalizer) || !controllerutil.ContainsFinalizer(q, "other/finalizer") {
		t.Fatalf("finalizers %v", q.Finalizers)
	}
	if _, ok := f.r.Skipped.Load(types.UID("uid-1")); !ok {
		t.Fatal("the skip was not recorded")
	}
}

func TestReconcile_DeclaresOnceThenOnlyOnResync(t *testing.T) {
	t.Parallel()
	f := newFixture(t, queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}))
	res := f.reconcile(t)
	q := f.get(t)
	c := meta.FindStatusCondition(q.Status.Conditions, rmqv1.ConditionReady)
	if f.act.declares != 1 || c == nil || c.Status != metav1.ConditionTrue || c.Reason != rmqv1.ReasonSuccessfulCreateOrUpdate || q.Status.ObservedGeneration != 1 {
		t.Fatalf("declares=%d ready=%+v observedGeneration=%d", f.act.declares, c, q.Status.ObservedGeneration)
	}
	if !controllerutil.ContainsFinalizer(q, rmqv1.Finalizer) {
		t.Fatal("deletionPolicy delete (the default) must add the finalizer")
	}
	if res.RequeueAfter < f.opts.ResyncPeriod {
		t.Fatalf("requeue after %v, want the resync period", res.RequeueAfter)
	}
	writes := f.statusPuts
	f.now = f.now.Add(time.Minute)
	f.reconcile(t) // a no-op event
	if f.act.declares != 1 || f.statusPuts != writes || f.act.syncChecks != 0 {
		t.Fatalf("a no-op event sent requests: declares=%d syncChecks=%d statusWrites=%d", f.act.declares, f.act.syncChecks, f.statusPuts-writes)
	}
	f.now = f.now.Add(f.opts.ResyncPeriod)
	f.act.inSync = true
	f.reconcile(t) // forced resync without drift: a read, no declaration
	if f.act.declares != 1 || f.act.syncChecks != 1 {
		t.Fatalf("resync without drift: declares=%d syncChecks=%d", f.act.declares, f.act.syncChecks)
	}
	f.now = f.now.Add(f.opts.ResyncPeriod)
	f.act.inSync = false
	f.reconcile(t) // forced resync with drift: declared again
	if f.act.declares != 2 {
		t.Fatalf("resync with drift: declares=%d", f.act.declares)
	}
}

func TestReconcile_FailureIsReportedAndBackedOff(t *testing.T) {
	t.Parallel()
	f := newFixture(t, queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}))
	f.act.declareErr = rabbithole.ErrorResponse{StatusCode: 400, Message: "bad_request", Reason: "inequivalent arg 'x-queue-type'"}
	res := f.reconcile(t)
	q := f.get(t)
	c := meta.FindStatusCondition(q.Status.Conditions, rmqv1.ConditionReady)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != rmqv1.ReasonFailedCreateOrUpdate || c.Message != "broker answered HTTP 400: inequivalent arg 'x-queue-type'" {
		t.Fatalf("ready=%+v", c)
	}
	if res.RequeueAfter != f.opts.BackoffBase {
		t.Fatalf("requeue after %v, want the first backoff %v", res.RequeueAfter, f.opts.BackoffBase)
	}
	f.reconcile(t) // an event inside the backoff: no request
	if f.act.declares != 1 {
		t.Fatalf("declared %d times inside the backoff", f.act.declares)
	}
	f.now = f.now.Add(f.opts.BackoffBase)
	res = f.reconcile(t)
	if f.act.declares != 2 || res.RequeueAfter != 2*f.opts.BackoffBase {
		t.Fatalf("declares=%d requeue=%v, want a doubled backoff", f.act.declares, res.RequeueAfter)
	}
	f.act.declareErr = nil
	f.now = f.now.Add(time.Hour)
	f.reconcile(t)
	c = meta.FindStatusCondition(f.get(t).Status.Conditions, rmqv1.ConditionReady)
	if c.Status != metav1.ConditionTrue {
		t.Fatalf("after recovery ready=%+v", c)
	}
}

func TestReconcile_DeletionHonoursPolicy(t *testing.T) {
	t.Parallel()
	for _, policy := range []rmqv1.DeletionPolicy{rmqv1.DeletionPolicyDelete, rmqv1.DeletionPolicyRetain} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			q := queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}, rmqv1.Finalizer)
			q.Spec.DeletionPolicy = policy
			f := newFixture(t, q)
			if err := f.kube.Delete(context.Background(), q); err != nil {
				t.Fatal(err)
			}
			f.reconcile(t)
			want := 0
			if policy == rmqv1.DeletionPolicyDelete {
				want = 1
			}
			if f.act.deletes != want || f.act.declares != 0 {
				t.Fatalf("deletes=%d declares=%d, want %d deletes", f.act.deletes, f.act.declares, want)
			}
			var gone rmqv1.Queue
			if err := f.kube.Get(context.Background(), client.ObjectKeyFromObject(q), &gone); err == nil {
				t.Fatalf("still present with finalizers %v", gone.Finalizers)
			}
		})
	}
}

func TestReconcile_RetainRemovesFinalizer(t *testing.T) {
	t.Parallel()
	q := queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}, rmqv1.Finalizer)
	q.Spec.DeletionPolicy = rmqv1.DeletionPolicyRetain
	f := newFixture(t, q)
	f.reconcile(t)
	if controllerutil.ContainsFinalizer(f.get(t), rmqv1.Finalizer) {
		t.Fatal("retain must not hold a finalizer")
	}
}

func TestReconcile_MissingDependencyRetriesPromptlyThenBacksOff(t *testing.T) {
	t.Parallel()
	f := newFixture(t, queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}))
	f.act.declareErr = rabbithole.ErrorResponse{StatusCode: 404, Message: "not_found", Reason: "vhost_not_found"}
	var res ctrl.Result
	for i := 0; i < dependencyRetries; i++ {
		res = f.reconcile(t)
		f.now = f.now.Add(res.RequeueAfter)
	}
	if f.act.declares != dependencyRetries || res.RequeueAfter > f.opts.DependencyRetry {
		t.Fatalf("declares=%d requeue=%v, want every wake-up to retry within %v", f.act.declares, res.RequeueAfter, f.opts.DependencyRetry)
	}
	// A refusal that persists backs off: each wait doubles up to BackoffMax.
	for i := 0; i < 12; i++ {
		prev := res.RequeueAfter
		res = f.reconcile(t)
		f.now = f.now.Add(res.RequeueAfter)
		if res.RequeueAfter != min(2*prev, f.opts.BackoffMax) {
			t.Fatalf("wait %v after %v, want it doubled up to %v", res.RequeueAfter, prev, f.opts.BackoffMax)
		}
	}
	if f.act.declares != dependencyRetries+12 {
		t.Fatalf("declares=%d, want one per wake-up", f.act.declares)
	}
	f.act.declareErr = rabbithole.ErrorResponse{StatusCode: 503, Message: "unavailable"}
	for i := 0; i < 12; i++ {
		res = f.reconcile(t)
		f.now = f.now.Add(res.RequeueAfter)
	}
	if res.RequeueAfter != f.opts.BackoffMax {
		t.Fatalf("a broker failure backs off to %v, want %v", res.RequeueAfter, f.opts.BackoffMax)
	}
}

// drained returns the events recorded so far.
func (f *fixture) drained() []string {
	var out []string
	for {
		select {
		case e := <-f.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func countPrefix(events []string, prefix string) int {
	n := 0
	for _, e := range events {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

// A resync that finds drift and repairs it says so once, with what was
// missing, also when the repairing declaration first fails; a resync
// without drift and a first declaration say nothing of a repair.
func TestReconcile_RepairIsReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}))
	repair := corev1.EventTypeNormal + " " + EventReasonDriftRepaired + ` repaired in RabbitMQ: queue "q" in vhost "/" was missing`
	f.reconcile(t) // first declaration: not a repair
	f.now = f.now.Add(f.opts.ResyncPeriod)
	f.act.inSync = true
	f.reconcile(t) // resync without drift
	if got := countPrefix(f.drained(), corev1.EventTypeNormal+" "+EventReasonDriftRepaired); got != 0 {
		t.Fatalf("%d repair events without drift", got)
	}

	f.now = f.now.Add(f.opts.ResyncPeriod)
	f.act.inSync = false
	f.reconcile(t) // drift, repaired at once
	if got := countPrefix(f.drained(), repair); got != 1 {
		t.Fatalf("%d repair events, want 1", got)
	}

	f.now = f.now.Add(f.opts.ResyncPeriod)
	f.act.declareErr = rabbithole.ErrorResponse{StatusCode: 404, Message: "not_found", Reason: "no exchange"}
	f.reconcile(t) // drift, the repair fails
	if got := countPrefix(f.drained(), repair); got != 0 {
		t.Fatalf("%d repair events for a failed repair", got)
	}
	f.act.declareErr = nil
	f.now = f.now.Add(f.opts.DependencyRetry)
	f.reconcile(t) // the retry succeeds: reported as the repair
	if got := countPrefix(f.drained(), repair); got != 1 {
		t.Fatalf("%d repair events after the retried repair, want 1", got)
	}
}

// The first Ready of a resource emits no event (the status patch says it);
// a failure emits a Warning, and Ready turning True again a Normal event.
func TestReconcile_EventsMarkChangesButNotTheFirstReady(t *testing.T) {
	t.Parallel()
	f := newFixture(t, queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}))
	f.reconcile(t)
	if got := f.drained(); len(got) != 0 {
		t.Fatalf("events on the first Ready: %q", got)
	}

	q := f.get(t)
	q.Spec.Type = "quorum" // a changed desired state, declared at once
	if err := f.kube.Update(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	f.act.declareErr = rabbithole.ErrorResponse{StatusCode: 503, Message: "unavailable"}
	f.reconcile(t)
	warning := corev1.EventTypeWarning + " " + rmqv1.ReasonFailedCreateOrUpdate
	if got := f.drained(); countPrefix(got, warning) != 1 || len(got) != 1 {
		t.Fatalf("events on the failure: %q, want one %q", got, warning)
	}

	f.act.declareErr = nil
	f.now = f.now.Add(f.opts.BackoffMax)
	f.reconcile(t)
	normal := corev1.EventTypeNormal + " " + rmqv1.ReasonSuccessfulCreateOrUpdate
	if got := f.drained(); countPrefix(got, normal) != 1 || len(got) != 1 {
		t.Fatalf("events on the recovery: %q, want one %q", got, normal)
	}
}

// A dependency not declared yet at a resource's first attempt (the queue of
// a Binding applied with it) writes nothing and retries promptly; declared
// on the retry, the resource costs one status write and no event. A second
// such failure writes Ready False with a Warning, as any failure.
func TestReconcile_FirstMissingDependencyWritesNothing(t *testing.T) {
	t.Parallel()
	notFound := rabbithole.ErrorResponse{StatusCode: 404, Message: "not_found", Reason: "no queue 'q' in vhost '/'"}

	f := newFixture(t, queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}))
	f.act.declareErr = notFound
	res := f.reconcile(t)
	if f.statusPuts != 0 || len(f.drained()) != 0 || len(f.get(t).Status.Conditions) != 0 {
		t.Fatalf("the first missing dependency wrote status %d times, conditions %v", f.statusPuts, f.get(t).Status.Conditions)
	}
	if res.RequeueAfter <= 0 || res.RequeueAfter > f.opts.DependencyRetry {
		t.Fatalf("requeue after %v, want at most %v", res.RequeueAfter, f.opts.DependencyRetry)
	}
	f.act.declareErr = nil
	f.now = f.now.Add(res.RequeueAfter)
	f.reconcile(t)
	if c := meta.FindStatusCondition(f.get(t).Status.Conditions, rmqv1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue || f.statusPuts != 1 {
		t.Fatalf("ready=%+v statusWrites=%d", c, f.statusPuts)
	}
	if got := f.drained(); len(got) != 0 {
		t.Fatalf("events: %q", got)
	}

	g := newFixture(t, queue(rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}))
	g.act.declareErr = notFound
	res = g.reconcile(t)
	g.now = g.now.Add(res.RequeueAfter)
	g.reconcile(t)
	c := meta.FindStatusCondition(g.get(t).Status.Conditions, rmqv1.ConditionReady)
	if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "no queue") {
		t.Fatalf("after the second failure: ready=%+v", c)
	}
	if got := countPrefix(g.drained(), corev1.EventTypeWarning+" "+rmqv1.ReasonFailedCreateOrUpdate); got != 1 {
		t.Fatalf("%d Warning events after the second failure, want 1", got)
	}
}
