package orders

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
)

// The loop is exercised with a fake kind on KeystoneProject objects: the
// kind records which of its parts the loop called and reports a condition
// and status.projectID the test chooses.

const testFinalizer = "c5c3.io/test-teardown"

type (
	testObj    = *c5c3v1alpha1.KeystoneProject
	testStatus = c5c3v1alpha1.KeystoneProjectStatus
)

type fakeKind struct {
	calls []string
	// pass is the Pass the loop handed to Teardown or Start.
	pass *Pass[testObj]
	// teardown is the result of Teardown's hold; actErr and gatedErr what Act and Gated
	// return; cond the condition Status reports (status True or False) and
	// projectID status.projectID.
	teardown  reconcile.Result
	actErr    error
	gatedErr  error
	cond      metav1.ConditionStatus
	projectID string
	requeue   time.Duration
}

func (*fakeKind) New() testObj { return &c5c3v1alpha1.KeystoneProject{} }
func (*fakeKind) PlaneRef(o testObj) c5c3v1alpha1.ControlPlaneRefSpec {
	return o.Spec.ControlPlaneRef
}
func (k *fakeKind) Teardown(*Pass[testObj]) Teardown[testObj] {
	return Teardown[testObj]{Finalizer: testFinalizer, Hold: func(_ context.Context, p *Pass[testObj]) (Hold, error) {
		k.calls, k.pass = append(k.calls, "Teardown"), p
		return Hold{Holding: true, Requeue: k.teardown.RequeueAfter}, nil
	}}
}
func (k *fakeKind) Start(p *Pass[testObj]) Actuator[testStatus] {
	k.calls, k.pass = append(k.calls, "Start"), p
	return fakeActuator{k}
}

type fakeActuator struct{ k *fakeKind }

func (a fakeActuator) Act(context.Context) error {
	a.k.calls = append(a.k.calls, "Act")
	return a.k.actErr
}
func (a fakeActuator) Gated(context.Context) error {
	a.k.calls = append(a.k.calls, "Gated")
	return a.k.gatedErr
}
func (a fakeActuator) Status() lifecycle.StatusUpdate[testStatus] {
	a.k.calls = append(a.k.calls, "Status")
	obj := a.k.pass.Obj
	reason, ready := "Waiting", metav1.Condition{Type: c5c3v1alpha1.ConditionReady, Status: a.k.cond,
		Reason: c5c3v1alpha1.ReasonNotAllReady, Message: "ProjectReady is not True", ObservedGeneration: obj.Generation}
	if a.k.cond == metav1.ConditionTrue {
		reason, ready.Reason, ready.Message = "Provisioned", c5c3v1alpha1.ReasonAllReady, "all conditions are True"
	}
	if !a.k.pass.Gate.Passed() {
		reason = a.k.pass.Gate.Reason
	}
	st := obj.Status
	st.ProjectID = a.k.projectID
	st.ObservedGeneration = 99                                                                             // ignored: the writer sets it
	st.Conditions = []metav1.Condition{{Type: "Ignored", Status: metav1.ConditionTrue, Reason: "Ignored"}} // ignored too
	return lifecycle.StatusUpdate[testStatus]{Fields: st, Now: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		Conditions: []metav1.Condition{{Type: c5c3v1alpha1.ConditionProjectReady, Status: a.k.cond, Reason: reason,
			Message: "m", ObservedGeneration: obj.Generation}, ready}}
}
func (a fakeActuator) Requeue() time.Duration {
	a.k.calls = append(a.k.calls, "Requeue")
	return a.k.requeue
}

// fakeClusters serves the management cluster ("") and edge-1 from c.
type fakeClusters struct{ c client.Client }

func (f fakeClusters) Client(_ context.Context, name multicluster.ClusterName) (client.Client, error) {
	if name == "" || name == "edge-1" {
		return f.c, nil
	}
	return nil, multicluster.ErrClusterNotFound
}

