package identity

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/osh/reconcile"
)

// fakeActuator records calls and returns err from apply.
type fakeActuator struct {
	applies, removes int
	resyncs          int
	err              error
}

func (*fakeActuator) kind() string           { return "Domain" }
func (*fakeActuator) spec(o *kv1.Domain) any { return o.Spec }
func (*fakeActuator) inputs(context.Context, client.Reader, *kv1.Domain) (map[string]string, error) {
	return nil, nil
}
func (f *fakeActuator) apply(_ context.Context, o *kv1.Domain, in applyInput) (outcome, error) {
	f.applies++
	if in.resync {
		f.resyncs++
	}
	if f.err != nil {
		return outcome{}, f.err
	}
	o.Status.DomainID = "id-1"
	return changed("created domain " + o.Spec.Name), nil
}
func (f *fakeActuator) remove(context.Context, *kv1.Domain) error { f.removes++; return nil }

type recorderStub struct{ *events.FakeRecorder }

func newTestReconciler(t *testing.T, act *fakeActuator, now *time.Time, objs ...client.Object) (*reconcile.Loop[*kv1.Domain], client.Client) {
	t.Helper()
	s := runtime.NewScheme()
	if err := kv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&kv1.Domain{}).Build()
	k := &kindActuator[*kv1.Domain]{client: c, reader: c, recorder: recorderStub{events.NewFakeRecorder(100)}, act: act,
		opts: Options{RefName: "keystone", Resync: time.Minute, Backoff: 7 * time.Second}}
	return newLoop(k, nil, func() *kv1.Domain { return &kv1.Domain{} }, func() time.Time { return *now }), c
}

func domainObj(ref string, policy kv1.DeletionPolicy, finalizers ...string) *kv1.Domain {
	return &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", UID: "uid-1", Generation: 1, Finalizers: finalizers},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: &kv1.KeystoneRef{Name: ref}, DeletionPolicy: policy}, Name: "service"}}
}

func req() ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "d"}}
}