type loopFixture struct {
	kind   *fakeKind
	loop   Loop[testObj, testStatus]
	c      client.Client
	events *events.FakeRecorder
}

// newLoop serves objs; funcs, if set, intercept the client's calls.
func newLoop(t *testing.T, funcs *interceptor.Funcs, objs ...client.Object) *loopFixture {
	t.Helper()
	s := runtime.NewScheme()
	if err := c5c3v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	b := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&c5c3v1alpha1.KeystoneProject{})
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	f := &loopFixture{kind: &fakeKind{cond: metav1.ConditionTrue, requeue: 7 * time.Minute}, c: b.Build(),
		events: events.NewFakeRecorder(10)}
	f.loop = Loop[testObj, testStatus]{Kind: f.kind, Finalizer: testFinalizer, Clusters: fakeClusters{f.c}, Planes: f.c,
		Status: lifecycle.StatusWriter[testObj, testStatus]{Kind: KindKeystoneProject, Recorder: f.events,
			Fields: func(o testObj) (*testStatus, *[]metav1.Condition, *int64) {
				return &o.Status, &o.Status.Conditions, &o.Status.ObservedGeneration
			}}}
	return f
}

// project is KeystoneProject tenant-a/p (generation 3) referencing
// ControlPlane openstack/cp.
func project(finalizers ...string) *c5c3v1alpha1.KeystoneProject {
	return &c5c3v1alpha1.KeystoneProject{
		ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-a", Name: "p", Generation: 3, Finalizers: finalizers},
		Spec:       c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"}}}
}

func request(cluster string) mcreconcile.Request {
	return mcreconcile.Request{ClusterName: multicluster.ClusterName(cluster),
		Request: reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "tenant-a", Name: "p"}}}
}

func (f *loopFixture) get(t *testing.T) *c5c3v1alpha1.KeystoneProject {
	t.Helper()
	var kp c5c3v1alpha1.KeystoneProject
	if err := f.c.Get(context.Background(), request("").NamespacedName, &kp); err != nil {
		t.Fatal(err)
	}
	return &kp
}

func (f *loopFixture) drained() []string {
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

func wantCalls(t *testing.T, k *fakeKind, want ...string) {
	t.Helper()
	if strings.Join(k.calls, ",") != strings.Join(want, ",") {
		t.Errorf("calls = %v, want %v", k.calls, want)
	}
}

func TestLoopOpenGate(t *testing.T) {
	t.Parallel()
	f := newLoop(t, nil, project(), plane(metav1.ConditionTrue, assign("", "tenant-a")))
	res, err := f.loop.Reconcile(context.Background(), request(""))
	if err != nil || res.RequeueAfter != 7*time.Minute {
		t.Fatalf("Reconcile = %+v, %v; want RequeueAfter 7m, nil (Actuator.Requeue)", res, err)
	}
	wantCalls(t, f.kind, "Start", "Act", "Status", "Requeue")
	p := f.kind.pass
	if p.Plane == nil || p.Plane.Name != "cp" || !p.Gate.Passed() || p.Order != (Order{Kind: KindKeystoneProject, Namespace: "tenant-a", Name: "p"}) {
		t.Errorf("pass = plane %v, gate %+v, order %+v", p.Plane, p.Gate, p.Order)
	}
	kp := f.get(t)
	if !controllerutil.ContainsFinalizer(kp, testFinalizer) {
		t.Error("an assigned order got no teardown finalizer")
	}
	c := meta.FindStatusCondition(kp.Status.Conditions, c5c3v1alpha1.ConditionProjectReady)
	if c == nil || c.Status != metav1.ConditionTrue || kp.Status.ObservedGeneration != 3 {
		t.Fatalf("status = %+v; want ProjectReady=True at observedGeneration 3", kp.Status)
	}
	if ev := f.drained(); len(ev) != 1 || ev[0] != "Normal AllReady Ready=True: all conditions are True" {
		t.Errorf("events = %q, want one Normal AllReady for the new Ready (docs/hub.md, \"Condition events\")", ev)
	}
}

func TestLoopGatedOrder(t *testing.T) {
	t.Parallel()
	// No ControlPlane: ControlPlaneNotFound, no finalizer, Gated not Act.
	f := newLoop(t, nil, project())
	f.kind.cond = metav1.ConditionFalse
	if _, err := f.loop.Reconcile(context.Background(), request("")); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, f.kind, "Start", "Gated", "Status", "Requeue")
	kp := f.get(t)
	if len(kp.Finalizers) != 0 {
		t.Errorf("finalizers = %v: a refused order must not be held on deletion", kp.Finalizers)
	}
	c := meta.FindStatusCondition(kp.Status.Conditions, c5c3v1alpha1.ConditionProjectReady)
	if c == nil || c.Reason != c5c3v1alpha1.ReasonControlPlaneNotFound {
		t.Errorf("ProjectReady = %+v, want reason ControlPlaneNotFound", c)
	}
	if ev := f.drained(); len(ev) != 1 || ev[0] != corev1.EventTypeWarning+" "+c5c3v1alpha1.ReasonControlPlaneNotFound+" ProjectReady=False: m" {
		t.Errorf("events = %q, want one Warning ControlPlaneNotFound, the condition that decides the new Ready", ev)
	}
}