func get(t *testing.T, c client.Client) *kv1.Domain {
	t.Helper()
	var d kv1.Domain
	if err := c.Get(context.Background(), req().NamespacedName, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func TestReconcileForeignGetsNoStatusAndLosesOurFinalizer(t *testing.T) {
	t.Parallel()
	now := time.Now()
	act := &fakeActuator{}
	r, c := newTestReconciler(t, act, &now, domainObj("other", kv1.DeletionPolicyDelete, kv1.Finalizer, "x/y"))
	if _, err := r.Reconcile(context.Background(), req()); err != nil {
		t.Fatal(err)
	}
	d := get(t, c)
	if act.applies != 0 {
		t.Errorf("Keystone called %d times for a foreign resource", act.applies)
	}
	if len(d.Status.Conditions) != 0 || d.Status.ObservedGeneration != 0 {
		t.Errorf("foreign resource got status %+v", d.Status)
	}
	if controllerutil.ContainsFinalizer(d, kv1.Finalizer) || !controllerutil.ContainsFinalizer(d, "x/y") {
		t.Errorf("finalizers = %v, want only x/y", d.Finalizers)
	}
}

func TestReconcileSkipsUnchangedUntilResync(t *testing.T) {
	t.Parallel()
	now := time.Now()
	act := &fakeActuator{}
	r, c := newTestReconciler(t, act, &now, domainObj("", ""))
	res, err := r.Reconcile(context.Background(), req())
	if err != nil {
		t.Fatal(err)
	}
	d := get(t, c)
	cond := meta.FindStatusCondition(d.Status.Conditions, kv1.ConditionReady)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != kv1.ReasonReconciled || d.Status.DomainID != "id-1" {
		t.Fatalf("status = %+v", d.Status)
	}
	due := resyncDue(now, time.Minute, d.UID)
	if res.RequeueAfter != due.Sub(now) || res.RequeueAfter < 30*time.Second {
		t.Errorf("requeue after %v, want the resource's resync, %v", res.RequeueAfter, due.Sub(now))
	}
	if controllerutil.ContainsFinalizer(d, kv1.Finalizer) {
		t.Error("retain must not add a finalizer")
	}
	now = now.Add(20 * time.Second)
	res, _ = r.Reconcile(context.Background(), req())
	if act.applies != 1 {
		t.Fatalf("applies = %d after an unchanged reconcile, want 1", act.applies)
	}
	if res.RequeueAfter != due.Sub(now) {
		t.Errorf("requeue after %v, want the rest of the resync period, %v", res.RequeueAfter, due.Sub(now))
	}
	now = due
	_, _ = r.Reconcile(context.Background(), req())
	if act.applies != 2 || act.resyncs != 1 {
		t.Fatalf("applies = %d, resyncs = %d after the resync period, want 2 and 1", act.applies, act.resyncs)
	}
}

func TestReconcileErrorSetsReconcileErrorAndRetryInterval(t *testing.T) {
	t.Parallel()
	now := time.Now()
	act := &fakeActuator{err: &missingError{"domain", `"x"`}}
	d0 := domainObj("keystone", "")
	d0.Spec.RetryInterval = "3s"
	r, c := newTestReconciler(t, act, &now, d0)
	res, err := r.Reconcile(context.Background(), req())
	if err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(get(t, c).Status.Conditions, kv1.ConditionReady)
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != kv1.ReasonReconcileError {
		t.Fatalf("condition = %+v", cond)
	}
	if res.RequeueAfter != 3*time.Second {
		t.Errorf("requeue after %v, want spec.retryInterval", res.RequeueAfter)
	}
	_, _ = r.Reconcile(context.Background(), req())
	if act.applies != 2 {
		t.Errorf("a failed resource must be retried, applies = %d", act.applies)
	}
}

func TestReconcileDeletePolicy(t *testing.T) {
	t.Parallel()
	now := time.Now()
	act := &fakeActuator{}
	r, c := newTestReconciler(t, act, &now, domainObj("", kv1.DeletionPolicyDelete))
	if _, err := r.Reconcile(context.Background(), req()); err != nil {
		t.Fatal(err)
	}
	d := get(t, c)
	if !controllerutil.ContainsFinalizer(d, kv1.Finalizer) {
		t.Fatal("deletionPolicy delete must add the finalizer")
	}
	if err := c.Delete(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(context.Background(), req()); err != nil {
		t.Fatal(err)
	}
	if act.removes != 1 {
		t.Errorf("removes = %d, want 1", act.removes)
	}
	var gone kv1.Domain
	if err := c.Get(context.Background(), req().NamespacedName, &gone); err == nil {
		t.Errorf("resource still present with finalizers %v", gone.Finalizers)
	}
}

// The policy in force at deletion decides: the cached copy still says delete,
// the live resource says retain (switched while terminating), so the
// Keystone object is kept and only the finalizer goes.
func TestReconcileDeleteRereadsThePolicy(t *testing.T) {
	t.Parallel()
	now := time.Now()
	act := &fakeActuator{}
	r, c := newTestReconciler(t, act, &now, domainObj("", kv1.DeletionPolicyDelete))
	if _, err := r.Reconcile(context.Background(), req()); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(context.Background(), get(t, c)); err != nil {
		t.Fatal(err)
	}
	stale := get(t, c) // terminating, policy delete
	s := runtime.NewScheme()
	if err := kv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	cached := fake.NewClientBuilder().WithScheme(s).WithObjects(stale.DeepCopy()).WithStatusSubresource(&kv1.Domain{}).Build()
	d := get(t, c)
	d.Spec.DeletionPolicy = kv1.DeletionPolicyRetain
	if err := c.Update(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	r.Client, r.Live = withLive{cached, c}, c
	if _, err := r.Reconcile(context.Background(), req()); err != nil {
		t.Fatal(err)
	}
	if act.removes != 0 {
		t.Errorf("removes = %d, want 0: the live policy is retain", act.removes)
	}
	var gone kv1.Domain
	if err := c.Get(context.Background(), req().NamespacedName, &gone); err == nil {
		t.Errorf("resource still present with finalizers %v", gone.Finalizers)
	}
}

// withLive reads from the stale client but writes to the live one, as a
// manager's cached client does.
type withLive struct {
	client.Client
	live client.Client
}

func (w withLive) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return w.live.Patch(ctx, obj, patch, opts...)
}

func TestDeletesFromKeystone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		owned  bool
		policy kv1.DeletionPolicy
		want   bool
	}{
		{true, kv1.DeletionPolicyDelete, true},
		{true, kv1.DeletionPolicyRetain, false},
		{true, "", false},
		{false, kv1.DeletionPolicyDelete, false},
	} {
		if got := deletesFromKeystone(tc.owned, tc.policy); got != tc.want {
			t.Errorf("deletesFromKeystone(%v, %q) = %v, want %v", tc.owned, tc.policy, got, tc.want)
		}
	}
}

// A change made by the forced resync (the spec unchanged) is a drift repair:
// a Normal DriftRepaired event naming it; the first apply's change is not.
func TestReconcileResyncChangeIsDriftRepair(t *testing.T) {
	t.Parallel()
	now := time.Now()
	act := &fakeActuator{}
	r, _ := newTestReconciler(t, act, &now, domainObj("", ""))
	rec := r.Events.Recorder.(recorderStub).FakeRecorder
	if _, err := r.Reconcile(context.Background(), req()); err != nil {
		t.Fatal(err)
	}
	if ev := <-rec.Events; !strings.Contains(ev, kv1.ReasonReconciled) || strings.Contains(ev, kv1.EventReasonDriftRepaired) {
		t.Errorf("first apply's event = %q, want Reconciled", ev)
	}
	now = now.Add(2 * time.Minute)
	if _, err := r.Reconcile(context.Background(), req()); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-rec.Events:
		if !strings.HasPrefix(ev, "Normal "+kv1.EventReasonDriftRepaired) || !strings.Contains(ev, "drift repaired: created domain service") {
			t.Errorf("resync event = %q, want Normal DriftRepaired naming the change", ev)
		}
	default:
		t.Error("no event for the change the resync made")
	}
}