func TestLoopStatusWrite(t *testing.T) {
	t.Parallel()
	old := metav1.NewTime(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	kp := project(testFinalizer)
	kp.Status = c5c3v1alpha1.KeystoneProjectStatus{ProjectID: "old", DomainID: "d-1", ObservedGeneration: 1, Conditions: []metav1.Condition{
		{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionTrue, Reason: "Provisioned", Message: "m", LastTransitionTime: old},
		{Type: "Other", Status: metav1.ConditionTrue, Reason: "Kept", Message: "x", LastTransitionTime: old},
		{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonAllReady, Message: "all conditions are True", LastTransitionTime: old}}}
	f := newLoop(t, nil, kp, plane(metav1.ConditionTrue, assign("", "tenant-a")))
	f.kind.projectID = "new"
	if _, err := f.loop.Reconcile(context.Background(), request("")); err != nil {
		t.Fatal(err)
	}
	got := f.get(t)
	if got.Status.ProjectID != "new" || got.Status.DomainID != "d-1" || got.Status.ObservedGeneration != 3 {
		t.Errorf("status fields = %+v; want projectID new, domainID kept, observedGeneration 3 (not the update's 99)", got.Status)
	}
	for _, typ := range []string{c5c3v1alpha1.ConditionProjectReady, "Other"} {
		c := meta.FindStatusCondition(got.Status.Conditions, typ)
		if c == nil || !c.LastTransitionTime.Equal(&old) {
			t.Errorf("%s = %+v; want it kept with its lastTransitionTime (unchanged status)", typ, c)
		}
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, "Ignored"); c != nil {
		t.Errorf("conditions = %+v; the update's Fields.Conditions must be ignored", got.Status.Conditions)
	}
	if ev := f.drained(); len(ev) != 0 {
		t.Errorf("events = %q; an unchanged condition records none", ev)
	}
}

func TestLoopActErrorAfterStatus(t *testing.T) {
	t.Parallel()
	f := newLoop(t, nil, project(), plane(metav1.ConditionTrue, assign("", "tenant-a")))
	f.kind.actErr = errors.New("apply failed")
	f.kind.cond = metav1.ConditionFalse
	res, err := f.loop.Reconcile(context.Background(), request(""))
	if err == nil || !strings.Contains(err.Error(), "apply failed") || res != (reconcile.Result{}) {
		t.Fatalf("Reconcile = %+v, %v; want the Act error and no requeue of its own", res, err)
	}
	wantCalls(t, f.kind, "Start", "Act", "Status")
	if c := meta.FindStatusCondition(f.get(t).Status.Conditions, c5c3v1alpha1.ConditionProjectReady); c == nil {
		t.Error("a failed Act wrote no status: the failure must be reported on the order")
	}
}

func TestLoopTeardown(t *testing.T) {
	t.Parallel()
	kp := project(testFinalizer)
	kp.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	f := newLoop(t, nil, kp)
	f.kind.teardown = reconcile.Result{RequeueAfter: 3 * time.Second}
	res, err := f.loop.Reconcile(context.Background(), request(""))
	if err != nil || res.RequeueAfter != 3*time.Second {
		t.Fatalf("Reconcile = %+v, %v; want Teardown's result", res, err)
	}
	wantCalls(t, f.kind, "Teardown")
	if f.kind.pass.Plane != nil || f.kind.pass.Gate != (conditions.Gate{}) {
		t.Errorf("teardown pass = plane %v, gate %+v; want no plane and no gate", f.kind.pass.Plane, f.kind.pass.Gate)
	}
	if len(f.get(t).Status.Conditions) != 0 {
		t.Error("the loop wrote status for a deleting order; only Teardown may")
	}
}

func TestLoopMissingOrderAndCluster(t *testing.T) {
	t.Parallel()
	f := newLoop(t, nil)
	if res, err := f.loop.Reconcile(context.Background(), request("")); err != nil || res != (reconcile.Result{}) {
		t.Errorf("missing order: Reconcile = %+v, %v; want nothing", res, err)
	}
	if _, err := f.loop.Reconcile(context.Background(), request("gone")); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("deregistered cluster: err = %v, want ErrClusterNotFound (the builder drops the request)", err)
	}
	wantCalls(t, f.kind)
}

func TestLoopManagementEventsOnly(t *testing.T) {
	t.Parallel()
	f := newLoop(t, nil, project(), plane(metav1.ConditionTrue, assign("edge-1", "tenant-a")))
	if _, err := f.loop.Reconcile(context.Background(), request("edge-1")); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, f.kind, "Start", "Act", "Status", "Requeue")
	if ev := f.drained(); len(ev) != 0 {
		t.Errorf("events = %q for an order on a target cluster, want none", ev)
	}
	if c := meta.FindStatusCondition(f.get(t).Status.Conditions, c5c3v1alpha1.ConditionProjectReady); c == nil {
		t.Error("no status written for the target-cluster order")
	}
}

func TestLoopStatusConflict(t *testing.T) {
	t.Parallel()
	conflict := &interceptor.Funcs{SubResourcePatch: func(context.Context, client.Client, string, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
		return apierrors.NewConflict(schema.GroupResource{Group: "c5c3.io", Resource: "keystoneprojects"}, "p", errors.New("stale"))
	}}
	objs := func() []client.Object {
		return []client.Object{project(), plane(metav1.ConditionTrue, assign("", "tenant-a"))}
	}
	for _, tc := range []struct {
		name    string
		lock    bool
		actErr  error
		want    reconcile.Result
		wantErr bool
	}{
		{"a stale read under the optimistic lock runs again", true, nil, reconcile.Result{RequeueAfter: lifecycle.StaleRequeue}, false},
		{"with another failure the errors are returned", true, errors.New("apply failed"), reconcile.Result{}, true},
		{"without the lock a conflict is an error", false, nil, reconcile.Result{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLoop(t, conflict, objs()...)
			f.loop.Status.OptimisticLock = tc.lock
			f.kind.actErr = tc.actErr
			res, err := f.loop.Reconcile(context.Background(), request(""))
			if res != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("Reconcile = %+v, %v; want %+v, error %t", res, err, tc.want, tc.wantErr)
			}
			if err != nil && tc.actErr == nil && !apierrors.IsConflict(err) {
				t.Errorf("err = %v, want the Conflict", err)
			}
			if ev := f.drained(); len(ev) != 0 {
				t.Errorf("events = %q after a failed write, want none", ev)
			}
		})
	}
}
